"""The top-level guard: anything that escapes a command becomes exit 2 and one line on stderr.

Exit 1 means "findings" or "failed verdict", so a crash must never look like it. With `--debug`
(or NPU_MIGRATE_DEBUG=1) the full traceback is printed as well.
"""

from __future__ import annotations

import os
import sys
import traceback

DEBUG_FLAG = "--debug"


def split_debug(argv: list[str]) -> tuple[list[str], bool]:
    """Remove `--debug` from the options (not from a script's arguments after `--`)."""
    end = argv.index("--") if "--" in argv else len(argv)
    debug = DEBUG_FLAG in argv[:end] or os.environ.get("NPU_MIGRATE_DEBUG", "") not in ("", "0")
    return [a for i, a in enumerate(argv) if i >= end or a != DEBUG_FLAG], debug


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {os.path.basename(last.filename)}:{last.lineno})"


def crash_exit(exc: BaseException, debug: bool) -> int:
    if isinstance(exc, BrokenPipeError):
        # the reader of our output went away (`npu-migrate analyze . | head`): nothing more to say
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 2
    if isinstance(exc, MemoryError):
        summary = "out of memory"
    elif isinstance(exc, RecursionError):
        summary = "input nested too deeply (RecursionError)"
    else:
        summary = f"{type(exc).__name__}: {exc}".splitlines()[0][:300] if str(exc) else type(exc).__name__
    if debug:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    hint = "" if debug else "; run again with --debug for the traceback"
    try:
        print(f"npu-migrate: internal error: {summary}{_where(exc)}{hint}. Please report it.", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 2
