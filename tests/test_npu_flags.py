"""A module-level flag bound to an NPU availability probe names the NPU; `CUDA_HOME` names CUDA; an import made only
off the NPU binds a name whose uses are the CUDA side of an NPU-aware choice (label ruling (L20), migrate/npu_aware.py).
The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import write_files

_SETUP = (
    "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n\n"
    "try:\n    import torch_npu\n    BUILD_NPU = torch_npu.npu.is_available()\nexcept ImportError:\n    BUILD_NPU = False\n\n"
    "if CUDA_HOME is not None:\n    exts = [CUDAExtension('fastops', ['csrc/ops.cu'], extra_compile_args={'nvcc': ['-O3']})]\n"
    "elif BUILD_NPU:\n    exts = []\nelse:\n    raise ValueError('no accelerator')\n\n"
    "setup(name='pkg', ext_modules=exts)\n")

_QUANT = (
    "import torch\n\ntry:\n    import torch_npu\n    use_torch_npu = torch_npu.npu.is_available()\n"
    "except ImportError:\n    use_torch_npu = False\n\nif not use_torch_npu:\n    import fastops\n    import flash_attn\n\n\n"
    "def dequantize(data, device):\n    if use_torch_npu:\n        return torch_npu.npu_dequant(data)\n"
    "    return fastops.dequantize(data, device)\n\n\ndef attend(q, k, v):\n    return flash_attn.flash_attn_func(q, k, v)\n")


def _found(root):
    prefix = str(root).replace("\\", "/")
    return sorted((f.path.replace("\\", "/").split(prefix)[-1].lstrip("/"), f.line, f.code)
                  for f in scan([str(root)], use_cache=False).findings if f.code.startswith("NPU50"))


def test_a_build_chain_with_an_npu_flag_branch_reports_no_cuda_build(tmp_path):
    write_files(tmp_path, {"setup.py": _SETUP, "csrc/ops.cu": "__global__ void k(float* x) {}\n"})
    assert not [f for f in _found(tmp_path) if f[0] == "setup.py"]


def test_uses_of_a_name_imported_only_off_the_npu_are_not_reported(tmp_path):
    plain = "import fastops\n\n\ndef run(x):\n    return fastops.dequantize(x, 'cuda')\n"
    write_files(tmp_path, {"setup.py": _SETUP, "csrc/ops.cu": "__global__ void k(float* x) {}\n",
                           "pkg/quant.py": _QUANT, "pkg/plain.py": plain})
    found = _found(tmp_path)
    assert not [f for f in found if f[0] == "pkg/quant.py"], found
    assert ("pkg/plain.py", 1, "NPU508") in found and ("pkg/plain.py", 5, "NPU508") in found


def test_a_flag_bound_to_something_else_names_no_npu(tmp_path):
    # the flag is also read from the environment: no availability probe decides it, so nothing is dropped
    quant = _QUANT.replace("    use_torch_npu = False\n", "    use_torch_npu = False\nuse_torch_npu = bool(0)\n")
    write_files(tmp_path, {"setup.py": _SETUP.replace("elif BUILD_NPU:", "elif torch.xpu.is_available():"),
                           "csrc/ops.cu": "__global__ void k(float* x) {}\n", "pkg/quant.py": quant})
    found = _found(tmp_path)
    assert ("pkg/quant.py", 11, "NPU508") in found and ("pkg/quant.py", 18, "NPU508") in found, found
    assert ("pkg/quant.py", 12, "NPU501") in found, found
    assert [f for f in found if f[0] == "setup.py" and f[2] == "NPU505"], found


def test_a_name_also_bound_on_the_npu_side_stays(tmp_path):
    # `fastops = None` on the NPU side: the name exists there too, and a function calling it with no NPU branch of
    # its own is reported (the one after `if use_torch_npu: return ...` is that branch's CUDA path)
    quant = _QUANT.replace("    import flash_attn\n", "    import flash_attn\nelse:\n    fastops = None\n")
    quant += "\n\ndef raw(x):\n    return fastops.raw(x)\n"
    write_files(tmp_path, {"setup.py": _SETUP, "csrc/ops.cu": "__global__ void k(float* x) {}\n", "pkg/quant.py": quant})
    found = _found(tmp_path)
    assert ("pkg/quant.py", 27, "NPU508") in found, found
    assert ("pkg/quant.py", 19, "NPU508") not in found, found
