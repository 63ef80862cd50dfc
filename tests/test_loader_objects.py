"""A JIT build held by a project loader object (migrate/loader_objects.py): ops called through the member holding the
compiled module, and the object's build method called in other modules of the scan. A small repository written here,
shaped like the layouts read in set 45 (a compiler helper object in an `ffi` module, an imported loader class given
CUDA sources), not copies of them.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

REPO = {
    "pp/__init__.py": "",
    "pp/core/__init__.py": "",
    "pp/core/linear.cu": "__global__ void k() {}\n",
    "pp/core/ffi.py": (
        "from torch.utils.cpp_extension import load\n"
        "class Helper:\n"
        "    def __init__(self):\n"
        "        self._ext = None\n"
        "    def build(self):\n"
        "        self._ext = load(name='impls', sources=['export.cc', 'linear.cu'], with_cuda=True)\n"
        "    @property\n"
        "    def EXT(self):\n"
        "        return self._ext\n"
        "    def reset(self):\n"
        "        self._ext = None\n"
        "COMPILER = Helper()\n"
        "if USE_KERNELS:\n"
        "    COMPILER.build()\n"
        "def quantize(t, s):\n"
        "    return COMPILER.EXT.quantize(t, s)\n"
    ),
    "pp/api.py": (
        "from pp.core.ffi import COMPILER\n"
        "class Enable:\n"
        "    def __init__(self):\n"
        "        COMPILER.build()\n"
        "        COMPILER.reset()\n"
    ),
    "tests/test_kernel.py": (
        "from pp.core.ffi import COMPILER\n"
        "COMPILER.build()\n"
    ),
}


def test_the_build_method_of_a_loader_object_is_a_use_where_it_is_called(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "ffi.py") == [14, 16]  # the build call and the op through the property
    assert finding_lines(result, "NPU508", "api.py") == [4]  # not the import, not another method of the object
    assert finding_lines(result, "NPU508", "test_kernel.py") == [2]
