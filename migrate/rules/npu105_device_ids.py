import ast

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule

_WRAPPERS = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
    }
)
# positional slots after the module: DistributedDataParallel(module, device_ids, output_device)
_POSITIONAL = {1: "device_ids", 2: "output_device"}


class DeviceIds(Rule):
    """`device_ids=` / `output_device=` of `DistributedDataParallel` / `DataParallel` are device
    indices. They keep working on an NPU (torch_npu interprets them as NPU indices), so an index
    taken from the process's rank (`device_ids=[local_rank]`, `[args.gpu]`, `[device]`) is the
    documented torch_npu usage and is not reported. Reported (information only): hard-coded
    indices (`device_ids=[0, 1]`, `output_device=0`), which must match the NPU the process was
    bound to with `torch.npu.set_device(local_rank)`, and values read from `CUDA_VISIBLE_DEVICES`
    (ignored on an Ascend host). `device_ids=None` is not reported; a value computed from
    `torch.cuda` state is reported by NPU102 on the same line."""

    CODE = "NPU105"
    NAME = "device-ids"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.INFO
    MESSAGE = "DDP / DataParallel device indices select NPUs on an Ascend host: make sure they match the NPU this process is bound to"
    TRIGGERS = ("DataParallel",)
    VALID = [
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(model)",
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(model, device_ids=None)",
        "m = MyWrapper(model, device_ids=[0])",  # not torch's
        '"""DistributedDataParallel(model, device_ids=[rank])"""',
        "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(model, device_ids=[rank], output_device=rank)",
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(model, [local_rank])",
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])",
    ]
    INVALID = [
        Invalid(
            "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(model, device_ids=[0], output_device=0)",
            count=2,
        ),
        Invalid("import torch.nn as nn\nm = nn.DataParallel(model, device_ids=[0, 1])", count=1),
        Invalid(
            "import os, torch\nm = torch.nn.parallel.DistributedDataParallel(model, [int(os.environ['CUDA_VISIBLE_DEVICES'])])",
            count=1,
        ),
    ]

    def _message(self, kb, name: str) -> str:
        text = f"`{name}=` selects NPUs by index on an Ascend host: make sure it matches the NPU this process is bound to"
        if kb is not None and kb.has_api("torch.npu.set_device"):
            text += " (`torch.npu.set_device(local_rank)`)"
        return text

    def check(self, ctx):
        for call in ctx.nodes.get(ast.Call, ()):
            if ctx.qualname(call.func) not in _WRAPPERS:
                continue
            slots = [(kw.arg, kw.value, kw) for kw in call.keywords if kw.arg in ("device_ids", "output_device")]
            slots += [(name, call.args[i], call.args[i]) for i, name in _POSITIONAL.items() if i < len(call.args)]
            for name, value, node in slots:
                if isinstance(value, ast.Starred) or (isinstance(value, ast.Constant) and value.value is None):
                    continue
                if _hard_coded(value) or _from_cuda_visible_devices(value):
                    yield self.finding(ctx, node, self._message(ctx.kb, name))


def _hard_coded(value) -> bool:
    """`0`, `[0, 1]`, `(0,)`: literal device indices (not a rank the process was bound to)."""
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
    return bool(items) and all(
        isinstance(item, ast.Constant) and isinstance(item.value, int) and not isinstance(item.value, bool) for item in items
    )


def _from_cuda_visible_devices(value) -> bool:
    return any(isinstance(n, ast.Constant) and n.value == "CUDA_VISIBLE_DEVICES" for n in ast.walk(value))
