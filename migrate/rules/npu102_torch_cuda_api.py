from migrate.findings import Category, Severity
from migrate.rules._device_helpers import cuda_api_uses, edit_anchor, rename_edits
from migrate.rules._text import only_displayed
from migrate.rules.base import Invalid, Rule

# Queries that answer harmlessly on a host without CUDA (0 devices): printing one changes nothing.
_HARMLESS_QUERIES = frozenset({"torch.cuda.device_count", "torch.cuda.is_initialized"})


class TorchCudaApi(Rule):
    """`torch.cuda` drives NVIDIA GPUs only; on an Ascend host its calls fail (no CUDA driver) or
    silently report zero devices. torch_npu registers `torch.npu` with the same shape for most of it
    (`synchronize`, `set_device`, `device_count`, memory statistics, streams, events, RNG state,
    legacy tensor types such as `torch.cuda.FloatTensor`). Whether a counterpart exists is read from
    the knowledge data of the target torch_npu version, never assumed: only names that exist there
    are rewritten (a rename such as `CUDAGraph` -> `NPUGraph` included); the others are NPU103.
    Aliases (`import torch as th`, `from torch import cuda`, `from torch.cuda import synchronize`)
    are followed; the rewrite changes just `cuda` (or the renamed part), or the module text of a
    `from torch.cuda import ...` when every imported name has a same-named counterpart. A device
    count that is only printed or logged is not reported (it answers 0, harmlessly); memory
    statistics are, even in a log line (they read 0 and the column silently goes blank)."""

    CODE = "NPU102"
    NAME = "torch-cuda-api"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.ERROR
    FIXABLE = True
    MESSAGE = "`torch.cuda` API has no CUDA device to drive on an NPU host; use its `torch.npu` counterpart"
    TRIGGERS = ("cuda",)
    VALID = [
        "import torch\ntorch.npu.synchronize()",
        "import torch\ntorch.cuda.nvtx.range_push('x')",  # no counterpart: NPU103
        "import torch\nok = torch.cuda.is_available()",  # NPU203
        "import torch\nwith torch.cuda.amp.autocast(): pass",  # NPU401
        "import torch\ncap = torch.cuda.get_device_capability()",  # NPU204
        "import torch\nif torch.cuda.get_device_properties(0).major >= 8: pass",  # NPU204
        "import torch.cuda\nimport numba\nnumba.cuda.synchronize()",  # the import is left; numba is not torch
        "cfg.cuda.synchronize()",  # not an imported name
        "# torch.cuda.synchronize()\n'''torch.cuda.empty_cache()'''",
        'import torch\nprint("rank {}, devices {}".format(rank, torch.cuda.device_count()))',  # only shown
    ]
    INVALID = [
        Invalid("import torch\ntorch.cuda.synchronize()", expected="import torch\ntorch.npu.synchronize()", count=1),
        Invalid("import torch as th\nth.cuda.set_device(rank)", expected="import torch as th\nth.npu.set_device(rank)"),
        Invalid(
            "import torch\nn = torch.cuda.memory.memory_allocated()",
            expected="import torch\nn = torch.npu.memory.memory_allocated()",
            count=1,
        ),
        Invalid("import torch\ng = torch.cuda.CUDAGraph()", expected="import torch\ng = torch.npu.NPUGraph()"),
        Invalid("import torch\nx = torch.cuda.FloatTensor(3)", expected="import torch\nx = torch.npu.FloatTensor(3)"),
        Invalid(
            "from torch.cuda import synchronize, empty_cache\nempty_cache()\nsynchronize()",
            expected="from torch.npu import synchronize, empty_cache\nempty_cache()\nsynchronize()",
            count=2,
        ),
        Invalid(
            "import torch\np = torch.cuda.get_device_properties(0).total_memory",
            expected="import torch\np = torch.npu.get_device_properties(0).total_memory",
        ),
        Invalid(  # a memory statistic in a log line still needs its counterpart
            "import torch\nlogger.info(log_msg.format(memory=torch.cuda.max_memory_allocated() / MB))", count=1),
        # a bare imported `cuda` is reported, not rewritten (the import would have to change)
        Invalid("from torch import cuda\ncuda.synchronize()", count=1),
    ]

    def check(self, ctx):
        for node, qual, api in cuda_api_uses(ctx):
            if api is None or api.npu is None:
                continue  # NPU103
            if qual in _HARMLESS_QUERIES and only_displayed(ctx, node):
                continue
            edits = rename_edits(ctx, node, qual, api.npu) or []
            message = f"`{qual}` does not work on an NPU host; use `{api.npu}`"
            if not edits:
                message += " (not rewritten automatically: the name comes from an import that cannot be changed safely)"
            yield self.finding(ctx, edit_anchor(ctx, node, edits), message, edits=edits, replacement=api.npu)
