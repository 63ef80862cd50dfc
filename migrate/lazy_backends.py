"""Module attributes that a PEP 562 module `__getattr__` resolves to a compiled extension on first access (NPU508).

A package that must import on a machine without its CUDA extension defers loading it to the first access of a
module attribute: `pkg/kernels/_backend.py` defines no `_CUDA` itself, but lists it in `__all__` and binds a module
`__getattr__` that imports a prebuilt module or JIT-builds one and returns it. Two shapes:

- a `def __getattr__(name)` comparing `name` with the attribute's name and returning a loader's result
  (`if name == "_C": return _get_backend()`, where `_get_backend` returns the extension: an accessor,
  kernel_values.wrapper_values);
- a module-level binding of `__getattr__` by a factory given a loader of the file (`_get, __getattr__ =
  make_lazy_backend(public_name="_CUDA", prebuilt_module="pkg_cuda", jit_loader=_build)` with `def _build(): from
  .cuda.build import build_and_load; return build_and_load()`): the attributes `__all__` names and the module does
  not bind stand for what the loader returns.

Recorded as "value" definitions `pkg.kernels._backend._CUDA` of mode `kernel_values.LAZY` mentioning the loaders'
results (`ret:` refs), which `kernel_values.resolve_wrappers` keeps where a loader is an accessor of an extension
of the scan. Then `_backend._CUDA.op(...)` (after `from . import _backend`) and `from pkg.kernels._backend import
_CUDA` are uses of the extension; `from . import _backend` alone is not (importing the loader module loads nothing:
that is what the `__getattr__` is for). Read from one file's syntax tree in the per-file pass.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

HINT = "__getattr__"


def _all_names(ctx) -> list[str]:
    """The string literals of the module's `__all__ = [...]` / `(...)`."""
    out: list[str] = []
    for statement in ctx.tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets) \
                and isinstance(statement.value, (ast.List, ast.Tuple)):
            out += [e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return out


def _bound_names(ctx) -> set[str]:
    """Names the module binds itself at its top level (also in its `if` / `try` blocks): those shadow `__getattr__`."""
    out: set[str] = set()
    statements = list(ctx.tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (ast.If, ast.Try)):
            statements += statement.body + statement.orelse + getattr(statement, "finalbody", [])
            statements += [s for h in getattr(statement, "handlers", ()) for s in h.body]
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".", 1)[0] for a in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                out.update(n.id for n in walk_nodes(target) if isinstance(n, ast.Name))
    return out


def _loader_refs(ctx, node, functions: set[str], dotted: str, imported: dict[str, str]) -> set[str]:
    """What a loader handed over or called stands for: the result (`ret:`) of a function of this file or of an
    imported one."""
    from migrate.kernel_values import RETURNED

    if isinstance(node, ast.Name) and node.id in functions:
        return {f"{RETURNED}{dotted}.{node.id}"}
    if isinstance(node, ast.Name) and node.id in imported:
        return {RETURNED + imported[node.id]}
    return set()


def lazy_values(ctx) -> list:
    """This file's lazily loaded module attributes (see the module docstring) as "value" definitions of mode LAZY."""
    from migrate.kernel_values import LAZY, _imported_names
    from migrate.repo_index import Definition, _never_an_extension, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    functions = {s.name for s in ctx.tree.body if isinstance(s, ast.FunctionDef)}
    imported = {k: v for k, v in _imported_names(ctx).items() if not _never_an_extension(v)}
    listed = [n for n in _all_names(ctx) if n not in _bound_names(ctx)]
    out = []
    for statement in ctx.tree.body:
        names: list[str] = []
        refs: set[str] = set()
        if isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__" and statement.args.args:
            parameter = statement.args.args[0].arg
            for node in walk_nodes(statement):  # `name == "_C"`, `name in ("_C", "_D")`
                if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == parameter:
                    for right in node.comparators:
                        names += [e.value for e in walk_nodes(right) if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                elif isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                    refs |= _loader_refs(ctx, node.value.func, functions, dotted, imported)
            names = names or listed
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and any(
                isinstance(n, ast.Name) and n.id == HINT for t in statement.targets for n in walk_nodes(t)):
            call = statement.value
            for node in [*call.args, *(k.value for k in call.keywords)]:
                refs |= _loader_refs(ctx, node, functions, dotted, imported)
            names = listed
        if names and refs:
            why = " ".join(sorted(refs))
            out += [Definition("value", f"{dotted}.{name}", ctx.path, statement.lineno, True, why, LAZY)
                    for name in dict.fromkeys(names) if name.isidentifier()]
    return out
