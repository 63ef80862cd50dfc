"""On a real NPU, after the run: the Ascend profiler's trace folders and `msprof-analyze advisor all`.

`msprof-analyze` is PyPI's `msprof-analyze` (26.2.0 read from its wheel: `msprof_analyze/cli/analyze_cli.py`,
command `advisor all`, options `-d/--profiling_path`, `-o/--output_path`, `-l/--language`); it writes
`<output>/mstt_advisor_<timestamp>.html` and `<output>/log/mstt_advisor_<timestamp>.xlsx` and prints
its findings to the terminal. It is optional: when it is not on PATH the trace is still there for it
or for MindStudio Insight. Parent side (no torch).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

ADVISOR_TIMEOUT_S = 900
TAIL_LINES = 40


def find_advisor() -> str | None:
    exe = shutil.which("msprof-analyze")
    if exe:
        return exe
    beside = os.path.join(os.path.dirname(sys.executable), "msprof-analyze")
    return beside if os.path.isfile(beside) and os.access(beside, os.X_OK) else None


def collect(trace_dir: str, ascend: dict | None, error: str | None, *, run_advisor: bool = True) -> dict:
    folders = sorted(glob.glob(os.path.join(trace_dir, "*_ascend_pt"))) if trace_dir else []
    out = {"trace_dir": trace_dir, "folders": folders, "profiler": ascend, "advisor": [], "warnings": []}
    if error:
        out["warnings"].append(f"the Ascend profiler failed: {error}")
    if not folders:
        out["warnings"].append(f"no *_ascend_pt folder under {trace_dir}: the profiler wrote no trace")
        return out
    exe = find_advisor() if run_advisor else None
    if exe is None:
        if run_advisor:
            out["warnings"].append("msprof-analyze is not installed (pip install msprof-analyze): "
                                   f"run `msprof-analyze advisor all -d {folders[0]}` later")
        return out
    for folder in folders:
        out["advisor"].append(run_one(exe, folder, os.path.join(os.path.dirname(trace_dir), "advisor",
                                                                os.path.basename(folder))))
    return out


def run_one(exe: str, folder: str, output: str) -> dict:
    os.makedirs(output, exist_ok=True)
    cmd = [exe, "advisor", "all", "-d", folder, "-o", output, "-l", "en"]
    entry = {"command": cmd, "folder": folder, "output": output}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=ADVISOR_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        entry.update(exit_code=None, error=str(exc), html=[], xlsx=[], tail="")
        return entry
    text = (proc.stdout or "") + (proc.stderr or "")
    with open(os.path.join(output, "advisor_terminal.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    entry.update(exit_code=proc.returncode,
                 html=sorted(glob.glob(os.path.join(output, "mstt_advisor_*.html"))),
                 xlsx=sorted(glob.glob(os.path.join(output, "log", "mstt_advisor_*.xlsx"))),
                 terminal=os.path.join(output, "advisor_terminal.txt"),
                 tail="\n".join(text.strip().splitlines()[-TAIL_LINES:]))
    return entry
