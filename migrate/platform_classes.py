"""A platform class hierarchy with an NPU member: the modules only its other members name are no findings (label
rulings (L50)/(L56); migrate/accelerator_builders.py and migrate/device_dispatch.py are its siblings).

vLLM-style projects pick their per-device implementations through one class per platform, each answering the same
method with the qualified name of a class that the caller imports by that name (`resolve_obj_by_qualname`):

    class CudaPlatformBase(Platform):                   # platforms/cuda.py
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            if selected_backend == AttentionBackendEnum.SLA:
                return "myproj.attention.backends.sla.SLAAttentionBackend"        # Triton kernels
            return "myproj.attention.backends.flash_attn.FlashAttentionBackend"   # flash_attn, flashinfer

    class NPUPlatform(Platform):                        # platforms/npu.py
        @classmethod
        def get_attn_backend_cls(cls, selected_backend, head_size, dtype):
            return "myproj.attention.backends.sdpa.SDPABackend"                   # plain torch

On an NPU host the NPU member answers, so the modules that only the other members name are the CUDA side of a choice
that already handles the NPU. Keyed on, from the repository's own code (per-file facts, cached with each file):

- a *platform member*: a class with a base, one of whose methods returns a string constant naming a class by its
  qualified name (`"pkg.mod.Class"`: two dots at least); its device is NPU where `NPU` / `Npu` / `Ascend` is a word of
  its name (`NPUPlatform`, `AscendPlatform`), else another device (`CudaPlatformBase`, `RocmPlatform`);
- an NPU member and another member with the same base and the same method: the hierarchy; the NPU member's name
  resolves to a Python module of the scan (by its trailing names, `pkg.mod` of `pkg.mod.Class`), or nothing happens
  (a CUDA-only hierarchy is no NPU route).

The *other side's modules* are those the other members' names resolve to, less those the NPU member names (SDPA is
everyone's fallback). Dropped: every finding of those modules, and of a Python file that only they import (a wrapper
of a GPU-only package, `attention/utils/flash_attn_no_pad.py`, one import deep). Kept: a module that other code imports
directly (`from pkg.attention.backends.vmoba import X` in a pipeline stage: it is reached without the choice, (L56));
the member files and tests do not count as such importers (a kernel's own unit test is no product path).
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult

# `return "pkg.mod.Class"` (a qualified name, two dots at least), looked for before the file is parsed
_QUALNAME_RETURN = re.compile(r"return\s+[rbuf]?['\"][A-Za-z_]\w*\.[A-Za-z_]\w*\.[A-Za-z_]")
_QUALNAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+")
_NPU_WORDS = frozenset({"npu", "ascend"})
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*\.py$|_test\.py$")
KIND = "platside"
_MANIFESTS = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})


def wants(text: str) -> bool:
    """A platform member may be here."""
    return "class " in text and _QUALNAME_RETURN.search(text) is not None


def device(name: str) -> str:
    """"npu" where NPU / Ascend is a word of the class name (`NPUPlatform`, `Ascend_Platform`), else "other"."""
    words = {w.lower() for part in name.split("_") for w in _WORDS.findall(part)}
    return "npu" if words & _NPU_WORDS else "other"


def _base_name(base: ast.AST) -> str:
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def _returned_qualnames(function: ast.AST) -> list[str]:
    """The qualified class names `function`'s own body returns as string constants."""
    from migrate.availability_predicates import own_returns

    return [r.value.value for r in own_returns(function) if isinstance(r.value, ast.Constant)
            and isinstance(r.value.value, str) and _QUALNAME.fullmatch(r.value.value)]


def facts(tree: ast.AST, path: str) -> list:
    """("def", "platside", "<npu|other> <base> <method> <qualified name>") per name a platform member returns."""
    from migrate.repo_index import Definition

    out: list = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [b for b in map(_base_name, node.bases) if b and b != "object"]
        if not bases:
            continue
        kind = device(node.name)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for name in dict.fromkeys(_returned_qualnames(item)):
                    for base in bases:
                        out.append(Definition(KIND, f"{kind} {base} {item.name} {name}", path, item.lineno, False))
    return out


def _module_keys(results: list[FileResult]) -> dict[str, str]:
    """Module name (two names at least, `device_dispatch.dotted_suffixes`) -> normalised path, per Python file."""
    from migrate.device_dispatch import dotted_suffixes

    keys: dict[str, str] = {}
    for result in results:
        normal = os.path.normpath(result.path)
        if normal.endswith(".py"):
            for key in dotted_suffixes(normal):
                keys.setdefault(key, normal)
    return keys


def _resolve(qualname: str, keys: dict[str, str]) -> str | None:
    """The Python file of the scan a qualified class name lives in (`pkg.mod.Class`: `pkg/mod.py`), else None."""
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 1, -1):
        for start in range(end - 1):
            hit = keys.get(".".join(parts[start:end]))
            if hit:
                return hit
    return None


def _distribution(normal: str, roots: set[str]) -> str:
    """The folder of the innermost manifest (`pyproject.toml`, `setup.py`) above a file: the distribution it ships in."""
    folder = os.path.dirname(normal)
    while folder not in roots:
        parent = os.path.dirname(folder)
        if parent == folder:  # "" or the file system's root ("/"): no manifest above
            return ""
        folder = parent
    return folder


def other_side(results: list[FileResult]) -> set[str]:
    """The paths of the files reached only through the non-NPU members of a platform hierarchy with an NPU member."""
    groups: dict[tuple[str, str], dict[str, set[str]]] = {}
    members: set[str] = set()
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == KIND:
                kind, base, method, name = fact[2].split(" ")
                groups.setdefault((base, method), {"npu": set(), "other": set()})[kind].add(name)
                members.add(os.path.normpath(result.path))
    if not any(g["npu"] and g["other"] for g in groups.values()):
        return set()
    keys = _module_keys(results)
    side: set[str] = set()
    for group in groups.values():
        npu = {p for n in group["npu"] for p in [_resolve(n, keys)] if p}
        if npu:
            side |= {p for n in group["other"] for p in [_resolve(n, keys)] if p} - npu - members
    if not side:
        return set()
    from migrate.device_dispatch import used_modules

    paths = {os.path.normpath(r.path): r.path for r in results}
    imports: list[tuple[str, str]] = []  # (imported file, importer), member files and tests aside
    for result in results:
        normal = os.path.normpath(result.path)
        if normal not in members and not _TEST_PATH.search(normal.replace(os.sep, "/")):
            imports += [(hit, normal) for hit, _ in used_modules(result, keys)]
    side -= {hit for hit, importer in imports if hit in side and importer not in side}  # reached without the choice
    # one import deep: a non-test Python file outside the side that only files of the side import
    roots = {os.path.dirname(p) for p in paths if os.path.basename(p) in _MANIFESTS}
    importers: dict[str, set[bool]] = {}
    for hit, importer in imports:
        # a file of another distribution (`kernels/pyproject.toml` beside the project's own) is a package of its own,
        # installed and imported apart from the choice
        importers.setdefault(hit, set()).add(importer in side and _distribution(hit, roots) == _distribution(importer, roots))
    behind = {p for p, where in importers.items() if where == {True} and p not in side and p not in members
              and not _TEST_PATH.search(p.replace(os.sep, "/"))}
    return {paths[p] for p in side | behind if p in paths}


def drop_other_side(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings of the files reached only through a platform hierarchy's non-NPU members."""
    side = other_side(results)
    if not side:
        return results
    from migrate.device_dispatch import without_findings_of

    return without_findings_of(results, side)
