"""The script arguments of validate's migrated run.

validate passes the same arguments to both scripts, but an argument naming a CUDA device
(`--device=cuda`, `--device cuda:1`) is a CUDA string handed to the migrated script at run time:
apply rewrote the script's own `"cuda"` defaults and its comparisons with "cuda" to "npu", so the
migrated script, given "cuda" again, takes other branches than the original on its GPU
(`device_type = "npu" if "npu" in device else "cpu"` becomes "cpu": no autocast, no fused
optimizer). A person running the migrated script on an Ascend host passes `--device=npu`; validate
does the same for the migrated run and says so. Only whole values are translated: a token that is
exactly `cuda` / `cuda:N`, or the value of `--name=cuda[:N]`; nothing else changes.
"""

from __future__ import annotations

import re

_DEVICE = re.compile(r"cuda(:\d+)?")


def _translate(value: str) -> str | None:
    match = _DEVICE.fullmatch(value)
    return None if match is None else "npu" + (match.group(1) or "")


def migrated_args(args) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(the migrated run's arguments, (old, new) for each argument changed)."""
    out: list[str] = []
    changed: list[tuple[str, str]] = []
    for arg in args:
        new = None
        if arg.startswith("-") and "=" in arg:
            name, value = arg.split("=", 1)
            value = _translate(value)
            new = None if value is None else f"{name}={value}"
        elif not arg.startswith("-"):
            new = _translate(arg)
        if new is None:
            out.append(arg)
        else:
            out.append(new)
            changed.append((arg, new))
    return tuple(out), tuple(changed)


def note(changed) -> str | None:
    if not changed:
        return None
    pairs = ", ".join(f"{old} -> {new}" for old, new in changed)
    return (f"script arguments naming a CUDA device were given to the migrated run as its NPU device ({pairs}), "
            "as a person passes them on an Ascend host; the baseline got them unchanged")
