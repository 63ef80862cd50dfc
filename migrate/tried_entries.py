"""NPU508: an extension behind a None stand-in whose only ways in are calls tried with a PyTorch fallback.

A vendored op module often imports its compiled extension in an attempt whose handler binds the name to None, and
wraps the ops in an autograd Function; the product module calling that Function tries it and falls back to a plain
PyTorch implementation of the same op:

    # functions/deform_attn_func.py
    try:
        import DeformAttnExt as ext
    except ModuleNotFoundError:
        ext = None                                          # no flag: ext.forward(...) would fail on None

    class DeformAttnFunction(Function):
        @staticmethod
        def forward(ctx, value, locations, weights):
            return ext.forward(value, locations, weights)   # the use

    # modules/deform_attn.py
    from ..functions import DeformAttnFunction
    ...
        try:
            out = DeformAttnFunction.apply(value, locations, weights)
        except Exception:                                   # or a bare `except:`
            out = deform_attn_pytorch(value, locations, weights)

On an Ascend host the import fails, `ext.forward` raises on None inside the tried call and the handler computes the
same result in PyTorch: the module has a working way without the extension (label note 49b-2, read with (L42)/(L59)),
so neither the guarded import nor the uses of the name are reported. The build and its .cu sources stay reported.

Conditions, all of them: the import lies in a module-level `try:` whose handlers catch a failed import and bind the
imported name to None (a flag-setting attempt is migrate/flagged_extensions.py's); every read of the name in its file
lies in a module-level def or class (a holder); every read of a holder's name, in its own file and in each file of the
scan that refers to it (its "ref" facts), lies in the body of a `try:` one of whose handlers catches any exception
(bare, `Exception`, `BaseException`) and binds a name the `try:` body binds too, or both return (the same result by
another way); and at least one such tried read exists in a file that is not a test (a module's own unit test calling
it unguarded tests that side: label ruling (L58)). Kept (reported): a name read at module level or outside a holder, a
holder read anywhere outside such a `try:` (a second product caller, a re-export to `__all__` counts only as a name),
a holder nobody reads (its callers are not in the scan).
"""

from __future__ import annotations

import ast
import re

CODES = frozenset({"NPU508"})
_ANY = frozenset({"Exception", "BaseException"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# a test's or benchmark's path (`ops/test.py` beside the op, tests/, test_*.py): its unguarded calls test that side
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing|benchmarks?)/|(?:^|/)test(?:_[^/]*)?\.py$|_test\.py$")


def _catches_anything(handler: ast.ExceptHandler) -> bool:
    kind = handler.type
    if kind is None:
        return True
    kinds = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(isinstance(k, ast.Name) and k.id in _ANY for k in kinds)


def _stored(statements: list[ast.stmt]) -> set[str]:
    """Names these statements bind by assignment at any depth (not inside nested defs' own scopes is not needed)."""
    return {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _returns(statements: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for s in statements for n in ast.walk(s))


def _fallback_try(attempt: ast.Try) -> bool:
    """A handler catching anything computes what the `try:` body computes (binds a name it binds, or returns)."""
    body_names, body_returns = _stored(attempt.body), _returns(attempt.body)
    return any(_catches_anything(h) and ((body_names & _stored(h.body)) or (body_returns and _returns(h.body)))
               for h in attempt.handlers)


def _tried_spans(tree: ast.Module) -> list[tuple[int, int]]:
    return [(t.body[0].lineno, t.body[-1].end_lineno or t.body[-1].lineno)
            for t in ast.walk(tree) if isinstance(t, ast.Try) and t.body and _fallback_try(t)]


def _reads(tree: ast.Module, name: str) -> list[int]:
    """The lines reading `name`: a loaded bare name or an attribute of that name (`pkg.Fn`)."""
    return [n.lineno for n in ast.walk(tree)
            if (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load))
            or (isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Load))]


def _all_tried(lines: list[int], spans: list[tuple[int, int]]) -> bool:
    return all(any(a <= line <= b for a, b in spans) for line in lines)


def _stand_in_imports(tree: ast.Module) -> list[tuple[ast.stmt, set[str]]]:
    """Module-level import attempts whose handlers catch a failed import and bind the imported names to None."""
    from migrate.flagged_extensions import _bound_name, _flags_set
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    out = []
    for attempt in tree.body:
        if not isinstance(attempt, ast.Try) or not attempt.handlers or _flags_set(attempt):
            continue
        if not all(_catches_import_error(h) for h in attempt.handlers):
            continue
        imports = [s for s in attempt.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        names = {_bound_name(s, a) for s in imports for a in s.names if a.name != "*"}
        nones = {t.id for h in attempt.handlers for s in h.body if isinstance(s, ast.Assign)
                 and isinstance(s.value, ast.Constant) and s.value.value is None for t in s.targets if isinstance(t, ast.Name)}
        if names and names <= nones:
            out.extend((s, names) for s in imports)
    return out


def tried_lines(tree: ast.Module, path: str, lines: set[int], other_trees) -> set[int]:
    """Those of `lines` (NPU508 findings of `tree`) on an import with a None stand-in, or reading its name, whose
    holders are entered only through calls tried with a fallback. `other_trees(name)`: (path, tree) of each other
    file of the scan that refers to `name`."""
    out: set[int] = set()
    for statement, names in _stand_in_imports(tree):
        holders = []
        ok = True
        for name in names:
            for line in _reads(tree, name):
                holder = next((s for s in tree.body if isinstance(s, _DEFS)
                               and s.lineno <= line <= (s.end_lineno or s.lineno)), None)
                if holder is None:
                    ok = False
                    break
                holders.append(holder)
        if not ok or not holders:
            continue
        product_tried = False
        for holder in {id(h): h for h in holders}.values():
            own = [line for line in _reads(tree, holder.name)
                   if not holder.lineno <= line <= (holder.end_lineno or holder.lineno)]
            files = [(path, tree, own)] + [(p, t, _reads(t, holder.name)) for p, t in other_trees(holder.name)]
            for file_path, file_tree, reads in files:
                if not reads:
                    continue
                testing = _TEST_PATH.search(file_path.replace("\\", "/")) is not None
                if not _all_tried(reads, _tried_spans(file_tree)):
                    if testing:
                        continue
                    ok = False
                    break
                product_tried = product_tried or not testing
            if not ok:
                break
        if not ok or not product_tried:
            continue
        span = set(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
        out |= {line for line in lines if line in span}
        out |= {line for name in names for line in _reads(tree, name) if line in lines}
    return out


def drop_tried_uses(results: list, fresh: dict, max_file_size: int) -> list:
    """`results` less the NPU508 findings of extensions whose only ways in are tried with a fallback (module doc)."""
    from migrate import engine
    from migrate.importer_tested_stand_ins import STAND_IN_FACT
    from migrate.optional_modules import ref_parts

    hinted = {r.path for r in results if r.path.endswith(".py") and STAND_IN_FACT in (r.facts or ())
              and any(f.code in CODES for f in r.findings)}
    if not hinted:
        return results
    refs = {r.path: ref_parts(r) for r in results if r.path.endswith(".py")}
    tree_of = engine.trees_again(fresh, max_file_size)  # a hinted file read as another's importer is parsed once
    out = []
    for result in results:
        lines = {f.line for f in result.findings if f.code in CODES}
        if result.path in hinted and lines:
            text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
            tree = tree_of(result.path) if text is not None and "None" in text and "try:" in text else None
            if tree is not None:
                def others(name: str, own: str = result.path):
                    for path, parts in refs.items():
                        if path != own and name in parts and (other := tree_of(path)) is not None:
                            yield path, other
                dropped = tried_lines(tree, result.path, lines, others)
                if dropped:
                    result = result.keeping(lambda f, dropped=dropped: not (f.code in CODES and f.line in dropped))
        out.append(result)
    return out
