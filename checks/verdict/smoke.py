"""The verdict of one smoke run from its child's report (parent side, never imports torch).

`judge` is the one place a run's report becomes a `SmokeResult`: one process (checks/smoke/run.py), each
torchrun rank (checks/distributed/run.py) and each rank the script spawned itself (checks/smoke/spawn_ranks.py).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from checks.launch import process
from checks.launch.backend import CUDA_EMULATED_NOTE, EMULATED_NOTE
from checks.launch.child_config import NO_TORCH
from checks.launch.report import ChildReport, ExceptionInfo, verdict
from checks.verdict import loss_trend

# Errors that mean the script never started training because it does not parse or cannot import its
# own dependencies: "could not run" (exit 2), not a failed run. ImportErrors of torch_npu names stay
# failures of the migration.
NOT_RUNNABLE = ("SyntaxError", "IndentationError", "TabError", "ModuleNotFoundError")


@dataclass(frozen=True)
class SmokeResult:
    verdict: str  # "pass" | "fail" | "error"
    exit_code: int  # 0 | 1 | 2
    backend: str  # "npu" | "emulated" | "cpu" (or the requested one when it could not run)
    script: str
    steps: int = 0
    requested_steps: int = 0
    losses: tuple[float, ...] = ()
    loss_dtype: str | None = None
    loss_device: str | None = None
    param_device: dict = field(default_factory=dict)
    step_times: tuple[float, ...] = ()
    peak_memory: int | None = None
    unsupported_ops: tuple[str, ...] = ()
    float64_ops: tuple[str, ...] = ()
    ops_traced: int = 0
    step_source: str = "optimizer"  # "backward": no optimizer ever stepped, a step per backward()
    child_steps: int = 0  # steps taken in processes the script forked (hogwild workers)
    warnings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    traceback: str | None = None
    error_location: str | None = None
    torch_npu_version: str | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    note: str | None = None  # "emulated: no Ascend NPU found; computed on CPU" when emulated
    autocast: dict | None = None  # {"policy": ..., "requested": {dtype: regions}}: an emulated device's policy, or
    # "device" for the regions a real device (or the plain CPU) entered (checks/child/autocast_regions.py)
    replicas: str | None = None  # ranks the script spawned (mp.spawn): the cross-rank parameter check
    spawned_ranks: tuple[dict, ...] = ()  # those ranks' own verdicts (checks/smoke/spawn_ranks.py)
    notes: tuple[str, ...] = ()  # remarks on the losses that do not change the verdict (checks/verdict/loss_trend.py)
    loop: dict | None = None  # loss scale per step, skipped steps, clipping, checkpoints (checks/child/loop_observer.py)
    imported_modules: tuple[str, ...] | None = None  # top-level names of sys.modules at the end (None: not recorded)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["losses"] = [x if math.isfinite(x) else repr(x) for x in self.losses]
        return d


def emulated_note(backend: str) -> str | None:
    """The line every output carries when a side was emulated."""
    return {"emulated": EMULATED_NOTE, "cuda-emulated": CUDA_EMULATED_NOTE}.get(backend)


def not_runnable(exc: ExceptionInfo) -> bool:
    """The script does not parse, or imports a module that is not installed (other than torch_npu's)."""
    if exc.type not in NOT_RUNNABLE:
        return False
    if exc.type == "ModuleNotFoundError":
        return "torch_npu" not in (exc.message or "")
    return True


def judge(script, backend, report: ChildReport | None, *, returncode, timed_out, timeout, steps, strict_ops, stdout="",
          stderr="", torch_npu_version=None, duration_s=0.0, extra_warnings=(), guard=None) -> SmokeResult:
    """The verdict from the child's report (None when the child wrote none)."""
    reasons: list[str] = []
    ended = process.exit_reason(report.status if report else None, returncode, report.steps if report else 0, steps,
                                memory_limit=getattr(guard, "memory_limit", None),
                                exit_code=report.exit_code if report else None,
                                memory_exceeded=getattr(guard, "memory_exceeded", False), peak_rss=getattr(guard, "peak_rss", 0))
    warnings = [w for w in extra_warnings if w]
    note = emulated_note(backend)
    common = dict(stdout=stdout, stderr=stderr, torch_npu_version=torch_npu_version, timed_out=timed_out,
                  duration_s=round(duration_s, 3), note=note, requested_steps=steps)
    if report is None:
        if ended and (getattr(guard, "memory_exceeded", False) or (not timed_out and (returncode or 0) < 0)):
            reasons.append(ended)
        elif timed_out:
            reasons.append(f"no optimizer step within the timeout ({timeout:g}s); the script never reached training")
        else:
            last = (stderr.strip().splitlines() or ["no output"])[-1]
            reasons.append(f"the child process ended (exit status {returncode}) without a report: {last}")
        return SmokeResult("fail", 1, backend, script, reasons=tuple(reasons), warnings=tuple(warnings), **common)

    losses = report.losses
    done = report.steps
    status = report.status
    warnings += report.warnings
    if report.step_source == "backward" and done:
        warnings.append(f"no optimizer step ever ran: counted one step per backward() ({done} steps; "
                        "the script updates its parameters by hand)")
    trace = report.op_trace
    unsupported = trace.unsupported_ops if trace else ()
    wide = trace.float64_ops if trace else ()
    if trace and trace.stopped_after_step:
        warnings.append(f"op tracing stopped after step {trace.stopped_after_step}: two steps in a row added no new op "
                        "(ops that only run every k-th step after that are not checked)")
    exc = report.exception
    traceback_text = exc.traceback if exc else None
    location = exc.location if exc else None
    exit_code_override = None

    if getattr(guard, "memory_exceeded", False):
        reasons.append(ended)
    elif timed_out:
        if done == 0:
            reasons.append(f"no optimizer step within the timeout ({timeout:g}s)")
        else:
            reasons.append(f"timed out after {timeout:g}s with {done} of {steps} optimizer steps done")
    elif status == "no-script":
        reasons.append(f"could not run: the script {script} was not written")
        exit_code_override = 2
    elif status == "no-torch":
        reasons.append(NO_TORCH.format(python=(exc.python if exc else None) or "python"))
        exit_code_override = 2
    elif status == "exception":
        where = f"{location} in {exc.function}: {exc.code or ''}".rstrip(": ") if location else "?"
        if exc.entry:  # the error is in a helper module: the entry script's line that led there too
            where += f"; from {exc.entry}"
        if done == 0 and not_runnable(exc):
            reasons.append(f"could not run: {exc.type}: {exc.message} (at {where})")
            exit_code_override = 2
        else:
            reasons.append(f"{exc.type}: {exc.message} (at {where})")
        from checks.emulation.limits import explain
        from checks.verdict.spawn_cause import rank_cause

        cause = rank_cause(exc.type, exc.message)
        if cause:  # the rank's own error first, then the spawn traceback it came in
            reasons[-1] = f"{cause}; raised in the parent as {reasons[-1]}"
        limit = explain(backend, f"{exc.type}: {exc.message}")
        if limit:
            reasons[-1] += f" [{limit}]"
    elif status == "exit":
        code = report.exit_code
        if done == 0 and code == 2 and "usage:" in stderr:
            reasons.append("the script rejected its arguments (argparse exit status 2)")
            exit_code_override = 2
        else:
            reasons.append(f"the script exited with status {code} after {done} optimizer steps")
    elif status == "running":
        reasons.append(ended or "the child process died during training (killed or crashed)")
    elif status == "os_exit":
        if report.exit_code not in (0, None) or done == 0:
            reasons.append(ended)
        elif done < steps:
            warnings.append(ended)
    if done == 0 and not timed_out and status in ("finished", "stopped"):
        reasons.append("the script finished without a single optimizer step (optimizer.step() never ran)")
    elif status == "finished" and done < steps:
        warnings.append(f"the script finished after {done} of the {steps} requested optimizer steps")

    for i, loss in enumerate(losses, 1):
        if not math.isfinite(loss):
            reasons.append(f"loss is not finite at optimizer step {i} ({loss})")
            break
    from checks.child.loop_observer import clip_warning

    warnings.append(clip_warning(report.loop))
    warnings = [w for w in warnings if w]
    param_device = report.param_device
    loss_device = report.loss_device
    if backend in ("npu", "emulated") and done:
        total = sum(param_device.values())
        off = {d: n for d, n in param_device.items() if d != "npu"}
        if off:
            where = ", ".join(f"{n} on {d}" for d, n in sorted(off.items()))
            hint = " (still on CUDA)" if "cuda" in off else ""
            reasons.append(f"{sum(off.values())} of {total} optimized parameters are not on the NPU: {where}{hint}")
        if loss_device and loss_device != "npu":
            reasons.append(f"the loss is computed on {loss_device}, not on the NPU")
    elif backend in ("cuda", "cuda-emulated") and done:
        # the original on a GPU (or its twin) that trains elsewhere: not a failure of the original, but a recording of a
        # CPU run (pytorch/examples' mnist_rnn without `--accel`, recorded on an H200 as "on NVIDIA H200"), say so
        off = {d: n for d, n in param_device.items() if d != "cuda"}
        if off:
            where = ", ".join(f"{n} on {d}" for d, n in sorted(off.items()))
            loss = f"; the loss is computed on {loss_device}" if loss_device and loss_device != "cuda" else ""
            warnings.append(f"{sum(off.values())} of {sum(param_device.values())} optimized parameters are not on the GPU: "
                            f"{where}{loss} (the script may need a switch of its own, such as --accel or --cuda, to use the GPU)")
    if strict_ops:
        if unsupported:
            reasons.append(f"--strict-ops: ops with no NPU kernel in torch_npu {torch_npu_version}: {', '.join(unsupported)}")
        if wide:
            reasons.append(f"--strict-ops: float64/complex tensors created during training: {', '.join(wide)}")
    else:
        if unsupported:
            warnings.append(f"ops with no NPU kernel in torch_npu {torch_npu_version}: {', '.join(unsupported)}")
        if wide:
            warnings.append(f"float64/complex tensors created during training: {', '.join(wide)}")

    return SmokeResult(
        *verdict(exit_code_override == 2, reasons), backend, script,
        steps=done, losses=losses, loss_dtype=report.loss_dtype,
        loss_device=loss_device, param_device=dict(param_device), step_times=report.step_times,
        peak_memory=report.peak_memory, unsupported_ops=unsupported, float64_ops=wide,
        ops_traced=len(trace.ops) if trace else 0, step_source=report.step_source, child_steps=report.child_steps,
        warnings=tuple(dict.fromkeys(warnings)), reasons=tuple(reasons),
        traceback=traceback_text, error_location=location, autocast=report.autocast,
        notes=loss_trend.notes(losses), loop=report.loop,
        imported_modules=report.imported_modules or None, **common)
