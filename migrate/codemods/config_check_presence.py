"""Whether a script already carries msprobe's ConfigChecker hooks, the one rule the hook codemod
(migrate/codemods/config_check_hooks.py) goes by to leave a script alone: it imports from an msprobe
module named `...config_check...`, or it calls `ConfigChecker.apply_patches`.

`hooks_present` reads the rule off the standard library's `ast`, without libcst (about 0.4 s of
CPU to import): validate's copy of a script that `apply` or `instrument` already hooked
(checks/validate/copies.py) has nothing for libcst to do. The codemod's libcst visitor applies the
same two predicates to its own tree.

VALID (hooks present):   from msprobe.core.config_check import ConfigChecker
VALID (hooks present):   ConfigChecker.apply_patches()
INVALID (no hooks):      import msprobe; from msprobe.core.dump import x
"""

from __future__ import annotations

import ast

ALREADY_PRESENT = "ConfigChecker hooks already present"


def imports_config_check(module: str | None) -> bool:
    """`from MODULE import ...` brings msprobe's config_check in (relative dots are not part of MODULE)."""
    return bool(module) and module.startswith("msprobe") and "config_check" in module


def patches_config_check(attribute: str, owner: str | None) -> bool:
    """`OWNER.ATTRIBUTE` is `ConfigChecker.apply_patches` (OWNER: the dotted name of what the attribute is
    taken from, a call or subscript named by its callee, as libcst's get_full_name_for_node gives it)."""
    return attribute == "apply_patches" and owner == "ConfigChecker"


def dotted_name(node: ast.AST) -> str | None:
    """libcst.helpers.get_full_name_for_node for the ast nodes an expression can be."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return dotted_name(node.func)
    if isinstance(node, ast.Subscript):
        return dotted_name(node.value)
    return None


def hooks_present(source: str) -> bool | None:
    """True when the script carries the hooks, False when not, None when `ast` cannot parse it (the caller
    then asks libcst)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and imports_config_check(node.module):
            return True
        if isinstance(node, ast.Attribute) and patches_config_check(node.attr, dotted_name(node.value)):
            return True
    return False
