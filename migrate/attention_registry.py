"""An attention implementation the repository registers itself under a GPU-only option value's name (NPU503).

transformers looks `attn_implementation` up in a registry of attention functions: `class AttentionInterface(
GeneralInterface)` in transformers/modeling_utils.py, whose module-level instance `ALL_ATTENTION_FUNCTIONS` maps
"flash_attention_2", "sdpa", "flex_attention" ... to functions, and whose `register(key, value)` class method (or item
assignment, `ALL_ATTENTION_FUNCTIONS["flex_attention"] = flex_attention_forward` in transformers' own
integrations) replaces the function behind a name (huggingface/transformers docs/source/en/attention_interface.md,
"Customizing attention function": `AttentionInterface.register("my_new_sdpa", my_new_sdpa)`, then
`attn_implementation="my_new_sdpa"`). A repository that registers its own function under "flash_attention_2"

    def apply_transformers_attention_patch():
        ALL_ATTENTION_FUNCTIONS.register("flash_attention_2", flash_attention_forward)   # torch_npu fusion attention

(Ascend/MindSpeed-MM mindspeed_mm/fsdp/ops/flash_attn/flash_attn.py) makes `attn_implementation: flash_attention_2`
select its own code, not the flash_attn package: the option value is no GPU-only choice there (label note 73a). Its
NPU503 findings of that value are dropped in every file of the repository.

Read: `<registry>.register("name", fn)`, `<registry>["name"] = fn` and `<registry>.update({"name": fn})` where the
registry is `ALL_ATTENTION_FUNCTIONS` or `AttentionInterface` (by name, as imported from transformers), the name a
string literal, and the function one the same file defines (`def`) in a file that imports torch_npu: the repository's
own NPU implementation. A function bound from elsewhere is not read: transformers' own `flash_attention_forward`
calls flash_attn, and a sequence-parallel wrapper around it (alibaba/ROLL's Ulysses patch registers
`_flash_attention_forward` from its ulysses_attention module, which still calls transformers' flash-attn forward)
keeps the GPU-only path. The ("attnreg", name, line) facts of the per-file pass, read behind a text test; decided
after the scan on every run.
"""

from __future__ import annotations

import ast

from migrate.findings import FileResult

_REGISTRIES = frozenset({"ALL_ATTENTION_FUNCTIONS", "AttentionInterface"})
_NPU = "torch_npu"


def _registry(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in _REGISTRIES) or (
        isinstance(node, ast.Attribute) and node.attr in _REGISTRIES)


def registered(text: str) -> tuple[tuple[str, int], ...]:
    """(name, line) for each attention function the file registers under a string name with a function it defines
    itself, in a file importing torch_npu."""
    if "ALL_ATTENTION_FUNCTIONS" not in text and "AttentionInterface" not in text:
        return ()
    if "torch_npu" not in text:
        return ()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    npu = any(isinstance(node, ast.Import) and any(a.name.split(".")[0] == _NPU for a in node.names)
              or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == _NPU
              for node in ast.walk(tree))
    if not npu:
        return ()
    defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict[str, int] = {}

    def note(key: ast.expr, fn: ast.expr | None, line: int) -> None:
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(fn, ast.Name) \
                and fn.id in defined:
            out.setdefault(key.value, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _registry(node.func.value):
            if node.func.attr == "register" and len(node.args) == 2:
                note(node.args[0], node.args[1], node.lineno)
            elif node.func.attr == "update" and len(node.args) == 1 and isinstance(node.args[0], ast.Dict):
                for key, value in zip(node.args[0].keys, node.args[0].values):
                    if key is not None:
                        note(key, value, node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and _registry(target.value):
                    note(target.slice, node.value, node.lineno)
    return tuple(sorted(out.items(), key=lambda item: item[1]))


def _names(results: list[FileResult]) -> frozenset[str]:
    return frozenset(fact[1] for r in results for fact in r.facts
                     if fact and fact[0] == "attnreg" and isinstance(fact[1], str))


def _selects(message: str, names: frozenset[str]) -> bool:
    """The finding's option text (its first backticked part: `attn_implementation=flash_attention_2`) sets one of
    the names."""
    shown = message.split("`")[1] if message.count("`") >= 2 else ""
    value = shown.partition("=")[2].strip().strip("'\"") if "=" in shown else ""
    return value in names


def drop_own_implementations(results: list[FileResult]) -> list[FileResult]:
    """NPU503 findings of an option value the repository registers its own attention function under (see above)."""
    names = _names(results)
    if not names:
        return results
    out = []
    for result in results:
        if any(f.code == "NPU503" and _selects(f.message, names) for f in result.findings):
            kept = tuple(f for f in result.findings if not (f.code == "NPU503" and _selects(f.message, names)))
            result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed,
                                result.facts)
        out.append(result)
    return out
