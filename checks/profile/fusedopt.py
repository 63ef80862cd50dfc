"""Optimizers with a fused counterpart in the target torch_npu (`torch_npu.optim.NpuFused<Name>`).

The counterpart's name is checked against the knowledge data read from the wheel (module
`torch_npu.optim`), never assumed: torch.optim.AdamW -> torch_npu.optim.NpuFusedAdamW exists in
2.14.0, torch.optim.Adagrad has no counterpart and is never reported. The construction line is
recorded by wrapping `torch.optim.Optimizer.__init__` (the base class every optimizer calls).
"""
from __future__ import annotations

import functools

LINE_ATTR = "_npu_migrate_profile_line"


def fused_name(kb, optimizer_cls) -> str | None:
    """`torch_npu.optim.NpuFusedX` for a torch.optim.X that has one in the knowledge data, else None."""
    module = getattr(optimizer_cls, "__module__", "") or ""
    if not module.startswith("torch.optim") or kb is None:
        return None
    names = kb.module_names("torch_npu.optim") or frozenset()
    candidate = f"NpuFused{optimizer_cls.__name__}"
    return f"torch_npu.optim.{candidate}" if candidate in names else None


def install(torch, state) -> None:
    base = torch.optim.Optimizer
    orig_init = base.__init__

    @functools.wraps(orig_init)
    def __init__(self, *args, **kwargs):
        where = state.frames.first_user(2)
        orig_init(self, *args, **kwargs)
        try:
            setattr(self, LINE_ATTR, where)
        except AttributeError:
            pass

    base.__init__ = __init__


def describe(optimizer) -> dict:
    """Parameter tensors and the implementation options of an optimizer instance."""
    n = 0
    foreach = fused = None
    for group in optimizer.param_groups:
        n += len(group.get("params", ()))
        foreach = group.get("foreach", foreach)
        fused = group.get("fused", fused)
    return {"tensors": n, "foreach": foreach, "fused": fused}
