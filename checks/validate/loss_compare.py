"""Per-step loss alignment of two runs: errors, tolerances by precision, the CSV (the plot: loss_plot.py).

No torch import.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path


def _tolerance_data() -> dict:
    """migrate/knowledge/loss_tolerances.toml: the tolerances with their source (or the lack of one)."""
    from migrate.knowledge import read_toml

    return read_toml("loss_tolerances.toml")


# (rtol, atol) per loss precision (GPU vs NPU); overridable with --rtol/--atol
DEFAULT_TOLERANCES = {k: (float(v["rtol"]), float(v["atol"])) for k, v in _tolerance_data()["dtype"].items()}
EXACT = (float(_tolerance_data()["same_cpu"]["rtol"]), float(_tolerance_data()["same_cpu"]["atol"]))


def tolerance_source(dtype: str | None, *, exact: bool) -> str:
    """Where the default tolerance of this pairing comes from, as the data file says it."""
    data = _tolerance_data()
    entry = data["same_cpu"] if exact else data["dtype"].get(normalise_dtype(dtype), data["dtype"]["float32"])
    return str(entry["source"]) + (f"; related: {entry['related']}" if entry.get("related") else "")


def normalise_dtype(dtype: str | None) -> str:
    text = (dtype or "float32").lower().removeprefix("torch.")
    return {"half": "float16", "fp16": "float16", "bf16": "bfloat16", "float": "float32", "fp32": "float32",
            "double": "float64"}.get(text, text)


def compute_dtype(loss_dtype: str | None, *regions) -> tuple[str, str]:
    """The dtype whose tolerance judges the losses, and why: the loss's own, or the lowest precision an autocast
    region of either run computed in (an AMP loss is float32, on autocast's float32 list, while the network computed
    in float16: the differences across hardware are float16's). `regions`: each run's (policy, dtype, count)
    tuples (checks.validate.run.RunInfo.autocast_regions); regions the policy disabled ("float32") do not count."""
    own = normalise_dtype(loss_dtype)
    dtype, why = own, ""
    for run in regions:
        for policy, name, count in run or ():
            key = normalise_dtype(name)
            if policy == "float32" or not count or key not in DEFAULT_TOLERANCES:
                continue
            if DEFAULT_TOLERANCES[key][0] > DEFAULT_TOLERANCES.get(dtype, DEFAULT_TOLERANCES["float32"])[0]:
                dtype, why = key, f"the runs computed in {key} autocast regions (the loss itself is {own})"
    return dtype, why


def tolerances(dtype: str | None, *, exact: bool, rtol: float | None = None, atol: float | None = None) -> tuple[float, float, str]:
    """(rtol, atol, why). `exact`: both runs on the same CPU, so a correct rewrite gives identical numbers."""
    if exact:
        base, why = EXACT, "identical losses required: both runs are on the CPU (equivalence check of the rewrite)"
    else:
        key = normalise_dtype(dtype)
        base = DEFAULT_TOLERANCES.get(key, DEFAULT_TOLERANCES["float32"])
        why = f"default tolerances for {key} losses"
    r = base[0] if rtol is None else rtol
    a = base[1] if atol is None else atol
    if rtol is not None or atol is not None:
        why = "tolerances from --rtol/--atol" + (f" (others: {why})" if rtol is None or atol is None else "")
    return r, a, why


@dataclass(frozen=True)
class LossRow:
    step: int  # 1-based, as in smoke's table: step k's loss is computed before the k-th optimizer update
    baseline: float | None
    migrated: float | None
    abs_err: float | None
    rel_err: float | None
    within: bool


@dataclass(frozen=True)
class LossAlignment:
    rows: tuple[LossRow, ...]
    rtol: float
    atol: float
    tolerance_note: str
    first_divergence: int | None  # index into rows of the first row out of tolerance (or present on one side only)
    max_abs_err: float
    max_rel_err: float

    @property
    def first_divergence_step(self) -> int | None:
        """The (1-based) step of the first divergence, as losses.csv and smoke's table number it."""
        return None if self.first_divergence is None else self.rows[self.first_divergence].step

    @property
    def aligned(self) -> bool:
        return self.first_divergence is None and bool(self.rows)

    @property
    def identical(self) -> bool:
        return bool(self.rows) and all(r.abs_err == 0.0 or (r.baseline is not None and r.migrated is not None
                                                             and math.isnan(r.baseline) and math.isnan(r.migrated))
                                       for r in self.rows)


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(a)


def align_losses(baseline: list[float], migrated: list[float], *, rtol: float, atol: float, note: str = "",
                 band=None) -> LossAlignment:
    """band: (low, high) per step where the migrated loss must lie (an original that does not repeat
    itself: checks/validate/repeat.py) in place of the tolerance around the baseline's value."""
    rows, first, max_abs, max_rel = [], None, 0.0, 0.0
    for step in range(max(len(baseline), len(migrated))):
        b = float(baseline[step]) if step < len(baseline) else None
        m = float(migrated[step]) if step < len(migrated) else None
        if b is None or m is None:
            rows.append(LossRow(step + 1, b, m, None, None, False))
        else:
            abs_err = abs(m - b) if not (math.isnan(m) or math.isnan(b)) else (0.0 if math.isnan(m) and math.isnan(b) else math.nan)
            rel_err = abs_err / abs(b) if b not in (0.0,) and not math.isnan(abs_err) else (0.0 if abs_err == 0 else math.inf)
            within = _close(b, m, rtol, atol)
            if band is not None and step < len(band):
                within = within or band[step][0] <= m <= band[step][1]
            rows.append(LossRow(step + 1, b, m, abs_err, rel_err, within))
            if not math.isnan(abs_err):
                max_abs = max(max_abs, abs_err)
                if not math.isinf(rel_err):
                    max_rel = max(max_rel, rel_err)
        if first is None and not rows[-1].within:
            first = step
    return LossAlignment(tuple(rows), rtol, atol, note, first, max_abs, max_rel)


def write_csv(alignment: LossAlignment, path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["step", "baseline_loss", "migrated_loss", "abs_err", "rel_err", "within_tolerance"])
        for r in alignment.rows:
            writer.writerow([r.step, _fmt(r.baseline), _fmt(r.migrated), _fmt(r.abs_err), _fmt(r.rel_err), int(r.within)])
    return Path(path)


def _fmt(value: float | None) -> str:
    return "" if value is None else repr(value)
