"""A None stand-in a helper module never tests, whose every importer tests its own stand-in of the same import (NPU501).

A training script and its helper module often carry the same import attempt; only the script checks it:

    # main.py
    try:
        from apex import amp
    except ImportError:
        amp = None
    from utils import save_checkpoint            # the helper's only importer
    ...
    if __name__ == "__main__":
        if config.AMP_OPT_LEVEL != "O0":
            assert amp is not None, "amp not installed!"

    # utils.py
    try:
        from apex import amp
    except ImportError:
        amp = None                                 # untested here (migrate/none_stand_ins.py would keep it)

    def save_checkpoint(config, model):
        if config.AMP_OPT_LEVEL != "O0":
            state["amp"] = amp.state_dict()

The helper runs only inside the script, which stops with its own message before any apex path where the package is
missing (a None stand-in checked before use is optional: label ruling (L60); label note 49b b-9): the helper's
import attempt and its uses of the stand-in are no findings either. Conditions: the helper's module-level attempt
catches a failed import and binds the imported names to None, and the helper compares none of them with None; every
file of the scan importing the helper (a test's or benchmark's path aside, where a product importer exists) makes the
same import (the same module, binding the same name) in an attempt whose handler binds it to None, and compares that
name with None (`assert amp is not None`, `if amp is None: raise`). A helper no file imports, or one importer
without such a check, keeps them. An importer is a file whose import resolves to the helper: relative, by a dotted
name the helper's path ends with, or by its bare name from the same folder (a script's folder is on the path).
"""

from __future__ import annotations

import ast
import os
import re

from migrate.context import line_matches

CODES = frozenset({"NPU501", "NPU404", "NPU507"})
# the fact of a Python file that may hold an import attempt binding a None stand-in (recorded by the scan, so that a
# warm run reads no other file again; also read by migrate/tried_entries.py)
STAND_IN_FACT = ("hint", "none-stand-in")
_STAND_IN_HINT = re.compile(r"^[ \t]+[A-Za-z_][\w, \t=]*=[ \t]*None[ \t]*(?:#.*)?\r?$", re.MULTILINE)


def stand_in_facts(text: str) -> tuple:
    """`STAND_IN_FACT` where the text may bind a None stand-in in an import attempt's handler."""
    return (STAND_IN_FACT,) if "except" in text and "import" in text \
        and next(line_matches(_STAND_IN_HINT, text, "None"), None) is not None else ()
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing|benchmarks?)/|(?:^|/)test(?:_[^/]*)?\.py$|_test\.py$")


def _stand_in_attempts(tree: ast.Module) -> list[tuple[ast.stmt, tuple[str, str]]]:
    """(import statement, (imported dotted name, bound name)) for each module-level import attempt whose handlers
    catch a failed import and bind that name to None."""
    from migrate.optional_modules import _none_bound
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    out = []
    for attempt in tree.body:
        if not isinstance(attempt, ast.Try) or not attempt.handlers or not all(_catches_import_error(h) for h in attempt.handlers):
            continue
        nones = _none_bound(attempt.handlers)
        for statement in attempt.body:
            if isinstance(statement, ast.Import):
                pairs = [(a.name, a.asname or a.name.split(".", 1)[0]) for a in statement.names]
            elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
                pairs = [(f"{statement.module}.{a.name}", a.asname or a.name) for a in statement.names if a.name != "*"]
            else:
                continue
            out.extend((statement, pair) for pair in pairs if pair[1] in nones)
    return out


def _imports_module(tree: ast.Module, path: str, helper: str, parts: tuple[str, ...]) -> bool:
    """Whether an import of `tree` (the file at `path`) loads the helper module (`helper`, importable as `parts`): a
    relative import resolving to it, a dotted name its path ends with (`pkg.utils`), or its bare name from a file
    of the same folder (a script's own folder is on the import path: `from utils import save_checkpoint`)."""
    from migrate.optional_modules import _imported

    same_folder = os.path.dirname(path) == os.path.dirname(helper)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        relative = isinstance(node, ast.ImportFrom) and node.level > 0
        for name in _imported(node, path):
            if relative and name == parts:
                return True
            if not relative and name and parts[-len(name):] == name and (len(name) >= 2 or same_folder):
                return True
    return False


def tested_lines(tree: ast.Module, path: str, importers) -> set[int]:
    """The lines of `tree`'s untested None stand-ins (the import and the reads of the name) whose importers
    (`importers`: (path, tree) of each file that may import it) all test their own stand-in of the same import."""
    from migrate.optional_modules import none_tests

    attempts = _stand_in_attempts(tree)
    if not attempts:
        return set()
    own_tests = none_tests(tree)
    untested = [(s, pair) for s, pair in attempts if f"none:{pair[1]}" not in own_tests]
    if not untested:
        return set()
    files = list(importers)
    product = [(p, t) for p, t in files if not _TEST_PATH.search(p.replace("\\", "/"))] or files
    if not product:
        return set()
    out: set[int] = set()
    for statement, pair in untested:
        if all(pair in {q for _, q in _stand_in_attempts(t)} and f"none:{pair[1]}" in none_tests(t) for _, t in product):
            out.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
            out.update(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == pair[1]
                       and isinstance(n.ctx, ast.Load))
    return out


def _may_drop(text: str, result) -> bool:
    """Read from the text alone, before any parse: a name a GPU-only import finding's line binds is bound to None
    somewhere and never compared with None in the module (its own test would keep the finding's reading as today).
    Without such a name no tree is parsed (torch's package: 34 files hinted, none of them such)."""
    lines = text.splitlines()
    for finding in result.findings:
        if finding.code != "NPU501" or not 0 < finding.line <= len(lines):
            continue
        for name in _bound_names(lines[finding.line - 1]):
            if re.search(rf"^\s*{re.escape(name)}\s*=\s*None\b", text, re.M) and \
                    not re.search(rf"\b{re.escape(name)}\s+is\s+(?:not\s+)?None\b", text):
                return True
    return False


def _bound_names(line: str) -> list[str]:
    """The names an import line binds, read from its text: `import a.b` (a), `import x as y` / `from m import x as y`
    (y), `from m import (x, z)` (x, z)."""
    _, found, rest = line.partition("import ")
    if not found:
        return []
    names = []
    for part in rest.split("#", 1)[0].strip(" ()\\\n").split(","):
        words = part.split()
        if words:
            names.append(words[-1] if len(words) == 3 and words[1] == "as" else words[0].split(".", 1)[0])
    return [n for n in names if n.isidentifier()]


def _reported_untested(tree: ast.Module, result) -> bool:
    """A GPU-only import finding of `result` sits on a None stand-in's import that the module does not test itself:
    the only findings the importers' tests could drop (without one, no importer is read: a warm re-run of torch's
    package read 360 files here for nothing)."""
    from migrate.optional_modules import none_tests

    own_tests = none_tests(tree)
    lines = {line for statement, pair in _stand_in_attempts(tree) if f"none:{pair[1]}" not in own_tests
             for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)}
    return any(f.code == "NPU501" and f.line in lines for f in result.findings)


def drop_importer_tested(results: list, fresh: dict, max_file_size: int) -> list:
    """`results` less the findings of helper modules' None stand-ins that every importer tests (module doc)."""
    from migrate import engine
    from migrate.optional_modules import ref_parts
    from migrate.repo_index import module_parts

    candidates = [r for r in results if r.path.endswith(".py") and STAND_IN_FACT in (r.facts or ())
                  and any(f.code == "NPU501" for f in r.findings)]
    if not candidates:
        return results
    refs = {r.path: ref_parts(r) for r in results if r.path.endswith(".py")}
    tree_of = engine.trees_again(fresh, max_file_size)
    dropped: dict[str, set[int]] = {}
    for result in candidates:
        text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
        if text is None or "None" not in text or "try:" not in text or not _may_drop(text, result):
            continue
        tree = tree_of(result.path)
        parts = tuple(module_parts(result.path))
        if tree is None or not parts or parts[-1] == "__init__" or not _reported_untested(tree, result):
            continue  # (the importers are read only for a reported stand-in this module does not test itself)
        importers = []
        for path, names in refs.items():
            if path != result.path and parts[-1] in names and (other := tree_of(path)) is not None \
                    and _imports_module(other, path, result.path, parts):
                importers.append((path, other))
        if importers and (lines := tested_lines(tree, result.path, importers)):
            dropped[result.path] = lines
    if not dropped:
        return results
    return [r.keeping(lambda f, lines=dropped[r.path]: not (f.code in CODES and f.line in lines)) if r.path in dropped
            else r for r in results]
