"""A vendored CMake Find module that no CMake file of the scan pulls in is no work item (migrate/cmake_find_modules.py)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_FIND_CUDA = ("find_library(CUDA_CUDART_LIBRARY cudart PATHS ${CUDA_TOOLKIT_ROOT_DIR}/lib64)\n"
              "set(CUDA_LIBRARIES ${CUDA_CUDART_LIBRARY})\n"
              "target_link_libraries(foo ${CUDA_CUBLAS_LIBRARIES})\n")


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False)


def test_a_find_module_whose_find_package_is_commented_out_is_not_reported(tmp_path):
    # a C++ extension's CMake project vendoring FindCUDA.cmake with its `find_package(CUDA REQUIRED)` commented out;
    # FindTorch.cmake is pulled in by `find_package(Torch)`, FindTRT.cmake by an include of its path
    write_files(tmp_path, {
        "CMakeLists.txt": ("cmake_minimum_required(VERSION 3.18)\nproject(tri LANGUAGES CXX)\n"
                           "set(CMAKE_MODULE_PATH \"${CMAKE_SOURCE_DIR}/cmake\" ${CMAKE_MODULE_PATH})\n"
                           "find_package(Torch REQUIRED)\n# find_package(CUDA REQUIRED)\n"
                           "include(${CMAKE_SOURCE_DIR}/cmake/FindTRT.cmake)\nadd_library(tri SHARED tri.cpp)\n"),
        "cmake/FindCUDA.cmake": _FIND_CUDA,
        "cmake/FindTorch.cmake": _FIND_CUDA,
        "cmake/FindTRT.cmake": _FIND_CUDA,
        "tri.cpp": "int f() { return 0; }\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "cmake/FindCUDA.cmake") == []
    assert finding_lines(result, "NPU511", "cmake/FindTorch.cmake") == [1, 3]
    assert finding_lines(result, "NPU511", "cmake/FindTRT.cmake") == [1, 3]


def test_a_find_module_without_a_cmake_build_in_the_scan_stays_reported(tmp_path):
    # no CMakeLists.txt: the build that would run the module is not in the scan
    write_files(tmp_path, {"cmake/FindCUDA.cmake": _FIND_CUDA})
    assert finding_lines(_scan(tmp_path), "NPU511", "cmake/FindCUDA.cmake") == [1, 3]
