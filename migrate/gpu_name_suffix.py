"""A name suffix that selects the GPU bindings of a compiled extension (NPU508; label note 45b b-7).

An extension that exposes one binding per device under a suffixed name is dispatched by building the name and looking
it up on the compiled module:

    def get_postfix(tensor):
        postfix = "GPU" if tensor.is_cuda else "CPU"      # <- reported: the line that picks the CUDA-only bindings
        return postfix

    def get_function(name, x):
        fn_name = name + get_postfix(x)
        return getattr(_C, fn_name)

    postfix = "GPU" + ("_default" if alloc == Alloc.CUDA else "_c10")   # <- reported
    cls = getattr(_C, "CoordinateMapManager" + postfix)

The `getattr` hands the module over and calls nothing (its callers' calls are the op lines); the line writing the GPU
word into the name is where an NPU route would be added, so it is the line reported. Followed: the name argument of
`getattr(ext, ...)` / `hasattr(ext, ...)` (`ext` a compiled module of the scan), through `+`, f-strings, conditional
expressions, locals the same function assigns and a call of a plain function of the same file (its `return` values),
up to three steps. A literal counts when it is the GPU word alone or as a suffix part: `GPU`, `CUDA`, `_gpu`, `_cuda`,
`GPU_c10` (not a longer name that merely contains it, `"CUDAExtension"`). Not followed: attributes, dictionaries, other
files.
"""

from __future__ import annotations

import ast
import re

_GPU_WORD = re.compile(r"^_?(?:GPU|CUDA|Gpu|Cuda|gpu|cuda)(?:_\w*)?$")
_LOOKUPS = ("getattr", "hasattr")
_DEPTH = 3


def suffix_literals(ctx, is_extension) -> dict[int, tuple]:
    """line -> (the literal, the compiled module's dotted name), for each literal that writes a GPU suffix into a name
    looked up on that module. `is_extension(qual)`: the dotted name is a compiled module of the scan."""
    out: dict[int, tuple] = {}
    functions = {node.name: node for node in ctx.tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for call in ctx.nodes.get(ast.Call, ()):
        if not (isinstance(call.func, ast.Name) and call.func.id in _LOOKUPS and len(call.args) >= 2):
            continue
        qual = ctx.qualname(call.args[0])
        if not qual or not is_extension(qual):
            continue
        function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        for literal in _literals(call.args[1], function, functions, _DEPTH):
            out.setdefault(literal.lineno, (literal, qual))
    return out


def _literals(expr, function, functions: dict, depth: int) -> set:
    if depth < 0 or expr is None:
        return set()
    if isinstance(expr, ast.Constant):
        return {expr} if isinstance(expr.value, str) and _GPU_WORD.match(expr.value) else set()
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _literals(expr.left, function, functions, depth) | _literals(expr.right, function, functions, depth)
    if isinstance(expr, ast.JoinedStr):
        found = set()
        for part in expr.values:
            found |= _literals(part.value if isinstance(part, ast.FormattedValue) else part, function, functions, depth)
        return found
    if isinstance(expr, ast.IfExp):
        return _literals(expr.body, function, functions, depth) | _literals(expr.orelse, function, functions, depth)
    if isinstance(expr, ast.Name) and function is not None:
        found = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
                found |= _literals(node.value, function, functions, depth - 1)
        return found
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in functions:
        callee = functions[expr.func.id]
        found = set()
        for node in ast.walk(callee):
            if isinstance(node, ast.Return) and _own(node, callee):
                found |= _literals(node.value, callee, functions, depth - 1)
        return found
    return set()


def _own(node, function) -> bool:
    """`node` belongs to `function` itself, not to a function nested in it."""
    for inner in ast.walk(function):
        if inner is not function and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and any(n is node for n in ast.walk(inner)):
            return False
    return True
