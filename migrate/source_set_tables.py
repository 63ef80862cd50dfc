"""A setup.py that picks its extension class from a table of source sets keyed by build target (NPU505 / NPU508;
label note 45b-9).

A C++ test harness builds one module name from whichever source set a `--test=<target>` argument names, some sets
with nvcc, some without:

    SOURCE_SETS = {
        "conv_cpu": [CppExtension, ["conv_test.cpp"], ["-DCPU_ONLY"]],
        "conv_gpu": [CUDAExtension, ["conv_test.cu"], []],
    }
    Extension = SOURCE_SETS[target][0]
    ext_modules = [Extension(name="MyLibTest._C", sources=...)]

`Extension` is bound to `CUDAExtension` for the CUDA targets: its call builds a CUDA extension (as
`Ext = CUDAExtension if use_cuda else CppExtension`), whose imports and ops are NPU508's. A Python module named
after a target whose class is `CppExtension` (`conv_cpu_test.py`, `test_conv_cpu.py` or `conv_cpu.py` for the target
"conv_cpu") tests the CPU build of that module: its uses of the module are not reported; a module named after a
CUDA target, or after none, keeps them.

The CPU targets travel in the index's `cpu_built` as `<module>|<target>` rows (kind "cpuset" facts).
"""

from __future__ import annotations

import ast
import os

_EXT = "torch.utils.cpp_extension"
KIND = "cpuset"


def _tables(ctx) -> dict[str, ast.Dict]:
    """Module-level `NAME = {...}` dict literals of the file."""
    out = {}
    for statement in ctx.tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Dict) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            out[statement.targets[0].id] = statement.value
    return out


def _picked(ctx, value: ast.AST, tables: dict) -> tuple[ast.Dict, int] | None:
    """(table, position) for `TABLE[key][i]`, where `TABLE` is a module-level dict literal of the file."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, int)):
        return None
    inner = value.value
    if not (isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id in tables):
        return None
    return tables[inner.value.id], value.slice.value


def _classes(ctx, table: ast.Dict, position: int) -> dict[str, str]:
    """target -> qualified name of the class at `position` of each entry (`"conv_gpu"` -> `...CUDAExtension`)."""
    out = {}
    for key, entry in zip(table.keys, table.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(entry, (ast.List, ast.Tuple)) \
                and len(entry.elts) > position:
            out[key.value] = ctx.qualname(entry.elts[position]) or ""
    return out


def class_variables(ctx) -> dict[str, frozenset[str]]:
    """Names bound to `TABLE[target][i]` where some entry's class is `CUDAExtension` -> the targets whose class is
    `CppExtension` (the CPU builds)."""
    if "CUDAExtension" not in ctx.source:
        return {}
    tables = None
    out = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        if not isinstance(statement.value, ast.Subscript):
            continue
        tables = _tables(ctx) if tables is None else tables
        picked = _picked(ctx, statement.value, tables)
        if picked is None:
            continue
        classes = _classes(ctx, *picked)
        if f"{_EXT}.CUDAExtension" in classes.values():
            cpu = frozenset(k for k, v in classes.items() if v == f"{_EXT}.CppExtension")
            out.update((t.id, cpu) for t in statement.targets if isinstance(t, ast.Name))
    return out


def cpu_rows(module: str, targets) -> list[str]:
    return [f"{module}|{target}" for target in sorted(targets)]


def cpu_target_modules(path: str, cpu_built) -> frozenset[str]:
    """The extension modules whose CPU build the Python file at `path` is named for (`conv_cpu_test.py` of the row
    `MyLibTest._C|conv_cpu`)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    names = {stem, stem.removesuffix("_test"), stem.removesuffix("_tests"), stem.removeprefix("test_")}
    return frozenset(row.split("|", 1)[0] for row in cpu_built if "|" in row and row.split("|", 1)[1] in names)
