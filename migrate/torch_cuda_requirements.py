"""A check in a CUDA build script that stops the build when torch was not built with CUDA.

A setup.py that builds a CUDA extension may read the toolkit's version from torch instead of nvcc:

    assert torch.version.cuda is not None
    TORCH_CUDA_VERSION = [x for x in torch.version.cuda.split(".")[:2]]
    CUDA_VERSION = [int(x) for x in TORCH_CUDA_VERSION]
    assert CUDA_VERSION >= [12, 0], "needs CUDA 12.0 and above"
    ...
    if torch.version.cuda is None:
        raise ValueError("building the CUDA library needs a CUDA build of PyTorch")

`torch.version.cuda` is None on an Ascend host (torch there is a CPU build), so each of these stops the build: a
toolkit requirement that raises (label rulings (L14), (L35); 46c HALF-5). Reported: an `assert` whose test reads
`torch.version.cuda` or a name bound from it (through any chain of assignments in the file), and the `raise` (or
`sys.exit(...)` statement) written directly in the body of an `if` whose test reads one. A test that only picks flags (`if CUDA_VERSION >=
[12, 0] and IS_WINDOWS: print(...)`, no raise), or raises only under a nested `if`, is no requirement. Read only in a
file that builds CUDA (NPU505 reports a build there); every read stays NPU205's too.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

_QUAL = "torch.version.cuda"


def requirement_nodes(ctx) -> list[ast.stmt]:
    """The asserts and raises of this file that stop it without a CUDA build of torch (see the module doc)."""
    if _QUAL not in ctx.source:
        return []
    derived = _derived_names(ctx)
    out: list[ast.stmt] = []
    for node in ctx.nodes.get(ast.Assert, ()):
        if _reads(ctx, node.test, derived):
            out.append(node)
    for node in ctx.nodes.get(ast.If, ()):
        if _reads(ctx, node.test, derived):
            out.extend(s for s in node.body if isinstance(s, ast.Raise) or exits(ctx, s))
    return out


_EXITS = frozenset({"sys.exit", "os._exit", "exit", "quit"})


def exits(ctx, statement: ast.stmt) -> bool:
    """`sys.exit(1)` (also `exit()`, `quit()`, `os._exit(1)`) as a statement of its own: it stops the script as a raise
    does (AutoGPTQ's setup.py: `if not CUDA_VERSION: print(...); sys.exit(1)`, set 57)."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    name = ctx.qualname(func) or (func.id if isinstance(func, ast.Name) else None)
    return name in _EXITS


def _reads(ctx, expr: ast.AST, derived: frozenset[str]) -> bool:
    return any((isinstance(n, ast.Attribute) and ctx.qualname(n) == _QUAL)
               or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in derived) for n in walk_nodes(expr))


def _derived_names(ctx) -> frozenset[str]:
    """Names the file binds from `torch.version.cuda`, directly or through other such names, to a fixed point."""
    assigns = [a for a in ctx.nodes.get(ast.Assign, ()) if all(isinstance(t, ast.Name) for t in a.targets)]
    derived: set[str] = set()
    while True:
        grown = {t.id for a in assigns if _reads(ctx, a.value, frozenset(derived)) for t in a.targets} | derived
        if grown == derived:
            return frozenset(derived)
        derived = grown
