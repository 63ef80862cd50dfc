import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import backward_loss, enclosing_scope, identifiers, walk_scope
from migrate.rules.base import Invalid, Rule

_AUTOCASTS = frozenset({"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast", "torch.cuda.amp.autocast", "torch.npu.amp.autocast", "torch_npu.npu.amp.autocast"})
_FP16_DEFAULT = frozenset({"torch.cuda.amp.autocast", "torch.npu.amp.autocast", "torch_npu.npu.amp.autocast"})
_FP16 = frozenset({"torch.float16", "torch.half"})
# Any of these names in the module means the loss is scaled (GradScaler, apex, DeepSpeed,
# Accelerate, Lightning, a hand-written scaler): the rule stays quiet.
_SCALING_WORDS = ("scaler", "scale_loss", "loss_scale", "lossscale", "loss_scaling", "gradscaler", "apex", "deepspeed", "accelerator", "fabric")


def _fp16_autocast(ctx, call: ast.Call) -> bool:
    name = ctx.qualname(call.func)
    if name not in _AUTOCASTS:
        return False
    dtype = ctx.keyword(call, "dtype")
    if dtype is not None:
        return ctx.qualname(dtype) in _FP16
    if ctx.keyword(call, "enabled") is not None and isinstance(ctx.keyword(call, "enabled"), ast.Constant) and not ctx.keyword(call, "enabled").value:
        return False
    if name in _FP16_DEFAULT:
        return True
    device = call.args[0] if call.args else ctx.keyword(call, "device_type")
    # without a dtype, autocast on "cuda" and "npu" computes in float16 (bfloat16 on the CPU);
    # a device held in a variable is not judged
    return ctx.string_value(device) in {"cuda", "npu"}


def _half_model(call: ast.Call) -> bool:
    """A `.half()` call with no arguments (whether its model is trained is checked apart)."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "half" and not call.args and not call.keywords


class Fp16WithoutLossScaling(Rule):
    """float16 training without loss scaling: `autocast` in float16 (`dtype=torch.float16`, or no
    dtype on "cuda" / "npu", or `torch.cuda.amp.autocast()`) or a `model.half()` model, in a
    function that runs `loss.backward()`, in a module that never scales the loss (no GradScaler, no
    `scaler`, apex, DeepSpeed, Accelerate or Lightning). float16 gradients below 6e-8 flush to zero
    and large ones overflow to inf; Ascend's cube units compute in float16 by preference, so a loop
    that trained in bfloat16 or float32 on a GPU meets this on the NPU. Scale the loss with
    `torch.amp.GradScaler("npu")` (`scaler.scale(loss).backward()`, `scaler.step(optimizer)`,
    `scaler.update()`) or train in bfloat16. Inference under float16 (no backward in the function)
    is not reported."""

    CODE = "NPU801"
    NAME = "fp16-without-loss-scaling"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.WARNING
    MESSAGE = "float16 training without loss scaling: small gradients underflow to zero and large ones overflow; use torch.amp.GradScaler or bfloat16"
    TRIGGERS = ("autocast", ".half()")
    VALID = [
        # the loss is scaled
        'import torch\nscaler = torch.amp.GradScaler("npu")\nfor x, y in loader:\n    with torch.autocast("npu", dtype=torch.float16):\n'
        "        loss = model(x, y)\n    scaler.scale(loss).backward()\n    scaler.step(opt)\n    scaler.update()\n",
        # bfloat16 needs no scaling
        'import torch\nfor x, y in loader:\n    with torch.autocast("cuda", dtype=torch.bfloat16):\n        loss = model(x, y)\n    loss.backward()\n    opt.step()\n',
        # inference in float16: no backward in the function
        "import torch\ndef evaluate(model, loader):\n    with torch.cuda.amp.autocast():\n        return [model(x) for x in loader]\n"
        "def train(model, loader):\n    for x in loader:\n        model(x).backward()\n",
        # the device (and so the default dtype) is a variable
        "import torch\nfor x in loader:\n    with torch.autocast(device_type=device.type):\n        loss = model(x)\n    loss.backward()\n",
        # autocast switched off
        'import torch\nfor x in loader:\n    with torch.autocast("cuda", enabled=False):\n        loss = model(x)\n    loss.backward()\n',
        # half() for export, not training
        "import torch\nmodel.half()\ntorch.save(model.state_dict(), 'fp16.pt')\n",
        # Accelerate scales by itself
        "import torch\nfrom accelerate import Accelerator\naccelerator = Accelerator(mixed_precision='fp16')\nfor x in loader:\n"
        "    with torch.cuda.amp.autocast():\n        loss = model(x)\n    accelerator.backward(loss)\n",
    ]
    INVALID = [
        Invalid(
            'import torch\nfor x, y in loader:\n    with torch.autocast("npu", dtype=torch.float16):\n        loss = criterion(model(x), y)\n'
            "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n",
            count=1,
        ),
        Invalid(
            "from torch.cuda.amp import autocast\ndef train_one_epoch(model, loader, optimizer):\n    for x, y in loader:\n"
            "        with autocast():\n            loss = model(x, y)\n        loss.backward()\n        optimizer.step()\n",
            count=1,
        ),
        Invalid(
            "import torch\nmodel = Net().cuda().half()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nfor x, y in loader:\n"
            "    loss = criterion(model(x.half()), y)\n    loss.backward()\n    optimizer.step()\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        names = identifiers(ctx)
        if any(word in name for name in names for word in _SCALING_WORDS):
            return
        trained = self._trained_names(ctx)
        for call in ctx.nodes.get(ast.Call, ()):
            if _fp16_autocast(ctx, call):
                if self._backward_in_scope(ctx, call):
                    yield self.finding(ctx, call)
            elif _half_model(call) and self._is_trained_model(ctx, call, trained):
                yield self.finding(ctx, call, "a float16 (`.half()`) model trained without loss scaling: small gradients underflow to zero; use autocast with torch.amp.GradScaler, or bfloat16")

    @staticmethod
    def _backward_in_scope(ctx, node) -> bool:
        scope = enclosing_scope(ctx, node)
        return any(isinstance(n, ast.Call) and backward_loss(n) is not None for n in walk_scope(scope))

    @staticmethod
    def _trained_names(ctx) -> set[str]:
        """Names whose parameters go to an optimizer: `torch.optim.X(model.parameters(), ...)`."""
        found = set()
        for call in ctx.nodes.get(ast.Call, ()):
            if not (ctx.qualname(call.func) or "").startswith("torch.optim."):
                continue
            for node in ast.walk(call):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"parameters", "named_parameters"}:
                    base = node.func.value
                    if isinstance(base, ast.Name):
                        found.add(base.id)
        return found

    def _is_trained_model(self, ctx, call, trained) -> bool:
        """The `.half()` result (or receiver) is a model whose parameters an optimizer updates,
        and the module runs a backward pass."""
        stmt = ctx.parent(call)
        while stmt is not None and not isinstance(stmt, ast.stmt):
            stmt = ctx.parent(stmt)
        targets = set()
        if isinstance(stmt, ast.Assign):
            targets = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.Expr):
            base = call.func.value
            while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute):
                base = base.func.value
            if isinstance(base, ast.Name):
                targets = {base.id}
        if not targets & trained:
            return False
        return any(backward_loss(n) is not None for n in ctx.nodes.get(ast.Call, ()))
