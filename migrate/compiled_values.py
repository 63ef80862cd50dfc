"""Reads of a compiled module that run none of its code: constants, enum members, availability probes (NPU508;
label rulings (L80), (L62)).

A pybind11 module exports values besides its ops: enum members (`py::enum_<RegionType>(m, "RegionType")`) and
constants (`m.attr("MAX_UINT") = ...`). Reading one is reading a value; the import that binds the module is the line
that fails on an Ascend host, and the ops called with the value are the uses:

    from myext._C import RegionType, ConvolutionMode
    if region_type == RegionType.HYPER_CUBE:            # a value: not reported
        mode = ConvolutionMode.DEFAULT                   # a value: not reported
    out = _C.conv_forward(x, w, mode)                    # an op: reported

A member named for the GPU (`CoordinateMapType.CUDA`, `Backend.GPU`) chosen as a value is an option that makes the
extension take its CUDA-only path (label note 45b-8): it stays reported where it is chosen, not where it is only
compared (`allocator == AllocatorType.CUDA`), nor where the choice sits under the module's availability probe
(`CoordinateMapType.CUDA if _C.is_cuda_available() else CoordinateMapType.CPU`, or after `if not
ext.is_cuda_available(): return` in the same function).

An enum exported in the CamelCase spelling (`py::enum_<ETrainMode>(m, "TrainMode").value("Nerf", ...)`) is read the same
way: a capitalised member of a capitalised class of the module, not called (`ngp.TrainMode.Nerf`,
`ngp.TestbedMode.Sdf`), is a value (label ruling (L80)); so is the conversion of a value to such an enum, a call of the
class with one positional argument (`ngp.TrainMode(testbed.nerf.training.train_mode)`) where the same file reads
members of that class as values. The construction of a class of the module (`ngp.Testbed()`) and the methods called
on what it returns stay the uses (instant-ngp scripts/run.py, set 54).

A call of a compiled function named as an availability probe (`_C.is_cuda_available()`, `ext.has_cuda()`) asks whether
the module was built with CUDA and runs no kernel (label ruling (L62): a probe is a check, not a use); on a CPU build it
answers False. So does a capability probe of the module (`if not C.is_bf16_supported(): raise NotImplementedError(...)`,
`ext.supports_fp8()`): it asks whether the GPU has a feature; the ops called after it are the uses (label note 49c c-5).

A module's metadata attribute (`pkg.__version__`, `ext.__file__`, `pkg.__doc__`), read and not called, is a value the
import already bound: a Sphinx conf.py's `version = pkg.__version__` of a package whose `__init__` loads its compiled
library runs none of that library's code (set 50a, docs/source/conf.py).
"""

from __future__ import annotations

import ast
import re

_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CAPITALISED = re.compile(r"^[A-Z][A-Za-z0-9_]*$")
_GPU_MEMBER = re.compile(r"(?:^|_)(?:CUDA|GPU|CUDNN|CUBLAS|NVIDIA)(?:_|$)")
_PROBE = re.compile(r"^(?:is_\w*available|\w+_available|has_(?:cuda|gpu)\w*|is_(?:cuda|gpu)\w*|is_\w+_supported|supports_\w+)$",
                    re.IGNORECASE)
_SKIPS = frozenset({"skip", "skipTest", "exit"})


def probe_name(name: str) -> bool:
    """`is_cuda_available`, `cuda_available`, `has_cuda`, `is_bf16_supported`, `supports_fp8`: a function named as an
    availability or capability probe."""
    return bool(_PROBE.match(name))


def _probe_call(node: ast.AST) -> bool:
    """`ext.is_cuda_available()` / `is_cuda_available()` (any function named as a probe), also negated."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return probe_name(name)


def probe_call(ctx, node: ast.AST, qual: str) -> bool:
    """`node` (an attribute chain resolving to `qual` in the compiled module) is called as an availability probe."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and parent.func is node and probe_name(qual.rsplit(".", 1)[-1])


def _under_probe(ctx, node: ast.AST) -> bool:
    """`node` is chosen under an availability probe: in a branch of an `if` / conditional expression testing one, or
    after `if not ext.is_cuda_available(): return` (a return or a skip) earlier in its function."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test and _probe_call(parent.test):
            return True
        child, parent = parent, ctx.parent(parent)
    if parent is None or isinstance(parent, ast.Module):
        return False
    for statement in parent.body:
        if statement is child:
            return False
        if isinstance(statement, ast.If) and _probe_call(statement.test) and statement.body and _leaves(statement.body[-1]):
            return True
    return False


def _leaves(statement: ast.stmt) -> bool:
    """`return`, `raise`, or a skip (`pytest.skip(...)`, `self.skipTest(...)`)."""
    if isinstance(statement, (ast.Return, ast.Raise)):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _SKIPS


_METADATA = frozenset({"__version__", "__file__", "__path__", "__name__", "__doc__", "__spec__", "__loader__",
                       "__package__", "__all__", "__author__", "__license__", "__copyright__", "__email__"})


def metadata_read(ctx, node: ast.AST, qual: str) -> bool:
    """`node` (an attribute chain resolving to `qual`) reads a module's metadata attribute (`pkg.__version__`), not called."""
    if "." not in qual or qual.rsplit(".", 1)[-1] not in _METADATA:
        return False
    parent = ctx.parent(node)
    return not (isinstance(parent, ast.Call) and parent.func is node)


def constant_read(ctx, node: ast.AST, qual: str, module: str) -> bool:
    """`node` (an attribute chain or name resolving to `qual` in the compiled module `module`) reads a constant or an
    enum member (an upper-case last part, not called) and is not a GPU member chosen as a value."""
    if qual == module:
        return False
    member = qual.rsplit(".", 1)[-1]
    parent = ctx.parent(node)
    called = isinstance(parent, ast.Call) and parent.func is node
    if called and enum_conversion(ctx, parent, qual, module):
        return True
    if not (_CONSTANT.match(member) or _enum_member(qual, module)) or called:
        return False
    if not _GPU_MEMBER.search(member.upper()):
        return True
    return isinstance(parent, ast.Compare) or _under_probe(ctx, node)


def _enum_member(qual: str, module: str) -> bool:
    """`module.TrainMode.Nerf`: a capitalised member of a capitalised class of the compiled module (an enum member
    in the CamelCase spelling)."""
    if not qual.startswith(module + "."):
        return False
    parts = qual[len(module) + 1:].split(".")
    return len(parts) >= 2 and bool(_CAPITALISED.match(parts[-1])) and bool(_CAPITALISED.match(parts[-2]))


def _enum_classes(ctx, module: str) -> frozenset[str]:
    """The classes of `module` whose members the file reads as enum members (`ngp.TrainMode.Nerf`, not called)."""
    cache = ctx.__dict__.setdefault("_npu_enum_classes", {})
    if module not in cache:
        from migrate.rules._device_helpers import chain_tops

        found = set()
        for node, qual in chain_tops(ctx):
            parent = ctx.parent(node)
            if _enum_member(qual, module) and not (isinstance(parent, ast.Call) and parent.func is node):
                found.add(qual.rsplit(".", 1)[0])
        cache[module] = frozenset(found)
    return cache[module]


def enum_conversion(ctx, call: ast.Call, qual: str, module: str) -> bool:
    """`ngp.TrainMode(value)`: one positional argument handed to a class of the compiled module whose members the file
    reads as enum members: a conversion to the enum, no construction of a compiled object."""
    return len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred) \
        and qual in _enum_classes(ctx, module)
