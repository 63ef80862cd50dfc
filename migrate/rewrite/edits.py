"""The one edit applier: a finding's edits are taken whole or not at all.

Used by apply and by the rule-example tests. Linear in the number of findings: spans already taken
are kept sorted (findings arrive in source order, so each new span lands at the end), and each
change's before/after text is cut from the finding's own lines, never from the whole file.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable

from migrate.context import split_lines
from migrate.findings import Finding
from migrate.rewrite.model import Change


class _Taken:
    """Character spans of the edits accepted so far, sorted; ends never decrease along the list
    because accepted spans do not overlap."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []
        self.replacement: dict[tuple[int, int], str] = {}

    def clashes(self, start: int, end: int, replacement: str) -> bool:
        index = bisect_right(self.spans, (end, end)) - 1
        while index >= 0 and self.spans[index][1] >= start:
            span = self.spans[index]
            if span == (start, end) and self.replacement[span] == replacement:
                pass  # the same edit proposed twice: applied once
            elif start < span[1] and span[0] < end or start == end == span[0] == span[1]:
                return True
            index -= 1
        return False

    def add(self, start: int, end: int, replacement: str) -> None:
        if (start, end) not in self.replacement:
            insort(self.spans, (start, end))
            self.replacement[(start, end)] = replacement


def apply_findings(text: str, findings: Iterable[Finding]) -> tuple[str, list[Change], list[Finding]]:
    """Apply the fixable findings' edits, in source order, each finding whole or not at all (none
    of its edits may overlap an edit already taken; an identical edit is applied once). Returns the
    new text, one `Change` per finding applied, and the fixable findings skipped for a clash."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def absolute(line: int, column: int) -> int:
        return len(text) if line > len(lines) else offsets[line - 1] + column

    taken = _Taken()
    accepted: list[tuple[Finding, list[tuple[int, int, str]]]] = []
    skipped: list[Finding] = []
    for finding in sorted((f for f in findings if f.fixable and f.edits), key=lambda f: f.sort_key):
        spans = [(absolute(e.line, e.column), absolute(e.end_line, e.end_column), e.replacement) for e in finding.edits]
        if any(taken.clashes(*span) for span in spans):
            skipped.append(finding)
            continue
        for span in spans:
            taken.add(*span)
        accepted.append((finding, spans))
    if not accepted:
        return text, [], skipped
    new_text = _splice(text, [(s, e, taken.replacement[(s, e)]) for s, e in taken.spans])
    changes = [_change(finding, spans, text, lines, offsets) for finding, spans in accepted]
    return new_text, changes, skipped


def _splice(text: str, spans: list[tuple[int, int, str]]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start, end, replacement in spans:  # sorted, not overlapping
        pieces.append(text[cursor:start])
        pieces.append(replacement)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


# A change on a very long line (minified or generated code: thousands of findings on one line) shows
# the edited region with this much context, not the whole line each time (that would be quadratic).
_LONG_SEGMENT = 1000
_CONTEXT = 80


def _change(finding: Finding, spans, text: str, lines: list[str], offsets: list[int]) -> Change:
    """The finding's lines before and after its own edits (the other findings' edits not applied)."""
    first = min(e.line for e in finding.edits)
    last = max(e.end_line for e in finding.edits)
    base = offsets[first - 1]
    segment_end = offsets[min(last, len(lines))]
    if segment_end - base > _LONG_SEGMENT:
        return _clipped_change(finding, first, last, spans, text, base, segment_end)
    before = "".join(lines[first - 1 : last]).rstrip("\r\n")
    local = sorted({(s - base, e - base, r) for s, e, r in spans})
    tail = _splice(text[base:segment_end], local)
    following = min(last, len(lines))
    while tail and not tail.endswith(("\n", "\r")) and following < len(lines):
        tail += lines[following]  # an edit removed a line end: the next line joins this one
        following += 1
    tail_lines = split_lines(tail)
    after = "".join(tail_lines[: len(tail_lines) - (following - min(last, len(lines)))]).rstrip("\r\n")
    return Change(finding.path, first, last, finding.code, before, after, finding.cell)


def _clipped_change(finding: Finding, first: int, last: int, spans, text: str, base: int, segment_end: int) -> Change:
    left = max(base, min(s for s, _, _ in spans) - _CONTEXT)
    right = min(segment_end, max(e for _, e, _ in spans) + _CONTEXT)
    core = text[left:right]
    edited = _splice(core, sorted({(s - left, e - left, r) for s, e, r in spans}))
    head = "…" if left > base else ""
    tail = "…" if text[right:segment_end].strip("\r\n") else ""
    before = head + (core if tail else core.rstrip("\r\n")) + tail
    after = head + (edited if tail else edited.rstrip("\r\n")) + tail
    return Change(finding.path, first, last, finding.code, before, after, finding.cell)
