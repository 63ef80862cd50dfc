import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import cuda_device_literals, literal_to_npu
from migrate.rules.base import Invalid, Rule

# callee -> (index of the positional device-type argument or None, keyword name)
_DEVICE_TYPE_ARGS = {
    "torch.autocast": (0, "device_type"),
    "torch.amp.autocast": (0, "device_type"),
    "torch.amp.autocast_mode.autocast": (0, "device_type"),
    "torch.amp.custom_fwd": (None, "device_type"),
    "torch.amp.custom_bwd": (None, "device_type"),
    "torch.amp.autocast_mode.custom_fwd": (None, "device_type"),
    "torch.amp.autocast_mode.custom_bwd": (None, "device_type"),
    "torch.amp.is_autocast_available": (0, "device_type"),
    "torch.amp.autocast_mode.is_autocast_available": (0, "device_type"),
    "torch.is_autocast_enabled": (0, "device_type"),
    "torch.get_autocast_dtype": (0, "device_type"),
    "torch.set_autocast_dtype": (0, "device_type"),
}


class AutocastDeviceType(Rule):
    """`torch.autocast("cuda")` / `torch.amp.autocast(device_type="cuda")` (and `custom_fwd` /
    `custom_bwd(device_type="cuda")`) enable mixed precision for CUDA tensors only: on an Ascend
    host the model then silently runs in float32 (slower, more memory) or autocast warns and turns
    itself off. The device type for torch_npu is "npu"; the rewrite changes only `cuda` in the
    literal (both branches of a conditional expression are looked at)."""

    CODE = "NPU402"
    NAME = "autocast-device-type"
    CATEGORY = Category.AMP
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = 'autocast for device type "cuda" does nothing for NPU tensors; use device_type="npu"'
    TRIGGERS = ("autocast", "custom_fwd", "custom_bwd")
    VALID = [
        'import torch\nwith torch.autocast("npu"): pass',
        'import torch\nwith torch.autocast(device_type="cpu", dtype=torch.bfloat16): pass',
        'import torch\nwith torch.autocast(device_type=x.device.type): pass',  # not a literal
        'autocast("cuda")',  # not imported from torch
        'from contextlib import nullcontext\nscope = nullcontext if a else nullcontext\nwith scope("cuda"): pass',
    ]
    INVALID = [
        Invalid('import torch\nwith torch.autocast("cuda"): pass', expected='import torch\nwith torch.autocast("npu"): pass', count=1),
        Invalid(
            'from torch import autocast\nscope = autocast if amp else nullcontext\nwith scope("cuda"): pass',
            expected='from torch import autocast\nscope = autocast if amp else nullcontext\nwith scope("npu"): pass',
            count=1,
        ),
        Invalid(
            "import torch\nwith torch.amp.autocast(device_type='cuda', dtype=torch.float16): pass",
            expected="import torch\nwith torch.amp.autocast(device_type='npu', dtype=torch.float16): pass",
        ),
        Invalid(
            'from torch.amp import autocast\nwith autocast("cuda", enabled=use_amp): pass',
            expected='from torch.amp import autocast\nwith autocast("npu", enabled=use_amp): pass',
        ),
        Invalid(
            'import torch\n@torch.amp.custom_fwd(device_type="cuda")\ndef forward(ctx, x): return x',
            expected='import torch\n@torch.amp.custom_fwd(device_type="npu")\ndef forward(ctx, x): return x',
        ),
        Invalid(
            'import torch\nwith torch.autocast("cuda" if gpu else "cpu"): pass',
            expected='import torch\nwith torch.autocast("npu" if gpu else "cpu"): pass',
        ),
    ]

    def check(self, ctx):
        aliases = _conditional_aliases(ctx)
        for call in ctx.nodes.get(ast.Call, ()):
            spec = _DEVICE_TYPE_ARGS.get(ctx.qualname(call.func))
            if spec is None and isinstance(call.func, ast.Name):
                spec = aliases.get(call.func.id)
            if spec is None:
                continue
            index, keyword = spec
            values = []
            if index is not None and len(call.args) > index and not isinstance(call.args[index], ast.Starred):
                values.append(call.args[index])
            value = ctx.keyword(call, keyword)
            if value is not None:
                values.append(value)
            for value in values:
                for literal in cuda_device_literals(value):
                    edit, new_text = literal_to_npu(ctx, literal)
                    yield self.finding(ctx, literal, edits=[edit] if edit else [], replacement=new_text)


def _conditional_aliases(ctx) -> dict:
    """Names bound to autocast by assignment, also in one branch of a conditional expression:
    `precision_scope = autocast if opt.precision == "autocast" else nullcontext` ...
    `with precision_scope("cuda"):` (CompVis stable-diffusion's scripts/txt2img.py)."""
    out: dict = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
            continue
        value = statement.value
        branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        for branch in branches:
            spec = _DEVICE_TYPE_ARGS.get(ctx.qualname(branch)) if isinstance(branch, (ast.Name, ast.Attribute)) else None
            if spec is not None and spec[0] == 0:  # autocast-like: the device type is the first argument
                out[statement.targets[0].id] = spec
    return out
