"""A class the module enters only after asking whether the tensors are on CUDA, with another way beside: its body's
GPU-only calls are no finding (NPU507; label ruling 40b-1, the inverse of (L28)).

A fused op wrapped in an autograd Function, whose only entry point tests the device and falls back to torch:

    import fused_dense_lib as fused_dense_cuda          # still a finding (NPU501): the import runs everywhere

    class FusedDenseFunc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, weight, bias):
            return fused_dense_cuda.linear_bias_forward(x, weight, bias)

    def fused_dense_func(x, weight, bias):
        if x.is_cuda and weight.is_cuda:
            return FusedDenseFunc.apply(x, weight, bias)
        return F.linear(x, weight, bias)                   # an NPU tensor comes here

On an Ascend host `x.is_cuda` is False, so the Function never runs and the NPU takes `F.linear`: the calls inside the
class are the CUDA side of a dispatch that already has a way for other devices. Kept (the calls stay findings):
- a class named anywhere in the module outside such a test (`return FusedDenseFunc.apply(...)` unconditionally, a
  module-level alias, `__all__`), or not named at all;
- a test with no way beside it: an `if` without `else` whose body does not leave the function (return / raise), or
  an `if` that is the function's last statement;
- a test that is not a conjunction of CUDA questions and other conditions (`x.is_cuda or y`, `not x.is_cuda`).
Read within one file: a class another module imports by name and calls unconditionally is not seen there (its calls
are then missed, not added).
"""

from __future__ import annotations

import ast


def _cuda_question(test: ast.AST) -> bool:
    """`x.is_cuda`, `x.device.type == "cuda"`, alone or as one operand of an `and` (the others may be anything)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_cuda_question(v) for v in test.values)
    if isinstance(test, ast.Attribute):
        return test.attr == "is_cuda"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = (test.left, *test.comparators)
        return any(isinstance(s, ast.Constant) and s.value == "cuda" for s in sides) and any(
            isinstance(s, ast.Attribute) and s.attr == "type" for s in sides)
    return False


def _leaves(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _has_way_beside(ctx, statement: ast.If) -> bool:
    """The `if` has an `else`, or its body leaves the function and a statement follows it there."""
    if statement.orelse:
        return True
    return _leaves(statement.body) and bool(ctx.statements_after(statement))


def _under_cuda_test(ctx, node: ast.AST) -> bool:
    """`node` lies in the body of an `if` that asks whether the tensors are on CUDA and has a way beside it."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, ast.If) and child in parent.body and _cuda_question(parent.test) \
                and _has_way_beside(ctx, parent):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        child, parent = parent, ctx.parent(parent)
    return False


def cuda_tested_classes(ctx) -> frozenset[int]:
    """The ids of the module's top-level classes that every line naming them reaches only under a CUDA device test
    with another way beside it (see the module docstring)."""
    if "is_cuda" not in ctx.source and '"cuda"' not in ctx.source and "'cuda'" not in ctx.source:
        return frozenset()
    classes = {s.name: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)}
    if not classes:
        return frozenset()
    named: dict[str, list[ast.Name]] = {}
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id in classes:
            named.setdefault(node.id, []).append(node)
    exported = {n.value for n in ctx.nodes.get(ast.Constant, ()) if isinstance(n.value, str)}
    out = set()
    for name, names in named.items():
        if name in exported:  # `__all__ = ["FusedDenseFunc"]`, a registry key: entered from elsewhere
            continue
        if all(isinstance(n.ctx, ast.Load) and _under_cuda_test(ctx, n) for n in names):
            out.add(id(classes[name]))
    return frozenset(out)


def inside(ctx, node: ast.AST, classes: frozenset[int]) -> bool:
    """`node` lies in the body of one of `classes`."""
    parent = ctx.parent(node)
    while parent is not None:
        if id(parent) in classes:
            return True
        parent = ctx.parent(parent)
    return False
