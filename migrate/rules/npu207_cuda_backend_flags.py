import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import module_aliases, uses
from migrate.rules._text import only_displayed
from migrate.rules.base import Invalid, Rule

_MODULE = "torch.backends.cuda"
_SDP = (
    "sdp_kernel",
    "enable_flash_sdp",
    "enable_mem_efficient_sdp",
    "enable_math_sdp",
    "enable_cudnn_sdp",
    "flash_sdp_enabled",
    "mem_efficient_sdp_enabled",
    "math_sdp_enabled",
    "cudnn_sdp_enabled",
    "can_use_flash_attention",
    "can_use_efficient_attention",
    "can_use_cudnn_attention",
    "SDPBackend",
)


class CudaBackendFlags(Rule):
    """`torch.backends.cuda.*` configures CUDA-only behaviour: TF32 matmuls
    (`matmul.allow_tf32`), reduced-precision reductions, the flash / memory-efficient SDPA kernel
    toggles, cuFFT plan caches, the preferred linalg library. On an Ascend host none of it applies,
    so a script that relies on it for speed or numerics behaves differently without an error. Where
    the knowledge data confirms an NPU switch (HF32 via `torch.npu.matmul.allow_hf32`, fused
    attention via `torch_npu.npu_fusion_attention`) the message names it. The import line that
    brings a used setting in (`from torch.backends.cuda import sdp_kernel`, `from torch.backends
    import cuda as bc`) is reported too: it is edited or removed with the uses."""

    CODE = "NPU207"
    NAME = "cuda-backend-flags"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    MESSAGE = "`torch.backends.cuda` settings have no effect on an NPU"
    TRIGGERS = ("backends",)
    VALID = [
        "import torch\ntorch.backends.cudnn.benchmark = True",  # NPU206
        "import torch\nok = torch.backends.mps.is_available()",
        "backends.cuda.matmul.allow_tf32 = True",  # not imported from torch
        "import torch\nkind = torch.backends.cuda.SDPBackend.FLASH_ATTENTION",  # an enum constant
        "import torch\nif hasattr(torch.backends.cuda, 'matmul'): pass",  # a probe
        "from torch.backends.cuda import SDPBackend\nkind = SDPBackend.MATH",  # an import of an enum only
        'import torch\nlogger.info(f"{torch.backends.cuda.matmul.allow_tf32=}")',  # only shown in a log line
    ]
    INVALID = [
        Invalid("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True", count=1),
        Invalid("import torch\ntorch.backends.cuda.enable_flash_sdp(False)", count=1),
        Invalid(
            "import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False):\n    pass",
            count=1,
        ),
        Invalid("from torch.backends import cuda as bc\nbc.preferred_linalg_library('magma')", count=2),
        Invalid('import torch\nprint(f"{torch.backends.cuda.matmul.allow_tf32}")\ntorch.backends.cuda.matmul.allow_tf32 = True', count=1),
        Invalid(  # the import line and the use
            "from torch.backends.cuda import SDPBackend, sdp_kernel\nwith sdp_kernel(enable_math=False):\n    pass",
            count=2,
        ),
    ]

    def _hint(self, kb, qual: str) -> str:
        rest = qual[len("torch.backends.cuda") + 1 :]
        first = rest.split(".", 1)[0]
        if rest.startswith("matmul"):
            if kb is not None and kb.has_api("torch.npu.matmul.allow_hf32"):
                return "; the NPU switch for TF32-like matmuls is `torch.npu.matmul.allow_hf32` (HF32)"
            return ""
        if first in _SDP:
            if kb is not None and kb.has_api("torch_npu.npu_fusion_attention"):
                return "; the NPU's fused attention kernel is `torch_npu.npu_fusion_attention`"
            return ""
        return ""

    @staticmethod
    def _not_a_setting(ctx, node, qual: str) -> bool:
        """Enum constants (`SDPBackend.FLASH_ATTENTION`) and probes (`hasattr(torch.backends.cuda, ...)`)."""
        rest = qual[len("torch.backends.cuda") + 1 :].split(".")
        if any(part[:1].isupper() for part in rest if part):
            return True
        parent = ctx.parent(node)
        return (
            isinstance(parent, ast.Call)
            and parent.func is not node
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("hasattr", "getattr", "isinstance")
        )

    def _imports(self, ctx, used: set[str]):
        """The import statements that bind a setting used in the file (one finding per statement)."""
        if used:
            for alias, shown in module_aliases(ctx, _MODULE):
                yield self.finding(ctx, alias, f"`{shown}`: {self.MESSAGE}")
        for statement in ctx.nodes.get(ast.ImportFrom, ()):
            bound = [a for a in statement.names if a.name in used] if statement.module == _MODULE and not statement.level else []
            if bound:
                names = ", ".join(a.name for a in statement.names)
                yield self.finding(ctx, bound[0], f"`from {_MODULE} import {names}`: {self.MESSAGE}")

    def check(self, ctx):
        used: set[str] = set()  # the first name below torch.backends.cuda of each real use
        found = []
        for node, qual in uses(ctx, _MODULE, loads_only=False):
            if self._not_a_setting(ctx, node, qual) or only_displayed(ctx, node):
                continue
            used.add(qual[len(_MODULE) + 1 :].split(".", 1)[0])
            message = f"`{qual}` is a CUDA-only setting with no effect on an NPU{self._hint(ctx.kb, qual)}"
            found.append(self.finding(ctx, node, message))
        yield from self._imports(ctx, used)
        yield from found
