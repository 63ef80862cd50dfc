"""Tests that pytest de-collects where the repository's compiled extension does not load are no work item (NPU508).

A `conftest.py` may compute its folder's `collect_ignore` / `collect_ignore_glob` from an import probe of one of the
repository's own modules, so that the tests under it are not even collected on a host where that module (which binds the
compiled extension at import time) fails to import:

    collect_ignore_glob = ignore_unless(probe=lambda: importlib.import_module("pkg.kernels.types"))

On an NPU host the extension is not built, the probe fails and those tests never run, like a test skipped when the
extension is missing (label rule 24b-11; a test gated only by `torch.cuda.is_available()` is still a label). The NPU508
findings of the Python files under that folder (the conftest included: its fixtures serve only those tests) are dropped.
Recognised: a module-level assignment to `collect_ignore` / `collect_ignore_glob` whose value is computed (not a literal
list) and holds `importlib.import_module("<module>")` of a module whose file is in the scan; and a test module that skips
itself when a name it imports is None (`from pkg._backend import _C` / `if _C is None: pytest.skip(...,
allow_module_level=True)`). Read after the scan.

A test function or class under an unconditional skip (`@pytest.mark.skip(reason=...)`, `@unittest.skip("...")`) never
runs on any host (label ruling (L27)): its NPU508 findings are dropped too (its GPU-only package findings in the
per-file pass, migrate/skip_decorators.py); `skipif` decorators are left to their condition.
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult
from migrate.skip_decorators import always_skipped

CODES = frozenset({"NPU508"})
# the text of an unconditional skip decorator (skip_decorators.always_skipped: `pytest.mark.skip`, `mark.skip`,
# `unittest.skip`; not `skipif` / `skipIf`): a file without it is not parsed again after the scan
_ALWAYS_SKIP = re.compile(r"\b(?:mark|unittest)\.skip\b")
_TARGETS = frozenset({"collect_ignore", "collect_ignore_glob"})


def _probed_modules(tree: ast.Module) -> list[str]:
    """The literal module names a computed `collect_ignore[_glob]` assignment of this conftest imports to decide."""
    out = []
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _TARGETS for t in statement.targets)):
            continue
        if isinstance(statement.value, (ast.List, ast.Tuple, ast.Constant)):
            continue  # a fixed list: files ignored everywhere, nothing to do with the extension
        for node in ast.walk(statement.value):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and _callee(node.func) == "import_module":
                out.append(node.args[0].value)
    return out


def _callee(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _in_scan(module: str, paths: set[str]) -> bool:
    tail = module.replace(".", "/")
    return any(p.endswith((f"/{tail}.py", f"/{tail}/__init__.py")) or p in (f"{tail}.py", f"{tail}/__init__.py") for p in paths)


def decollected_folders(results: list[FileResult], read: dict, max_file_size: int) -> list[str]:
    """Folders whose conftest de-collects their tests when a module of the scan fails to import."""
    from migrate import engine, fileio

    paths = {r.path.replace(os.sep, "/").removeprefix("./") for r in results}
    out = []
    for result in results:
        if os.path.basename(result.path) != "conftest.py":
            continue
        text = engine.text_again(result.path, read.get(result.path), max_file_size)
        if text is None or "collect_ignore" not in text or "import_module" not in text:
            continue
        tree = fileio.parse_python(text)
        if tree is not None and any(_in_scan(m, paths) for m in _probed_modules(tree)):
            out.append(os.path.dirname(result.path))
    return out


def _skips_without_import(tree: ast.Module) -> bool:
    """A module-level `if X is None: pytest.skip(..., allow_module_level=True)` (or `if not X:`) where `X` is a name
    the module imports: the whole test module is skipped where the compiled module does not import (`from
    pkg._backend import _C` binds None there)."""
    imported = {a.asname or a.name for s in tree.body if isinstance(s, ast.ImportFrom) for a in s.names}
    for statement in tree.body:
        if not isinstance(statement, ast.If):
            continue
        test = statement.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            name = test.left
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            name = test.operand
        else:
            continue
        if isinstance(name, ast.Name) and name.id in imported and any(
                isinstance(n, ast.Call) and _callee(n.func) == "skip" and any(
                    k.arg == "allow_module_level" for k in n.keywords) for n in ast.walk(statement)):
            return True
    return False


def always_skipped_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """The line spans (decorators included) of the test functions and classes skipped unconditionally (label ruling
    (L27): an always-skipped test is no work item)."""
    return [(min([d.lineno for d in node.decorator_list] + [node.lineno]), node.end_lineno or node.lineno)
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and any(always_skipped(d) for d in node.decorator_list)]


def _skipped_tests(results: list[FileResult], read: dict, max_file_size: int) -> tuple[set[str], dict[str, list]]:
    """The test modules that skip themselves without the extension, and path -> the spans of the always-skipped tests,
    of the Python files holding an NPU508 finding (each read once)."""
    from migrate import engine, fileio

    modules, spans = set(), {}
    for result in results:
        if not (result.path.endswith(".py") and any(f.code in CODES for f in result.findings)):
            continue
        text = engine.text_again(result.path, read.get(result.path), max_file_size)
        always = _ALWAYS_SKIP.search(text) is not None if text is not None else False
        if text is None or ("allow_module_level" not in text and not always):
            continue
        tree = fileio.parse_python(text)
        if tree is None:
            continue
        if "allow_module_level" in text and _skips_without_import(tree):
            modules.add(result.path)
        found = always_skipped_spans(tree) if always else []
        if found:
            spans[result.path] = found
    return modules, spans


def drop_decollected(results: list[FileResult], read: dict, max_file_size: int) -> list[FileResult]:
    """Drop the NPU508 findings of the Python files under a folder whose tests are de-collected (module docstring), and
    of a test module that skips itself when the name it imports from the extension is None, and inside an always-skipped
    test."""
    folders = decollected_folders(results, read, max_file_size) \
        if any(os.path.basename(r.path) == "conftest.py" for r in results) else []
    skipped, tests = _skipped_tests(results, read, max_file_size)
    if not folders and not skipped and not tests:
        return results
    out = []
    for result in results:
        inside = result.path in skipped or result.path.endswith(".py") and any(
            result.path.startswith(folder + os.sep) or result.path.startswith(folder + "/") for folder in folders)
        spans = tests.get(result.path, ())
        kept = tuple(f for f in result.findings if not (
            f.code in CODES and (inside or any(a <= f.line <= b for a, b in spans))))
        if len(kept) == len(result.findings):
            out.append(result)
        else:
            out.append(FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts))
    return out
