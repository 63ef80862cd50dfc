import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import chain_tops
from migrate.rules.base import Invalid, Rule

_COMPLEX_DTYPES = frozenset(
    {"torch.complex32", "torch.complex64", "torch.complex128", "torch.chalf", "torch.cfloat", "torch.cdouble"}
)
_COMPLEX_FUNCTIONS = frozenset({"torch.view_as_complex", "torch.polar", "torch.complex"})


class ComplexDtype(Rule):
    """Complex tensors have very limited kernel coverage on Ascend NPUs: most ops reject complex
    inputs or fall back to the CPU. Flagged: the complex dtypes (`torch.complex64`,
    `torch.complex128`, `torch.cfloat`, `torch.cdouble`, `torch.complex32` / `chalf`) and the
    functions that create complex tensors (`torch.view_as_complex`, `torch.polar`,
    `torch.complex`), alias-aware. A common case is rotary position embeddings written with
    `view_as_complex`; the real-valued cos/sin form (or `torch_npu.npu_rotary_mul`) avoids it."""

    CODE = "NPU603"
    NAME = "complex-dtype"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "complex tensors are barely supported by NPU kernels; use a real-valued formulation (e.g. cos/sin for rotary embeddings)"
    TRIGGERS = ("complex", "cfloat", "cdouble", "chalf", "polar")
    VALID = [
        "import numpy as np\nz = np.zeros(2, dtype=np.complex64)",
        "z = complex(1, 2)",  # Python's builtin
        "import torch\nx = torch.view_as_real(y)",
    ]
    INVALID = [
        Invalid("import torch\nfreqs = torch.polar(torch.ones_like(f), f)", count=1),
        Invalid("import torch\nxq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))", count=1),
        Invalid("import torch\nz = torch.zeros(4, dtype=torch.cfloat)", count=1),
        Invalid("from torch import complex64\nz = x.to(complex64)", count=1),
    ]

    def check(self, ctx):
        for node, name in chain_tops(ctx):  # the outermost chains rooted at an imported name
            if name in _COMPLEX_DTYPES:
                yield self.finding(ctx, node)
            elif name in _COMPLEX_FUNCTIONS and isinstance(ctx.parent(node), ast.Call) and ctx.parent(node).func is node:
                yield self.finding(ctx, ctx.parent(node))
