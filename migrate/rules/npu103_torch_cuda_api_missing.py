from migrate.findings import Category, Severity
from migrate.rules._device_helpers import cuda_api_uses
from migrate.rules.base import Invalid, Rule


class TorchCudaApiMissing(Rule):
    """Some `torch.cuda` APIs have no `torch.npu` counterpart at all in the target torch_npu:
    `torch.cuda.nvtx` (torch_npu has `torch.npu.mstx` instead), `torch.cuda.cudart()`,
    `torch.cuda.comm`, `torch.cuda.jiterator`, `list_gpu_processes`, ... A mechanical
    `cuda` -> `npu` rename (what Huawei's msFmkTransplt does) produces calls that do not exist, so
    these are reported with the alternative recorded in the knowledge data and left for a person.
    Names that are not public torch.cuda API and have no recorded counterpart are reported too."""

    CODE = "NPU103"
    NAME = "torch-cuda-api-missing"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.ERROR
    MESSAGE = "this `torch.cuda` API has no `torch.npu` counterpart in the target torch_npu"
    TRIGGERS = ("cuda",)
    VALID = [
        "import torch\ntorch.cuda.synchronize()",  # has a counterpart: NPU102
        "import torch\ntorch.npu.mstx.range_push('step')",
        "import torch\nif torch.cuda.is_available(): pass",
        "nvtx.range_push('x')",  # not imported from torch
    ]
    INVALID = [
        Invalid("import torch\ntorch.cuda.nvtx.range_push('fwd')", count=1),
        Invalid("import torch\nrt = torch.cuda.cudart()", count=1),
        Invalid("from torch.cuda import nvtx\nnvtx.range_pop()", count=1),
        Invalid("import torch as th\nth.cuda.comm.broadcast(t, devices=[0, 1])", count=1),
        Invalid("import torch\ntorch.cuda._check_capability()", count=1),
        Invalid("import torch\ntry:\n    pass\nexcept torch.cuda.OutOfMemoryError:\n    pass", count=1),
    ]

    def check(self, ctx):
        version = getattr(ctx.kb, "version", "?")
        for node, qual, api in cuda_api_uses(ctx):
            if api is None:
                message = (
                    f"`{qual}` is not a public torch.cuda API and no `torch.npu` counterpart is recorded for "
                    f"torch_npu {version}; check it by hand"
                )
                yield self.finding(ctx, node, message)
                continue
            if api.npu is not None:
                continue  # NPU102
            if api.works_as:
                yield self.finding(
                    ctx, node, f"`{qual}` is `{api.works_as}` and works unchanged on an NPU host; {api.alternative}",
                    severity=Severity.INFO,
                )
                continue
            message = f"`{qual}` has no `torch.npu` counterpart in torch_npu {version}"
            if api.alternative:
                message += f"; use {api.alternative}"
            else:
                message += "; remove it or guard it for CUDA hosts"
            if api.note:
                message += f" ({api.note})"
            yield self.finding(ctx, node, message)
