"""Constants and enum members read from a compiled module (migrate/compiled_values.py, NPU508; label ruling (L80)).

The tree is written here in the shape of a point renderer whose extension exports constants beside its ops, not
copied from any repository.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="pts", ext_modules=[CUDAExtension("pts._C", ["pts/csrc/ext.cpp", "pts/csrc/render.cu"])],
      cmdclass={"build_ext": BuildExtension})
"""

RENDER = """\
from pts import _C


def render(verts, max_n_hits=_C.MAX_UINT, eps=_C.EPS):
    region = _C.RegionType.HYPER_CUBE
    return _C.render(verts, max_n_hits, eps, region)


def make():
    return _C.Renderer(_C.MAX_UINT)


def limits():
    return _C.DEFAULT_LIMITS()
"""


def test_a_constant_of_a_compiled_module_is_a_value_not_a_use(tmp_path):
    write_files(tmp_path, {"setup.py": SETUP, "pts/__init__.py": "", "pts/csrc/ext.cpp": "// bindings\n",
                           "pts/csrc/render.cu": "__global__ void render(float* x) {}\n", "pts/render.py": RENDER})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the import (1), the op call (6), the construction (10) and an all-caps name that is called (14); not the
    # constants read as default values (4), the enum member (5) or the constant handed to the construction (10)
    assert finding_lines(result, "NPU508", "pts/render.py") == [1, 6, 10, 14]
