"""Lazy constructions of a class in mmengine / mmcv style config files.

An OpenMMLab config (mmengine `Config`, mmcv's `build_from_cfg`, xtuner and the mm* repositories built on them)
does not call a class: it names it in a dict that the registry builds later,

    quantization_config=dict(
        type=BitsAndBytesConfig,
        load_in_4bit=True,
        ...),

and `BUILDER.build(cfg)` runs `BitsAndBytesConfig(load_in_4bit=True, ...)`. Such a dict is a construction of the
class bound to `type`: its other keywords are the constructor's arguments (they go with the construction, one
finding at the line naming the class: label rule (L29), one label per multi-line construction), and the import
of the class is an import of a name that is used. The same holds for a dict literal `{"type": Cls, ...}`.

Only a name or attribute bound to the class counts: `type="BitsAndBytesConfig"` (a registry string) names a
registered class by a string the registry resolves; which class that is depends on the registry, not on an import
of the file.
"""

from __future__ import annotations

import ast

HINT = "type"


def lazy_type(ctx, node) -> ast.expr | None:
    """The class expression of a lazy construction `dict(type=Cls, ...)` / `{"type": Cls, ...}` (a Name or an
    Attribute, not a string), or None. `dict` must be the builtin (not a name the file binds or imports)."""
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id == "dict") or node.args:
            return None
        if "dict" in getattr(ctx, "imports", {}):
            return None
        value = next((k.value for k in node.keywords if k.arg == "type"), None)
    elif isinstance(node, ast.Dict):
        value = next((v for k, v in zip(node.keys, node.values)
                      if isinstance(k, ast.Constant) and k.value == "type"), None)
    else:
        return None
    return value if isinstance(value, (ast.Name, ast.Attribute)) else None


def lazy_arguments(node) -> list[tuple[str, ast.expr]]:
    """The constructor arguments of a lazy construction: (name, value) for every keyword / string key but `type`."""
    if isinstance(node, ast.Call):
        return [(k.arg, k.value) for k in node.keywords if k.arg not in (None, "type")]
    return [(k.value, v) for k, v in zip(node.keys, node.values)
            if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value != "type"]
