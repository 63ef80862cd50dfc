
from migrate.findings import Category, Severity
from migrate.rules._device_helpers import report_node, shadowed, statement_of, uses
from migrate.rules.base import Invalid, Rule

_INDUCTOR_CONFIG = "torch._inductor.config"
# functorch / torch._functorch AOT helpers that compile with nvFuser or TorchScript's CUDA fuser
_NVFUSER = ("functorch.compile.memory_efficient_fusion", "torch._functorch.compile.memory_efficient_fusion",
            "functorch.compile.nvfuser_jit", "torch._functorch.compilers.nvfuser_jit")


class GpuCompilePath(Rule):
    """Compiler settings and helpers that target NVIDIA code generation.
    `torch._inductor.config.*` tunes torch's Inductor, whose GPU output is Triton / CUDA code; the
    torch_npu wheel ships its own Inductor backend (`torch_npu/_inductor`, with its own config),
    so each setting must be checked against it (a warning, once per statement). functorch's
    `memory_efficient_fusion` (and `nvfuser_jit`) compiles with nvFuser, which exists only for
    CUDA: use `torch.compile(backend="npu")` (torchair) or leave the model eager (an error)."""

    CODE = "NPU608"
    NAME = "gpu-compile-path"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "targets NVIDIA code generation"
    TRIGGERS = ("_inductor", "memory_efficient_fusion", "nvfuser_jit")
    VALID = [
        "import torch\nm = torch.compile(model, backend='npu')",
        "import torch._dynamo.config\ntorch._dynamo.config.cache_size_limit = 64",
        # the module alias shadowed by a parameter of the same name
        "import torch._inductor.config as config\nclass M:\n    def __init__(self, config):\n        self.n = config.n_embd",
    ]
    INVALID = [
        Invalid("import torch._inductor.config\ntorch._inductor.config.coordinate_descent_tuning = True", count=1),
        Invalid("import torch\ntorch._inductor.config.triton.unique_kernel_names = True\ntorch._inductor.config.fx_graph_cache = True", count=2),
        Invalid("from torch._inductor import config as ic\nic.max_autotune = True", count=1),
        Invalid("from functorch.compile import memory_efficient_fusion\nm = memory_efficient_fusion(model)", count=1),
    ]

    def check(self, ctx):
        seen: set[int] = set()
        for node, qual in uses(ctx, _INDUCTOR_CONFIG, loads_only=False):
            if qual == _INDUCTOR_CONFIG or shadowed(ctx, node):
                continue
            statement = statement_of(ctx, node)
            if id(statement) in seen:
                continue
            seen.add(id(statement))
            setting = qual[len(_INDUCTOR_CONFIG) + 1 :]
            yield self.finding(
                ctx, node,
                f"`{qual}`: Inductor setting `{setting}` tunes NVIDIA (Triton / CUDA) code generation; torch_npu "
                "has its own Inductor backend (torch_npu/_inductor/config.py): check the setting against it, "
                "or compile with backend='npu' (torchair)",
            )
        for node, qual in [*uses(ctx, "functorch.compile"), *uses(ctx, "torch._functorch")]:
            if qual in _NVFUSER:
                yield self.finding(
                    ctx, report_node(ctx, node),
                    f"`{qual}` compiles with nvFuser, which exists only for CUDA; use torch.compile(backend='npu') "
                    "(torchair) or run the model eagerly",
                    severity=Severity.ERROR,
                )
