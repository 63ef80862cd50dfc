from migrate.findings import Category, Severity
from migrate.repo_index import CMAKE_COMMENT, CMAKE_CUDA_LANGUAGE, cmake_defs
from migrate.rules.base import Invalid, Rule, Valid


class CmakeCudaBuild(Rule):
    """A CMakeLists.txt that compiles CUDA with nvcc, which cannot target an Ascend NPU: the line that
    switches CMake's CUDA language on (`project(x LANGUAGES CUDA CXX)`, `enable_language(CUDA)`,
    `find_package(CUDA)`; not `find_package(CUDAToolkit)`, which only locates the toolkit's libraries for
    linking and compiles nothing with nvcc), each CUDA target (`cuda_add_library(...)`,
    `add_library(lib a.cu ...)`, `pybind11_add_module(m k.cu)`, or a shared library / Python module in a
    CUDA project: the targets `repo_index.cmake_defs` links Python imports to) and, inside a target
    written over several lines, each further line that names a `.cu` / `.cuh` source. The same lines
    as NPU505 reports in a setup.py build (the call, each `.cu` line); the kernels themselves are
    NPU506's. Comments are not read. There is no automatic rewrite: the kernels are ported to Ascend C
    and built with the CANN toolchain (or replaced by torch / torch_npu ops)."""

    CODE = "NPU511"
    NAME = "cmake-cuda-build"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("cpp-source",)
    TRIGGERS = ("CUDA", ".cu")
    MESSAGE = "a CMake build that compiles CUDA (nvcc) cannot target an Ascend NPU; port the kernels to Ascend C"
    VALID = [
        Valid("project(x LANGUAGES CXX)\nadd_library(core STATIC a.cpp b.cpp)\n", kind="cpp-source", filename="CMakeLists.txt"),
        Valid("# project(x LANGUAGES CUDA)\n# add_library(k k.cu)\nadd_library(core a.cpp)\n", kind="cpp-source",
              filename="CMakeLists.txt"),
        Valid("// add_library(k k.cu) in a C++ file is no build\nint f();\n", kind="cpp-source", filename="ops.cpp"),
        # SIBR viewer (Scaffold-GS): FindCUDAToolkit links the CUDA runtime to a C++ library; nvcc compiles nothing
        Valid("project(sibr_gaussian LANGUAGES CXX)\nfind_package(CUDAToolkit REQUIRED)\nadd_library(viewer SHARED a.cpp)\n"
              "target_link_libraries(viewer CUDA::cudart)\n", kind="cpp-source", filename="CMakeLists.txt"),
    ]
    INVALID = [
        # graphdeco-inria/diff-gaussian-rasterization CMakeLists.txt: the language, the target, each .cu line
        Invalid("project(DiffRast LANGUAGES CUDA CXX)\nadd_library(CudaRasterizer\n\tcuda_rasterizer/backward.h\n"
                "\tcuda_rasterizer/backward.cu\n\tcuda_rasterizer/forward.cu\n)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=4),
        Invalid("find_package(CUDA REQUIRED)\ncuda_add_library(gpu_ops SHARED ops.cu)\n", kind="cpp-source",
                filename="CMakeLists.txt", count=2),
        Invalid("add_library(k SHARED\n  a.cu b.cu  # two on one line\n  c.cpp)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=2),
        Invalid("cmake_minimum_required(VERSION 3.18)\nenable_language(CUDA)\npybind11_add_module(_ext bind.cpp)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=2),
        # k2-fsa/fast_rnnt fast_rnnt/csrc/CMakeLists.txt: the sources are a variable assembled above the target (the CUDA
        # language is switched on in the top-level CMakeLists.txt); the target and each line naming a .cu
        Invalid("set(srcs\n  mi_cpu.cu\n)\nif(NOT WITH_CUDA)\n  transform(OUTPUT_VARIABLE srcs SRCS ${srcs})\nelse()\n"
                "  list(APPEND srcs mi_cuda.cu)\nendif()\nadd_library(mi_core ${srcs})\n", kind="cpp-source",
                filename="CMakeLists.txt", count=3),
    ]

    def check(self, ctx):
        if not ctx.path.replace("\\", "/").endswith("CMakeLists.txt"):
            return
        lines = ctx.lines
        code = CMAKE_COMMENT.sub("", ctx.source)
        for match in CMAKE_CUDA_LANGUAGE.finditer(code):
            number = code.count("\n", 0, match.start()) + 1
            yield self.finding(ctx, self._span(lines, number), "switches CMake's CUDA language (nvcc) on: " + self.MESSAGE)
        for target in cmake_defs(ctx.path, ctx.source):
            yield self.finding(ctx, self._span(lines, target.line), f"builds `{target.name}` with CUDA: " + self.MESSAGE)
            start, seen = target.line, {target.line}
            for source in target.why.split():
                number = next((n for n in range(start, len(lines) + 1) if source in lines[n - 1].split("#", 1)[0]), None) \
                    or next((n for n in range(1, start) if source in lines[n - 1].split("#", 1)[0]), None)  # a `set(srcs ...)` list above
                if number is None:
                    continue
                start = number
                if number not in seen:
                    seen.add(number)
                    yield self.finding(ctx, self._span(lines, number), f"CUDA source `{source}` of `{target.name}`: " + self.MESSAGE)

    @staticmethod
    def _span(lines, number):
        text = lines[number - 1].rstrip("\r\n") if 0 < number <= len(lines) else ""
        indent = len(text) - len(text.lstrip())
        return (number, indent, number, len(text))
