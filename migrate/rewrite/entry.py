"""Is a file an entry script (run, so it gets `transfer_to_npu` and the ConfigChecker hooks) or a
library module (imported, so it gets only the rule rewrites and `import torch_npu`)?"""

from __future__ import annotations

import ast
import os
from fnmatch import fnmatch


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


def may_be_entry(text: str) -> bool:
    """Cheap necessary condition for `is_entry_script` (which needs a parse)."""
    return "__main__" in text or "backward" in text or "step" in text


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and mains)
