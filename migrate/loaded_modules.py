"""Names bound to the compiled module a third-party package's own loader returns (NPU507).

A package whose CUDA extension is optional hands it out through a loader that imports it or returns None, and a
project calls the kernels through the returned value, past the package's own PyTorch fallback:

    from svox.helpers import _get_c_extension     # the loader (knowledge: `loads_module = "svox.csrc"`)
    _C = _get_c_extension()                       # the loader's call: it imports svox.csrc (reported as its use)

    def weights(grid, cam):
        opts = _C.RenderOptions()                 # a class of svox.csrc: compiled only in the CUDA build
        return _C.grid_weight_render(grid, cam, opts)

Each call of an attribute of the name is a call into the compiled module, read as `svox.csrc.RenderOptions` against
the knowledge base (label ruling (L31): the loader's line and the calls through it are labels, a test of the name
against None is not). The name is bound in one scope (a function, or the module) by calls of the loader only; a
function's binding is read in that function below it, a module-level one wherever a function does not bind the name
itself. Read from one file's syntax tree; nothing executed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from migrate.rules._device_helpers import binding_scope


@dataclass(frozen=True)
class LoadedModule:
    name: str
    scope: int | None  # id() of the function binding the name; None: module level
    line: int  # the first line binding it
    module: str  # the dotted compiled module the loader returns


@dataclass(frozen=True)
class ModuleCall:
    call: ast.Call
    loaded: LoadedModule
    qual: str  # the called name inside the module: `svox.csrc.grid_weight_render`


def _chain(node: ast.AST) -> tuple[str, list[str]] | None:
    """(root name, attributes) of `root.a.b`, None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, parts[::-1]) if isinstance(node, ast.Name) and parts else None


def loaded_modules(ctx, loader_module) -> dict[tuple[int | None, str], LoadedModule]:
    """(scope id, name) -> the compiled module, for every name all of whose bindings in its scope are calls of a loader
    (`loader_module(qualified name of the callee)` returns the module it loads, None for any other callee)."""
    found: dict[tuple[int | None, str], LoadedModule] = {}
    other: set[tuple[int | None, str]] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
            continue
        name = statement.targets[0].id
        scope = binding_scope(ctx, statement.targets[0], name)
        key = (id(scope) if scope is not None else None, name)
        value = statement.value
        qual = ctx.qualname(value.func) if isinstance(value, ast.Call) else None
        module = loader_module(qual) if qual else None
        if module is None:
            other.add(key)
            continue
        known = found.get(key)
        if known is not None and known.module != module:
            other.add(key)
        elif known is None:
            found[key] = LoadedModule(name, key[0], statement.lineno, module)
    if found:  # any other binding of the name in its scope (a loop target, `with ... as`, a parameter)
        for node in ctx.nodes.get(ast.Name, ()):
            if isinstance(node.ctx, (ast.Store, ast.Del)) and not isinstance(ctx.parent(node), ast.Assign):
                scope = binding_scope(ctx, node, node.id)
                other.add((id(scope) if scope is not None else None, node.id))
    return {key: loaded for key, loaded in found.items() if key not in other}


def module_calls(ctx, loaded: dict[tuple[int | None, str], LoadedModule]) -> list[ModuleCall]:
    """Each call of an attribute of a loaded module's name, where that name is the binding's (below a function's own
    binding; anywhere for a module-level one)."""
    if not loaded:
        return []
    names = {name for _, name in loaded}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        chain = _chain(call.func)
        if chain is None or chain[0] not in names or ctx.qualname(call.func) is not None:
            continue
        root, attributes = chain
        scope = binding_scope(ctx, call, root)
        found = loaded.get((id(scope) if scope is not None else None, root))
        if found is None or (found.scope is not None and call.lineno < found.line):
            continue
        out.append(ModuleCall(call, found, ".".join((found.module, *attributes))))
    return out
