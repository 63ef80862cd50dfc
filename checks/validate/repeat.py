"""Does the original repeat itself? validate's second look at the baseline when the losses differ.

An original that is not reproducible run to run (hogwild workers writing shared-memory parameters
without a lock, nondeterministic kernels, unseeded worker randomness, timing-dependent data order)
cannot give "identical losses" against anything, not even against itself. Before a loss difference
is blamed on the rewrite, validate runs the original again (same seed, same steps; the first run's
losses are reused) and measures its own spread per step:

- every extra run gives the first run's losses exactly: the original repeats itself and the judgement
  is the usual one (the difference is the rewrite's);
- the runs differ: validate says so first ("the original is not deterministic: run-to-run difference
  up to X at step N"), names the causes it can see, and the migrated run is judged against that
  spread instead of zero: at step k it must lie within the original's range at step k, widened on
  each side by the tolerance and by the largest spread the original showed up to step k (differences
  in training compound, so a spread seen at step j can show again at any later step), or at any step
  for an original seen to race (a race can reorder updates before any step). A rewrite
  error larger than that still fails; one smaller than the original's own noise cannot be seen.

Extra runs stop as soon as the migrated run lies within the spread. Otherwise, for an original seen to
race (parameters in shared memory trained by several processes), they go on up to the limit: its
interleavings come in modes (pytorch/examples' mnist_hogwild: the same losses in 4 of 7 runs, a
second trajectory in 3, a small jitter on top), so neither an exact repeat nor a small spread says
what the next run gives. For any other original they stop after the first run that repeats it
exactly, or when the migrated run lies outside the spread by more than the largest spread (another
run would have to more than double it).

For an original seen to race, the migrated run is one draw of the race as well: when it still lies
outside the spread after the extra runs of the original, the migrated script runs again (at most
MIGRATED_RETRIES times) and the first of its runs that lies within the spread is the one judged; the
report says how many it took. A rewrite error (another learning rate) puts every migrated run outside;
an interleaving the original's few runs did not happen to show does not fail the port (seen on the CI
machine: a correct hogwild migration's run left the spread of six runs of the original at step 4).
No torch; the runs are made by the caller (checks/validate/run.py).
"""

from __future__ import annotations

import ast
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from migrate.fileio import parse_python

DEFAULT_REPEAT = 5  # the most extra runs of the original (validate --repeat)
MIGRATED_RETRIES = 2  # a racing original: the most extra runs of the migrated script
MAX_SCANNED_FILES = 200  # .py files next to the script read for causes
SHARED_MEMORY = "shared-memory parameters written by several processes"
DATALOADER = "DataLoader workers without a seeded generator"
NONDETERMINISTIC_OPS = "nondeterministic ops reported by torch's deterministic-algorithms mode"
_DETERMINISM_WARNING = re.compile(r"(\S+?) does not have a deterministic implementation")


@dataclass(frozen=True)
class BaselineRun:
    """One extra run of the original, as the caller made it."""

    losses: tuple[float, ...]
    seconds: float
    log: str = ""  # the run's stderr (torch's deterministic-algorithms warnings are read from it)
    child_steps: int = 0  # steps taken in processes the script started


@dataclass(frozen=True)
class Repeat:
    runs: tuple[tuple[float, ...], ...]  # the original's losses per run, the first (reused) run first
    seconds: float  # wall time of the extra runs (what knowing costs)
    causes: tuple[str, ...]  # what in the original makes it nondeterministic, as far as can be seen

    @property
    def extra_runs(self) -> int:
        return len(self.runs) - 1

    @property
    def racing(self) -> bool:
        """Parameters in shared memory trained by several processes (seen in the code, confirmed by the runs)."""
        return any(c.startswith(SHARED_MEMORY) for c in self.causes)

    @property
    def spread(self) -> tuple[float, ...]:
        """max - min of the original's losses at each step (steps that every run reached)."""
        steps = min(len(r) for r in self.runs)
        return tuple(_range([r[k] for r in self.runs]) for k in range(steps))

    @property
    def deterministic(self) -> bool:
        first = self.runs[0]
        return all(_same(r, first) for r in self.runs[1:])

    @property
    def largest(self) -> tuple[float, int]:
        """(largest spread, its 1-based step)."""
        spread = self.spread
        if not spread:
            return 0.0, 0
        k = max(range(len(spread)), key=lambda i: spread[i])
        return spread[k], k + 1

    def bounds(self, step: int) -> tuple[float, float] | None:
        """(low, high) of the original's losses at 0-based `step`, widened by the largest spread up to it
        (differences compound), or at any step for a racing original (a race can put another process's
        update before any step; the few runs seen need not have shown it at this one)."""
        values = [r[step] for r in self.runs if step < len(r) and math.isfinite(r[step])]
        if not values:
            return None
        seen = self.spread if self.racing else self.spread[: step + 1]
        envelope = max((s for s in seen if math.isfinite(s)), default=0.0)
        return min(values) - envelope, max(values) + envelope

    def statement(self) -> str:
        """What the extra runs showed, for the report."""
        cost = f"{self.extra_runs} extra run{'s' if self.extra_runs != 1 else ''} of the original, {self.seconds:.1f} s"
        if self.deterministic:
            return f"the original repeats itself: identical losses in {cost}; the difference is the rewrite's"
        value, step = self.largest
        text = f"the original is not deterministic: run-to-run difference up to {value:.3g} at step {step} ({cost})"
        if self.causes:
            text += "; cause: " + "; ".join(self.causes)
        else:
            text += "; no cause seen in the script (timing, threads or hardware)"
        return text + ". The migrated run is judged against that spread instead of zero"


def repeat_original(run_again: Callable[[], BaselineRun], first: Sequence[float], migrated: Sequence[float], *,
                    repeat: int, rtol: float, atol: float, static_causes: Sequence[str] = (),
                    first_log: str = "", first_child_steps: int = 0) -> Repeat:
    """Run the original up to `repeat` more times (early stops in the module docstring)."""
    runs = [tuple(first)]
    logs, child_steps, seconds = [first_log], [first_child_steps], 0.0
    for _ in range(repeat):
        t0 = time.monotonic()
        extra = run_again()
        seconds += max(extra.seconds, time.monotonic() - t0)
        runs.append(tuple(extra.losses))
        logs.append(extra.log)
        child_steps.append(extra.child_steps)
        result = Repeat(tuple(runs), seconds, causes(static_causes, logs, child_steps, len(first)))
        if not result.deterministic and first_outside(result, migrated, rtol=rtol, atol=atol) is None:
            break  # the migrated run is one the original can give
        if result.racing:
            continue  # interleavings come in modes: a small spread now says nothing of the next run
        if not result.deterministic and outside_by(result, migrated, rtol=rtol, atol=atol) > result.largest[0]:
            break  # far out: another run would have to more than double the original's spread to cover it
        if result.deterministic:
            break  # repeats itself, and nothing in it races: the difference is the rewrite's
    return Repeat(tuple(runs), seconds, causes(static_causes, logs, child_steps, len(first)))


@dataclass(frozen=True)
class MigratedRetry:
    """The migrated script run again against a racing original (see the module docstring)."""

    losses: tuple[float, ...]  # the run judged: the first within the spread, else the first run
    runs: int  # extra runs of the migrated script made
    within: int | None  # 1-based run (1 = the first) that lies within the spread, None if none did
    first_outside: int  # 0-based step where the first migrated run left the spread

    def statement(self) -> str:
        tries = f"{self.runs} more run{'s' if self.runs != 1 else ''}"
        head = (f"the original races, so the migrated run is one draw of the race too: its first run left the "
                f"original's spread at step {self.first_outside + 1}; run again ({tries})")
        if self.within is None:
            return head + ", it lies outside every time: the difference is the rewrite's"
        return head + f", its run {self.within} lies within the spread and is the one compared"


def retry_migrated(repeat: Repeat, migrated: Sequence[float], run_again: Callable[[], Sequence[float]], *,
                   retries: int = MIGRATED_RETRIES, rtol: float, atol: float) -> MigratedRetry | None:
    """Run the migrated script again for a racing original it lies outside of; None when not needed."""
    outside = first_outside(repeat, migrated, rtol=rtol, atol=atol)
    if not repeat.racing or repeat.deterministic or outside is None or retries < 1:
        return None
    for i in range(retries):
        losses = tuple(float(x) for x in run_again())
        if first_outside(repeat, losses, rtol=rtol, atol=atol) is None:
            return MigratedRetry(losses, i + 1, i + 2, outside)
    return MigratedRetry(tuple(migrated), retries, None, outside)


def band(repeat: Repeat, *, rtol: float, atol: float) -> tuple[tuple[float, float], ...]:
    """(low, high) per step: where the migrated loss must lie. The original's range at the step,
    widened by the largest spread up to it and by the tolerance around the first run's value."""
    out = []
    for k, reference in enumerate(repeat.runs[0]):
        bounds = repeat.bounds(k)
        if bounds is None:
            out.append((math.nan, math.nan))
            continue
        slack = atol + rtol * abs(reference) if math.isfinite(reference) else 0.0
        out.append((bounds[0] - slack, bounds[1] + slack))
    return tuple(out)


def first_outside(repeat: Repeat, migrated: Sequence[float], *, rtol: float, atol: float) -> int | None:
    """0-based first step where the migrated loss lies outside the original's spread (or is missing)."""
    for k, (low, high) in enumerate(band(repeat, rtol=rtol, atol=atol)):
        if k >= len(migrated) or not (low <= migrated[k] <= high):
            return k
    return None if len(migrated) == len(repeat.runs[0]) else len(repeat.runs[0])


def verdict_reasons(repeat: Repeat, alignment, reasons: Sequence[str]) -> list[str]:
    """The verdict's reasons with what the extra runs showed said first; a pass against the spread says so."""
    if repeat.deterministic:
        return [*reasons, repeat.statement()] if alignment.first_divergence is not None else list(reasons)
    out = [repeat.statement(), *reasons]  # a pass already says "within the original's own spread" (validate.judge)
    at = alignment.first_divergence
    if at is not None and at < len(alignment.rows) and alignment.rows[at].migrated is not None:
        low, high = band(repeat, rtol=alignment.rtol, atol=alignment.atol)[at] if at < len(repeat.runs[0]) else (math.nan,) * 2
        out.append(f"step {alignment.rows[at].step}: the migrated loss {alignment.rows[at].migrated:.8g} lies outside the "
                   f"original's range widened by its own spread [{low:.8g}, {high:.8g}]: a difference the original "
                   "does not make by itself")
    return out


def write_csv(repeat: Repeat, path: Path) -> Path:
    """The original's losses run by run, the spread and the band per step."""
    import csv

    runs = repeat.runs
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", *(f"run_{i + 1}" for i in range(len(runs))), "spread"])
        spread = repeat.spread
        for k in range(max(len(r) for r in runs)):
            writer.writerow([k + 1, *(repr(r[k]) if k < len(r) else "" for r in runs),
                             repr(spread[k]) if k < len(spread) else ""])
    return Path(path)


def outside_by(repeat: Repeat, migrated: Sequence[float], *, rtol: float, atol: float) -> float:
    """How far the migrated losses lie outside the band at most (0 inside; inf for a missing or non-finite loss)."""
    worst = 0.0
    for k, (low, high) in enumerate(band(repeat, rtol=rtol, atol=atol)):
        if k >= len(migrated) or not math.isfinite(migrated[k]) or not math.isfinite(low) or not math.isfinite(high):
            return math.inf
        worst = max(worst, low - migrated[k], migrated[k] - high)
    return worst


def causes(static: Sequence[str], logs: Sequence[str], child_steps: Sequence[int], steps: int) -> tuple[str, ...]:
    """The causes to name: those seen in the script, confirmed by the runs where a run can confirm them."""
    out = []
    for cause in static:
        if cause.startswith(SHARED_MEMORY) and not any(c > steps for c in child_steps):
            continue  # share_memory() in the code, but no two processes trained in these runs
        out.append(cause)
    ops = sorted({m.group(1) for log in logs for m in _DETERMINISM_WARNING.finditer(log or "")})
    if ops:
        out.append(f"{NONDETERMINISTIC_OPS}: {', '.join(ops)}")
    return tuple(out)


def static_causes(script: Path) -> tuple[str, ...]:
    """Causes of nondeterminism visible in the original's code: the script and the modules next to it
    that it imports (pytorch/examples' mnist_hogwild trains in `train.py`)."""
    found: list[str] = []
    shared, processes, loaders = [], [], []
    queue, seen = [Path(script)], set()
    while queue and len(seen) < MAX_SCANNED_FILES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        try:
            tree = parse_python(path.read_text(encoding="utf-8-sig", errors="replace"))
        except (OSError, ValueError):
            continue
        if tree is None:
            continue
        queue += [p for p in _sibling_imports(tree, path.parent) if p not in seen]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            where = f"{path.name}:{node.lineno}"
            if name == "share_memory":
                shared.append(where)
            elif name in ("Process", "spawn", "start_processes", "Pool"):
                processes.append(where)
            elif name == "DataLoader" and _unseeded_workers(node, tree):
                loaders.append(where)
    if shared and processes:
        found.append(f"{SHARED_MEMORY} (share_memory() at {', '.join(shared[:3])}; processes started at "
                     f"{', '.join(processes[:3])}; their updates interleave without a lock)")
    if loaders:
        found.append(f"{DATALOADER} ({', '.join(loaders[:3])}: num_workers without generator= or worker_init_fn=)")
    return tuple(found)


def _sibling_imports(tree: ast.AST, folder: Path) -> list[Path]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module.split(".")[0])
    return [folder / f"{n}.py" for n in dict.fromkeys(names) if (folder / f"{n}.py").is_file()]


def _unseeded_workers(call: ast.Call, tree: ast.AST) -> bool:
    names = {k.arg for k in call.keywords}
    if names & {"generator", "worker_init_fn"}:
        return False
    for k in call.keywords:
        if k.arg == "num_workers":
            return not (isinstance(k.value, ast.Constant) and k.value.value == 0)
    if None in names:  # DataLoader(..., **kwargs): workers when the file sets a non-zero num_workers key
        return any(isinstance(n, ast.Dict) and any(isinstance(key, ast.Constant) and key.value == "num_workers"
                                                   and not (isinstance(v, ast.Constant) and v.value == 0)
                                                   for key, v in zip(n.keys, n.values))
                   for n in ast.walk(tree))
    return False


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _range(values: Sequence[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) != len(values):
        return 0.0 if all(math.isnan(v) for v in values) else math.inf
    return max(finite) - min(finite)


def _same(a: Sequence[float], b: Sequence[float]) -> bool:
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))
