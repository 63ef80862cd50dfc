import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import chain_tops
from migrate.rules.base import Invalid, Rule

_JIT = frozenset({"torch.jit.script", "torch.jit.trace", "torch.jit.trace_module", "torch.jit.script_method"})


class TorchScript(Rule):
    """TorchScript (`torch.jit.script` / `torch.jit.trace`) is in maintenance mode upstream and
    is not an optimisation path on Ascend: scripted or traced modules run op by op through the
    same NPU kernels, and some scripted constructs are unsupported. Informational: it usually
    still works. Flagged as calls and as decorators (`@torch.jit.script`), alias-aware. For
    speed use `torch.compile(backend="npu")`; for export, ONNX/ATC or torchair."""

    CODE = "NPU605"
    NAME = "torchscript"
    CATEGORY = Category.OPS
    SEVERITY = Severity.INFO
    MESSAGE = "TorchScript brings no speed-up on an NPU and some constructs are unsupported; prefer eager or torch.compile(backend=\"npu\")"
    TRIGGERS = ("jit",)
    VALID = [
        "import torch\n@torch.jit.ignore\ndef f(x): return x",
        "import numba\n@numba.jit\ndef f(x): return x",
        '"""Use torch.jit.script for export."""',
    ]
    INVALID = [
        Invalid("import torch\nm = torch.jit.script(model)", count=1),
        Invalid("import torch\n@torch.jit.script\ndef f(x):\n    return x * 2", count=1),
        Invalid("from torch.jit import trace\ntm = trace(model, example)", count=1),
    ]

    def check(self, ctx):
        for node, name in chain_tops(ctx):  # the outermost chains rooted at an imported name
            if name in _JIT:
                parent = ctx.parent(node)
                yield self.finding(ctx, parent if isinstance(parent, ast.Call) and parent.func is node else node)
