"""What the repository builds for Ascend is NPU code: its ops, libraries and packages are no CUDA extension.

An NPU-native operator library (SGLang's sgl-kernel-npu, label set 71a) registers its ops with the same C++ API as a
CUDA extension and loads its library the same way, but builds them with the Ascend toolchain:

    add_library(${OP_PLUGIN_NAME} SHARED pytorch_extensions.cpp ...)       # csrc/CMakeLists.txt
    target_link_libraries(${OP_PLUGIN_NAME} PRIVATE torch_npu ascendcl)     # Ascend's runtime: an Ascend build
    TORCH_LIBRARY_FRAGMENT(npu, m) { m.def("helloworld(Tensor x, Tensor y) -> Tensor"); }   # pytorch_extensions.cpp
    torch.ops.load_library(os.path.join(npu_path, "lib", "libsgl_kernel_npu.so"))           # the package
    torch.ops.npu.helloworld(x, y)                                                          # its tests
    pybind11_add_module(deep_ep_cpp pybind_extension.cpp ...)  + target_link_libraries(deep_ep_cpp ascendcl hccl)

A CMake file is an *Ascend build* when it links Ascend's runtime or torch_npu (`target_link_libraries` naming
`ascendcl`, `torch_npu`, `hccl`, `opapi`, `nnopbase`, `libascendcl.so`) or compiles with the AscendC toolchain
(`ascendc_library(...)`), and nothing in it is CUDA (no CUDA language, `cuda_add_*`, `find_package(CUDA|CUDAToolkit)`,
`CUDA::` target, `.cu` source or `cudart`). Facts of kind "ascbuild" (cached with the file): the targets it defines
(`${VAR}` read through the file's own `set(VAR name)`) and the C++ sources it names (their file names) or globs
(`file(GLOB S *.cpp)`: the folder). A C++ source is Ascend-built when an Ascend build in its own folder or above it
names or globs it, or when the source itself includes torch_npu's or ACL's headers and none of CUDA's (kind "ascsrc").

After the scan (label set 71a: the repository is NPU-native, 0 labels):
- NPU508 on `torch.ops.<ns>` where every registration of the namespace in the scan is an Ascend-built source (a CUDA
  registration anywhere, a `.cu` source or a CUDA dispatch key, keeps the namespace reported);
- NPU505 on `torch.ops.load_library(...)` in a file whose shared libraries (`lib<name>.so`) are all targets of Ascend
  builds;
- NPU501 / NPU507 / NPU510 on a catalogued package the repository builds for Ascend: a target of an Ascend build named
  like a catalogue root (`deep_ep_cpp`, DeepEP's CUDA extension in the catalogue), and the catalogued package folder of
  the scan (`deep_ep/__init__.py`) whose own files import that module. The repository's own NPU build wins over the
  catalogue, throughout the scan (its tests too). Kept: a name the scan also builds with CUDA.
"""
from __future__ import annotations

import os
import posixpath
import re

from migrate.findings import FileResult

KIND = "ascbuild"
SOURCE_KIND = "ascsrc"
_COMMENT = re.compile(r"#[^\n]*")
_ASCEND_LINK = re.compile(r"\btarget_link_libraries\s*\([^)]*?(?<![\w-])(?:lib)?(?:ascendcl|torch_npu|hccl|opapi|nnopbase)"
                          r"(?:\.so)?(?![\w-])", re.I)
_ASCENDC = re.compile(r"\bascendc_library\s*\(", re.I)
_CUDA = re.compile(r"\benable_language\s*\(\s*CUDA\b|\bproject\s*\([^)]*\bCUDA\b|\bcuda_add_\w+\s*\(|"
                   r"\bfind_package\s*\(\s*CUDA(?:Toolkit)?\b|\bCUDA::|\.cuh?\b|\bcudart\b|\bnvcc\b", re.I)
_TARGET = re.compile(r"\b(?:add_library|add_executable|pybind11_add_module|python_add_library|ascendc_library)"
                     r"\s*\(\s*(\$\{\w+\}|[\w.-]+)", re.I)
_SET = re.compile(r"\bset\s*\(\s*(\w+)\s+\"?([\w.-]+)\"?\s*\)", re.I)
_SOURCE = re.compile(r"([\w.+-]+\.(?:cpp|cc|cxx))\b")
_GLOB = re.compile(r"\bfile\s*\(\s*GLOB(?:_RECURSE)?\s+\w+([^)]*)\)", re.I)
_GLOB_PATTERN = re.compile(r"(?:^|\s)\"?((?:[\w.${}/-]*/)?)\*\.(?:cpp|cc|cxx)\b")
# a C++ source that includes torch_npu's or ACL's headers (`#include "torch_npu/csrc/..."`, `<acl/acl.h>`)
_NPU_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"](?:torch_npu/|acl/|aclnn/|acl\.h|aclnn_)", re.M)
_CUDA_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"](?:cuda|ATen/cuda/|c10/cuda/|cublas|cudnn|nccl)", re.M)
_DROPPED_CATALOGUE = frozenset({"NPU501", "NPU507", "NPU510"})


def facts(path: str, text: str) -> list:
    """A Definition(KIND, <targets>, path, line, False, <sources>) for an Ascend CMake build (see the module doc):
    targets space-separated; sources their file names, and `glob:<folder>` for each folder it globs C++ sources of
    (relative to the file's folder); a Definition(SOURCE_KIND, "", path, 1) for a C++ source including torch_npu /
    ACL headers and no CUDA header."""
    from migrate.repo_index import Definition

    if not path.endswith(("CMakeLists.txt", ".cmake")):
        if "#" in text and _NPU_INCLUDE.search(text) and not _CUDA_INCLUDE.search(text):
            return [Definition(SOURCE_KIND, "", path, 1, False)]
        return []
    lowered = text.lower()
    if not any(word in lowered for word in ("ascendcl", "torch_npu", "hccl", "opapi", "nnopbase", "ascendc_library")):
        return []
    code = _COMMENT.sub("", text)
    found = _ASCENDC.search(code) or _ASCEND_LINK.search(code)
    if found is None or _CUDA.search(code):
        return []
    values = {m.group(1): m.group(2) for m in _SET.finditer(code)}
    targets = []
    for match in _TARGET.finditer(code):
        name = match.group(1)
        if name.startswith("${"):
            name = values.get(name[2:-1], "")
        if name and name not in targets:
            targets.append(name)
    sources = sorted({posixpath.basename(s) for s in _SOURCE.findall(code)})
    for match in _GLOB.finditer(code):
        for folder in _GLOB_PATTERN.findall(match.group(1)):
            folder = folder.replace("${CMAKE_CURRENT_SOURCE_DIR}", "").replace("${CMAKE_CURRENT_LIST_DIR}", "").strip("/")
            if "$" not in folder:
                sources.append("glob:" + (folder or "."))
    if not targets:
        return []
    return [Definition(KIND, " ".join(targets), path, code.count("\n", 0, found.start()) + 1, False, " ".join(sources))]


def _folder(path: str) -> str:
    return posixpath.normpath(posixpath.dirname(path.replace("\\", "/")) or ".")


def _defs(result: FileResult, kind: str):
    return [fact for fact in getattr(result, "facts", ()) or () if fact[0] == "def" and fact[1] == kind]


class _Builds:
    """The scan's Ascend builds: their targets, and which C++ sources they build."""

    def __init__(self, results: list[FileResult]):
        self.targets: set[str] = set()
        self.named: dict[str, list[str]] = {}  # source file name -> folders of the Ascend builds naming it
        self.globbed: set[str] = set()  # folders whose C++ sources an Ascend build globs
        self.sources: set[str] = set()  # C++ sources including torch_npu / ACL headers (SOURCE_KIND)
        for result in results:
            for fact in _defs(result, KIND):
                self.targets.update(fact[2].split())
                folder = _folder(result.path)
                for source in (fact[5] if len(fact) > 5 else "").split():
                    if source.startswith("glob:"):
                        self.globbed.add(posixpath.normpath(posixpath.join(folder, source[5:])))
                    else:
                        self.named.setdefault(source, []).append(folder)
            if _defs(result, SOURCE_KIND):
                self.sources.add(result.path)

    def __bool__(self) -> bool:
        return bool(self.targets)

    def builds(self, path: str) -> bool:
        """The C++ source at `path` is built by an Ascend build (or includes only NPU headers)."""
        if path in self.sources:
            return True
        folder = _folder(path)
        if folder in self.globbed:
            return True
        for owner in self.named.get(posixpath.basename(path.replace("\\", "/")), ()):
            if owner == "." or folder == owner or folder.startswith(owner + "/"):
                return True
        return False


def _npu_namespaces(results: list[FileResult], builds: _Builds) -> set[str]:
    """Op namespaces every registration of which is an Ascend-built C++ source (none CUDA)."""
    verdict: dict[str, bool] = {}
    for result in results:
        for fact in _defs(result, "namespace"):
            npu = not fact[4] and not result.path.endswith((".cu", ".cuh")) and builds.builds(result.path)
            verdict[fact[2]] = verdict.get(fact[2], True) and npu
    return {name for name, npu in verdict.items() if npu}


def _npu_packages(results: list[FileResult], builds: _Builds) -> set[str]:
    """Catalogued names the repository builds for Ascend, and its catalogued package folders importing them."""
    from migrate.own_package import _roots

    roots = _roots()
    built = {t for t in builds.targets if t in roots}
    if not built:
        return set()
    cuda = {fact[2].split(".")[0] for r in results for fact in _defs(r, "module") if fact[4]}
    built -= cuda
    if not built:
        return set()
    paths = [os.path.normpath(r.path) for r in results]
    packages = {os.path.dirname(p) for p in paths if os.path.basename(p) == "__init__.py"
                and os.path.basename(os.path.dirname(p)) in roots}
    out = set(built)
    for result in results:
        path = os.path.normpath(result.path)
        for package in packages:
            if path.startswith(package + os.sep) and any(
                    fact[0] == "imp" and fact[1] in built for fact in getattr(result, "facts", ()) or ()):
                out.add(os.path.basename(package))
    return out - cuda


def _libraries(result: FileResult) -> set[str]:
    return {fact[1][3:] for fact in getattr(result, "facts", ()) or () if fact[0] == "ref" and fact[1].startswith("so:")}


def drop_npu_built(results: list[FileResult]) -> list[FileResult]:
    """`results` less the findings on what the repository builds for Ascend (see the module doc)."""
    if not any(_defs(r, KIND) for r in results if r.path.endswith(("CMakeLists.txt", ".cmake"))):
        return results
    builds = _Builds(results)
    if not builds:
        return results
    from migrate.rules.npu505_cuda_extension import _LOAD_LIBRARY_MESSAGE

    namespaces = {"torch.ops." + ns for ns in _npu_namespaces(results, builds)}
    packages = _npu_packages(results, builds)

    def keep(result):
        libraries = _libraries(result)
        loads_npu = bool(libraries) and libraries <= builds.targets

        def keeps(f) -> bool:
            if f.code == "NPU508" and f.package in namespaces:
                return False
            if f.code == "NPU505" and loads_npu and f.message == _LOAD_LIBRARY_MESSAGE:
                return False
            return not (f.code in _DROPPED_CATALOGUE and f.package and f.package.split(".", 1)[0] in packages)
        return keeps

    return [r.keeping(keep(r)) if r.findings else r for r in results]
