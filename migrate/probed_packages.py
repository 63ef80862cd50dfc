"""A package a module probes for itself and imports only inside functions is an optional path of that module.

    @lru_cache(maxsize=1)
    def is_cute_dsl_available() -> bool:
        return find_spec("cutlass") is not None

    def try_qdq(x):
        if not is_cute_dsl_available() or not x.is_cuda:
            return None                      # the PyTorch reference path runs
        ...
        return _compiled_kernel(...)(x)

    def _compiled_kernel(...):
        import cutlass.cute as cute          # only here, never at the module's top
        ...

The module asks whether the package is installed (a function of its own returning `find_spec("pkg") is not None`,
called in the module) and defers every import of it to function bodies, the shape of an optional backend: on an NPU
host the probe answers False and the module's other path runs (label ruling (L26)/(L34): an availability check is an
optional path; rule 28a-9, NVIDIA's CuTe DSL kernels behind `is_cute_dsl_available()` with a PyTorch fallback). The
findings of that package (NPU501, NPU507, NPU404) in the module are dropped. A module that imports the package at its
top level, or never calls its probe, keeps them; Triton and numba kernels stay work to port however they are imported
(the kernel-language exception of migrate/optional_modules.py, label rule (y5)). Per file, from its tree.
"""

from __future__ import annotations

import ast

CODES = frozenset({"NPU501", "NPU507", "NPU404"})
_KERNEL_LANGUAGES = frozenset({"triton", "numba"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _probed(function: ast.AST) -> str | None:
    """The package of `return find_spec("pkg") is not None` / `return importlib.util.find_spec("pkg") is not None`."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    value = body[0].value
    if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.IsNot)
            and isinstance(value.comparators[0], ast.Constant) and value.comparators[0].value is None):
        return None
    call = value.left
    if not (isinstance(call, ast.Call) and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)):
        return None
    name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
    return call.args[0].value.split(".", 1)[0] if name == "find_spec" else None


def _top_level_imports(tree: ast.Module) -> set[str]:
    """Roots of the modules imported outside every function (at the top, in an `if`, a `try`, a class body)."""
    out: set[str] = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS):
            continue
        if isinstance(node, ast.Import):
            out.update(a.name.split(".", 1)[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".", 1)[0])
        stack.extend(ast.iter_child_nodes(node))
    return out


def drop_probed(tree: ast.Module, findings: list, nodes: dict) -> list:
    """`findings` less those of a package the module probes for and imports only in functions (see above)."""
    probes = {f.name: package for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for f in nodes.get(kind, ())
              if (package := _probed(f)) and package not in _KERNEL_LANGUAGES}
    if not probes:
        return findings
    called = {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in nodes.get(ast.Call, ())
              if isinstance(c.func, (ast.Name, ast.Attribute))}
    packages = {package for name, package in probes.items() if name in called} - _top_level_imports(tree)
    if not packages:
        return findings
    return [f for f in findings if not (f.code in CODES and (f.package or "").split(".", 1)[0] in packages)]
