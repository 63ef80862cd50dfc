"""A CUDA manifest paired with its NPU counterpart is the CUDA side of a dispatch by file (NPU502).

A repository that ships `requirements.txt` and `requirements_npu.txt` side by side (PKU-YuanGroup/Helios
2276f8fe: cu12x torch and `triton==3.6.0` in the first, `torch_npu==2.9.0` in the second) has already chosen what an
Ascend host installs: the CUDA manifest is not installed there, like the CUDA branch of an NPU-aware if/else
(label ruling (L8), S-(s7) of set 16). Its GPU-only requirements are not work items. Decided after the per-file
pass from the list of scanned paths on every run (never cached), so adding or removing the NPU manifest is
seen at once; only a manifest of the same name with an `_npu` / `-npu` / `.npu` tag before its extension, in the
same directory and in the same scan, pairs it, and so does the same name with its `cuda` / `gpu` tag replaced by `npu`
(`requirements-cuda.txt` beside `requirements-npu.txt`); a manifest named for the NPU alone is (L15)'s, read by NPU502.

Dockerfiles pair the same way, by folder rather than by name (label ruling (L8), set 38 note 38d-3): a repository that
keeps one image per accelerator (`docker/Dockerfile`, `docker/Dockerfile_cu124` beside
`docker/platforms/Dockerfile_ascend_910b`, or `docker/cuda/Dockerfile` beside `docker/npu/Dockerfile`) builds the
Ascend one on an Ascend host. A Dockerfile named for the NPU (an `npu` / `ascend` word in its name or its folder's)
pairs every other Dockerfile of its own folder, of the folder above it, and of that folder's other sub-folders; their
`pip install` requirements (NPU502) are the CUDA side. Other findings of those Dockerfiles stay.
"""

from __future__ import annotations

import os
import re

from migrate.findings import FileResult
from migrate.sources import is_dockerfile

_TAGS = ("_npu", "-npu", ".npu")


# a manifest named for CUDA / the GPU (`requirements-cuda.txt`, `requirements_gpu.txt`) whose NPU twin replaces that tag
# (`requirements-npu.txt`: volcengine/verl ships both beside requirements.txt)
_CUDA_TAG = re.compile(r"([_.-])(cuda|gpu)(?=$|[_.-])", re.I)


def _paired(path: str, scanned: frozenset[str]) -> bool:
    stem, ext = os.path.splitext(path)
    if any(stem + tag + ext in scanned for tag in _TAGS):
        return True
    folder, name = os.path.split(stem)
    return any(os.path.join(folder, name[:m.start()] + m.group(1) + "npu" + name[m.end():]) + ext in scanned
               for m in _CUDA_TAG.finditer(name))


# an `npu` / `ascend` word in a Dockerfile's name or its folder's name (`Dockerfile_ascend_910b`, `npu.Dockerfile`,
# `docker/ascend/Dockerfile`)
_NPU_WORD = re.compile(r"(?:^|[_.\-])(?:npu|ascend)(?=$|[_.\-0-9])", re.I)


def _npu_dockerfile(path: str) -> bool:
    folder, name = os.path.split(path)
    return is_dockerfile(name) and (_NPU_WORD.search(name) is not None
                                    or _NPU_WORD.search(os.path.basename(folder)) is not None)


def _paired_dockerfiles(scanned: frozenset[str]) -> frozenset[str]:
    """The Dockerfiles beside an NPU Dockerfile: its folder, the folder above, that folder's other sub-folders."""
    npu = [p for p in scanned if _npu_dockerfile(p)]
    if not npu:
        return frozenset()
    near: set[str] = set()
    for path in npu:
        folder = os.path.dirname(path)
        near.update((folder, os.path.dirname(folder)))
    out = set()
    for path in scanned:
        if not is_dockerfile(os.path.basename(path)) or _npu_dockerfile(path):
            continue
        folder = os.path.dirname(path)
        if folder in near or os.path.dirname(folder) in near and os.path.dirname(folder) != folder:
            out.add(path)
    return frozenset(out)


def drop_paired_cuda_manifests(results: list[FileResult]) -> list[FileResult]:
    """NPU502 findings of a manifest that an NPU manifest of the same name pairs in the same directory, and of a
    Dockerfile beside an NPU Dockerfile."""
    if not any(r.kind in ("manifest", "launcher") and any(f.code == "NPU502" for f in r.findings) for r in results):
        return results
    scanned = frozenset(r.path for r in results)
    dockerfiles = _paired_dockerfiles(scanned)
    out = []
    for result in results:
        if result.findings and (result.kind == "manifest" and _paired(result.path, scanned)
                                or result.path in dockerfiles):
            kept = tuple(f for f in result.findings if f.code != "NPU502")
            if len(kept) != len(result.findings):
                result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed,
                                    result.facts)
        out.append(result)
    return out
