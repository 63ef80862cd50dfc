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

