"""On a real NPU: msprof-analyze advisor's fused-API answers turned into `fusion` findings at your lines.

The advisor (26.2.0, `advisor/analyzer/schedule/fusion_ops/fusion_ops_analyzer.py`) matches its fusion
rules on the NPU trace and records, per fused API, each Python call stack that issued the matched ops
with its count: a detail table with the headers `Affinity API`, `Code stacks`, `Stack called counts`
(`make_record`), which its result writer (`advisor/result/result.py`, xlsxwriter) puts in a sheet of
`log/mstt_advisor_<timestamp>.xlsx`: header row, then one row per stack. A stack is the trace's
`Call stack`: frames `path(line): function`, innermost first, separated by `;` and line breaks (the
sample output saved in the wheel's `advisor/fusion_operators_api_analysis.ipynb` shows them so).

Each row becomes one finding at the innermost frame inside the script's folder (the user's line; a row
whose stack never enters it is left to the advisor's own report), so `--fail-on fusion` gates the
advisor's answers as it gates the emulated ones. Parent side: no torch; openpyxl (a dependency of
msprobe) reads the workbook, and without it the rows are not read (said in the warnings).
"""
from __future__ import annotations

import os
import re

HEADERS = ("Affinity API", "Code stacks", "Stack called counts")
FRAME = re.compile(r"^(?P<path>.+?)\((?P<line>\d+)\):\s*(?P<func>.*)$")


def read_rows(xlsx: str) -> list[tuple[str, str, int]]:
    """(API, stack, count) rows of the sheet whose header row is HEADERS. Raises ImportError without
    openpyxl, OSError/ValueError for a file it cannot read."""
    from openpyxl import load_workbook

    book = load_workbook(xlsx, read_only=True, data_only=True)
    try:
        rows = []
        for sheet in book.worksheets:
            it = sheet.iter_rows(values_only=True)
            header = next(it, None)
            if not header or tuple(str(h).strip() if h is not None else "" for h in header[:3]) != HEADERS:
                continue
            for r in it:
                api, stack, count = (tuple(r) + (None, None, None))[:3]
                if api:
                    rows.append((str(api).strip(), str(stack or ""), _count(count)))
        return rows
    finally:
        book.close()


def _count(value) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return 1


def frames(stack: str) -> list[tuple[str, int, str]]:
    """(path, line, function) of each frame of a `Call stack`, innermost first."""
    out = []
    for piece in re.split(r"[;\r\n]+|<br\s*/?>", stack):
        m = FRAME.match(piece.strip())
        if m:
            out.append((m.group("path").strip(), int(m.group("line")), m.group("func").strip()))
    return out


def user_frame(stack: str, script: str):
    """The innermost frame in the script's folder (the user's code), else None. A relative frame path
    (a script started as `python tasks/train.py`) is taken from the current folder, where the run started."""
    folder = os.path.dirname(os.path.abspath(script)) + os.sep
    for path, line, _func in frames(stack):
        path = os.path.abspath(path)
        if path.startswith(folder) and "site-packages" not in path and "dist-packages" not in path:
            return path, line
    return None


def findings(rows, script: str, steps: int, version: str) -> tuple[list[tuple], int]:
    """cost.py's raw finding tuples for the rows whose stack enters the script's folder (one per line
    and API, counts summed), and how many rows did not."""
    from migrate.knowledge import read_json

    apis = read_json("data", "fusion_rules.json")["apis"]
    merged: dict = {}
    outside = 0
    for api, stack, count in rows:
        where = user_frame(stack, script)
        if where is None:
            outside += 1
            continue
        entry = merged.setdefault((where, api), {"count": 0, "stacks": []})
        entry["count"] += count
        entry["stacks"].append(stack)
    raw = []
    for ((path, line), api), e in merged.items():
        per = e["count"] / max(steps, 1)
        entry = apis.get(api, {})
        msg = (f"msprof-analyze advisor found {e['count']} call(s) in the NPU trace whose ops {api} fuses "
               f"(torch_npu {version}; its fusion rule, matched on the NPU trace)")
        advice = (entry.get("rewrite") or f"use {api}") + " (check the numerics with `npu-migrate validate`)"
        raw.append(("fusion", path, line, per, msg, advice, 0.0, api,
                    {"api": api, "source": "msprof-analyze advisor (NPU trace)", "calls": e["count"],
                     "stacks": e["stacks"][:3], "release": f"torch_npu {version}"}))
    return raw, outside
