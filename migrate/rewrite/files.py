"""One file through apply: `engine.analyze_file` -> the fixable findings' edits (each finding whole or
not at all, `edits.apply_findings`) -> analysed again until no fixable finding is left (normally one
extra pass) -> the structural codemods (torch_npu imports, ConfigChecker hooks) -> the output must
parse -> encoded back with the input's encoding, BOM and line endings.

A file that needs nothing comes back byte for byte. Line numbers in changes and manual items refer to
the input file (rule edits never add lines; the codemods run last).
"""

from __future__ import annotations

from migrate import fileio
from migrate.findings import FileError, Finding
from migrate.rewrite._shared import MAX_ROUNDS, RewriteBroke, manual_items, needs_npu, parse, selected
from migrate.rewrite.edits import apply_findings
from migrate.rewrite.entry import LIBRARY, EntryDecision, decide_entry, may_be_entry
from migrate.rewrite.model import ApplyOptions, Change, FileRewrite, ManualItem, resolve_options
from migrate.rewrite.structural import Structural, add_npu_structure


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
    findings = selected(result.findings, options)
    errors = list(result.errors)
    if errors and kind in ("python", "notebook"):
        error = errors[0]
        return FileRewrite(path, kind, data, data, manual=tuple(ManualItem(e.path, e.line, e.code, e.message) for e in errors), error=error)
    manual_errors = [ManualItem(e.path, e.line, e.code, e.message) for e in errors]
    if not findings:
        return FileRewrite(path, kind, data, data, manual=tuple(manual_errors))
    try:
        decoded = fileio.decode(data, python=kind == "python")
    except fileio.ReadError as exc:
        error = FileError(path, "NPU902", str(exc))
        return FileRewrite(path, kind, data, data, manual=(ManualItem(path, 1, error.code, error.message),), error=error)
    try:
        if kind == "python":
            structural, changes, leftover, decision = _rewrite_python(path, decoded.body, findings, options, version)
            manual = manual_items(findings, leftover) + [ManualItem(path, 1, "HOOK", m, severity="warning") for m in structural.manual]
            if structural.limit:
                manual.append(ManualItem(path, 1, "NPU905", structural.limit, severity="warning"))
            output = decoded.encode(structural.text) if (changes or structural.added) else data
            return FileRewrite(path, kind, data, output, tuple(changes), structural.added, tuple(manual + manual_errors),
                               entry=bool(decision and decision.entry), role=decision.role if decision else "",
                               role_reason=decision.reason if decision else "")
        if kind == "notebook":
            from migrate.rewrite.notebook import rewrite_notebook

            return rewrite_notebook(path, data, decoded, findings, options, version)
        if kind == "launcher" and any(f.fixable for f in findings):
            text, changes, leftover = apply_findings(decoded.body, findings)
            if path.endswith((".yaml", ".yml")) and not _yaml_still_loads(decoded.body, text):
                raise RewriteBroke("the rewritten YAML does not load")
            output = decoded.encode(text) if changes else data
            return FileRewrite(path, kind, data, output, tuple(changes), (), tuple(manual_items(findings, leftover) + manual_errors))
    except RewriteBroke as exc:
        error = FileError(path, "NPU900", f"rewrite left out, it would break the file ({exc}); please report this")
        return FileRewrite(path, kind, data, data, manual=tuple(manual_items(findings, []) + [ManualItem(path, 1, error.code, error.message)]),
                           error=error)
    return FileRewrite(path, kind, data, data, manual=tuple(manual_items(findings, []) + manual_errors))


def rewrite_source(source: str, *, path: str = "<stdin>.py", options: ApplyOptions | None = None) -> FileRewrite:
    """Convenience for text input (tests, stdin): the source as UTF-8 bytes through `rewrite_file`."""
    return rewrite_file(path, source.encode("utf-8"), kinds=("python",), options=options)


def _analyze_python(path: str, text: str, version: str, options: ApplyOptions):
    from migrate.engine import analyze_python_text

    findings, errors, _ = analyze_python_text(path, text, version)
    return selected(findings, options), errors


def _rewrite_python(path: str, body: str, findings, options: ApplyOptions, version: str):
    text = body
    changes: list[Change] = []
    leftover: list[Finding] = []
    current = findings
    for _ in range(MAX_ROUNDS):
        if not any(f.fixable for f in current):
            leftover = []
            break
        text, round_changes, leftover = apply_findings(text, current)
        changes += round_changes
        if not round_changes or not leftover:
            break  # rule edits do not create new findings (the idempotence tests hold them to it)
        # some findings overlapped one taken: analyse the result again and take them now
        current, errors = _analyze_python(path, text, version, options)
        if errors:
            raise RewriteBroke(f"the rewritten file does not parse: {errors[0].message}")
        leftover = [f for f in current if f.fixable]
    if not (needs_npu(findings) or changes):
        return Structural(text), changes, leftover, None  # only NPU6xx notes: nothing CUDA-specific to add
    if not changes and not options.entry_globs and not may_be_entry(text):
        # nothing rewritten and a library module by its text alone: nothing to add, no re-parse
        return Structural(text), changes, leftover, LIBRARY
    tree = parse(text)
    if tree is None:
        raise RewriteBroke("the rewritten file does not parse")
    decision: EntryDecision = decide_entry(tree, path, options.entry_globs)
    structural = add_npu_structure(
        text, tree, torch_npu=bool(changes) or decision.entry, transfer=decision.entry and options.transfer,
        hooks=decision.entry and options.config_check, zip_path=options.config_pack,
    )
    if structural.text != text and parse(structural.text) is None:
        raise RewriteBroke("adding the torch_npu imports / hooks broke the file")
    return structural, changes, leftover, decision


def _yaml_still_loads(before: str, after: str) -> bool:
    import yaml

    try:
        list(yaml.safe_load_all(before))
    except yaml.YAMLError:
        return True  # it did not load before either: not ours to judge
    try:
        list(yaml.safe_load_all(after))
    except yaml.YAMLError:
        return False
    return True
