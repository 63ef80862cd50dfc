"""A torch.library namespace with a plain-Python "default" kernel serves the NPU (migrate/default_kernels.py, ruling
(L88)). A small repository written here, shaped like a per-device op registry (an `_ops.py` defining the ops and
aliasing `register_kernel`, a default backend composed of torch ops, a CUDA backend calling a ctypes library), not a
copy of one.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

OPS = (
    "import torch\n\n"
    "register_kernel = torch.library.register_kernel\n\n"
    "torch.library.define(\"qpkg::quantize\", \"(Tensor A, int blocksize) -> (Tensor, Tensor)\")\n"
    "torch.library.define(\"qpkg::dequantize\", \"(Tensor A, Tensor absmax) -> Tensor\")\n"
)
DEFAULT = (
    "import torch\n\n"
    "from ..._ops import register_kernel\n\n\n"
    "@register_kernel(\"qpkg::quantize\", \"default\")\n"
    "def _(A, blocksize):\n"
    "    absmax = A.reshape(-1, blocksize).abs().amax(-1)\n"
    "    return (A.reshape(-1, blocksize) / absmax[:, None] * 127).round().to(torch.int8), absmax\n\n\n"
    "def _dequantize(A, absmax):\n"
    "    return A.float() * absmax[:, None] / 127\n\n\n"
    "register_kernel(\"qpkg::dequantize\", \"default\")(_dequantize)\n"
)
USE = (
    "import torch\n\n\n"
    "def quantize(x):\n"
    "    return torch.ops.qpkg.quantize.default(x, 64)\n\n\n"
    "def dequantize(q, absmax):\n"
    "    return torch.ops.qpkg.dequantize(q, absmax)\n"
)


def _repo(default: str) -> dict[str, str]:
    return {
        "qpkg/__init__.py": "from . import _ops\nfrom .backends.default import ops\n",
        "qpkg/_ops.py": OPS,
        "qpkg/backends/__init__.py": "",
        "qpkg/backends/default/__init__.py": "",
        "qpkg/backends/default/ops.py": default,
        "qpkg/functional.py": USE,
    }


def test_a_namespace_with_a_python_default_kernel_serves_the_npu(tmp_path):
    write_files(tmp_path, _repo(DEFAULT))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "qpkg/functional.py") == []


def test_device_kernels_only_stay_reported(tmp_path):
    write_files(tmp_path, _repo(DEFAULT.replace("\"default\"", "\"cuda\"")))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "qpkg/functional.py") == [5, 9]


def test_a_default_given_a_compiled_op_stays_reported(tmp_path):
    compiled = "from ..._ops import register_kernel\nfrom qpkg import _C\n\n" \
               "register_kernel(\"qpkg::quantize\", \"default\", _C.quantize)\n"
    write_files(tmp_path, _repo(compiled))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "qpkg/functional.py") == [5, 9]


def test_the_catalogued_package_serving_its_ops_is_the_repositorys_own(tmp_path):
    """A checkout of a catalogued package (its name in NPU501's knowledge) whose ops have default kernels: its
    benchmark scripts importing it use the repository's own package (migrate/own_package.py)."""
    files = {path.replace("qpkg/", "bitsandbytes/"): text.replace("qpkg", "bitsandbytes")
             for path, text in _repo(DEFAULT).items()}
    files["benchmarking/bench_quant.py"] = "import torch\nimport bitsandbytes.functional as F\n\n" \
                                           "print(F.quantize(torch.randn(64, 64)))\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "bitsandbytes/functional.py") == []
    assert finding_lines(result, "NPU501", "benchmarking/bench_quant.py") == []
    assert finding_lines(result, "NPU507", "benchmarking/bench_quant.py") == []


def test_an_op_of_the_namespace_without_a_default_stays_reported(tmp_path):
    """Per op: `qpkg::gemv` has a CUDA kernel only (optimum-quanto-like: device ops beside defaulted ones)."""
    files = _repo(DEFAULT)
    files["qpkg/_ops.py"] += "torch.library.define(\"qpkg::gemv\", \"(Tensor A, Tensor B) -> Tensor\")\n"
    files["qpkg/functional.py"] += "\n\ndef gemv(a, b):\n    return torch.ops.qpkg.gemv.default(a, b)\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "qpkg/functional.py") == [13]
