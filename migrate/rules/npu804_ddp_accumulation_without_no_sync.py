import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import accumulations, identifiers
from migrate.rules.base import Invalid, Rule

_DDP = frozenset({"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"})
# Any of these in the module: gradient sync is already managed (no_sync, nanoGPT's flag,
# Accelerate's accumulate, DeepSpeed / FSDP engines).
_SYNC_CONTROL = ("no_sync", "require_backward_grad_sync", "accumulate", "deepspeed", "fullyshardeddataparallel")


class DdpAccumulationWithoutNoSync(Rule):
    """DistributedDataParallel with gradient accumulation but no `no_sync()`: DDP all-reduces the
    gradients in every `backward()`, so each micro-step pays a full all-reduce (an HCCL collective
    on Ascend) whose result the next micro-step overwrites anyway. Wrap the micro-steps that do not
    step the optimizer in `with model.no_sync():` (or set `model.require_backward_grad_sync`, as
    nanoGPT does). The result is the same; only the communication is wasted, which on an NPU
    cluster is often the largest cost of a step. Reported at the backward of an accumulation loop
    in a module that builds a DistributedDataParallel and never mentions no_sync."""

    CODE = "NPU804"
    NAME = "ddp-accumulation-without-no-sync"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.WARNING
    MESSAGE = "DDP all-reduces gradients on every micro-step of this accumulation loop (an HCCL all-reduce each); use model.no_sync() on the micro-steps that do not step the optimizer"
    TRIGGERS = ("DistributedDataParallel",)
    VALID = [
        "import contextlib\nfrom torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(net)\nfor i, (x, y) in enumerate(loader):\n"
        "    sync = (i + 1) % accum == 0\n    with (contextlib.nullcontext() if sync else model.no_sync()):\n        loss = model(x, y) / accum\n"
        "        loss.backward()\n    if sync:\n        optimizer.step()\n        optimizer.zero_grad()\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(net)\nfor micro_step in range(accum):\n"
        "    model.require_backward_grad_sync = micro_step == accum - 1\n    loss = model(X, Y) / accum\n    loss.backward()\noptimizer.step()\n",
        # DDP without accumulation
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(net)\nfor x, y in loader:\n    optimizer.zero_grad()\n"
        "    model(x, y).backward()\n    optimizer.step()\n",
    ]
    INVALID = [
        Invalid(
            "import torch\nmodel = torch.nn.parallel.DistributedDataParallel(net, device_ids=[rank])\nfor i, (x, y) in enumerate(loader):\n"
            "    loss = criterion(model(x), y) / args.accum_steps\n    loss.backward()\n    if (i + 1) % args.accum_steps == 0:\n"
            "        optimizer.step()\n        optimizer.zero_grad()\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        if not any(ctx.qualname(c.func) in _DDP for c in ctx.nodes.get(ast.Call, ())):
            return
        names = identifiers(ctx)
        if any(word in name for name in names for word in _SYNC_CONTROL):
            return
        for acc in accumulations(ctx):
            yield self.finding(ctx, acc.backward)
