"""Branches selected by a value the file lists only while an availability flag is true (NPU507).

Triton's fused-attention tutorial, copied into many benchmark scripts, compares against flash_attn only where it imports:

    try:
        from flash_attn.flash_attn_interface import flash_attn_qkvpacked_func as flash_attn_func
        HAS_FLASH = True
    except BaseException:
        HAS_FLASH = False

    configs = [triton.testing.Benchmark(..., line_arg="provider",
                                        line_vals=["triton-fp16"] + (["flash"] if HAS_FLASH else []), ...)]

    @triton.testing.perf_report(configs)
    def bench_flash_attention(..., provider, ...):
        if provider == "flash":                                     # only where flash_attn imported
            fn = lambda: flash_attn_func(qkv, causal=causal)
            ms = triton.testing.do_bench(fn, warmup=warmup, rep=rep)   # not reached on an NPU host

The value `"flash"` is offered only when the flag is true, so the branch comparing against it runs only where the
flag's package imported: on an NPU host (no flash_attn) the branch is dead, as code under the flag itself is (label
ruling (L102)); its uses of another package (the Triton benchmark helper) are no lines to change (label note 70d on
thu-nics/MoA tests/triton_attention.py:410). The Triton branch of the same function (`if "triton" in provider:`) stays.

Keyed on, per file: a flag the file sets from an import attempt (`npu501_gpu_only_import._set_by_import_attempt`); a
literal list of strings offered as `[...] if FLAG else []`; a string of it that the file writes nowhere else than there
and in `NAME == "value"` comparisons; the bodies of the `if NAME == "value":` statements comparing with it.
"""

from __future__ import annotations

import ast


def wants(source: str) -> bool:
    """The cheap text test: an empty list offered as the other side of a conditional expression."""
    return "else []" in source or "else ()" in source


def flag_listed_spans(ctx) -> list[tuple[int, int]]:
    """(first line, last line) of each `if NAME == "value":` body whose value the file offers only under an
    availability flag (module docstring)."""
    from migrate.rules.npu501_gpu_only_import import _set_by_import_attempt

    if not wants(ctx.source):
        return []
    flags = _set_by_import_attempt(ctx)
    if not flags:
        return []
    offered: dict[str, set[int]] = {}  # value -> id() of its constant nodes inside a flag's list
    for node in ctx.nodes.get(ast.IfExp, ()):
        if not (isinstance(node.test, ast.Name) and node.test.id in flags):
            continue
        if not (isinstance(node.orelse, (ast.List, ast.Tuple)) and not node.orelse.elts
                and isinstance(node.body, (ast.List, ast.Tuple)) and node.body.elts):
            continue
        for element in node.body.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                offered.setdefault(element.value, set()).add(id(element))
    if not offered:
        return []
    compared: dict[str, list[ast.If]] = {}
    allowed: set[int] = set()
    for statement in ctx.nodes.get(ast.If, ()):
        value = _compared_value(statement.test)
        if value is not None and value[0] in offered:
            compared.setdefault(value[0], []).append(statement)
            allowed.add(id(value[1]))
    if not compared:
        return []
    # a value written anywhere else (an unconditional list, a default, a command-line choice) may be chosen without
    # the flag
    elsewhere = {node.value for node in ctx.nodes.get(ast.Constant, ())
                 if isinstance(node.value, str) and node.value in compared
                 and id(node) not in offered[node.value] and id(node) not in allowed}
    return [(statement.body[0].lineno, statement.body[-1].end_lineno or statement.body[-1].lineno)
            for value, statements in compared.items() if value not in elsewhere for statement in statements]


def _compared_value(test) -> tuple[str, ast.Constant] | None:
    """("value", its node) of `NAME == "value"` / `"value" == NAME`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    for name, constant in ((left, right), (right, left)):
        if isinstance(name, ast.Name) and isinstance(constant, ast.Constant) and isinstance(constant.value, str):
            return constant.value, constant
    return None


def inside(spans: list[tuple[int, int]], line: int) -> bool:
    return any(first <= line <= last for first, last in spans)
