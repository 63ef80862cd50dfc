"""The top-level guard: anything that escapes a command becomes exit 2 and one line on stderr.

Exit 1 means "findings" or "failed verdict", so a crash must never look like it. With `--debug`
(or NPU_MIGRATE_DEBUG=1) the full traceback is printed as well.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import traceback

DEBUG_FLAG = "--debug"
# the signals that end a command the way Ctrl-C does: its children killed, its temp files removed, its
# partial result written, exit status 128 + the signal's number (130, 143, 129) as shells expect
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """A signal ended the command. A KeyboardInterrupt, so every `except KeyboardInterrupt` and
    `except BaseException` clean-up path (the runners kill their process trees there) runs for
    SIGTERM and SIGHUP as it does for Ctrl-C. A runner may attach the result it has so far as
    `partial` before re-raising."""

    def __init__(self, signum: int):
        self.signum = signum
        self.partial = None
        super().__init__(signal_name(signum))

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def exit_status(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C, 128 + N for the signal that raised `exc` (an Interrupted)."""
    return getattr(exc, "exit_status", 128 + signal.SIGINT)


_on_interrupt: list = []


def on_interrupt(fn) -> None:
    """Call fn() when a signal interrupts the command, before Interrupted unwinds anything: the runners
    end their process trees there (checks/launch/process.py), including runs that a background thread waits
    for (validate runs its two sides in threads), so no temp folder is removed under a live run."""
    if fn not in _on_interrupt:
        _on_interrupt.append(fn)


@contextlib.contextmanager
def signals_interrupt():
    """SIGINT, SIGTERM and SIGHUP raise Interrupted in the main thread while the block runs. Only the
    first signal raises: a second one (Ctrl-C pressed twice, `timeout` sending TERM again) is ignored so
    that the clean-up it would interrupt finishes (it takes at most a few seconds: checks/launch/process.py).
    A signal the caller ignores (SIG_IGN, as `nohup` sets SIGHUP) stays ignored. Outside the main
    thread (a test runner's thread) nothing changes."""
    fired: list[int] = []

    def handler(signum, frame):
        if fired:
            return
        fired.append(signum)
        for fn in list(_on_interrupt):
            try:
                fn()
            except Exception:  # noqa: BLE001 - the next clean-up and the exit still come
                pass
        raise Interrupted(signum)

    previous = {}
    try:
        for sig in ENDING_SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


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
