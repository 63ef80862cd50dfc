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
    indices. They keep working on an NPU (torch_npu interprets them as NPU indices), but they must
    match the NPU the process was bound to with `torch.npu.set_device(local_rank)`, and values
    computed from CUDA state (`torch.cuda.current_device()`, CUDA_VISIBLE_DEVICES) need a second
    look. Information only; `device_ids=None` is not reported."""

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
    ]
    INVALID = [
        Invalid(
            "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(model, device_ids=[rank], output_device=rank)",
            count=2,
        ),
        Invalid("import torch.nn as nn\nm = nn.DataParallel(model, device_ids=[0, 1])", count=1),
        Invalid("import torch\nm = torch.nn.parallel.DistributedDataParallel(model, [local_rank])", count=1),
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
                yield self.finding(ctx, node, self._message(ctx.kb, name))
