"""GPU-only packages carried into other modules of the repository by star imports (NPU510).

`Utils.py` imports a GPU-only package at its top (`import nvdiffrast.torch as dr`); `estimater.py` does
`from Utils import *` and calls `dr.RasterizeCudaContext()`, and `run_demo.py` does `from estimater import *`
and calls it again. A star import copies every public module-level name, so `dr` is nvdiffrast in both; no
per-file rule sees it (neither file imports the package), and a plain import of a GPU-only package is no
NPU510 export (every file importing one would be an exporter, and every file importing such a file linked).

Recorded instead, in the same parse:
- in each file, its module-level plain imports of a GPU-only package (`import X as Y`, `import X`), not
  guarded by a fallback: def facts of kind "starexp" (`star_exports`), which the index keeps only for the
  modules some file star-imports (`repo_index.build_index`); they export nothing to `from Utils import dr`
  or `Utils.dr` (those stay plain reads of a module attribute);
- in a star-importing file, the names it reads that nothing in it binds (`free_names`): linking binds each to
  `<star-imported module>.<name>` (`bind_star_imports`, and the `link_sites` pairs for linking from the facts)
  where the index resolves that name, through the star imports of the modules in between
  (`Index.export_for`), to a "starexp" name or a NPU510 export (`from pointnet2_ops import pointnet2_utils`).
A name a later star import also resolves is the later one's, as Python binds it.
"""

from __future__ import annotations

import ast
import builtins
import functools

from migrate.reexports import _module_statements, alias_target


def star_exports(ctx) -> list[tuple[str, int, bool, str]]:
    """(name bound, line, error, package name) for each module-level plain import of a GPU-only package
    (`import nvdiffrast.torch as dr` -> dr, nvdiffrast.torch; `import kaolin` -> kaolin); not a private name,
    not one whose import a fallback guards (`try: import kaolin except ImportError: kaolin = None`)."""
    from migrate.rules.npu501_gpu_only_import import fallback_guarded_names  # rules import reexports

    out = []
    optional: frozenset[str] | None = None
    for statement in _module_statements(ctx.tree.body):
        if not isinstance(statement, ast.Import):
            continue
        for alias in statement.names:
            name = alias.asname or alias.name.split(".", 1)[0]
            qual = alias.name if alias.asname else name
            hit = alias_target(qual)
            if hit is None or hit[2] != "alias" or name.startswith("_"):
                continue
            if optional is None:
                optional = fallback_guarded_names(ctx)
            if name not in optional:
                out.append((name, getattr(alias, "lineno", statement.lineno), hit[1], hit[0]))
    return out


def star_statements(ctx) -> list[tuple[ast.ImportFrom, str]]:
    """(statement, module) of each star import, a relative one resolved as linking resolves it, in source order."""
    from migrate.repo_index import _resolve_relative

    out = []
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if len(statement.names) != 1 or statement.names[0].name != "*":
            continue
        module = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level \
            else statement.module or ""
        if module:
            out.append((statement, module))
    out.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@functools.lru_cache(maxsize=1)
def _builtin_names() -> frozenset:
    return frozenset(dir(builtins))


def free_names(ctx) -> frozenset[str]:
    """Names a file with a star import reads where no scope around the read binds them (no assignment, parameter,
    def, class or handler of that name in the module or an enclosing function, no import of it anywhere, no
    `global` of it) and that are no builtins: what its star imports bind."""
    cached = ctx.__dict__.get("_npu_star_free_names")
    if cached is not None:
        return cached
    out: set[str] = set()
    if any(a.name == "*" for s in ctx.nodes.get(ast.ImportFrom, ()) for a in s.names):
        bound: dict[int | None, set[str]] = {}  # id(scope) (None: the module) -> the names it binds

        def scope_of(node):
            scope = ctx.enclosing(node, _SCOPES)
            return None if scope is None else id(scope)

        for n in ctx.nodes.get(ast.Name, ()):
            if n.ctx.__class__ is not ast.Load:
                bound.setdefault(scope_of(n), set()).add(n.id)
        for a in ctx.nodes.get(ast.arg, ()):
            bound.setdefault(scope_of(a), set()).add(a.arg)
        for h in ctx.nodes.get(ast.ExceptHandler, ()):
            if h.name:
                bound.setdefault(scope_of(h), set()).add(h.name)
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            for d in ctx.nodes.get(kind, ()):
                bound.setdefault(scope_of(d), set()).add(d.name)
        module = bound.setdefault(None, set())
        for kind in (ast.Import, ast.ImportFrom):
            for statement in ctx.nodes.get(kind, ()):
                module.update((a.asname or a.name).split(".", 1)[0] for a in statement.names)
        for statement in ctx.nodes.get(ast.Global, ()):
            module.update(statement.names)
        builtin = _builtin_names()
        for n in ctx.nodes.get(ast.Name, ()):
            if n.ctx.__class__ is not ast.Load or n.id in module or n.id in builtin or n.id.startswith("__") or n.id in out:
                continue
            scope = ctx.enclosing(n, _SCOPES)
            while scope is not None and n.id not in bound.get(id(scope), ()):
                scope = ctx.enclosing(scope, _SCOPES)
            if scope is None:
                out.add(n.id)
    ctx.__dict__["_npu_star_free_names"] = frozenset(out)
    return ctx.__dict__["_npu_star_free_names"]


def star_pairs(ctx) -> list[tuple[str, str]]:
    """(free name, `<module>.<name>`) for each free name and each star import, in the order the imports bind."""
    names = free_names(ctx)
    if not names:
        return []
    return [(name, f"{module}.{name}") for _, module in star_statements(ctx) for name in sorted(names)]


def bind_star_imports(ctx, known) -> bool:
    """Bind in `ctx.imports` each free name (`free_names`) to `<module>.<name>` of the last star import whose
    full name `known` accepts; True when any was bound."""
    bound = False
    names = free_names(ctx)
    if not names:
        return False
    for statement, module in star_statements(ctx):
        for name in sorted(names):
            if known(f"{module}.{name}"):
                ctx.bind_import(statement, name, f"{module}.{name}")
                bound = True
    return bound
