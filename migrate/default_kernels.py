"""A torch.library op with a plain-Python "default" kernel serves the NPU: its `torch.ops.<ns>.<op>` uses are no NPU508
findings (label ruling (L88), read as (L56): a per-device registry that already gives the NPU a route).

A project that defines its ops with torch.library may register one kernel per device and a default for every other one:

    torch.library.define("pkg::quantize", "(Tensor A, int blocksize) -> (Tensor, Tensor)")

    @torch.library.register_kernel("pkg::quantize", "cuda")      # the compiled CUDA library, on CUDA devices
    def _(A, blocksize): return _cuda_quantize(A, blocksize)

    @torch.library.register_kernel("pkg::quantize", "default")   # composed of torch ops: any device, the NPU included
    def _(A, blocksize): ...

    q, s = torch.ops.pkg.quantize.default(x, 64)                  # dispatched: the default kernel on an NPU tensor

torch.library documents "default" as the implementation "for ALL device types" (torch/library.py, `impl`: "You may pass
"default" for ``types`` to register this implementation as the default implementation for ALL device types ... true if it
is a composition of built-in PyTorch operators"); `register_kernel` takes the same device names. The NPU (PrivateUse1)
has no kernel of its own there, so the dispatcher takes the default one. Keyed on, per file (cached with it):

- a call `register_kernel("ns::op", "default")` (torch.library's or a name ending in `register_kernel`: projects alias it,
  `register_kernel = torch.library.register_kernel` in their `_ops.py`, then import it from there), or
  `torch.library.impl("ns::op", "default" | "CompositeExplicitAutograd" | "CompositeImplicitAutograd")`;
- whose kernel is a Python function of the file: the decorated `def`, `register_kernel(...)(fn)` or the third argument,
  whose body reaches no compiled module of the scan (`def scale_impl(x): return qt_cuda.scale(x)`, `import qt_cuda`
  of a CUDAExtension: the names it imports are recorded and checked against the index after the scan).

Each such op (any overload: `ns::op.out` too) is then an op implemented by a Python function of the repository
(repo_index.python_ops): its calls are wrapper call sites, not findings, like a `Function.apply` alias. Kept: the calls that bypass the registry (`lib.cquantize(...)` on a ctypes handle), an
op of the same namespace with device kernels only (`register_kernel("pkg::gemv", "cuda")` alone: optimum-quanto's CUDA
ops beside its defaulted ones, set 45d), and an op whose default is a compiled op
(`register_kernel("pkg::op", "default", _C.op)`) or calls one.
"""

from __future__ import annotations

import ast

KIND = "opdefault"  # Definition kind: name = the `ns::op` given a default kernel; why = names its body imports
COMPILED = "compiled"  # its mode where the default kernel is no Python function of the file
HINT = "default"
_ANY_DEVICE = frozenset({"default", "CompositeExplicitAutograd", "CompositeImplicitAutograd"})


def _registration(ctx, call: ast.Call) -> bool:
    name = ctx.qualname(call.func) or ""
    if name == "torch.library.impl":
        return True
    tail = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id if isinstance(call.func, ast.Name) else ""
    return name == "torch.library.register_kernel" or tail == "register_kernel"


def _python_kernel(ctx, call: ast.Call) -> ast.AST | None:
    """The kernel registered when it is a function of this file (the decorated `def`, `reg(...)(fn)`,
    `reg(op, key, fn)`, a lambda); None for anything else (a compiled op, `_C.op`)."""
    parent = ctx.parent(call)
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and call in parent.decorator_list:
        return parent
    given = call.args[2] if len(call.args) > 2 else ctx.keyword(call, "func")
    if given is None and isinstance(parent, ast.Call) and parent.func is call and parent.args:
        given = parent.args[0]
    if isinstance(given, ast.Lambda):
        return given
    if isinstance(given, ast.Name) and ctx.qualname(given) is None:
        return next((f for f in ctx.nodes.get(ast.FunctionDef, ()) if f.name == given.id), None)
    return None


def _imported_names(ctx, kernel: ast.AST) -> str:
    """The imported names (not torch's) the kernel's body reaches, space-separated: the index checks none is a
    compiled extension of the scan (`def scale_impl(x): return qt_cuda.scale(x)` is no plain-PyTorch kernel)."""
    found = set()
    for node in ast.walk(kernel):
        if isinstance(node, ast.Name):
            qual = ctx.qualname(node)
            if qual and qual.split(".", 1)[0] != "torch":
                found.add(qual)
    return " ".join(sorted(found))


def default_defs(ctx) -> list:
    """One `opdefault` Definition per registration of a Python default kernel in this file."""
    from migrate.repo_index import Definition

    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        if len(call.args) < 2 or not _registration(ctx, call):
            continue
        op, key = (ctx.string_value(a) for a in call.args[:2])
        if not op or "::" not in op or key not in _ANY_DEVICE:
            continue
        kernel = _python_kernel(ctx, call)
        # a default that is no Python function of the file (a compiled op) marks the namespace as not served
        why = _imported_names(ctx, kernel) if kernel is not None else ""
        out.append(Definition(KIND, op.split(".", 1)[0], ctx.path, call.lineno, False, why,
                              "python" if kernel is not None else COMPILED))
    return out


def served(defaults: list, modules: dict) -> set[str]:
    """The `ns::op` names served on any device: each of their default kernels is a Python function whose body reaches
    no compiled module of the scan (`modules`: name -> Definition, `value` names included)."""
    out, spoiled = set(), set()
    for op, why, mode in defaults:
        reached = why.split() if why else ()
        if mode == COMPILED or any(q == m or q.startswith(m + ".") or m.startswith(q + ".") for q in reached for m in modules):
            spoiled.add(op)
        else:
            out.add(op)
    return out - spoiled
