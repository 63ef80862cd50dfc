"""losses.svg: the loss curves of both runs and their difference per step, as an SVG file, stdlib only.

What the plot shows (what validate's matplotlib PNG showed, without importing matplotlib in the command:
about 1.1 s of every validate): a title with the tolerances; the upper panel one line per run (baseline
solid, migrated dashed) with a legend above it; the lower panel migrated - baseline with its zero line; a red dotted
line at the first step out of tolerance in both; a few rounded ticks on each axis, whole steps on x. A
missing or non-finite loss breaks its line. summary.md links the file, summary.html embeds it.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

WIDTH, HEIGHT = 720, 540
LEFT, RIGHT = 78, 16  # margins around both panels
TOP_PANEL = (56, 318)  # y of the upper panel's top and bottom edges
BOTTOM_PANEL = (346, 488)
MARKERS_UP_TO = 60  # points per line drawn with a marker; longer runs: the line only
COLOURS = ("#1f77b4", "#ff7f0e")


def ticks(low: float, high: float, count: int = 5, *, whole: bool = False) -> list[float]:
    """About `count` round values (1, 2 or 5 times a power of ten) covering [low, high]."""
    if not high > low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in ((1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)) if m * power >= raw)
    if whole:
        step = max(1.0, float(round(step)))
    first = math.ceil(low / step - 1e-9)
    return [round(i * step, 12) for i in range(first, math.floor(high / step + 1e-9) + 1)]


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _span(values: list[float]) -> tuple[float, float]:
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (high - low) * 0.06 or abs(high) * 0.06 or 1.0
    return low - pad, high + pad


def _panel(out: list[str], steps: list[int], lines, y_range: tuple[int, int], label: str, x_span, diverged: int | None,
           *, zero: bool = False, x_ticks: bool = False) -> None:
    """One panel: frame, ticks, the lines ((values, colour, dashed, marker)), optional zero and divergence lines."""
    top, bottom = y_range
    values = [v for ys, *_ in lines for v in ys if _finite(v)] + ([0.0] if zero else [])
    y_low, y_high = _span(values)
    x_low, x_high = x_span

    def x(step: float) -> float:
        return LEFT + (step - x_low) / (x_high - x_low) * (WIDTH - LEFT - RIGHT)

    def y(value: float) -> float:
        return bottom - (value - y_low) / (y_high - y_low) * (bottom - top)

    out.append(f'<rect x="{LEFT}" y="{top}" width="{WIDTH - LEFT - RIGHT}" height="{bottom - top}" fill="none" stroke="#444"/>')
    for value in ticks(y_low, y_high):
        if y_low <= value <= y_high:
            out.append(f'<line x1="{LEFT - 4}" x2="{LEFT}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#444"/>'
                       f'<text x="{LEFT - 7}" y="{y(value) + 4:.1f}" text-anchor="end">{value:.4g}</text>')
    if x_ticks:
        for step in ticks(x_low, x_high, 8, whole=True):
            if x_low <= step <= x_high:
                out.append(f'<line x1="{x(step):.1f}" x2="{x(step):.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#444"/>'
                           f'<text x="{x(step):.1f}" y="{bottom + 17}" text-anchor="middle">{step:g}</text>')
    middle = (top + bottom) / 2
    out.append(f'<text x="16" y="{middle:.1f}" text-anchor="middle" transform="rotate(-90 16 {middle:.1f})">{escape(label)}</text>')
    if zero:
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(0.0):.1f}" y2="{y(0.0):.1f}" stroke="#999" stroke-width="0.5"/>')
    if diverged is not None:
        out.append(f'<line x1="{x(diverged):.1f}" x2="{x(diverged):.1f}" y1="{top}" y2="{bottom}" stroke="red" '
                   'stroke-opacity="0.5" stroke-dasharray="2 3"/>')
    for ys, colour, dashed, marker in lines:
        segment: list[str] = []
        for step, value in [*zip(steps, ys), (None, None)]:  # the sentinel ends the last segment
            if _finite(value):
                segment.append(f"{x(step):.1f},{y(value):.1f}")
                continue
            if segment:
                dash = ' stroke-dasharray="6 4"' if dashed else ""
                out.append(f'<polyline points="{" ".join(segment)}" fill="none" stroke="{colour}" stroke-width="1.5"{dash}/>')
            segment = []
        if marker and len(steps) <= MARKERS_UP_TO:
            out += [f'<circle cx="{x(s):.1f}" cy="{y(v):.1f}" r="2.2" fill="{colour}"/>'
                    for s, v in zip(steps, ys) if _finite(v)]


def plot(alignment, path: Path, *, labels: tuple[str, str] = ("baseline", "migrated")) -> Path:
    """Write the SVG of a loss alignment (checks.validate.loss_compare.LossAlignment) to `path`."""
    rows = alignment.rows
    steps = [r.step for r in rows]
    x_span = (min(steps) - 0.5, max(steps) + 0.5) if steps else (0.0, 1.0)
    diverged = alignment.first_divergence_step
    diffs = [r.migrated - r.baseline if _finite(r.migrated) and _finite(r.baseline) else None for r in rows]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{WIDTH / 2:.0f}" y="24" text-anchor="middle" font-size="14">loss per step '
           f'(rtol={alignment.rtol:g}, atol={alignment.atol:g})</text>']
    _panel(out, steps, [([r.baseline for r in rows], COLOURS[0], False, True), ([r.migrated for r in rows], COLOURS[1], True, True)],
           TOP_PANEL, "loss", x_span, diverged)
    _panel(out, steps, [(diffs, "black", False, True)], BOTTOM_PANEL, "migrated - baseline", x_span, diverged,
           zero=True, x_ticks=True)
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 14}" text-anchor="middle">step</text>')
    x = LEFT  # the legend, one row between the title and the upper panel: it never covers a line
    for i, (label, colour) in enumerate(zip(labels, COLOURS)):
        dash = ' stroke-dasharray="6 4"' if i else ""
        out.append(f'<line x1="{x}" x2="{x + 28}" y1="40" y2="40" stroke="{colour}" stroke-width="1.5"{dash}/>'
                   f'<text x="{x + 34}" y="44">{escape(label)}</text>')
        x += 60 + 7 * len(label)
    out.append("</svg>\n")
    Path(path).write_text("\n".join(out), encoding="utf-8")
    return Path(path)
