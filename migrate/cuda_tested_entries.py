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

The same holds for a single call of a partial package's GPU-only API (faiss: its CPU build runs on the host, label
ruling (L65)) in the body of a test that asks whether the run is on CUDA, where the code before the test already
bound what the body replaces (`cuda_side_upgrade`, as (L28)/(L90)/(L103)):

    index = faiss.IndexFlatIP(dim)
    if torch.cuda.is_available():                        # also `model.device == torch.device("cuda")`
        index = faiss.index_cpu_to_all_gpus(index)        # no finding: off CUDA the CPU index is kept
    index.add(vectors)

A user switch (`if use_gpu:`) or a test that an NPU passes as well (`device != "cpu"`) is no such question: the call
stays a finding there.
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
    return classes_reached_only(ctx, lambda n: isinstance(n.ctx, ast.Load) and _under_cuda_test(ctx, n))


def classes_reached_only(ctx, reached) -> frozenset[int]:
    """The ids of the module's top-level classes every mention of which (a name) `reached(name)` holds for; a class
    whose name is also a string of the file (`__all__ = ["FusedDenseFunc"]`, a registry key) is entered from
    elsewhere and never one (option_selections.selected_classes asks too)."""
    classes = {s.name: s for s in ctx.tree.body if isinstance(s, ast.ClassDef)}
    if not classes:
        return frozenset()
    named: dict[str, list[ast.Name]] = {}
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id in classes:
            named.setdefault(node.id, []).append(node)
    exported = {n.value for n in ctx.nodes.get(ast.Constant, ()) if isinstance(n.value, str)}
    return frozenset(id(classes[name]) for name, names in named.items()
                     if name not in exported and all(reached(n) for n in names))


def _device_value(node: ast.AST) -> bool:
    """`"cuda"` or `torch.device("cuda")`."""
    if isinstance(node, ast.Constant):
        return node.value == "cuda"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "device" \
        and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == "cuda"


def _host_cuda_question(test: ast.AST) -> bool:
    """A question only a CUDA run answers yes to: `_cuda_question`, `torch.cuda.is_available()`, or an equality with
    `"cuda"` / `torch.device("cuda")` (`model.device == torch.device("cuda")`, `device == "cuda"`); alone or as one
    operand of an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_host_cuda_question(v) for v in test.values)
    if _cuda_question(test):
        return True
    if isinstance(test, ast.Call) and not test.args:
        func = test.func
        return isinstance(func, ast.Attribute) and func.attr == "is_available" and isinstance(func.value, ast.Attribute) \
            and func.value.attr == "cuda"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        return any(_device_value(side) for side in (test.left, *test.comparators))
    return False


def _bound_names(statements) -> set[str]:
    """Plain names the statements assign (their nested blocks included, not function or class bodies)."""
    out: set[str] = set()
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def _keeps_a_default(ctx, statement: ast.If) -> bool:
    """The body rebinds a name that the statements before the `if`, in its block, already bound (`index =
    faiss.IndexFlatIP(d)` then `if ...: index = faiss.index_cpu_to_all_gpus(index)`): the path beside keeps that value."""
    holder = ctx.parent(statement)
    block = next((getattr(holder, f) for f in ("body", "orelse", "finalbody")
                  if statement in (getattr(holder, f, None) or ())), None)
    if block is None:
        return False
    before = _bound_names(block[:block.index(statement)])
    replaced = {n.id for s in statement.body for n in ast.walk(s)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return bool(before & replaced)


def cuda_side_upgrade(ctx, node: ast.AST) -> bool:
    """`node` lies in the body of an `if` asking whether the run is on CUDA (`_host_cuda_question`) that has a way
    beside it: an `else`, a body that leaves the function, or a body that replaces what the code before bound
    (`_keeps_a_default`). See the module docstring."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, ast.If) and child in parent.body and _host_cuda_question(parent.test) \
                and (_has_way_beside(ctx, parent) or _keeps_a_default(ctx, parent)):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        child, parent = parent, ctx.parent(parent)
    return False


def inside(ctx, node: ast.AST, classes: frozenset[int]) -> bool:
    """`node` lies in the body of one of `classes`."""
    parent = ctx.parent(node)
    while parent is not None:
        if id(parent) in classes:
            return True
        parent = ctx.parent(parent)
    return False
