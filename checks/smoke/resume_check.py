"""`npu-migrate smoke SCRIPT --resume-check "RESUME_ARGS" -- ARGS`: does a resume continue the same training?

Three smoke runs of the script, the same seed each time, each taking a state snapshot per step
(checks/child/loop_observer.py, trace mode):
1. the first half: ARGS, until the first checkpoint the script writes through its own code once K
   (`--steps`) steps are done; it stops right after that `torch.save` (n steps, n >= K);
2. straight: ARGS for n + K steps, from scratch (the checkpoint file is moved aside meanwhile, so a
   script that resumes on its own when the file exists starts afresh; it is put back afterwards);
3. resumed: ARGS + RESUME_ARGS for K steps, `{ckpt}` in RESUME_ARGS replaced by the checkpoint file
   of run 1 (found through its observed torch.save calls).
Then run 3 is compared with steps n+1 .. n+K of run 2, step by step: the losses, and at each step's
first backward the parameters, optimizer state, learning rates, loss scale, RNG states and the batch
the DataLoader gave. The state that differs first names what the restart lost. On the CPU a correct
resume gives identical losses and identical state. Runs 1 and 2 must agree on their first n steps,
else the script is not reproducible under the seed and nothing can be judged (exit 2).

Parent side: never imports torch.
"""
from __future__ import annotations

import math
import os
import shlex
import shutil
import tempfile
from dataclasses import asdict, dataclass, field

from checks.child.loop_observer import RESTART_STATE
from checks.smoke.run import run_smoke
from checks.verdict.smoke import SmokeResult

CKPT = "{ckpt}"
REL_TOL = 1e-6  # losses "identical": equal to float32 rounding of the same computation


@dataclass(frozen=True)
class StateDiff:
    state: str  # a RESTART_STATE key
    step: int  # the first resumed step (1-based) at which it differed
    straight: object
    resumed: object


@dataclass(frozen=True)
class ResumeCheckResult:
    verdict: str  # "pass" | "fail" | "error"
    exit_code: int
    script: str
    steps: int  # K
    saved_at: int = 0  # n: steps done when the checkpoint was written
    checkpoint: str | None = None
    holds: tuple[str, ...] = ()  # what the checkpoint holds (checks/child/loop_observer.py STATE_KINDS)
    lost: tuple[str, ...] = ()  # what the run kept that the checkpoint does not
    resume_args: tuple[str, ...] = ()
    straight_losses: tuple[float, ...] = ()
    resumed_losses: tuple[float, ...] = ()
    first_loss_difference: int | None = None  # resumed step (1-based)
    differed: tuple[StateDiff, ...] = ()
    lost_at_restart: tuple[str, ...] = ()  # the states that differed first, as the report names them
    reasons: tuple[str, ...] = ()
    runs: dict = field(default_factory=dict)  # "first" / "straight" / "resumed" -> verdict, steps, reasons

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("straight_losses", "resumed_losses"):
            d[key] = [x if math.isfinite(x) else repr(x) for x in d[key]]
        return d


def _same_loss(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return _same_loss(a, b)
    return a == b


def compare(straight: list[dict], resumed: list[dict], saved_at: int) -> list[StateDiff]:
    """Every state that differs between the straight run's snapshots after step `saved_at` and the
    resumed run's, with the first resumed step it differed at. A state observed in one run only
    (no DataLoader, no scaler) is not compared."""
    by_step = {s["step"]: s for s in straight}
    first: dict[str, StateDiff] = {}
    for snap in resumed:
        other = by_step.get(saved_at + snap["step"])
        if other is None:
            continue
        for key in RESTART_STATE:
            a, b = other.get(key), snap.get(key)
            if key in first or a is None or b is None:
                continue
            if key == "rng":
                changed = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
                if changed:
                    first[key] = StateDiff(key, snap["step"], {k: a[k] for k in changed}, {k: b[k] for k in changed})
            elif not _same(a, b):
                first[key] = StateDiff(key, snap["step"], a, b)
    return sorted(first.values(), key=lambda d: (d.step, list(RESTART_STATE).index(d.state)))


def _run_summary(r: SmokeResult) -> dict:
    return {"verdict": r.verdict, "steps": r.steps, "reasons": list(r.reasons)}


def _error(script, steps, reason, **kw) -> ResumeCheckResult:
    return ResumeCheckResult("error", 2, script, steps, reasons=(reason,), **kw)


def run_resume_check(script, *, resume_args: str, steps: int = 3, script_args=(), seed: int | None = None,
                     json_report=None, **smoke_options) -> ResumeCheckResult:
    """Run the three runs and compare them (see the module docstring). smoke_options go to every
    run_smoke call (backend, timeout, fake_data, env, cwd, stream ...). Never raises for a bad script."""
    script = str(script)
    seed = 0 if seed is None else seed
    resume = tuple(shlex.split(resume_args))
    common = dict(smoke_options, seed=seed, loop_trace=True, op_trace=False)
    first = run_smoke(script, steps=steps, script_args=tuple(script_args), stop_after_checkpoint=True, **common)
    runs = {"first": _run_summary(first)}
    if first.verdict == "error" or not first.steps:
        return _finish(_error(script, steps, f"the first run could not train: {'; '.join(first.reasons)}", runs=runs),
                       json_report)
    saved = [c for c in (first.loop or {}).get("checkpoints", []) if c.get("step", 0) >= steps]
    if not saved:
        written = (first.loop or {}).get("checkpoints", [])
        seen = f" (it wrote {len(written)} before step {steps})" if written else ""
        return _finish(_error(script, steps, f"the script wrote no checkpoint holding a model after {steps} steps "
                              f"within its run of {first.steps} steps{seen}: nothing to resume from", runs=runs),
                       json_report)
    ckpt = saved[0]
    n, path = int(ckpt["step"]), ckpt["path"]
    facts = dict(saved_at=n, checkpoint=path, holds=tuple(ckpt["holds"]), lost=tuple(ckpt["lost"]), resume_args=resume,
                 runs=runs)
    if not os.path.isfile(path):
        return _finish(_error(script, steps, f"the checkpoint {path} is not a file after the first run", **facts),
                       json_report)
    keep = tempfile.mkdtemp(prefix="npu-migrate-resume-")
    kept = os.path.join(keep, os.path.basename(path))
    shutil.move(path, kept)  # the straight run starts without it (and may overwrite the path)
    try:
        straight = run_smoke(script, steps=n + steps, script_args=tuple(script_args), **common)
        shutil.copy2(kept, path)
        resumed_args = tuple(a.replace(CKPT, path) for a in resume)
        resumed = run_smoke(script, steps=steps, script_args=(*map(str, script_args), *resumed_args), **common)
        shutil.copy2(kept, path)  # the user's folder ends with the first run's checkpoint, as written
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    runs.update(straight=_run_summary(straight), resumed=_run_summary(resumed))
    return _finish(judge(script, steps, first, straight, resumed, facts), json_report)


def judge(script, steps, first: SmokeResult, straight: SmokeResult, resumed: SmokeResult, facts: dict) -> ResumeCheckResult:
    n = facts["saved_at"]
    for name, run in (("straight", straight), ("resumed", resumed)):
        if run.verdict == "error" or not run.steps:
            return _error(script, steps, f"the {name} run could not train: {'; '.join(run.reasons)}", **facts)
    if straight.steps < n + 1:
        return _error(script, steps, f"the straight run ended after {straight.steps} steps, before step {n + 1}", **facts)
    for i, (a, b) in enumerate(zip(first.losses[:n], straight.losses[:n]), 1):
        if not _same_loss(a, b):
            return _error(script, steps, f"two runs from scratch with seed-fixed RNGs differ at step {i} (loss {a:.8g} "
                          f"vs {b:.8g}): the script is not reproducible here, so a resume cannot be judged", **facts)
    tail = straight.losses[n:n + steps]
    got = resumed.losses[:len(tail)]
    first_loss = next((i for i, (a, b) in enumerate(zip(tail, got), 1) if not _same_loss(a, b)), None)
    diffs = compare((straight.loop or {}).get("snapshots", []), (resumed.loop or {}).get("snapshots", []), n)
    earliest = diffs[0].step if diffs else None
    lost_now = tuple(RESTART_STATE[d.state] for d in diffs if d.step == earliest)
    reasons = []
    if diffs:
        later = [f"{RESTART_STATE[d.state]} (from resumed step {d.step})" for d in diffs if d.step != earliest]
        where = "at the restart" if earliest == 1 else f"at resumed step {earliest}"
        reasons.append(f"the resume from {facts['checkpoint']} (written at step {n}) lost state: "
                       f"{', '.join(lost_now)} differed {where} from the straight run"
                       + (f"; then also {', '.join(later)}" if later else ""))
    if first_loss is not None:
        reasons.append(f"the losses differ from resumed step {first_loss} (straight step {n + first_loss}): "
                       f"{tail[first_loss - 1]:.8g} straight vs {got[first_loss - 1]:.8g} resumed")
    if len(got) < len(tail):
        reasons.append(f"the resumed run took {len(got)} of {len(tail)} steps")
    if reasons and facts["lost"]:
        reasons.append(f"the checkpoint holds {', '.join(facts['holds'])}; the run also kept {', '.join(facts['lost'])}")
    return ResumeCheckResult("fail" if reasons else "pass", 1 if reasons else 0, script, steps,
                             straight_losses=tuple(tail), resumed_losses=tuple(got), first_loss_difference=first_loss,
                             differed=tuple(diffs), lost_at_restart=lost_now, reasons=tuple(reasons), **facts)


def _finish(result: ResumeCheckResult, json_report) -> ResumeCheckResult:
    if json_report:
        from checks.launch.report import write_json

        write_json(result, json_report)
    return result


def render(result: ResumeCheckResult, console=None) -> None:
    """Terminal report (rich): the two halves side by side, what the restart lost, the verdict."""
    from rich.table import Table

    from migrate.report.terminal import escape, make_console

    console = console or make_console()
    if result.straight_losses:
        table = Table(title=f"resume check: {escape(result.script)}", show_header=True)
        for name in ("step", "straight", "resumed", ""):
            table.add_column(name, justify="right")
        for i, a in enumerate(result.straight_losses, 1):
            b = result.resumed_losses[i - 1] if i <= len(result.resumed_losses) else None
            same = b is not None and _same_loss(a, b)
            table.add_row(str(result.saved_at + i), f"{a:.8g}", "-" if b is None else f"{b:.8g}", "=" if same else "differs")
        console.print(table)
    if result.checkpoint:
        console.print(f"  checkpoint           {escape(result.checkpoint)} at step {result.saved_at}: holds "
                      f"{', '.join(result.holds)}; the run also kept {', '.join(result.lost) or 'nothing more'}",
                      highlight=False)
    for d in result.differed:
        console.print(f"  differed             {RESTART_STATE[d.state]} from resumed step {d.step}: "
                      f"{escape(str(d.straight))} straight vs {escape(str(d.resumed))} resumed", highlight=False)
    for r in result.reasons:
        console.print(f"  [red]reason:[/red] {escape(r)}", highlight=False)
    colour = {"pass": "green", "fail": "red"}.get(result.verdict, "magenta")
    console.print(f"[bold {colour}]resume check: {result.verdict.upper()}[/bold {colour}]", highlight=False)
