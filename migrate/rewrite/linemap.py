"""Where a line of apply's input ended up in its output.

apply's rule edits never add or remove lines, but its codemods do (the torch_npu imports, the
ConfigChecker hooks), so a manual item at line 191 of the input may be at line 196 of the file the
user opens and edits. `output_line` maps it with a line diff of the two texts.
"""
from __future__ import annotations

import difflib


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


def output_line(original: bytes, output: bytes, line: int) -> int:
    """The 1-based line of `output` that holds line `line` of `original` (or its rewritten form)."""
    if original == output:
        return line
    matcher = difflib.SequenceMatcher(None, _lines(original), _lines(output), autojunk=False)
    index = line - 1
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 <= index < i2:
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                return j1 + (index - i1) + 1
            return min(j1 + (index - i1), max(j2 - 1, j1)) + 1
    return line
