"""GPU-only libraries behind an option that is off by default are optional, not blockers.

`if args.use_xformers: unet.enable_xformers_memory_efficient_attention()` with
`parser.add_argument("--use_xformers", action="store_true")`, or `if args.apex: from apex import amp`
with `default=False`: the script runs on an NPU as long as the user does not turn the option on.
Such findings (GPU-only imports and uses: NPU404, NPU501, NPU503, NPU507) stay reported, as warnings
that name the option, and are marked optional: apply lists them without exiting 1 for them.

An option is off by default when this file declares it so: an argparse flag with
`action="store_true"` (and no true default) or `default=False / None / 0 / ""`, or a class field
`name: bool = False` / `= field(default=False)` / `= None` (dataclass and config classes). The
finding must lie in the body (not the `else`) of an `if` whose test is that option read as an
attribute (`args.use_xformers`, `self.cfg.use_xformers`) or a bare name, alone or as one operand of
an `and`. Per file, from its own syntax tree.
"""

from __future__ import annotations

import ast
import dataclasses

from migrate.findings import Finding, Severity

CODES = frozenset({"NPU404", "NPU501", "NPU503", "NPU507"})
_OFF = (False, None, 0, "")


def _constant(node: ast.AST | None, missing=None):
    if node is None:
        return missing
    if isinstance(node, ast.Constant):
        return node.value
    return ...  # computed: not known to be off


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _argparse_off(call: ast.Call) -> tuple[str, int] | None:
    """`add_argument("--use-xformers", action="store_true")` -> ("use_xformers", line)."""
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    long = next((f for f in flags if f.startswith("--")), None)
    dest = _constant(_keyword(call, "dest"))
    name = dest if isinstance(dest, str) else (long[2:].replace("-", "_") if long else None)
    if not name:
        return None
    action = _constant(_keyword(call, "action"))
    default = _constant(_keyword(call, "default"), missing=False if action == "store_true" else None)
    if action == "store_true" and default in _OFF:
        return name, call.lineno
    if action in (None, "store") and _keyword(call, "default") is not None and default in _OFF and default is not ...:
        return name, call.lineno
    return None


def _field_off(node: ast.AnnAssign) -> tuple[str, int] | None:
    """`use_xformers: bool = False` / `= field(default=False)` / `= None` in a class body."""
    if not isinstance(node.target, ast.Name) or node.value is None:
        return None
    value = node.value
    if isinstance(value, ast.Call):
        value = _keyword(value, "default")
        if value is None:
            return None
    default = _constant(value)
    if default is not ... and default in _OFF:
        return node.target.id, node.lineno
    return None


def off_by_default(tree: ast.Module, nodes: dict | None = None) -> dict[str, int]:
    """Option name -> the line declaring it off by default. `nodes`: the tree's nodes by type in
    `ast.walk` order (`PythonContext.nodes`), which spares the walk."""
    if nodes is not None:
        flags: dict[str, int] = {}
        for node in nodes.get(ast.Call, ()):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument" and (found := _argparse_off(node)):
                flags.setdefault(*found)
        fields: dict[str, int] = {}
        for node in nodes.get(ast.ClassDef, ()):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and (item := _field_off(stmt)):
                    fields.setdefault(*item)
        if not flags.keys() & fields.keys():  # else which came first in the walk decides the line
            return {**flags, **fields}
    options: dict[str, int] = {}
    for node in ast.walk(tree):
        found = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            found = _argparse_off(node)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and (item := _field_off(stmt)):
                    options.setdefault(*item)
        if found:
            options.setdefault(*found)
    return options


def _option_read(test: ast.AST, options: dict[str, int]) -> tuple[str, str] | None:
    """(option name, the expression as written) when `test` reads a default-off option."""
    operands = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for operand in operands:
        name = operand.attr if isinstance(operand, ast.Attribute) else operand.id if isinstance(operand, ast.Name) else None
        if name in options:
            return name, ast.unparse(operand)
    return None


def mark_optional(tree: ast.Module, findings: list[Finding], nodes: dict | None = None) -> list[Finding]:
    """Findings of `CODES` inside an `if <option>:` body whose option is off by default: warnings,
    marked optional, their message naming the option."""
    candidates = [f for f in findings if f.code in CODES and f.severity == Severity.ERROR and not f.fixable]
    if not candidates:
        return findings
    options = off_by_default(tree, nodes)
    if not options:
        return findings
    guards = []  # (first line, last line, option, as written)
    for node in (nodes.get(ast.If, ()) if nodes is not None else ast.walk(tree)):
        if isinstance(node, ast.If) and node.body and (read := _option_read(node.test, options)):
            guards.append((node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno, *read))
    if not guards:
        return findings
    out = []
    for finding in findings:
        guard = next((g for g in guards if g[0] <= finding.line <= g[1]), None) if finding in candidates else None
        if guard is None:
            out.append(finding)
            continue
        option, written = guard[2], guard[3]
        note = (f"; optional: only when `{written}` is set, off by default (line {options[option]}): "
                "the script runs on the NPU with it off")
        out.append(dataclasses.replace(finding, severity=Severity.WARNING, message=finding.message + note, optional=True))
    return out
