"""Add `import torch_npu` (and, in entry scripts, the `transfer_to_npu` runtime patcher) to a module.

Placement: right after the module's last top-level torch import (`import torch`, `import torch.nn as
nn`, `from torch.utils.data import ...`, a `try:` block importing torch), never before the docstring
or the `from __future__` imports; a module without torch imports gets them after its opening imports.
Idempotent: an existing `import torch_npu` / `from torch_npu.contrib import transfer_to_npu` anywhere
in the module (also inside `try:` blocks and functions) is recognised and nothing is added twice.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from migrate.codemods._module import header_start, imported_modules, insert_statements, is_torch_module, leading_imports_end

TORCH_NPU_IMPORT = "import torch_npu"
TRANSFER_IMPORT = "from torch_npu.contrib import transfer_to_npu"


@dataclass(frozen=True)
class NpuImports:
    """Which torch_npu imports a module already has."""

    torch_npu: bool
    transfer: bool


def existing_npu_imports(tree: ast.AST) -> NpuImports:
    """Scan a parsed module (stdlib ast: cheap, the whole file) for the torch_npu imports."""
    torch_npu = transfer = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch_npu" or alias.name.startswith("torch_npu."):
                    torch_npu = True
                if alias.name == "torch_npu.contrib.transfer_to_npu":
                    transfer = True
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "torch_npu" or node.module.startswith("torch_npu."):
                torch_npu = True
            if (node.module == "torch_npu.contrib" and any(a.name == "transfer_to_npu" for a in node.names)) or (
                node.module == "torch_npu.contrib.transfer_to_npu"
            ):
                transfer = True
    # the patcher imports torch_npu itself, so `torch.npu` exists once it ran
    return NpuImports(torch_npu=torch_npu or transfer, transfer=transfer)


@dataclass(frozen=True)
class InjectResult:
    module: cst.Module
    added: tuple[str, ...]  # the import lines added, in order


def insertion_index(body) -> int:
    """THE place for the torch_npu imports (apply's partial parse uses it too, see `placement_known`):
    just after the last torch (or torch_npu) import of the module's opening import block; when
    that block imports no torch, just after the first top-level torch import. Not after the last
    torch import of the whole file: in a module that imports torch again far below, code between
    the two would run before torch_npu is loaded (and libcst would have to read the whole file)."""
    start = header_start(body)
    end = leading_imports_end(body)
    in_block = [index for index in range(start, end) if _imports_torch(body[index])]
    if in_block:
        return in_block[-1] + 1
    for index in range(end, len(body)):
        if _imports_torch(body[index]):
            return index + 1
    return end


def _imports_torch(stmt) -> bool:
    return any(is_torch_module(m) or m == "torch_npu" or m.startswith("torch_npu.") for m in imported_modules(stmt))


def placement_known(body, *, torch_imported_later: bool = True, block_ends: bool = False) -> bool:
    """True when the first statements of a module (`body`, parsed from a prefix of its text) are
    enough for `insertion_index` to answer as it would on the whole module: the opening import
    block ends inside them (or the caller knows it ends right after them: `block_ends`), and it or
    a statement after it imports torch (or the caller knows that no later statement can:
    `torch_imported_later=False`)."""
    start = header_start(body)
    end = leading_imports_end(body)
    if end >= len(body) and not block_ends:
        return False
    return not torch_imported_later or any(_imports_torch(body[index]) for index in range(start, len(body)))


def inject_npu_imports(module: cst.Module, *, torch_npu: bool, transfer: bool) -> InjectResult:
    """Add the requested imports (the caller passes what is missing, see `existing_npu_imports`)."""
    wanted: list[str] = []
    if torch_npu:
        wanted.append(TORCH_NPU_IMPORT)
    if transfer:
        wanted.append(TRANSFER_IMPORT)
    if not wanted:
        return InjectResult(module, ())
    # check again on the module's top-level statements (also `try:` blocks), so the codemod stays
    # idempotent on its own; callers check the whole file first with `existing_npu_imports`
    modules = [m for stmt in module.body for m in imported_modules(stmt)]
    has_torch_npu = any(m == "torch_npu" or m.startswith("torch_npu.") for m in modules)
    has_transfer = any(m in ("torch_npu.contrib", "torch_npu.contrib.transfer_to_npu") for m in modules) and _imports_transfer(module)
    wanted = [w for w in wanted if not (w == TORCH_NPU_IMPORT and has_torch_npu) and not (w == TRANSFER_IMPORT and has_transfer)]
    if not wanted:
        return InjectResult(module, ())
    index = insertion_index(module.body)
    statements = [cst.parse_statement(line) for line in wanted]
    return InjectResult(module.with_changes(body=insert_statements(module.body, index, statements)), tuple(wanted))


def _imports_transfer(module: cst.Module) -> bool:
    return "transfer_to_npu" in "".join(module.code_for_node(stmt) for stmt in module.body if imported_modules(stmt))
