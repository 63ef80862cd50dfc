"""What the loss curve of a smoke run says, as plain notes (never a verdict).

A smoke run is a handful of steps, so the only trend worth a remark is the unambiguous one: the loss
rose at every step (at least two rises, i.e. three or more finite losses, each higher than the one
before). A few early steps can rise on any data; a steady rise is a warning sign (a learning
rate too high for the batch size, a sign error, a wrong target). `--fake-data` is learnable
(checks/emulation/fakedata_datasets.py), so the note means the same there. It never fails the run: smoke judges
that the script trains on the NPU, not how well.

Steps are numbered from 1 everywhere (smoke's table, validate's losses.csv): step k's loss is the one
computed before the k-th optimizer update.
"""
from __future__ import annotations

import math

MIN_LOSSES = 3  # two rises in a row: one rise is noise at the start of training


def rising_note(losses) -> str | None:
    """The note for a loss that rose at every step, else None."""
    values = [float(x) for x in losses]
    if len(values) < MIN_LOSSES or not all(math.isfinite(x) for x in values):
        return None
    if all(b > a for a, b in zip(values, values[1:])):
        return (f"loss rose at every step: {values[0]:.3g} -> {values[-1]:.3g} over {len(values)} steps; "
                "a few steps can rise early in training; if it keeps rising, check the learning rate for "
                "this batch size, the loss and the targets")
    return None


def notes(losses) -> tuple[str, ...]:
    """Every note on the loss curve (for SmokeResult.notes)."""
    return tuple(n for n in (rising_note(losses),) if n)
