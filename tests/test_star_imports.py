"""GPU-only package names carried across the repository's own modules by star imports (NPU510,
migrate/star_imports.py).

The tree is written here in the shape of a research codebase whose helpers module imports a
rasteriser at its top and whose scripts pull everything in with chains of `from X import *`.
Expected lines are the call sites written below, not values read back from the tool.
"""
from __future__ import annotations

from pathlib import Path

from migrate import fileio
from migrate.engine import scan

NEWEST = "2.14.0"

HELPERS = (
    "import numpy as np\n"
    "import nvdiffrast.torch as dr\n"
    "def render(glctx, pos, tri):\n"
    "    return dr.rasterize(glctx, pos, tri, resolution=[8, 8])\n"
)
ESTIMATOR = (
    "from helpers import *\n"
    "class Estimator:\n"
    "    def __init__(self, device):\n"
    "        self.glctx = dr.RasterizeCudaContext(device)\n"  # line 4
    "        self.zero = np.zeros(3)\n"  # numpy: not GPU-only
)
DEMO = (
    "from estimator import *\n"
    "import argparse\n"
    "glctx = dr.RasterizeCudaContext()\n"  # line 3, two star imports away
    "def other(dr):\n"
    "    return dr.RasterizeCudaContext()\n"  # the parameter, not the package
    "def local():\n"
    "    dr = make()\n"
    "    return dr.RasterizeCudaContext()\n"  # a local, not the package
)
PLAIN = "import helpers\nprint(helpers.np)\n"  # no star import: nothing carried
# a module star-importing nothing of the kind: its free names stay unbound
OTHER = "from nothing_here import *\nctx = dr.RasterizeCudaContext()\n"


def _tree(tmp_path, extension=False):
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "estimator.py").write_text(ESTIMATOR)
    (tmp_path / "demo.py").write_text(DEMO)
    (tmp_path / "plain.py").write_text(PLAIN)
    (tmp_path / "other.py").write_text(OTHER)
    if extension:  # an extension module of the scan: linking reads the files' trees, not their facts
        (tmp_path / "setup.py").write_text(
            "from torch.utils.cpp_extension import CUDAExtension\n"
            "ext = CUDAExtension(name='mycuda', sources=['mycuda.cu'])\n")


def _carried(result):
    return sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU510")


def test_a_star_import_carries_a_gpu_only_package_name_through_modules(tmp_path):
    _tree(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _carried(result) == [("demo.py", 3), ("estimator.py", 4)]
    message = next(f.message for f in result.findings if f.code == "NPU510")
    assert "helpers.py:2" in message and "nvdiffrast.torch" in message


def test_linking_from_the_trees_finds_the_same(tmp_path):
    _tree(tmp_path, extension=True)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _carried(result) == [("demo.py", 3), ("estimator.py", 4)]


def test_a_guarded_import_is_carried_nowhere(tmp_path):
    _tree(tmp_path)
    (tmp_path / "helpers.py").write_text(
        "try:\n    import nvdiffrast.torch as dr\nexcept ImportError:\n    dr = None\n")
    assert _carried(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)) == []


def test_warm_run_parses_no_file_again(tmp_path, monkeypatch):
    for extension in (False, True):
        root = tmp_path / str(extension)
        root.mkdir()
        _tree(root, extension=extension)
        cache = tmp_path / f"cache-{extension}"
        first = _carried(scan([str(root)], cache_dir=cache, torch_npu_version=NEWEST))
        assert first == [("demo.py", 3), ("estimator.py", 4)]

        def must_not_parse(text, *args, **kwargs):
            raise AssertionError("parsed again although nothing changed")

        with monkeypatch.context() as patched:
            patched.setattr(fileio, "parse_python", must_not_parse)
            assert _carried(scan([str(root)], cache_dir=cache, torch_npu_version=NEWEST)) == first


def test_changing_the_module_in_between_changes_the_unchanged_user(tmp_path):
    _tree(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    assert ("demo.py", 3) in _carried(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST))
    # estimator.py stops star-importing helpers: demo.py (a cache hit) no longer reads the package
    (tmp_path / "estimator.py").write_text("import helpers\n")
    assert _carried(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)) == []


def test_a_literal_all_leaving_the_package_out_carries_nothing(tmp_path):
    _tree(tmp_path)
    (tmp_path / "helpers.py").write_text(HELPERS + "__all__ = ['render']\n")
    assert _carried(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)) == []


def test_a_star_import_carries_a_compiled_module_a_helpers_module_imports(tmp_path):
    # NPU508: helpers.py imports the repository's CUDA extension (reported there); a module star-importing helpers
    # from another folder calls its ops through the name the star import binds
    (tmp_path / "pkg" / "mycuda").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mycuda" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mycuda" / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='common', ext_modules=[CUDAExtension('common', ['common.cu', 'bindings.cpp'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "helpers.py").write_text("import numpy as np\nfrom pkg.mycuda import common\n")
    (tmp_path / "pkg" / "runner.py").write_text(
        "from helpers import *\n"
        "def sample(z):\n"
        "    return common.sampleRays(z)\n"  # line 3
        "def other(common):\n"
        "    return common.sampleRays(1)\n")  # the parameter
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    lines = sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU508")
    assert ("runner.py", 3) in lines and ("runner.py", 5) not in lines
