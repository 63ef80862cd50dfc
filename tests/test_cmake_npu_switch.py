"""The CUDA side of a CMake build with an NPU switch is not reported (migrate/cmake_npu_switch.py)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_SWITCHED = ("cmake_minimum_required(VERSION 3.18)\nproject(cache LANGUAGES CXX)\n"
             "option(CACHE_USE_NPU \"build for the Ascend NPU\" OFF)\n"
             "if(CACHE_USE_NPU)\n  add_definitions(-DCACHE_USE_NPU=1)\nelse()\n  find_package(CUDA REQUIRED)\nendif()\n"
             "add_subdirectory(src)\npybind11_add_module(cache_ext src/bind.cpp)\n")
_SRC = ("add_library(stream stream.cpp)\nif(CACHE_USE_NPU)\n  target_link_libraries(stream PUBLIC ascendcl)\nelse()\n"
        "  target_include_directories(stream PUBLIC ${CUDAToolkit_INCLUDE_DIRS})\n"
        "  target_link_libraries(stream PUBLIC CUDA::cudart)\nendif()\n")
_USE = "import cache_ext\n\ncache = cache_ext.create(16)\n"


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False)


def test_the_cuda_side_of_a_build_with_an_npu_switch_is_not_reported(tmp_path):
    write_files(tmp_path, {"CMakeLists.txt": _SWITCHED, "src/CMakeLists.txt": _SRC, "src/bind.cpp": "int x;\n",
                           "test/test_cache.py": _USE})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "CMakeLists.txt") == []
    assert finding_lines(result, "NPU511", "src/CMakeLists.txt") == []
    assert finding_lines(result, "NPU508", "test/test_cache.py") == []


def test_a_build_without_an_npu_entry_or_a_subproject_of_its_own_stays_reported(tmp_path):
    # a CUDA/ROCm chain only; and a vendored subproject (its own project()) below a switched build
    chain = _SWITCHED.replace("CACHE_USE_NPU", "CACHE_USE_ROCM").replace("ascendcl", "amdhip64")
    write_files(tmp_path, {"CMakeLists.txt": chain, "src/CMakeLists.txt": _SRC.replace("CACHE_USE_NPU", "CACHE_USE_ROCM"),
                           "src/bind.cpp": "int x;\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "CMakeLists.txt") != []
    assert finding_lines(result, "NPU511", "src/CMakeLists.txt") != []
    write_files(tmp_path, {"CMakeLists.txt": _SWITCHED + "add_subdirectory(third_party/kern)\n",
                           "third_party/kern/CMakeLists.txt": "project(kern LANGUAGES CXX CUDA)\nadd_library(kern SHARED k.cu)\n",
                           "third_party/kern/k.cu": "__global__ void k() {}\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "third_party/kern/CMakeLists.txt") != []


# a native library built per backend, the CPU one by default (what an NPU host loads), beside torch.library ops whose
# "default" kernels are plain PyTorch (migrate/default_kernels.py, ruling (L88))
_BACKENDS = ("cmake_minimum_required(VERSION 3.22)\nproject(qlib LANGUAGES CXX)\n"
             "set(COMPUTE_BACKEND \"cpu\" CACHE STRING \"cpu or cuda\")\n"
             "if(${COMPUTE_BACKEND} STREQUAL \"cuda\")\n  enable_language(CUDA)\n  set(SRC csrc/ops.cu)\n"
             "else()\n  set(SRC csrc/cpu_ops.cpp)\nendif()\nadd_library(qlib SHARED ${SRC})\n")
_DEFAULT_OPS = ("import torch\n\ntorch.library.define(\"qlib::absmax\", \"(Tensor A) -> Tensor\")\n\n\n"
                "@torch.library.register_kernel(\"qlib::absmax\", \"default\")\n"
                "def _(A):\n    return A.abs().amax(-1)\n")


def test_the_cuda_side_of_a_cpu_backend_switch_is_not_reported_where_the_ops_run_anywhere(tmp_path):
    write_files(tmp_path, {"CMakeLists.txt": _BACKENDS, "csrc/ops.cu": "__global__ void k() {}\n",
                           "csrc/cpu_ops.cpp": "int x;\n", "qlib/__init__.py": "", "qlib/_ops.py": _DEFAULT_OPS})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "CMakeLists.txt") == []
    assert finding_lines(result, "NPU506", "csrc/ops.cu") == []


def test_a_cpu_backend_switch_without_ops_for_any_device_stays_reported(tmp_path):
    write_files(tmp_path, {"CMakeLists.txt": _BACKENDS, "csrc/ops.cu": "__global__ void k() {}\n",
                           "csrc/cpu_ops.cpp": "int x;\n", "qlib/__init__.py": "",
                           "qlib/_ops.py": _DEFAULT_OPS.replace("\"default\"", "\"cuda\"")})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "CMakeLists.txt") != []
    assert finding_lines(result, "NPU506", "csrc/ops.cu") == [1]


# the C++ interface every backend builds includes the CUDA header only under the macro the CUDA choice defines
_BACKENDS_WITH_INTERFACE = _BACKENDS.replace("set(SRC csrc/ops.cu)", "set(SRC csrc/ops.cu csrc/interface.cpp)\n"
                                             "  add_compile_definitions(BUILD_CUDA)").replace(
    "set(SRC csrc/cpu_ops.cpp)", "set(SRC csrc/cpu_ops.cpp csrc/interface.cpp)")


def test_a_cuda_header_the_shared_interface_includes_only_under_the_cuda_macro_goes_with_the_cuda_choice(tmp_path):
    # bitsandbytes' csrc/pythonInterface.cpp, compiled for every backend: `#if BUILD_CUDA` / `#include <ops.cuh>`;
    # the CPU build (what the NPU host loads) never reads ops.cuh. An include outside such a block is built by all.
    interface = "#if BUILD_CUDA\n#include <ops.cuh>\n#endif\n#include <cpu_ops.h>\n#include \"common.cuh\"\n"
    write_files(tmp_path, {"CMakeLists.txt": _BACKENDS_WITH_INTERFACE, "csrc/ops.cu": "#include <ops.cuh>\n",
                           "csrc/ops.cuh": "__global__ void k();\n", "csrc/common.cuh": "__device__ int f();\n",
                           "csrc/interface.cpp": interface, "csrc/cpu_ops.cpp": "int x;\n",
                           "qlib/__init__.py": "", "qlib/_ops.py": _DEFAULT_OPS})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU506", "csrc/ops.cuh") == []
    assert finding_lines(result, "NPU506", "csrc/common.cuh") == [1]
