"""Project names whose every *call* runs compiled code, though the name itself is plain Python (NPU508).

Two shapes hand a repository's compiled ops and classes to the rest of its code under a name of its own:

- an **op accessor**: a function that looks an op or class up by the name it is given,
  `def _make_lazy_cuda_func(name): ... return getattr(torch.ops.myext, name)(*args)` (also through a nested
  closure it returns), `getattr(torch.classes.myext, name)`, or `getattr(_C, part)` on the compiled module
  (`obj = _C` first). Each call `_make_lazy_cuda_func("rasterize")(...)`, in its module or in one that imports
  it, is a call of the compiled op named there;
- a **class alias**: `Projection = torch.classes.myext.Projection` at module level (a class registered with
  `m.class_<T>(...)` in a `TORCH_LIBRARY(myext, m)` block). Each construction `Projection(...)` builds an
  object of the compiled class.

A name bound to what an accessor call returns (`Cls = _make_lazy_cuda_cls("Camera")` in a function, or
`cls._cuda_cls = ...` in a class) stands for the compiled class: its calls and method calls (`Cls(...)`,
`Cls.create(...)`, `cls._cuda_cls.get_max_order()`) are reported too (`result_calls`).

A **lazy op alias**: a module-level name bound to a call of a *deferred* accessor of the same file, one whose
lookup sits only in the closure it returns (`def _make_lazy_cuda_func(name): def call(*a): ... return getattr(_C,
name)(*a); return call`, then `contract = _make_lazy_cuda_func("contract")`). The binding looks nothing up and
runs nothing (label ruling (L46): an alias binding is no line), so it is not reported; each call through the name
is, in the file (`contract(x)`) and in its importers (`_C.contract(x)` after `import pkg.cuda as _C`). Such names
are definitions of mode `LAZY_OP`; a package `__init__` holding them stands for the compiled module, so a plain
import of the package that calls through it (`import pkg.cuda as _C`) is reported like the import of the
extension (`Index.holder`), while `from pkg.cuda import contract` is not (its calls are). An accessor that looks
the op up when it is called (`def _make_lazy_cuda_cls(name): from ._backend import _C; return getattr(...)`)
loads the extension at the binding: that binding stays a call of the accessor.

The import of such a name is not a line that changes (the accessor or alias stays; the op or class behind it
is what needs an NPU implementation), so only calls are reported: definitions of kind "value" and mode
`CALLED`, which `kernel_values.resolve_wrappers` keeps where the namespace or module they mention is one the
scan registers or builds. Read from one file's syntax tree in the per-file pass, like the other kernel values.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

CALLED = "call"  # mode of a kernel value whose calls (not its imports or mentions) run the compiled code
LAZY_OP = "lazy-op"  # mode of a module-level name bound to a deferred accessor's result (a lazy op alias)
HINTS = ("getattr(", "torch.classes.")


def _namespace(ctx, node) -> tuple[str, str] | None:
    """("ops" / "classes", namespace) for `torch.ops.<ns>` / `torch.classes.<ns>` (through the file's imports)."""
    name = ctx.qualname(node) if isinstance(node, ast.Attribute) else None
    parts = name.split(".") if name else []
    if len(parts) == 3 and parts[0] == "torch" and parts[1] in ("ops", "classes"):
        return parts[1], parts[2]
    return None


def called_values(ctx) -> list:
    """This file's op accessors and class aliases (see the module docstring) as "value" definitions of mode
    `CALLED`."""
    from migrate.kernel_values import OPS, _imported_names
    from migrate.repo_index import Definition, _never_an_extension, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    # the file's imported names (relative ones resolved), never torch or the standard library
    local = {k: {v} for k, v in _imported_names(ctx).items() if not _never_an_extension(v)}
    out = []
    deferred: dict[str, str] = {}  # name of a deferred accessor of the file -> what it looks ops up in
    for statement in ctx.tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            found = _namespace(ctx, statement.value.value) if isinstance(statement.value, ast.Attribute) else None
            if found is not None and found[0] == "classes":
                out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, statement.value.lineno, True,
                                      f"{OPS}{found[1]}::{statement.value.attr}", CALLED))
        elif isinstance(statement, ast.FunctionDef) and statement.args.args and "getattr(" in (ctx.segment(statement) or ""):
            why = _looked_up(ctx, statement, local)
            if why:
                out.append(Definition("value", f"{dotted}.{statement.name}", ctx.path, statement.lineno, True, why, CALLED))
                if _defers(statement):
                    deferred[statement.name] = why
    for statement, accessor in lazy_bindings(ctx, deferred):
        out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, statement.lineno, True,
                              deferred[accessor], LAZY_OP))
    return out


def _defers(function) -> bool:
    """`function` returns a closure of its own and looks ops up only inside nested functions: calling it runs
    no lookup (`def _make_lazy_cuda_func(name): def call_cuda(*args): ...getattr(_C, name)(*args); return call_cuda`)."""
    nested = {n.name: n for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not nested or not any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in nested
                             for n in function.body):
        return False
    inner = {id(n) for f in nested.values() for n in walk_nodes(f)}
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr" and id(n) not in inner
                   for n in walk_nodes(function))


def lazy_bindings(ctx, deferred) -> list[tuple[ast.Assign, str]]:
    """Module-level `name = accessor("op")` statements of the file whose accessor is one of `deferred` (names of
    deferred accessors; or, given a collection of names, those): the lazy op aliases (module docstring), with the
    accessor's name."""
    out = []
    for statement in ctx.tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
                and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Name) \
                and statement.value.func.id in deferred and len(statement.value.args) == 1 \
                and isinstance(statement.value.args[0], ast.Constant) and isinstance(statement.value.args[0].value, str):
            out.append((statement, statement.value.func.id))
    return out


def _looked_up(ctx, function, local: dict[str, set[str]]) -> str | None:
    """What `function` looks an op up in by a computed name (`getattr(torch.ops.ns, name)`, `getattr(obj, part)`
    after `obj = _C`): `ops:<ns>::*` or the dotted names of the imported modules; None when it looks up nothing
    such, or only by a literal (`getattr(_C, "version")`), or returns nothing."""
    from migrate.kernel_values import OPS, _refs

    nodes = list(walk_nodes(function))  # walked once for the three questions below (torch: ~1,000 functions of ~300 nodes)
    if not any(isinstance(n, ast.Return) and n.value is not None for n in nodes):
        return None
    scope = dict(local)
    for node in nodes:  # `obj = _C`: a local name for the compiled module
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in scope:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.setdefault(target.id, set()).update(scope[node.value.id])
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and len(node.args) >= 2) or isinstance(node.args[1], ast.Constant):
            continue
        found = _namespace(ctx, node.args[0])
        if found is not None:
            return f"{OPS}{found[1]}::*"
        if isinstance(node.args[0], ast.Name):
            refs = _refs(node.args[0], scope)
            if refs:
                return " ".join(sorted(refs))
    return None


def result_calls(ctx, accessor_calls: dict[int, object]) -> list[tuple[ast.Call, object]]:
    """Calls through a name bound to what an accessor call returned (`accessor_calls`: id(call) -> definition): a local
    of the function, `Cls = _make_lazy_cuda_cls("Camera")` then `Cls(...)` / `Cls.create(...)`, or an attribute of the
    class or instance, `cls._cuda_cls = _make_lazy_cuda_cls("Params")` then `cls._cuda_cls.get_max_order()` /
    `cls._cuda_cls()` in any method of the class (label ruling 24b-9: constructions of the compiled class and calls on
    it). The names are read in the binding's function (a local) or class (an attribute of `cls` / `self`); a call on a
    local before the line that binds it is another name's."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    locals_: dict[tuple[int, str], tuple[object, int]] = {}
    members: dict[tuple[int, str], object] = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        definition = accessor_calls.get(id(statement.value))
        if definition is None or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            key = (id(ctx.enclosing(statement, functions)), target.id)
            locals_.setdefault(key, (definition, statement.lineno))
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in ("cls", "self"):
            members[(id(ctx.enclosing(statement, (ast.ClassDef,))), target.attr)] = definition
    out = []
    for call in ctx.nodes.get(ast.Call, ()) if locals_ or members else ():
        func = call.func
        holder = func.value if isinstance(func, ast.Attribute) and not func.attr.startswith("_") else func
        if id(call) in accessor_calls:
            continue
        if isinstance(holder, ast.Name):
            found = locals_.get((id(ctx.enclosing(call, functions)), holder.id))
            if found is not None and found[1] < call.lineno:
                out.append((call, found[0]))
        elif isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id in ("cls", "self"):
            definition = members.get((id(ctx.enclosing(call, (ast.ClassDef,))), holder.attr))
            if definition is not None:
                out.append((call, definition))
    return out
