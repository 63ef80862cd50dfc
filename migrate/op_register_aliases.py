"""A torch.library registration function called through a module-level name chosen at import time (NPU508, label
ruling (L83)).

A library that supports old torch versions picks its op decorator once, at import time, and registers every op
through that name (SHI-Labs/NATTEN's torch_wrappers.py):

    if DISABLE_TORCH_OPS:
        register_op = disabled_register_op      # a function of this file: the op stays a plain function
    else:
        register_op = torch.library.custom_op

    @register_op("mylib::attn_forward", mutates_args=(), device_types="cuda")
    def attn_forward_op(q, k, v): ...

`register_op(...)` is `torch.library.custom_op(...)` wherever torch registers the op: the function it decorates is the
op's Python implementation (its body holds the compiled call, reported there), so `torch.ops.mylib.attn_forward(...)`
is a call of that wrapper, not of a kernel. A name is read as the registration function when every module-level
binding of it (also inside a module-level `if` / `try`) is that function or a function defined in the file.

The same library registers one op per dimension from a factory, naming the op with an f-string
(`@register_op(f"mylib::na{na_dim}d_forward", ...)` inside `def make_ops(na_dim)`): the name is kept as a pattern
(`mylib::na*d_forward`) that the ops used by name are matched against (`implemented_in_python`).
"""

from __future__ import annotations

import ast
import fnmatch

REGISTRATIONS = frozenset({"torch.library.custom_op", "torch.library.impl"})


def _module_level(ctx, node: ast.AST) -> bool:
    parent = ctx.parent(node)
    while isinstance(parent, (ast.If, ast.Try, ast.ExceptHandler)):
        parent = ctx.parent(parent)
    return isinstance(parent, ast.Module)


def registration_aliases(ctx) -> dict[str, str]:
    """Module-level names bound to a torch.library registration function (`register_op = torch.library.custom_op`
    in one branch, a local stand-in in the other): name -> that function's dotted name."""
    local = {f.name for f in ctx.tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    bindings: dict[str, set] = {}
    for node in ctx.nodes.get(ast.Assign, ()):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) or not _module_level(ctx, node):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in local:
            bound = "local"
        else:
            bound = ctx.qualname(value) if isinstance(value, (ast.Attribute, ast.Name)) else None
        bindings.setdefault(node.targets[0].id, set()).add(bound)
    out = {}
    for name, bound in bindings.items():
        registered = bound & REGISTRATIONS
        if len(registered) == 1 and bound <= REGISTRATIONS | {"local"}:
            out[name] = next(iter(registered))
    return out


def name_pattern(node: ast.AST) -> str | None:
    """An f-string op name (`f"mylib::na{na_dim}d_forward"`) as a pattern, `mylib::na*d_forward`: its namespace
    and some of the op's name written out; None for anything else."""
    if not isinstance(node, ast.JoinedStr):
        return None
    text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "*" for v in node.values)
    namespace, _, op = text.partition("::")
    if not namespace or "*" in namespace or not op.replace("*", ""):
        return None
    return text


def implemented_in_python(python_ops, op: str) -> bool:
    """`op` (`ns::name`) is among `python_ops`, by name or by one of its patterns."""
    return op in python_ops or any("*" in p and fnmatch.fnmatchcase(op, p) for p in python_ops)
