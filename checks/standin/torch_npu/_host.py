"""The rest of an emulated Ascend host: distributed (hccl -> gloo), torch.cuda absent, torch.accelerator.

The distributed and accelerator patches are `checks/emulation/devicemap.py`'s (shared with the CUDA twin)."""
from __future__ import annotations

import torch
from torch_npu import _probes
from torch_npu._devices import _mapped, dm, rt


def _to_gloo(backend):
    if isinstance(backend, str):
        low = backend.lower()
        if "hccl" in low or ("nccl" in low and "cuda" in _mapped):
            return "gloo"
        if "nccl" in low:
            # On an Ascend host torch has no NCCL: fail as it would there.
            raise RuntimeError("Distributed package doesn't have NCCL built in "
                               "(emulated Ascend host: use backend='hccl')")
    return backend


def _patch_distributed():
    import torch.distributed as dist

    dm.patch_distributed(_to_gloo)
    dist.is_hccl_available = lambda: True


# ------------------------------------------------------------------------------ torch.cuda on an Ascend host
def _patch_cuda_absent():
    """torch.cuda as on an Ascend host (a CPU build of torch): no devices, CUDA-only calls raise."""
    torch.cuda.is_available = lambda: False
    torch.cuda.device_count = lambda: 0
    _probes.answer_as_cpu_build()

    def nvtx_missing(*args, **kwargs):
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build? "
                           "(emulated Ascend host: torch.cuda.nvtx does not exist there; use torch.npu.mstx)")

    for name in ("range_push", "range_pop", "range_start", "range_end", "mark", "range"):
        if hasattr(torch.cuda.nvtx, name):
            setattr(torch.cuda.nvtx, name, nvtx_missing)


# ------------------------------------------------------------------------------ install
def _patch_accelerator(npu) -> None:
    """torch.accelerator reports the npu device; its C++ side has no PrivateUse1 hooks, so answer here."""
    rt.patch_accelerator("npu", npu.Stream)


# ------------------------------------------------------------------------------ TorchScript under transfer_to_npu
def _patch_jit_script() -> None:
    """As torch_npu 2.14.0's transfer_to_npu (`_patch_jit_script`): torch.jit.script returns what it
    is given (the Python function or module, whose calls the device mapping then sees) and
    torch.jit.script_method is the identity, with the same RuntimeWarning."""
    import warnings

    warnings.warn("torch.jit.script and torch.jit.script_method will be disabled by transfer_to_npu, "
                  "which currently does not support them. If you need to enable them, "
                  "please do not use transfer_to_npu.", RuntimeWarning, stacklevel=4)

    def script(obj, *args, **kwargs):
        return obj

    def script_method(fn):
        return fn

    torch.jit.script = script
    torch.jit.script_method = script_method
