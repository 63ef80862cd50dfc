"""The files every rank keeps in a job's report folder, read by the parent (never imports torch).

Each rank (a torchrun rank, checks.child.dist_child.attach; or an mp.spawn rank, attach_spawned) writes
`rank{R}.json` (its smoke report), `rank{R}.dist.json` (rank, world size, fingerprint),
`rank{R}.progress` (pid and steps, rewritten at every step) and on SIGUSR1 `rank{R}.stack`
(faulthandler). checks/distributed/run.py and checks/smoke/spawn_ranks.py read them here.
"""
from __future__ import annotations

import glob
import json
import os
import re
import signal
import time

STACK_WAIT_S = 5.0


def read_progress(report_dir: str) -> dict[str, tuple[int, int]]:
    out = {}
    for path in glob.glob(os.path.join(report_dir, "*.progress")):
        try:
            with open(path, encoding="utf-8") as f:
                pid, steps = f.read().split()[:2]
            out[os.path.basename(path)[: -len(".progress")]] = (int(pid), int(steps))
        except (OSError, ValueError):
            continue
    return out


def read_reports(report_dir: str, suffix: str = ".json") -> dict[str, dict]:
    """NAME -> parsed JSON of every NAME{suffix} in the folder (the ranks' smoke reports, or with
    suffix ".dist.json" what checks/child/dist_child.py adds per rank)."""
    out = {}
    for path in glob.glob(os.path.join(report_dir, "*" + suffix)):
        name = os.path.basename(path)[: -len(suffix)]
        if suffix == ".json" and name.endswith(".dist"):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                out[name] = json.load(f)
        except (OSError, ValueError):
            continue
    return out


def child_report(data):
    """The rank's report as `judge` takes it (checks.launch.report.ChildReport), None when unreadable."""
    if data is None:
        return None
    from checks.launch.report import ChildReport

    try:
        return ChildReport.from_json(data)
    except ValueError:
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:  # a zombie is not alive
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except ProcessLookupError:  # reaped between the kill(0) and the read
        return False
    except OSError:
        return True


# The main thread's oldest frame, written last of its block: the bootstrap under torchrun, the
# `python -c` of multiprocessing's spawn in a rank the script spawned itself.
MAIN_THREAD_ROOTS = ("bootstrap.py", "<string>")
_MAIN_DONE = re.compile(r'(?:bootstrap\.py|<string>)", line \d+ in <module>\n')


def request_stacks(report_dir: str, progress: dict) -> dict[str, str]:
    """SIGUSR1 to every live rank; faulthandler writes its threads' stacks to NAME.stack.

    faulthandler writes a dump thread by thread, and a loaded machine can show us half of one: a
    rank's text is taken once its main thread (the one whose oldest frame is the bootstrap) is
    complete; at the deadline whatever a rank wrote is taken as it is."""
    asked = []
    for name, (pid, _) in progress.items():
        if alive(pid):
            try:
                os.kill(pid, signal.SIGUSR1)
                asked.append(name)
            except (ProcessLookupError, PermissionError):
                pass
    stacks: dict[str, str] = {}
    deadline = time.monotonic() + STACK_WAIT_S
    while asked:
        last_try = time.monotonic() >= deadline
        for name in list(asked):
            try:
                with open(os.path.join(report_dir, name + ".stack"), encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                text = ""
            if _MAIN_DONE.search(text) or (last_try and "File " in text):
                stacks[name] = text
                asked.remove(name)
        if last_try:
            break
        time.sleep(0.05)
    return stacks
