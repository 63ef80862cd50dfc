import ast

from migrate.findings import Category, Edit, Severity
from migrate.rules._device_helpers import edit_anchor, old_torch_fallback, rename_edits, root_name, uses
from migrate.rules.base import Invalid, Rule


def _imported_by(ctx, node):
    """The `from ... import` alias that binds the name `node` starts from, if any."""
    name = root_name(node)
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        for alias in statement.names:
            if (alias.asname or alias.name) == name:
                return alias
    return None


class CudaAmpApi(Rule):
    """`torch.cuda.amp` (autocast, GradScaler, custom_fwd / custom_bwd) is bound to the CUDA device:
    on an Ascend host its autocast does nothing for NPU tensors and its GradScaler refuses to run.
    torch_npu ships `torch.npu.amp` with the same names. Followed through any alias
    (`import torch as th`, `from torch.cuda import amp`, `from torch.cuda.amp import GradScaler`);
    the rewrite changes just `cuda` in the attribute chain or in the import's module text, and only
    when the knowledge data confirms `torch.npu.amp.X` exists in the target torch_npu."""

    CODE = "NPU401"
    NAME = "cuda-amp-api"
    CATEGORY = Category.AMP
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = "`torch.cuda.amp` does not act on NPU tensors; use `torch.npu.amp`"
    TRIGGERS = ("amp",)
    VALID = [
        "import torch\nscaler = torch.npu.amp.GradScaler()",
        'import torch\nwith torch.autocast("npu"): pass',
        "from apex import amp\nmodel, opt = amp.initialize(model, opt)",  # NPU404
        "amp.GradScaler()",  # not imported
        # an old-torch fallback: the try body already uses the device-neutral name
        "import torch\ntry:\n    s = torch.amp.GradScaler(device=device)\nexcept (AttributeError, TypeError):\n    s = torch.cuda.amp.GradScaler()",
    ]
    INVALID = [
        Invalid(  # InternImage dcnv3_func.py: names imported from torch.cuda.amp are changed in the import line,
            # and each decorator then needs device_type (reported at the decorator too)
            "from torch.cuda.amp import custom_bwd, custom_fwd\nclass F(Function):\n    @staticmethod\n    @custom_fwd\n"
            "    def forward(ctx, x): return x\n    @staticmethod\n    @custom_bwd\n    def backward(ctx, g): return g",
            count=4,
        ),
        Invalid(  # the fallback of a try that does not use the neutral name is a real use
            "import torch\ntry:\n    s = make_scaler()\nexcept AttributeError:\n    s = torch.cuda.amp.GradScaler()", count=1,
        ),
        Invalid(
            "import torch\nscaler = torch.cuda.amp.GradScaler()",
            expected="import torch\nscaler = torch.npu.amp.GradScaler()",
            count=1,
        ),
        Invalid(
            "import torch as th\nwith th.cuda.amp.autocast(dtype=th.float16):\n    y = m(x)",
            expected="import torch as th\nwith th.npu.amp.autocast(dtype=th.float16):\n    y = m(x)",
        ),
        Invalid(
            "from torch.cuda import amp\nscaler = amp.GradScaler()",
            expected="from torch.npu import amp\nscaler = amp.GradScaler()",
        ),
        Invalid(
            "from torch.cuda.amp import GradScaler, autocast\nscaler = GradScaler()\nwith autocast():\n    pass",
            expected="from torch.npu.amp import GradScaler, autocast\nscaler = GradScaler()\nwith autocast():\n    pass",
            count=2,
        ),
        Invalid(
            "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)\n    def forward(ctx, x): return x",
            expected='import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    @torch.amp.custom_fwd(device_type="npu", cast_inputs=torch.float16)\n    def forward(ctx, x): return x',
        ),
    ]

    def check(self, ctx):
        kb = ctx.kb
        at_imports: set[int] = set()  # import aliases already reported for a by-hand change
        for node, qual in uses(ctx, "torch.cuda.amp"):
            if old_torch_fallback(ctx, node, qual):
                continue
            api = kb.cuda_api(qual) if kb is not None else None
            target = api.npu if api is not None else None
            if target is not None and not kb.has_api(target):
                target = None
            if target is None:
                message = f"`{qual}` does not act on NPU tensors and torch_npu {getattr(kb, 'version', '?')} has no `torch.npu` counterpart; use `torch.amp` with device_type='npu'"
                yield self.finding(ctx, node, message, fixable=False)
                continue
            deprecated = kb.deprecation(target) if api.neutral else None
            if deprecated:
                # `from torch.cuda.amp import custom_fwd`: no edit at the use; the import line is the one to change
                alias = None if self._neutral_edits(ctx, node, api.neutral) else _imported_by(ctx, node)
                if alias is not None:
                    if id(alias) not in at_imports:
                        at_imports.add(id(alias))
                        yield self._neutral(ctx, alias, qual, target, api.neutral, deprecated)
                    # the import line changes to the neutral name, and each use must then say the device
                    name = qual.rsplit(".", 1)[-1]
                    yield self.finding(
                        ctx, node,
                        f"`{name}` is `{qual}` (imported from torch.cuda.amp): once the import names `{api.neutral}`, "
                        f"this use needs `device_type=\"npu\"` (`@{name}(device_type=\"npu\", ...)`)", fixable=False)
                    continue
                yield self._neutral(ctx, node, qual, target, api.neutral, deprecated)
                continue
            edits = rename_edits(ctx, node, qual, target) or []
            message = f"`{qual}` does not act on NPU tensors; use `{target}`"
            if not edits:
                message += " (not rewritten automatically: the name comes from an import that cannot be changed safely)"
            yield self.finding(ctx, edit_anchor(ctx, node, edits), message, edits=edits, replacement=target)

    def _neutral(self, ctx, node, qual, target, neutral, deprecated):
        """`@torch.cuda.amp.custom_fwd(...)` -> `@torch.amp.custom_fwd(device_type="npu", ...)` where the
        target wheel deprecates `torch.npu.amp.custom_fwd` (its own message is quoted)."""
        version = getattr(ctx.kb, "version", "?")
        wanted = f'{neutral}(device_type="npu")'
        message = (
            f"`{qual}` does not act on NPU tensors, and `{target}` is deprecated in torch_npu {version} "
            f"(\"{deprecated}\"); use `{wanted}`"
        )
        edits = self._neutral_edits(ctx, node, neutral)
        if not edits:
            message += " (not rewritten automatically: the name comes from an import; change it by hand)"
        return self.finding(ctx, node, message, edits=edits, replacement=wanted)

    @staticmethod
    def _neutral_edits(ctx, node, neutral: str) -> list[Edit]:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or ctx.qualname(root) != "torch" or not isinstance(node, ast.Attribute):
            return []
        text = root.id + neutral[len("torch"):]
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            _, _, line, col = ctx.span(node)
            rest = ctx.lines[line - 1][col:]
            paren = rest.find("(")
            if paren < 0 or rest[:paren].strip():
                return []
            argument = 'device_type="npu"' + (", " if parent.args or parent.keywords else "")
            return [ctx.replace_node(node, text), Edit(line, col + paren + 1, line, col + paren + 1, argument)]
        grand = parent
        if any(node is d for d in getattr(grand, "decorator_list", ())):
            return [ctx.replace_node(node, f'{text}(device_type="npu")')]
        return []
