"""A CUDA test asked of a third-party accelerator abstraction with an NPU side is the CUDA side of an NPU-aware chain.

Megatron-DeepSpeed-style projects ask DeepSpeed's device-pluggable accelerator which device they run on:

    from deepspeed.accelerator import get_accelerator
    if get_accelerator().device_name() == 'cuda':      # apex on CUDA ...
        from apex.optimizers import FusedAdam as Adam
    else:                                              # ... plain torch everywhere else
        Adam = torch.optim.Adam

    def initialize():
        if not get_accelerator().device_name() == 'cuda':
            return                                     # the rest of the function runs on CUDA only
        build_fused_kernels()

On an Ascend host the abstraction's NPU implementation answers `device_name()` with "npu", so the CUDA branch never
runs there: it is the CUDA side of a chain that already handles the NPU (label ruling (L50)), whether or not the
project writes an `else` (the abstraction itself is the NPU route). Which abstractions have an NPU side, the names
that reach them and the methods that return the device's name are data (knowledge/pluggable_accelerators.toml, each
entry with its source).

Keyed on, per file from its own syntax tree: a name bound by an import of a known factory (`from
deepspeed.accelerator import get_accelerator [as g]`, `import deepspeed` then `deepspeed.accelerator.get_accelerator`),
called and asked a device-name method in a comparison with "cuda" (`==`, `in (...)` naming "cuda" and not the NPU's
name). The lines it marks:
- the body of an `if` whose test holds on CUDA only (`== 'cuda'`, or an `and` one of whose operands is such a test);
- the `else` of `!= 'cuda'` / `not ... == 'cuda'`, and the statements of a block after such a test with no `else`
  whose body leaves (`return`, `raise`, `continue`, `break`).
npu_aware drops the device and GPU-only package findings (its CODES) on those lines; a project's own compiled
module used outside such a branch stays reported (Megatron-DeepSpeed's fused softmax, note 40d-2).
"""

from __future__ import annotations

import ast
import functools

from migrate.context import bound_dotted, walk_nodes


@functools.cache
def _factories() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(factory dotted names, device-name methods, the names the abstractions give the NPU)."""
    from migrate.knowledge import read_toml

    names: set[str] = set()
    methods: set[str] = set()
    npu: set[str] = set()
    for entry in read_toml("pluggable_accelerators.toml").get("factory", {}).values():
        names.update(entry.get("names", ()))
        methods.update(entry.get("methods", ()))
        npu.add(str(entry.get("npu_name", "npu")).lower())
    return frozenset(names), frozenset(methods), frozenset(npu)


def wants(text: str) -> bool:
    """A factory may be called here (the last word of a factory name is in the text)."""
    return any(name.rsplit(".", 1)[-1] in text for name in _factories()[0])


def _bindings(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from the file's imports (`from a.b import c as d`: d -> a.b.c;
    `import a.b`: a -> a): context.collect_imports over the file's import statements."""
    from migrate.context import collect_imports

    nodes = [n for n in walk_nodes(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    names, _ = collect_imports([n for n in nodes if isinstance(n, ast.Import)],
                               [n for n in nodes if isinstance(n, ast.ImportFrom)])
    return names


def _asks_device(node: ast.AST, bound: dict[str, str]) -> bool:
    """`get_accelerator().device_name()`: a device-name method of a known factory's result."""
    factories, methods, _ = _factories()
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods \
        and isinstance(node.func.value, ast.Call) and bound_dotted(node.func.value.func, bound) in factories


def _cuda_test(test: ast.AST, bound: dict[str, str]) -> bool | None:
    """True for a comparison that holds on CUDA only, False for one that holds everywhere but CUDA, None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _cuda_test(test.operand, bound)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):  # `== 'cuda' and overflow_buf`
        return True if any(_cuda_test(v, bound) is True for v in test.values) else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right = test.left, test.comparators[0]
    if not _asks_device(left, bound):
        left, right = right, left
        if not _asks_device(left, bound):
            return None
    values = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    words = {v.value.lower() for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    if "cuda" not in words or words & _factories()[2]:
        return None
    op = test.ops[0]
    if isinstance(op, (ast.Eq, ast.In)):
        return True
    if isinstance(op, (ast.NotEq, ast.NotIn)):
        return False
    return None


def _lines(body: list) -> range:
    return range(body[0].lineno, max(getattr(n, "end_lineno", None) or n.lineno for n in body) + 1)


def _leaves(body: list) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def cuda_side_lines(tree: ast.AST, text: str | None = None) -> set[int]:
    """The lines that run only where the accelerator abstraction answers CUDA."""
    if text is not None and not wants(text):
        return set()
    bound = _bindings(tree)
    lines: set[int] = set()
    for node in walk_nodes(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for at, statement in enumerate(block):
                if not isinstance(statement, ast.If):
                    continue
                side = _cuda_test(statement.test, bound)
                if side is True and statement.body:
                    lines.update(range(statement.test.lineno, _lines(statement.body).stop))
                elif side is False:
                    if statement.orelse:
                        lines.update(_lines(statement.orelse))
                    elif _leaves(statement.body) and at + 1 < len(block):
                        lines.update(_lines(block[at + 1:]))
    return lines
