"""Which vendored CMake Find modules a repository's CMake build pulls in: one nothing invokes is no work item.

NPU511 reads every `*.cmake` script for the lines that tie a build to the CUDA toolkit (migrate/cmake_toolkit.py).
A Find module (`cmake/FindCUDA.cmake`, `FindTensorRT.cmake`) runs only when a CMake file calls `find_package(<Name>)`
(module mode looks for `Find<Name>.cmake` on CMAKE_MODULE_PATH, https://cmake.org/cmake/help/latest/command/find_package.html)
or `include()`s it by name or path. A copy vendored beside a build whose `find_package(CUDA REQUIRED)` is commented
out (label rule 34d-1: `# find_package(CUDA REQUIRED)`, the CGAL extension built with CMake's CUDA language instead)
links nothing: its NPU511 findings are dropped after the scan.

Decided from per-file facts (`facts`, cached with each file: kind "cmfind", the names each CMake file finds or
includes, comments stripped) and only where the scan holds a CMakeLists.txt: without one the build that would run the
module is not in the scan, and its lines stay reported. Other `.cmake` scripts (`include(cmake/get_raft.cmake)`)
are not judged here.
"""
from __future__ import annotations

import posixpath
import re

from migrate.findings import FileResult

_CALL = re.compile(r"\b(find_package|find_dependency|include)\s*\(\s*\"?([^\s)\"]+)", re.I)
_COMMENT = re.compile(r"#[^\n]*")
_FIND_MODULE = re.compile(r"^Find(\w+)\.cmake$")


def facts(path: str, text: str) -> list:
    """The names a CMake file pulls Find modules by: `find_package(CUDA)` -> "cuda", `include(FindCUDA)` and
    `include(${CMAKE_SOURCE_DIR}/cmake/FindCUDA.cmake)` -> "cuda" (lower case: the comparison ignores case)."""
    from migrate.repo_index import Definition

    if "(" not in text:
        return []
    code = _COMMENT.sub("", text)
    out, seen = [], set()
    for match in _CALL.finditer(code):
        command, word = match.group(1).lower(), match.group(2)
        if command == "include":
            name = _FIND_MODULE.match(posixpath.basename(word if word.endswith(".cmake") else word + ".cmake"))
            if not name:
                continue
            word = name.group(1)
        key = word.lower()
        if key not in seen:
            seen.add(key)
            out.append(Definition("cmfind", key, path, code.count("\n", 0, match.start()) + 1, False))
    return out


def drop_uninvoked(results: list[FileResult]) -> list[FileResult]:
    """Results without the NPU511 findings of a `Find<Name>.cmake` that no CMake file of the scan pulls in."""
    modules = [r for r in results if _FIND_MODULE.match(posixpath.basename(r.path))
               and any(f.code == "NPU511" for f in r.findings)]
    if not modules or not any(posixpath.basename(r.path) == "CMakeLists.txt" for r in results):
        return results
    wanted = {fact[2] for r in results for fact in getattr(r, "facts", ()) if fact[:2] == ("def", "cmfind")}
    unused = {id(r) for r in modules if _FIND_MODULE.match(posixpath.basename(r.path)).group(1).lower() not in wanted}
    if not unused:
        return results
    return [r.keeping(lambda f: f.code != "NPU511") if id(r) in unused else r for r in results]
