"""What a training loop does with loss scaling, clipping and checkpoints, observed while it runs
(issue 28, the runtime side of rules NPU801-NPU807). The script is not changed: public torch
functions are wrapped for the length of the run and restored afterwards.

Per scaler update (one optimizer step under a GradScaler): the scale after it and whether the step
was skipped (GradScaler found inf/NaN gradients: it skips `optimizer.step` and backs the scale off).
Per clip call (`torch.nn.utils.clip_grad_norm_`): the total norm it saw (before clipping) and whether
the gradients were still multiplied by the loss scale (a scaled backward with no `unscale_` since).
Per `torch.save`: which training state the object holds (model, optimizer, scheduler, scaler, RNG,
step), judged from the shape of each state dict, and what a resume from it would lose of the state
the run keeps.

Not yet wired into `npu-migrate smoke` (its launch is being refactored, issue 25): `observe(torch)`
is the entry point a child calls, `LoopObservations.to_dict()` what it writes. torch is imported
by the caller, never here at module level.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field

STATE_KINDS = ("model", "optimizer", "scheduler", "scaler", "rng", "step")
_STEP_KEYS = frozenset({"epoch", "step", "iter", "iteration", "global_step", "iter_num", "start_epoch", "steps", "epochs"})
_SCALER_KEYS = frozenset({"scale", "growth_factor", "backoff_factor", "growth_interval"})


@dataclass(frozen=True)
class ScalerStep:
    step: int  # 1-based count of scaler updates
    scale: float  # the scale after the update
    skipped: bool  # inf/NaN gradients: optimizer.step was skipped and the scale backed off


@dataclass(frozen=True)
class ClipCall:
    index: int  # 1-based
    step: int  # scaler updates done before it
    total_norm: float  # the norm clip_grad_norm_ computed, before clipping
    scaled: bool  # the gradients still carried the loss scale (no unscale_ since the scaled backward)


@dataclass(frozen=True)
class Checkpoint:
    path: str
    holds: tuple[str, ...]  # of STATE_KINDS
    lost: tuple[str, ...]  # state the run keeps that a resume from this file would start afresh


@dataclass
class LoopObservations:
    scaler_steps: list[ScalerStep] = field(default_factory=list)
    clips: list[ClipCall] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)  # state kinds the run has: optimizer, scheduler, scaler

    @property
    def skipped_steps(self) -> list[int]:
        return [s.step for s in self.scaler_steps if s.skipped]

    def to_dict(self) -> dict:
        return {
            "scaler_steps": [asdict(s) for s in self.scaler_steps],
            "skipped_steps": self.skipped_steps,
            "clips": [asdict(c) for c in self.clips],
            "clipped_scaled_gradients": [c.index for c in self.clips if c.scaled],
            "checkpoints": [asdict(c) for c in self.checkpoints],
        }


def _kind_of_state_dict(torch, value) -> str | None:
    """The training state a value holds, from its shape (not its name): an optimizer's state dict
    has `state` and `param_groups`; a scheduler's `last_epoch` and `base_lrs`; a GradScaler's
    `scale` and `growth_factor`; an RNG state is a uint8 tensor (torch / CUDA generators) or a
    numpy / random state tuple; a model's state dict maps names to tensors."""
    if isinstance(value, Mapping):
        keys = set(value)
        if {"state", "param_groups"} <= keys:
            return "optimizer"
        if {"last_epoch", "base_lrs"} <= keys:
            return "scheduler"
        if _SCALER_KEYS & keys and "scale" in keys:
            return "scaler"
        if value and all(isinstance(k, str) for k in keys) and all(isinstance(v, torch.Tensor) for v in value.values()):
            return "model"
        return None
    if isinstance(value, torch.Tensor) and value.dtype == torch.uint8 and value.dim() == 1 and value.numel() > 64:
        return "rng"
    if isinstance(value, torch.nn.Module):
        return "model"
    if isinstance(value, tuple) and value and isinstance(value[0], str) and value[0] in {"MT19937"}:
        return "rng"  # numpy.random.get_state()
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], tuple) and len(value[1]) == 625:
        return "rng"  # random.getstate()
    return None


def checkpoint_holds(torch, obj) -> tuple[str, ...]:
    """The STATE_KINDS a saved object holds: the object itself, or the values of a dict of them
    (one level of nesting, e.g. `{"rng": {"torch": ..., "numpy": ...}}`)."""
    found: set[str] = set()
    kind = _kind_of_state_dict(torch, obj)
    if kind:
        found.add(kind)
    elif isinstance(obj, Mapping):
        for key, value in obj.items():
            inner = _kind_of_state_dict(torch, value)
            if inner is None and isinstance(value, Mapping):
                inner_kinds = {_kind_of_state_dict(torch, v) for v in value.values()} - {None}
                found |= inner_kinds
            elif inner:
                found.add(inner)
            if isinstance(key, str) and key.lower() in _STEP_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
                found.add("step")
    return tuple(k for k in STATE_KINDS if k in found)


def _patch(owner, name: str, make: Callable, undo: list) -> None:
    original = getattr(owner, name)
    setattr(owner, name, make(original))
    undo.append(lambda: setattr(owner, name, original))


def observe(torch) -> tuple[LoopObservations, Callable[[], None]]:
    """Start observing; returns the observations (filled as the loop runs) and a function that
    restores every wrapped torch function."""
    obs = LoopObservations()
    undo: list[Callable[[], None]] = []
    pending_scaled: set[int] = set()  # ids of scalers whose last scaled backward is not unscaled yet
    scaler_cls = torch.amp.GradScaler

    def wrap_init(original):
        def init(self, *args, **kwargs):
            obs.kept.add("optimizer")
            return original(self, *args, **kwargs)
        return init

    _patch(torch.optim.Optimizer, "__init__", wrap_init, undo)

    def wrap_sched_init(original):
        def init(self, *args, **kwargs):
            obs.kept.add("scheduler")
            return original(self, *args, **kwargs)
        return init

    _patch(torch.optim.lr_scheduler.LRScheduler, "__init__", wrap_sched_init, undo)

    def wrap_scale(original):
        def scale(self, outputs):
            if self.is_enabled():
                obs.kept.add("scaler")
                pending_scaled.add(id(self))
            return original(self, outputs)
        return scale

    _patch(scaler_cls, "scale", wrap_scale, undo)

    def wrap_unscale(original):
        def unscale_(self, optimizer):
            pending_scaled.discard(id(self))
            return original(self, optimizer)
        return unscale_

    _patch(scaler_cls, "unscale_", wrap_unscale, undo)

    def wrap_update(original):
        def update(self, new_scale=None):
            enabled = self.is_enabled()
            before = float(self.get_scale()) if enabled else 1.0
            result = original(self, new_scale)
            pending_scaled.discard(id(self))
            if enabled:
                after = float(self.get_scale())
                # GradScaler backs the scale off only when it found inf/NaN (and skipped the step)
                obs.scaler_steps.append(ScalerStep(len(obs.scaler_steps) + 1, after, new_scale is None and after < before))
            return result
        return update

    _patch(scaler_cls, "update", wrap_update, undo)

    def wrap_clip(original):
        def clip_grad_norm_(*args, **kwargs):
            total = original(*args, **kwargs)
            norm = float(total) if isinstance(total, torch.Tensor) else float(total or 0.0)
            obs.clips.append(ClipCall(len(obs.clips) + 1, len(obs.scaler_steps), norm if math.isfinite(norm) else math.inf, bool(pending_scaled)))
            return total
        return clip_grad_norm_

    import torch.nn.utils.clip_grad as clip_grad_module

    for owner in (torch.nn.utils, clip_grad_module):  # `from torch.nn.utils.clip_grad import ...` too
        _patch(owner, "clip_grad_norm_", wrap_clip, undo)

    def wrap_save(original):
        def save(obj, f, *args, **kwargs):
            holds = checkpoint_holds(torch, obj)
            wanted = [k for k in ("optimizer", "scheduler", "scaler") if k in obs.kept] + ["rng", "step"]
            if "model" in holds:
                obs.checkpoints.append(Checkpoint(str(f), holds, tuple(k for k in wanted if k not in holds)))
            return original(obj, f, *args, **kwargs)
        return save

    _patch(torch, "save", wrap_save, undo)

    def restore() -> None:
        while undo:
            undo.pop()()

    return obs, restore
