"""Apply a finding's edits to source text (character positions, 1-based lines)."""

from __future__ import annotations

from typing import Iterable

from migrate.context import split_lines
from migrate.findings import Edit


class OverlappingEdits(ValueError):
    pass


def _offsets(lines: list[str]) -> list[int]:
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def apply_edits(source: str, edits: Iterable[Edit]) -> tuple[str, list[Edit]]:
    """Apply non-overlapping edits; an edit overlapping an earlier-accepted one is skipped.

    Returns the new text and the edits actually applied (in source order). Identical duplicate
    edits (two rules proposing the same change) are applied once.
    """
    lines = split_lines(source)
    offsets = _offsets(lines)

    def absolute(line: int, column: int) -> int:
        if line > len(lines):
            return len(source)
        return offsets[line - 1] + column

    spans = sorted({(absolute(e.line, e.column), absolute(e.end_line, e.end_column), e.replacement, e) for e in set(edits)},
                   key=lambda item: (item[0], item[1]))
    applied: list[Edit] = []
    pieces: list[str] = []
    cursor = 0
    for start, end, text, edit in spans:
        if start < cursor:
            continue  # overlaps an edit already taken
        pieces.append(source[cursor:start])
        pieces.append(text)
        cursor = end
        applied.append(edit)
    pieces.append(source[cursor:])
    return "".join(pieces), applied
