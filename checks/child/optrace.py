"""Op coverage of an emulated smoke run: which aten ops the training steps execute, which of them have
no NPU kernel in the targeted torch_npu, and which create float64/complex tensors.

Runs inside the smoke child (imports torch). The tracer is a TorchDispatchMode entered at the first
`backward()` call, so it sees step 1's backward and optimizer update and every later step in full;
set-up work before training (data loading, model construction) is not traced.
"""
from __future__ import annotations

import torch

from checks.emulation.compat import torch_dispatch_mode

TorchDispatchMode = torch_dispatch_mode()
_WIDE = frozenset({torch.float64, torch.complex64, torch.complex128, torch.complex32})


class OpTracer(TorchDispatchMode):
    """Counts every dispatched op; notes ops whose outputs are float64 or complex."""

    def __init__(self):
        super().__init__()
        self.counts: dict = {}
        self.wide: dict = {}
        self.paused = 0  # > 0 inside torch's own machinery (GradScaler bookkeeping), not user code

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.paused:
            return out
        counts = self.counts
        counts[func] = counts.get(func, 0) + 1
        if isinstance(out, torch.Tensor):
            if out.dtype in _WIDE:
                self.wide.setdefault(func, str(out.dtype).replace("torch.", ""))
        elif isinstance(out, (tuple, list)):
            for o in out:
                if isinstance(o, torch.Tensor) and o.dtype in _WIDE:
                    self.wide.setdefault(func, str(o.dtype).replace("torch.", ""))
                    break
        return out

    def summary(self, kb) -> dict:
        """JSON-ready: ops traced, ops with no NPU kernel (kb.op_supported is False), wide-dtype ops."""
        by_name: dict[str, int] = {}
        for func, n in self.counts.items():
            name = func.name()  # "aten::add.Tensor"
            by_name[name] = by_name.get(name, 0) + n
        cpu_only = cpu_only_ops()
        unsupported = sorted({_base(name) for name in by_name
                              if kb is not None and kb.op_supported(name) is False
                              and _base(name).split("::")[-1] not in cpu_only})
        wide = sorted({f"{_base(func.name())} ({dtype})" for func, dtype in self.wide.items()})
        return {"ops": dict(sorted(by_name.items())), "unsupported_ops": unsupported, "float64_ops": wide}


def cpu_only_ops() -> frozenset:
    """CPU-only implementation ops (e.g. aten::mkldnn_rnn_layer, aten::_scaled_dot_product_flash_attention_for_cpu):
    the CPU stand-in runs them where the NPU dispatches the same Python API to its own kernels."""
    try:
        from migrate.knowledge import cpu_only_ops

        return cpu_only_ops()
    except (ImportError, AttributeError, KeyError, OSError):
        return frozenset()


def _base(name: str) -> str:
    return name.split(".", 1)[0]
