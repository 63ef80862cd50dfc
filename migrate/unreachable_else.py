"""An `else:` that an early return above makes unreachable runs nothing (NPU505; label note 49b b-3, (L61)).

detectron2-style setup.py helpers leave the function first when the CUDA build cannot happen, then ask the same
question again:

    def get_extensions():
        if not (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) or CUDA_HOME is None:
            return []                                       # no CUDA: no extension at all
        ...
        if (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) and CUDA_HOME is not None:
            extension = CUDAExtension                       # always taken past the return
        else:
            if CUDA_HOME is None:                           # never reached
                raise NotImplementedError("CUDA_HOME is None. ...")

The later test is the negation of the earlier one (De Morgan, `is None` / `is not None`, `==` / `!=`, `not x` / `x`),
so past the return it is always true and its `else:` never runs: like a setup.py helper nothing calls (label ruling
(L61)), its lines build and raise nothing and are no findings. Read per function of a file: the early `if` must sit
directly in the function's body with a body that only returns, the later `if` after it in the same body, and no
statement between them may bind a name the test reads.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

_SWAP = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In}


def _negated(test: ast.expr) -> ast.expr:
    """The negation of `test`, pushed inwards where a plain rewrite exists."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.BoolOp):
        return ast.BoolOp(ast.And() if isinstance(test.op, ast.Or) else ast.Or(), [_negated(v) for v in test.values])
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _SWAP:
        return ast.Compare(test.left, [_SWAP[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def _same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a) == ast.dump(b)


def _bound(statement: ast.stmt) -> set[str]:
    return {n.id for n in walk_nodes(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def unreachable_else_lines(tree: ast.Module | None) -> frozenset[int]:
    """The lines of the `else:` blocks that an early return above in the same function makes unreachable."""
    if tree is None:
        return frozenset()
    lines: set[int] = set()
    for function in walk_nodes(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = function.body
        for i, early in enumerate(body):
            if not (isinstance(early, ast.If) and not early.orelse and early.body
                    and all(isinstance(s, ast.Return) for s in early.body)):
                continue
            reads = {n.id for n in walk_nodes(early.test) if isinstance(n, ast.Name)}
            passed = _negated(early.test)
            for later in body[i + 1:]:
                if isinstance(later, ast.If) and later.orelse and _same(passed, later.test):
                    lines.update(range(later.orelse[0].lineno, (later.orelse[-1].end_lineno or later.orelse[-1].lineno) + 1))
                if _bound(later) & reads:
                    break
    return frozenset(lines)
