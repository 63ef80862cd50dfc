"""Notebooks through apply: the rule edits cell by cell, the torch_npu imports in the first cell that
imports torch (a notebook is run top to bottom, so it is an entry script; no ConfigChecker hooks), every
code cell must still parse, and the JSON is rewritten only inside the changed cells' `source`."""

from __future__ import annotations

import ast
import difflib
import json

from migrate import fileio
from migrate.findings import Finding
from migrate.rewrite._shared import MAX_ROUNDS, RewriteBroke, manual_items, needs_npu, parse, selected
from migrate.rewrite.edits import apply_findings
from migrate.rewrite.model import ApplyOptions, Change, FileRewrite, ManualItem
from migrate.rewrite.notebook_json import cell_source, notebook_text
from migrate.rewrite.structural import TOO_DEEP

NOTEBOOK_REASON = "a notebook runs top to bottom"


def rewrite_notebook(path, data, decoded: fileio.Decoded, findings, options: ApplyOptions, version: str) -> FileRewrite:
    from migrate.engine import Target, analyze_file
    from migrate.sources import read_notebook

    text = decoded.body
    notebook = json.loads(text)
    cells = notebook["cells"]
    sources = {i: cell_source(c) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"}
    new_sources = dict(sources)
    changes: list[Change] = []
    leftover: list[Finding] = []
    current = findings
    for _ in range(MAX_ROUNDS):
        by_cell: dict[int, list[Finding]] = {}
        for f in current:
            if f.fixable and f.cell is not None:
                by_cell.setdefault(f.cell, []).append(f)
        if not by_cell:
            leftover = []
            break
        round_changes = []
        leftover = []
        for index, cell_findings in by_cell.items():
            raw = new_sources[index]
            # shell lines (`!cmd`) keep their columns in the reader (the `!` becomes a space)
            new_raw, cell_changes, skipped = apply_findings(raw, cell_findings)
            new_sources[index] = new_raw
            round_changes += cell_changes
            leftover += skipped
        changes += round_changes
        if not round_changes:
            break
        probe = notebook_text(text, cells, new_sources)
        current = selected(analyze_file(Target(path, ("notebook",)), probe.encode("utf-8"), version).findings, options)
    # imports: a notebook is run top to bottom, so it is an entry (no ConfigChecker hooks in notebooks)
    added: tuple[str, ...] = ()
    limit: list[ManualItem] = []
    if needs_npu(findings) or changes:
        try:
            added = _notebook_imports(new_sources, read_notebook(notebook_text(text, cells, new_sources)), options)
        except RecursionError:
            limit.append(ManualItem(path, 1, "NPU905", TOO_DEEP, severity="warning"))
    for cell in read_notebook(notebook_text(text, cells, new_sources)):
        if parse(cell.python_source) is None:
            raise RewriteBroke(f"cell {cell.index} does not parse after the rewrite")
    if not changes and not added:
        return FileRewrite(path, "notebook", data, data, manual=tuple(manual_items(findings, leftover) + limit), entry=True, role="entry", role_reason=NOTEBOOK_REASON)
    new_text = notebook_text(text, cells, new_sources)
    json.loads(new_text)
    return FileRewrite(path, "notebook", data, decoded.encode(new_text), tuple(changes), added,
                       tuple(manual_items(findings, leftover) + limit), entry=True, role="entry", role_reason=NOTEBOOK_REASON)


def _notebook_imports(sources: dict[int, str], cells, options: ApplyOptions) -> tuple[str, ...]:
    """Add the torch_npu imports to the first code cell importing torch (else the first code cell)."""
    import libcst as cst

    from migrate.codemods.inject_npu_imports import existing_npu_imports, inject_npu_imports

    trees = {c.index: parse(c.python_source) for c in cells}
    present_torch_npu = present_transfer = False
    for tree in trees.values():
        if tree is not None:
            present = existing_npu_imports(tree)
            present_torch_npu |= present.torch_npu
            present_transfer |= present.transfer
    add_transfer = options.transfer and not present_transfer
    if present_torch_npu and not add_transfer:
        return ()
    target = None
    for cell in cells:
        tree = trees[cell.index]
        if tree is not None and any(
            isinstance(s, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in s.names)
            or isinstance(s, ast.ImportFrom) and (s.module or "").split(".")[0] == "torch" and not s.level
            for s in tree.body
        ):
            target = cell
            break
    if target is None:
        target = next((c for c in cells if trees[c.index] is not None and c.python_source.strip()), None)
    if target is None:
        return ()
    python = target.python_source
    injected = inject_npu_imports(cst.parse_module(python), torch_npu=not present_torch_npu, transfer=add_transfer)
    if not injected.added:
        return ()
    old_lines, new_lines = python.split("\n"), injected.module.code.split("\n")
    raw_lines = sources[target.index].split("\n")
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += raw_lines[i1:i2]
        elif tag == "insert":
            out += new_lines[j1:j2]
        else:
            return ()  # the codemod only inserts lines; anything else is not applied to a notebook
    sources[target.index] = "\n".join(out)
    return injected.added
