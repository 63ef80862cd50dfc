"""A package the repository already runs on the NPU through its Ascend build is NPU-aware there (NPU501, NPU507).

vLLM's PyPI build is CUDA; on Ascend it runs through the vllm-ascend platform plugin, installed beside it, and vLLM's own
code runs as written (migrate/knowledge/third_party.toml: `npu_plugin`). A repository that names that plugin itself has
already taken the route: volcengine/verl imports `vllm_ascend` in its `if is_npu_available:` branches
(`from vllm_ascend.distributed.device_communicators.pyhccl import PyHcclCommunicator`) beside `from vllm import LLM`. Its
imports and uses of vLLM are the NPU path too: a porting engineer changes none of them (label ruling (L38)). The same
for a package whose NPU build replaces it under the same module name: triton-ascend installs the `triton` package for
Ascend, so a repository that requires triton-ascend (verl's requirements-npu.txt) runs its Triton kernels through it.

The repository names the plugin when one of its Python files imports the plugin's module (`vllm_ascend`), one of its
manifests declares the plugin's distribution (`vllm-ascend`, `triton-ascend`), or one of its Dockerfiles builds on an
image named for the plugin (`FROM quay.io/ascend/vllm-ascend:v0.11.0`: the image installs it; label note 47e-4): the
("imp", root, line), ("req", name, line) and ("img", name, line) facts of the per-file pass (migrate/deps.py,
migrate/base_images.py), so nothing is read again. Its NPU501 / NPU507 findings of the
package are then dropped, in every file. Its manifest lines (NPU502: the PyPI `vllm` wheel, `sglang[srt]`) still change
on the NPU and stay reported. Decided after the scan on every run (never cached), so adding or removing the plugin's
import or requirement is seen at once.

A package whose own code picks its Ascend kernels by the device (knowledge `npu_backend`: Liger-Kernel registers its
`_ascend` backend as the default for 'npu' devices, flash-linear-attention dispatches to its triton_ascend backend when
the device platform is 'npu') needs no plugin to be named: the repository takes it to the NPU by running on the NPU.
One that imports or requires torch_npu does (modelscope/twinkle's platform registry imports torch_npu and hands its
models to Liger on the NPU on purpose): that package's NPU501 / NPU507 findings are dropped as well (label ruling (L99):
a package whose own source serves the NPU through a backend selected by a device value, selected so by the
repository). Only the entry that carries the field: a sub-module with its own entry and no Ascend side
(`liger_kernel.ops.cutile`, CUDA-only) stays reported.
"""

from __future__ import annotations

import re

from migrate import knowledge
from migrate.findings import FileResult
from migrate.sources import normalise

CODES = frozenset({"NPU501", "NPU507"})


def named_plugins(results: list[FileResult]) -> frozenset[str]:
    """The normalised names of everything the repository imports or declares (module roots and distributions) and of
    the images its Dockerfiles build on."""
    names: set[str] = set()
    for result in results:
        for fact in result.facts:
            if fact and fact[0] in ("imp", "req", "img") and isinstance(fact[1], str):
                names.add(normalise(fact[1]))
    return frozenset(names)


def plugin_packages(results: list[FileResult]) -> frozenset[str]:
    """The knowledge keys of the packages whose Ascend plugin (or NPU build) the repository names."""
    plugins = {key: normalise(entry.npu_plugin) for key, entry in knowledge.third_party().items() if entry.npu_plugin}
    if not plugins:
        return frozenset()
    named = named_plugins(results)
    return frozenset(key for key, plugin in plugins.items() if plugin in named)


# the NPU device runtime: a repository importing or requiring it runs its models on the NPU
_NPU_RUNTIME = "torch-npu"


def backend_packages(results: list[FileResult]) -> frozenset[str]:
    """The knowledge keys of the packages that pick their Ascend backend by the device, in a repository that runs on the
    NPU (it imports or requires torch_npu); empty otherwise."""
    keys = frozenset(key for key, entry in knowledge.third_party().items() if entry.npu_backend)
    if not keys or _NPU_RUNTIME not in named_plugins(results):
        return frozenset()
    return keys


# the module a NPU501 / NPU507 message opens with (`liger_kernel.ops.cutile` targets ...; `fla: `fla.ops.x.f` ...`): the
# finding's `package` is the top-level entry, the message names the module whose (longest) entry it was judged by
_NAMED_MODULE = re.compile(r"`([A-Za-z_][\w.]*)`")


def _entry_key(finding) -> str | None:
    """The knowledge key the finding was judged by: the longest entry of the module its message names."""
    from migrate.rules.npu501_gpu_only_import import match_package

    named = _NAMED_MODULE.search(finding.message)
    key = match_package(named.group(1), knowledge.third_party()) if named else None
    return key if key is not None and finding.package and (key + ".").startswith(finding.package + ".") else finding.package


def _of(package: str | None, keys: frozenset[str]) -> bool:
    return package is not None and any(package == key or package.startswith(key + ".") for key in keys)


def drop_plugin_routed(results: list[FileResult]) -> list[FileResult]:
    """NPU501 / NPU507 findings of a package whose Ascend plugin the repository names, or that picks its Ascend backend
    by the device in a repository running on the NPU (see above)."""
    if not any(f.code in CODES and f.package for r in results for f in r.findings):
        return results
    keys, backends = plugin_packages(results), backend_packages(results)
    if not keys and not backends:
        return results

    def routed(finding) -> bool:
        return finding.code in CODES and (_of(finding.package, keys) or (bool(backends) and _entry_key(finding) in backends))

    out = []
    for result in results:
        if any(routed(f) for f in result.findings):
            kept = tuple(f for f in result.findings if not routed(f))
            result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed,
                                result.facts)
        out.append(result)
    return out
