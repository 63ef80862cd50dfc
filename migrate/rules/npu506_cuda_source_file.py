import re

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule, Valid

_KERNEL = re.compile(r"\b__global__\b")


class CudaSourceFile(Rule):
    """A `.cu` / `.cuh` file is CUDA C++ compiled by nvcc: it cannot be built for an Ascend NPU. A header named for
    nvcc, `.cu.h` / `.cu.hpp` (spconv 1.x `include/spconv/indice.cu.h`), is still read as a CUDA file by the scan (migrate/sources.py)
    but is not reported itself: the labelling rule names the `.cu` / `.cuh`
    files, and its kernels are ported with the built `.cu` that includes it, reported there (label notes 54-spconv and
    61e-spconv read the rule so on the same three headers; 27c-5 had labelled them); a plain `.h` is not read.
    Reported once per file, at line 1, with the number of `__global__` kernels found by a plain
    text count (comments included); each kernel must be rewritten as an Ascend C operator (or
    replaced by torch / torch_npu ops) and registered with torch_npu. A file that no build, include or script of the scan
    names is not reported (migrate/cuda_builds.py); a bare name (`#include "k.cuh"`, `os.path.join(root_dir, "k.cu")` in
    a `load()`) names the copies in the naming file's folder or below it where there are any: a vendored op's second
    copy of its kernels beside the built one, which nothing builds or includes, is not reported (label note 44c c-3). In a repository whose own accelerator abstraction
    has an NPU side (an NPU accelerator class and a CUDA one returning op-builder modules, both built by one factory),
    the CUDA builders, the files only they build (a script listing `*.cu` for a tool builds none) and the uses of what
    they define are the abstraction's CUDA side: not reported; a builder module imported directly by non-test code stays
    (label ruling (L50), migrate/accelerator_builders.py). So is a registry of per-device extension classes picked
    by `is_available()` (`REGISTRY = [AttnNpuExtension, AttnCudaExtension]` in a loader that keeps the available
    ones) with an NPU / Ascend entry of the scan: inside the bodies of its CUDA entries (a CUDA word in the class name
    or a base's, `LayerNormCudaExtension(_CudaExtension)`) and of their CUDA-named bases nothing is reported (NPU505
    builds, flash_attn imports), nor NPU506 of the files only their files build, nor NPU505 in the functions of a
    helper module they import that no other file imports by name (label ruling (L50) in general form, label rule
    37e-1, migrate/extension_registry.py). A CMake engine that setup.py builds only for a CUDA install target (`if get_target_device() == "cuda":`
    `ext_modules = [CMakeExtension(...)]`, `else: ext_modules = []`, an NPU value of that target beside it), whose
    package the runtime imports in a `try:` falling back on ImportError, in a repository whose device dispatch has an
    NPU side, is the CUDA side of that chain: its CMake lines (NPU511), the CUDA files only it builds (NPU506) and
    the uses of its extensions (NPU508) are not reported (label rule 36e-1, migrate/target_device_builds.py). Nor are
    the CUDA files that only a setup.py with an NPU build branch builds (`elif os.getenv("FORCE_NPU") == "1":` building
    `NpuExtension`; migrate/npu_build_branch.py, NPU505), nor those that only a run-time build taken only for CUDA
    tensors with a plain-PyTorch path for other devices builds (label ruling (L103), migrate/device_gated_builds.py,
    NPU505). A CUDA file named only in a comment of a C / C++ / CUDA source
    (`// see pytorch/cuda/k.cu for the layout` in another device's implementation) is named for the reader: that names
    nothing (migrate/cuda_builds.py `mentions`)."""

    CODE = "NPU506"
    NAME = "cuda-source-file"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("cuda-source",)
    MESSAGE = "CUDA source file: it cannot be compiled for an Ascend NPU; port it to Ascend C or replace it with torch ops"
    VALID = ["# a Python file that mentions kernel.cu and __global__",
             Valid("#pragma once\n__global__ void gather(float* a) { a[0] = 1; }\n", kind="cuda-source", filename="indice.cu.h")]
    INVALID = [
        Invalid("__global__ void add(float* a) { a[0] += 1; }\n", kind="cuda-source", count=1),
        Invalid("#pragma once\n__device__ inline float sq(float x) { return x * x; }\n", kind="cuda-source", filename="util.cuh"),
        Invalid("", kind="cuda-source", count=1),
    ]

    def check(self, ctx):
        if ctx.path.endswith((".cu.h", ".cu.hpp")):
            return
        kernels = len(_KERNEL.findall(ctx.source))
        lines = ctx.lines
        first = lines[0].rstrip("\r\n") if lines else ""
        message = self.MESSAGE
        if kernels:
            message = f"CUDA source file with {kernels} `__global__` kernel{'s' if kernels != 1 else ''}: " + message.split(": ", 1)[1]
        yield self.finding(ctx, (1, 0, 1, len(first)), message)
