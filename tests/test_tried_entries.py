"""An extension behind a None stand-in whose only ways in are calls tried with a PyTorch fallback is optional
(migrate/tried_entries.py, label note 49b-2). The fixture is a small repository written here, shaped like a vendored
deformable-attention op: the autograd Function calls the compiled ops, the module tries it and falls back."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='dattn', ext_modules=[CUDAExtension('DeformAttnExt', ['src/attn.cpp', 'src/attn_kernel.cu'])],\n"
         "      cmdclass={'build_ext': BuildExtension})\n")

FUNC = """import torch
from torch.autograd import Function

try:
    import DeformAttnExt as ext
except ModuleNotFoundError:
    hint = "build the op with `python setup.py build install`"
    ext = None


class DeformAttnFunction(Function):
    @staticmethod
    def forward(ctx, value, locations, weights):
        return ext.forward(value, locations, weights)


def deform_attn_pytorch(value, locations, weights):
    return (value * weights).sum(-1)
"""

MODULE = """from torch import nn
from dattn.functions import DeformAttnFunction, deform_attn_pytorch


class DeformAttn(nn.Module):
    def forward(self, value, locations, weights):
        try:
            out = DeformAttnFunction.apply(value, locations, weights)
        except Exception:
            out = deform_attn_pytorch(value, locations, weights)
        return out
"""

# the op's own test calls it unguarded: it tests the CUDA side and does not make the product path required
TEST = """from dattn.functions import DeformAttnFunction


def check(value, locations, weights):
    return DeformAttnFunction.apply(value, locations, weights)
"""

# a second product caller without a fallback keeps the uses
PLAIN = """from dattn.functions import DeformAttnFunction


def run(value, locations, weights):
    return DeformAttnFunction.apply(value, locations, weights)
"""


def _files(extra: dict) -> dict:
    return {"setup.py": SETUP, "src/attn.cpp": "// binding\n", "src/attn_kernel.cu": "__global__ void k() {}\n",
            "dattn/__init__.py": "", "dattn/functions.py": FUNC, "dattn/modules.py": MODULE, **extra}


def test_uses_entered_only_by_tried_calls_with_a_fallback_are_optional(tmp_path: Path):
    write_files(tmp_path, _files({"dattn/test.py": TEST}))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU508", "dattn/functions.py") == []


def test_an_untried_product_caller_keeps_them(tmp_path: Path):
    write_files(tmp_path, _files({"dattn/plain.py": PLAIN}))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU508", "dattn/functions.py") == [5, 14]
