"""Limits checked before a file is parsed, and the shapes a parsed manifest may have.

Parsers of nested formats (json, yaml, ast, libcst) recurse once per nesting level; a hostile or
generated file nested a few thousand levels deep makes them raise RecursionError (or worse, run out
of C stack). Real notebooks, manifests and launch configs nest a dozen levels at most, so anything
beyond MAX_NESTING is refused with a clear per-file error before the parser ever sees it.
"""

from __future__ import annotations

import re

MAX_NESTING = 200

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_YAML_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"")
_YAML_COMMENT = re.compile(r"(?m)(^|\s)#.*$")


class TooDeep(ValueError):
    """The input nests deeper than MAX_NESTING."""

    def __init__(self, depth: int, what: str):
        super().__init__(f"{what} nested more than {MAX_NESTING} levels deep (at least {depth}); not parsed")
        self.depth = depth


def _bracket_depth(brackets: str) -> int:
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_NESTING:
                    return deepest
        else:
            depth -= 1
    return deepest


def check_json_depth(text: str) -> None:
    """Raise TooDeep when the JSON text's brackets (outside strings) nest too deeply."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return
    depth = _bracket_depth(_NOT_BRACKET.sub("", _JSON_STRING.sub("", text)))
    if depth > MAX_NESTING:
        raise TooDeep(depth, "JSON")


def check_yaml_depth(text: str) -> None:
    """Raise TooDeep for YAML nested too deeply, in flow style (`[[[`) or by indentation."""
    if text.count("[") + text.count("{") > MAX_NESTING:
        stripped = _YAML_QUOTED.sub("", _YAML_COMMENT.sub("", text))
        depth = _bracket_depth(_NOT_BRACKET.sub("", stripped))
        if depth > MAX_NESTING:
            raise TooDeep(depth, "YAML")
    # block style: every level needs at least one more column of indentation (or a "- " item)
    levels = 0
    for line in text.splitlines():
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        # "- - - x" opens one sequence per dash
        dashes = len(re.match(r"(?:-\s+)*", body).group(0).split("-")) - 1
        levels = max(levels, indent + 2 * dashes)
        if levels > 2 * MAX_NESTING:
            raise TooDeep(levels // 2, "YAML")


def _type_name(value) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


class Shape:
    """Reads values of a parsed manifest that may have any type, keeping only what has the expected
    shape and noting the first few places that do not (reported as one NPU904 per file)."""

    def __init__(self):
        self.problems: list[str] = []

    def _problem(self, where: str, value, expected: str) -> None:
        if len(self.problems) < 3:
            self.problems.append(f"{where} is {_type_name(value)}, expected {expected}")

    def table(self, value, where: str) -> dict:
        if value is None or isinstance(value, dict):
            return value or {}
        self._problem(where, value, "a table")
        return {}

    def items(self, value, where: str) -> list:
        if value is None or isinstance(value, list):
            return value or []
        self._problem(where, value, "a list")
        return []

    def strings(self, value, where: str) -> list[str]:
        out = []
        for index, item in enumerate(self.items(value, where)):
            if isinstance(item, str):
                out.append(item)
            else:
                self._problem(f"{where}[{index}]", item, "a string")
        return out

    def keys(self, value, where: str) -> list[str]:
        """The keys of a table of name = spec (poetry's dependency tables)."""
        return [key for key in self.table(value, where) if isinstance(key, str)]
