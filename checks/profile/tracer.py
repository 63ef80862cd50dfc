"""Emulated only: per aten op of each measured training step, the NPU pitfalls an op trace can show.

A TorchDispatchMode (like checks/child/optrace.py, which only answers "which ops ran") entered after
optimizer step 1 and left once two steps in a row show nothing new:
- cpu_fallback: ops with no NPU kernel in the target torch_npu (knowledge data; CPU-only
  implementation ops of the stand-in excluded as in optrace), per step, at the user's line, with
  the op's CPU time measured here (what a host fallback costs before the copies);
- float64: ops whose output is float64 or complex (on the NPU they run on the AI CPU or not at all);
- dynamic_shape: the k-th call of an op in a step is compared with the k-th call of the same op in the
  previous step; an op whose tensor-argument shapes differ is "varying". Varying outputs are
  followed through the ops that consume them, so the finding sits where the varying input first
  enters (the earliest varying op none of whose inputs came from another varying op), not at every
  layer it passes through. Backward ops never start a finding (their shapes come from the forward).
Ops inside GradScaler's own bookkeeping and inside DataLoader iteration (host-side work by design)
are not counted as fallbacks or float64.
"""
from __future__ import annotations

import time

from checks.emulation.compat import torch_dispatch_mode

TorchDispatchMode = torch_dispatch_mode()

SKIP_FILES = ("torch/amp/grad_scaler.py",)
MAX_EXAMPLES = 4


class PerfTracer(TorchDispatchMode):
    def __init__(self, torch, state, kb):
        super().__init__()
        self.torch = torch
        self.Tensor = torch.Tensor
        self.state = state
        self.kb = kb
        self.wide = frozenset({torch.float64, torch.complex64, torch.complex128, torch.complex32})
        self.no_kernel: dict = {}  # func -> bool
        self.cpu_only = _cpu_only_ops()
        self.occurrence: dict = {}  # func -> calls in this step
        self.previous: dict = {}  # (func, k) -> shape signature in the previous traced step
        self.distinct: dict = {}  # (func, k) -> set of signatures
        self.derived: dict = {}  # id(tensor) -> entry location, for outputs of varying ops (this step)
        self.varying_in_step = 0
        self.active = False

    # -- step boundaries (called by child.ProfileState)
    def start(self) -> None:
        self.__enter__()
        self.active = True

    def stop(self) -> bool:
        try:
            self.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - the script pushed its own mode on top of ours: keep tracing
            return False
        self.active = False
        return True

    def new_step(self) -> None:
        self.occurrence.clear()
        self.derived.clear()
        self.varying_in_step = 0

    # -- per op
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        t0 = time.perf_counter()
        out = func(*args, **kwargs)
        elapsed = time.perf_counter() - t0
        state = self.state
        if not state.measuring or state.harness:
            return out
        hostsync = state.hostsync
        if hostsync is not None and hostsync.depth:  # inside a counted sync (printing, masking): part of it
            return out
        if not state.in_loader:
            missing = self.no_kernel.get(func)
            if missing is None:
                missing = self.no_kernel[func] = self._no_kernel(func)
            if missing:
                where = state.frames.first_user(2, SKIP_FILES)
                if where is not None:  # in backward, the user frame is the backward() call
                    op = _base(func) + (" (backward)" if state.in_backward else "")
                    state.count("cpu_fallback", where, op, f"{op} has no NPU kernel",
                                seconds=elapsed, nbytes=_nbytes(self.Tensor, args, out))
            dtype = _wide_dtype(self.Tensor, self.wide, out)
            if dtype is not None:
                where = state.frames.first_user(2, SKIP_FILES)
                if where is not None:
                    state.count("float64", where, f"{_base(func)} ({dtype})", "ops compute in float64/complex",
                                seconds=elapsed)
        self._shapes(func, args, out)
        return out

    def _no_kernel(self, func) -> bool:
        name = func.name()
        return (self.kb is not None and self.kb.op_supported(name) is False
                and _base(func).split("::")[-1] not in self.cpu_only)

    def _shapes(self, func, args, out) -> None:
        Tensor = self.Tensor
        sig = []
        inputs = []
        for a in args:
            if isinstance(a, Tensor):
                sig.append(tuple(a.shape))
                inputs.append(a)
            elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
                for t in a:
                    if isinstance(t, Tensor):
                        sig.append(tuple(t.shape))
                        inputs.append(t)
        if not inputs and isinstance(out, Tensor):  # factories: their output shape is the input
            sig.append(("out",) + tuple(out.shape))
        if not sig:
            return
        sig = tuple(sig)
        k = self.occurrence.get(func, 0)
        self.occurrence[func] = k + 1
        key = (func, k)
        before = self.previous.get(key)
        self.previous[key] = sig
        derived = self.derived
        source = None
        for t in inputs:
            source = derived.get(id(t))
            if source is not None:
                break
        if before is None or before == sig:
            if source is not None:  # an op fed by a varying input keeps the chain going
                _mark(Tensor, out, derived, source)
            return
        shapes = self.distinct.get(key)
        if shapes is None:
            shapes = self.distinct[key] = {before}
        shapes.add(sig)
        state = self.state
        if state.in_loader:
            # host work by design (Dataset, collate): no NPU kernel compiles here, but what it produces
            # enters the step at the loop line, so the ops downstream are reported there
            if source is None:
                source = state.loader_where
            if source is not None:
                _mark(Tensor, out, derived, source)
            return
        self.varying_in_step += 1
        what = _base(func)
        if source is None:
            if state.in_backward:
                return
            source = state.frames.first_user(3)
            if source is None:
                return
        # distinct shapes: as the device ops see them (what the NPU compiles kernels for)
        state.count("dynamic_shape", source, what, "input shapes differ between steps", distinct=len(shapes),
                    example=_fmt(sig))
        _mark(Tensor, out, derived, source)


def _mark(Tensor, out, derived, source) -> None:
    if isinstance(out, Tensor):
        derived[id(out)] = source
    elif isinstance(out, (list, tuple)):
        for o in out:
            if isinstance(o, Tensor):
                derived[id(o)] = source


def _fmt(sig) -> str:
    return ", ".join("x".join(map(str, s[1:] if s and s[0] == "out" else s)) or "scalar" for s in sig)


def _wide_dtype(Tensor, wide, out):
    if isinstance(out, Tensor):
        return str(out.dtype).replace("torch.", "") if out.dtype in wide else None
    if isinstance(out, (tuple, list)):
        for o in out:
            if isinstance(o, Tensor) and o.dtype in wide:
                return str(o.dtype).replace("torch.", "")
    return None


def _nbytes(Tensor, args, out) -> int:
    total = 0
    for t in (*args, *(out if isinstance(out, (tuple, list)) else (out,))):
        if isinstance(t, Tensor):
            total += t.numel() * t.element_size()
    return total


def _base(func) -> str:
    return func.name().split(".", 1)[0]


def _cpu_only_ops() -> frozenset:
    from checks.child.optrace import cpu_only_ops as cpu_only

    return cpu_only()
