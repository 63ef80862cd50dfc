"""Is a file an entry script (run, so it gets `transfer_to_npu` and the ConfigChecker hooks) or a
library module (imported, so it gets only the rule rewrites and `import torch_npu`)? Each answer comes
with the reason, which apply reports per file.

Entry script: named with `--entry GLOB`; a `if __name__ == "__main__":` guard; training code at module
level (`loss.backward()`, `optimizer.step()`); a module-level call of a function of this file that
trains (directly or through other functions of this file: `main()` with no guard); `fire.Fire(...)`
at module level; a click command of this file invoked at module level; `LightningCLI(...)` at module
level (a config-driven app: the CLI parses its config and trains when constructed).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from fnmatch import fnmatch

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CLICK_DECORATORS = ("command", "group")


@dataclass(frozen=True)
class EntryDecision:
    entry: bool
    reason: str

    @property
    def role(self) -> str:
        return "entry" if self.entry else "library"


LIBRARY = EntryDecision(False, "no `__main__` guard, module-level training, `fire.Fire` or click command")


def may_be_entry(text: str) -> bool:
    """Cheap necessary condition for `decide_entry` (which needs a parse) to say entry."""
    return any(word in text for word in ("__main__", "backward", "step", "Fire", "click", "LightningCLI"))


def decide_entry(tree: ast.Module, path: str, entry_globs=()) -> EntryDecision:
    posix = path.replace(os.sep, "/")
    for glob in entry_globs:
        if fnmatch(posix, glob) or fnmatch(os.path.basename(posix), glob) or fnmatch(posix, f"*/{glob}"):
            return EntryDecision(True, f"named with --entry {glob}")
    functions = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, _FUNCTIONS)}
    trains: dict[str, str] | None = None  # walked only when a module-level call reaches a function of this file
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            return EntryDecision(True, f"`__main__` guard (line {stmt.lineno})")
        if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)):
            continue
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            step = _training_call(node)
            if step:
                return EntryDecision(True, f"module-level training: `{step}` (line {node.lineno})")
            name = _called_name(node.func)
            if name in ("fire.Fire", "Fire") or (name or "").rsplit(".", 1)[-1] == "LightningCLI":
                return EntryDecision(True, f"`{name}(...)` at module level (line {node.lineno})")
            if name in functions and _is_click_command(functions[name]):
                return EntryDecision(True, f"click command `{name}` run at module level (line {node.lineno})")
            if name in functions and trains is None:
                trains = _training_functions(functions)
            if trains and name in trains:
                return EntryDecision(True, f"`{name}()` called at module level (line {node.lineno}) trains ({trains[name]})")
    return LIBRARY


def is_entry_script(tree: ast.Module, path: str, entry_globs=()) -> bool:
    return decide_entry(tree, path, entry_globs).entry


def _training_call(node: ast.Call) -> str | None:
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "backward":
        return ".backward()"
    if func.attr == "step" and isinstance(func.value, ast.Name) and "opt" in func.value.id.lower():
        return f"{func.value.id}.step()"
    return None


def _called_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def _training_functions(functions: dict[str, ast.AST]) -> dict[str, str]:
    """Top-level functions that train, directly or by calling (by name) another one that does:
    name -> the training call it leads to."""
    direct: dict[str, str] = {}
    calls: dict[str, set[str]] = {}
    for name, func in functions.items():
        calls[name] = set()
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                step = _training_call(node)
                if step and name not in direct:
                    direct[name] = f"`{step}` line {node.lineno}"
                callee = _called_name(node.func)
                if callee in functions and callee != name:
                    calls[name].add(callee)
    trains = dict(direct)
    changed = True
    while changed:  # a fixed point over the call graph of this file's functions
        changed = False
        for name, callees in calls.items():
            if name not in trains:
                reached = next((c for c in sorted(callees) if c in trains), None)
                if reached is not None:
                    trains[name] = f"through `{reached}()`: {trains[reached]}"
                    changed = True
    return trains


def _is_click_command(func: ast.AST) -> bool:
    for decorator in getattr(func, "decorator_list", ()):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr in _CLICK_DECORATORS:
            return True  # @click.command(), @click.group(), @cli.command()
    return False


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and mains)
