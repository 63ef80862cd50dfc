"""Label ruling (L50), general form: a repository's own device selector with an NPU branch makes its CUDA folder (and
wrappers only that folder imports) no findings (migrate/device_dispatch.py). The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import write_files

_TRITON_KERNEL = (
    "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _add_kernel(x, y, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i) + tl.load(y + i))\n\n\n"
    "def add(x, y):\n    _add_kernel[(1,)](x, y, x.numel(), BLOCK=1024)\n    return x\n")

_REPO = {
    "proj/__init__.py": "",
    "proj/ops/__init__.py": "",
    "proj/ops/selector.py": (
        "from proj.devices import current_device_type\n\n\ndef get_backend():\n"
        "    device_type = current_device_type()\n    if device_type == 'cuda':\n"
        "        from .cuda import CudaBackend\n        return CudaBackend\n"
        "    if device_type in ('npu', 'ascend'):\n        from .ascend import AscendBackend\n        return AscendBackend\n"
        "    raise RuntimeError(f'unsupported device {device_type}')\n"),
    "proj/ops/cuda/__init__.py": "from .backend import CudaBackend\n",
    "proj/ops/cuda/backend.py": (
        "from proj.kernels import dispatch\n\n\nclass CudaBackend:\n    @staticmethod\n    def attention(q, k, v):\n"
        "        from flash_attn import flash_attn_func\n        return flash_attn_func(q, k, v)\n\n"
        "    @staticmethod\n    def gemm(a, b):\n        from proj.third_party.fp8 import fp8_gemm\n"
        "        return fp8_gemm(a, b)\n"),
    "proj/ops/ascend/__init__.py": "from .backend import AscendBackend\n",
    "proj/ops/ascend/backend.py": (
        "import torch_npu\n\n\nclass AscendBackend:\n    @staticmethod\n    def attention(q, k, v):\n"
        "        return torch_npu.npu_fusion_attention(q, k, v, q.shape[1], 'BNSD')[0]\n"),
    "proj/third_party/__init__.py": "",
    "proj/third_party/fp8.py": "from deep_gemm import fp8_gemm_nt\n\n\ndef fp8_gemm(a, b):\n    return fp8_gemm_nt(a, b)\n",
    "proj/kernels/__init__.py": "",
    "proj/kernels/dispatch.py": (
        "import importlib\n\nDEVICE_MAP = {'cuda': 'cuda', 'npu': 'npu_impl', 'ascend': 'npu_impl'}\n\n\n"
        "def load(name, device):\n    mod = importlib.import_module(f'proj.kernels.{DEVICE_MAP[device]}')\n"
        "    return getattr(mod, name)\n"),
    "proj/kernels/cuda/__init__.py": "from .add import add\n",
    "proj/kernels/cuda/add.py": _TRITON_KERNEL,
    "proj/kernels/npu_impl/__init__.py": "def add(x, y):\n    return x + y\n",
}


def _found(root):
    return sorted((f.path.replace("\\", "/").split(str(root).replace("\\", "/"))[-1].lstrip("/"), f.code)
                  for f in scan([str(root)], use_cache=False).findings)


def test_cuda_folders_behind_a_selector_with_an_npu_branch_are_no_findings(tmp_path):
    write_files(tmp_path, _REPO)
    found = _found(tmp_path)
    assert not [f for f in found if f[0].startswith(("proj/ops/cuda/", "proj/kernels/cuda/", "proj/third_party/"))], found


def test_code_reaching_the_cuda_folder_without_the_selector_stays(tmp_path):
    # a model imports the CUDA kernel by its own module, and the wrapper is used from outside the CUDA folder too
    extra = {"proj/model.py": "from proj.kernels.cuda.add import add\nfrom proj.third_party.fp8 import fp8_gemm\n\n\n"
                              "def forward(x, y):\n    return fp8_gemm(add(x, y), y)\n"}
    write_files(tmp_path, {**_REPO, **extra})
    paths = {p for p, _ in _found(tmp_path)}
    assert "proj/kernels/cuda/add.py" in paths and "proj/third_party/fp8.py" in paths, paths
    assert "proj/ops/cuda/backend.py" not in paths, paths


def test_a_cuda_only_selector_is_no_npu_route(tmp_path):
    files = {k: v for k, v in _REPO.items() if "/ascend" not in k and "npu_impl" not in k}
    write_files(tmp_path, files)
    paths = {p for p, _ in _found(tmp_path)}
    assert "proj/kernels/cuda/add.py" in paths, paths


def test_a_cuda_branch_naming_the_folder_that_holds_the_npu_one_drops_nothing(tmp_path):
    # `from .kernels import fused` for CUDA beside `from .kernels.npu import fused` for the NPU: the CUDA branch names
    # the parent of the NPU folder (kernels/ holds shared code too), so it is no CUDA side to drop
    files = {
        "proj/__init__.py": "",
        "proj/select.py": (
            "def pick(device_type):\n    if device_type == 'cuda':\n        from .kernels import fused\n        return fused\n"
            "    if device_type == 'npu':\n        from .kernels.npu import fused\n        return fused\n"),
        "proj/kernels/__init__.py": "",
        "proj/kernels/fused.py": _TRITON_KERNEL,
        "proj/kernels/shared.py": "import triton\n",
        "proj/kernels/npu/__init__.py": "",
        "proj/kernels/npu/fused.py": "def add(x, y):\n    return x + y\n",
    }
    write_files(tmp_path, files)
    found = _found(tmp_path)
    assert ("proj/kernels/shared.py", "NPU501") in found, found  # before: the whole of kernels/ dropped
