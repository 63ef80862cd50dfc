import ast

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule

_DATA_PARALLEL = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.data_parallel",
        "torch.nn.parallel.data_parallel.data_parallel",
    }
)


class DataParallel(Rule):
    """`torch.nn.DataParallel` (single-process, multi-thread replication) is not a supported way
    to use several NPUs: torch_npu's multi-device path is one process per device with
    `DistributedDataParallel` over HCCL (started with torchrun). Flagged where DataParallel is
    constructed or subclassed, under any alias (`nn.DataParallel`, `from torch.nn import
    DataParallel as DP`, the functional `data_parallel`); `isinstance(m, nn.DataParallel)` checks
    are left alone since they keep working."""

    CODE = "NPU303"
    NAME = "data-parallel"
    CATEGORY = Category.DISTRIBUTED
    SEVERITY = Severity.WARNING
    MESSAGE = (
        "`DataParallel` is not supported for multiple NPUs; use one process per NPU with "
        "`torch.nn.parallel.DistributedDataParallel` (hccl backend, launched by torchrun)"
    )
    TRIGGERS = ("DataParallel", "data_parallel")
    VALID = [
        "import torch.nn as nn\nm = nn.parallel.DistributedDataParallel(model)",
        "import torch.nn as nn\nif isinstance(model, nn.DataParallel): model = model.module",
        "class DataParallel: pass\nm = DataParallel()",  # a local class, not torch's
        '"""Wrap with torch.nn.DataParallel."""',
    ]
    INVALID = [
        Invalid("import torch\nmodel = torch.nn.DataParallel(model)", count=1),
        Invalid("import torch.nn as nn\nmodel = nn.DataParallel(model, device_ids=[0, 1])"),
        Invalid("from torch.nn import DataParallel as DP\nmodel = DP(model)"),
        Invalid("from torch.nn.parallel import data_parallel\ny = data_parallel(model, x)"),
        Invalid("import torch.nn as nn\nclass MyDP(nn.DataParallel):\n    pass"),
    ]

    def check(self, ctx):
        for call in ctx.nodes.get(ast.Call, ()):
            if ctx.qualname(call.func) in _DATA_PARALLEL:
                yield self.finding(ctx, call)
        for cls in ctx.nodes.get(ast.ClassDef, ()):
            for base in cls.bases:
                if ctx.qualname(base) in _DATA_PARALLEL:
                    yield self.finding(ctx, base)
