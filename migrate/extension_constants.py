"""Constants and enum members read from a compiled module (NPU508; label ruling (L80)).

A compiled extension may export values beside its ops: a constant (`_C.MAX_UINT`, `_C.EPS`, a default argument's
value) or an enum member (`_C.RegionType.HYPER_CUBE`, handed to an op as an option):

    def forward(ctx, verts, max_n_hits=_C.MAX_UINT, eps=_C.EPS): ...
    kernel = ext.KernelGenerator(region_type=ext.RegionType.HYPER_CUBE)

Reading such a value runs no kernel: it changes with the port only where the op taking it is called, and that call
is reported (as a package's plain values under (L54)). The import that binds the module is reported too. A value is
read, not called, and its name is in constant case (`MAX_UINT`, `EPS`), as an attribute of the module itself or of one
of its classes (`RegionType`, in CamelCase).
"""

from __future__ import annotations

import ast
import re

_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CLASS = re.compile(r"^_?[A-Z][a-z0-9]\w*$")


def constant_read(ctx, node: ast.AST, qual: str, module: str) -> bool:
    """The chain `qual` at `node`, inside the compiled module `module`, reads a constant or an enum member."""
    owner, _, name = qual.rpartition(".")
    if not _CONSTANT.match(name) or len(name) < 2:
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return False
    holder = owner.rpartition(".")[2]
    return holder == module.rpartition(".")[2] or bool(_CLASS.match(holder))
