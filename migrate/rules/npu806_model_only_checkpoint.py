import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import creates_optimizer, identifiers, is_test_module, saved_object, saved_state, strings, torch_saves
from migrate.rules.base import Invalid, Rule


def _offers_resume(ctx) -> bool:
    """A resume option or code path: a name or string with "resume" in it."""
    return any("resume" in n for n in identifiers(ctx)) or any("resume" in s.lower() for s in strings(ctx))


class ModelOnlyCheckpoint(Rule):
    """A checkpoint that holds the model alone (`torch.save(model.state_dict(), path)`,
    `torch.save({"model": ..., "epoch": ...}, path)`) in a script that builds a `torch.optim`
    optimizer and offers resuming (a `--resume` option or any name with "resume" in it). Resuming
    from it restarts Adam's moments and SGD's momentum from zero, the learning-rate schedule from
    its start and a GradScaler from its initial scale: the resumed run does not continue the
    interrupted one (a loss spike, then a different curve). Save `optimizer.state_dict()` and, when
    the loop has them, the scheduler's, the scaler's, the step and the RNG states. Not reported when
    another `torch.save` in the module saves optimizer state (the model-only file is then an export
    beside a full checkpoint). Severity info: the run itself trains as written (on the GPU as on
    the NPU); only a resumed run differs."""

    CODE = "NPU806"
    NAME = "model-only-checkpoint"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.INFO
    MESSAGE = "this checkpoint holds the model but not the optimizer state, though the script offers resuming: a resumed run restarts the optimizer (and scheduler / scaler) from scratch"
    TRIGGERS = ("torch.save", "save(")
    VALID = [
        "import torch\nopt = torch.optim.AdamW(model.parameters())\nif args.resume:\n    ck = torch.load(args.resume)\n"
        "    model.load_state_dict(ck['model'])\n    opt.load_state_dict(ck['optimizer'])\n"
        "torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), 'epoch': epoch}, 'last.pt')\n",
        # an export beside the full checkpoint
        "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\nparser.add_argument('--resume')\n"
        "torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict()}, 'ckpt.pt')\ntorch.save(model.state_dict(), 'best_weights.pt')\n",
        # no resume offered: the weights are the product
        "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nfor epoch in range(10):\n    train(model, opt)\ntorch.save(model.state_dict(), 'model.pt')\n",
        # no optimizer built here
        "import torch\ndef save(model, path, resume=False):\n    torch.save(model.state_dict(), path)\n",
    ]
    INVALID = [
        Invalid(
            "import argparse, torch\nparser = argparse.ArgumentParser()\nparser.add_argument('--resume', default='')\nargs = parser.parse_args()\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\nif args.resume:\n    model.load_state_dict(torch.load(args.resume))\n"
            "for epoch in range(100):\n    train_one_epoch(model, optimizer)\n    torch.save(model.state_dict(), f'ckpt_{epoch}.pt')\n",
            count=1,
        ),
        Invalid(
            "import torch\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\nstart = load_for_resume(model)\n"
            "for epoch in range(start, 90):\n    train(model, optimizer)\n    ckpt = {'model': model.state_dict(), 'epoch': epoch}\n    torch.save(ckpt, 'last.pt')\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        if is_test_module(ctx.path):
            return  # a test's checkpoints are fixtures, partial on purpose
        saves = torch_saves(ctx)
        if not saves or not creates_optimizer(ctx) or not _offers_resume(ctx):
            return
        states = []
        for call in saves:
            obj = saved_object(ctx, call)
            states.append((call, obj, saved_state(ctx, obj) if obj is not None else None))
        if any(state is None or "optimizer" in state for _, _, state in states):
            return  # a full checkpoint exists (or a save we cannot read might be one)
        for call, obj, _ in states:
            if self._holds_model(obj):
                yield self.finding(ctx, call)

    @staticmethod
    def _holds_model(obj) -> bool:
        """A `.state_dict()` call (of a model: saved_state found no optimizer) is in the object."""
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "state_dict" for n in ast.walk(obj))
