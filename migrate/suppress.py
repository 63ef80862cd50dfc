"""`# noqa: NPU101` (or `# noqa: NPU` for every code) on any line of the statement, `# npu-migrate: noqa` for a whole
file. A bare `# noqa` is another linter's (flake8 / ruff: `import pycuda.autoinit  # noqa` keeps an unused import) and
suppresses nothing here: a porting finding is not silenced by a comment written for a different tool (ruling (L86))."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_right

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*npu-migrate:\s*noqa\b", re.IGNORECASE)


def comment_noqa(comments: dict[int, str]) -> dict[int, frozenset[str]]:
    out: dict[int, frozenset[str]] = {}
    for line, text in comments.items():
        match = _NOQA.search(text)
        codes = match.group("codes") if match else None
        if codes:
            out[line] = frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c)
    return out


def python_comments(source: str) -> dict[int, str]:
    comments: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return comments


_TRIPLE_QUOTED = re.compile(r"""[A-Za-z]{0,3}(\"\"\"|''')(?:\\[\s\S]|(?!\1)[\s\S])*\1""")


def noqa_comments(lines: list[str], nodes: dict) -> dict[int, str] | None:
    """The comments of the lines that mention noqa, as `python_comments` tokenizes them (the only comments
    `comment_noqa` and `file_is_suppressed` act on), read off the parsed tree: outside a string literal a `#`
    starts a comment, so the first `#` of such a line outside every string node's span starts it. A string node
    over several lines is one triple-quoted literal (its text from its start matches one such token ending where
    the node ends), or implicitly concatenated parts that may hold a comment between them: None there (tokenize
    then). `lines`: split as the tokenizer does (`split_lines`); `nodes`: the context's nodes by type."""
    marked = {number for number, line in enumerate(lines, 1) if "noqa" in line.lower()}
    if not marked:
        return {}
    spans: dict[int, list] = {}  # line -> [(start, end, node over several lines or None)], in UTF-8 bytes
    strings = [n for n in nodes.get(ast.Constant, ()) if isinstance(n.value, (str, bytes))]
    for node in strings + list(nodes.get(ast.JoinedStr, ())):
        first, last = node.lineno, node.end_lineno or node.lineno
        several = node if first != last else None
        for number in marked.intersection(range(first, last + 1)) if several else (first,) if first in marked else ():
            spans.setdefault(number, []).append((node.col_offset if number == first else 0,
                                                 node.end_col_offset if number == last else float("inf"), several))
    out: dict[int, str] = {}
    for number in sorted(marked):
        line = lines[number - 1]
        held = spans.get(number, ())
        position = line.find("#")
        while position >= 0:
            offset = position if line.isascii() else len(line[:position].encode("utf-8"))
            inside = [several for start, end, several in held if start <= offset < end]
            if not inside:
                out[number] = line[position:].rstrip("\r\n")
                break
            if any(node is not None and not _one_token(lines, node) for node in inside):
                return None
            position = line.find("#", position + 1)
    return out


def _one_token(lines: list[str], node) -> bool:
    """The string node over several lines is one triple-quoted literal (no room for a comment inside)."""
    first = lines[node.lineno - 1]
    start = node.col_offset if first.isascii() else len(first.encode("utf-8")[:node.col_offset].decode("utf-8", "replace"))
    last = lines[node.end_lineno - 1]
    end = node.end_col_offset if last.isascii() else len(last.encode("utf-8")[:node.end_col_offset].decode("utf-8", "replace"))
    text = "".join(lines[node.lineno - 1:node.end_lineno])
    match = _TRIPLE_QUOTED.match(text, start)
    return match is not None and match.end() == len(text) - len(last) + end


def needs_comments(text: str, lines: list[str], ranges: StatementRanges, findings) -> bool:
    """Whether any finding could be suppressed: a file-level marker somewhere in the text, or a line
    mentioning noqa inside some finding's statement. Only then are the real comments tokenized (the
    slow part; a `noqa` inside a string is told apart there)."""
    if _FILE_NOQA.search(text):
        return True
    marked = {number for number, line in enumerate(lines, 1) if "noqa" in line.lower()}
    return bool(marked) and any(not marked.isdisjoint(ranges.lines_for(f.line)) for f in findings)


def file_is_suppressed(comments: dict[int, str]) -> bool:
    return any(_FILE_NOQA.search(text) for text in comments.values())


def line_comments(source_lines: list[str]) -> dict[int, str]:
    """For launchers and manifests: the text after the first '#' of each line."""
    out = {}
    for number, line in enumerate(source_lines, 1):
        if "#" in line:
            out[number] = line[line.index("#"):]
    return out


class StatementRanges:
    """Maps a line to the line range of the innermost statement holding it."""

    def __init__(self, tree: ast.AST, nodes: dict | None = None):
        """`nodes`: the context's nodes by type (`context.index_tree`), to skip a walk of the tree."""
        if nodes is not None:
            statements = [n for kind, bucket in nodes.items() if issubclass(kind, ast.stmt) for n in bucket]
        else:
            statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        ranges = []
        for node in statements:
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.AST):
                end = max(node.lineno, body[0].lineno - 1)
                # decorators belong to the def statement
            else:
                end = node.end_lineno or node.lineno
            start = node.lineno
            for deco in getattr(node, "decorator_list", ()) or ():
                start = min(start, deco.lineno)
            ranges.append((start, end))
        ranges.sort()
        self._ranges = ranges
        self._starts = [r[0] for r in ranges]

    def lines_for(self, line: int) -> range:
        """The innermost (shortest) statement range holding `line`, else the line itself."""
        ranges = self._ranges
        best = None
        shortest = 0
        # back from the last range starting at or before `line`: one starting earlier is at least `line - start` long,
        # so the scan stops once that exceeds the shortest found; a tie goes to the range sorted first, as `min` gave
        for index in range(bisect_right(self._starts, line) - 1, -1, -1):
            start, end = ranges[index]
            if best is not None and line - start > shortest:
                break
            if end >= line and (best is None or end - start <= shortest):
                best, shortest = (start, end), end - start
        if best is None:
            return range(line, line + 1)
        return range(best[0], best[1] + 1)


def is_suppressed(code: str, lines: range, noqa: dict[int, frozenset[str]]) -> bool:
    for line, codes in noqa.items():
        if line in lines and any(code.startswith(c) for c in codes):
            return True
    return False
