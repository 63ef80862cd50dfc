"""A vendored library's own examples and tests: CUDA builds that nothing of the repository builds are no work item.

A project that ships a header-only CUDA library in its tree (an SDK unpacked under `csrc/fft/sdk/22.02/`: its
`LICENSE.txt`, `include/`, `lib/cmake/` package files and an `example/` folder with a CMakeLists.txt and a dozen `.cu`
programs) builds only its own extension, handing the library's `include/` folder to the compiler:

    # csrc/fft/setup.py
    CUDAExtension('fftconv', ['fftconv.cpp', 'fftconv_cuda.cu'],
                  include_dirs=[os.path.join(this_dir, 'sdk/22.02/include')])

    # csrc/fft/sdk/22.02/example/CMakeLists.txt (the SDK's own)
    project(SdkExamples LANGUAGES CXX CUDA)
    add_sdk_example(simple_fft simple_fft.cu)

The SDK's examples are the library's code, not the project's port work (label ruling (L24): a vendored GPU-only
package's own examples/tests/docs are not labels; rule 39b-9). A file counts when it sits in a folder named
`example(s)`, `sample(s)`, `demo(s)`, `test(s)` or `benchmark(s)` below a vendored library's root: a folder under the
scan root (never the scan root itself) that holds a license file of its own (`LICENSE*`, `LICENCE*`, `COPYING*`), the
mark of another project's tree. Its build findings (NPU505, NPU506, NPU511) are dropped unless a file outside that
example folder reaches it: a CMakeLists.txt adding a folder inside it (`add_subdirectory`), or a file naming one of
its CUDA sources by name (a source list, an `#include`). A project's own examples (no license file between them and
the scan root) and a vendored library's real build (its top-level CMakeLists.txt, its `csrc/`) stay reported.
Decided after the scan, from per-file facts and the license files beside the scanned folders.
"""
from __future__ import annotations

import os
import posixpath
import re

from migrate.findings import FileResult

CODES = frozenset({"NPU505", "NPU506", "NPU511"})
_SIDE = re.compile(r"^(?:examples?|samples?|demos?|tests?|benchmarks?)$", re.I)
_LICENSE = re.compile(r"^(?:licen[cs]e|copying)(?:[._-].*)?$", re.I)


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def _has_license(folder: str, cache: dict[str, bool]) -> bool:
    if folder not in cache:
        try:
            cache[folder] = any(_LICENSE.match(name) and os.path.isfile(os.path.join(folder, name))
                                for name in os.listdir(folder or "."))
        except OSError:
            cache[folder] = False
    return cache[folder]


def _example_folder(path: str, root: list[str], cache: dict[str, bool]) -> str | None:
    """The vendored library's example folder that holds `path` (see the module doc), or None."""
    parts = _parts(path)[:-1]
    prefix = "./" if path.startswith("./") else ("/" if path.startswith("/") else "")
    for side in range(len(parts) - 1, len(root), -1):  # the innermost side folder below a library root
        if not _SIDE.match(parts[side]):
            continue
        for top in range(side - 1, len(root) - 1, -1):
            if top >= len(root) and _has_license(prefix + "/".join(parts[:top + 1]), cache):
                return "/".join(parts[:side + 1])
    return None


def drop_unreached(results: list[FileResult]) -> list[FileResult]:
    """Results without the build findings of a vendored library's own example or test folder (see the module doc)."""
    holders = [r for r in results if any(f.code in CODES for f in r.findings)]
    if not holders:
        return results
    every = [_parts(r.path)[:-1] for r in results]
    root = every[0]
    for parts in every[1:]:
        while parts[:len(root)] != root:
            root = root[:-1]
    cache: dict[str, bool] = {}
    folders = {id(r): folder for r in holders if (folder := _example_folder(r.path, root, cache))}
    if not folders:
        return results
    reached = set()
    for result in results:
        mine = "/".join(_parts(result.path)[:-1])
        if any(mine == folder or mine.startswith(folder + "/") for folder in folders.values()):
            continue  # an example folder nothing reaches reaches nothing itself (two copies naming the same programs)
        for fact in getattr(result, "facts", ()):
            if fact[:2] == ("def", "cmsub"):
                target = "/".join(_parts(fact[2]))
            elif fact[0] == "ref" and fact[1].startswith("cu:"):
                target = posixpath.basename(fact[1][3:].lstrip("@"))  # `cu:@k.cuh`: under `#if BUILD_CUDA`
            else:
                continue
            for folder in set(folders.values()):
                if target == folder or target.startswith(folder + "/") or any(
                        posixpath.basename(r.path) == target for r in holders if folders.get(id(r)) == folder):
                    reached.add(folder)
    return [r if folders.get(id(r)) in (None, *reached) else r.keeping(lambda f: f.code not in CODES) for r in results]
