import ast
import functools
import json
from importlib import resources

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import chain_tops
from migrate.rules.base import Invalid, Rule


@functools.cache
def dynamo_backends(version: str) -> tuple[str, ...]:
    """The torch._dynamo backends the torch_npu wheel registers (its entry points), from the
    version's knowledge file; empty when the data does not record them."""
    try:
        text = resources.files("migrate.knowledge").joinpath("data", "versions", f"{version}.json").read_text(encoding="utf-8")
        points = json.loads(text).get("entry_points", {})
    except (OSError, ValueError):
        return ()
    return tuple(points.get("torch_dynamo_backends", ()))


class TorchCompile(Rule):
    """`torch.compile` with its default backend (inductor) generates Triton kernels for CUDA,
    which do not exist on an Ascend NPU. torch_npu registers its own dynamo backends (read from
    the wheel's entry points in the knowledge data, e.g. `npu` = torchair graph mode), so the call
    should name one: `torch.compile(model, backend="npu")`. Flagged: calls and decorators
    (`@torch.compile`, `@torch.compile(mode=...)`) without `backend=` or with
    `backend="inductor"`; a backend given as a variable is left alone. Not rewritten: graph mode
    changes behaviour (graph breaks, compile time) and should be a deliberate choice."""

    CODE = "NPU604"
    NAME = "torch-compile"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "torch.compile's default inductor backend targets CUDA"
    TRIGGERS = ("compile",)
    VALID = [
        'import torch\nm = torch.compile(model, backend="npu")',
        "import torch\nm = torch.compile(model, backend=args.backend)",
        "import re\np = re.compile('x+')",
        '"""Call torch.compile(model) for speed."""',
    ]
    INVALID = [
        Invalid("import torch\nmodel = torch.compile(model)", count=1),
        Invalid('import torch\nmodel = torch.compile(model, backend="inductor", mode="max-autotune")', count=1),
        Invalid("import torch\n@torch.compile\ndef f(x):\n    return x + 1", count=1),
        Invalid("import torch\n@torch.compile(fullgraph=True)\ndef f(x):\n    return x + 1", count=1),
        Invalid("from torch import compile as tc\nm = tc(model)", count=1),
    ]

    def check(self, ctx):
        backends = dynamo_backends(ctx.kb.version)
        hint = (
            f"; torch_npu {ctx.kb.version} registers the backend{'s' if len(backends) > 1 else ''} "
            + ", ".join(f'"{b}"' for b in backends)
            + f' (e.g. torch.compile(model, backend="{backends[0]}"))'
            if backends
            else "; pass a torch_npu backend (backend=\"npu\", torchair)"
        )
        for node, name in chain_tops(ctx):  # the outermost chains rooted at an imported name
            if name != "torch.compile":
                continue
            parent = ctx.parent(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                backend = ctx.keyword(parent, "backend")  # keyword-only in torch.compile's signature
                if backend is not None and ctx.string_value(backend) != "inductor":
                    continue
                yield self.finding(ctx, parent, self.MESSAGE + hint)
            elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node in parent.decorator_list:
                yield self.finding(ctx, node, self.MESSAGE + hint)
