"""A CMake extension built only for a CUDA install target, whose absence the runtime answers with an engine that has
an NPU side, is no work item (label rule 36e-1, under rulings (L20)/(L50)).

Some projects ship two engines: a compiled one (a CMake project of CUDA kernels, a pybind module) and a Python one
with its own device dispatch (migrate/device_dispatch.py). The setup.py builds the compiled engine only when the
install target is CUDA, and the runtime falls back to the Python engine when the compiled module is not installed:

    def get_target_device():                                  # setup.py
        return os.getenv("MYPROJ_TARGET_DEVICE", "cuda")

    if get_target_device() == "cuda":
        ext_modules = [CMakeExtension(name="_engine", source_dir=...)]   # CMakeLists.txt, src/engine/**/*.cu
    else:
        ext_modules = []                                       # an Ascend install builds nothing
    setup(..., install_requires=parse_requirements(f"requirements/runtime_{get_target_device()}.txt"))
                                                               # requirements/runtime_ascend.txt is beside it

    def pick_backend(model):                                   # myproj/archs.py
        try:
            from myproj.engine.supported import is_supported   # myproj/engine/*.py: `import _engine`
            return "engine" if is_supported(model) else "python"
        except ImportError:
            return "python"                                    # the Python engine: backends/{cuda,ascend}/

On an Ascend install the compiled engine is never built and never imported. Keyed on, from the repository's own code
(per-file facts, cached with each file):

- a *target build*: an `if` of a setup.py whose test compares an expression with `"cuda"` (the target-device value:
  a call or a name, `get_target_device() == "cuda"`), whose body calls a CMake extension class (a callee named
  `...CMake...`) and whose `else:` sets `ext_modules = []`;
- an *NPU value* of that same expression in the file: compared with `"npu"` / `"ascend"` elsewhere, or interpolated
  into a path (`f"requirements/runtime_{get_target_device()}.txt"`) whose NPU filling is a file beside the setup.py
  (`requirements/runtime_ascend.txt`);
- a *fallback*: an import in a `try:` whose handlers catch ImportError (or Exception) and raise nothing, of a module
  in a package holding a file that imports an extension the CMake build defines (`from myproj.engine.supported
  import ...` runs `myproj/engine/__init__.py`, which imports `_engine`);
- a device dispatch with a resolved NPU side somewhere in the repository (migrate/device_dispatch.py).

When all hold, dropped: the CMake findings (NPU511) of the CMake files under the setup.py's folder, NPU506 of a CUDA
source only those CMake files build (`cuda_builds.built_sources` without them, as migrate/accelerator_builders.py
does: a `.cu` another build names stays), and NPU508 uses of the extensions those CMake files define. Kept: the rest
of the setup.py, and everything where any of the four is missing (a CUDA-only build, a hard import, a fallback
without an NPU engine).
"""

from __future__ import annotations

import ast
import glob
import os

from migrate.context import walk_nodes
from migrate.findings import FileResult

_NPU = ("npu", "ascend")
_CATCHES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_DROPPED_IN_CMAKE = frozenset({"NPU511", "NPU505"})


def wants(text: str) -> bool:
    """A target build (setup.py) or an import fallback may be here."""
    return ("ext_modules" in text and ("'cuda'" in text or '"cuda"' in text)) or "ImportError" in text or "Exception" in text


def _is_cuda_compare(test: ast.AST) -> str | None:
    """The source of the expression `test` compares with "cuda" (`get_target_device() == "cuda"`), or None."""
    for node in walk_nodes(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            left, right = node.left, node.comparators[0]
            for value, other in ((right, left), (left, right)):
                if isinstance(value, ast.Constant) and value.value == "cuda" and isinstance(other, (ast.Call, ast.Name)):
                    return ast.unparse(other)
    return None


def _assigns(body: list[ast.stmt], name: str) -> list[ast.AST]:
    return [s.value for s in body if isinstance(s, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in s.targets)]


def _calls_cmake(body: list[ast.stmt]) -> bool:
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if "cmake" in name.lower():
                    return True
    return False


def _catches_import(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(
        (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "") in _CATCHES for n in names)


def _resolve(path: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = os.path.normpath(path).split(os.sep)[:-1]
    parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join(p for p in [*parts, *(node.module or "").split(".")] if p and p != ".")


def facts(tree: ast.AST, path: str, nodes: dict | None = None) -> list:
    """("def", "tgtbuild", expr) per target build of a setup.py, ("def", "tgtnpu", "expr|<how>") per NPU value of that
    expression (`how`: "==" for a comparison, else a path pattern with `*` for the hole), and ("def", "tryimport",
    dotted) per module imported in a try whose handlers fall back (see the module doc). `nodes`: the file's nodes by
    type in `ast.walk` order (context.index_tree), read instead of walking the tree where only `try` matters (not a
    setup.py)."""
    from migrate.repo_index import Definition

    out: list = []
    setup = os.path.basename(path) == "setup.py"
    for node in (nodes.get(ast.Try, ()) if nodes is not None and not setup else walk_nodes(tree)):
        if setup and isinstance(node, ast.If):
            expr = _is_cuda_compare(node.test)
            if expr and _calls_cmake(node.body) and any(
                    isinstance(v, ast.List) and not v.elts for v in _assigns(node.orelse, "ext_modules")):
                out.append(Definition("tgtbuild", expr, path, node.lineno, False))
        if setup and isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.In)):
            sides = [node.left, node.comparators[0]]
            words = {v.value.lower() for s in sides for v in ([*s.elts] if isinstance(s, (ast.Tuple, ast.List, ast.Set)) else [s])
                     if isinstance(v, ast.Constant) and isinstance(v.value, str)}
            if words & set(_NPU):
                for side in sides:
                    if isinstance(side, (ast.Call, ast.Name)):
                        out.append(Definition("tgtnpu", f"{ast.unparse(side)}|==", path, node.lineno, False))
        if setup and isinstance(node, ast.JoinedStr):
            holes = [v for v in node.values if isinstance(v, ast.FormattedValue)]
            if len(holes) == 1 and isinstance(holes[0].value, (ast.Call, ast.Name)):
                pattern = "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
                if "/" in pattern or "." in pattern:
                    out.append(Definition("tgtnpu", f"{ast.unparse(holes[0].value)}|{pattern}", path, node.lineno, False))
        if isinstance(node, ast.Try) and node.handlers and all(_catches_import(h) for h in node.handlers) and not any(
                isinstance(n, ast.Raise) for h in node.handlers for n in walk_nodes(h)):
            for statement in node.body:
                for inner in walk_nodes(statement):
                    if isinstance(inner, ast.ImportFrom):
                        dotted = _resolve(path, inner)
                        if dotted:
                            out.append(Definition("tryimport", dotted, path, inner.lineno, False))
    return out


def _npu_value(setup: str, expr: str, values: list[str]) -> bool:
    folder = os.path.dirname(setup)
    for how in values:
        if how == "==":
            return True
        head, _, tail = how.partition("*")
        for found in glob.glob(os.path.join(folder, glob.escape(head) + "*" + glob.escape(tail))):
            rel = os.path.relpath(found, folder)
            hole = rel[len(head):len(rel) - len(tail)] if tail else rel[len(head):]
            if any(word in hole.lower() for word in _NPU):
                return True
    return False


def _package_folders(dotted: str, folders: set[str]) -> list[str]:
    """The scanned folders the packages on the way to `dotted` are (`a.b.c`: `a/b/c`, `a/b`, `a`, by trailing names)."""
    out = []
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = os.path.join(*parts[:end])
        out.extend(f for f in folders if f == candidate or f.endswith(os.sep + candidate))
    return out


def dropped(results: list[FileResult]) -> tuple[set[str], set[str]]:
    """(the CMake files of a target build with a fallback (see the module doc), the extension modules they define)."""
    from migrate import device_dispatch

    builds: dict[str, set[str]] = {}
    npu: dict[tuple[str, str], list[str]] = {}
    tries: list[str] = []
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] != "def":
                continue
            if fact[1] == "tgtbuild":
                builds.setdefault(result.path, set()).add(fact[2])
            elif fact[1] == "tgtnpu":
                expr, how = fact[2].split("|", 1)
                npu.setdefault((result.path, expr), []).append(how)
            elif fact[1] == "tryimport":
                tries.append(fact[2])
    if not builds or not tries or not device_dispatch.npu_folders(results):
        return set(), set()
    normal = {os.path.normpath(r.path): r for r in results}
    cmake: set[str] = set()
    for setup, exprs in builds.items():
        if any(_npu_value(setup, e, npu.get((setup, e), [])) for e in exprs):
            folder = os.path.dirname(os.path.normpath(setup))
            cmake.update(r.path for p, r in normal.items() if p.endswith(("CMakeLists.txt", ".cmake"))
                         and (not folder or p.startswith(folder + os.sep)))
    if not cmake:
        return set(), set()
    modules = {fact[2] for r in results if r.path in cmake for fact in getattr(r, "facts", ()) or ()
               if fact[0] == "def" and fact[1] == "module"}
    # a fallback import reaches a package holding a file that imports one of those modules
    importers: set[str] = set()
    for path, result in normal.items():
        if path.endswith(".py"):
            if any(f.code == "NPU508" and f.package in modules for f in result.findings):
                importers.add(os.path.dirname(path))
            for fact in getattr(result, "facts", ()) or ():
                if fact[0] == "use" and fact[1] and any(u.split(".", 1)[0] in modules for u in fact[1].split()):
                    importers.add(os.path.dirname(path))
    folders = {os.path.dirname(p) for p in normal}
    if not any(f in importers for dotted in tries for f in _package_folders(dotted, folders)):
        return set(), set()
    return cmake, modules


def drop_fallback_builds(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings of a CUDA-target-only CMake engine the runtime falls back from (see the module doc)."""
    cmake, modules = dropped(results)
    if not cmake:
        return results
    from migrate.cuda_builds import built_only_by, drop_route

    through = built_only_by(results, cmake)
    return drop_route(results, cmake, _DROPPED_IN_CMAKE, through, modules)
