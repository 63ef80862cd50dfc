from migrate.findings import Category, Severity
from migrate.rules._device_helpers import rename_edits, uses
from migrate.rules._text import only_displayed
from migrate.rules.base import Invalid, Rule

_NAME = "torch.cuda.is_available"


class CudaAvailableCheck(Rule):
    """`torch.cuda.is_available()` is False on an Ascend host, so scripts that gate on it fall back
    to the CPU and train hundreds of times slower without an error. torch_npu provides
    `torch.npu.is_available()`; the rewrite changes just `cuda` (alias-aware; a `from torch.cuda
    import is_available` is rewritten in the import when all of its names have counterparts). A
    value that is only printed or logged (`print(torch.cuda.is_available())`) gates nothing and is
    not reported."""

    CODE = "NPU203"
    NAME = "cuda-available-check"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = "`torch.cuda.is_available()` is False on an NPU host; use `torch.npu.is_available()`"
    TRIGGERS = ("is_available",)
    VALID = [
        "import torch\nif torch.npu.is_available(): pass",
        "import torch\nok = torch.backends.cudnn.is_available()",
        "import torch\nok = torch.backends.mps.is_available()",
        "if cuda.is_available(): pass",  # not imported from torch
        "import torch\nprint(torch.cuda.is_available())",  # only shown (GroundingDINO docker_test.py)
    ]
    INVALID = [
        Invalid(
            'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"',
            expected='import torch\ndevice = "cuda" if torch.npu.is_available() else "cpu"',
            count=1,
        ),
        Invalid("import torch as th\nuse_gpu = th.cuda.is_available()", expected="import torch as th\nuse_gpu = th.npu.is_available()"),
        Invalid(
            "from torch.cuda import is_available\nok = is_available()",
            expected="from torch.npu import is_available\nok = is_available()",
        ),
        Invalid("from torch import cuda\nok = cuda.is_available()", count=1),
    ]

    def check(self, ctx):
        kb = ctx.kb
        target = "torch.npu.is_available"
        exists = kb is not None and kb.has_api(target)
        for node, qual in uses(ctx, _NAME):
            if qual != _NAME or only_displayed(ctx, node):
                continue
            edits = (rename_edits(ctx, node, qual, target) or []) if exists else []
            yield self.finding(ctx, node, edits=edits, replacement=target if exists else None)
