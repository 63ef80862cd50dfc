"""`npu-migrate doctor --explain DIR`: the known errors of every rank's log (and CANN plog files)
in one folder, ordered by time, with the first failing rank named and the timeouts on the other
ranks marked as its consequences.

Which rank a line belongs to, in order: its `[rankN]:` prefix (torchrun's log-line prefix), its
torch_npu `RankID:N` (`[ERROR] <time> (PID:p, Device:d, RankID:N) ERRxxxxx`), the file's path
(`rank1.log`, `rank_1/`, `worker-1`, torchrun --log-dir `attempt_0/1/stderr.log`), or the process
id (plog-<pid>_*.log and `HCCL(<pid>,python3)` lines) matched to a rank seen in another log with
that PID. Times: `2025-04-08-18:07:20.444.436` (CANN, torch_npu), `2025-04-08 18:07:20,123`
(Python logging), ISO; a line without one takes the last time printed before it in the same
stream (or, before the first, the next one). Which errors are consequences is data (`consequence = true` in explain.toml).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from migrate.doctor import explain

SUFFIXES = {".log", ".txt", ".out", ".err", ""}
MAX_BYTES = 64 * 1024 * 1024
_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[- T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6})(?:\.(\d{1,3}))?)?")
_PREFIX = re.compile(r"^\[rank(\d+)\]:")
_RANK_ID = re.compile(r"\(PID:\s*(\d+), Device:\s*\d+, RankID:\s*(\d+)\)")
_PATH_RANK = (re.compile(r"(?:^|[^a-z])(?:rank|worker)[_-]?(\d+)(?:[^0-9]|$)", re.I),
              re.compile(r"attempt_\d+/(\d+)/(?:stdout|stderr)\.log$"))
_PLOG_PID = re.compile(r"plog-(\d+)_")
_LINE_PID = re.compile(r"\b[A-Z]+\((\d+),[\w.-]+\):")  # HCCL(2717288,python3):


@dataclass(frozen=True)
class Event:
    rank: int | None
    file: str
    line_no: int
    time: str | None  # "2025-04-08 18:07:20.444436"; None: no time printed before it
    id: str
    line: str
    explanation: str
    fix: str
    source: str
    timeout: bool  # the entry is a wait on another rank (consequence = true in the data)
    role: str = ""  # "first failure", "consequence of rank N", or ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Timeline:
    events: tuple[Event, ...]
    first: Event | None
    why: str  # how the first failure was chosen, in one sentence
    files: tuple[str, ...]

    @property
    def first_rank(self) -> int | None:
        return self.first.rank if self.first else None

    def to_dict(self) -> dict:
        return {"files": list(self.files), "first_failing_rank": self.first_rank,
                "first_failure": self.first.to_dict() if self.first else None, "why": self.why,
                "events": [e.to_dict() for e in self.events]}


def parse_time(line: str) -> datetime | None:
    match = _TIME.search(line)
    if not match:
        return None
    frac = (match.group(7) or "") + (match.group(8) or "")
    try:
        return datetime(*(int(g) for g in match.groups()[:6]),
                        int(frac.ljust(6, "0")[:6]) if frac else 0)
    except ValueError:
        return None


def log_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                  and not p.name.startswith("."))


def path_rank(relative: str) -> int | None:
    for pattern in _PATH_RANK:
        match = pattern.search(relative)
        if match:
            return int(match.group(1))
    return None


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES)
    except OSError:
        return None
    if b"\0" in data[:4096]:
        return None
    return data.decode(errors="replace")


def _streams(text: str, default: int | None) -> dict[int | None, list[tuple[int, str]]]:
    """Lines grouped by rank: a `[rankN]:` prefix decides, other lines go to `default`."""
    out: dict[int | None, list[tuple[int, str]]] = {}
    for no, line in enumerate(text.splitlines(), 1):
        match = _PREFIX.match(line)
        out.setdefault(int(match.group(1)) if match else default, []).append((no, line))
    return out


def _events(rel: str, lines: list[tuple[int, str]], rank: int | None,
            timeout_ids: set[str]) -> list[Event]:
    text = "\n".join(line for _, line in lines)
    times: list[datetime | None] = []
    last = None
    for _, line in lines:
        last = parse_time(line) or last
        times.append(last)
    # a traceback printed before the stream's first time: the next time printed (torch_npu prints
    # `RuntimeError: ... error code is N` first, then `[ERROR] <time> (PID..) ERRxxxxx`)
    nxt = None
    for idx in range(len(times) - 1, -1, -1):
        if times[idx] is None:
            times[idx] = nxt
        elif parse_time(lines[idx][1]):
            nxt = times[idx]
    matches = explain.explain(text)
    # an error on the same line as a timeout (`EH9999 ... runtime result = 107020`) is that timeout
    waiting = {m.line_no for m in matches if m.id in timeout_ids}
    out = []
    for m in matches:
        idx = m.line_no - 1
        own = _RANK_ID.search(lines[idx][1])
        when = times[idx]
        out.append(Event(rank=int(own.group(2)) if own else rank, file=rel,
                         line_no=lines[idx][0], time=str(when) if when else None, id=m.id,
                         line=m.line, explanation=m.explanation, fix=m.fix, source=m.source,
                         timeout=m.id in timeout_ids or m.line_no in waiting))
    return out


def _pid_ranks(texts: dict[str, str]) -> dict[str, int]:
    pids: dict[str, int] = {}
    for text in texts.values():
        for pid, rank in _RANK_ID.findall(text):
            pids.setdefault(pid, int(rank))
    return pids


def _file_rank(rel: str, text: str, pids: dict[str, int]) -> int | None:
    rank = path_rank(rel)
    if rank is not None:
        return rank
    for pattern in (_PLOG_PID, _LINE_PID):
        match = pattern.search(Path(rel).name if pattern is _PLOG_PID else text)
        if match and match.group(1) in pids:
            return pids[match.group(1)]
    own = _RANK_ID.search(text)
    return int(own.group(2)) if own else None


def build(folder: Path) -> Timeline:
    """Read every log under `folder` (never writes); order and classify the known errors."""
    texts = {}
    for path in log_files(folder):
        text = _read(path)
        if text is not None:
            texts[str(path.relative_to(folder))] = text
    timeout_ids = {e.id for e in explain.known_errors() if e.consequence}
    pids = _pid_ranks(texts)
    events: list[Event] = []
    for rel, text in texts.items():
        for rank, lines in _streams(text, _file_rank(rel, text, pids)).items():
            events.extend(_events(rel, lines, rank, timeout_ids))
    timed = sorted((e for e in events if e.time), key=lambda e: (e.time, e.file, e.line_no))
    untimed = [e for e in events if not e.time]
    ordered = timed + untimed
    first, why = _first(ordered)
    events = _roles(ordered, first)
    first = next((e for e in events if e.role == "first failure"), None)
    return Timeline(tuple(events), first, why, tuple(texts))


def _first(ordered: list[Event]) -> tuple[Event | None, str]:
    failures = [e for e in ordered if not e.timeout]
    if failures:
        first = failures[0]
        basis = "the earliest time" if first.time else "file order (no time printed before it)"
        return first, (f"the first error that is not a timeout waiting on another rank, by "
                       f"{basis}")
    if ordered:
        return ordered[0], ("every error is a timeout waiting on another rank: the earliest one is "
                            "named; the rank that caused it may have died without a log line")
    return None, "no known error in any log"


def _roles(ordered: list[Event], first: Event | None) -> list[Event]:
    if first is None:
        return ordered
    out = []
    for e in ordered:
        if e is first:
            role = "first failure"
        elif e.timeout and first.rank is not None and e.rank != first.rank:
            role = f"consequence of rank {first.rank}"
        else:
            role = ""
        out.append(Event(**{**e.__dict__, "role": role}))
    return out
