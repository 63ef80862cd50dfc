"""A CMake target never claims a standard-library module (migrate/repo_index.py `Index.module_for`)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files


def test_a_cmake_target_named_like_a_stdlib_module_is_not_its_import(tmp_path):
    # a C++ engine's kernel library `copy` (add_library of .cu sources) beside Python code using the stdlib `copy`;
    # its pybind module `_engine` stays the repository's extension
    write_files(tmp_path, {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(eng LANGUAGES CXX CUDA)\nadd_subdirectory(kernels/copy)\n"
                          "pybind11_add_module(_engine bind.cpp)\n",
        "kernels/copy/CMakeLists.txt": "add_library(copy STATIC copy.cc copy.cu)\n",
        "kernels/copy/copy.cu": "__global__ void k() {}\n",
        "bind.cpp": "int f() { return 0; }\n",
        "pkg/engine.py": "import copy\n\nimport _engine\n\n\ndef run(x):\n    return _engine.run(copy.deepcopy(x))\n",
    })
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU508", "pkg/engine.py") == [3, 7]
