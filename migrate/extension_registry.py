"""A registry of per-device extension classes with an NPU entry: its CUDA entries' builds are no findings (label ruling
(L50), general form; migrate/accelerator_builders.py and migrate/device_dispatch.py are its siblings).

ColossalAI-style projects list the kernel implementations of an op as classes, and a loader picks, per machine, the
first whose `is_available()` answers:

    class KernelLoader:
        REGISTRY = []
        def load(self):
            usable = [ext() for ext in self.REGISTRY if ext().is_available()]   # picked per device
            assert usable, "No usable kernel found on the current machine"
            return usable[0].load()

    class AttentionLoader(KernelLoader):
        REGISTRY = [AttentionNpuExtension, AttentionCudaExtension]           # an NPU entry: the NPU is handled

    class LayerNormLoader(KernelLoader):
        REGISTRY = [LayerNormCudaExtension]                                 # on an NPU: the loader's clear error

    class _CudaExtension(_CppExtension):                                    # nvcc flags, CUDA_HOME, CUDAExtension
        def build_aot(self): ...
    class LayerNormCudaExtension(_CudaExtension):
        def sources_files(self): return [self.csrc_abs_path("cuda/layer_norm_kernel.cu")]

On an NPU host the CUDA entries are never picked (their `is_available()` is CUDA's), so their builds are the CUDA side of
an abstraction that already handles the NPU. Keyed on, from the repository's own code (per-file facts, cached with
each file):

- a *registry*: a list or tuple literal of class names (`[AttentionNpuExtension, AttentionCudaExtension]`) in a file
  that calls `.is_available()` (the per-device pick);
- an *NPU entry*: a registered class of the scan whose name says NPU / Ascend (`FlashAttentionNpuExtension`): without
  one, nothing happens (a CUDA-only registry is no NPU route);
- the *CUDA side*: the registered classes whose name says CUDA, or with a base whose name says CUDA
  (`CpuAdamX86Extension(_CudaExtension)`: its `is_available()` is CUDA's), and those CUDA-named bases of the scan.

Dropped: every finding inside the CUDA side's class bodies; NPU506 of a CUDA file only their files build
(`cuda_builds.built_only_by`); and NPU505 inside a function of a helper module those files import (`from .utils import
get_cuda_cc_flag`) that no other file of the scan imports by name (tests aside). Kept: the registry and loader
files, a class body that is not a CUDA entry's, a helper function another file imports, a `.cu` another build names.
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult

_DEVICE_CLASS = re.compile(r"\bclass\s+\w*(?:NPU|Npu|Ascend|CUDA|Cuda)\w*|\(\s*\w*(?:NPU|Npu|Ascend|CUDA|Cuda)\w*\s*\)")
_DEVICE_WORD = re.compile(r"NPU|Npu|Ascend|CUDA|Cuda")
_CLASS_BEFORE = re.compile(r"\bclass\s+$")
_OPEN_BEFORE = re.compile(r"\(\s*$")
_CLOSE_AFTER = re.compile(r"\s*\)")
_BUILD_HINTS = ("nvcc", "CUDA_HOME")  # looked for as substrings: an alternation is tried at every position of the file
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*\.py$|_test\.py$")


def wants(text: str) -> bool:
    """A registry, a device-named extension class or a build helper may be here."""
    return "is_available(" in text or any(hint in text for hint in _BUILD_HINTS) or _device_class(text)


def _device_class(text: str) -> bool:
    """`_DEVICE_CLASS.search(text) is not None`, from each device word outwards: the pattern itself tried a match at
    every `(` and every `class` of the file (most of torch's files name CUDA somewhere)."""
    for match in _DEVICE_WORD.finditer(text):
        start, end = match.start(), match.end()
        while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        before = text[max(0, start - 64):start]
        if _CLASS_BEFORE.search(before) or (_OPEN_BEFORE.search(before) and _CLOSE_AFTER.match(text, end)):
            return True
    return False


def _device(name: str) -> str:
    """"npu" / "cuda" where that is a word of the class name (`AttentionNpuExtension`, `_CudaExtension`), else ""."""
    from migrate.accelerator_builders import device

    return "npu" if "Ascend" in name or "ASCEND" in name else device(name)


def _name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def facts(tree: ast.AST, path: str, text: str, nodes: dict | None = None) -> list:
    """Definitions: ("def", "extcls", "name|base base|first|last") per top-level class with a device word in its name
    or a base's, ("def", "extreg", "name name ...") per list of class names in a file that calls `.is_available()`,
    and ("def", "extfn", "name|first|last") per top-level function of a file naming nvcc or CUDA_HOME. `nodes`: the
    file's nodes by type in `ast.walk` order (context.index_tree), read instead of walking the tree."""
    from migrate.repo_index import Definition

    out: list = []
    body = getattr(tree, "body", [])
    helpers = any(hint in text for hint in _BUILD_HINTS)
    for node in body:
        if isinstance(node, ast.ClassDef):
            bases = [b for b in map(_name, node.bases) if b]
            if any(_device(n) for n in [node.name, *bases]):
                out.append(Definition("extcls", f"{node.name}|{' '.join(bases)}|{node.lineno}|{node.end_lineno}",
                                      path, node.lineno, False))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and helpers:
            out.append(Definition("extfn", f"{node.name}|{node.lineno}|{node.end_lineno}", path, node.lineno, False))
    if "is_available(" in text:
        def of(*kinds):
            return ast.walk(tree) if nodes is None else [n for kind in kinds for n in nodes.get(kind, ())]

        picks = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "is_available"
                    for n in of(ast.Call))
        if picks:
            for node in of(ast.Assign, ast.AnnAssign):  # (the registry reads them as a set: their order is no matter)
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.List, ast.Tuple)):
                    names = [_name(e) for e in node.value.elts]
                    if names and all(names) and any(_device(n) for n in names):
                        out.append(Definition("extreg", " ".join(names), path, node.lineno, False))
    return out


def cuda_side(results: list[FileResult]) -> tuple[dict[str, list[tuple[int, int]]], dict[str, list[tuple[int, int]]]]:
    """(path -> the CUDA side's class spans, path -> the spans of helper functions only the CUDA side imports); both
    empty without a registry holding an NPU entry of the scan."""
    classes: dict[str, list[tuple[str, list[str], int, int]]] = {}
    registered: set[str] = set()
    functions: dict[str, list[tuple[str, int, int]]] = {}
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] != "def":
                continue
            if fact[1] == "extcls":
                name, bases, first, last = fact[2].split("|")
                classes.setdefault(name, []).append((result.path, bases.split(), int(first), int(last)))
            elif fact[1] == "extreg":
                registered.update(fact[2].split())
            elif fact[1] == "extfn":
                name, first, last = fact[2].split("|")
                functions.setdefault(result.path, []).append((name, int(first), int(last)))
    if not any(_device(n) == "npu" and n in classes for n in registered):
        return {}, {}
    cuda_named = {n for n in classes if _device(n) == "cuda"}
    side: set[str] = set()
    for name in registered & set(classes):
        device = _device(name)
        cuda_bases = {b for _, bases, _, _ in classes[name] for b in bases if b in cuda_named}
        if device == "cuda" or (not device and cuda_bases):
            side.add(name)
            side.update(cuda_bases)
    spans: dict[str, list[tuple[int, int]]] = {}
    for name in side:
        for path, _, first, last in classes[name]:
            spans.setdefault(path, []).append((first, last))
    return spans, _helper_spans(results, set(spans), functions)


def _helper_spans(results: list[FileResult], files: set[str], functions: dict) -> dict[str, list[tuple[int, int]]]:
    """The spans of the functions of helper modules the CUDA side's `files` import that no other file imports by name."""
    from migrate.device_dispatch import dotted_suffixes, used_modules

    keys: dict[str, str] = {}
    for path in functions:
        if path not in files:
            for key in dotted_suffixes(os.path.normpath(path)):
                keys.setdefault(key, path)
    if not keys:
        return {}
    wanted: dict[str, set[str]] = {}  # helper path -> names the CUDA side imports
    elsewhere: dict[str, set[str]] = {}  # helper path -> names other files import ("" for the whole module)
    for result in results:
        normal = os.path.normpath(result.path)
        if result.path not in files and _TEST_PATH.search(normal.replace(os.sep, "/")):
            continue
        for hit, rest in used_modules(result, keys):
            (wanted if result.path in files else elsewhere).setdefault(hit, set()).add(rest)
    out: dict[str, list[tuple[int, int]]] = {}
    for path in wanted:
        other = elsewhere.get(path, set())
        if "" in other:
            continue
        out[path] = [(first, last) for name, first, last in functions[path] if name not in other]
    return out


def drop_cuda_entries(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings of the CUDA entries of a per-device extension registry with an NPU entry."""
    spans, helpers = cuda_side(results)
    if not spans:
        return results
    from migrate.cuda_builds import built_only_by

    sources = built_only_by(results, set(spans))

    def inside(line: int, ranges) -> bool:
        return any(first <= line <= last for first, last in ranges)

    def keep(result):
        own, helped = spans.get(result.path, ()), helpers.get(result.path, ())
        return lambda f: not (inside(f.line, own) or (f.code == "NPU505" and inside(f.line, helped))
                              or (f.code == "NPU506" and result.path in sources))

    return [r.keeping(keep(r)) if r.findings and (r.path in spans or r.path in helpers or r.path in sources) else r
            for r in results]
