"""A nested CMakeLists.txt that the top-level CMake build never adds builds nothing (migrate/cmake_subdirs.py)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_STALE = ("set(SOURCES\n\told_kernels.cu\n\tnetwork.cu\n)\nadd_library(net STATIC ${SOURCES})\n"
          "target_link_libraries(net PUBLIC ${CUDA_LIBRARIES} cublas)\n")
_ROOT = ("cmake_minimum_required(VERSION 3.18)\nproject(net LANGUAGES CXX CUDA)\n"
         "add_library(net STATIC src/network.cu)\nadd_subdirectory(\"samples\")\n")
_SAMPLE = "add_executable(demo demo.cu)\n"


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False)


def test_a_stale_nested_cmakelists_the_top_level_never_adds_is_not_reported(tmp_path):
    # the top-level build compiles src/*.cu itself and adds only samples/; src/CMakeLists.txt is a leftover
    write_files(tmp_path, {"CMakeLists.txt": _ROOT, "src/CMakeLists.txt": _STALE, "src/network.cu": "__global__ void k() {}\n",
                           "samples/CMakeLists.txt": _SAMPLE, "samples/demo.cu": "__global__ void d() {}\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "src/CMakeLists.txt") == []
    assert finding_lines(result, "NPU511", "samples/CMakeLists.txt") == [1]
    assert finding_lines(result, "NPU511", "CMakeLists.txt") != []


def test_nested_builds_stay_reported_when_reached_hidden_or_standalone(tmp_path):
    # added through the source-dir variable; a folder hidden behind a loop variable keeps every file; a nested build
    # with its own project() may be configured directly (`cmake csrc` from a setup.py)
    write_files(tmp_path, {"CMakeLists.txt": "project(a LANGUAGES CXX CUDA)\nadd_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/src)\n",
                           "src/CMakeLists.txt": _STALE,
                           "csrc/CMakeLists.txt": "project(ext LANGUAGES CXX CUDA)\nadd_library(ext SHARED k.cu)\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "src/CMakeLists.txt") != []
    assert finding_lines(result, "NPU511", "csrc/CMakeLists.txt") != []
    write_files(tmp_path, {"CMakeLists.txt": "project(a LANGUAGES CXX CUDA)\nforeach(d ${DIRS})\n  add_subdirectory(${d})\nendforeach()\n",
                           "other/CMakeLists.txt": _SAMPLE})
    assert finding_lines(_scan(tmp_path), "NPU511", "other/CMakeLists.txt") == [1]


def test_without_a_top_level_cmakelists_nested_ones_stay_reported(tmp_path):
    write_files(tmp_path, {"src/CMakeLists.txt": _STALE})
    assert finding_lines(_scan(tmp_path), "NPU511", "src/CMakeLists.txt") != []
