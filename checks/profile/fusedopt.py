"""Optimizers with a fused counterpart in the target torch_npu (`torch_npu.optim.NpuFused<Name>`).

Which torch optimizer has which fused replacement is data with its source: Ascend's "NPU affinity
optimizer replacement" table (migrate/knowledge/fused_optimizers.toml), each name also checked against
the target release's knowledge data (module `torch_npu.optim`, read from the wheel), never assumed:
torch.optim.AdamW -> torch_npu.optim.NpuFusedAdamW exists in 2.14.0, torch.optim.Adagrad has no row and
is never reported. The construction line is recorded by wrapping `torch.optim.Optimizer.__init__` (the
base class every optimizer calls).
"""
from __future__ import annotations

import functools

LINE_ATTR = "_npu_migrate_profile_line"


TABLE = "fused_optimizers.toml"


def fused_name(kb, optimizer_cls) -> str | None:
    """The fused torch_npu optimizer the table gives for a torch.optim class, where the target release
    has it (kb), else None."""
    module = getattr(optimizer_cls, "__module__", "") or ""
    if not module.startswith("torch.optim") or kb is None:
        return None
    from migrate.knowledge import read_toml

    row = read_toml(TABLE)["optimizer"].get(f"torch.optim.{optimizer_cls.__name__}")
    if row is None:
        return None
    fused = row["fused"]
    return fused if fused.rpartition(".")[2] in (kb.module_names("torch_npu.optim") or ()) else None


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
