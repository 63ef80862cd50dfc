"""The CUDA side of a setup.py with an NPU build branch is not reported (migrate/npu_build_branch.py); a CUDA file named
only in a C++ comment is not built (migrate/cuda_builds.py `mentions`)."""
from __future__ import annotations

from migrate.cuda_builds import mentions
from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_SETUP = """import glob
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension


def extensions():
    sources = glob.glob("./pkg/csrc/*.cpp")
    args = {"cxx": []}
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        args["nvcc"] = ["-O3"]
        sources += glob.glob("./pkg/csrc/cuda/*.cu")
        extension = CUDAExtension
    elif os.getenv("FORCE_NPU", "0") == "1":
        from torch_npu.utils.cpp_extension import NpuExtension
        sources += glob.glob("./pkg/csrc/npu/*.cpp")
        extension = NpuExtension
    else:
        extension = CppExtension
    if "nvcc" in args:
        args["nvcc"] += ["-std=c++17"]
    return [extension(name="pkg._ext", sources=sources, extra_compile_args=args)]


setup(name="pkg", ext_modules=extensions(), cmdclass={"build_ext": BuildExtension})
"""
_FILES = {
    "pkg/__init__.py": "",
    "pkg/csrc/cuda/roi_cuda.cu": "#include \"roi_kernel.cuh\"\n__global__ void roi(float* x) { x[0] = 1; }\n",
    "pkg/csrc/cuda/roi_kernel.cuh": "#pragma once\n__global__ void roi_k(float* x) { x[0] = 2; }\n",
    "pkg/csrc/npu/roi_npu.cpp": "// the CUDA version is pkg/csrc/cuda/roi_cuda.cu\nint roi_npu() { return 0; }\n",
    "pkg/csrc/mlu/roi_mlu.cpp": "/* follows other_cuda.cu */\nint roi_mlu() { return 0; }\n",
    "pkg/csrc/cuda/other_cuda.cu": "__global__ void other(float* x) { x[0] = 3; }\n",
}


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False)


def test_the_cuda_side_of_a_setup_with_an_npu_build_branch_is_not_reported(tmp_path):
    write_files(tmp_path, {"setup.py": _SETUP, **_FILES})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "setup.py") == []
    for path in ("pkg/csrc/cuda/roi_cuda.cu", "pkg/csrc/cuda/roi_kernel.cuh", "pkg/csrc/cuda/other_cuda.cu"):
        assert finding_lines(result, "NPU506", path) == []


def test_a_build_chain_without_an_npu_build_stays_reported(tmp_path):
    # the NPU branch only stops the build: no torch_npu extension class is built there
    setup = _SETUP.replace("        from torch_npu.utils.cpp_extension import NpuExtension\n", "").replace(
        "extension = NpuExtension", "raise RuntimeError('no NPU build')")
    write_files(tmp_path, {"setup.py": setup, **_FILES})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "setup.py") != []
    assert finding_lines(result, "NPU506", "pkg/csrc/cuda/roi_cuda.cu") == [1]


def test_a_cuda_file_named_in_a_cpp_comment_is_not_named():
    assert mentions("// see cuda/k.cu\n/* and\n other.cuh */\nint x;\n", "src/k_mlu.cpp") == []
    assert mentions('#include "k.cuh"  // k.cu holds the launch\n', "src/k.cu") == ["cu:k.cuh"]
    assert mentions('const char* s = "http://x//k.cu";\n', "src/a.cpp") == ["cu:k.cu"]
    assert mentions("# see cuda/k.cu\n", "setup.py") == ["cu:cuda/k.cu"]
