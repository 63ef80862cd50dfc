"""Step counting inside the smoke child: what the hooks record and when the run stops.

Runs in the smoke child (and in processes the script forks). torch is never imported at module level;
every method that needs it runs after the bootstrap has imported torch with the final sys.path.

A step is an optimizer step (`register_optimizer_step_post_hook`): its loss is the sum of the scalar
losses passed to `backward()` since the previous step. A script that never builds an optimizer
(parameters updated by hand under `torch.no_grad()` / `p.data.add_(...)`) gets a step per
`backward()` instead, and the report says so (`step_source == "backward"`). A script that builds an
optimizer and never steps it is a failed run, not a manual loop.

Processes the script forks (torch.multiprocessing / mp.Process hogwild workers) inherit the hooks:
each counts its own steps, stops itself after the requested number and writes its report to
`<report>.proc<PID>`; the parent merges them (checks.launch.report.merge_process_reports).
"""
from __future__ import annotations

import json
import math
import os
import sys
import time

from checks.launch.report import ChildReport, ExceptionInfo, OpTraceSummary

# backend -> the device type its CPU-backed stand-in emulates
EMULATED_DEVICE = {"emulated": "npu", "cuda-emulated": "cuda"}


def autocast_policy(cfg: dict) -> str:
    """The autocast policy of an emulated run (checks.launch.child_config.ChildConfig.autocast)."""
    return cfg.get("autocast") or "off"


# Work a higher floor's in-child hook leaves for the end of the run (validate's config_check comparison,
# checks/validate/child.py): the bootstrap calls `run_after_report` once the run's report is written, before
# its os._exit. What one of them raises is not the run's: the report is final already.
AFTER_REPORT: list = []


# Callbacks of a higher floor's in-child hook run when a step counted by backward() ends (a loop with no optimizer):
# `callback(step)` once that backward() has returned, or, at the step that stops the run, just before the stop (its
# backward does not run then). validate's API dump closes its dumped step there (checks/validate/child.py), as it
# does at an optimizer step in a loop with an optimizer.
BACKWARD_STEP_ENDED: list = []


def run_after_report() -> None:
    while AFTER_REPORT:
        try:
            AFTER_REPORT.pop(0)()
        except Exception:  # noqa: BLE001, S110 - its caller finds no result and does the work itself
            pass


class SmokeStop(BaseException):
    """Raised from the step hook once the requested steps are done."""


def process_report_path(report_path: str, pid: int) -> str:
    return f"{report_path}.proc{pid}"


class Recorder:
    def __init__(self, cfg: dict, script: str):
        self.cfg = cfg
        self.script = script
        self.report_path = cfg["report"]
        self.target = int(cfg["steps"])
        self.backend = cfg["backend"]
        self.trace_wanted = bool(cfg.get("op_trace")) and self.backend == "emulated"
        self.kb = None
        self.pid = os.getpid()
        self.is_worker = False  # a process the script forked
        self.optimizers_built = 0
        self.loop = None  # checks.child.loop_observer.LoopObservations, set by the bootstrap
        self.reset()

    def reset(self) -> None:
        self.t_start = self.t_last = time.perf_counter()
        self.last_write = 0.0
        self.losses: list[float] = []  # per optimizer step
        self.step_times: list[float] = []
        self.backward_losses: list[float] = []  # per backward() (steps of a loop without optimizer)
        self.backward_times: list[float] = []
        self.t_last_backward = self.t_start
        self.backward_step_open = 0  # the step counted by the backward() now running (0: none)
        self.loss_dtype = None
        self.loss_device = None
        self.param_device: dict[str, int] = {}
        self.pending_loss = 0.0
        self.pending_backward = 0
        self.last_scaled = (None, None)
        self.warnings: list[str] = []
        self.tracer = None
        self.trace_stable_steps = 0  # consecutive steps that added no new op to the trace
        self.trace_stopped_after = None  # step after which tracing was switched off
        self.trace_seen = None  # (distinct ops, distinct wide-dtype ops) after the previous step
        self.status = "running"
        self.exception: ExceptionInfo | None = None
        self.exit_code = None

    def after_fork(self) -> None:
        """In a forked process: count this process's own steps into its own report."""
        if self.tracer is not None:
            try:
                self.tracer.__exit__(None, None, None)
            except Exception:
                pass
        self.reset()
        self.pid = os.getpid()
        self.is_worker = True
        self.report_path = process_report_path(self.report_path.split(".proc")[0], self.pid)

    # -- hooks
    def on_optimizer_built(self) -> None:
        self.optimizers_built += 1

    def on_backward(self, tensor) -> None:
        import torch

        if self.trace_wanted and self.tracer is None and not self.is_worker:
            from checks.child.optrace import OpTracer  # imported through the preloaded `checks` package

            self.tracer = OpTracer()
            self.tracer.__enter__()  # stays on until the process ends
        if not isinstance(tensor, torch.Tensor) or tensor.numel() != 1:
            return
        scaled, original = self.last_scaled
        loss = original if (scaled is not None and tensor is scaled) else tensor
        value = float(loss.detach().float().item())
        self.pending_loss += value
        self.pending_backward += 1
        if self.loss_dtype is None:
            self.loss_dtype = str(loss.dtype).replace("torch.", "")
            self.loss_device = self.logical_device_of_loss(loss)
        if not self.optimizers_built and not self.losses:
            self.on_backward_step(value, loss)

    def on_backward_step(self, value: float, loss) -> None:
        """A loop with no optimizer: every backward() is a step (parameters are updated by hand)."""
        now = time.perf_counter()
        self.backward_times.append(now - self.t_last_backward)
        self.t_last_backward = now
        self.backward_losses.append(value)
        n = len(self.backward_losses)
        self.maybe_stop_tracing(n)
        if n == 1 or n == self.target:
            self.param_device = self.devices_of(self.leaf_parameters(loss))
        self.backward_step_open = n
        if n >= self.target or not math.isfinite(value):
            self.end_backward_step()
            self.stop()
        self.maybe_write(now, n)

    def end_backward_step(self) -> None:
        """The step counted by the backward() that just returned (bootstrap.install_hooks) has ended: BACKWARD_STEP_ENDED's
        callbacks. The parameters' update a loop without optimizer writes by hand comes after it: in the next step."""
        n, self.backward_step_open = self.backward_step_open, 0
        for callback in BACKWARD_STEP_ENDED:
            callback(n)

    def on_step(self, optimizer) -> None:
        now = time.perf_counter()
        self.step_times.append(now - self.t_last)
        self.t_last = now
        self.losses.append(self.pending_loss if self.pending_backward else float("nan"))
        if not self.pending_backward:
            self.warnings.append(f"optimizer step {len(self.losses)} had no backward() call before it")
        self.pending_loss = 0.0
        self.pending_backward = 0
        n = len(self.losses)
        self.maybe_stop_tracing(n)
        if n == 1 or n == self.target:
            self.param_device = self.devices_of(p for group in optimizer.param_groups for p in group["params"])
        if (n >= self.target and not self.cfg.get("stop_after_checkpoint")) or not math.isfinite(self.losses[-1]):
            # (a --resume-check first half stops at its next checkpoint instead: bootstrap.observe_loop)
            # A non-finite loss is already a verdict: no need to train on.
            self.stop()
        self.maybe_write(now, n)

    def on_skipped_step(self) -> None:
        """GradScaler found inf/nan gradients and skipped optimizer.step(): not a training step."""
        self.warnings.append("GradScaler skipped an optimizer step (inf/nan gradients at the current loss scale)")
        self.pending_loss = 0.0
        self.pending_backward = 0

    def stop(self) -> None:
        self.status = "stopped"
        self.write()
        if self.is_worker:
            # A forked worker ends here: its parent (the script) goes on as after a finished worker.
            os._exit(0)
        raise SmokeStop()

    def maybe_write(self, now: float, n: int) -> None:
        # Progress for a run that later times out or crashes hard: at most every 0.5 s, since a
        # full report (with the op-trace summary) costs more than a small training step.
        # A forked worker writes every step: multiprocessing ends it with os._exit (no final write).
        if self.is_worker or now - self.last_write >= 0.5 or n == 1:
            self.write()

    def maybe_stop_tracing(self, step: int) -> None:
        """A training step runs the same ops every time: once two consecutive steps add no new op
        (and no new float64/complex op), the op set is known and tracing, which costs a Python
        call per op, is switched off for the remaining steps. Ops that only run every k-th step
        (periodic evaluation, logging) after that point are not seen; the report says from which
        step tracing stopped."""
        tracer = self.tracer
        if tracer is None or self.trace_stopped_after is not None:
            return
        seen = (len(tracer.counts), len(tracer.wide))
        if self.trace_seen == seen:
            self.trace_stable_steps += 1
        else:
            self.trace_stable_steps = 0
        self.trace_seen = seen
        if self.trace_stable_steps >= 2:
            try:
                tracer.__exit__(None, None, None)
            except Exception:  # not the innermost mode (the script pushed its own): keep tracing
                return
            self.trace_stopped_after = step

    # -- placement
    @property
    def emulated_device(self) -> str | None:
        """The device type a stand-in emulates in this run ("npu", "cuda"), None on real hardware."""
        return EMULATED_DEVICE.get(self.backend)

    def device_of(self, t) -> str:
        kind = t.device.type
        if self.emulated_device and kind == "cpu":
            return self.emulated_device if getattr(t, "_npu_migrate_npu", False) else "cpu"
        return kind

    def devices_of(self, tensors) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in tensors:
            d = self.device_of(p)
            out[d] = out.get(d, 0) + 1
        return out

    @staticmethod
    def graph_leaves(loss, limit: int = 20000):
        """The leaf tensors (AccumulateGrad variables) of the loss's autograd graph."""
        seen = set()
        stack = [loss.grad_fn]
        while stack and len(seen) < limit:
            fn = stack.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            var = getattr(fn, "variable", None)
            if var is not None:
                yield var
            stack.extend(next_fn for next_fn, _ in fn.next_functions)

    def leaf_parameters(self, loss) -> list:
        return [t for t in self.graph_leaves(loss) if t.requires_grad]

    def logical_device_of_loss(self, loss) -> str:
        device = self.emulated_device
        if device is None or loss.device.type != "cpu":
            return loss.device.type
        if getattr(loss, "_npu_migrate_npu", False):
            return device
        # Follow the autograd graph to its leaves: the loss is on the emulated device when its leaves are.
        for var in self.graph_leaves(loss):
            if getattr(var, "_npu_migrate_npu", False):
                return device
        return "cpu"

    # -- report
    def peak_memory(self) -> int | None:
        if self.backend == "npu":
            try:
                import torch

                return int(torch.npu.max_memory_allocated())
            except Exception:
                return None
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def report(self) -> ChildReport:
        by_backward = not self.losses and not self.optimizers_built and bool(self.backward_losses)
        trace = None
        if self.tracer is not None:
            summary = self.tracer.summary(self.kb)
            trace = OpTraceSummary(summary["ops"], tuple(summary["unsupported_ops"]), tuple(summary["float64_ops"]),
                                   self.trace_stopped_after)
        return ChildReport(
            status=self.status,
            losses=tuple(self.backward_losses if by_backward else self.losses),
            step_times=tuple(self.backward_times if by_backward else self.step_times),
            step_source="backward" if by_backward else "optimizer",
            loss_dtype=self.loss_dtype, loss_device=self.loss_device, param_device=dict(self.param_device),
            peak_memory=self.peak_memory(), warnings=tuple(self.warnings), exception=self.exception,
            exit_code=self.exit_code, op_trace=trace, autocast=self.autocast_report(),
            loop=self.loop.to_dict() if self.loop is not None else None,
            imported_modules=top_level_modules(),
        )

    def autocast_report(self) -> dict | None:
        """The autocast policy of an emulated run and the dtypes the script's autocast regions asked for; on a real
        device (or the plain CPU) the regions it entered, policy "device" (None where it entered none)."""
        if not self.emulated_device:
            seen = getattr(sys.modules.get("checks.child.autocast_regions"), "SEEN", None)
            return {"policy": "device", "requested": dict(seen)} if seen else None
        dm = sys.modules.get("checks.emulation.devicemap")
        return {"policy": autocast_policy(self.cfg),
                "requested": dict(dm.AUTOCAST_SEEN) if dm is not None else {}}

    def write(self) -> None:
        self.last_write = time.perf_counter()
        tmp = f"{self.report_path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.report().to_json()))  # json.dump's bytes, from one C-encoder pass
        os.replace(tmp, self.report_path)


def top_level_modules() -> tuple[str, ...]:
    """The top-level names of the modules imported so far (sys.modules' keys before the first dot): cheap, a set of
    a few hundred strings, read each time the report is written so the last write holds them as the run left them."""
    return tuple(sorted({name.partition(".")[0] for name in list(sys.modules) if name}))
