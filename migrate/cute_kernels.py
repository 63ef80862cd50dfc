"""Kernels written in NVIDIA's CuTe DSL (`import cutlass.cute as cute`), read like Triton's.

A `@cute.kernel` function is device code and a `@cute.jit` function is traced into MLIR when `cute.compile(...)` (or
its first call) runs it: every `cute.*` / `cutlass.*` / quack name in their bodies is the kernel's own code, ported
with the kernel, not a line of its own (label ruling (L4), as the `tl.*` inside a `@triton.jit` body; labeller note
52a-5). So are the plain methods and functions of the file such a body calls (`self._set_cluster_n()`,
`self._get_tiled_copy(vecsize=...)` in quack's reductions): they run only while the kernel is traced. The lines are
the decorators, `cute.compile(...)` and the launch of what it compiled (`cache[key] = cute.compile(op, ...)`, then
`cache[key](x, target, ...)`): this module tells NPU507 the bodies to skip and the launches to report.

Knowledge: NVIDIA/cutlass @07c67ad61294 python/CuTeDSL/cutlass/cute/__init__.py: `jit = _dsl.CuTeDSL.jit`,
`kernel = _dsl.CuTeDSL.kernel`, `compile = _dsl.CompileCallable()` (the decorators and the compiler; `cutlass` itself
exports neither, python/CuTeDSL/cutlass/__init__.py @30ac82887310).
"""

from __future__ import annotations

import ast

CUTE_DSL = "cutlass"  # the knowledge entry of nvidia-cutlass-dsl
KERNEL_DECORATORS = frozenset({"cutlass.cute.jit", "cutlass.cute.kernel"})
COMPILE = "cutlass.cute.compile"


def wanted(source: str) -> bool:
    return "cute" in source


def _cute_decorated(ctx, function) -> bool:
    return any(ctx.qualname(d.func if isinstance(d, ast.Call) else d) in KERNEL_DECORATORS
               for d in function.decorator_list)


def _called_helpers(ctx, body, methods, functions) -> list:
    """The methods of the body's class (`self.name(...)`) and the module's functions (`name(...)`) the body calls."""
    out = []
    owner = ctx.enclosing(body, (ast.ClassDef,))
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and owner is not None:
            helper = methods.get((id(owner), func.attr))
        elif isinstance(func, ast.Name) and ctx.qualname(func) is None:
            helper = functions.get(func.id)
        else:
            helper = None
        if helper is not None and helper is not body:
            out.append(helper)
    return out


def kernel_bodies(ctx) -> set[int]:
    """ids of the `@cute.jit` / `@cute.kernel` functions of the file and of the undecorated methods / module functions
    they call, at any depth (traced with the kernel)."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    kernels = [f for kind in kinds for f in ctx.nodes.get(kind, ()) if f.decorator_list and _cute_decorated(ctx, f)]
    if not kernels:
        return set()
    methods, functions = {}, {}
    for statement in ctx.tree.body:
        if isinstance(statement, kinds):
            functions.setdefault(statement.name, statement)
        elif isinstance(statement, ast.ClassDef):
            for member in statement.body:
                if isinstance(member, kinds):
                    methods.setdefault((id(statement), member.name), member)
    seen = {id(k) for k in kernels}
    todo = list(kernels)
    while todo:
        for helper in _called_helpers(ctx, todo.pop(), methods, functions):
            # a helper under any decorator of its own (`@staticmethod` aside) is no plain traced code: leave it
            if id(helper) in seen or any(not (isinstance(d, ast.Name) and d.id == "staticmethod")
                                         for d in helper.decorator_list):
                continue
            seen.add(id(helper))
            todo.append(helper)
    return seen


def _target_key(node) -> str | None:
    """A stable text of a binding target / callee: `name`, `a.b`, `a.b[key]` (rooted in a name)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _target_key(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    if isinstance(node, ast.Subscript):  # the key as written (`compile_key`, `'fwd'`): one text for the store and the load
        inner = _target_key(node.value)
        return None if inner is None else f"{inner}[{ast.dump(node.slice)}]"
    return None


def compiled_launches(ctx, reported_compiles: set[int]) -> list[tuple[ast.Call, ast.Call]]:
    """(launch, compile) pairs: a call of a name, attribute or cache slot the file bound to `cute.compile(...)` (one
    of `reported_compiles`, the compile calls NPU507 reported), in the same function or at module level."""
    bound: dict[tuple[int, str], ast.Call] = {}
    for node in ctx.nodes.get(ast.Assign, ()):
        value = node.value
        if not (isinstance(value, ast.Call) and id(value) in reported_compiles and len(node.targets) == 1):
            continue
        key = _target_key(node.targets[0])
        if key is not None:
            scope = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            bound[(id(scope) if scope is not None else 0, key)] = value
    if not bound:
        return []
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        key = _target_key(call.func)
        if key is None:
            continue
        scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        compiled = bound.get((id(scope) if scope is not None else 0, key))
        if compiled is not None:
            out.append((call, compiled))
    return out
