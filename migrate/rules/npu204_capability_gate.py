from migrate.findings import Category, Severity
from migrate.rules._device_helpers import CAPABILITY_APIS, gated_properties_nodes, under, uses
from migrate.rules.base import Invalid, Rule


class CapabilityGate(Rule):
    """Compute-capability gates (`torch.cuda.get_device_capability() >= (8, 0)`,
    `torch.cuda.get_device_properties(0).major >= 8`, `"sm_90" in torch.cuda.get_arch_list()`)
    decide features such as bf16, flash attention or TF32 by NVIDIA SM version. NPUs have no SM
    version: these calls fail or return nothing meaningful on an Ascend host, so the gate must be
    rewritten by hand as a feature check (`torch.npu.is_bf16_supported()`) or a SoC check
    (`torch.npu.get_device_name()`). Reported where the capability is read; not rewritten."""

    CODE = "NPU204"
    NAME = "capability-gate"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    MESSAGE = "NPUs have no CUDA compute capability (SM version); replace this gate with a feature check"
    TRIGGERS = ("get_device_capability", "get_device_properties", "get_arch_list")
    VALID = [
        "import torch\nname = torch.cuda.get_device_properties(0).name",  # NPU102
        "import torch\nok = torch.npu.is_bf16_supported()",
        "cap = gpu.get_device_capability()",  # not torch's
    ]
    INVALID = [
        Invalid("import torch\nif torch.cuda.get_device_capability()[0] >= 8: pass", count=1),
        Invalid("import torch\nmajor, minor = torch.cuda.get_device_capability(device)", count=1),
        Invalid("import torch as th\nuse_bf16 = th.cuda.get_device_properties(0).major >= 8", count=1),
        Invalid("import torch\np = torch.cuda.get_device_properties(rank)\nif p.major < 7: pass", count=1),
        Invalid("from torch.cuda import get_arch_list\nok = 'sm_90' in get_arch_list()", count=1),
    ]

    def _message(self, kb) -> str:
        hints = [name for name in ("torch.npu.get_device_name", "torch.npu.is_bf16_supported") if kb is not None and kb.has_api(name)]
        if hints:
            return f"{self.MESSAGE} (e.g. {' / '.join(f'`{h}()`' for h in hints)})"
        return self.MESSAGE

    def check(self, ctx):
        message = self._message(ctx.kb)
        gated = gated_properties_nodes(ctx)
        for node, qual in uses(ctx, "torch.cuda"):
            if any(under(qual, api) for api in CAPABILITY_APIS) or id(node) in gated:
                yield self.finding(ctx, node, message)
