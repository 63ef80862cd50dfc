import ast

from migrate.findings import Category, Edit, Severity
from migrate.rules._device_helpers import cuda_device_literals, literal_to_npu
from migrate.rules.base import Invalid, Rule

_GRAD_SCALERS = frozenset({"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler", "torch.GradScaler"})


def _open_paren(ctx, call: ast.Call) -> tuple[int, int] | None:
    """(line, col0) of the `(` that opens the call's arguments."""
    _, _, line, col = ctx.span(call.func)
    while line <= len(ctx.lines):
        text = ctx.lines[line - 1]
        while col < len(text):
            char = text[col]
            if char == "(":
                return line, col
            if char == "#":
                break
            col += 1
        line, col = line + 1, 0
    return None


class GradScalerDevice(Rule):
    """`torch.amp.GradScaler("cuda")` (or `device="cuda"`) scales losses for CUDA tensors; on an
    Ascend host it refuses NPU gradients. `torch.amp.GradScaler()` without a device is the same
    thing: its device defaults to "cuda". torch_npu's device type is "npu"; the rewrite changes
    only `cuda` in the literal, or inserts "npu" when no device is given."""

    CODE = "NPU403"
    NAME = "grad-scaler-device"
    CATEGORY = Category.AMP
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = 'GradScaler for device "cuda" does not handle NPU gradients; use GradScaler("npu")'
    TRIGGERS = ("GradScaler",)
    VALID = [
        'import torch\nscaler = torch.amp.GradScaler("npu")',
        "import torch\nscaler = torch.amp.GradScaler(device=dev)",  # a variable: not known here
        "import torch\nscaler = torch.amp.GradScaler(*args, **kwargs)",
        "import torch\nscaler = torch.cuda.amp.GradScaler()",  # NPU401
        "scaler = GradScaler()",  # not imported from torch
    ]
    INVALID = [
        Invalid('import torch\nscaler = torch.amp.GradScaler("cuda")', expected='import torch\nscaler = torch.amp.GradScaler("npu")', count=1),
        Invalid(
            "from torch.amp import GradScaler\nscaler = GradScaler(device='cuda', init_scale=1024)",
            expected="from torch.amp import GradScaler\nscaler = GradScaler(device='npu', init_scale=1024)",
        ),
        Invalid("import torch\nscaler = torch.amp.GradScaler()", expected='import torch\nscaler = torch.amp.GradScaler("npu")'),
        Invalid(
            "import torch\nscaler = torch.GradScaler(enabled=use_amp)",
            expected='import torch\nscaler = torch.GradScaler("npu", enabled=use_amp)',
        ),
    ]

    def check(self, ctx):
        for call in ctx.nodes.get(ast.Call, ()):
            if ctx.qualname(call.func) not in _GRAD_SCALERS:
                continue
            device = call.args[0] if call.args else ctx.keyword(call, "device")
            if device is None:
                if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                    continue  # the device may come from *args / **kwargs
                paren = _open_paren(ctx, call)
                edits = []
                if paren is not None:
                    line, col = paren
                    text = '"npu", ' if call.keywords else '"npu"'
                    edits.append(Edit(line, col + 1, line, col + 1, text))
                message = 'GradScaler without a device defaults to "cuda" and does not handle NPU gradients; pass "npu"'
                yield self.finding(ctx, call, message, edits=edits, replacement='"npu"')
                continue
            if isinstance(device, ast.Starred):
                continue
            for literal in cuda_device_literals(device):
                edit, new_text = literal_to_npu(ctx, literal)
                yield self.finding(ctx, literal, edits=[edit] if edit else [], replacement=new_text)
