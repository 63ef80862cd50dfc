"""Compiled modules handed out by a project's op-builder classes (NPU508).

DeepSpeed-style projects build each extension through a class of their own, whose base class does the JIT build
in a method and other files subclass it:

    # op_builder/builder.py
    class OpBuilder:
        def load(self):
            return self.jit_load()                     # delegates to another method of the class
        def jit_load(self):
            op_module = load(name=self.name, sources=self.sources(), extra_cuda_cflags=self.nvcc_args())
            return op_module                            # a CUDA JIT build, returned through a local

    # op_builder/fused_adam.py
    class FusedAdamBuilder(CUDAOpBuilder): ...     # CUDAOpBuilder(OpBuilder) in builder.py

    # ops/adam/fused_adam.py
    self.fused_adam_cuda = FusedAdamBuilder().load()   # binding it runs the build (label rule 36d-7)
    self.fused_adam_cuda.multi_tensor_adam(...)          # an op of the compiled module

No chain of imported names reaches the compiled module: the class and the method do. Per file (facts cached with
it): each class with its bases (last names) and the methods that return a CUDA JIT build (directly, through a local
bound to it, or `return self.other(...)` of such a method: kept as a delegation, resolved per subclass); and each
site binding `C(...).m()` (also `b = C(...)` then `b.m()` in one function) to a name or `self.X`, with the calls
made through it: `X.op(...)` in the function for a local, anywhere in the file for a module global (bound at module
level or under `global X`), `self.X.op(...)` in the class's methods.

After the scan, a site is NPU508 (the binding line and each call) where every class of the scan named `C` reaches,
through its bases (by name, in any file), a method `m` that builds CUDA. Not where one of them is a builder behind
an accelerator abstraction with an NPU side (label ruling (L50), migrate/accelerator_builders.py): there the NPU
builder answers. Aliases picked by a condition (`f = mod.op_fp16 if fp16 else mod.op_fp32`) are not calls.
"""

from __future__ import annotations

import ast
import re

from migrate.findings import Category, FileResult, Finding, Severity

CODE = "NPU508"
CLASS = "bcls"  # fact: "Cls|base base|m1 m2>k" (m1 builds, m2 returns self.k(...)); cuda: a method builds here
SITE = "bsite"  # fact: "Cls.method" at a binding line or a call through the bound name; why: "bind" or "call"
_CAPWORDS = re.compile(r"^_*[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")
_HINT = re.compile(r"\bclass\s+\w+\s*\(\s*[\w.]*[A-Z]|[A-Z]\w*\([^()\n]*\)\s*(?:\.\s*\w+\s*\(|$)", re.M)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CUDA_SOURCES = (".cu", ".cuh")
_ERROR = "does not exist on an NPU host until its kernels are ported to Ascend C (registered with torch_npu) or " \
         "replaced by torch / torch_npu ops"


def wants(text: str) -> bool:
    """A subclass, a class of a file that JIT-builds, or a construction of a CapWords name may be here."""
    return _HINT.search(text) is not None or ("cpp_extension" in text and "class " in text)


def _last(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _building_methods(ctx, cls: ast.ClassDef, returns: list) -> list[str]:
    """`m` for a method returning a CUDA JIT build, `m>k` for one returning `self.k(...)`. `returns`: the file's
    `return self.k(...)` statements (`_self_returns`), in `ast.walk` order. A method holding no CUDA build call
    (kernel_values._functions_building_cuda: one pass over the file's calls) can only delegate: its first such return
    is found by its lines, without walking the method (every class of every file comes here)."""
    from migrate.kernel_values import _functions_building_cuda, _is_cuda_build

    building = _functions_building_cuda(ctx)
    out = []
    for item in cls.body:
        if not isinstance(item, _FUNCTIONS):
            continue
        if id(item) not in building:
            first, last = item.lineno, item.end_lineno or item.lineno
            delegate = next((attr for line, attr in returns if first <= line <= last), None)
            if delegate is not None:
                out.append(f"{item.name}>{delegate}")
            continue
        built: set[str] = set()
        found: list[ast.AST] = []
        for node in ast.walk(item):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _is_cuda_build(ctx, node.value):
                built.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.Return) and node.value is not None:
                found.append(node.value)
        for value in found:
            if (isinstance(value, ast.Call) and _is_cuda_build(ctx, value)) or (isinstance(value, ast.Name) and value.id in built):
                out.append(item.name)
                break
            func = value.func if isinstance(value, ast.Call) else None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                out.append(f"{item.name}>{func.attr}")
                break
    return out


def _self_returns(ctx) -> list[tuple[int, str]]:
    """(line, k) of every `return self.k(...)` of the file, in `ast.walk` order (ctx.nodes keeps it)."""
    out = []
    for node in ctx.nodes.get(ast.Return, ()):
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
                and value.func.value.id == "self":
            out.append((node.lineno, value.func.attr))
    return out


def _cuda_source_lines(ctx) -> list[int]:
    """Lines of the file's string constants naming a CUDA source (`"kernels/adam.cu"`)."""
    if ".cu" not in ctx.source:
        return []
    return [n.lineno for n in ctx.nodes.get(ast.Constant, ())
            if isinstance(n.value, str) and n.value.strip().endswith(_CUDA_SOURCES)]


def _constructed(value: ast.AST, constructions: dict[str, str]) -> tuple[str, str] | None:
    """(class, method) for `C(...).m()` or `b.m()` where `b = C(...)` in the same function."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    receiver, method = value.func.value, value.func.attr
    if isinstance(receiver, ast.Call) and _CAPWORDS.match(_last(receiver.func)):
        return _last(receiver.func), method
    if isinstance(receiver, ast.Name) and receiver.id in constructions:
        return constructions[receiver.id], method
    return None


def facts(ctx) -> list:
    """This file's builder classes and the sites binding what their methods return (see the module doc)."""
    from migrate.repo_index import Definition

    out = []
    classes = ctx.nodes.get(ast.ClassDef, ())
    returns = _self_returns(ctx) if classes else []
    sources = _cuda_source_lines(ctx) if classes else []
    for cls in classes:
        bases = [b for b in (_last(base) for base in cls.bases) if b and b != "object"]
        methods = _building_methods(ctx, cls, returns)
        if bases or methods:
            cuda = any(">" not in m for m in methods)
            first = min([cls.lineno, *(d.lineno for d in cls.decorator_list)])
            listed = "cu" if any(first <= line <= (cls.end_lineno or cls.lineno) for line in sources) else ""
            out.append(Definition(CLASS, f"{cls.name}|{' '.join(bases)}|{' '.join(methods)}|{listed}", ctx.path, cls.lineno, cuda))
    module_globals = {t.id for s in ctx.tree.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    scopes: dict[int, tuple[dict[str, str], set[str]]] | None = None  # id(function) -> its constructions, `global` names
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if not (len(statement.targets) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            continue
        if scopes is None:
            scopes = _scopes(ctx)
            constructed = {name for constructions, _ in scopes.values() for name in constructions}
        receiver = value.func.value
        if not (isinstance(receiver, ast.Call) and _CAPWORDS.match(_last(receiver.func))) and not (
                isinstance(receiver, ast.Name) and receiver.id in constructed):
            continue  # neither `C(...).m()` nor `b.m()` of a `b = C(...)` of the file (_constructed)
        function = ctx.enclosing(statement, _FUNCTIONS)
        constructions, declared = scopes.get(id(function), ({}, set()))
        built = _constructed(value, constructions)
        if built is None:
            continue
        key = f"{built[0]}.{built[1]}"
        out.append(Definition(SITE, key, ctx.path, statement.lineno, False, "bind", str(statement.col_offset)))
        for call in _calls_through(ctx, statement.targets[0], function, declared, module_globals):
            out.append(Definition(SITE, key, ctx.path, call.lineno, False, "call", str(call.col_offset)))
    return out


def _scopes(ctx) -> dict[int, tuple[dict[str, str], set[str]]]:
    """Per function (id; id(None): the module's top-level statements), its locals bound to a construction
    `b = C(...)` and its `global` names: one pass over the file's assignments and `global` statements."""
    out: dict[int, tuple[dict[str, str], set[str]]] = {}

    def scope_of(node):
        function = ctx.enclosing(node, _FUNCTIONS)
        if function is None and ctx.parent(node) is not ctx.tree:
            return None  # the module's scope is its top-level statements only
        return out.setdefault(id(function), ({}, set()))

    for s in ctx.nodes.get(ast.Assign, ()):
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call) \
                and _CAPWORDS.match(_last(s.value.func)):
            scope = scope_of(s)
            if scope is not None:
                scope[0][s.targets[0].id] = _last(s.value.func)
    for s in ctx.nodes.get(ast.Global, ()):
        scope = scope_of(s)
        if scope is not None:
            scope[1].update(s.names)
    return out


def _calls_through(ctx, target: ast.AST, function, declared: set[str], module_globals: set[str]) -> list[ast.Call]:
    """The calls `X.op(...)` / `self.X.op(...)` made through the bound target, where it stays bound (module doc)."""
    by_name, by_self = _method_calls(ctx)
    if isinstance(target, ast.Name):
        name = target.id
        module_wide = function is None or (name in declared and name in module_globals)
        scope = None if module_wide else function
        if not module_wide and name in declared:
            return []
        calls = by_name.get(name, ())
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        scope = ctx.enclosing(target, (ast.ClassDef,))
        if scope is None:
            return []
        calls = by_self.get(target.attr, ())
    else:
        return []
    if scope is not None:  # the calls of the scope's subtree: those within its lines (decorators included)
        first, last = min([scope.lineno, *(d.lineno for d in scope.decorator_list)]), scope.end_lineno or scope.lineno
        calls = [c for c in calls if first <= c.lineno <= last]
    out = []
    for call in calls:
        if scope is None and isinstance(target, ast.Name) and _shadowed(ctx, call, target.id):
            continue
        out.append(call)
    return out


def _method_calls(ctx) -> tuple[dict[str, list[ast.Call]], dict[str, list[ast.Call]]]:
    """The file's calls `X.op(...)` by X and `self.X.op(...)` by X, in `ast.walk` order: built once per file (each binding
    site looked through every call of the file)."""
    cached = ctx.__dict__.get("_npu_method_calls")
    if cached is None:
        by_name: dict[str, list[ast.Call]] = {}
        by_self: dict[str, list[ast.Call]] = {}
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if not isinstance(func, ast.Attribute):
                continue
            receiver = func.value
            if isinstance(receiver, ast.Name):
                by_name.setdefault(receiver.id, []).append(call)
            elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
                by_self.setdefault(receiver.attr, []).append(call)
        cached = ctx.__dict__["_npu_method_calls"] = (by_name, by_self)
    return cached


def _shadowed(ctx, call: ast.Call, name: str) -> bool:
    """`name` is a local of the function holding `call` (assigned there without `global`, or a parameter)."""
    function = ctx.enclosing(call, _FUNCTIONS)
    while function is not None:
        if any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(function)):
            return False
        params = function.args
        if any(a.arg == name for a in [*params.posonlyargs, *params.args, *params.kwonlyargs]):
            return True
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(function)):
            return True
        function = ctx.enclosing(function, _FUNCTIONS)
    return False


def _builds(classes: dict, name: str, method: str, seen: frozenset = frozenset()) -> tuple[str, int] | None:
    """(path, line) of the class whose CUDA JIT build `name().method()` reaches, through its bases by name; None
    when a class of that name does not reach one."""
    if name in seen or name not in classes:
        return None
    found = None
    for bases, methods, path, line in classes[name]:
        hit = _resolve(classes, name, bases, methods, method, seen | {name}, path, line)
        if hit is None:
            return None
        found = found or hit
    return found


def _resolve(classes, start, bases, methods, method, seen, path, line):
    for entry in methods:
        own, _, delegate = entry.partition(">")
        if own == method:
            return _builds(classes, start, delegate, frozenset()) if delegate and delegate != method else (path, line) if not delegate else None
    for base in bases:
        if base in seen or base not in classes:
            continue
        for b_bases, b_methods, b_path, b_line in classes[base]:
            hit = _resolve(classes, start, b_bases, b_methods, method, seen | {base}, b_path, b_line)
            if hit is not None:
                return hit
    return None


def _lists_cuda(classes: dict, listing: set[str], name: str) -> bool:
    """Every class named `name` has, itself or through its bases, a class naming a `.cu` source: a builder of C++
    sources only (`UtilsBuilder(OpBuilder)`) runs the same JIT build, whose nvcc flags then compile nothing."""
    def reaches(current: str, seen: frozenset) -> bool:
        if current in listing:
            return True
        return any(base not in seen and reaches(base, seen | {base})
                   for bases, _, _, _ in classes.get(current, ()) for base in bases)
    return reaches(name, frozenset({name}))


def report(results: list[FileResult]) -> list[FileResult]:
    """NPU508 at each recorded site whose class reaches a CUDA JIT build (see the module doc)."""
    classes: dict[str, list] = {}
    sites = cuda = False
    listing: set[str] = set()  # classes naming a CUDA source in their body
    for result in results:
        for fact in result.facts or ():
            if fact[0] == "def" and fact[1] == CLASS:
                name, bases, methods, listed = (fact[2].split("|") + [""])[:4]
                classes.setdefault(name, []).append((bases.split(), methods.split(), result.path, fact[3]))
                if listed:
                    listing.add(name)
                cuda = cuda or bool(fact[4])
            elif fact[0] == "def" and fact[1] == SITE:
                sites = True
    if not sites or not cuda:
        return results
    from migrate.accelerator_builders import builder_files

    behind = {p for p in builder_files(results)}
    memo: dict[str, tuple[str, int] | None] = {}
    out = []
    for result in results:
        facts = [f for f in result.facts or () if f[0] == "def" and f[1] == SITE]
        if not facts:
            out.append(result)
            continue
        reported = {f.line for f in result.findings if f.code == CODE}
        added = []
        for fact in facts:
            key, line = fact[2], fact[3]
            if key not in memo:
                name, method = key.rsplit(".", 1)
                hit = _builds(classes, name, method) if _lists_cuda(classes, listing, name) else None
                if hit is not None and any(path in behind for _, _, path, _ in classes.get(name, ())):
                    hit = None  # the NPU side of an accelerator abstraction answers (L50)
                memo[key] = hit
            hit = memo[key]
            if hit is None or line in reported:
                continue
            reported.add(line)
            column = int(fact[6]) if len(fact) > 6 and str(fact[6]).isdigit() else 0
            what = "binds the compiled module that" if fact[5] == "bind" else "calls an op of the compiled module that"
            message = f"this line {what} `{key}()` JIT-builds from CUDA sources (the build at {hit[0]}:{hit[1]}): " \
                      f"a custom CUDA extension {_ERROR}"
            added.append(Finding(result.path, line, column + 1, line, column + 1, CODE, Severity.ERROR,
                                 Category.THIRD_PARTY, message, package=key.rsplit(".", 1)[0]))
        out.append(result.adding(added))
    return out
