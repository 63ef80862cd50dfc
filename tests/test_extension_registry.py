"""Label ruling (L50), general form: a registry of per-device extension classes, picked per machine by
`is_available()`, with an NPU entry makes its CUDA entries' builds no findings (migrate/extension_registry.py). The
snippets are written for these tests."""

from hypothesis import given, settings
from hypothesis import strategies as st

from migrate import extension_registry
from migrate.engine import scan
from tests.helpers import write_files

_KERNEL = "__global__ void layer_norm_kernel(float *x, int n) {\n  int i = threadIdx.x;\n  if (i < n) x[i] = 0.f;\n}\n"

_REPO = {
    "kern/__init__.py": "",
    "kern/loader.py": (
        "from .ext import AttnCudaExtension, AttnNpuExtension, LayerNormCudaExtension\n\n\n"
        "class Loader:\n    REGISTRY = []\n\n    def load(self):\n"
        "        usable = [e() for e in self.REGISTRY if e().is_available()]\n"
        "        assert usable, 'No usable kernel found on the current machine'\n        return usable[0].load()\n\n\n"
        "class AttnLoader(Loader):\n    REGISTRY = [AttnNpuExtension, AttnCudaExtension]\n\n\n"
        "class LayerNormLoader(Loader):\n    REGISTRY = [LayerNormCudaExtension]\n"),
    "kern/ext/__init__.py": (
        "from .attn_cuda import AttnCudaExtension\nfrom .attn_npu import AttnNpuExtension\n"
        "from .layernorm_cuda import LayerNormCudaExtension\n"),
    "kern/ext/base.py": "class _Extension:\n    def is_available(self):\n        raise NotImplementedError\n",
    "kern/ext/utils.py": (
        "import subprocess\n\nfrom torch.utils.cpp_extension import CUDA_HOME\n\n\ndef nvcc_version():\n"
        "    return subprocess.check_output([CUDA_HOME + '/bin/nvcc', '-V'], universal_newlines=True)\n\n\n"
        "def arch_flags():\n    return ['-O3', '-gencode', 'arch=compute_80,code=sm_80']\n"),
    "kern/ext/cuda_extension.py": (
        "from .base import _Extension\nfrom .utils import arch_flags\n\n\nclass _CudaExtension(_Extension):\n"
        "    def is_available(self):\n        import torch\n        return torch.cuda.is_available()\n\n"
        "    def build_aot(self):\n        from torch.utils.cpp_extension import CUDAExtension\n"
        "        return CUDAExtension(name=self.name, sources=self.sources_files(),\n"
        "                             extra_compile_args={'nvcc': ['-O3'] + arch_flags()})\n"),
    "kern/ext/layernorm_cuda.py": (
        "from .cuda_extension import _CudaExtension\n\n\nclass LayerNormCudaExtension(_CudaExtension):\n"
        "    name = 'layernorm_cuda'\n\n    def sources_files(self):\n        return ['csrc/layer_norm_kernel.cu']\n"),
    "kern/ext/attn_cuda.py": (
        "from .base import _Extension\n\n\nclass AttnCudaExtension(_Extension):\n    def is_available(self):\n"
        "        import torch\n        return torch.cuda.is_available()\n\n    def load(self):\n"
        "        from flash_attn import flash_attn_func\n        return flash_attn_func\n"),
    "kern/ext/attn_npu.py": (
        "from .base import _Extension\n\n\nclass AttnNpuExtension(_Extension):\n    def is_available(self):\n"
        "        try:\n            import torch_npu  # noqa: F401\n        except ImportError:\n            return False\n"
        "        return True\n\n    def load(self):\n        import torch_npu\n        return torch_npu.npu_fusion_attention\n"),
    "kern/ext/csrc/layer_norm_kernel.cu": _KERNEL,
    "model.py": "from flash_attn import flash_attn_func\n\n\ndef attend(q, k, v):\n    return flash_attn_func(q, k, v)\n",
}


def _codes(tmp_path, files):
    write_files(tmp_path, files)
    import os

    return {(os.path.relpath(f.path, tmp_path).replace(os.sep, "/"), f.code)
            for f in scan([str(tmp_path)], use_cache=False).findings}


def test_cuda_entries_of_a_registry_with_an_npu_entry_are_no_findings(tmp_path):
    found = _codes(tmp_path, _REPO)
    paths = {p for p, _ in found}
    assert not {p for p in paths if p.startswith("kern/")}, found
    assert ("model.py", "NPU501") in found  # a direct import of flash_attn bypasses the registry


def test_without_an_npu_entry_the_cuda_builds_stay(tmp_path):
    repo = dict(_REPO)
    repo["kern/loader.py"] = repo["kern/loader.py"].replace("[AttnNpuExtension, AttnCudaExtension]", "[AttnCudaExtension]")
    found = _codes(tmp_path, repo)
    assert ("kern/ext/cuda_extension.py", "NPU505") in found, found
    assert ("kern/ext/csrc/layer_norm_kernel.cu", "NPU506") in found, found
    assert ("kern/ext/attn_cuda.py", "NPU501") in found, found
    assert ("kern/ext/utils.py", "NPU505") in found, found


def test_a_helper_another_file_imports_stays(tmp_path):
    repo = dict(_REPO)
    repo["tools/check.py"] = "from kern.ext.utils import arch_flags\n\nprint(arch_flags())\n"
    found = _codes(tmp_path, repo)
    assert ("kern/ext/utils.py", "NPU505") in found, found
    assert not {p for p, _ in found if p.startswith("kern/ext/cuda") or p.endswith(".cu")}, found


_TOKENS = ["class", " ", "  ", "\n", "(", ")", ",", "_", "Foo", "x1", "CUDA", "Cuda", "NPU", "Npu", "Ascend", "cuda",
           "ASCEND", "é", ":", "classy", "=", "f"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
def test_the_device_class_hint_answers_as_its_pattern(tokens):
    """`_device_class` (the quick look before the parse) says what `_DEVICE_CLASS.search` says, on any arrangement of
    class keywords, brackets, identifiers and device words."""
    text = "".join(tokens)
    assert extension_registry._device_class(text) == (extension_registry._DEVICE_CLASS.search(text) is not None)
