"""A CMake build with an NPU switch is a per-device build: its CUDA side is not a construct to port.

Some CMake projects build for several devices and choose one with a build switch, the NPU among them:

    option(MYPROJ_USE_NPU "build for the Ascend NPU" OFF)
    if(MYPROJ_USE_NPU)
        target_link_libraries(stream PUBLIC ascendcl)          # the NPU side
    else()
        find_package(CUDA REQUIRED)                              # the CUDA side (NPU511 would report it)
        target_link_libraries(stream PUBLIC CUDA::cudart)
    endif()
    pybind11_add_module(cache_ext src/bind.cpp)                  # built for either device

The CUDA lines of such a build are the CUDA branch of a chain that already handles the NPU (label rulings (L20),
(L56); set 43e's e-5): on the NPU host the switch selects the other side, and the extension it defines (`cache_ext`)
exists there too, so its Python uses are no NPU508 finding either.

A CMake file has an NPU switch when an `if(...)` / `elseif(...)` condition (comments not read) names a variable one of
whose `_`-separated upper-case words is `NPU` or `ASCEND` (`MYPROJ_USE_NPU`, `WITH_ASCEND`, `USE_NPU`): per-file facts
(kind "cmnpu", cached with each file). After the scan, a CMake file (CMakeLists.txt or `*.cmake`) belongs to such a
build when the nearest CMakeLists.txt in its own folder or above it that either has an NPU switch or calls `project()`
has the switch (a nested `project()` without one is a subproject of its own, a vendored library: left alone). Dropped:
those files' NPU511 / NPU505 findings, NPU506 of a CUDA source only they build (`cuda_builds.built_only_by`) and NPU508
uses of the extensions they define. Kept: a CMake build whose only device branches are CUDA / ROCm / SYCL / MUSA (no
NPU entry), and every file outside the switch's build.

A CPU backend choice is such a switch where the repository's Python ops already run on any device (label ruling (L88),
set 46d d-1): a backend variable compared with "cuda" that also takes "cpu" (`set(COMPUTE_BACKEND "cpu" CACHE STRING
...)`, `if(${COMPUTE_BACKEND} STREQUAL "cuda") ... else() set(BUILD_CPU ON)`) builds the native library for the CPU,
which is what an NPU host loads, while its torch.library ops dispatch an NPU tensor to their plain-PyTorch default kernel
(migrate/default_kernels.py). Facts of kind "cmcpu"; the build counts as switched only where the scan also serves an op
namespace so ("opdefault" facts): a CUDA/CPU switch alone gives the NPU no route and stays reported.
"""
from __future__ import annotations

import posixpath
import re

from migrate.findings import FileResult

_CODES = frozenset({"NPU511", "NPU505"})
_COMMENT = re.compile(r"#[^\n]*")
_CONDITION = re.compile(r"\b(?:if|elseif)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.I)
_VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_NPU_WORDS = frozenset({"NPU", "ASCEND"})
_PROJECT = re.compile(r"^\s*project\s*\(", re.I | re.M)


def _names_npu(condition: str) -> str | None:
    for name in _VARIABLE.findall(condition):
        if name.upper() == name and _NPU_WORDS & set(name.split("_")):
            return name
    return None


def facts(path: str, text: str) -> list:
    """A Definition("cmnpu", <variable>, path, line) for the first `if(...)` / `elseif(...)` of a CMake file whose
    condition names an NPU switch variable (see the module doc)."""
    from migrate.repo_index import Definition

    if "NPU" not in text.upper() and "ASCEND" not in text.upper():
        return _cpu_choice(path, text)
    code = _COMMENT.sub("", text)
    for match in _CONDITION.finditer(code):
        name = _names_npu(match.group(1))
        if name:
            return [Definition("cmnpu", name, path, code.count("\n", 0, match.start()) + 1, False)]
    return []


_COMPARED = re.compile(r"\$\{?(\w+)\}?\s+STREQUAL\s+\"?(\w+)\"?|\b(\w+)\s+STREQUAL\s+\"?(\w+)\"?", re.I)
_CACHED = re.compile(r"\bset\s*\(\s*(\w+)\s+\"?(\w+)\"?\s+CACHE\b", re.I)


def _cpu_choice(path: str, text: str) -> list:
    """A Definition("cmcpu", <variable>, path, line) where one variable of the file is compared with "cuda" and takes
    "cpu" (compared with it or its cached default): a backend choice with a CPU build (see the module doc)."""
    from migrate.repo_index import Definition

    if "STREQUAL" not in text.upper() or "cpu" not in text.lower():
        return []
    code = _COMMENT.sub("", text)
    values: dict[str, set[str]] = {}
    for match in _COMPARED.finditer(code):
        name, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        values.setdefault(name, set()).add(value.lower())
    for match in _CACHED.finditer(code):
        if match.group(1) in values:
            values[match.group(1)].add(match.group(2).lower())
    for name, taken in values.items():
        if {"cuda", "cpu"} <= taken:
            line = code.count("\n", 0, code.find(name)) + 1
            return [Definition("cmcpu", name, path, line, False)]
    return []


def _folder(path: str) -> str:
    return posixpath.normpath(posixpath.dirname(path.replace("\\", "/")) or ".")


def switched_files(results: list[FileResult]) -> set[str]:
    """The paths of the CMake files that belong to a build with an NPU switch (see the module doc)."""
    def has(result, kind):
        return any(fact[:2] == ("def", kind) for fact in getattr(result, "facts", ()) or ())

    lists = {_folder(r.path): r for r in results if posixpath.basename(r.path.replace("\\", "/")) == "CMakeLists.txt"}
    switch = "cmnpu"
    if not any(has(r, "cmnpu") for r in lists.values()):
        # a CPU backend choice, where the Python ops run on any device (see the module doc)
        if not (any(has(r, "cmcpu") for r in lists.values()) and any(fact[0] == "def" and fact[1] == "opdefault" and len(fact) > 6 and fact[6] == "python"
                                                                        for r in results for fact in getattr(r, "facts", ()) or ())):
            return set()
        switch = "cmcpu"
    out = set()
    for result in results:
        if not result.path.endswith(("CMakeLists.txt", ".cmake")):
            continue
        folder = _folder(result.path)
        while True:
            owner = lists.get(folder)
            if owner is not None and (has(owner, switch) or has(owner, "cmproj")):
                if has(owner, switch):
                    out.add(result.path)
                break
            if folder in (".", "/", "") or folder.startswith(".."):
                break
            folder = posixpath.dirname(folder) or "."
    return out


def drop_cuda_side(results: list[FileResult]) -> list[FileResult]:
    """`results` less the CUDA side of a CMake build with an NPU switch (see the module doc)."""
    files = switched_files(results)
    if not files:
        return results
    from migrate.cuda_builds import built_only_by, drop_route

    modules = {fact[2] for r in results if r.path in files for fact in getattr(r, "facts", ()) or ()
               if fact[0] == "def" and fact[1] == "module"}
    return drop_route(results, files, _CODES, built_only_by(results, files), modules)
