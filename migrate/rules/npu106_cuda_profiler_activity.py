from migrate.findings import Category, Severity
from migrate.rules._device_helpers import prefix_node, uses
from migrate.rules.base import Invalid, Rule

# torch.profiler re-exports torch.autograd's enum; both spellings name the same member
_ACTIVITY = ("torch.profiler.ProfilerActivity.CUDA", "torch.autograd.ProfilerActivity.CUDA",
             "torch._C._profiler.ProfilerActivity.CUDA")


class CudaProfilerActivity(Rule):
    """`ProfilerActivity.CUDA` asks torch's profiler for CUDA kernel activity: on an Ascend host there
    is none, so a trace taken with it shows the CPU side only. torch_npu ships its own profiler
    (`torch_npu.profiler.profile`, whose `ProfilerActivity` has an `NPU` member: the 2.14.0 wheel
    exports it from `torch_npu/profiler/__init__.py` and names `ProfilerActivity.NPU` in its analysis
    constants). Reported once per use; not rewritten, because `torch.profiler.profile` itself must
    become `torch_npu.profiler.profile` as well."""

    CODE = "NPU106"
    NAME = "cuda-profiler-activity"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.WARNING
    MESSAGE = "`ProfilerActivity.CUDA` records CUDA kernels, which an NPU host has none of"
    TRIGGERS = ("ProfilerActivity",)
    VALID = [
        "import torch\np = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])",
        "import torch_npu\np = torch_npu.profiler.profile(activities=[torch_npu.profiler.ProfilerActivity.NPU])",
        '"""ProfilerActivity.CUDA"""',
    ]
    INVALID = [
        Invalid(
            "import torch\np = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,\n"
            "    torch.profiler.ProfilerActivity.CUDA])",
            count=1,
        ),
        Invalid("from torch.profiler import ProfilerActivity, profile\np = profile(activities=[ProfilerActivity.CUDA])", count=1),
        Invalid("from torch.autograd import ProfilerActivity as PA\nacts = {PA.CPU, PA.CUDA}", count=1),
    ]

    def _message(self, kb) -> str:
        if kb is not None and kb.has_api("torch_npu.profiler.profile") and kb.has_api("torch_npu.profiler.ProfilerActivity"):
            return (f"{self.MESSAGE}; profile with `torch_npu.profiler.profile(activities=[torch_npu.profiler.ProfilerActivity.CPU, "
                    "torch_npu.profiler.ProfilerActivity.NPU])`")
        return f"{self.MESSAGE}; use torch_npu's profiler for NPU activity"

    def check(self, ctx):
        message = self._message(ctx.kb)
        for prefix in _ACTIVITY:
            for node, qual in uses(ctx, prefix):
                yield self.finding(ctx, prefix_node(node, qual, prefix.count(".") + 1) or node, message)
