import ast

from migrate.findings import Category, Severity
from migrate.rules._text import string_constants
from migrate.rules.base import Invalid, Rule

_BACKEND_CLASSES = ("torch.distributed.Backend", "torch.distributed.distributed_c10d.Backend")


class NcclBackend(Rule):
    """NCCL is NVIDIA's collective library; an Ascend host has HCCL instead, which torch_npu
    registers as the process-group backend `"hccl"` (and with it `Backend.HCCL`) when it is
    imported. Every string value `"nccl"` is flagged and rewritten: in `init_process_group` /
    `new_group` calls (positional or keyword), in variables and config fields later passed as the
    backend, in `"nccl" if ... else "gloo"`, argparse defaults and choices, and in comparisons such
    as `dist.get_backend() == "nccl"`. A string that is exactly `"nccl"` is a backend name in
    practice; docstrings, f-strings and log/print/exception messages are skipped."""

    CODE = "NPU301"
    NAME = "nccl-backend"
    CATEGORY = Category.DISTRIBUTED
    SEVERITY = Severity.ERROR
    FIXABLE = True
    MESSAGE = "the nccl backend does not exist on an Ascend NPU; torch_npu registers `hccl`"
    TRIGGERS = ("nccl", "NCCL")
    VALID = [
        'dist.init_process_group("hccl")',
        '"""Uses the nccl backend on GPUs."""',
        'logger.info("nccl")',
        'print(f"backend={backend}")',
        'raise ValueError("nccl")',
        "import os\nos.environ['NCCL_DEBUG'] = 'INFO'",  # an env var (NPU702), not a backend value
        "import torch\nok = torch.distributed.is_nccl_available()",
        "x = Backend.NCCL",  # a local class named Backend, not torch's
        'from typing import Literal\ndef f(b: Literal["nccl", "gloo"] = "gloo"): pass',
    ]
    INVALID = [
        Invalid(
            'import torch.distributed as dist\ndist.init_process_group("nccl")',
            expected='import torch.distributed as dist\ndist.init_process_group("hccl")',
        ),
        Invalid(
            "from torch.distributed import init_process_group\ninit_process_group(backend='nccl', rank=0)",
            expected="from torch.distributed import init_process_group\ninit_process_group(backend='hccl', rank=0)",
        ),
        Invalid(
            'backend = "nccl"\ndist.init_process_group(backend)',
            expected='backend = "hccl"\ndist.init_process_group(backend)',
        ),
        Invalid(
            'import torch\nb = "nccl" if torch.cuda.is_available() else "gloo"',
            expected='import torch\nb = "hccl" if torch.cuda.is_available() else "gloo"',
        ),
        Invalid(
            "import torch.distributed as dist\ng = dist.new_group(ranks=[0, 1], backend='nccl')",
            expected="import torch.distributed as dist\ng = dist.new_group(ranks=[0, 1], backend='hccl')",
        ),
        Invalid(
            'p.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])',
            expected='p.add_argument("--backend", default="hccl", choices=["hccl", "gloo"])',
            count=2,
        ),
        Invalid(
            'import torch.distributed as dist\nif dist.get_backend() == "nccl": pass',
            expected='import torch.distributed as dist\nif dist.get_backend() == "hccl": pass',
        ),
        Invalid(
            "import torch.distributed as dist\ndist.init_process_group(dist.Backend.NCCL)",
            expected="import torch.distributed as dist\ndist.init_process_group(dist.Backend.HCCL)",
        ),
        Invalid(
            "from torch.distributed import Backend\nb = Backend.NCCL",
            expected="from torch.distributed import Backend\nb = Backend.HCCL",
        ),
        Invalid('cfg = {"backend": "NCCL"}', expected='cfg = {"backend": "HCCL"}'),
    ]

    def check(self, ctx):
        for node in string_constants(ctx):
            if node.value.lower() != "nccl" or self._in_literal_type(ctx, node):
                continue
            new = "HCCL" if node.value.isupper() else "hccl"
            edit = ctx.replace_in_node(node, node.value, new)
            yield self.finding(ctx, node, self._message(ctx, node), edits=[edit], replacement=f'"{new}"')
        for node in ctx.nodes.get(ast.Attribute, ()):
            if node.attr != "NCCL":
                continue
            name = ctx.qualname(node)
            if name is None or name.rsplit(".", 1)[0] not in _BACKEND_CLASSES:
                continue
            yield self.finding(
                ctx,
                node,
                "`Backend.NCCL` does not exist on an Ascend NPU; torch_npu registers `Backend.HCCL` when imported",
                edits=[ctx.replace_attr_name(node, "HCCL")],
                replacement="Backend.HCCL",
            )

    @staticmethod
    def _in_literal_type(ctx, node) -> bool:
        """`Literal["NCCL"]` in a type annotation names a value, it does not pick one."""
        parent = ctx.parent(node)
        while isinstance(parent, (ast.Tuple, ast.Subscript)):
            if isinstance(parent, ast.Subscript):
                value = parent.value
                name = value.id if isinstance(value, ast.Name) else getattr(value, "attr", None)
                if name == "Literal":
                    return True
            parent = ctx.parent(parent)
        return False

    def _message(self, ctx, node) -> str:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Compare):
            return "compares against the nccl backend, which does not exist on an Ascend NPU; torch_npu's backend is `hccl`"
        return self.MESSAGE
