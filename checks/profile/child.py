"""The profile child's measurement: installed by checks/child/bootstrap.py after its own hooks.

`install(torch, rec, script, cfg)` wraps three of the smoke Recorder's entry points (on_step,
on_backward, write) on the instance, so nothing in the bootstrap changes beyond the call:
- on_step: closes the measured step (step 1 includes the set-up and is never measured) before the
  smoke bookkeeping, which may stop the run;
- on_backward / on_step / write run with `harness` raised: what the harness does (its loss `.item()`,
  the report) never counts;
- write: also writes this module's report (cfg["report"]), at the end after stopping the profilers.
  Under `profile --nproc-per-node` the report and trace paths hold `{rank}` (see `per_rank`).
"""
from __future__ import annotations

import json
import os
import time

from checks.profile import dataload, fusedopt
from checks.profile.frames import UserFrames

try:  # imported now, while the bootstrap has our project root on sys.path (stdlib only)
    from migrate import knowledge as _knowledge
except ImportError:  # pragma: no cover - the bootstrap always has it
    _knowledge = None

STABLE_STEPS = 2  # traced steps in a row with nothing new before the op tracer is switched off


class ProfileState:
    def __init__(self, torch, rec, script: str, cfg: dict, kb):
        self.torch = torch
        self.rec = rec
        self.cfg = cfg
        self.kb = kb
        self.backend = cfg["backend"]
        self.frames = UserFrames(script)
        self.measuring = False
        self.in_loader = False
        self.loader_where = None  # the user's line iterating the DataLoader, while it runs
        self.in_backward = False
        self.harness = 0
        self.step = 0
        self.measured_steps = 0
        self.traced_steps = 0
        self.trace_stopped_after = None
        self.stable = 0
        self.known_events = 0
        self.step_seconds: list[float] = []
        self.events: dict = {}
        self.data: dict = {}
        self.optimizers: dict = {}
        self.warnings: list[str] = []
        self.hostsync = None
        self.tracer = None
        self.fusion = None  # checks/profile/fusion.py: the torch-level op sequence of traced steps
        self.ascend = None
        self.ascend_error = None
        self.t_step = time.perf_counter()
        self.finished = False

    # -- recording (called by the hooks)
    def count(self, kind, where, what, message, seconds=0.0, nbytes=0, distinct=None, example=None) -> None:
        if self.harness:
            return
        # one finding per line for dynamic shapes and float64 (a chain of ops), per op for the others
        key = (kind, where[0], where[1], what if kind not in ("dynamic_shape", "float64") else None)
        e = self.events.get(key)
        if e is None:
            e = self.events[key] = {"kind": kind, "path": where[0], "line": where[1], "what": what,
                                    "message": message, "count": 0, "seconds": 0.0, "nbytes": 0,
                                    "distinct": 0, "examples": []}
        elif e["what"] is None and what is not None:
            e["what"], e["message"] = what, message
        elif kind == "float64" and what not in e["what"].split(", "):
            e["what"] += f", {what}"
        e["count"] += 1
        e["seconds"] += seconds
        e["nbytes"] += nbytes
        if distinct:
            e["distinct"] = max(e["distinct"], distinct)
        if example and what == e["what"] and example not in e["examples"] and len(e["examples"]) < 4:
            e["examples"].append(example)

    def data_wait(self, where, seconds: float, settings: dict) -> None:
        if self.harness:
            return
        d = self.data.get(where)
        if d is None:
            d = self.data[where] = {"path": where[0], "line": where[1], "seconds": 0.0, "batches": 0,
                                    "settings": settings}
        d["seconds"] += seconds
        d["batches"] += 1

    # -- step boundary
    def end_step(self, optimizer) -> None:
        now = time.perf_counter()
        self.step += 1
        self._note_optimizer(optimizer)
        if self.measuring:
            if self.fusion is not None and self.fusion.active:
                self.fusion.end_step()
            self.measured_steps += 1
            self.step_seconds.append(now - self.t_step)
            tracer = self.tracer
            if tracer is not None and tracer.active:
                self.traced_steps += 1
                quiet = (self.traced_steps > 1  # the first traced step has nothing to compare shapes with
                         and tracer.varying_in_step == 0 and len(self.events) == self.known_events)
                self.stable = self.stable + 1 if quiet else 0
                self.known_events = len(self.events)
                if self.stable >= STABLE_STEPS and tracer.stop():
                    self.trace_stopped_after = self.step
                    if self.fusion is not None:
                        self.fusion.stop()
        else:
            self.measuring = True
            if self.tracer is not None:
                self.tracer.start()
            if self.fusion is not None:
                self.fusion.start()
        if self.hostsync is not None:
            self.hostsync.new_step()
        if self.tracer is not None:
            self.tracer.new_step()
        if self.ascend is not None:
            try:
                self.ascend.step()
            except Exception as exc:  # noqa: BLE001 - the profiler must never break the run
                self.ascend_error = f"{type(exc).__name__}: {exc}"
        self.t_step = time.perf_counter()

    def _note_optimizer(self, optimizer) -> None:
        if optimizer is None:  # a loop that updates its parameters by hand: no optimizer to note
            return
        info = self.optimizers.get(id(optimizer))
        if info is None:
            cls = type(optimizer)
            where = getattr(optimizer, fusedopt.LINE_ATTR, None)
            info = self.optimizers[id(optimizer)] = {
                "class": f"{cls.__module__}.{cls.__qualname__}", "path": where[0] if where else None,
                "line": where[1] if where else None, "fused_alternative": fusedopt.fused_name(self.kb, cls),
                **fusedopt.describe(optimizer), "steps": 0}
        info["steps"] += 1

    # -- end of run
    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        if self.tracer is not None and self.tracer.active:
            self.tracer.stop()
        if self.fusion is not None and self.fusion.active:
            self.fusion.stop()
        if self.ascend is not None:
            try:
                self.ascend.stop()
            except Exception as exc:  # noqa: BLE001
                self.ascend_error = f"{type(exc).__name__}: {exc}"

    def to_json(self) -> dict:
        return {
            "backend": self.backend,
            "steps_run": self.step,
            "measured_steps": self.measured_steps,
            "traced_steps": self.traced_steps,
            "trace_stopped_after": self.trace_stopped_after,
            "op_trace": self.tracer is not None,
            "step_seconds": self.step_seconds,
            "events": list(self.events.values()),
            "data": list(self.data.values()),
            "optimizers": list(self.optimizers.values()),
            "warnings": self.warnings,
            "ascend": self.ascend.to_json() if self.ascend is not None else None,
            "ascend_error": self.ascend_error,
        }

    def dump(self) -> None:
        path = per_rank(self.cfg["report"])
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f)
        os.replace(tmp, path)


def per_rank(path: str) -> str:
    """`profile --nproc-per-node`: the parent gives paths with `{rank}`, each rank fills in its RANK
    (torchrun's environment), so the ranks' reports and traces are kept apart."""
    return path.replace("{rank}", os.environ.get("RANK", "0"))


def _load_kb(cfg):
    try:
        return _knowledge.load(cfg.get("torch_npu_version"))
    except Exception:  # noqa: BLE001 - without data no cpu_fallback/optimizer findings; said in warnings
        return None


def install(torch, rec, script: str, cfg: dict) -> ProfileState:
    state = ProfileState(torch, rec, script, cfg, _load_kb(cfg))
    if state.kb is None:
        state.warnings.append("knowledge data could not be loaded: no cpu_fallback or optimizer findings")
    if cfg.get("host_sync", True):
        from checks.profile.hostsync import HostSync

        state.hostsync = HostSync(torch, state)
        state.hostsync.install()
    if not dataload.install(torch, state):
        state.warnings.append("torch.utils.data.dataloader._BaseDataLoaderIter not found: data loading not measured")
    fusedopt.install(torch, state)
    if state.backend == "emulated" and cfg.get("op_trace", True):
        from checks.profile.tracer import PerfTracer

        state.tracer = PerfTracer(torch, state, state.kb)
        if cfg.get("fusion", True):
            from checks.profile import fusion

            try:
                state.fusion = fusion.make_recorder(torch, state, fusion.load_rules(state.kb))
            except Exception as exc:  # noqa: BLE001 - without the rules no fusion findings; said in warnings
                state.warnings.append(f"fusion rules could not be loaded ({type(exc).__name__}: {exc}): "
                                      "no fusion findings")
    if state.backend == "npu" and cfg.get("trace_dir"):
        try:
            from checks.profile.ascend import AscendProfiler

            state.ascend = AscendProfiler(per_rank(cfg["trace_dir"]), cfg.get("schedule"))
            state.ascend.start()
        except Exception as exc:  # noqa: BLE001 - reported; the emulation-free checks still run
            state.ascend = None
            state.ascend_error = f"{type(exc).__name__}: {exc}"
    _wrap_backward(torch, state)
    _wrap_recorder(rec, state)
    return state


def _wrap_backward(torch, state) -> None:
    orig = torch.autograd.backward

    def backward(*args, **kwargs):
        state.in_backward = True
        try:
            return orig(*args, **kwargs)
        finally:
            state.in_backward = False

    torch.autograd.backward = backward


def _wrap_recorder(rec, state) -> None:
    on_step, on_backward, write = rec.on_step, rec.on_backward, rec.write
    on_backward_step = rec.on_backward_step

    def backward_step_hook(value, loss):
        """A loop with no optimizer (parameters updated by hand): smoke counts each backward() as a step,
        so the measured step closes here. Called from within on_backward, where the harness flag is up:
        lowered while the step closes, so what the step found (fusion chances) still counts."""
        harness, state.harness = state.harness, 0
        try:
            state.end_step(None)
        finally:
            state.harness = harness
        return on_backward_step(value, loss)

    def step_hook(optimizer):
        state.end_step(optimizer)
        state.harness += 1
        try:
            return on_step(optimizer)
        finally:
            state.harness -= 1

    def backward_hook(tensor):
        state.harness += 1
        try:
            return on_backward(tensor)
        finally:
            state.harness -= 1

    def write_hook():
        state.harness += 1
        try:
            if rec.status != "running":
                state.finish()
            try:
                state.dump()
            except OSError:
                pass
            return write()
        finally:
            state.harness -= 1

    rec.on_step, rec.on_backward, rec.write = step_hook, backward_hook, write_hook
    rec.on_backward_step = backward_step_hook
