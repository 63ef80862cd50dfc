"""Helpers shared by the codemods: where the header of a module ends, what counts as an import."""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node


def is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _import_modules(small: cst.BaseSmallStatement) -> list[str]:
    if isinstance(small, cst.Import):
        return [get_full_name_for_node(alias.name) or "" for alias in small.names]
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        return [get_full_name_for_node(small.module) or ""]
    return []


def child_blocks(stmt: cst.CSTNode) -> list[cst.CSTNode]:
    """The statement blocks directly inside a compound statement (not nested defs/classes)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return []
    blocks: list[cst.CSTNode] = []
    if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar)):
        blocks.append(stmt.body)
    orelse = getattr(stmt, "orelse", None)
    while orelse is not None:
        blocks.append(orelse.body)
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    for handler in getattr(stmt, "handlers", ()) or ():
        blocks.append(handler.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        blocks.append(final.body)
    if isinstance(stmt, cst.Match):
        blocks.extend(case.body for case in stmt.cases)
    return blocks


def imported_modules(stmt: cst.CSTNode) -> list[str]:
    """Modules imported by a top-level statement: a plain import line, or a `try:` / `if` block
    whose branches hold only imports and simple fallbacks (`x = None`, `pass`)."""
    if isinstance(stmt, cst.SimpleStatementLine):
        out: list[str] = []
        for small in stmt.body:
            out += _import_modules(small)
        return out
    if isinstance(stmt, (cst.Try, cst.If)):
        out = []
        for block in child_blocks(stmt):
            statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
            for inner in statements:
                if isinstance(inner, cst.SimpleStatementLine):
                    for small in inner.body:
                        if not isinstance(small, (cst.Import, cst.ImportFrom, cst.Assign, cst.Pass, cst.Expr)):
                            return []
                        out += _import_modules(small)
                elif isinstance(inner, cst.SimpleStatementSuite):
                    for small in inner.body:
                        out += _import_modules(small)
                else:
                    return []
        return out
    return []


def is_import_like(stmt: cst.CSTNode) -> bool:
    return bool(imported_modules(stmt))


def header_start(body) -> int:
    """Index of the first statement after the module docstring and `from __future__` imports."""
    index = 0
    if body and is_docstring(body[0]):
        index = 1
    while index < len(body) and imported_modules(body[index]) == ["__future__"] and isinstance(body[index], cst.SimpleStatementLine):
        index += 1
    return index


def leading_imports_end(body) -> int:
    """Index just after the run of import statements that opens the module (after the header)."""
    index = header_start(body)
    while index < len(body) and is_import_like(body[index]):
        index += 1
    return index


def is_torch_module(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def insert_statements(body, index: int, statements) -> list:
    return [*body[:index], *statements, *body[index:]]
