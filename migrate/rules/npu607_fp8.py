import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import chain_tops
from migrate.rules.base import Invalid, Rule
from migrate.rules.npu602_float64 import dtype_table_entry

_FP8_FUNCTIONS = frozenset({"torch._scaled_mm", "torch._scaled_grouped_mm"})


def _compared(ctx, node) -> bool:
    """`x.dtype == torch.float8_e4m3fn` / `dtype in (torch.float8_e4m3fn, ...)`: a check, not a use
    (as NPU602 treats float64)."""
    parent = ctx.parent(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        parent = ctx.parent(parent)
    return isinstance(parent, ast.Compare)


class Fp8(Rule):
    """FP8 training paths written for NVIDIA Hopper/Ada: `torch._scaled_mm` and the float8
    dtypes (`torch.float8_e4m3fn`, `torch.float8_e5m2`, the `fnuz` / `e8m0` variants). torch's
    FP8 matmul is a CUDA kernel; Ascend FP8 support, where the chip has it, goes through
    torch_npu's own quantized-matmul ops with a different API. Alias-aware. Comparisons and
    serializer tables (`{torch.float8_e5m2: "F8_E5M2"}`, `dtype_map["F8_E4M3"] = torch.float8_e4m3fn`,
    `if s in ["fp8"]: return torch.float8_e4m3fn`) only name the dtype and are not reported."""

    CODE = "NPU607"
    NAME = "fp8"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "FP8 (`torch._scaled_mm` / float8 dtypes) is a CUDA path; on NPU use bf16/fp16, or torch_npu's quantized matmul ops"
    TRIGGERS = ("float8", "_scaled_mm", "_scaled_grouped_mm")
    VALID = [
        "import torch\nx = torch.zeros(2, dtype=torch.bfloat16)",
        "import torch\ny = torch.mm(a, b)",
        '"""FP8 via torch.float8_e4m3fn is not used here."""',
        "import torch\nis_fp8 = x.dtype == torch.float8_e4m3fn",  # a comparison only reads the dtype
        "import torch\nif t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2): pass",
        'import torch\nNAMES = {torch.float8_e5m2: "F8_E5M2"}\nm = {}\nm["F8_E4M3"] = torch.float8_e4m3fn',  # serializer tables
        'import torch\ndef to_dtype(s):\n    if s in ["fp8", "float8"]:\n        return torch.float8_e4m3fn\n    elif s == "e5m2":\n        return torch.float8_e5m2',
    ]
    INVALID = [
        Invalid("import torch\nout = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb)", count=1),
        Invalid("import torch\nw8 = w.to(torch.float8_e4m3fn)", count=1),
        Invalid("from torch import float8_e5m2 as E5\ng8 = g.to(E5)", count=1),
    ]

    def check(self, ctx):
        for node, name in chain_tops(ctx):  # the outermost chains rooted at an imported name
            if name.startswith("torch.float8_"):
                if not (_compared(ctx, node) or dtype_table_entry(ctx, node)):
                    yield self.finding(ctx, node)
            elif name in _FP8_FUNCTIONS:
                parent = ctx.parent(node)
                yield self.finding(ctx, parent if isinstance(parent, ast.Call) and parent.func is node else node)
