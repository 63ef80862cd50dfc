"""Where environment variable names occur in Python code and launchers (NPU701-NPU703).

Not a rule. A hit is one occurrence of one variable name with its exact position, so several
rules can each rewrite their own names inside the same string without overlapping edits.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.rules._text import command_segments, string_constants


@dataclass(frozen=True)
class EnvHit:
    name: str
    line: int  # 1-based
    column: int  # 0-based character column of the name
    end_column: int

    @property
    def span(self) -> tuple[int, int, int, int]:
        return (self.line, self.column, self.line, self.end_column)


def _used_as_variable(value: str, match: re.Match) -> bool:
    """The whole string is the name, or it is used shell-style inside it: NAME=..., $NAME, ${NAME}."""
    start, end = match.span()
    if start == 0 and end == len(value):
        return True
    if value[end : end + 1] == "=":
        return True
    return value[max(0, start - 1) : start] == "$" or value[max(0, start - 2) : start] == "${"


def _display_label(ctx, node) -> bool:
    """`("CUDA_HOME", value)`: the name only labels a value shown to a human (a report row)."""
    parent = ctx.parent(node)
    return (
        isinstance(parent, ast.Tuple)
        and len(parent.elts) == 2
        and parent.elts[0] is node
        and not (isinstance(parent.elts[1], ast.Constant) and isinstance(parent.elts[1].value, str))
    )


def python_hits(ctx, pattern: re.Pattern) -> Iterator[EnvHit]:
    """Names matched by `pattern` in non-prose string constants (`os.environ["X"]`, `getenv("X")`,
    `{"X": "0"}`, `"X=0 python train.py"`) and as keywords (`os.environ.update(X="0")`)."""
    for node in string_constants(ctx):
        if _display_label(ctx, node):
            continue
        value = node.value
        matches = [m for m in pattern.finditer(value) if _used_as_variable(value, m)]
        if not matches:
            continue
        line, col, _, _ = ctx.span(node)
        text = ctx.segment(node)
        cursor = 0
        for match in matches:
            # the name is plain ASCII, so it appears literally in the source text of the literal
            index = text.find(match.group(0), cursor)
            if index < 0:
                break
            cursor = index + len(match.group(0))
            before = text[:index]
            hit_line = line + before.count("\n")
            hit_col = (index - before.rfind("\n") - 1) if "\n" in before else col + index
            yield EnvHit(match.group(0), hit_line, hit_col, hit_col + len(match.group(0)))
    for node in ctx.nodes.get(ast.keyword, ()):
        if node.arg and pattern.fullmatch(node.arg):
            line, col, _, _ = ctx.span(node)
            yield EnvHit(node.arg, line, col, col + len(node.arg))


def launcher_hits(ctx, pattern: re.Pattern) -> Iterator[EnvHit]:
    """Names in shell / YAML / Dockerfile lines (export X=, X=0 cmd, $X, ${X}, `X: "0"`,
    `- name: X`, ENV X=). Comment lines and comments are skipped; inside echo/printf text only
    `$X` / `${X}` expansions count (the rest is prose)."""
    for number, line in enumerate(ctx.lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for begin, end, is_echo in command_segments(line):
            for match in pattern.finditer(line, begin, end):
                if is_echo and not (line[max(0, match.start() - 1) : match.start()] == "$" or line[max(0, match.start() - 2) : match.start()] == "${"):
                    continue
                yield EnvHit(match.group(0), number, match.start(), match.end())


def hits(ctx, pattern: re.Pattern) -> Iterator[EnvHit]:
    if ctx.kind == "launcher":
        return launcher_hits(ctx, pattern)
    return python_hits(ctx, pattern)
