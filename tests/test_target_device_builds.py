"""A CUDA-target-only CMake engine whose absence the runtime answers with an engine that has an NPU side is no work
item (migrate/target_device_builds.py, label rule 36e-1)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_SETUP = ("import os\nfrom setuptools import setup\n\n\ndef get_target_device():\n"
          "    return os.getenv('MYPROJ_TARGET_DEVICE', 'cuda')\n\n\n"
          "if get_target_device() == 'cuda':\n    import cmake_build_extension\n\n"
          "    ext_modules = [cmake_build_extension.CMakeExtension(name='_engine', source_dir='.')]\n"
          "else:\n    ext_modules = []\n\n"
          "setup(name='myproj', install_requires=open(f'requirements/runtime_{get_target_device()}.txt').read().split(),\n"
          "      ext_modules=ext_modules)\n")
_CMAKE = ("cmake_minimum_required(VERSION 3.18)\nproject(eng LANGUAGES CXX CUDA)\n"
          "set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} --expt-extended-lambda\")\n"
          "add_library(kern STATIC src/kern.cu)\npybind11_add_module(_engine src/bind.cpp)\n"
          "target_link_libraries(_engine PRIVATE kern)\n")
_SELECTOR = ("def get_backend(device_type):\n    if device_type == 'cuda':\n        from .cuda import CudaBackend\n"
             "        return CudaBackend\n    if device_type == 'ascend':\n        from .ascend import AscendBackend\n"
             "        return AscendBackend\n")
_ARCHS = ("def pick_backend(model):\n    try:\n        from myproj.engine.supported import is_supported\n"
          "        return 'engine' if is_supported(model) else 'python'\n    except ImportError:\n        return 'python'\n")


def _files(**changes):
    files = {
        "setup.py": _SETUP,
        "requirements/runtime_cuda.txt": "torch\n",
        "requirements/runtime_ascend.txt": "torch\n",
        "CMakeLists.txt": _CMAKE,
        "src/kern.cu": "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n",
        "src/bind.cpp": "int f() { return 0; }\n",
        "myproj/__init__.py": "",
        "myproj/archs.py": _ARCHS,
        "myproj/engine/__init__.py": "from .engine import Engine\n",
        "myproj/engine/engine.py": "import _engine\n\n\nclass Engine:\n    def run(self, x):\n        return _engine.run(x)\n",
        "myproj/engine/supported.py": "def is_supported(model):\n    return True\n",
        "myproj/backends/__init__.py": "",
        "myproj/backends/selector.py": _SELECTOR,
        "myproj/backends/cuda/__init__.py": "class CudaBackend:\n    pass\n",
        "myproj/backends/ascend/__init__.py": "class AscendBackend:\n    pass\n",
    }
    files.update(changes)
    return {k: v for k, v in files.items() if v is not None}


def _scan(tmp_path, **changes):
    write_files(tmp_path, _files(**changes))
    return scan([str(tmp_path)], use_cache=False)


def test_a_cuda_target_engine_with_an_npu_fallback_is_not_reported(tmp_path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "CMakeLists.txt") == []
    assert finding_lines(result, "NPU506", "src/kern.cu") == []
    assert finding_lines(result, "NPU508", "myproj/engine/engine.py") == []


def test_without_an_npu_target_value_the_engine_stays_reported(tmp_path):
    # only a CUDA requirements file: the target variable has no NPU value
    result = _scan(tmp_path, **{"requirements/runtime_ascend.txt": None})
    assert finding_lines(result, "NPU511", "CMakeLists.txt") != []
    assert finding_lines(result, "NPU508", "myproj/engine/engine.py") == [1, 6]


def test_a_hard_import_of_the_engine_stays_reported(tmp_path):
    # the runtime imports the engine's package without a fallback
    result = _scan(tmp_path, **{"myproj/archs.py": "from myproj.engine.supported import is_supported\n"})
    assert finding_lines(result, "NPU506", "src/kern.cu") == [1]
    assert finding_lines(result, "NPU508", "myproj/engine/engine.py") == [1, 6]


def test_without_an_npu_side_in_the_device_dispatch_the_engine_stays_reported(tmp_path):
    result = _scan(tmp_path, **{"myproj/backends/ascend/__init__.py": None})
    assert finding_lines(result, "NPU511", "CMakeLists.txt") != []
    assert finding_lines(result, "NPU506", "src/kern.cu") == [1]
