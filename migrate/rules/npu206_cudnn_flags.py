
from migrate.findings import Category, Severity
from migrate.rules._device_helpers import module_aliases, statement_of, uses
from migrate.rules._text import only_displayed
from migrate.rules.base import Invalid, Rule

CUDNN = "torch.backends.cudnn"


class CudnnFlags(Rule):
    """`torch.backends.cudnn.*` (benchmark, deterministic, enabled, allow_tf32) configures NVIDIA's
    cuDNN library, which an Ascend host does not have: setting the flags does nothing there and
    reading them says nothing about the NPU. Reproducibility needs `torch.use_deterministic_algorithms(True)`;
    TF32-like matmul/conv precision is NPU's HF32 switch when the target torch_npu has one. One
    finding per statement line (a flag list written over three lines gets three), plus one at `import torch.backends.cudnn as cudnn` /
    `from torch.backends import cudnn` (the import line is edited or removed too)."""

    CODE = "NPU206"
    NAME = "cudnn-flags"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.INFO
    MESSAGE = "`torch.backends.cudnn` flags have no effect on an NPU"
    TRIGGERS = ("cudnn",)
    VALID = [
        "import torch\ntorch.use_deterministic_algorithms(True)",
        "# torch.backends.cudnn.benchmark = True",
        "cudnn.benchmark = True",  # not imported from torch
        'import torch\nlogger.info(f"{torch.backends.cudnn.allow_tf32=}")\nprint("cudnn", torch.backends.cudnn.benchmark)',
    ]
    INVALID = [
        Invalid("import torch\ntorch.backends.cudnn.benchmark = True", count=1),
        Invalid("import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\ncudnn.benchmark = False", count=3),
        Invalid(
            "import torch\ntorch.backends.cudnn.deterministic = torch.backends.cudnn.benchmark = False",
            count=1,
        ),
        Invalid("from torch.backends import cudnn\nif cudnn.enabled: pass", count=2),
        Invalid('import torch\nprint(f"{torch.backends.cudnn.benchmark=}")\ntorch.backends.cudnn.benchmark = True', count=1),
        Invalid('import torch\nlog.info("tf32 %s", set_flag(torch.backends.cudnn.allow_tf32))', count=1),  # used, not just shown
        Invalid("import torch\nflags = [\n    torch.backends.cudnn.benchmark,\n    torch.backends.cudnn.deterministic,\n]", count=2),
    ]

    def _hint(self, kb, attr: str) -> str:
        if attr == "deterministic":
            return "; for reproducibility use `torch.use_deterministic_algorithms(True)`"
        if attr == "allow_tf32":
            if kb is not None and kb.has_api("torch.npu.conv.allow_hf32"):
                return "; the NPU switch for TF32-like convolutions is `torch.npu.conv.allow_hf32`"
            return ""
        return ""

    def _imports(self, ctx):
        """`import torch.backends.cudnn as cudnn` / `from torch.backends import cudnn`: the line a
        porting engineer edits or removes, reported besides the flag statements."""
        for alias, shown in module_aliases(ctx, CUDNN):
            yield self.finding(ctx, alias, f"`{shown}`: {self.MESSAGE}")

    def check(self, ctx):
        if any(not only_displayed(ctx, node) for node, _ in uses(ctx, CUDNN, loads_only=False)):
            yield from self._imports(ctx)  # an import alone (unused) is not a construct
        kb = ctx.kb
        by_statement: dict[tuple[int, int], list] = {}
        order = []
        for node, qual in uses(ctx, "torch.backends.cudnn", loads_only=False):
            if only_displayed(ctx, node):
                continue  # `logger.info(f"{torch.backends.cudnn.allow_tf32=}")` only shows the value
            # one finding per statement line: a statement spread over lines (stylegan2-pytorch's
            # conv2d_gradfix passes benchmark, deterministic and allow_tf32 on three lines) is
            # edited on each of them
            key = (id(statement_of(ctx, node)), node.lineno)
            if key not in by_statement:
                by_statement[key] = []
                order.append(key)
            by_statement[key].append((node, qual))
        for key in order:
            items = by_statement[key]
            names = []
            for _, qual in items:
                name = qual[len("torch.backends.cudnn") + 1 :].split(".", 1)[0] or "cudnn"
                if name not in names:
                    names.append(name)
            message = f"{self.MESSAGE} ({', '.join(f'`{n}`' for n in names)})"
            for name in names:
                message += self._hint(kb, name)
            yield self.finding(ctx, items[0][0], message)
