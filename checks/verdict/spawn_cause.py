"""The cause a spawned rank died of, first: torch.multiprocessing.spawn re-raises a rank's exception in
the parent as `ProcessRaisedException` whose message is the rank's whole traceback text, so the
reason would start with the spawn call and end, many lines later, with the rank's own error. Torch-free."""
from __future__ import annotations

import os
import re

from checks import ROOT

_HEADER = re.compile(r"-- Process (\d+) terminated with the following error:")
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)\s*$')
_OURS = os.path.join(ROOT, "checks")


def _is_user_file(path: str) -> bool:
    return not (f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}lib{os.sep}python" in path
                or path.startswith(_OURS) or path.startswith("<"))


def rank_cause(exc_type: str, message: str) -> str | None:
    """'rank N failed with Type: message (at file:line in function: code)' for a spawned rank's
    traceback, else None (not "rank N: ...": that form is the per-rank verdicts' of checks.smoke.spawn_ranks)."""
    if exc_type != "ProcessRaisedException":
        return None
    header = _HEADER.search(message or "")
    if not header:
        return None
    lines = [line for line in message[header.end():].splitlines() if line.strip()]
    if not lines:
        return None
    error = next((line.strip() for line in reversed(lines) if not line.startswith(" ") and not line.startswith("(at ")), None)
    where = None
    for i, line in enumerate(lines):
        frame = _FRAME.match(line)
        if frame and _is_user_file(frame.group(1)):
            code = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
            where = f"{frame.group(1)}:{frame.group(2)} in {frame.group(3)}: {code}".rstrip(": ")
    if not error:
        return None
    return f"rank {header.group(1)} failed with {error}" + (f" (at {where})" if where else "")
