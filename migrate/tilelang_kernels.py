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
"""

from __future__ import annotations

import ast

from migrate.cuda_tested_entries import inside

TILELANG = "tilelang"  # the knowledge entry
JIT_DECORATORS = frozenset({"tilelang.jit"})
PRIM_FUNC = frozenset({"tilelang.language.prim_func"})  # `@T.prim_func`: the kernel itself, inside or outside a jit
COMPILE = "tilelang.compile"  # `tilelang.compile(prim_func, out_idx=...)`: compiles as a jit call does


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


def jit_functions(ctx) -> dict[str, ast.AST]:
    """name -> function for the `@tilelang.jit` functions the module defines at its top level."""
    return {s.name: s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.decorator_list and _decorated(ctx, s, JIT_DECORATORS)}


def jit_calls(ctx, bodies: set[int]) -> list[ast.Call]:
    """The calls `name(...)` of a module-level `@tilelang.jit` function of the file (each compiles the kernel on first
    use), outside the kernels' own bodies and not shadowed by a local binding of the name (`ctx.qualname` is None for
    a plain local or module name)."""
    jit = jit_functions(ctx)
    if not jit:
        return []
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        func = call.func
        if not (isinstance(func, ast.Name) and func.id in jit and ctx.qualname(func) is None):
            continue
        if inside(ctx, call, bodies) or _bound_locally(ctx, call, func.id):
            continue
        out.append(call)
    return out


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
