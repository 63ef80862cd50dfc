"""Python files written in syntax newer than the running Python (3.11) can parse.

A scanned repository may use Python 3.12+ syntax: PEP 701 f-strings (the same quote nested inside
a replacement field, a backslash or a comment in one, a replacement field spread over lines of a
single-quoted f-string), PEP 695 type parameters (`def f[T](x: T)`, `class C[T]:`) and `type X = ...`
statements, PEP 750 template strings (`t"..."`). `ast.parse` of 3.11 rejects the whole file, so none
of its lines would be analysed.

`parse(text)` first asks `ast.parse`; only when that fails does it rewrite the text into one that
3.11 parses, **keeping the line and column of every character outside the rewritten spans**, and
parses that:

- an f-string (or a run of adjacent string literals with an f-string among them) becomes
  `( [expr1] [expr2] ... )` at the same place: each replacement field's expression is kept where
  it is (nested f-strings inside it rewritten the same way), everything else is blanked (line
  breaks kept). After parsing, each such node is turned back into the `ast.JoinedStr` that 3.12
  builds (literal parts, conversions, format specs, `=` self-documenting fields), spanning the
  original string, so the rules see the same tree shape as for any f-string, with the field
  expressions at their real lines and columns;
- type parameter lists `[T, *Ts, **P]` after `def NAME` / `class NAME` are blanked (not needed by
  any rule); `type X[T] = value` becomes `X = value` with the value at its place.

A file that still does not parse (other syntax of a newer Python, e.g. PEP 758 `except A, B:`, or
a real error) keeps the parse error of the running Python. Never executes anything.
"""
from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

_PREFIXES = {"", "r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"}
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass
class _Field:
    start: int  # of the expression text (after "{")
    end: int  # of the expression text (at the terminator)
    conversion: int = -1
    spec: list | None = None  # format-spec pieces: str (literal, already decoded) or _Field
    debug: str | None = None  # "expr=" text of a self-documenting field
    close: int = 0  # index of the field's closing "}"
    literal: tuple[int, int] = (0, 0)  # span of the one string literal holding it (its format spec's place)


@dataclass
class _Run:
    """Adjacent string literals, at least one of them an f-string (or t-string)."""
    start: int
    end: int
    pieces: list = field(default_factory=list)  # str (decoded literal) or _Field


class _Unsupported(Exception):
    pass


def _decode_literal(raw_text: str, raw: bool, quote: str) -> str:
    if raw or "\\" not in raw_text:
        return raw_text
    for q in dict.fromkeys((quote, '"', "'", '"""', "'''")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.literal_eval(q + raw_text + q)
        except (SyntaxError, ValueError):
            continue
    return raw_text


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.out = list(text)
        self.runs: list[_Run] = []

    # ---- helpers ----------------------------------------------------------------------------------
    def _blank(self, start: int, end: int) -> None:
        for i in range(start, end):  # as many blanks as UTF-8 bytes: ast's columns count bytes
            c = self.text[i]
            if c not in "\r\n":
                self.out[i] = " " if c < "\x80" else " " * len(c.encode("utf-8", "surrogatepass"))

    def _string_start(self, i: int) -> tuple[str, str, int] | None:
        """(prefix, quote, index after the opening quote) when a string literal starts at i."""
        text = self.text
        j = i
        while j < len(text) and j - i < 3 and text[j].isalpha():
            j += 1
        prefix = text[i:j]
        if prefix.lower() not in _PREFIXES or j >= len(text) or text[j] not in "'\"":
            return None
        if i > 0 and prefix and (text[i - 1].isalnum() or text[i - 1] == "_"):
            return None
        quote = text[j] * 3 if text.startswith(text[j] * 3, j) else text[j]
        return prefix, quote, j + len(quote)

    def _skip_plain(self, i: int, quote: str) -> int:
        """Index after the closing quote of a non-f string whose body starts at i."""
        text, n = self.text, len(self.text)
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                return i + len(quote)
            if len(quote) == 1 and c in "\r\n":
                raise _Unsupported
            i += 1
        raise _Unsupported

    # ---- f-strings --------------------------------------------------------------------------------
    def _fstring(self, i: int, quote: str, raw: bool, pieces: list) -> int:
        """Scan an f-string body from i; append its pieces; return the index after the closing quote."""
        text, n = self.text, len(self.text)
        lit_start = i
        literal: list[str] = []

        def flush(upto: int) -> None:
            if upto > lit_start:
                literal.append(text[lit_start:upto])

        def emit() -> None:
            if literal:
                pieces.append(_decode_literal("".join(literal), raw, quote))
                literal.clear()

        while i < n:
            c = text[i]
            if text.startswith(quote, i):
                flush(i)
                emit()
                return i + len(quote)
            if c == "\\":
                if not raw and text.startswith("N{", i + 1):
                    close = text.find("}", i)
                    if close < 0:
                        raise _Unsupported
                    i = close + 1
                else:
                    i += 2
                continue
            if c in "{}":
                if text.startswith(c * 2, i):
                    flush(i + 1)  # "{{" is one literal "{"
                    i += 2
                    lit_start = i
                    continue
                if c == "}":
                    raise _Unsupported
                flush(i)
                emit()
                f = self._field(i + 1, quote, raw)
                pieces.append(f)
                i = f.close + 1
                lit_start = i
                continue
            if len(quote) == 1 and c in "\r\n":
                raise _Unsupported
            i += 1
        raise _Unsupported

    def _field(self, i: int, quote: str, raw: bool) -> _Field:
        """A replacement field whose expression starts at i (just after "{")."""
        text = self.text
        end = self._code(i, stop=True)
        f = _Field(i, end)
        self.out[i - 1] = "["
        self.out[end] = "]"
        j = end
        if text[j] == "=":
            j += 1
            while text[j] in " \t":
                j += 1
            f.debug = text[i:j]  # "expr = " with its blanks
        if text[j] == "!":
            if j + 1 >= len(text) or text[j + 1] not in "rsa":
                raise _Unsupported
            f.conversion = ord(text[j + 1])
            j += 2
        if text[j] == ":":
            f.spec = []
            j = self._spec(j + 1, quote, raw, f.spec)
        if text[j] != "}":
            raise _Unsupported
        if f.debug is not None and f.conversion == -1 and f.spec is None:
            f.conversion = ord("r")
        f.close = j
        return f

    def _spec(self, i: int, quote: str, raw: bool, pieces: list) -> int:
        text, n = self.text, len(self.text)
        lit_start = i
        while i < n:
            c = text[i]
            if c == "}" or text.startswith(quote, i):
                if i > lit_start:
                    pieces.append(_decode_literal(text[lit_start:i], raw, quote))
                return i
            if c == "{":
                if i > lit_start:
                    pieces.append(_decode_literal(text[lit_start:i], raw, quote))
                f = self._field(i + 1, quote, raw)
                pieces.append(f)
                i = f.close + 1
                lit_start = i
                continue
            i += 1
        raise _Unsupported

    def _string_run(self, i: int, depth: int) -> int:
        """A string literal starts at i: scan it and the literals adjacent to it; returns the end."""
        text, n = self.text, len(self.text)
        start = i
        pieces: list = []
        formatted = False
        while True:
            prefix, quote, body = self._string_start(i)  # type: ignore[misc]
            low = prefix.lower()
            if "f" in low or "t" in low:
                formatted = True
                first = len(pieces)
                literal_start = i
                i = self._fstring(body, quote, "r" in low, pieces)
                for f in self._fields_in(pieces[first:]):
                    f.literal = (literal_start, i)
            else:
                i = self._skip_plain(body, quote)
                pieces.append(_decode_literal(text[body:i - len(quote)], "r" in low, quote)
                              if "b" not in low else "")
            end = i
            # the next literal of the same run, past blanks (and line breaks/comments inside brackets)
            j = i
            while j < n:
                c = text[j]
                if c in " \t\f":
                    j += 1
                elif c == "\\" and j + 1 < n and text[j + 1] in "\r\n":
                    j += 2
                elif depth > 0 and c in "\r\n":
                    j += 1
                elif depth > 0 and c == "#":
                    while j < n and text[j] not in "\r\n":
                        j += 1
                else:
                    break
            if j < n and self._string_start(j) is not None:
                i = j
                continue
            break
        if formatted:
            run = _Run(start, end, pieces)
            fields = self._fields_in(pieces)
            keep = [(f.start, f.end) for f in fields]
            pos = start
            for a, b in keep:  # blank everything between the expressions, brackets written by _field
                self._blank(pos, a - 1)
                pos = b + 1
            self._blank(pos, end)
            self.out[start] = "("
            self.out[end - 1] = ")"
            self.runs.append(run)
        return end

    @staticmethod
    def _fields_in(pieces: list) -> list[_Field]:
        out: list[_Field] = []
        for p in pieces:
            if isinstance(p, _Field):
                out.append(p)
                if p.spec:
                    out.extend(_Scanner._fields_in(p.spec))
        return out

    # ---- code -------------------------------------------------------------------------------------
    def _code(self, i: int, stop: bool = False) -> int:
        """Scan code from i. With stop, scan a replacement field's expression and return the index of
        its terminator ("}", "!", ":" or a self-documenting "=" at bracket depth 0)."""
        text, n = self.text, len(self.text)
        depth = 0
        line_start = True  # only blanks since the start of the logical line
        while i < n:
            c = text[i]
            if stop and depth == 0:
                if c == "}" or c == ":" or (c == "!" and not text.startswith("!=", i)):
                    return i
                if c == "=" and text[i + 1:i + 2] != "=" and text[i - 1] not in "=!<>":
                    return i
            if c == "#":
                while i < n and text[i] not in "\r\n":
                    i += 1
                continue
            if c in "\r\n":
                if depth == 0 and not stop:
                    line_start = True
                i += 1
                continue
            if c in " \t\f" or (c == "\\" and i + 1 < n and text[i + 1] in "\r\n"):
                i += 2 if c == "\\" else 1
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0 and not stop:
                    raise _Unsupported
            if c in "'\"" or c.isalpha():
                if self._string_start(i) is not None:
                    i = self._string_run(i, depth + (1 if stop else 0))
                    line_start = False
                    continue
            if c.isalnum() or c == "_" or ord(c) > 127:
                j = i
                while j < n and (text[j].isalnum() or text[j] == "_" or ord(text[j]) > 127):
                    j += 1
                word = text[i:j]
                if not stop and word in ("def", "class"):
                    j = self._type_params(j)
                elif not stop and word == "type" and line_start:
                    j = self._type_alias(i, j)
                line_start = False
                i = j
                continue
            line_start = c == ";"
            if c == ":" and depth == 0 and not stop:
                line_start = True  # `if x: type A = int` (a simple statement after a colon)
            i += 1
        if stop:
            raise _Unsupported
        return i

    _NAME = re.compile(r"[ \t]+([^\W\d]\w*)[ \t]*(?=\[)")

    def _bracket_end(self, i: int) -> int:
        """Index of the "]" matching the "[" at i (strings and nested brackets skipped)."""
        text, n = self.text, len(self.text)
        depth = 0
        while i < n:
            c = text[i]
            if c in "'\"" or c.isalpha():
                s = self._string_start(i)
                if s is not None:
                    i = self._string_run(i, 1)
                    continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        raise _Unsupported

    def _type_params(self, j: int) -> int:
        """`def NAME[...]` / `class NAME[...]`: blank the type parameter list; where to go on."""
        m = self._NAME.match(self.text, j)
        if not m:
            return j
        close = self._bracket_end(m.end())
        self._blank(m.end(), close + 1)
        return close + 1

    _ALIAS = re.compile(r"[ \t]+([^\W\d]\w*)[ \t]*(?:\[|=(?!=))")

    def _type_alias(self, i: int, j: int) -> int:
        """`type NAME[...] = value` at a statement start: `NAME = value` with the value in place;
        where to go on."""
        m = self._ALIAS.match(self.text, j)
        if not m:
            return j
        name = m.group(1)
        k = m.end() - 1
        if self.text[k] == "[":
            k = self._bracket_end(k) + 1
            while k < len(self.text) and self.text[k] in " \t":
                k += 1
            if self.text[k:k + 1] != "=" or self.text[k + 1:k + 2] == "=":
                return j
        self._blank(i, k)
        self.out[i:i + len(name)] = list(name)
        return k


def _offsets(text: str):
    """char index -> (lineno, col_offset in UTF-8 bytes), as ast counts them."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(text)]

    def at(index: int) -> tuple[int, int]:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, len(text[starts[lo]:index].encode("utf-8"))
    return at


class _Rebuild(ast.NodeTransformer):
    def __init__(self, text: str, runs: list[_Run]):
        at = _offsets(text)
        self.text = text
        self.by_span: dict[tuple, _Run] = {}
        self.at = at
        for run in runs:
            fields = _Scanner._fields_in(run.pieces)
            if fields:
                key = (*at(fields[0].start - 1), *at(fields[-1].end + 1))
            else:
                key = (*at(run.start), *at(run.end))
            self.by_span[key] = run

    def visit(self, node):
        key = (getattr(node, "lineno", None), getattr(node, "col_offset", None),
               getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))
        run = self.by_span.pop(key, None) if isinstance(node, ast.expr) else None  # once: a 1-field tuple has its span
        if run is not None:
            node = self._joined(node, run)
        return self.generic_visit(node)

    @staticmethod
    def _exprs(node) -> list:
        """The field expressions of `( [e1] [e2] ... )`, in order."""
        if isinstance(node, ast.Tuple) and not node.elts:
            return []
        out = []
        while isinstance(node, ast.Subscript):
            out.append(node.slice)
            node = node.value
        if not isinstance(node, ast.List):
            raise _Unsupported
        first = node.elts[0] if len(node.elts) == 1 else ast.copy_location(ast.Tuple(node.elts, ast.Load()), node)
        out.append(first)
        return out[::-1]

    def _joined(self, node, run: _Run):
        exprs = iter(self._exprs(node))
        start, end = self.at(run.start), self.at(run.end)

        def place(n, span=(start, end)):
            n.lineno, n.col_offset = span[0]
            n.end_lineno, n.end_col_offset = span[1]
            return n

        def build(pieces, span=(start, end)) -> list:
            values: list = []
            for p in pieces:
                if isinstance(p, _Field):
                    value = next(exprs)
                    if p.debug is not None:
                        values.append(place(ast.Constant(p.debug), span))
                    spec = None
                    if p.spec is not None:  # 3.11 places a format spec at its own literal, not the run
                        own = (self.at(p.literal[0]), self.at(p.literal[1]))  # (its constants too, when alone)
                        inner = (start, end) if any(isinstance(q, _Field) for q in p.spec) else own
                        spec = place(ast.JoinedStr(build(p.spec, inner)), own)
                    values.append(place(ast.FormattedValue(value, p.conversion, spec)))  # the run's span, as 3.11
                elif p:
                    values.append(place(ast.Constant(p), span))
            merged: list = []
            for v in values:  # adjacent literal parts are one constant, as CPython builds them
                if merged and isinstance(v, ast.Constant) and isinstance(merged[-1], ast.Constant):
                    merged[-1] = place(ast.Constant(merged[-1].value + v.value), span)
                else:
                    merged.append(v)
            return merged

        try:
            return place(ast.JoinedStr(build(run.pieces)))
        finally:
            build = None  # noqa: F841 -- a recursive closure holds its own cell: a cycle the scan never collects


def downlevel(text: str) -> tuple[str, list[_Run]] | None:
    """`text` rewritten so Python 3.11 parses it (see the module docstring), or None."""
    scanner = _Scanner(text)
    try:
        scanner._code(0)
    except (_Unsupported, IndexError, RecursionError):
        return None
    return "".join(scanner.out), scanner.runs


def parse_newer(text: str, filename: str = "<unknown>") -> ast.Module | None:
    """The tree of a file written in newer syntax, or None when it does not parse that way either."""
    lowered = downlevel(text)
    if lowered is None:
        return None
    source, runs = lowered
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=filename)
        tree = _Rebuild(text, runs).visit(tree)
        tree._npu_newer_syntax = True  # read by `newer_syntax`: the 3.11 tokenizer may read this text otherwise
        return tree
    except (SyntaxError, ValueError, RecursionError, MemoryError, _Unsupported, StopIteration):
        return None


def newer_syntax(tree: ast.AST) -> bool:
    """The tree was read by `parse_newer` (the running Python's parser rejected the text)."""
    return getattr(tree, "_npu_newer_syntax", False)


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse, and for a file in newer syntax its tree read as above; raises the running Python's
    own error when neither parses."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text, filename=filename)
        except SyntaxError as exc:
            tree = parse_newer(text, filename)
            if tree is None:
                raise exc from None
            return tree
