import ast
import re

from migrate.findings import Category, Severity
from migrate.rules._text import command_strings, shell_matches
from migrate.rules.base import Invalid, Rule, Valid

_MODULE = "torch.distributed.launch"
# the module name as a whole dotted word, or the path of its file
_IN_TEXT = re.compile(r"(?<![\w.])torch\.distributed\.launch(?![\w.])|torch/distributed/launch\.py\b")
# in a Python string only a command counts: the bare module name (an argv element), `-m module`
# or the file path; prose such as "torch.distributed.launch is deprecated" does not
_IN_PY_STRING = re.compile(r"^\s*torch\.distributed\.launch\s*$|-m\s+torch\.distributed\.launch(?![\w.])|torch/distributed/launch\.py\b")


class DistributedLaunch(Rule):
    """`torch.distributed.launch` is deprecated in favour of `torchrun`, which works unchanged with
    torch_npu (it only spawns processes and sets RANK / LOCAL_RANK / WORLD_SIZE); torch_npu also
    ships its own `torch_npu_run` launcher. Flagged in launchers (`python -m
    torch.distributed.launch`, outside comments and echo text), in Python imports and attribute
    uses, and in strings handed to subprocess (`["python", "-m", "torch.distributed.launch"]`).
    Not rewritten: `launch` passes `--local_rank` as an argument while torchrun sets the
    `LOCAL_RANK` environment variable, so the training script may need a change too."""

    CODE = "NPU302"
    NAME = "distributed-launch"
    CATEGORY = Category.DISTRIBUTED
    SEVERITY = Severity.WARNING
    KINDS = ("python", "launcher")
    MESSAGE = (
        "`torch.distributed.launch` is deprecated; use `torchrun` (works with torch_npu) or "
        "`torch_npu_run`, and read LOCAL_RANK from the environment instead of `--local_rank`"
    )
    TRIGGERS = ("torch.distributed", "torch/distributed/launch", "launch")
    VALID = [
        "import torch.distributed.run",
        '"""Run with python -m torch.distributed.launch."""',
        'print("python -m torch.distributed.launch is deprecated")',
        'msg = "The module torch.distributed.launch is deprecated"',
        "import torch.distributed.launcher.api",
        Valid("# python -m torch.distributed.launch train.py\ntorchrun --nproc_per_node 8 train.py\n", kind="launcher"),
        Valid('echo "do not use python -m torch.distributed.launch"\n', kind="launcher"),
    ]
    INVALID = [
        Invalid("import torch.distributed.launch", count=1),
        Invalid("from torch.distributed import launch\nlaunch.main()", count=1),
        Invalid("import torch\ntorch.distributed.launch.main(['--nproc_per_node', '2'])", count=1),
        Invalid("import subprocess\nsubprocess.run(['python', '-m', 'torch.distributed.launch', 'train.py'])"),
        Invalid('import os\nos.system(f"python -m torch.distributed.launch --nproc_per_node {n} train.py")'),
        Invalid("python -m torch.distributed.launch --nproc_per_node=8 train.py\n", kind="launcher", count=1),
        Invalid("NCCL_DEBUG=INFO python3 -m torch.distributed.launch \\\n  --nproc_per_node 8 train.py\n", kind="launcher"),
    ]

    def check(self, ctx):
        if ctx.kind == "launcher":
            for number, match in shell_matches(ctx.lines, _IN_TEXT):
                yield self.finding(ctx, (number, match.start(), number, match.end()))
            return
        imported = False
        for statement, module in ctx.imported_modules():
            names = [module]
            if isinstance(statement, ast.ImportFrom):
                names = [f"{module}.{alias.name}" for alias in statement.names]
            if any(n == _MODULE or n.startswith(_MODULE + ".") or module.startswith(_MODULE + ".") for n in names):
                imported = True
                yield self.finding(ctx, statement)
        if not imported:
            # `import torch` then `torch.distributed.launch.main()`: report the outermost chain once
            for node in ctx.nodes.get(ast.Attribute, ()):
                name = ctx.qualname(node)
                if name != _MODULE:
                    continue
                yield self.finding(ctx, node)
        for node, text in command_strings(ctx):
            if _IN_PY_STRING.search(text):
                yield self.finding(ctx, node)
