"""A vendored library's own example folder that nothing of the repository builds is no work item
(migrate/vendored_examples.py)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
          "setup(name='fft', ext_modules=[CUDAExtension('fft', ['fft.cpp', 'fft_cuda.cu'],\n"
          "      include_dirs=['sdk/22.02/include'])], cmdclass={'build_ext': BuildExtension})\n")
_EXAMPLES = ("cmake_minimum_required(VERSION 3.18)\nproject(SdkExamples LANGUAGES CXX CUDA)\n"
             "add_executable(simple_fft simple_fft.cu)\n")
_KERNEL = "__global__ void k(float* x) { x[0] = 1; }\n"


def _tree(tmp_path, license_file=True):
    files = {"csrc/fft/setup.py": _SETUP, "csrc/fft/fft_cuda.cu": _KERNEL, "csrc/fft/fft.cpp": "int f();\n",
             "csrc/fft/sdk/22.02/include/sdk.hpp": "#pragma once\n",
             "csrc/fft/sdk/22.02/example/CMakeLists.txt": _EXAMPLES, "csrc/fft/sdk/22.02/example/simple_fft.cu": _KERNEL}
    if license_file:
        files["csrc/fft/sdk/22.02/LICENSE.txt"] = "SDK license\n"
    write_files(tmp_path, files)
    return scan([str(tmp_path)], use_cache=False)


def test_a_vendored_sdks_examples_are_not_reported(tmp_path):
    result = _tree(tmp_path)
    assert finding_lines(result, "NPU511", "example/CMakeLists.txt") == []
    assert finding_lines(result, "NPU506", "example/simple_fft.cu") == []
    assert finding_lines(result, "NPU506", "fft/fft_cuda.cu") == [1]  # the project's own kernel stays


def test_a_projects_own_examples_and_a_reached_example_folder_stay_reported(tmp_path):
    # no license file of its own: the folder is the project's, not another project's tree
    result = _tree(tmp_path, license_file=False)
    assert finding_lines(result, "NPU511", "example/CMakeLists.txt") != []
    assert finding_lines(result, "NPU506", "example/simple_fft.cu") == [1]
    # the project's CMake build adds the vendored examples: they are built
    write_files(tmp_path, {"csrc/fft/sdk/22.02/LICENSE.txt": "SDK license\n",
                           "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\n"
                                             "add_subdirectory(csrc/fft/sdk/22.02/example)\n"})
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU511", "example/CMakeLists.txt") != []
    assert finding_lines(result, "NPU506", "example/simple_fft.cu") == [1]
