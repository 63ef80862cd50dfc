"""A compiled op's CPU build called on a path that a device other than CUDA takes (NPU508; label ruling (L28)).

An extension that is built for the CPU as well (torchsparse's pybind_cpu.cpp: `hash_cpu`, `voxelize_forward_cpu`)
is dispatched by the device of its input:

    if coords.device.type == "cuda":
        return backend.hash_cuda(coords)
    elif coords.device.type == "cpu":
        return backend.hash_cpu(coords)
    else:
        return backend.hash_cpu(coords.cpu()).to(coords.device)

On an Ascend host the NPU tensor takes the `else:`, which runs the CPU kernel on a host copy and moves the result
back: nothing there needs porting (slow, not broken), and the `== "cpu"` branch is never taken by an NPU tensor.
Such a call (an op named for its CPU build, `*_cpu`, in the branch of a `== "cpu"` test or in the final `else:` of a
chain that tests for CUDA) is not a line to change; the CUDA branch's call, and every op without a CPU build, is. So
is, for an extension setup.py also builds without CUDA (pytorch3d's CppExtension fallback, MinkowskiEngine's
`--cpu_only`: migrate/cpu_builds.py, label ruling (L79)), any op called on tensors the code put on the host or inside
a function the repository names for the CPU; an extension built only with CUDA does not exist on a host without nvcc,
so its ops stay reported there (label ruling (L89): IA-SSD's `def boxes_iou_bev_cpu(...)`, exllama's
`def ext_rep_penalty_mask_cpu(...)`). An op whose CUDA build is its `_cuda`-suffixed sibling,
called in the CUDA branch of the same chain, is the CPU build too where the final `else:` calls it (label ruling (L69),
a cffi extension built from trilinear.c and trilinear_cuda.c):

    if x.is_cuda:
        trilinear.trilinear_forward_cuda(lut, x, out)
    else:
        trilinear.trilinear_forward(lut, x, out)

and so is it in the body of the negated test, whose `else:` calls the sibling (faster-rcnn.pytorch's cffi roi_pooling):

    if not x.is_cuda:
        roi_pooling.roi_pooling_forward(h, w, scale, x, rois, out)
    else:
        roi_pooling.roi_pooling_forward_cuda(h, w, scale, x, rois, out, argmax)
"""

from __future__ import annotations

import ast
import re

from migrate.cpu_inputs import called_on_cpu_inputs

_CPU_OP = re.compile(r"(?:^|_)cpu$", re.IGNORECASE)


def _device_literal(test: ast.AST, device: str) -> bool:
    """`x.device.type == "cuda"` / `dev == "cuda"` / `x.is_cuda` (device "cuda"), or the same for "cpu"."""
    if isinstance(test, ast.BoolOp):
        return any(_device_literal(v, device) for v in test.values)
    if isinstance(test, ast.Attribute):
        return test.attr == f"is_{device}"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.In)):
        sides = [test.left, *test.comparators]
        values = []
        for side in sides:
            if isinstance(side, ast.Constant):
                values.append(side.value)
            elif isinstance(side, (ast.Tuple, ast.List, ast.Set)):
                values += [e.value for e in side.elts if isinstance(e, ast.Constant)]
        return device in values
    return False


def _chain_tests(statement: ast.If, ctx) -> list[ast.AST]:
    """The tests of the if/elif chain `statement` belongs to, from its first `if`."""
    first = statement
    parent = ctx.parent(first)
    while isinstance(parent, ast.If) and parent.orelse == [first]:
        first, parent = parent, ctx.parent(parent)
    tests, link = [], first
    while True:
        tests.append(link.test)
        if len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
            link = link.orelse[0]
        else:
            return tests


def _chain_links(statement: ast.If, ctx) -> list[ast.If]:
    """The `if` statements of the chain `statement` belongs to, from its first `if`."""
    first = statement
    parent = ctx.parent(first)
    while isinstance(parent, ast.If) and parent.orelse == [first]:
        first, parent = parent, ctx.parent(parent)
    links, link = [first], first
    while len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
        link = link.orelse[0]
        links.append(link)
    return links


def _calls(ctx, blocks: list[ast.stmt], qual: str) -> bool:
    """One of `blocks` calls `qual`."""
    for block in blocks:
        for node in ast.walk(block):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == qual.rsplit(".", 1)[-1] and ctx.qualname(node.func) == qual:
                return True
    return False


def _cuda_sibling_called(ctx, statement: ast.If, qual: str) -> bool:
    """A branch of the chain testing for CUDA calls `<qual>_cuda` (the op's CUDA build, beside its CPU build `qual`)."""
    return any(_device_literal(link.test, "cuda") and _calls(ctx, link.body, f"{qual}_cuda")
               for link in _chain_links(statement, ctx))


def _not_cuda(test: ast.AST) -> bool:
    """`not x.is_cuda` / `not x.device.type == "cuda"`: the test that only a non-CUDA device passes."""
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _device_literal(test.operand, "cuda")


def _in_cpu_function(ctx, node: ast.AST) -> bool:
    """The nearest function holding `node` is named for the CPU (`def ext_rep_penalty_mask_cpu(...)`)."""
    parent = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    return isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and bool(_CPU_OP.search(parent.name))


def cpu_op_off_cuda(ctx, node: ast.AST, qual: str, cpu_build: bool = False) -> bool:
    """`qual` (the chain at `node`) is an op named for a CPU build, called where only a non-CUDA device gets: in the
    body of an `if` testing for "cpu", or in the final `else:` of an if/elif chain one of whose tests is for CUDA; or,
    for an extension setup.py also builds without CUDA (`cpu_build`, migrate/cpu_builds.py), any op called on tensors
    the code put on the host (`_C.op(points.cpu())`, migrate/cpu_inputs.py) or in a function the repository names for
    the CPU, or in the final `else:` of a chain that tests for CUDA whatever the op's name (label ruling (L69)). An
    extension built only with CUDA does not exist off CUDA, whatever its C++ runs on: a function named
    for the CPU is no CPU build (label ruling (L89), over 25a-4's exllama `def ext_rep_penalty_mask_cpu(...)`)."""
    if cpu_build and (_in_cpu_function(ctx, node) or called_on_cpu_inputs(ctx, node)):
        return True
    cpu_named = bool(_CPU_OP.search(qual.rsplit(".", 1)[-1]))
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        if isinstance(parent, ast.If):
            if child in parent.body:
                if cpu_named and _device_literal(parent.test, "cpu"):
                    return True
                # `if not x.is_cuda: ext.op(...)` `else: ext.op_cuda(...)`: the op's CPU build, off CUDA (L69)
                if _not_cuda(parent.test) and (cpu_named or _calls(ctx, parent.orelse, f"{qual}_cuda")):
                    return True
            elif child in parent.orelse and not (len(parent.orelse) == 1 and isinstance(parent.orelse[0], ast.If)):
                # (or, for an extension also built without CUDA, any op there: `if t.is_cuda: ext.nms(t) else:
                # ext.nms(t)` dispatches inside the op, the else runs its CPU build; label ruling (L69), 48b b-4)
                if any(_device_literal(test, "cuda") for test in _chain_tests(parent, ctx)) and (
                        cpu_named or cpu_build or _cuda_sibling_called(ctx, parent, qual)):
                    return True
        child, parent = parent, ctx.parent(parent)
    return False
