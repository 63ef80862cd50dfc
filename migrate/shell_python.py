"""Python inside a launcher: `python -c "import torch; torch.cuda.set_device(0)"` in a shell script
or a YAML job file is Python code like any other, analysed by the Python rules and reported at its
place in the launcher (line of the snippet; columns shifted on the snippet's first line).

The snippet is read, never run. Findings from it are never fixable by `apply` (the rewrite edits
Python files; the quoted snippet would need shell quoting kept intact), so each is reported for a
person to change.
"""

from __future__ import annotations

import dataclasses
import re

# `python`, `python3`, `python3.11`, `/usr/bin/python3`, with options before `-c`, then one quoted argument
_INLINE = re.compile(
    r"""(?<![\w.-])(?:[\w./-]*/)?python(?:\d+(?:\.\d+)?)?(?:[ \t]+-[A-Za-bd-z]+)*[ \t]+-c[ \t]*(?P<q>["'])(?P<code>(?:\\.|(?!(?P=q)).)*)(?P=q)""",
    re.S,
)


def snippets(text: str) -> list[tuple[int, int, str]]:
    """(1-based line, 0-based column, code) of each `python -c '...'` argument in a launcher."""
    if "-c" not in text or "python" not in text:
        return []
    out = []
    for match in _INLINE.finditer(text):
        start = match.start("code")
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1)
        code = match.group("code")
        if match.group("q") == '"':  # the shell removes these backslashes inside double quotes
            code = re.sub(r'\\([\\"$`])', r"\1", code)
        out.append((line, column, code))
    return out


def findings(path: str, text: str, version: str) -> list:
    """The Python rules' findings on every inline snippet of a launcher, placed in the launcher."""
    found = snippets(text)
    if not found:
        return []
    from migrate.engine import analyze_python_text

    out = []
    for line, column, code in found:
        result, _errors, _suppressed = analyze_python_text(path, code, version)
        for f in result:
            shift = column if f.line == 1 else 0
            end_shift = column if f.end_line == 1 else 0
            out.append(dataclasses.replace(
                f, line=f.line + line - 1, end_line=f.end_line + line - 1, column=f.column + shift,
                end_column=f.end_column + end_shift, fixable=False, edits=(),
                message=f.message + " (inside `python -c` in a launcher: change it by hand)"))
    return out
