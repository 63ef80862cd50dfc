"""The rewrite engine behind `npu-migrate apply` and `npu-migrate instrument`. No click, no printing.

One detector per construct: the per-construct rewrites are the analyze rules' own `Edit`s. For each
file: `engine.analyze_file` -> the edits of the fixable findings (a finding's edits are taken whole
or not at all) -> `fix.apply_edits` -> analyse the result again until no fixable finding is left
(normally one extra pass) -> the structural libcst codemods (torch_npu imports, ConfigChecker hooks)
-> the output must parse (Python; every code cell of a notebook, whose JSON is rewritten only inside
the changed cells' `source`) -> encoded back with the input's encoding, BOM and line endings.

A file that needs nothing comes back byte for byte. Line numbers in changes and manual items refer to
the input file (rule edits never add lines; the codemods run last).
"""

from __future__ import annotations

import ast
import codecs
import difflib
import io
import json
import os
import re
import shutil
import tempfile
import tokenize
import warnings
from dataclasses import dataclass, field
from fnmatch import fnmatch
from json.decoder import scanstring

from migrate.codemods.config_check_hooks import DEFAULT_GPU_PACK, DEFAULT_NPU_PACK
from migrate.context import split_lines
from migrate.findings import Edit, FileError, Finding

# Findings that mean "this file is GPU code being moved to the NPU" (ops and file errors alone do not).
_NEEDS_NPU_PREFIXES = ("NPU1", "NPU2", "NPU3", "NPU4", "NPU5", "NPU7")
_MAX_ROUNDS = 4
# Never copied into an output tree (version control, caches); virtualenvs are skipped too.
SKIPPED_DIRS = (".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                ".ipynb_checkpoints", ".tox", ".nox", ".eggs")


@dataclass(frozen=True)
class ApplyOptions:
    torch_npu_version: str | None = None  # None: resolved like analyze does
    entry_globs: tuple[str, ...] = ()  # extra entry scripts (fnmatch on the path and the file name)
    transfer: bool = True  # add `from torch_npu.contrib import transfer_to_npu` to entry scripts
    config_check: bool = True  # add msprobe ConfigChecker hooks to entry scripts
    config_pack: str = DEFAULT_NPU_PACK
    config: object | None = None  # migrate.config.Config: select / ignore / per-file-ignores


@dataclass(frozen=True)
class Change:
    """One finding rewritten: the input's lines before and after its edits."""

    path: str
    line: int
    end_line: int
    code: str
    before: str
    after: str
    cell: int | None = None

    def to_dict(self) -> dict:
        return {"file": self.path, "cell": self.cell, "start_line": self.line, "end_line": self.end_line,
                "code": self.code, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class ManualItem:
    """Something apply left as it was: a non-fixable finding, a hook it could not place, a file error."""

    path: str
    line: int
    code: str
    message: str
    cell: int | None = None
    severity: str = "error"  # of the finding left; info-only leftovers do not make apply exit 1

    def to_dict(self) -> dict:
        return {"file": self.path, "cell": self.cell, "line": self.line, "code": self.code, "severity": self.severity,
                "message": self.message}


@dataclass(frozen=True)
class FileRewrite:
    path: str
    kind: str
    original: bytes
    output: bytes
    changes: tuple[Change, ...] = ()
    structural: tuple[str, ...] = ()  # lines / hooks added by the codemods
    manual: tuple[ManualItem, ...] = ()
    error: FileError | None = None  # could not be read or rewritten: output is the original
    entry: bool = False

    @property
    def changed(self) -> bool:
        return self.output != self.original


@dataclass(frozen=True)
class InstrumentResult:
    text: str
    model_found: bool
    message: str


# ---- small helpers -----------------------------------------------------------------------------------
def resolve_options(options: ApplyOptions | None) -> tuple[ApplyOptions, str]:
    from migrate import knowledge

    options = options or ApplyOptions()
    return options, knowledge.resolve_version(options.torch_npu_version)


def _selected(findings, options: ApplyOptions) -> list[Finding]:
    config = options.config
    if config is None:
        return list(findings)
    return [f for f in findings if config.is_selected(f.code, f.path)]


def _needs_npu(findings) -> bool:
    return any(f.code.startswith(_NEEDS_NPU_PREFIXES) for f in findings)


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass(frozen=True)
class _Decoded:
    encoding: str
    lead: str  # a BOM character kept outside the analysed text
    bom: bool
    body: str


def _decode(data: bytes, python: bool) -> _Decoded:
    encoding = "utf-8"
    bom = data.startswith(codecs.BOM_UTF8)
    if python:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data[len(codecs.BOM_UTF8):].decode("utf-8" if encoding == "utf-8-sig" else encoding) if bom else data.decode(encoding)
    body = text.lstrip("\ufeff")
    return _Decoded("utf-8" if encoding == "utf-8-sig" else encoding, text[: len(text) - len(body)], bom, body)


def _encode(decoded: _Decoded, body: str) -> bytes:
    out = (decoded.lead + body).encode(decoded.encoding)
    return codecs.BOM_UTF8 + out if decoded.bom else out


def is_entry_script(tree: ast.Module, path: str, entry_globs=()) -> bool:
    """A script that is run, not imported: a `__main__` guard, top-level training code
    (`loss.backward()` / `optimizer.step()` outside any function), or named with --entry."""
    posix = path.replace(os.sep, "/")
    if any(fnmatch(posix, g) or fnmatch(os.path.basename(posix), g) or fnmatch(posix, f"*/{g}") for g in entry_globs):
        return True
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            return True
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "backward":
                    return True
                if node.func.attr == "step" and isinstance(node.func.value, ast.Name) and "opt" in node.func.value.id.lower():
                    return True
    return False


def _may_be_entry(text: str) -> bool:
    """Cheap necessary condition for `is_entry_script` (which needs a parse)."""
    return "__main__" in text or "backward" in text or "step" in text


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and mains)


# ---- edits -------------------------------------------------------------------------------------------
def _line_range(lines: list[str], start: int, end: int) -> str:
    return "".join(lines[start - 1 : end]).rstrip("\r\n")


def _apply_findings(text: str, findings) -> tuple[str, list[Change], list[Finding]]:
    """Apply the fixable findings' edits: each finding whole or not at all (no overlap with one
    already taken). Returns the new text, the changes and the fixable findings left for a later round."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def absolute(line: int, column: int) -> int:
        return len(text) if line > len(lines) else offsets[line - 1] + column

    taken: dict[tuple[int, int], str] = {}
    accepted: list[tuple[Finding, list[Edit]]] = []
    skipped: list[Finding] = []
    for finding in sorted((f for f in findings if f.fixable and f.edits), key=lambda f: f.sort_key):
        edits = list(finding.edits)
        spans = [(absolute(e.line, e.column), absolute(e.end_line, e.end_column), e.replacement) for e in edits]
        clash = False
        for start, end, replacement in spans:
            for (s, e), r in taken.items():
                if (s, e) == (start, end) and r == replacement:
                    continue  # the same edit proposed twice: applied once
                if start < e and s < end or start == end == s == e:
                    clash = True
        if clash:
            skipped.append(finding)
            continue
        for start, end, replacement in spans:
            taken[(start, end)] = replacement
        accepted.append((finding, edits))
    if not accepted:
        return text, [], skipped
    from migrate.fix import apply_edits

    new_text, _ = apply_edits(text, [e for _, edits in accepted for e in edits])
    changes = []
    for finding, edits in accepted:
        first = min(e.line for e in edits)
        last = max(e.end_line for e in edits)
        before = _line_range(lines, first, last)
        alone, _ = apply_edits(text, edits)
        after_lines = split_lines(alone)
        added = len(after_lines) - len(lines)
        after = _line_range(after_lines, first, last + added)
        changes.append(Change(finding.path, first, last, finding.code, before, after, finding.cell))
    return new_text, changes, skipped


def _manual_items(findings, leftover) -> list[ManualItem]:
    items = [ManualItem(f.path, f.line, f.code, f.message, f.cell, str(f.severity)) for f in findings if not f.fixable]
    items += [ManualItem(f.path, f.line, f.code, f"not rewritten (overlaps another rewrite): {f.message}", f.cell,
                         str(f.severity)) for f in leftover]
    return items


# ---- structural rewrites (libcst, only when needed) ---------------------------------------------------
def _header_cut(tree: ast.Module, lines: list[str]) -> int:
    """Number of lines the import codemod needs to see: through the statement after which it
    inserts (see `codemods.inject_npu_imports._insertion_index`, mirrored here on the stdlib ast:
    the last torch import of the opening import block, else the first top-level torch import,
    else the end of the opening block). Parsing only that much with libcst keeps big files cheap;
    the codemod then inserts at the same place as on the whole module."""
    body = tree.body
    simple = (ast.Import, ast.ImportFrom, ast.Assign, ast.Pass, ast.Expr)

    def modules(stmt) -> list[str]:
        if isinstance(stmt, ast.Import):
            return [a.name for a in stmt.names]
        if isinstance(stmt, ast.ImportFrom):
            return [stmt.module or ""] if not stmt.level else ["."]
        if isinstance(stmt, (ast.Try, ast.If)):
            out: list[str] = []
            for block in _ast_blocks(stmt):
                for inner in block:
                    if not isinstance(inner, simple):
                        return []  # like codemods._module.imported_modules: only import-and-fallback blocks
                    out += modules(inner) if isinstance(inner, (ast.Import, ast.ImportFrom)) else []
            return out
        return []

    def imports_torch(stmt) -> bool:
        return any(m.split(".")[0] in ("torch", "torch_npu") for m in modules(stmt))

    start = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        start = 1
    while start < len(body) and isinstance(body[start], ast.ImportFrom) and body[start].module == "__future__":
        start += 1
    end = start
    while end < len(body) and modules(body[end]):
        end += 1
    chosen = next((i for i in range(end - 1, start - 1, -1) if imports_torch(body[i])), None)
    if chosen is None:
        chosen = next((i for i in range(end, len(body)) if imports_torch(body[i])), end - 1)
    if chosen < 0:
        return 0
    cut = body[chosen].end_lineno or body[chosen].lineno
    for stmt in body[chosen + 1 :]:
        if stmt.lineno <= cut:  # statements sharing the last line (`import a; import b`)
            cut = max(cut, stmt.end_lineno or stmt.lineno)
        else:
            break
    return min(cut, len(lines))


def _ast_blocks(stmt) -> list[list[ast.stmt]]:
    blocks = [stmt.body, getattr(stmt, "orelse", [])]
    for handler in getattr(stmt, "handlers", []):
        blocks.append(handler.body)
    blocks.append(getattr(stmt, "finalbody", []))
    return blocks


@dataclass(frozen=True)
class _Structural:
    text: str
    added: tuple[str, ...]
    manual: tuple[str, ...]  # messages


def _structural(text: str, tree: ast.Module, *, torch_npu: bool, transfer: bool, hooks: bool, zip_path: str) -> _Structural:
    """Run the codemods that are needed; libcst parses only the import header unless hooks are wanted."""
    import libcst as cst

    from migrate.codemods.config_check_hooks import add_config_check_hooks
    from migrate.codemods.inject_npu_imports import existing_npu_imports, inject_npu_imports

    present = existing_npu_imports(tree)
    add_torch_npu = torch_npu and not present.torch_npu
    add_transfer = transfer and not present.transfer
    if hooks and "ConfigChecker" in text:
        hooks = not _has_hooks_text(text)
    added: list[str] = []
    manual: list[str] = []
    if hooks and not _builds_optimizer_from_parameters(tree):
        # The hook is anchored on `<model>.parameters()` handed to an optimizer; without any such
        # call it cannot be placed, so skip the full-module libcst parse (most of apply's cost on a
        # big repo) and report what the codemod would have reported.
        hooks = False
        manual.append("ConfigChecker hook not added: no optimizer built from `<model>.parameters()` found")
    if not (add_torch_npu or add_transfer or hooks):
        return _Structural(text, (), tuple(manual))
    if hooks:
        module = cst.parse_module(text)
        injected = inject_npu_imports(module, torch_npu=add_torch_npu, transfer=add_transfer)
        added += injected.added
        result = add_config_check_hooks(injected.module, zip_path=zip_path)
        if result.changed:
            added.append(f"ConfigChecker hooks on `{result.model}` ({zip_path})")
        elif not result.already_present:
            manual.append(result.message)
        return _Structural(result.module.code, tuple(added), tuple(manual))
    lines = split_lines(text)
    cut = _header_cut(tree, lines)
    head, rest = "".join(lines[:cut]), "".join(lines[cut:])
    if not head or (not head.endswith(("\n", "\r")) and rest):
        head, rest = text, ""  # no imports: the whole module, so a shebang or licence header stays first
    injected = inject_npu_imports(cst.parse_module(head), torch_npu=add_torch_npu, transfer=add_transfer)
    new_head = injected.module.code
    if head and not rest and not head.endswith(("\n", "\r")) and new_head.endswith(("\n", "\r")):
        new_head = new_head.rstrip("\r\n")
    return _Structural(new_head + rest, injected.added, tuple(manual))


def _builds_optimizer_from_parameters(tree: ast.Module) -> bool:
    """Cheap necessary condition for placing the ConfigChecker hook (see codemods/config_check_hooks)."""
    from migrate.codemods.config_check_hooks import _PARAMETER_METHODS

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _PARAMETER_METHODS:
            return True
    return False


def _has_hooks_text(text: str) -> bool:
    import libcst as cst

    from migrate.codemods.config_check_hooks import has_hooks

    try:
        return has_hooks(cst.parse_module(text))
    except cst.ParserSyntaxError:
        return True


# ---- one Python file ----------------------------------------------------------------------------------
def _analyze_python(path: str, text: str, version: str, options: ApplyOptions):
    from migrate.engine import analyze_python_text

    findings, errors, _ = analyze_python_text(path, text, version)
    return _selected(findings, options), errors


def _rewrite_python(path: str, body: str, findings, options: ApplyOptions, version: str):
    text = body
    changes: list[Change] = []
    leftover: list[Finding] = []
    current = findings
    for _ in range(_MAX_ROUNDS):
        if not any(f.fixable for f in current):
            leftover = []
            break
        text, round_changes, leftover = _apply_findings(text, current)
        changes += round_changes
        if not round_changes or not leftover:
            break  # rule edits do not create new findings (the idempotence tests hold them to it)
        # some findings overlapped one taken: analyse the result again and take them now
        current, errors = _analyze_python(path, text, version, options)
        if errors:
            raise _RewriteBroke(f"the rewritten file does not parse: {errors[0].message}")
        leftover = [f for f in current if f.fixable]
    needs = _needs_npu(findings) or bool(changes)
    if not needs or (not changes and not options.entry_globs and not _may_be_entry(text)):
        # nothing rewritten, and either nothing CUDA-specific (only NPU6xx notes) or a library
        # module (no `__main__` guard, no top-level backward/step text): nothing to add, no re-parse
        return _Structural(text, (), ()), changes, leftover, False
    tree = _parse(text)
    if tree is None:
        raise _RewriteBroke("the rewritten file does not parse")
    entry = is_entry_script(tree, path, options.entry_globs)
    structural = _Structural(text, (), ())
    if needs:
        structural = _structural(
            text, tree, torch_npu=bool(changes) or entry, transfer=entry and options.transfer,
            hooks=entry and options.config_check, zip_path=options.config_pack,
        )
        if structural.text != text and _parse(structural.text) is None:
            raise _RewriteBroke("adding the torch_npu imports / hooks broke the file")
    return structural, changes, leftover, entry


class _RewriteBroke(Exception):
    """A rewrite produced text that does not parse: the file is left as it was (and reported)."""


def rewrite_file(path: str, data: bytes, *, kinds: tuple[str, ...] | None = None, options: ApplyOptions | None = None,
                 version: str | None = None) -> FileRewrite:
    """Rewrite one file's bytes. Pure: never raises for bad input, never touches the disk."""
    from migrate.engine import Target, analyze_file
    from migrate.sources import classify

    if version is None:
        options, version = resolve_options(options)
    options = options or ApplyOptions()
    kinds = kinds or classify(path) or ("python",)
    kind = kinds[0]
    result = analyze_file(Target(path, kinds), data, version)
    findings = _selected(result.findings, options)
    errors = list(result.errors)
    if errors and kind in ("python", "notebook"):
        error = errors[0]
        return FileRewrite(path, kind, data, data, manual=tuple(ManualItem(e.path, e.line, e.code, e.message) for e in errors), error=error)
    manual_errors = [ManualItem(e.path, e.line, e.code, e.message) for e in errors]
    if not findings:
        return FileRewrite(path, kind, data, data, manual=tuple(manual_errors))
    try:
        decoded = _decode(data, python=kind == "python")
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        error = FileError(path, "NPU902", f"cannot decode: {exc}")
        return FileRewrite(path, kind, data, data, manual=(ManualItem(path, 1, error.code, error.message),), error=error)
    try:
        if kind == "python":
            structural, changes, leftover, entry = _rewrite_python(path, decoded.body, findings, options, version)
            manual = _manual_items(findings, leftover) + [ManualItem(path, 1, "HOOK", m, severity="warning") for m in structural.manual]
            output = _encode(decoded, structural.text) if (changes or structural.added) else data
            return FileRewrite(path, kind, data, output, tuple(changes), structural.added, tuple(manual + manual_errors), entry=entry)
        if kind == "notebook":
            return _rewrite_notebook(path, data, decoded, findings, options, version)
        if kind == "launcher" and any(f.fixable for f in findings):
            text, changes, leftover = _apply_findings(decoded.body, findings)
            if path.endswith((".yaml", ".yml")) and not _yaml_still_loads(decoded.body, text):
                raise _RewriteBroke("the rewritten YAML does not load")
            output = _encode(decoded, text) if changes else data
            return FileRewrite(path, kind, data, output, tuple(changes), (), tuple(_manual_items(findings, leftover) + manual_errors))
    except _RewriteBroke as exc:
        error = FileError(path, "NPU900", f"rewrite left out, it would break the file ({exc}); please report this")
        return FileRewrite(path, kind, data, data, manual=tuple(_manual_items(findings, []) + [ManualItem(path, 1, error.code, error.message)]),
                           error=error)
    return FileRewrite(path, kind, data, data, manual=tuple(_manual_items(findings, []) + manual_errors))


def _yaml_still_loads(before: str, after: str) -> bool:
    import yaml

    try:
        yaml.safe_load_all(before) and list(yaml.safe_load_all(before))
    except yaml.YAMLError:
        return True  # it did not load before either: not ours to judge
    try:
        list(yaml.safe_load_all(after))
    except yaml.YAMLError:
        return False
    return True


def rewrite_source(source: str, *, path: str = "<stdin>.py", options: ApplyOptions | None = None) -> FileRewrite:
    """Convenience for text input (tests, stdin): the source as UTF-8 bytes through `rewrite_file`."""
    return rewrite_file(path, source.encode("utf-8"), kinds=("python",), options=options)


# ---- notebooks ----------------------------------------------------------------------------------------
_WS = re.compile(r"[ \t\n\r]*")


def _json_spans(text: str, wanted) -> dict[tuple, tuple[int, int]]:
    """Character spans of JSON values, for the paths `wanted(path)` accepts (no layout change needed)."""
    decoder = json.JSONDecoder()
    spans: dict[tuple, tuple[int, int]] = {}

    def walk(i: int, path: tuple) -> int:
        i = _WS.match(text, i).end()
        start = i
        char = text[i]
        if char == "{":
            i = _WS.match(text, i + 1).end()
            if text[i] == "}":
                end = i + 1
            else:
                while True:
                    i = _WS.match(text, i).end()
                    key, i = scanstring(text, i + 1)
                    i = _WS.match(text, i).end()
                    i = walk(i + 1, path + (key,))  # past ':'
                    i = _WS.match(text, i).end()
                    if text[i] == ",":
                        i += 1
                        continue
                    end = i + 1
                    break
        elif char == "[":
            i = _WS.match(text, i + 1).end()
            if text[i] == "]":
                end = i + 1
            else:
                index = 0
                while True:
                    i = walk(i, path + (index,))
                    index += 1
                    i = _WS.match(text, i).end()
                    if text[i] == ",":
                        i += 1
                        continue
                    end = i + 1
                    break
        elif char == '"':
            _, end = scanstring(text, i + 1)
        else:
            _, end = decoder.raw_decode(text, i)
        if wanted(path):
            spans[path] = (start, end)
        return end

    walk(0, ())
    return spans


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _dump(value: str, ensure_ascii: bool) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii)


def _rewrite_notebook(path, data, decoded: _Decoded, findings, options: ApplyOptions, version: str) -> FileRewrite:
    from migrate.engine import Target, analyze_file
    from migrate.sources import read_notebook

    text = decoded.body
    notebook = json.loads(text)
    cells = notebook["cells"]
    sources = {i: _cell_source(c) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"}
    new_sources = dict(sources)
    changes: list[Change] = []
    leftover: list[Finding] = []
    current = findings
    for _ in range(_MAX_ROUNDS):
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
            new_raw, cell_changes, skipped = _apply_findings(raw, cell_findings)
            new_sources[index] = new_raw
            round_changes += cell_changes
            leftover += skipped
        changes += round_changes
        if not round_changes:
            break
        probe = _notebook_text(text, cells, new_sources, {})
        current = _selected(analyze_file(Target(path, ("notebook",)), probe.encode("utf-8"), version).findings, options)
    # imports: a notebook is run top to bottom, so it is an entry (no ConfigChecker hooks in notebooks)
    added: tuple[str, ...] = ()
    if _needs_npu(findings) or changes:
        added = _notebook_imports(new_sources, read_notebook(_notebook_text(text, cells, new_sources, {})), options)
    for cell in read_notebook(_notebook_text(text, cells, new_sources, {})):
        if _parse(cell.python_source) is None:
            raise _RewriteBroke(f"cell {cell.index} does not parse after the rewrite")
    if not changes and not added:
        return FileRewrite(path, "notebook", data, data, manual=tuple(_manual_items(findings, leftover)), entry=True)
    new_text = _notebook_text(text, cells, new_sources, sources)
    json.loads(new_text)
    return FileRewrite(path, "notebook", data, _encode(decoded, new_text), tuple(changes), added,
                       tuple(_manual_items(findings, leftover)), entry=True)


def _notebook_imports(sources: dict[int, str], cells, options: ApplyOptions) -> tuple[str, ...]:
    """Add the torch_npu imports to the first code cell importing torch (else the first code cell)."""
    import libcst as cst

    from migrate.codemods.inject_npu_imports import existing_npu_imports, inject_npu_imports

    trees = {c.index: _parse(c.python_source) for c in cells}
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


def _split_source(source: str) -> list[str]:
    return source.splitlines(keepends=True) if source else []


def _notebook_text(text: str, cells, new_sources: dict[int, str], old_sources: dict[int, str]) -> str:
    """The notebook text with only the changed cells' `source` values rewritten in place."""
    changed = [i for i, s in new_sources.items() if s != _cell_source(cells[i])]
    if not changed:
        return text
    wanted_cells = set(changed)
    spans = _json_spans(text, lambda p: len(p) >= 3 and p[0] == "cells" and p[1] in wanted_cells and p[2] == "source" and len(p) <= 4)
    ensure_ascii = not any(ord(ch) > 127 for ch in text) and "\\u" in text
    pieces: list[tuple[int, int, str]] = []
    for index in changed:
        start, end = spans[("cells", index, "source")]
        original = cells[index].get("source", "")
        new = new_sources[index]
        if isinstance(original, str):
            pieces.append((start, end, _dump(new, ensure_ascii)))
            continue
        old_items = list(original)
        new_items = _split_source(new)
        element_spans = [spans[("cells", index, "source", k)] for k in range(len(old_items))]
        element_text = [text[s:e] for s, e in element_spans]
        if len(old_items) == len(new_items):
            for k, (old, item) in enumerate(zip(old_items, new_items)):
                if old != item:
                    pieces.append((*element_spans[k], _dump(item, ensure_ascii)))
            continue
        if len(element_spans) >= 2:
            sep = text[element_spans[0][1] : element_spans[1][0]]
        elif element_spans:
            sep = "," + text[start + 1 : element_spans[0][0]]
        else:
            sep = ", "
        open_ws = text[start + 1 : element_spans[0][0]] if element_spans else ""
        close_ws = text[element_spans[-1][1] : end - 1] if element_spans else ""
        matcher = difflib.SequenceMatcher(a=old_items, b=new_items, autojunk=False)
        rendered: list[str] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                rendered += element_text[i1:i2]
            else:
                rendered += [_dump(item, ensure_ascii) for item in new_items[j1:j2]]
        pieces.append((start, end, "[" + open_ws + sep.join(rendered) + close_ws + "]"))
    out = []
    cursor = 0
    for start, end, replacement in sorted(pieces):
        out.append(text[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


# ---- instrument (baseline side) -----------------------------------------------------------------------
def instrument_source(source: str, *, zip_path: str = DEFAULT_GPU_PACK) -> InstrumentResult:
    """Add only the ConfigChecker hooks (no NPU rewrites) to a script's source text."""
    import libcst as cst

    from migrate.codemods.config_check_hooks import add_config_check_hooks

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return InstrumentResult(source, False, f"cannot parse: {exc.message}")
    result = add_config_check_hooks(module, zip_path=zip_path)
    if result.already_present:
        return InstrumentResult(source, True, result.message)
    return InstrumentResult(result.module.code, result.model_found, result.message)


def instrument_file(path: str, data: bytes, *, zip_path: str = DEFAULT_GPU_PACK) -> tuple[bytes, InstrumentResult]:
    decoded = _decode(data, python=True)
    result = instrument_source(decoded.body, zip_path=zip_path)
    if result.text == decoded.body:
        return data, result
    return _encode(decoded, result.text), result


# ---- trees, diffs and writing -------------------------------------------------------------------------
@dataclass(frozen=True)
class TreeEntry:
    relpath: str
    kind: str  # "file", "link", "dir"
    rewrite: FileRewrite | None = None  # files the engine reads (Python, notebooks, launchers ...)


@dataclass(frozen=True)
class ApplyResult:
    files: tuple[FileRewrite, ...]
    entries: tuple[TreeEntry, ...] = ()  # for a directory: everything to copy
    torch_npu_version: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def changed(self) -> list[FileRewrite]:
        return [f for f in self.files if f.changed]

    @property
    def changes(self) -> list[Change]:
        return [c for f in self.files for c in f.changes]

    @property
    def manual(self) -> list[ManualItem]:
        return [m for f in self.files for m in f.manual]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for change in self.changes:
            out[change.code] = out.get(change.code, 0) + 1
        return dict(sorted(out.items()))


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def plan_tree(root: str, options: ApplyOptions | None = None, *, jobs: int | None = None) -> ApplyResult:
    """Walk a directory: files the analyzer reads (honouring .gitignore and excludes) are rewritten,
    everything else is listed for a verbatim copy. Symlinks stay links and are not followed."""
    from migrate.config import Config
    from migrate.engine import discover

    options, version = resolve_options(options)
    config = options.config if options.config is not None else Config()
    targets, _ = discover([root], config)
    readable = {os.path.normpath(t.path): t.kinds for t in targets}
    entries: list[TreeEntry] = []
    to_rewrite: list[tuple[str, str, tuple[str, ...]]] = []
    for directory, dirnames, filenames in os.walk(root):
        keep = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            if name in SKIPPED_DIRS or name.endswith(".egg-info") or (not os.path.islink(full) and _is_virtualenv(full)):
                continue
            if os.path.islink(full):
                entries.append(TreeEntry(rel, "link"))
                continue
            entries.append(TreeEntry(rel, "dir"))
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            if name.endswith((".pyc", ".pyo")):
                continue
            if os.path.islink(full):
                entries.append(TreeEntry(rel, "link"))
            elif os.path.normpath(full) in readable:
                to_rewrite.append((rel, full, readable[os.path.normpath(full)]))
            else:
                entries.append(TreeEntry(rel, "file"))
    rewrites = _rewrite_many([(full, kinds) for _, full, kinds in to_rewrite], options, version, jobs)
    for (rel, _, _), rewrite in zip(to_rewrite, rewrites):
        entries.append(TreeEntry(rel, "file", rewrite))
    entries.sort(key=lambda e: e.relpath)
    return ApplyResult(tuple(rewrites), tuple(entries), version)


def plan_files(paths: list[str], options: ApplyOptions | None = None, *, jobs: int | None = None) -> ApplyResult:
    """Rewrite the given files (paths as given; kinds from their names, Python when unknown)."""
    from migrate.sources import classify

    options, version = resolve_options(options)
    items = [(p, classify(p) or ("python",)) for p in paths]
    return ApplyResult(tuple(_rewrite_many(items, options, version, jobs)), (), version)


def _rewrite_one(item, options, version) -> FileRewrite:
    path, kinds = item
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        error = FileError(path, "NPU903", f"cannot read: {exc.strerror or exc}")
        return FileRewrite(path, kinds[0], b"", b"", manual=(ManualItem(path, 1, error.code, error.message),), error=error)
    return rewrite_file(path, data, kinds=kinds, options=options, version=version)


def _rewrite_batch(items, options, version) -> list[FileRewrite]:
    return [_rewrite_one(item, options, version) for item in items]


def _rewrite_many(items, options: ApplyOptions, version: str, jobs: int | None) -> list[FileRewrite]:
    workers = jobs if jobs else (os.cpu_count() or 1)
    if workers <= 1 or len(items) < 32:
        return _rewrite_batch(items, options, version)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Batches balanced by bytes, biggest files first, as the analyze engine does: a repo's few huge
    # files must not all land in one worker's last batch.
    def size_of(item) -> int:
        try:
            return os.path.getsize(item[0])
        except OSError:
            return 0

    order = sorted(range(len(items)), key=lambda i: -size_of(items[i]))
    total = sum(size_of(item) for item in items) or 1
    budget = max(total // (workers * 12), 1)
    batches: list[list[int]] = []
    current: list[int] = []
    current_size = 0
    for index in order:
        current.append(index)
        current_size += size_of(items[index])
        if current_size >= budget:
            batches.append(current)
            current, current_size = [], 0
    if current:
        batches.append(current)
    context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
    out: list = [None] * len(items)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        jobs_ = [[items[i] for i in batch] for batch in batches]
        for batch, results in zip(batches, pool.map(_rewrite_batch, jobs_, [options] * len(jobs_), [version] * len(jobs_))):
            for index, result in zip(batch, results):
                out[index] = result
    return out


def unified_diff(rewrite: FileRewrite, old_name: str, new_name: str) -> str:
    """A unified diff of one rewrite (text; line endings shown as in the file)."""
    if not rewrite.changed:
        return ""
    try:
        before = _decode(rewrite.original, rewrite.kind == "python")
        after = _decode(rewrite.output, rewrite.kind == "python")
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return f"Binary files {old_name} and {new_name} differ\n"
    a = split_lines(before.body)
    b = split_lines(after.body)
    lines = list(difflib.unified_diff(a, b, old_name, new_name))
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def atomic_write(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Write through a temporary file in the same directory and `os.replace` it into place."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".npu-migrate-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_tree(result: ApplyResult, source_root: str, output_root: str) -> int:
    """Copy the planned tree to `output_root` (rewritten files changed, permissions kept, symlinks as
    symlinks). Returns the number of files written."""
    written = 0
    os.makedirs(output_root, exist_ok=True)
    for entry in result.entries:
        src = os.path.join(source_root, entry.relpath)
        dst = os.path.join(output_root, entry.relpath)
        if entry.kind == "dir":
            os.makedirs(dst, exist_ok=True)
            shutil.copymode(src, dst)
        elif entry.kind == "link":
            if os.path.lexists(dst):
                os.unlink(dst) if not os.path.isdir(dst) or os.path.islink(dst) else shutil.rmtree(dst)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(os.readlink(src), dst)
        else:
            mode = os.stat(src).st_mode
            if entry.rewrite is not None:
                atomic_write(dst, entry.rewrite.output, mode=mode)
            else:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                tmp_dir = os.path.dirname(os.path.abspath(dst))
                fd, tmp = tempfile.mkstemp(dir=tmp_dir, prefix=".npu-migrate-", suffix=".tmp")
                os.close(fd)
                try:
                    shutil.copy2(src, tmp)
                    os.replace(tmp, dst)
                except BaseException:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
                    raise
            written += 1
    return written


# ---- reports -------------------------------------------------------------------------------------------
def report_dict(result: ApplyResult) -> dict:
    from migrate import __version__

    return {
        "tool": "npu-migrate", "version": __version__, "torch_npu_version": result.torch_npu_version,
        "files": len(result.files), "files_changed": len(result.changed),
        "changed_files": [f.path for f in result.changed],
        "structural": [{"file": f.path, "added": list(f.structural)} for f in result.files if f.structural],
        "counts": result.counts(),
        "changes": [c.to_dict() for c in result.changes],
        "manual": [m.to_dict() for m in result.manual],
    }


def write_report(result: ApplyResult, path: str) -> None:
    """JSON or CSV (by the file's suffix) change list plus the remaining manual items."""
    if path.lower().endswith(".csv"):
        import csv

        stream = io.StringIO()
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(["kind", "file", "cell", "start_line", "end_line", "code", "before", "after", "message"])
        for c in result.changes:
            writer.writerow(["change", c.path, "" if c.cell is None else c.cell, c.line, c.end_line, c.code, c.before, c.after, ""])
        for f in result.files:
            for added in f.structural:
                writer.writerow(["added", f.path, "", "", "", "", "", added, ""])
        for m in result.manual:
            writer.writerow(["manual", m.path, "" if m.cell is None else m.cell, m.line, m.line, m.code, "", "", m.message])
        data = stream.getvalue().encode("utf-8")
    else:
        data = (json.dumps(report_dict(result), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    atomic_write(path, data)
