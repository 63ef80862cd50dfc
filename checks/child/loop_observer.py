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

The smoke child (checks/child/bootstrap.py) calls `observe(torch)` next to its step hooks and writes
`LoopObservations.to_dict()` into its report (`ChildReport.loop`). With `trace=True` (the runs of
`smoke --resume-check`, checks/smoke/resume_check.py) it also takes a `StateSnapshot` at the first
backward of every step: what a resume must restore (parameters, optimizer state, learning rates,
loss scale, RNG states, the batch the data loader gave), as checksums that two runs can compare.
torch is imported by the caller, never here at module level.
"""
from __future__ import annotations

import hashlib
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field

STATE_KINDS = ("model", "optimizer", "scheduler", "scaler", "rng", "step")
_STEP_KEYS = frozenset({"epoch", "step", "iter", "iteration", "global_step", "iter_num", "start_epoch", "steps", "epochs",
                        "epochs_run"})  # EPOCHS_RUN: pytorch/examples@77f55b9 distributed/ddp-tutorial-series
SAMPLES_ENV = "NPU_MIGRATE_DATA_SAMPLES"  # set by validate / baseline: batches whose samples are fingerprinted
SAMPLE_BYTES = 64 << 20  # tensor bytes hashed at most (a handful of large image batches)
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
    path: str  # absolute (the child's working folder when the script named a relative one)
    holds: tuple[str, ...]  # of STATE_KINDS
    lost: tuple[str, ...]  # state the run keeps that a resume from this file would start afresh
    step: int = 0  # optimizer steps done when it was written


# What a resume must bring back, in the order a report names it: StateSnapshot's fields.
RESTART_STATE = {"params": "parameters", "optimizer": "optimizer state", "lr": "learning rate",
                 "scale": "loss scale", "rng": "RNG", "data": "data position"}


@dataclass(frozen=True)
class StateSnapshot:
    """The training state at the first backward of one step (trace mode): checksums, not tensors.
    Taken after that step's forward, so the RNG states include the forward's draws (dropout)."""

    step: int  # 1-based: the step this backward belongs to
    params: tuple[float, float] | None  # sum and sum of |x| over every optimized parameter
    optimizer: tuple[float, float] | None  # the same over every optimizer state tensor and number
    lr: tuple[float, ...] | None  # every param group's learning rate
    scale: float | None  # the last used GradScaler's scale (None: no enabled scaler)
    rng: dict | None  # generator -> digest: torch (CPU), random, numpy (when the script imported it)
    data: str | None  # digest of the last batch a DataLoader gave (None: no DataLoader seen)


@dataclass
class LoopObservations:
    scaler_steps: list[ScalerStep] = field(default_factory=list)
    clips: list[ClipCall] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)  # state kinds the run has: optimizer, scheduler, scaler
    steps: int = 0  # optimizer steps seen
    snapshots: list[StateSnapshot] = field(default_factory=list)  # trace mode only
    samples: list[list[str]] = field(default_factory=list)  # per batch, a digest per sample (SAMPLES_ENV)
    # msprobe pack step -> the keys (args.1.0, kwargs.h) of the model's inputs carried from its previous forward
    carried: dict[str, list[str]] = field(default_factory=dict)  # watch_carried_inputs

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
            "steps": self.steps,
            **({"snapshots": [asdict(x) for x in self.snapshots]} if self.snapshots else {}),
            **({"samples": self.samples} if self.samples else {}),
            **({"carried_inputs": self.carried} if self.carried else {}),
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


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def _tensor_sums(torch, tensors) -> tuple[float, float]:
    total = absolute = 0.0
    for t in tensors:
        if isinstance(t, torch.Tensor):
            d = t.detach().double()
            total += float(d.sum())
            absolute += float(d.abs().sum())
        elif isinstance(t, (int, float)) and not isinstance(t, bool):
            total += float(t)
            absolute += abs(float(t))
    return total, absolute


def _leaves(x):
    """The leaves of a batch (mappings, lists and tuples opened, in their order)."""
    if isinstance(x, Mapping):
        for k in x:
            yield from _leaves(x[k])
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _leaves(v)
    else:
        yield x


def _batch_digest(torch, batch) -> str:
    parts: list[bytes] = []
    for x in _leaves(batch):
        if isinstance(x, torch.Tensor):
            d = x.detach()
            parts.append(repr((tuple(d.shape), float(d.double().sum()), float(d.double().abs().sum()))).encode())
        elif isinstance(x, (int, float, str)):
            parts.append(repr(x).encode())
    return _digest(b"|".join(parts))


def sample_digests(torch, batch) -> list[str] | None:
    """One digest per sample of a batch: the bytes of row i of every tensor whose first dimension is the
    batch's (the first tensor's), with its shape and dtype. None when the batch holds no such tensor.
    Exact: the same samples give the same digests in any order and on any host whose data loading gives
    the same bytes (the DataLoader's output is computed on the CPU)."""
    rows = [t for t in _leaves(batch) if isinstance(t, torch.Tensor) and t.dim() >= 1]
    if not rows:
        return None
    size = rows[0].shape[0]
    # per tensor once: the header of its rows (a row's shape is the tensor's without its first dimension) and
    # its bytes as one (size, row bytes) array, row i the bytes of t[i] (contiguous: C order); no torch call a sample
    parts = [(f"{tuple(t.shape[1:])}{t.dtype}".encode(), _row_bytes(torch, t.detach().cpu().contiguous(), size))
             for t in rows if t.shape[0] == size]
    out = []
    for i in range(size):
        digest = hashlib.blake2b(digest_size=8)
        for header, data in parts:
            digest.update(header)
            digest.update(data[i])
        out.append(digest.hexdigest())
    return out


def _row_bytes(torch, t, size: int):
    """t's bytes as a (size, bytes of a row) uint8 numpy array (t contiguous, first dimension `size`)."""
    if t.numel() == 0:
        return [b""] * size
    return t.reshape(size, -1).view(torch.uint8).numpy()


def _rng_digests(torch) -> dict:
    import random

    out = {"torch": _digest(bytes(torch.random.get_rng_state().numpy().tobytes())),
           "random": _digest(repr(random.getstate()).encode())}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        state = numpy.random.get_state()
        out["numpy"] = _digest(state[1].tobytes() + repr(state[2:]).encode())
    return out


class _ObservedIterator:
    """A DataLoader's iterator, passed through: the digest of each batch it gives is kept."""

    def __init__(self, inner, seen: Callable):
        self._inner = inner
        self._seen = seen

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self._inner)
        self._seen(batch)
        return batch

    def __len__(self):
        return len(self._inner)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def observe(torch, *, trace: bool = False, samples: int = 0,
            on_checkpoint: Callable[[Checkpoint], None] | None = None) -> tuple[LoopObservations, Callable[[], None]]:
    """Start observing; returns the observations (filled as the loop runs) and a function that
    restores every wrapped torch function. trace: also take a StateSnapshot per step.
    samples: the digests of every sample of the first N batches DataLoaders give (`validate`'s data
    fingerprint, SAMPLES_ENV), within SAMPLE_BYTES of tensor data.
    on_checkpoint: called after each model checkpoint the script wrote (the smoke child stops a
    `--resume-check` first half there)."""
    obs = LoopObservations()
    if samples > 0:  # validate / baseline: their ConfigChecker hook asks for the carried inputs (watch_carried_inputs)
        _FINGERPRINTED[:] = [(torch, obs)]
    undo: list[Callable[[], None]] = []
    pending_scaled: set[int] = set()  # ids of scalers whose last scaled backward is not unscaled yet
    scaler_cls = torch.amp.GradScaler
    optimizers: list = []  # trace mode: the optimizers built, for their parameters, state and lr
    last_scaler: list = []
    last_batch: list = [None]

    from torch.optim.optimizer import register_optimizer_step_post_hook

    def counted(opt, args, kwargs):
        obs.steps += 1

    undo.append(register_optimizer_step_post_hook(counted).remove)

    def wrap_init(original):
        def init(self, *args, **kwargs):
            obs.kept.add("optimizer")
            if trace:
                optimizers.append(self)
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
                if trace:
                    last_scaler[:] = [self]
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
            result = original(obj, f, *args, **kwargs)
            if "model" in holds:
                path = os.path.abspath(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else repr(f)
                checkpoint = Checkpoint(path, holds, tuple(k for k in wanted if k not in holds), obs.steps)
                obs.checkpoints.append(checkpoint)
                if on_checkpoint is not None:
                    on_checkpoint(checkpoint)
            return result
        return save

    _patch(torch, "save", wrap_save, undo)
    if samples > 0 or trace:
        _observe_batches(torch, obs, undo, trace=trace, samples=samples, last_batch=last_batch)
    if not trace:
        return obs, _restorer(undo)

    def snapshot() -> StateSnapshot:
        params = [p for opt in optimizers for g in opt.param_groups for p in g["params"]]
        state = [v for opt in optimizers for s in opt.state.values() for v in s.values()]
        lrs = tuple(float(g["lr"]) for opt in optimizers for g in opt.param_groups if isinstance(g.get("lr"), (int, float)))
        scaler = last_scaler[0] if last_scaler else None
        return StateSnapshot(obs.steps + 1, _tensor_sums(torch, params) if params else None,
                             _tensor_sums(torch, state) if optimizers else None, lrs or None,
                             float(scaler.get_scale()) if scaler is not None else None, _rng_digests(torch),
                             last_batch[0])

    def wrap_backward(original):
        def backward(*args, **kwargs):
            if not obs.snapshots or obs.snapshots[-1].step != obs.steps + 1:
                obs.snapshots.append(snapshot())
            return original(*args, **kwargs)
        return backward

    _patch(torch.autograd, "backward", wrap_backward, undo)
    return obs, _restorer(undo)


def _observe_batches(torch, obs: LoopObservations, undo: list, *, trace: bool, samples: int, last_batch: list) -> None:
    """Wrap DataLoader iterators: the digest of the last batch (trace mode) and the per-sample digests
    of the first `samples` batches. Without trace mode the wrapper is taken off once those are kept, so
    later epochs iterate the DataLoader's own iterator."""
    from checks.emulation.compat import msprobe_dump_paused

    budget = [SAMPLE_BYTES]
    loader = torch.utils.data.DataLoader
    original_iter = loader.__iter__

    def keep_samples(batch) -> None:
        if len(obs.samples) >= samples or budget[0] <= 0:
            return
        try:
            digests = sample_digests(torch, batch)
        except (RuntimeError, TypeError, ValueError):  # a tensor without plain storage (sparse, quantized)
            digests = None
        if digests is None:
            return
        obs.samples.append(digests)
        budget[0] -= sum(t.numel() * t.element_size() for t in _tensors(torch, batch))
        if not trace and (len(obs.samples) >= samples or budget[0] <= 0) and loader.__iter__ is not original_iter:
            loader.__iter__ = original_iter  # the window is full: later iterators are the DataLoader's own

    def wrap_iter(original):
        def __iter__(self):
            def seen(batch):
                # the tool's own work: not dumped, nor slowed, by msprobe's API dump of the step it falls in
                with msprobe_dump_paused():
                    if trace:
                        last_batch[0] = _batch_digest(torch, batch)
                    if samples > 0:
                        keep_samples(batch)
            return _ObservedIterator(original(self), seen)
        return __iter__

    _patch(loader, "__iter__", wrap_iter, undo)


_FINGERPRINTED: list = []  # (torch, observations) of the run whose data is fingerprinted (observe with samples)


def watch_carried_inputs(steps: int) -> Callable | None:
    """A collect function for msprobe's ConfigChecker (called before each forward of the model it hooks, with
    (model, args, kwargs, pack step)) that names, for the first `steps` pack steps (the data fingerprint's), the
    model's inputs that are its own outputs of the previous forward carried in: an input tensor sharing storage
    (`untyped_storage().data_ptr()`, which `.detach()` keeps) with an output of that call. A recurrent state
    (an LSTM's (h, c) detached and passed back) follows each device's numerics, not the data. Keyed as msprobe's
    dataset item keys the inputs (args.1.0, kwargs.h), into the report's `loop.carried_inputs`. A forward hook
    keeps the outputs' storages until the next forward reads its inputs (a freed one's address could be given to
    a new batch); both hooks go after the window. None outside a fingerprinted run."""
    if not _FINGERPRINTED or steps <= 0:
        return None
    torch, obs = _FINGERPRINTED[0]
    from checks.emulation.compat import msprobe_dump_paused

    held: dict[int, object] = {}  # storage address -> the storage, kept alive from one forward to the next
    hook: list = []

    def after(module, args, kwargs, output):
        with msprobe_dump_paused():
            inputs = {_address(t) for _, t in _keyed(torch, (args, kwargs), "")}
            held.clear()  # an output that is one of the call's own inputs is that input passed through, not state
            held.update((a, t.untyped_storage()) for _, t in _keyed(torch, output, "")
                        if (a := _address(t)) and a not in inputs)

    def collect(model, args, kwargs, step):
        if step >= steps or (step > 0 and not hook):
            return
        with msprobe_dump_paused():
            carried = [key for key, t in [*_keyed(torch, args, "args"), *_keyed(torch, kwargs, "kwargs")]
                       if _address(t) in held]
        held.clear()
        if carried:
            obs.carried[str(step)] = carried
        if not hook and step + 1 < steps:
            hook.append(model.register_forward_hook(after, with_kwargs=True))
        elif hook and step + 1 >= steps:
            hook.pop().remove()

    return collect


def _address(t) -> int:
    """The address of a tensor's storage (0 for none: an empty or storage-less tensor)."""
    try:
        return t.untyped_storage().data_ptr() if t.numel() else 0
    except (RuntimeError, NotImplementedError, TypeError):
        return 0


def _keyed(torch, obj, key: str, depth: int = 0):
    """(key, tensor) of every tensor in nested tuples, lists and dicts, keyed as msprobe's dataset item keys them."""
    if isinstance(obj, torch.Tensor):
        yield key, obj
    elif depth < 32 and isinstance(obj, (tuple, list, dict)):
        for k, v in (obj.items() if isinstance(obj, dict) else enumerate(obj)):
            yield from _keyed(torch, v, f"{key}.{k}" if key else str(k), depth + 1)


def _tensors(torch, batch) -> list:
    if isinstance(batch, torch.Tensor):
        return [batch]
    if isinstance(batch, Mapping):
        return [t for v in batch.values() for t in _tensors(torch, v)]
    if isinstance(batch, (list, tuple)):
        return [t for v in batch for t in _tensors(torch, v)]
    return []


def _restorer(undo: list) -> Callable[[], None]:
    def restore() -> None:
        while undo:
            undo.pop()()

    return restore


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def describe(loop: dict | None) -> list[tuple[str, str]]:
    """The report's lines for a `ChildReport.loop` (torch-free: smoke's text report, checks/smoke/run.py)."""
    if not loop:
        return []
    lines = []
    scales = loop.get("scaler_steps") or []
    if scales:
        skipped = loop.get("skipped_steps") or []
        lines.append(("loss scale", f"{_fmt(scales[0]['scale'])} -> {_fmt(scales[-1]['scale'])} over {len(scales)} "
                      "scaler updates; " + (f"skipped (overflow) at update {', '.join(map(str, skipped))}"
                                             if skipped else "no skipped step")))
    clips = loop.get("clips") or []
    if clips:
        scaled = loop.get("clipped_scaled_gradients") or []
        lines.append(("clip_grad_norm_", f"{len(clips)} calls, norm before clipping {_fmt(clips[0]['total_norm'])} "
                      f"(first) / {_fmt(clips[-1]['total_norm'])} (last); "
                      + (f"{len(scaled)} on loss-scaled gradients (no unscale_ first)" if scaled else "all on unscaled gradients")))
    for c in loop.get("checkpoints") or []:
        lost = ", ".join(c["lost"]) or "nothing"
        lines.append(("checkpoint", f"{c['path']} at step {c.get('step', '?')}: holds {', '.join(c['holds'])}; "
                      f"a resume from it restarts {lost}"))
    return lines


def clip_warning(loop: dict | None) -> str | None:
    """The warning of a run whose clip_grad_norm_ saw gradients still multiplied by the loss scale."""
    scaled = (loop or {}).get("clipped_scaled_gradients") or []
    if not scaled:
        return None
    return (f"clip_grad_norm_ ran on loss-scaled gradients ({len(scaled)} of {len(loop['clips'])} calls; "
            "call scaler.unscale_(optimizer) before clipping): the norm and the threshold compare at the wrong scale")
