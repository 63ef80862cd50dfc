"""NPU508: a compiled extension's uses reached only through entry functions that assert its availability first.

A backend module of a library often wraps its extension's ops in an autograd Function (or a factory making one) and
opens each public entry with an availability predicate that raises when the extension is missing:

    from mylib._ext import attn_forward, attn_backward      # stand-ins that raise where the build is absent

    class AttnFn(Function):
        @staticmethod
        def forward(ctx, q, k, v):
            return attn_forward(q, k, v)                    # the use

    def fused_attention(q, k, v):
        assert can_run_fused_attention(q, raise_error=True)  # HAS_EXT, CUDA tensor, ...: raises on an NPU host
        return AttnFn.apply(q, k, v)

On an NPU host the entry stops at its check with the library's own message before the use is reached; the library's
selection falls back to another backend (SHI-Labs/NATTEN: every product backend opens with `assert can_run_*(...)`,
automatic selection falls back to Flex Attention; label note 46c HALF-10, c-10). Such a use is optional, not reported.

The use is followed inside its module: the module-level function or class holding it, the module-level names bound
from an expression naming one of those (`Fn1D = make_fn(1)`, `FNS = {1: Fn1D}`), and so on; every other reading of any
of them must lie in a module-level function after a statement of its body that asserts an availability predicate
(`assert can_run_x(...)`, `assert is_x_available()`, also `if not can_run_x(...): raise ...`): a predicate named
`can_run_*` / `can_use_*` or ending in `_available` / `_supported`. A predicate of the extension itself (`if not
C.is_bf16_supported(): raise ...`, `C` bound by a reported import of the compiled module) is no such check: it cannot
run where the build is absent, and it asks whether the GPU has a feature, so the op after it stays reported (label
note 49c c-5: the check is not a use, the op call is). Kept (reported): a use in module-level code, a use
reached from any function without such a check (the reference backend calling its ops unchecked), and a use whose
chain holds a name another file of the scan imports (its own callers are not read here) or that `__all__` lists.
"""

from __future__ import annotations

import ast
import re

from migrate.context import walk_nodes

CODES = frozenset({"NPU508"})
_PREDICATE = re.compile(r"^_*(?:can_(?:run|use)_\w+|\w*_(?:available|supported))$")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# a file without such a check in its text is not parsed again (a warm run parses nothing it does not need)
_CHECK_TEXT = re.compile(r"\b(?:assert|if\s+not)\s+\(?\s*[\w.]*?_*(?:can_(?:run|use)_\w+|\w*_(?:available|supported))\s*\(")


def _root(node: ast.AST) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _predicate_call(node: ast.AST, extension: frozenset[str] = frozenset()) -> bool:
    """A call of a predicate named as an availability check, not one reached through a name in `extension`."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return any(_predicate_call(v, extension) for v in node.values)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return bool(_PREDICATE.match(name or "")) and _root(func) not in extension


def _extension_names(tree: ast.Module, lines: set[int]) -> frozenset[str]:
    """The names bound by imports that are themselves reported uses (`from .. import C` of the compiled module)."""
    return frozenset((alias.asname or alias.name).split(".")[0] for node in walk_nodes(tree)
                     if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno in lines for alias in node.names)


def _guard_line(function: ast.AST, extension: frozenset[str] = frozenset()) -> int | None:
    """The line of the first statement of the function's body that asserts an availability predicate, or None."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for statement in function.body:
        if isinstance(statement, ast.Assert) and _predicate_call(statement.test, extension):
            return statement.lineno
        if (isinstance(statement, ast.If) and isinstance(statement.test, ast.UnaryOp)
                and isinstance(statement.test.op, ast.Not) and _predicate_call(statement.test.operand, extension)
                and statement.body and isinstance(statement.body[-1], ast.Raise)):
            return statement.lineno
    return None


def _bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, _DEFS):
        return {statement.name}
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return {n.id for t in targets for n in walk_nodes(t) if isinstance(n, ast.Name)}


def _exported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                     for t in statement.targets):
            names |= {n.value for n in walk_nodes(statement.value)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return names


def _reached_only_guarded(tree: ast.Module, holder: ast.stmt, imported: frozenset[str],
                          extension: frozenset[str] = frozenset()) -> bool:
    """Whether every way to the module-level statement `holder` (a def or class) passes an entry's check."""
    chain = {id(holder)}
    names = _bound(holder)
    changed = True
    while changed:  # module-level names bound from an expression naming the chain join it
        changed = False
        for statement in tree.body:
            if id(statement) in chain or isinstance(statement, _DEFS):
                continue
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and any(
                    isinstance(n, ast.Name) and n.id in names for n in walk_nodes(statement.value or ast.Pass())):
                chain.add(id(statement))
                names |= _bound(statement)
                changed = True
    if not names or names & (imported | _exported(tree)):
        return False
    entries = 0
    for statement in tree.body:
        if id(statement) in chain:
            continue
        reads = [n for n in walk_nodes(statement) if isinstance(n, ast.Name) and n.id in names
                 and isinstance(n.ctx, ast.Load)]
        if not reads:
            continue
        guard = _guard_line(statement, extension)
        if guard is None or any(n.lineno <= guard for n in reads):
            return False
        entries += 1
    return entries > 0  # read by no function of its module: its callers are elsewhere (an entry itself), unread here


def guarded_lines(tree: ast.Module, lines: set[int], imported: frozenset[str] = frozenset()) -> set[int]:
    """Those of `lines` (uses) inside a module-level function or class reached only through asserting entries."""
    out: set[int] = set()
    extension = _extension_names(tree, lines)
    for statement in tree.body:
        if not isinstance(statement, _DEFS):
            continue
        inside = {line for line in lines if statement.lineno <= line <= (statement.end_lineno or statement.lineno)}
        guard = _guard_line(statement, extension)
        if guard is not None:  # an entry's own uses after its check
            inside_after = {line for line in inside if line > guard}
            out |= inside_after
            inside -= inside_after
        if inside and _reached_only_guarded(tree, statement, imported, extension):
            out |= inside
    return out


def drop_asserted_uses(results: list, fresh: dict, max_file_size: int) -> list:
    """`results` less the NPU508 uses that only checked entries of their module reach (see the module doc)."""
    from migrate import engine, fileio
    from migrate.optional_modules import ref_parts

    if not any(r.path.endswith(".py") and any(f.code in CODES for f in r.findings) for r in results):
        return results
    refs = {r.path: ref_parts(r) for r in results if r.path.endswith(".py")}
    counts: dict[str, int] = {}
    for parts in refs.values():
        for part in parts:
            counts[part] = counts.get(part, 0) + 1
    out = []
    for result in results:
        lines = {f.line for f in result.findings if f.code in CODES}
        if result.path.endswith(".py") and lines:
            text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
            tree = fileio.parse_python(text) if text is not None and _CHECK_TEXT.search(text) else None
            if tree is not None:
                own = refs.get(result.path, frozenset())
                imported = frozenset(part for part, n in counts.items() if n > (part in own))
                dropped = guarded_lines(tree, lines, imported)
                if dropped:
                    result = result.keeping(lambda f, dropped=dropped: not (f.code in CODES and f.line in dropped))
        out.append(result)
    return out
