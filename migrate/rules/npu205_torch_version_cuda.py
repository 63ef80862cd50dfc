from migrate.findings import Category, Severity
from migrate.rules._device_helpers import prefix_node, uses
from migrate.rules.base import Invalid, Rule


class TorchVersionCuda(Rule):
    """`torch.version.cuda` is None on an Ascend host (torch there is a CPU build, and torch_npu
    does not change it), so `float(torch.version.cuda)` raises and `torch.version.cuda >= "11"`
    gates switch features off. Check torch_npu's own version instead. Every read is reported, also in
    prints and logs (an environment report that says "CUDA None" misleads whoever reads it), once per
    use, at `torch.version.cuda` (not at a longer chain such as `.split`)."""

    CODE = "NPU205"
    NAME = "torch-version-cuda"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    MESSAGE = "`torch.version.cuda` is None on an NPU host"
    TRIGGERS = ("version",)
    VALID = [
        "import torch\nprint(torch.__version__)",
        "# torch.version.cuda\nimport torch",
        "import torch\nv = torch.version.git_version",
        "version.cuda = 1",
    ]
    INVALID = [
        Invalid("import torch\nif float(torch.version.cuda) >= 11.8: pass", count=1),
        Invalid("from torch.version import cuda as cuda_version\nok = cuda_version is not None", count=1),
        Invalid("import torch as th\nv = th.version.cuda", count=1),
        Invalid("import torch\nprint(f'built with CUDA {torch.version.cuda}')", count=1),
    ]

    def _message(self, kb) -> str:
        if kb is not None and kb.has_api("torch_npu.version.__version__"):
            return f"{self.MESSAGE}; check `torch_npu.version.__version__` instead"
        return f"{self.MESSAGE}; check torch_npu's version via `importlib.metadata.version(\"torch-npu\")` instead"

    def check(self, ctx):
        message = self._message(ctx.kb)
        for node, qual in uses(ctx, "torch.version.cuda"):
            node = prefix_node(node, qual, 3) or node  # `torch.version.cuda.split(".")`: point at the version
            yield self.finding(ctx, node, message)
