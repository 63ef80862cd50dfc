"""A function of the repository that answers "is the package usable?" from an availability flag is a check like the flag.

ComfyUI's model_management.py, copied across the diffusion ecosystem (Fooocus's ldm_patched, many forks), sets a flag
from an import attempt and asks it through functions:

    try:
        import xformers
        XFORMERS_IS_AVAILABLE = True
    except:
        XFORMERS_IS_AVAILABLE = False

    def xformers_enabled():
        if cpu_state != CPUState.GPU:
            return False
        return XFORMERS_IS_AVAILABLE

    def xformers_enabled_vae():
        enabled = xformers_enabled()
        if not enabled:
            return False
        return XFORMERS_ENABLED_VAE

and another module does `if model_management.xformers_enabled(): import xformers`: on a host without xformers
the function answers False, the import never runs. Such a function is an availability predicate when every answer
it can give that is not "no" (False / None / nothing) comes from an availability test (`_availability_test` of NPU501:
a flag this module sets by an import attempt, an `is_<pkg>_available()` call, a flag named HAS_x / x_AVAILABLE, another
predicate of the module, or one of them as an operand of `and`, also through a local variable bound to one), or is
given only after an early exit on the negated test (`if not enabled: return False`). A function that can answer
True without the package (`if args.force: return True`) is none.

Same module: NPU501 / NPU507 / NPU404 read `if xformers_enabled():` as an availability guard. Another module: the
predicates are recorded as "flag" definitions of mode "call" (migrate/imported_flags.py), and the importer's second
analysis reads `if model_management.xformers_enabled():` (called) like an imported flag.
"""

from __future__ import annotations

import ast

_KEY = "_npu_predicates"
_ASKED = ("_available", "_AVAILABLE", "HAS_", "has_", "_installed")  # how a flag or probe of another module is spelled


def predicates(ctx) -> frozenset[str]:
    """Names of the module-level functions of this file that are availability predicates (see the module doc)."""
    cached = ctx.__dict__.get(_KEY)
    if cached is not None:
        return cached
    from migrate.rules.npu501_gpu_only_import import _set_by_import_attempt

    found: frozenset[str] = frozenset()
    ctx.__dict__[_KEY] = found  # read by `_availability_test` while this runs: grows until nothing more is found
    if not _set_by_import_attempt(ctx) and not any(word in ctx.source for word in _ASKED):
        return found  # nothing here a function could answer from
    functions = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        return found
    while True:
        grown = frozenset(f.name for f in functions if _answers_availability(ctx, f))
        ctx.__dict__[_KEY] = grown
        if grown == found:
            return grown
        found = grown


_STATEMENT_LISTS = ("body", "handlers", "orelse", "finalbody", "cases")  # where statements hold statements
_LISTS_OF: dict[type, tuple[str, ...]] = {}  # node type -> its fields among those, in the node's own order


def _own_returns(function) -> list[ast.Return]:
    """The `return` statements of `function` itself (not those of functions or classes defined inside it). A
    `return` is a statement: only the statement lists of statements (and of `except` handlers and `case`s) are read,
    not their expressions (a lambda holds no statement)."""
    out, todo = [], list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            out.append(node)
            continue
        fields = _LISTS_OF.get(type(node))
        if fields is None:
            fields = _LISTS_OF[type(node)] = tuple(f for f in node._fields if f in _STATEMENT_LISTS)
        for field in fields:
            todo.extend(getattr(node, field))
    return out


def _answers_availability(ctx, function) -> bool:
    from migrate.rules.npu501_gpu_only_import import _availability_test, _nothing

    tested = _tested_locals(ctx, function)

    def test(expr) -> bool:
        if isinstance(expr, ast.Name) and expr.id in tested:
            return True
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
            return any(test(v) for v in expr.values)
        return _availability_test(ctx, expr)

    exit_line = _early_exit_line(function, test)
    returns = _own_returns(function)
    some = False
    for node in returns:
        if _nothing(node.value):
            continue
        if exit_line is not None and node.lineno > exit_line:
            some = True
            continue
        if not test(node.value):
            return False
        some = True
    return some


def _tested_locals(ctx, function) -> frozenset[str]:
    """Local names the function's own top-level statements bind to an availability test (`enabled = xformers_enabled()`)."""
    from migrate.rules.npu501_gpu_only_import import _availability_test

    return frozenset(t.id for s in function.body if isinstance(s, ast.Assign) and _availability_test(ctx, s.value)
                     for t in s.targets if isinstance(t, ast.Name))


def _early_exit_line(function, test) -> int | None:
    """The last line of the first top-level `if not <test>: return <nothing>` (no `else:`) of the function, before which
    no other answer than "no" is given: every return after it runs only where the package is."""
    from migrate.rules.npu501_gpu_only_import import _nothing

    for statement in function.body:
        if isinstance(statement, ast.If) and not statement.orelse and statement.body \
                and isinstance(statement.body[-1], ast.Return) and _nothing(statement.body[-1].value) \
                and isinstance(statement.test, ast.UnaryOp) and isinstance(statement.test.op, ast.Not) \
                and test(statement.test.operand):
            return statement.end_lineno
    return None
