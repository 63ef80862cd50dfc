"""Kernels written in TileLang (`import tilelang`, `from tilelang import language as T`), read like Triton's and CuTe's.

A `@tilelang.jit` function builds a `@T.prim_func` out of `T.*` calls (`T.Kernel(..., threads=128)`, `T.alloc_shared`,
`T.gemm`): its whole body is the kernel's own code, ported with the kernel, not a line of its own (label ruling (L4),
as the `tl.*` inside a `@triton.jit` body and the `cute.*` inside a `@cute.jit` one). The lines are the decorator, the
call of the decorated function, which compiles the kernel (`kernel = matmul(1024, 1024, 1024)`, lazy mode; an eager
`gemm(A, B, C)` compiles and runs it), and the call of what that returned (`kernel(a, b)`, a launch; also written
`impl(heads, dim)(q, k, ...)` on one line, reported once at the compile). This module tells NPU507 the bodies to skip
and the compiles to report; the launches are found like CuTe's (migrate/cute_kernels.py: a call of the name the
compile was bound to, in the same function).

Knowledge: tile-ai/tilelang @0003ea088f8e tilelang/jit/__init__.py, JITImpl's docstring: lazy mode
`@tilelang.jit(out_idx=[-1]) def matmul(...)` returning a `@T.prim_func`, `kernel = matmul(...)  # returns kernel`,
`result = kernel(a, b)  # execute separately`; eager mode `gemm(A, B, C)  # compiles and executes immediately`;
`tilelang/__init__.py` @024f3c78f442: `from .jit import jit, JITKernel, compile, par_compile`.

A `@T.macro` function (tilelang.language.macro: tile-ai/tilelang @098563617524 tilelang/language/tir/entry.py,
`def macro(*args, hygienic=True)`, "Decorator for macro definitions", its body scanned by `scan_macro` into a
`TIRMacro` that the `@T.prim_func` calling it inlines; exported by `tilelang/language/__init__.py` @9f259544d407
through `from tvm.script.parser.tir import *`) is kernel code like a prim_func's: its decorator is the line, its body
not (labeller 60e note on TileLang, read under (L114)). A jit function may be defined inside a function (a factory
that picks its configuration, `if tune: @autotune(configs=...) @tilelang.jit(...) def kernel(...): ...; return
kernel()`): the calls of it in that function, after its definition, compile it as a module-level one's do.
`@autotune(...)` stacked on the jit (tilelang/autotuner/__init__.py @01aab813c8b4: `def autotune(func=None, *,
configs, warmup=25, rep=100, ...)`, "This is the new public interface", returning an `_AutoTunerImplementation` whose
wrapper compiles every configuration and benchmarks it on the device; the module has no `__all__`, so `from
tilelang.autotuner import *` binds `autotune`) is a decorator of the package, a line of its own, also when the name
comes from that star import (the analyzer resolves star imports of torch.cuda only: `STAR_EXPORTS`).
"""

from __future__ import annotations

import ast

from migrate.cuda_tested_entries import inside

TILELANG = "tilelang"  # the knowledge entry
JIT_DECORATORS = frozenset({"tilelang.jit"})
# `@T.prim_func`: the kernel itself, inside or outside a jit; `@T.macro`: kernel code a prim_func inlines
PRIM_FUNC = frozenset({"tilelang.language.prim_func", "tilelang.language.macro"})
COMPILE = "tilelang.compile"  # `tilelang.compile(prim_func, out_idx=...)`: compiles as a jit call does
# the package's names a star import binds that are decorators of a kernel (module docstring): module -> names
STAR_EXPORTS = {"tilelang.autotuner": frozenset({"autotune"})}


def wanted(source: str) -> bool:
    return "tilelang" in source


def _decorated(ctx, function, names) -> bool:
    return any(ctx.qualname(d.func if isinstance(d, ast.Call) else d) in names for d in function.decorator_list)


def _functions(ctx):
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        yield from ctx.nodes.get(kind, ())


def kernel_bodies(ctx) -> set[int]:
    """ids of the `@tilelang.jit` functions of the file and of the `@T.prim_func` ones outside them (their bodies are
    kernel code; a `@T.prim_func` inside a jit body is part of that body, its decorator no line of its own)."""
    jit = {id(f) for f in _functions(ctx) if f.decorator_list and _decorated(ctx, f, JIT_DECORATORS)}
    return jit | {id(f) for f in _functions(ctx) if f.decorator_list and _decorated(ctx, f, PRIM_FUNC)
                  and not inside(ctx, f, jit)}


EXPORT_MODE = "tilelang-jit"  # a module-level jit function other files import and call (migrate/reexports.py, NPU510)


def jit_function(ctx, function) -> bool:
    """`function` is decorated `@tilelang.jit`."""
    return bool(function.decorator_list) and _decorated(ctx, function, JIT_DECORATORS)


def jit_functions(ctx) -> dict[str, ast.AST]:
    """name -> function for the `@tilelang.jit` functions the module defines at its top level."""
    return {s.name: s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.decorator_list and _decorated(ctx, s, JIT_DECORATORS)}


def jit_calls(ctx, bodies: set[int]) -> list[ast.Call]:
    """The calls `name(...)` of a `@tilelang.jit` function of the file (each compiles the kernel on first use), outside
    the kernels' own bodies: of a module-level one anywhere its name is not shadowed by a local binding
    (`ctx.qualname` is None for a plain local or module name), of one defined in a function in that same function,
    after the definition, where the definition is the name's last binding before the call."""
    jit = jit_functions(ctx)
    nested = _nested_jit_functions(ctx, bodies)
    if not (jit or nested):
        return []
    names = set(jit) | {name for _, name in nested}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        func = call.func
        if not (isinstance(func, ast.Name) and func.id in names and ctx.qualname(func) is None):
            continue
        if inside(ctx, call, bodies):
            continue
        scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        local = nested.get((id(scope), func.id)) if scope is not None else None
        if local is not None:
            if _last_binding(scope, func.id, call.lineno) is local:
                out.append(call)
            continue
        if func.id in jit and not _bound_locally(ctx, call, func.id):
            out.append(call)
    return out


def _nested_jit_functions(ctx, bodies: set[int]) -> dict[tuple[int, str], ast.AST]:
    """(id of the enclosing function, name) -> function for the `@tilelang.jit` functions defined inside a function
    (not inside a kernel body)."""
    out = {}
    for function in _functions(ctx):
        if not (function.decorator_list and _decorated(ctx, function, JIT_DECORATORS)):
            continue
        scope = ctx.enclosing(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        if scope is not None and id(scope) not in bodies and not inside(ctx, scope, bodies):
            out[(id(scope), function.name)] = function
    return out


def _last_binding(function, name: str, line: int):
    """The last statement of `function`'s own body (not of a nested function) that binds `name` before `line`: a
    `def name`, or the assignment holding the stored name."""
    last, last_line = None, -1
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name and last_line < node.lineno < line:
                last, last_line = node, node.lineno
            continue  # a nested scope's own bindings are not this function's
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store) \
                and last_line < node.lineno < line:
            last, last_line = node, node.lineno
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return last


def star_decorators(ctx) -> list[tuple[ast.AST, str]]:
    """(decorator, qualified name) for the decorators named by a star import of the package (`from tilelang.autotuner
    import *` then `@autotune(configs=...)`), where the file binds the name no other way."""
    modules = [m for m in ctx.star_modules if m in STAR_EXPORTS]
    if not modules:
        return []
    out = []
    for function in _functions(ctx):
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not isinstance(target, ast.Name) or ctx.qualname(target) is not None:
                continue
            module = next((m for m in modules if target.id in STAR_EXPORTS[m]), None)
            if module is not None and not _bound_in_module(ctx, target.id):
                out.append((decorator, f"{module}.{target.id}"))
    return out


def _bound_in_module(ctx, name: str) -> bool:
    """The file binds `name` itself: a function or class of that name, an assignment, or an import."""
    if name in ctx.imports:
        return True
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        if any(node.name == name for node in ctx.nodes.get(kind, ())):
            return True
    return any(node.id == name and isinstance(node.ctx, ast.Store) for node in ctx.nodes.get(ast.Name, ()))


def _bound_locally(ctx, node, name: str) -> bool:
    """The enclosing function binds `name` itself (an argument or an assignment): not the module's kernel."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    args = function.args
    if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
        return True
    return any(isinstance(t, ast.Name) and t.id == name and isinstance(t.ctx, ast.Store)
               for statement in function.body for t in ast.walk(statement))
