"""The smoke child's report: one type written by the child (`checks.child.bootstrap.Recorder`) and read by
the parent (`checks.verdict.smoke.judge`), so a field cannot be written and never read or read and never
written. Serialised as JSON in a temp file named in the child's configuration. Never imports torch.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace

STATUSES = ("running", "stopped", "finished", "exit", "exception", "os_exit",
            "no-script",  # validate's instrumented copy was never written (the child waited for it)
            "no-torch")  # the child's python has no torch: nothing ran
# How steps were counted: at every optimizer step (the normal case), or at every backward() when the
# script never calls an optimizer's step() (parameters updated by hand, e.g. `p.data.add_(...)`).
STEP_SOURCES = ("optimizer", "backward")


@dataclass(frozen=True)
class ExceptionInfo:
    type: str
    message: str
    file: str | None
    line: int | None
    function: str | None
    code: str | None
    traceback: str
    phase: str | None = None  # "parse": the script (or a module it imports) does not parse
    python: str | None = None  # status "no-torch": the interpreter that lacks torch
    entry: str | None = None  # "SCRIPT:LINE" in the entry script, when the error is deeper in another user file

    @property
    def location(self) -> str | None:
        return f"{self.file}:{self.line}" if self.file else None


@dataclass(frozen=True)
class OpTraceSummary:
    ops: dict  # "aten::add.Tensor" -> calls
    unsupported_ops: tuple[str, ...]
    float64_ops: tuple[str, ...]
    stopped_after_step: int | None = None  # tracing switched off after this step (the op set was stable)


@dataclass(frozen=True)
class ChildReport:
    status: str  # one of STATUSES; "running" when the child died before writing its final report,
    # "os_exit" when the script left through os._exit
    losses: tuple[float, ...] = ()  # one per counted step (sum of the step's backward losses)
    step_times: tuple[float, ...] = ()
    step_source: str = "optimizer"  # one of STEP_SOURCES
    child_steps: int = 0  # steps counted in child processes of the script (hogwild workers, spawn)
    loss_dtype: str | None = None
    loss_device: str | None = None  # logical device ("npu" on the stand-in when the loss is placed there)
    param_device: dict = field(default_factory=dict)  # logical device -> number of optimized parameters
    peak_memory: int | None = None
    warnings: tuple[str, ...] = ()
    exception: ExceptionInfo | None = None
    exit_code: int | None = None  # the script's SystemExit status (status "exit" / "finished")
    op_trace: OpTraceSummary | None = None
    autocast: dict | None = None  # {"policy": ..., "requested": {dtype: regions}}; policy "device" on a real device
    loop: dict | None = None  # checks.child.loop_observer.LoopObservations.to_dict(): loss scale, clips, checkpoints
    # the top-level names of sys.modules as the run left them (validate across hardware: a pip difference in a
    # package neither run imported is not held against the migration, checks/validate/hosts.py)
    imported_modules: tuple[str, ...] = ()

    @property
    def steps(self) -> int:
        return len(self.losses)

    def to_json(self) -> dict:
        """What `asdict` gives, without copying every value of the plain fields (`loop` holds validate's per-sample
        digests, thousands of strings, and the child writes its report every half second of a run): their
        dataclasses (exception, op_trace) through asdict, the other values as they are."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("exception", "op_trace"):
            if data[name] is not None:
                data[name] = asdict(data[name])
        data["losses"] = [x if math.isfinite(x) else repr(x) for x in self.losses]
        return data

    @classmethod
    def from_json(cls, data: dict) -> ChildReport:
        """The report the child wrote; ValueError when it is not one (another version, a truncated file)."""
        if not isinstance(data, dict):
            raise ValueError("the smoke report is not a JSON object")
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown or data.get("status") not in STATUSES:
            raise ValueError(f"not a smoke child report (unknown fields {sorted(unknown)}, status {data.get('status')!r})")
        values = dict(data)
        values["losses"] = tuple(float(x) for x in data.get("losses", ()))
        values["step_times"] = tuple(float(x) for x in data.get("step_times", ()))
        values["warnings"] = tuple(data.get("warnings", ()))
        values["imported_modules"] = tuple(data.get("imported_modules", ()))
        try:
            if data.get("exception") is not None:
                values["exception"] = ExceptionInfo(**data["exception"])
            if data.get("op_trace") is not None:
                trace = data["op_trace"]
                values["op_trace"] = OpTraceSummary(
                    dict(trace["ops"]), tuple(trace["unsupported_ops"]), tuple(trace["float64_ops"]),
                    trace.get("stopped_after_step"))
        except (TypeError, KeyError) as exc:
            raise ValueError(f"malformed smoke child report: {exc}") from exc
        return cls(**values)


def merge_process_reports(main: ChildReport, workers: list[ChildReport]) -> ChildReport:
    """The script's own process first; when it took no step itself (it only started workers, as hogwild
    training does), the steps of its busiest worker process, and how many processes trained."""
    trained = [w for w in workers if w.steps]
    if not trained:
        return main
    child_steps = sum(w.steps for w in trained)
    note = (f"{child_steps} steps counted in {len(trained)} child process(es) of the script "
            f"(torch.multiprocessing / mp.Process workers)")
    if main.steps:
        return replace(main, child_steps=child_steps, warnings=(*main.warnings, note))
    busiest = max(trained, key=lambda w: w.steps)
    return replace(main, losses=busiest.losses, step_times=busiest.step_times,
                   step_source=busiest.step_source, child_steps=child_steps,
                   loss_dtype=busiest.loss_dtype, loss_device=busiest.loss_device,
                   param_device=busiest.param_device,
                   warnings=(*main.warnings, *busiest.warnings, note + "; losses shown from the busiest one"),
                   op_trace=main.op_trace or busiest.op_trace)


def verdict(error: bool, reasons) -> tuple[str, int]:
    """A run's verdict and exit code, the same for one process and a distributed job: "error" (2,
    could not run) before "fail" (1, any reason) before "pass" (0)."""
    if error:
        return "error", 2
    return ("fail", 1) if reasons else ("pass", 0)


def write_json(result, path) -> None:
    """Write a result's `to_dict()` as JSON to PATH ("-": standard output), the one writer for smoke,
    distributed smoke and profile results. Opened plainly (not replaced through a temp file) so that
    `/dev/stdout` or a pipe given as PATH works."""
    import json
    import sys

    text = json.dumps(result.to_dict(), indent=2, default=str) + "\n"
    if str(path) == "-":
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read_report(path: str) -> ChildReport | None:
    """One child report file (None: missing or not readable yet)."""
    import json

    try:
        with open(path, encoding="utf-8") as f:
            return ChildReport.from_json(json.load(f))
    except (OSError, ValueError):
        return None


def read_reports(report_path: str) -> ChildReport | None:
    """The child's report merged with those of the processes the script forked (None: no report)."""
    import glob

    main = read_report(report_path)
    if main is None:
        return None
    workers = [r for r in map(read_report, sorted(glob.glob(glob.escape(report_path) + ".proc*"))) if r is not None]
    return merge_process_reports(main, workers)
