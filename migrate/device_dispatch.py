"""A repository's own device dispatch with an NPU side: its CUDA-side folder is no finding (label ruling (L50)).

The general form of migrate/accelerator_builders.py: a project that picks a per-device implementation folder by the
device type it runs on, with an NPU / Ascend folder beside the CUDA one:

    def get_backend(device_type):                       # a selector: branches on the device type
        if device_type == "cuda":
            from .cuda import CudaOpsBackend            # backends/cuda/: Triton kernels, flash_attn, deep_gemm ...
            return CudaOpsBackend
        if device_type == "ascend":
            from .ascend import AscendOpsBackend         # backends/ascend/: the NPU side
            return AscendOpsBackend

    DEVICE_MAP = {"cuda": "cuda", "npu": "npu_impl"}     # a registry: device type -> implementation folder
    mod = importlib.import_module(f"myproj.kernels.{DEVICE_MAP[device]}")

On an NPU host the NPU folder answers, so the CUDA folder's findings are the CUDA side of a chain that already handles
the NPU. Keyed on, from the repository's own code (per-file facts, cached with each file):

- a *selector*: an `if` whose test compares something with a device-type string constant (`== "cuda"`,
  `in ("npu", "ascend")`) and whose body imports a module of the repository (`from .cuda import X`,
  `from myproj.backends.ascend import Y`); or a *registry*: a dict literal whose keys are all string constants,
  `"cuda"` and `"npu"` / `"ascend"` among them, whose values are plain names, in a file that calls `import_module`
  (each value is a folder beside that file);
- the module of the CUDA branch and of an NPU branch both resolve to folders of the scan (a module that is a
  single file names no folder: nothing happens).

Dropped: every finding of the files under the CUDA folder (its subfolders included), and of a Python file outside it
that only files of that folder import (a wrapper of a CUDA-only package, `third_party/deep_gemm/__init__.py`; one
import deep). Kept:
- a file of that folder that code outside it imports directly (`from myproj.backends.cuda.attention import x` in a
  model file, or in another device's folder): that code reaches it without the dispatch; the selector file and tests
  do not count (a kernel's own unit test is no product path);
- everything where no NPU branch resolves: a CUDA-only selector is no NPU route.
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult

_CUDA = frozenset({"cuda"})
_NPU = frozenset({"npu", "ascend"})
_NAME = re.compile(r"[A-Za-z_]\w*")
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*\.py$|_test\.py$")


def wants(text: str) -> bool:
    """A selector or registry over CUDA and NPU device types may be here."""
    return ("'cuda'" in text or '"cuda"' in text) and any(f"{q}{w}{q}" in text for w in _NPU for q in "'\"")


def _device_words(test: ast.AST) -> set[str]:
    """The device words a comparison test names (`x == "cuda"`, `x in ("npu", "ascend")`), or none."""
    words: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.In)) for op in node.ops):
            for side in [node.left, *node.comparators]:
                values = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                for value in values:
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        words.add(value.value.lower())
    return words & (_CUDA | _NPU)


def _branch_modules(body: list[ast.stmt], path: str) -> list[str]:
    """The modules a branch body imports, encoded `rel:<folder path>` (relative imports, resolved against the file's
    folder) or `abs:<dotted name>`."""
    out: list[str] = []
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.level:
                    base = os.path.dirname(os.path.normpath(path))
                    for _ in range(node.level - 1):
                        base = os.path.dirname(base)
                    out.append("rel:" + os.path.join(base, *node.module.split(".")))
                else:
                    out.append("abs:" + node.module)
    return out


def facts(tree: ast.AST, path: str, text: str) -> list:
    """("def", "devside", "<cuda|npu> <encoded module>") per dispatched module (see `_branch_modules`)."""
    from migrate.repo_index import Definition

    out: list = []
    seen: set[str] = set()

    def add(kind: str, module: str, line: int) -> None:
        if f"{kind} {module}" not in seen:
            seen.add(f"{kind} {module}")
            out.append(Definition("devside", f"{kind} {module}", path, line, False))

    importer = "import_module" in text
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            words = _device_words(node.test)
            kind = "cuda" if words and words <= _CUDA else "npu" if words and words <= _NPU else ""
            if kind:
                for module in _branch_modules(node.body, path):
                    add(kind, module, node.lineno)
        elif importer and isinstance(node, ast.Dict) and node.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            keys = {k.value.lower(): v for k, v in zip(node.keys, node.values)}
            if "cuda" in keys and keys.keys() & _NPU:
                folder = os.path.dirname(os.path.normpath(path))
                for key, value in keys.items():
                    kind = "cuda" if key in _CUDA else "npu" if key in _NPU else ""
                    if kind and isinstance(value, ast.Constant) and isinstance(value.value, str) \
                            and _NAME.fullmatch(value.value):
                        add(kind, "rel:" + os.path.join(folder, value.value), node.lineno)
    return out


def _resolve(module: str, folders: set[str]) -> str | None:
    """The scanned folder an encoded module names (an absolute one by its longest trailing run of names)."""
    if module.startswith("rel:"):
        folder = os.path.normpath(module[4:])
        return folder if folder in folders else None
    from migrate.accelerator_builders import folder_of

    return folder_of(module[4:], folders)


def _all_folders(paths: list[str]) -> set[str]:
    out: set[str] = set()
    for path in paths:
        folder = os.path.dirname(path)
        while folder and folder not in out:
            out.add(folder)
            folder = os.path.dirname(folder)
    return out


def cuda_side(results: list[FileResult]) -> set[str]:
    """The paths of the files reached only through the CUDA branch of a device dispatch with an NPU branch."""
    dispatchers: dict[str, dict[str, set[str]]] = {}
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == "devside":
                kind, module = fact[2].split(" ", 1)
                dispatchers.setdefault(result.path, {"cuda": set(), "npu": set()})[kind].add(module)
    if not dispatchers:
        return set()
    paths = {os.path.normpath(r.path): r.path for r in results}
    folders = _all_folders(list(paths))
    sides: dict[str, str] = {}  # CUDA folder -> the dispatcher's path
    for dispatcher, modules in dispatchers.items():
        npu = {f for m in modules["npu"] for f in [_resolve(m, folders)] if f}
        cuda = {f for m in modules["cuda"] for f in [_resolve(m, folders)] if f} - npu
        if npu:
            for folder in cuda:
                # a CUDA folder inside an NPU one, or holding one (`from .kernels import x` beside `from .kernels.npu
                # import x`: kernels/ is shared code too), is no CUDA side
                if not any(folder.startswith(n + os.sep) or n.startswith(folder + os.sep) for n in npu):
                    sides.setdefault(folder, os.path.normpath(dispatcher))
    if not sides:
        return set()
    inside = {normal: folder for normal in paths for folder in sides if normal.startswith(folder + os.sep)}
    dropped = set(inside) - _imported_directly(results, inside, sides)
    return {paths[p] for p in dropped | _only_behind(results, inside, sides)}


def npu_folders(results: list[FileResult]) -> set[str]:
    """The scanned folders an NPU branch of a device dispatch resolves to (migrate/target_device_builds.py asks whether
    the repository has an NPU side at all)."""
    modules = {fact[2].split(" ", 1)[1] for r in results for fact in getattr(r, "facts", ()) or ()
               if fact[0] == "def" and fact[1] == "devside" and fact[2].startswith("npu ")}
    if not modules:
        return set()
    folders = _all_folders([os.path.normpath(r.path) for r in results])
    return {f for m in modules for f in [_resolve(m, folders)] if f}


def dotted_suffixes(normal: str) -> list[str]:
    """The module names a file may be imported as (`pkg/third_party/deep_gemm/__init__.py`: `third_party.deep_gemm`,
    `pkg.third_party.deep_gemm`), two names at least."""
    parts = os.path.splitext(normal)[0].split(os.sep)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts) - 1)]


def used_modules(result: FileResult, keys: dict[str, str]):
    """(path, rest) per name `result` uses (its "use" facts) whose longest dotted prefix is a key of `keys` (module name
    -> path, `dotted_suffixes`) naming another file; rest: the name after the module ("" for the module itself)."""
    own = {result.path, os.path.normpath(result.path)}  # keys may hold either spelling of a path
    for fact in getattr(result, "facts", ()) or ():
        if fact[0] == "use" and fact[1]:
            for used in fact[1].split():
                parts = used.split(".")
                for j in range(len(parts), 1, -1):
                    hit = keys.get(".".join(parts[:j]))
                    if hit and hit not in own:
                        yield hit, parts[j] if j < len(parts) else ""
                        break


def _only_behind(results: list[FileResult], inside: dict[str, str], sides: dict[str, str]) -> set[str]:
    """The Python files outside the CUDA folders (wrappers of a CUDA-only package, `third_party/deep_gemm`) that only
    files of those folders import, one import deep; tests and files nothing imports stay."""
    keys: dict[str, str] = {}
    for result in results:
        normal = os.path.normpath(result.path)
        if result.findings and normal.endswith(".py") and normal not in inside \
                and not _TEST_PATH.search(normal.replace(os.sep, "/")):
            for key in dotted_suffixes(normal):
                keys.setdefault(key, normal)
    if not keys:
        return set()
    importers: dict[str, set[bool]] = {}
    for result in results:
        normal = os.path.normpath(result.path)
        if _TEST_PATH.search(normal.replace(os.sep, "/")) or normal in sides.values():
            continue
        for hit, _ in used_modules(result, keys):
            importers.setdefault(hit, set()).add(normal in inside)
    return {path for path, where in importers.items() if where == {True}}


def _imported_directly(results: list[FileResult], inside: dict[str, str], sides: dict[str, str]) -> set[str]:
    """The CUDA-side files that code outside their folder imports by their own module (see the module doc)."""
    by_module: dict[str, str] = {}  # "<folder name>.<relative module>" -> path
    for normal, folder in inside.items():
        relative = os.path.splitext(os.path.relpath(normal, folder))[0].split(os.sep)
        if relative[-1] == "__init__":
            relative = relative[:-1]
        if relative:
            by_module[".".join([os.path.basename(folder), *relative])] = normal
    direct: set[str] = set()
    for result in results:
        normal = os.path.normpath(result.path)
        if normal in inside or normal in sides.values() or _TEST_PATH.search(normal.replace(os.sep, "/")):
            continue
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "use" and fact[1]:
                for used in fact[1].split():
                    parts = used.split(".")
                    for i in range(len(parts)):
                        for j in range(len(parts), i + 1, -1):
                            hit = by_module.get(".".join(parts[i:j]))
                            if hit:
                                direct.add(hit)
                                break
    return direct


def drop_cuda_side(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings of the files reached only through a device dispatch's CUDA branch."""
    side = cuda_side(results)
    if not side:
        return results
    return without_findings_of(results, side)


def without_findings_of(results: list[FileResult], side: set[str]) -> list[FileResult]:
    """`results` with no finding in the files of `side` (their facts and errors kept)."""
    return [FileResult(r.path, r.kind, r.lines, (), r.errors, r.suppressed, r.facts) if r.path in side and r.findings
            else r for r in results]
