"""A test whose body first skips where a GPU-only package does not import runs on no NPU host (label ruling (L27)).

ByteDance-Seed/VeOmni tests/ops/test_deepseek_v4_kernels.py: each TileLang test opens with `_require_tilelang_cuda()`,
a helper of the file whose body is `pytest.importorskip("tilelang")` then `pytest.skip(...)` without an NVIDIA GPU; the
test then imports the repository's `@tilelang.jit` kernels and calls them. As migrate/skip_decorators.py reads
`@require_<pkg>` / `@pytest.mark.skipif(not is_<pkg>_available(), ...)` on the test, this reads the same skip written
as the test's leading statements: `pytest.importorskip("<pkg>")` of a GPU-only package of the catalogue
(migrate/knowledge/third_party.toml), as a statement of the function's body before any other use, or inside a
module-level helper of the file that the body calls as a statement. The lines of such a function are the spans here;
NPU510 reports no use inside them (its tree and its facts paths alike: migrate/repo_index.py `link_sites`).
Per file, from its tree.
"""

from __future__ import annotations

import ast

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _importorskip_package(statement: ast.AST, roots: frozenset[str]) -> str | None:
    """`pytest.importorskip("tilelang")` (or `x = pytest.importorskip(...)`) of a catalogue package: its root."""
    value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if not (isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant)
            and isinstance(value.args[0].value, str)):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name != "importorskip":
        return None
    root = value.args[0].value.split(".", 1)[0]
    return root if root in roots else None


def _skips_first(body: list, roots: frozenset[str], helpers: dict[str, ast.AST], depth: int = 0) -> bool:
    """The leading statements of `body` (before its first statement that is neither a docstring, an import nor a
    plain call statement) hold such an importorskip, directly or through a call of a helper of the file."""
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        if _importorskip_package(statement, roots) is not None:
            return True
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            return False
        func = statement.value.func
        helper = helpers.get(func.id) if isinstance(func, ast.Name) else None
        if helper is not None and depth < 2 and _skips_first(helper.body, roots, helpers, depth + 1):
            return True
    return False


def skipped_spans(ctx) -> list[tuple[int, int]]:
    """(first line, last line) of each function of the file whose body first skips without a GPU-only package."""
    if "importorskip" not in ctx.source:
        return []
    from migrate.skip_decorators import catalogue_roots

    roots = catalogue_roots()
    helpers = {s.name: s for s in ctx.tree.body if isinstance(s, _FUNCTIONS)}
    out = []
    for kind in _FUNCTIONS:
        for function in ctx.nodes.get(kind, ()):
            if _skips_first(function.body, roots, helpers):
                out.append((function.lineno, function.end_lineno or function.lineno))
    return out


def inside(spans: list[tuple[int, int]], line: int) -> bool:
    return any(start <= line <= end for start, end in spans)
