"""A GPU word written into a name looked up on a compiled extension is the line that picks its CUDA-only bindings
(NPU508, migrate/gpu_name_suffix.py; label note 45b b-7)."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

# an extension with one binding per device under a suffixed name (`conv_fwdCPU` / `conv_fwdGPU`): a helper returning
# the suffix, a class picking a manager class by a suffix it builds, and names that pick nothing on the GPU
SUFFIXED = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='sparsek', ext_modules=[CUDAExtension('sparsekC._C', ['src/conv.cpp', 'src/conv.cu'])])\n",
    "src/conv.cu": "__global__ void k(float* x) {}\n",
    "sparsek/__init__.py": "",
    "sparsek/common.py": (
        "import sparsekC._C as SK\n"
        "\n"
        "def device_suffix(x):\n"
        "    suffix = 'GPU' if x.is_cuda else 'CPU'\n"
        "    return suffix\n"
        "\n"
        "def lookup(name, x):\n"
        "    fn_name = name + device_suffix(x)\n"
        "    if hasattr(SK, fn_name):\n"
        "        return getattr(SK, fn_name)\n"
        "    raise ValueError(fn_name)\n"
    ),
    "sparsek/manager.py": (
        "import sparsekC._C as _C\n"
        "\n"
        "class Manager:\n"
        "    def __init__(self, on_cpu, pooled):\n"
        "        if on_cpu:\n"
        "            kind = 'CPU'\n"
        "        else:\n"
        "            kind = 'GPU' + ('_pool' if pooled else '_plain')\n"
        "        self.cls = getattr(_C, f'Manager{kind}')\n"
        "        self.version = getattr(_C, 'version' + '_string')\n"
        "        self.label = getattr(self, 'CUDA')\n"
    ),
}


def test_the_gpu_suffix_of_a_name_looked_up_on_the_extension_is_reported(tmp_path):
    write_files(tmp_path, SUFFIXED)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the import, and the line writing 'GPU' into the name through the helper's return value
    assert finding_lines(result, "NPU508", "sparsek/common.py") == [1, 4]
    # the GPU branch's suffix, through a local and an f-string; not a name with no GPU word, nor a lookup on `self`
    assert finding_lines(result, "NPU508", "sparsek/manager.py") == [1, 8]


# a test building the extension's manager object and calling its methods: `size` is also a tensor method, yet on an
# object that has a method no tensor has (`insert_and_map`) it is the compiled class's (label note 45b b-9); on the
# tensor an op returned it stays no use of the extension
OBJECT_METHODS = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='mtest', ext_modules=[CUDAExtension('mtest._C', ['src/m.cpp', 'src/m.cu'])])\n",
    "src/m.cu": "__global__ void k(float* x) {}\n",
    "tests/run_gpu.py": (
        "import torch\n"
        "import mtest._C as _C\n"
        "\n"
        "def test_insert():\n"
        "    manager = _C.CoordinateMapManager()\n"
        "    key, maps = manager.insert_and_map(torch.zeros(4, 2).cuda(), [1], '')\n"
        "    feats = torch.rand(manager.size(key), 3)\n"
        "    out = _C.conv_forward(feats, key, manager)\n"
        "    print(f'{manager.size(key)}')\n"
        "    n = out.size(0)\n"
    ),
}


def test_tensor_named_methods_of_a_compiled_object_with_other_methods_are_reported(tmp_path):
    write_files(tmp_path, OBJECT_METHODS)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the import, the construction, both manager methods, the op call, the size printed in the f-string; not
    # `out.size(0)`, a method of the tensor the op returned
    assert finding_lines(result, "NPU508", "tests/run_gpu.py") == [2, 5, 6, 7, 8, 9]
