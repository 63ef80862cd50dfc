"""Compiled extensions loaded lazily through a module `__getattr__` (migrate/lazy_backends.py), built by a function
that JIT-builds under a computed name and returns the build (repo_index.file_computed_name, kernel_values
accessors). A small multi-file repository written here, shaped like the layout read in set 24b (a loader factory, a
kernels `_backend` module per subpackage, ops modules reading `_backend.<NAME>`), not a copy of it.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import write_files

NEWEST = "2.14.0"


def _build(package: str) -> str:
    return (
        "import os\nfrom types import SimpleNamespace\n\nimport torch.utils.cpp_extension as jit\n\n\n"
        "def get_params():\n"
        f"    return SimpleNamespace(name='{package}_cuda', sources=[os.path.join('csrc', 'k.cu')], flags=['-O3'])\n\n\n"
        f"def build_and_load_{package}():\n"
        "    params = get_params()\n"
        "    try:\n"
        "        return jit.load(name=params.name, sources=params.sources, extra_cuda_cflags=params.flags)\n"
        "    except OSError:\n"
        "        return jit._import_module_from_library(params.name, 'build', True)\n"
    )


def _backend(package: str, public: str) -> str:
    return (
        "from pkg._lazy import make_lazy_backend\n\n\n"
        "def _build():\n"
        f"    from .cuda.build import build_and_load_{package}\n\n"
        f"    return build_and_load_{package}()\n\n\n"
        "_get_backend, __getattr__ = make_lazy_backend(\n"
        f"    public_name='{public}',\n"
        f"    prebuilt_module='pkg_{package}_cuda',\n"
        "    jit_loader=_build,\n"
        ")\n\n"
        f"__all__ = ['{public}']\n"
    )


REPO = {
    "pkg/__init__.py": "",
    "pkg/_lazy.py": (
        "import importlib\n\n\n"
        "def make_lazy_backend(*, public_name, prebuilt_module, jit_loader):\n"
        "    cache = {}\n\n"
        "    def get_backend():\n"
        "        if 'm' not in cache:\n"
        "            try:\n"
        "                cache['m'] = importlib.import_module(prebuilt_module)\n"
        "            except ImportError:\n"
        "                cache['m'] = jit_loader()\n"
        "        return cache['m']\n\n"
        "    def module_getattr(name):\n"
        "        if name == public_name:\n"
        "            return get_backend()\n"
        "        raise AttributeError(name)\n\n"
        "    return get_backend, module_getattr\n"
    ),
    # two subpackages whose build.py files load under the same expression `params.name`: two extensions
    "pkg/geo/__init__.py": "",
    "pkg/geo/cuda/__init__.py": "",
    "pkg/geo/cuda/build.py": _build("geo"),
    "pkg/geo/_backend.py": _backend("geo", "_GEO_CUDA"),
    "pkg/geo/ops.py": (
        "from . import _backend\n\n\n"
        "def rotate(x):\n"
        "    return _backend._GEO_CUDA.rotate(\n"
        "        x)\n\n\n"
        "def _require():\n"
        "    if _backend._GEO_CUDA is None:\n"
        "        raise RuntimeError('no backend')\n"
        "    return _backend._GEO_CUDA\n\n\n"
        "def make(x):\n"
        "    backend = _require()\n"
        "    return backend.Grid(x)\n"
    ),
    "pkg/cam/__init__.py": "",
    "pkg/cam/cuda/__init__.py": "",
    "pkg/cam/cuda/build.py": _build("cam"),
    # the `def __getattr__` spelling: the name compared, the loader's result returned
    "pkg/cam/_backend.py": (
        "def _load():\n"
        "    from .cuda.build import build_and_load_cam\n\n"
        "    return build_and_load_cam()\n\n\n"
        "def __getattr__(name):\n"
        "    if name == '_CAM_CUDA':\n"
        "        return _load()\n"
        "    raise AttributeError(name)\n"
    ),
    "use.py": "from pkg.cam._backend import _CAM_CUDA\n\ny = _CAM_CUDA.project(1)\n",
}


def _findings(result, code, name):
    return [f for f in result.findings if f.code == code and f.path.endswith(name)]


def _lines(result, code, name):
    return sorted(f.line for f in _findings(result, code, name))


def test_a_lazily_loaded_extension_is_reported_where_its_ops_are_called(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the op call (at the callee's line) and the op of what an accessor returns; not `from . import _backend` (importing
    # the loader module loads nothing), not the probe `is None`, not `return _backend._GEO_CUDA` (handed on)
    assert _lines(result, "NPU508", "geo/ops.py") == [5, 17]
    assert "pkg/geo/cuda/build.py" in _findings(result, "NPU508", "geo/ops.py")[0].message  # its own build, not cam's
    assert _lines(result, "NPU508", "cam/ops.py") == []
    assert _lines(result, "NPU508", "use.py") == [1, 3]  # importing the name loads it; its op call


def test_the_loader_call_of_a_build_function_is_reported_not_its_import(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _lines(result, "NPU508", "geo/_backend.py") == [7]  # `return build_and_load_geo()`; not the import on line 5
    assert _lines(result, "NPU508", "cam/_backend.py") == [4]


def test_the_cached_module_of_a_build_loaded_by_its_name_is_a_use(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _lines(result, "NPU508", "geo/cuda/build.py") == [16]  # `jit._import_module_from_library(params.name, ...)`


def test_a_getattr_without_a_loader_of_an_extension_stands_for_nothing(tmp_path):
    files = dict(REPO)
    files["pkg/geo/_backend.py"] = (
        "import importlib\n\n\n"
        "def __getattr__(name):\n"
        "    if name == '_GEO_CUDA':\n"
        "        return importlib.import_module('pkg.geo.pure')\n"
        "    raise AttributeError(name)\n"
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _lines(result, "NPU508", "geo/ops.py") == []


def test_a_standalone_build_returns_no_module(tmp_path):
    files = {
        "tests/test_native.py": (
            "import subprocess\nimport torch.utils.cpp_extension as jit\n\n\n"
            "def build():\n"
            "    return jit.load(name='native_tests', sources=['t.cu'], with_cuda=True, is_python_module=False)\n\n\n"
            "def run():\n"
            "    exe = build()\n"
            "    return subprocess.run([exe.path, '--all'])\n"
        ),
    }
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _lines(result, "NPU508", "test_native.py") == []
