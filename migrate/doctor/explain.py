"""`npu-migrate doctor --explain LOG`: known error messages and codes found in a log.

The table is data (migrate/knowledge/explain.toml, a source per entry; torch_npu's ERRxxyyy codes
from data/torch_npu_err_codes.json, generated from the wheel; numeric ACL / aclnn / HCCL / dcmi codes
through migrate.doctor.codes). The same matcher decodes the
failure of the doctor's own `import torch_npu` probe.
"""
from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from migrate.doctor import codes

try:  # Python >= 3.11
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover
    import tomli as _toml  # type: ignore[no-redef]

_KNOWLEDGE = "migrate.knowledge"
_ERR_CODE = re.compile(r"ERR(\d{2})(\d{3})\b")


@dataclass(frozen=True)
class KnownError:
    id: str
    patterns: tuple[str, ...]  # any may match
    explanation: str
    fix: str
    source: dict
    context: str | None = None  # the matching line must also match this
    # on a multi-rank run, usually the effect of another rank's failure (a timeout waiting for it):
    # `doctor --explain DIR` names a rank with only these as a consequence, not the first failure
    consequence: bool = False

    @property
    def pattern(self) -> str:
        return "|".join(f"(?:{p})" for p in self.patterns)


@dataclass(frozen=True)
class Match:
    """One known error found in a log: the entry, the first line it matched, and how often."""

    id: str
    line_no: int
    line: str
    count: int
    explanation: str
    fix: str
    source: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@functools.lru_cache(maxsize=1)
def known_errors() -> tuple[KnownError, ...]:
    text = resources.files(_KNOWLEDGE).joinpath("explain.toml").read_text(encoding="utf-8")
    return tuple(KnownError(id=e["id"], explanation=e["explanation"], fix=e["fix"],
                            patterns=tuple([e["pattern"]] if isinstance(e["pattern"], str)
                                           else e["pattern"]),
                            source=dict(e["source"]), context=e.get("context"),
                            consequence=bool(e.get("consequence", False)))
                 for e in _toml.loads(text)["error"])


@functools.lru_cache(maxsize=1)
def err_codes() -> dict:
    text = resources.files(_KNOWLEDGE).joinpath("data", "torch_npu_err_codes.json").read_text(
        encoding="utf-8")
    return json.loads(text)


def source_text(source: dict) -> str:
    if source.get("kind") == "docs":
        return source["url"]
    return f"{source.get('kind')}: {source.get('file')}"


def decode_err_code(code: str) -> str | None:
    """'ERR02200' -> 'DIST: call hccl api failed' (None for an unknown code)."""
    match = _ERR_CODE.fullmatch(code) or _ERR_CODE.search(code)
    if not match:
        return None
    table = err_codes()
    sub = table["submodules"].get(match.group(1))
    err = table["codes"].get(match.group(2))
    if sub is None or err is None:
        return None
    return f"{sub}: {err['message']}"


@functools.lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[KnownError, tuple[re.Pattern, ...], re.Pattern | None], ...]:
    return tuple((e, tuple(re.compile(p) for p in e.patterns),
                  re.compile(e.context) if e.context else None) for e in known_errors())


def explain(text: str) -> list[Match]:
    """Every known error in `text`, in the order of first appearance. Each pattern scans the whole
    text once (in C); only the few hits are mapped back to their line."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_at(pos: int) -> tuple[int, str]:
        idx = bisect.bisect_right(starts, pos) - 1
        stop = starts[idx + 1] - 1 if idx + 1 < len(starts) else len(text)
        return idx + 1, text[starts[idx]:stop]

    found: dict[str, list] = {}
    hand_lines: set[int] = set()
    for entry, regexes, context in _compiled():
        seen: set[int] = set()
        for regex in regexes:
            for hit in regex.finditer(text):
                no, line = line_at(hit.start())
                if no in seen or (context is not None and not context.search(line)):
                    continue
                seen.add(no)
                hand_lines.add(no)
                _add(found, entry.id, no, line, entry.explanation, entry.fix,
                     source_text(entry.source))
    for hit in _ERR_CODE.finditer(text):
        code = hit.group(0)
        if hit.group(2) == "000" or decode_err_code(code) is None:  # 000 is "success"
            continue
        no, line = line_at(hit.start())
        _add(found, code, no, line,
             f"torch_npu error code {code} = {decode_err_code(code)} (ERR + 2-digit submodule + "
             f"3-digit error).",
             "read the lines just above it for the underlying message or CANN code (E?????); "
             "those are explained separately when known.", err_codes()["source"])
    for regex in (codes.ACL_CODE, codes.HCCL_CODE, codes.DCMI_CODE):
        for hit in regex.finditer(text):
            no, line = line_at(hit.start())
            if no in hand_lines:  # a hand-written entry already explains this line
                continue
            for info in codes.find(line):
                _add(found, f"{info.family} {info.code}", no, line,
                     f"{info.family} code {info.code} = {info.name}: {info.meaning}", info.fix,
                     info.source)
    matches = [Match(id=k, line_no=v[0], line=v[1].strip()[:300], count=v[2], explanation=v[3],
                     fix=v[4], source=v[5]) for k, v in found.items()]
    return sorted(matches, key=lambda m: (m.line_no, m.id))


def _add(found: dict, key: str, no: int, line: str, explanation: str, fix: str, source: str):
    if key not in found:
        found[key] = [no, line, 1, explanation, fix, source]
        return
    found[key][2] += 1
    if no < found[key][0]:  # patterns of one entry scan separately: keep the first line
        found[key][0], found[key][1] = no, line
