"""Which CMakeLists.txt files a repository's top-level CMake build reaches: one it never reaches builds nothing.

CMake reads a nested CMakeLists.txt only when a reached one calls `add_subdirectory(<dir>)` (or the legacy
`subdirs(<dir>)`) for its folder (https://cmake.org/cmake/help/latest/command/add_subdirectory.html). A stale copy left
beside a build that compiles the folder's sources itself (label rule 36c-8: a `src/CMakeLists.txt` naming `.cu` files
that no longer exist, while the top-level CMakeLists.txt lists `src/*.cu` in its own target and never adds `src/`)
builds nothing: its NPU511 findings are dropped after the scan.

Decided from per-file facts (`facts`, cached with each file: kind "cmsub", each folder a CMakeLists.txt adds, resolved
against its own folder, or "?" when a variable other than the source-dir ones hides it; kind "cmproj" when the file
calls `project()`) and only where the scan holds a top-level CMakeLists.txt. Kept: every file when any reached file adds
a folder that cannot be resolved (`add_subdirectory(${dir})` in a loop), and a nested CMakeLists.txt that calls
`project()` itself: a standalone build a setup.py or script may configure directly (`cmake csrc`).
"""
from __future__ import annotations

import posixpath
import re

from migrate.findings import FileResult

_ADD = re.compile(r"\b(?:add_subdirectory|subdirs)\s*\(\s*(\"[^\"]*\"|[^\s)]+)", re.I)
_PROJECT = re.compile(r"^\s*project\s*\(", re.I | re.M)
_COMMENT = re.compile(r"#[^\n]*")
_HERE = re.compile(r"\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/?")
_TOP = re.compile(r"\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/?")
_UNKNOWN = "?"
_TOP_MARK = "<top>"


def facts(path: str, text: str) -> list:
    """The folders a CMakeLists.txt adds (`add_subdirectory("samples")` in `a/CMakeLists.txt` -> "a/samples"; "?" when a
    variable hides one) and whether it calls `project()` (kind "cmproj")."""
    from migrate.repo_index import Definition

    if "(" not in text:
        return []
    code = _COMMENT.sub("", text)
    here = _folder(path)
    out = []
    if _PROJECT.search(code):
        out.append(Definition("cmproj", here, path, code.count("\n", 0, _PROJECT.search(code).start()) + 1, False))
    for match in _ADD.finditer(code):
        word = match.group(1).strip('"')
        if word.startswith("${CMAKE_SOURCE_DIR}") or word.startswith("${PROJECT_SOURCE_DIR}"):
            word = _TOP.sub("", word, count=1)
            base = _TOP_MARK  # the top-level folder, known after the scan
        else:
            word, base = _HERE.sub("", word, count=1), here
        folder = _UNKNOWN if "$" in word or posixpath.isabs(word) else posixpath.normpath(posixpath.join(base, word))
        out.append(Definition("cmsub", folder, path, code.count("\n", 0, match.start()) + 1, False))
    return out


def _folder(path: str) -> str:
    """A file's folder relative to the scan root: "." for the top level (`./CMakeLists.txt`, `CMakeLists.txt`)."""
    return posixpath.normpath(posixpath.dirname(path.replace("\\", "/")) or ".")


def _within(folder: str, top: str) -> bool:
    return top == "." and not folder.startswith("..") and not folder.startswith("/") or folder == top \
        or folder.startswith(top.rstrip("/") + "/")


def drop_unreached(results: list[FileResult]) -> list[FileResult]:
    """Results without the NPU511 findings of a nested CMakeLists.txt (no `project()` of its own) that the top-level
    CMakeLists.txt never reaches through `add_subdirectory`."""
    lists = {_folder(r.path): r for r in results if posixpath.basename(r.path.replace("\\", "/")) == "CMakeLists.txt"}
    # the top level: the folder of a CMakeLists.txt that holds every other one
    top = min(lists, key=lambda folder: (folder != ".", folder.count("/"), len(folder)), default=None)
    if top is None or not all(_within(folder, top) for folder in lists) or not any(
            f.code == "NPU511" for folder, r in lists.items() if folder != top for f in r.findings):
        return results

    def of(result, kind):
        return [fact[2] for fact in getattr(result, "facts", ()) if fact[:2] == ("def", kind)]

    reached, todo = {top}, [top]
    while todo:
        for folder in of(lists[todo.pop()], "cmsub"):
            if folder == _UNKNOWN:
                return results
            if folder.startswith(_TOP_MARK):
                folder = posixpath.normpath(top + folder[len(_TOP_MARK):])
            if folder not in reached:
                reached.add(folder)
                if folder in lists:
                    todo.append(folder)
    unreached = {id(r) for folder, r in lists.items() if folder not in reached and not of(r, "cmproj")}
    if not unreached:
        return results
    return [r.keeping(lambda f: f.code != "NPU511") if id(r) in unreached else r for r in results]
