"""Baseline of accepted findings: matched by path, code and the text of the flagged line, not by
line number, so unrelated edits above a finding do not make it new again."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import replace

from migrate import fileio
from migrate.findings import FileResult, Finding, ScanResult

VERSION = 1


def _line_text(f: Finding) -> str:
    try:
        with open(f.path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if number == f.line:
                    return line.strip()
    except OSError:
        pass
    return ""


def fingerprint(f: Finding) -> str:
    text = f"{f.path}|{f.cell}|{f.code}|{_line_text(f)}"
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def exists(path: str) -> bool:
    return os.path.exists(path)  # anything there is read (and refused unless it is a regular file)


def _regular_or_absent(path: str) -> None:
    """A baseline is a regular file: a device, FIFO or folder in its place is never read or replaced."""
    if os.path.exists(path) and not os.path.isfile(path):
        raise ValueError(f"cannot use baseline {path}: not a regular file")


def write(path: str, findings: list[Finding]) -> None:
    _regular_or_absent(path)
    entries = [{"fingerprint": fingerprint(f), "path": f.path, "code": f.code, "line": f.line, "message": f.message} for f in findings]
    fileio.atomic_write(path, json.dumps({"version": VERSION, "findings": entries}, indent=1) + "\n")


def read(path: str) -> Counter:
    _regular_or_absent(path)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return Counter(entry["fingerprint"] for entry in data["findings"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot read baseline {path}: {exc}") from None


def new_findings(findings: list[Finding], known: Counter) -> list[Finding]:
    remaining = Counter(known)
    out = []
    for f in findings:
        key = fingerprint(f)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            out.append(f)
    return out


def only(result: ScanResult, keep: list[Finding]) -> ScanResult:
    keep_ids = {id(f) for f in keep}
    files = tuple(
        FileResult(r.path, r.kind, r.lines, tuple(f for f in r.findings if id(f) in keep_ids), r.errors, r.suppressed)
        for r in result.files
    )
    return replace(result, files=files)
