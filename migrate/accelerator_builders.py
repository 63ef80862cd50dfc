"""A repository's own accelerator abstraction with an NPU side already handles the NPU (label ruling (L50)).

DeepSpeed-style projects pick their compiled ops per device through classes of their own:

    class CUDA_Accelerator(Accelerator):
        def op_builder_dir(self):
            return "myproj.ops.op_builder"          # op_builder/*.py: CUDAExtension, nvcc flags, .cu lists

    class NPU_Accelerator(Accelerator):
        def op_builder_dir(self):
            return "myproj.ops.op_builder.npu"      # op_builder/npu/*.py: the Ascend builders

    def get_accelerator():                          # the factory
        return NPU_Accelerator() if npu else CUDA_Accelerator()

The CUDA builders, the CUDA files only they build and the uses of the extensions only they define are reached
only through the abstraction's CUDA side; on the NPU the NPU side answers (or raises its own clear error). Keyed on,
from the repository's own code (per-file facts, cached with each file):

- an *accelerator class*: a class with a base whose method returns only string constants naming modules, one of
  them dotted (`return "op_builder.npu"`); its device is the `NPU` / `CUDA` word of its name (`NPU_Accelerator`,
  `NpuAccelerator`, `CUDAAccelerator`), or none (`CPU_Accelerator`);
- an NPU class and a CUDA class with the same base and that same method, both constructed (`NPU_Accelerator()`,
  `CUDA_Accelerator()`) in one file: the factory;
- the module each returns resolves to a folder of the scan (by its trailing names: `myproj.ops.op_builder` is
  `op_builder/` where `myproj/ops/op_builder` is a link the scan does not follow), the NPU one included.

The *other side's builders* are then the files directly in the folders of every non-NPU class with that base and
method (its subfolders are other modules: `op_builder/npu/` is the NPU's). Dropped:
- their build and extension findings (NPU505 / NPU511 / NPU508);
- NPU506 of a CUDA file that only they name (`cuda_builds.built_sources` without them: a `.cu` a `setup.py` or CMake
  file builds as well stays);
- NPU508 uses of an extension module those builders define, or of a `torch.ops` namespace registered in a file
  only they list as a source (`torch.ops.myns.op(...)` of `csrc/myns.cpp` in a builder's `sources()`).
A file that imports a CUDA builder directly, a `.cu` another build names, and an extension defined elsewhere stay
reported. Nothing happens without an NPU class: a CUDA-only abstraction is no NPU route.
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult

_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_DOTTED_RETURN = re.compile(r"return\s+[rbuf]?['\"][A-Za-z_]\w*\.[A-Za-z_]")
# a device word anywhere in a name called without arguments (`NPU_Accelerator()`, `get_cuda_accelerator()`): searched for
# from the word itself (a pattern starting at a word boundary or at any word character meant a try at every character),
# one pattern per word: a pattern starting with a literal is searched for by that literal
_DEVICE_CLASS_CALLS = tuple(re.compile(rf"{word}\w*\(\s*\)") for word in ("NPU", "Npu", "CUDA", "Cuda"))
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+")
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*\.py$|_test\.py$")
_DROPPED_IN_BUILDERS = frozenset({"NPU505", "NPU511", "NPU508"})


def wants(text: str) -> bool:
    """An accelerator class or a factory may be here."""
    return ("class " in text and _DOTTED_RETURN.search(text) is not None) or any(p.search(text) for p in _DEVICE_CLASS_CALLS)


def device(name: str) -> str:
    """"npu" / "cuda" where that is a word of the class name (`NPU_Accelerator`, `CUDAAccelerator`), else ""."""
    words = {w.lower() for part in name.split("_") for w in _WORDS.findall(part)}
    return "npu" if "npu" in words else "cuda" if "cuda" in words else ""


def _returned_modules(function: ast.FunctionDef) -> list[str] | None:
    """The module names `function` returns, where every return of its own body returns a string constant naming a
    module and one is dotted; else None."""
    found: list[str] = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            value = node.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str) and _MODULE.fullmatch(value.value)):
                return None
            found.append(value.value)
        stack.extend(ast.iter_child_nodes(node))
    return found if any("." in m for m in found) else None


def facts(tree: ast.AST, path: str, nodes: dict | None = None) -> list:
    """Definitions (encoded as ("def", "accel", "class|base|method|module module...")) per accelerator-class method, and
    ("def", "accelnew", name) per device class constructed in a file that constructs an NPU and a CUDA one (the factory).
    `nodes`: the file's nodes by type in `ast.walk` order (context.index_tree), read instead of walking the tree."""
    from migrate.repo_index import Definition

    out: list = []
    made: dict[str, set[str]] = {"npu": set(), "cuda": set()}
    found = ast.walk(tree) if nodes is None else [*nodes.get(ast.ClassDef, ()), *nodes.get(ast.Call, ())]
    for node in found:
        if isinstance(node, ast.ClassDef) and node.bases:
            bases = [b.attr if isinstance(b, ast.Attribute) else b.id if isinstance(b, ast.Name) else "" for b in node.bases]
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    modules = _returned_modules(item)
                    if modules:
                        for base in filter(None, bases):
                            out.append(Definition("accel", f"{node.name}|{base}|{item.name}|{' '.join(modules)}", path, item.lineno, False))
        elif isinstance(node, ast.Call) and not node.args and not node.keywords:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            kind = device(name) if name else ""
            if kind:
                made[kind].add(name)
    if made["npu"] and made["cuda"]:
        out.extend(Definition("accelnew", name, path, 0, False) for name in sorted(made["npu"] | made["cuda"]))
    return out


def folder_of(module: str, folders: set[str]) -> str | None:
    """The scanned folder a module names: the longest trailing run of its names that is a folder of the scan."""
    parts = module.split(".")
    for start in range(len(parts)):
        candidate = os.path.join(*parts[start:])
        found = sorted(f for f in folders if f == candidate or f.endswith(os.sep + candidate))
        if found:
            return found[0]
    return None


def builder_files(results: list[FileResult]) -> set[str]:
    """The paths of the files directly in the folders that the non-NPU classes of an accelerator abstraction with an
    NPU side return (see the module doc); empty where the scan holds none."""
    classes: list[tuple[str, str, str, list[str]]] = []
    made: set[str] = set()
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == "accel":
                name, base, method, modules = fact[2].split("|", 3)
                classes.append((name, base, method, modules.split()))
            elif fact[0] == "def" and fact[1] == "accelnew":
                made.add(fact[2])
    if not classes or not made:
        return set()
    paths = {os.path.normpath(r.path): r.path for r in results}
    folders = {os.path.dirname(p) for p in paths}
    out: set[str] = set()
    for base, method in {(b, m) for _, b, m, _ in classes}:
        group = [(name, modules) for name, b, m, modules in classes if (b, m) == (base, method)]
        npu = [name for name, modules in group if device(name) == "npu" and name in made
               and any(folder_of(m, folders) for m in modules)]
        cuda = [name for name, modules in group if device(name) == "cuda" and name in made]
        if not npu or not cuda:
            continue
        for name, modules in group:
            if device(name) == "npu":
                continue
            for folder in {f for m in modules for f in [folder_of(m, folders)] if f}:
                out.update(original for normal, original in paths.items() if os.path.dirname(normal) == folder)
    return out - _imported_directly(results, out)


def _imported_directly(results: list[FileResult], builders: set[str]) -> set[str]:
    """The builder files the repository's own code imports by their own module (`from myproj.op_builder.dc import
    DCBuilder`, `from ..op_builder.dc import ...`): that code loads the CUDA builder whatever the accelerator, it bypasses
    the abstraction (importing the folder's package, `from myproj.op_builder import DCBuilder`, does not). Not counted: a
    module the builders themselves import (their shared base, `from .builder import OpBuilder`), and tests (a builder's
    own unit test is no product path)."""
    by_module: dict[str, str] = {}
    for path in builders:
        folder, name = os.path.split(os.path.normpath(path))
        stem = os.path.splitext(name)[0]
        if stem != "__init__":
            by_module[f"{os.path.basename(folder)}.{stem}"] = path
    folders = {os.path.dirname(os.path.normpath(p)) for p in builders}
    direct: set[str] = set()
    bases: set[str] = set()
    for result in results:
        normal = os.path.normpath(result.path)
        inside = any(normal.startswith(folder + os.sep) for folder in folders)
        if not inside and _TEST_PATH.search(normal.replace(os.sep, "/")):
            continue
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "use" and fact[1]:
                for used in fact[1].split():
                    parts = used.split(".")
                    for i in range(len(parts) - 1):
                        hit = by_module.get(f"{parts[i]}.{parts[i + 1]}")
                        if hit and hit != result.path:
                            (bases if inside else direct).add(hit)
    return direct - bases


def drop_builder_path(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings of the builder path reached only through an accelerator abstraction's non-NPU side."""
    builders = builder_files(results)
    if not builders:
        return results
    from migrate.cuda_builds import built_only_by, drop_route

    through = built_only_by(results, builders)
    # the extensions the builders define, and the torch.ops namespaces registered in the files they list as sources
    extensions, listed = set(), set()
    for result in results:
        if result.path in builders:
            for fact in getattr(result, "facts", ()) or ():
                if fact[0] == "def" and fact[1] == "module":
                    extensions.add(fact[2])
                    if len(fact) > 5 and fact[5]:
                        listed.update(os.path.normpath(s) for s in fact[5].split())
    namespaces: dict[str, bool] = {}  # namespace -> registered only in files the builders list
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == "namespace":
                path = os.path.normpath(result.path)
                only = any(path == s or path.endswith(os.sep + s) for s in listed)
                namespaces[fact[2]] = namespaces.get(fact[2], True) and only
    uses = extensions | {f"torch.ops.{ns}" for ns, only in namespaces.items() if only}
    return drop_route(results, builders, _DROPPED_IN_BUILDERS, through, uses)
