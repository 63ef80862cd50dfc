"""`npu-migrate smoke`: run N real optimizer steps of a script and judge them (parent side).

The script runs in a child process (`python checks/bootstrap.py SCRIPT ARGS...`) in its own process
group; the whole group is killed on timeout, on Ctrl-C and when the child ends (no stray DataLoader
workers or grandchildren). The child's output is streamed to `stream` and its tail kept. The
bootstrap writes a JSON report to a temp file named in its configuration; this module reads it and
gives the verdict. Never imports torch.

Backends: "npu" (real torch_npu), "emulated" (CPU-backed torch_npu stand-in, see
checks/standin/torch_npu/_emulator.py), and for an unmigrated GPU original: "cuda" (the real GPU),
"cuda-emulated" (the CUDA twin, checks/cudatwin.py: the original's CUDA code paths, computed on the
CPU) and "cpu" (the plain script with CUDA hidden: it takes its CPU fallback, if it has one).
"""
from __future__ import annotations

import collections
import glob
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field

from checks import loss_trend, process, spawn_ranks, warmstart
from checks.backend import CUDA_EMULATED_NOTE, EMULATED_NOTE, detect
from checks.smoke_report import (
    ChildReport,
    ExceptionInfo,
    merge_process_reports,
    verdict,
    write_json,
)

BOOTSTRAP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bootstrap.py")
BACKENDS = ("auto", "npu", "emulated", "cpu", "cuda", "cuda-emulated")
AUTOCAST_POLICIES = ("off", "native", "bf16", "float32")  # see checks.devicemap
TAIL_CHARS = 8000
NO_TORCH = ("could not run: torch is not installed for {python}; install it with "
            "`{python} -m pip install torch` (the CPU build is enough for smoke and validate)")
# Errors that mean the script never started training because it does not parse or cannot import its
# own dependencies: "could not run" (exit 2), not a failed run. ImportErrors of torch_npu names stay
# failures of the migration.
NOT_RUNNABLE = ("SyntaxError", "IndentationError", "TabError", "ModuleNotFoundError")
KILL_GRACE_S = 3.0


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
    autocast: dict | None = None  # emulated devices: {"policy": ..., "requested": {dtype: regions}}
    replicas: str | None = None  # ranks the script spawned (mp.spawn): the cross-rank parameter check
    spawned_ranks: tuple[dict, ...] = ()  # those ranks' own verdicts (checks/spawn_ranks.py)
    notes: tuple[str, ...] = ()  # remarks on the losses that do not change the verdict (checks/loss_trend.py)

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


def _error(script: str, backend: str, reason: str, **kw) -> SmokeResult:
    note = emulated_note(backend)
    return SmokeResult("error", 2, backend, script, reasons=(reason,), note=note, **kw)


class _Tail:
    """Streams a pipe to `stream` and keeps its last TAIL_CHARS characters."""

    def __init__(self, pipe, stream):
        self.chunks: collections.deque[str] = collections.deque()
        self.size = 0
        self.thread = threading.Thread(target=self._run, args=(pipe, stream), daemon=True)
        self.thread.start()

    def _run(self, pipe, stream):
        for line in iter(pipe.readline, b""):
            text = line.decode("utf-8", "replace")
            if stream is not None:
                try:
                    stream.write(text)
                    stream.flush()
                except (OSError, ValueError):
                    pass
            self.chunks.append(text)
            self.size += len(text)
            while self.size > TAIL_CHARS and len(self.chunks) > 1:
                self.size -= len(self.chunks.popleft())
        pipe.close()

    def text(self, timeout: float = 2.0) -> str:
        self.thread.join(timeout)
        return "".join(self.chunks)[-TAIL_CHARS:]


def _autoload(version: str) -> bool:
    """torch >= 2.5 imports an installed torch_npu at `import torch` (device backend autoload)."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return (major, minor) >= (2, 5)


def run_smoke(script, *, steps: int = 5, timeout: float = 300, backend: str = "auto", fake_data: bool = False,
              torch_npu_version: str | None = None, script_args=(), json_report=None, strict_ops: bool = False,
              op_trace: bool = True, env: dict | None = None, cwd=None, stream=None, seed: int | None = None,
              emulate_autocast: bool | None = None, autocast: str = "off",
              python: str | None = None, memory_limit: int | None = None,
              wait_for_script: float = 0.0, progress: bool = False) -> SmokeResult:
    """Run `script` for `steps` optimizer steps and judge it. Never raises for a bad script.

    autocast: the policy of an emulated device's autocast regions (emulated, cuda-emulated):
    "off" (default: regions and GradScaler run with the device's dtypes, the lower-precision ops
    computing in float32 and rounding to them, checks/autocast_emulation.py; fast, and identical on
    both sides of validate), "float32" (regions disabled, validate's plain-CPU baseline case), "native" (CPU autocast with the device's dtype, float16 unless the
    script names one: 5-20x slower on a CPU without AVX512-BF16/AMX), "bf16" (CPU autocast in
    bfloat16). emulate_autocast (older API): True is "native", False is "off".
    wait_for_script: the script is still being written (validate's instrumented copy): the child
    starts now and waits up to this many seconds for it (or for `SCRIPT.cancel`) before running it.
    progress: show "step k/N, elapsed" on stderr while it runs, when stderr is a terminal (checks/smoke_progress.py).
    """
    if emulate_autocast is not None:
        autocast = "native" if emulate_autocast else "off"
    script = str(script)
    t0 = time.perf_counter()
    if backend not in BACKENDS:
        return _finish(_error(script, backend, f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})"), json_report)
    if autocast not in AUTOCAST_POLICIES:
        return _finish(_error(script, backend, f"unknown autocast policy {autocast!r} (one of {', '.join(AUTOCAST_POLICIES)})"), json_report)
    if not wait_for_script and not os.path.isfile(script):
        return _finish(_error(script, backend, f"script not found: {script}"), json_report)
    if steps < 1:
        return _finish(_error(script, backend, f"--steps must be at least 1 (got {steps})"), json_report)
    if timeout <= 0:
        return _finish(_error(script, backend, f"--timeout must be positive (got {timeout})"), json_report)
    if python is None and importlib.util.find_spec("torch") is None:
        return _finish(_error(script, backend, NO_TORCH.format(python=sys.executable)), json_report)
    kb_version = None
    if backend in ("auto", "emulated", "npu", "cuda-emulated"):
        from migrate import knowledge

        try:
            kb_version = knowledge.resolve_version(torch_npu_version)
        except ValueError as exc:
            return _finish(_error(script, backend, str(exc)), json_report)
    detection_note = None
    if backend == "auto":
        detection = detect(python)
        backend = detection.backend
        detection_note = f"backend auto -> {backend}: {detection.reason}"

    report_fd, report_path = tempfile.mkstemp(prefix="npu-migrate-smoke-", suffix=".json")
    os.close(report_fd)
    os.unlink(report_path)
    config = {
        "report": report_path, "steps": steps, "backend": backend, "op_trace": bool(op_trace),
        "fake_data": bool(fake_data), "seed": seed, "torch_npu_version": kb_version,
        "autocast": autocast, "wait_for_script": float(wait_for_script),
        "autoload": bool(kb_version and _autoload(kb_version)) and backend in ("npu", "emulated"),
    }
    child_env = dict(os.environ)
    child_env.update(env or {})
    child_env["NPU_MIGRATE_SMOKE"] = json.dumps(config)
    child_env["PYTHONUNBUFFERED"] = "1"
    # Hydra catches the task's exception, prints it and exits 1; with this it re-raises it, so the
    # report names the real exception at the user's deepest frame (hydra/_internal/utils.py run_and_report)
    child_env.setdefault("HYDRA_FULL_ERROR", "1")
    if fake_data:  # generated dataset files (checks/fakedata_datasets.py), removed after the run
        child_env["NPU_MIGRATE_FAKE_DATA_DIR"] = report_path + ".fakedata"
    if backend in ("emulated", "cpu", "cuda-emulated"):
        # Neither an emulated host nor the CPU baseline may touch a GPU of this machine.
        child_env["CUDA_VISIBLE_DEVICES"] = ""
    cmd = [python or sys.executable, BOOTSTRAP, os.path.abspath(script), *map(str, script_args)]
    timed_out = False
    guard = process.ChildGuard(memory_limit)  # kills the whole tree, setsid() escapees included
    try:
        proc = None
        if python is None and warmstart.enabled():  # forked from a process that has imported torch
            proc = warmstart.start(cmd[1:], guard.env(child_env), cwd, os.path.abspath(script))
        elif python is None and memory_limit is None and warmstart.attach_allowed(child_env):
            # an ancestor's template (checks/warm_client.py); not with a memory cap: the run would be the
            # template's child, outside the tree the guard measures
            cmd = [cmd[0], warmstart.CLIENT, "--raw", *cmd[1:]]
        if proc is None:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    env=guard.env(child_env), cwd=cwd, start_new_session=True)
    except OSError as exc:
        return _finish(_error(script, backend, f"could not start python: {exc}"), json_report)
    guard.start(proc)
    out_tail, err_tail = _Tail(proc.stdout, stream), _Tail(proc.stderr, stream)
    ticker = _progress(report_path, steps) if progress else None
    try:
        timed_out = not guard.wait(timeout)
        rank_stacks = spawn_ranks.ask_stacks(report_path) if timed_out else {}  # mp.spawn ranks, before the kill
    except BaseException:  # Ctrl-C: nothing of the run may survive us
        guard.kill_all(KILL_GRACE_S)
        _cleanup(report_path)
        raise
    finally:
        if ticker is not None:
            ticker.stop()
    guard.kill_all(KILL_GRACE_S)  # the child has ended (or timed out): end its stray children too
    stdout, stderr = out_tail.text(), err_tail.text()
    report = read_reports(report_path)
    ranks = spawn_ranks.read(report_path)  # ranks the script started with mp.spawn, judged as one job
    _cleanup(report_path)
    result = judge(script, backend, report, returncode=proc.returncode, timed_out=timed_out, timeout=timeout,
                   steps=steps, strict_ops=strict_ops, stdout=stdout, stderr=stderr,
                   torch_npu_version=kb_version if backend in ("npu", "emulated") else None,
                   duration_s=time.perf_counter() - t0, extra_warnings=[detection_note] if detection_note else [],
                   guard=guard)
    result = spawn_ranks.judge_spawned(result, ranks, script=script, backend=backend, steps=steps, timeout=timeout,
                                       torch_npu_version=kb_version if backend in ("npu", "emulated") else None,
                                       stacks=rank_stacks)
    return _finish(result, json_report)


def _progress(report_path: str, steps: int):
    from checks.smoke_progress import Progress

    return Progress(report_path, steps).start()


def _read_report(path: str) -> ChildReport | None:
    try:
        with open(path, encoding="utf-8") as f:
            return ChildReport.from_json(json.load(f))
    except (OSError, ValueError):
        return None


def read_reports(report_path: str) -> ChildReport | None:
    """The child's report merged with those of the processes the script forked (None: no report)."""
    main = _read_report(report_path)
    if main is None:
        return None
    workers = [r for r in map(_read_report, sorted(glob.glob(glob.escape(report_path) + ".proc*"))) if r is not None]
    return merge_process_reports(main, workers)


def _cleanup(report_path: str) -> None:
    for path in (report_path, *glob.glob(glob.escape(report_path) + ".proc*")):
        try:
            os.unlink(path)
        except OSError:
            pass
    shutil.rmtree(report_path + ".fakedata", ignore_errors=True)
    spawn_ranks.cleanup(report_path)


def _finish(result: SmokeResult, json_report) -> SmokeResult:
    if json_report:
        write_json(result, json_report)
    return result


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
        if done == 0 and not_runnable(exc):
            reasons.append(f"could not run: {exc.type}: {exc.message} (at {where})")
            exit_code_override = 2
        else:
            reasons.append(f"{exc.type}: {exc.message} (at {where})")
        from checks.emulation_limits import explain
        from checks.spawn_cause import rank_cause

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
        notes=loss_trend.notes(losses), **common)


# ------------------------------------------------------------------------------ reporting
def render(result: SmokeResult, console=None) -> None:
    """Terminal report (rich)."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    if result.note:
        console.print(f"[yellow]{result.note}[/yellow]")
    table = Table(title=f"smoke: {result.script}", show_header=True)
    table.add_column("step", justify="right")
    table.add_column("loss", justify="right")
    table.add_column("time (s)", justify="right")
    for i, loss in enumerate(result.losses, 1):
        t = result.step_times[i - 1] if i - 1 < len(result.step_times) else None
        table.add_row(str(i), f"{loss:.6g}", f"{t:.3f}" if t is not None else "")
    if result.losses:
        console.print(table)
    facts = [
        ("backend", result.backend + (f" (torch_npu {result.torch_npu_version})" if result.torch_npu_version else "")),
        ("steps", f"{result.steps} of {result.requested_steps}"
                  + (" (one per backward(): no optimizer)" if result.step_source == "backward" else "")
                  + (f" ({result.child_steps} in worker processes)" if result.child_steps else "")),
        ("loss dtype / device", f"{result.loss_dtype} / {result.loss_device}"),
        ("parameters", ", ".join(f"{n} on {d}" for d, n in sorted(result.param_device.items())) or "-"),
        ("peak memory", f"{result.peak_memory / 2**20:.0f} MiB" if result.peak_memory else "-"),
        *((("spawned ranks", "; ".join(f"rank {r['rank']} {r['verdict']} {r['steps']} steps" for r in result.spawned_ranks)),)
          if result.spawned_ranks else ()),
        *((("replicas", result.replicas),) if result.replicas else ()),
        ("op coverage", f"{result.ops_traced} ops traced, {len(result.unsupported_ops)} without NPU kernel, "
                        f"{len(result.float64_ops)} float64/complex" if result.ops_traced else "not traced"),
    ]
    for key, value in facts if result.verdict != "error" else ():
        console.print(f"  {key:20} {value}", highlight=False)
    from rich.markup import escape  # reasons quote the script's errors (gloo's "[.../pair.cc:561]")

    for w in result.warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}", highlight=False)
    for n in result.notes:
        console.print(f"  note: {escape(n)}", highlight=False)
    for r in result.reasons:
        console.print(f"  [red]reason:[/red] {escape(r)}", highlight=False)
    colour = {"pass": "green", "fail": "red"}.get(result.verdict, "magenta")
    suffix = f" ({result.note})" if result.note else ""
    console.print(f"[bold {colour}]smoke: {result.verdict.upper()}[/bold {colour}]{suffix}", highlight=False)
