"""The compiled module held by a project loader object, read through its member (NPU508).

A repository may keep its JIT build inside an object of its own class instead of a module variable:

    class Extension:                              class ComplieHelper:
        @property                                     def complie(self):
        def lib(self):                                    self.__CUDA_EXTENTION__ = load(name="Impls",
            if self._lib is None:                              sources=[..., "linear.cu"], with_cuda=True)
                self._lib = load(name=self.name, ...)     @property
            return self._lib                              def CUDA_EXTENSION(self):
                                                              return self.__CUDA_EXTENTION__
    ext = Extension("pkg_cuda", sources=["k.cu"],     CUDA_COMPLIER = ComplieHelper()
                    extra_cuda_cflags=[...])          CUDA_COMPLIER.CUDA_EXTENSION.QuantizeTensor_LT(t, ...)
    ext.lib.unpack(t, bits)

The object is no compiled module (its own attributes are the class's: `ext.name`, `ext.clear_cache()`,
migrate/kernel_values.py `loader_object`), but one member of it is: an attribute the class binds to a JIT build
(`self.X = load(...)`) and a property returning that attribute. Each call of an attribute of that member through a
module-level name bound once to the object (`ext.lib.unpack(...)`) calls an op of the extension. The extension is
the object's construction when that call is itself the CUDA build (a project class given `.cu` sources or nvcc
flags: the class is then imported from another module and not read; its public member read as `obj.member.op(...)`
stands for the module, a member the construction names as a keyword (`ext.sources`) does not), else the build
inside the class of the file (`with_cuda=True` in the method). Read from one file's syntax tree; nothing executed.
"""

from __future__ import annotations

import ast

HINT = "self."
# methods of the builtin values a loader object's own data holds (`ext.name.upper()`, `ext.sources.append(...)`):
# through a member the class is not read for, such a call is on the object's data, not an op
_DATA_METHODS = frozenset(n for t in (str, list, dict, set, tuple) for n in dir(t) if not n.startswith("_"))


def _members(cls: ast.ClassDef, build_lines) -> tuple[frozenset[str], int | None]:
    """The members of `cls` holding its JIT build: each `self.X = <call>` attribute (with the line of that call when it
    is a build of this file, in `build_lines`) and each property returning `self.X`."""
    held: dict[str, int | None] = {}
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        owner = method.args.args[0].arg
        for node in ast.walk(method):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == owner \
                    and _is_load(node.value):
                line = node.value.lineno if node.value.lineno in build_lines else None
                held[target.attr] = held.get(target.attr) or line
    if not held:
        return frozenset(), None
    members = set(held)
    for method in cls.body:
        if isinstance(method, ast.FunctionDef) and method.args.args and any(
                isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list):
            owner = method.args.args[0].arg
            if any(isinstance(r, ast.Return) and isinstance(r.value, ast.Attribute) and r.value.attr in held
                   and isinstance(r.value.value, ast.Name) and r.value.value.id == owner for r in ast.walk(method)):
                members.add(method.name)
    return frozenset(members), next((line for line in held.values() if line is not None), None)


def _is_load(call: ast.Call) -> bool:
    """`load(...)` / `cpp_extension.load(...)` / `load_inline(...)`: a JIT build call by its last name part."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("load", "load_inline")


def _module_bindings(ctx) -> dict[str, ast.Call]:
    """Module-level names bound exactly once, to a call: name -> the call."""
    counts: dict[str, int] = {}
    calls: dict[str, ast.Call] = {}
    for statement in ctx.tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                counts[target.id] = counts.get(target.id, 0) + 1
                if isinstance(statement.value, ast.Call) and len(targets) == 1:
                    calls[target.id] = statement.value
    return {name: call for name, call in calls.items() if counts[name] == 1}


def held_modules(ctx, build_lines) -> dict[tuple[str, str], int]:
    """(object name, member) -> line of the build that member holds, for each module-level loader object of the
    file (`build_lines`: the lines of this file's extension definitions). A member `*` stands for any public member
    not named as a keyword of the construction (the class is read elsewhere)."""
    if HINT not in ctx.source and not build_lines:
        return {}
    classes = {c.name: c for c in ctx.tree.body if isinstance(c, ast.ClassDef)}
    out: dict[tuple[str, str], int] = {}
    for name, call in _module_bindings(ctx).items():
        callee = call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(call.func, ast.Attribute) else ""
        cls = classes.get(callee)
        if cls is not None:
            members, line = _members(cls, build_lines)
            line = call.lineno if call.lineno in build_lines else line
            if line is not None:
                out.update({(name, member): line for member in members})
        elif call.lineno in build_lines and callee[:1].isupper():  # a project class given the build's parameters
            out[(name, "*")] = call.lineno
            out.update({(name, k.arg): -1 for k in call.keywords if k.arg})  # `ext.sources`: the object's own data
    return out


def _build_methods(cls: ast.ClassDef, build_lines) -> dict[str, int]:
    """The methods of `cls` that run a JIT build of this file (`def complie(self): self.X = load(...)`): method -> line."""
    out: dict[str, int] = {}
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
                isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list):
            line = next((n.lineno for n in ast.walk(method) if isinstance(n, ast.Call) and n.lineno in build_lines
                         and _is_load(n)), None)
            if line is not None:
                out[method.name] = line
    return out


def build_calls(ctx, build_lines) -> dict[tuple[str, str], int]:
    """(object name, method) -> build line, for each module-level object of a class of this file and each method of
    that class that runs the class's JIT build (`CUDA_COMPLIER = ComplieHelper()`, `CUDA_COMPLIER.complie()`)."""
    if not build_lines or HINT not in ctx.source:
        return {}
    classes = {c.name: c for c in ctx.tree.body if isinstance(c, ast.ClassDef)}
    out: dict[tuple[str, str], int] = {}
    for name, call in _module_bindings(ctx).items():
        cls = classes.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if cls is not None:
            out.update({(name, method): line for method, line in _build_methods(cls, build_lines).items()})
    return out


def builder_values(ctx, defs) -> list:
    """`<module>.<object>.<method>` for each `build_calls` entry: a "value" definition of mode CALLED, so that the
    method's calls in other files of the scan (`from ppq.core.ffi import CUDA_COMPLIER`, `CUDA_COMPLIER.complie()`)
    are reported as loading the extension; the import of the object alone is not."""
    from migrate.called_kernels import CALLED
    from migrate.repo_index import Definition, module_parts

    built = {d.line: d.name for d in defs if d.kind == "module" and d.cuda}
    dotted = ".".join(module_parts(ctx.path))
    if not built or not dotted:
        return []
    return [Definition("value", f"{dotted}.{name}.{method}", ctx.path, line, True, built[line], CALLED)
            for (name, method), line in build_calls(ctx, built).items()]


def member_calls(ctx, build_lines):
    """(call, line of its build) for each `obj.member.op(...)` of the file through a loader object's member."""
    held = held_modules(ctx, build_lines)
    if not held:
        return
    objects = {name for name, _ in held}
    for call in ctx.nodes.get(ast.Call, ()):
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
                and isinstance(func.value.value, ast.Name) and func.value.value.id in objects):
            continue
        name, member = func.value.value.id, func.value.attr
        line = held.get((name, member))
        if line is None and not member.startswith("_") and (name, member) not in held and func.attr not in _DATA_METHODS:
            line = held.get((name, "*"))
        if line is not None and line > 0 and not func.attr.startswith("_"):
            yield call, line
