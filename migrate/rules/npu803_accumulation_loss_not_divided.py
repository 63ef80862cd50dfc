import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import accumulations, backward_loss
from migrate.rules.base import Invalid, Rule


def _divided(node: ast.AST) -> bool:
    """The expression divides (or multiplies) its value: `a / n`, `(a + b) * w`, `(a / n).mean()`;
    a division inside a call's arguments (`criterion(model(x / 255), y)`) scales the input, not
    the loss."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.BinOp) and isinstance(current.op, (ast.Div, ast.Mult, ast.FloorDiv)):
            return True
        if isinstance(current, ast.Call):
            stack.append(current.func)
        else:
            stack.extend(ast.iter_child_nodes(current))
    return False


def _mentions(node: ast.AST, text: str, ctx) -> bool:
    return any(isinstance(n, (ast.Name, ast.Attribute)) and ctx.segment(n) == text for n in ast.walk(node))


class AccumulationLossNotDivided(Rule):
    """Gradient accumulation without dividing the loss: `backward()` runs on every micro-batch and
    the optimizer steps every N of them (`if (i + 1) % N == 0: optimizer.step()`, or
    `for micro in range(N): loss.backward()` then `optimizer.step()`), but the loss is never divided
    (or multiplied) before the backward. Gradients add up across micro-steps, so the update is N
    times the one of a single batch of N times the size: the learning rate is silently N times
    larger. Write `loss = loss / N` (MindSpore's gradient-accumulation cell divides the same way).
    Not reported when the backpropagated name is ever assigned a division or product, when the
    micro-step count is handed to the code that computes the loss, or when the backward goes
    through a wrapper (`accelerator.backward(loss)` divides by itself)."""

    CODE = "NPU803"
    NAME = "accumulation-loss-not-divided"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.WARNING
    MESSAGE = "gradient accumulation over {n} micro-steps without dividing the loss by {n}: the effective learning rate is {n} times larger"
    TRIGGERS = ("backward",)
    VALID = [
        "for i, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y) / accum_steps\n    loss.backward()\n"
        "    if (i + 1) % accum_steps == 0:\n        optimizer.step()\n        optimizer.zero_grad()\n",
        "for i, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y)\n    loss /= args.accum\n    scaler.scale(loss).backward()\n"
        "    if (i + 1) % args.accum == 0:\n        scaler.step(optimizer)\n        scaler.update()\n        optimizer.zero_grad()\n",
        # nanoGPT's shape, divided
        "for micro_step in range(gradient_accumulation_steps):\n    logits, loss = model(X, Y)\n    loss = loss / gradient_accumulation_steps\n"
        "    loss.backward()\noptimizer.step()\noptimizer.zero_grad(set_to_none=True)\n",
        # no accumulation: the optimizer steps every iteration
        "for i, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y)\n    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n"
        "    if i % 100 == 0:\n        print(loss.item())\n",
        # the count goes to the loss computation
        "for i, batch in enumerate(loader):\n    loss = compute_loss(model, batch, accum)\n    loss.backward()\n    if (i + 1) % accum == 0:\n"
        "        optimizer.step()\n        optimizer.zero_grad()\n",
        "for i, batch in enumerate(loader):\n    (model(batch) / 8).backward()\n    if i % 8 == 7:\n        opt.step()\n        opt.zero_grad()\n",
    ]
    INVALID = [
        Invalid(
            "for i, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y)\n    loss.backward()\n"
            "    if (i + 1) % accum_steps == 0:\n        optimizer.step()\n        optimizer.zero_grad()\n",
            count=1,
        ),
        Invalid(
            "def train(model, loader, optimizer, scaler, accum_iter):\n    for step, (x, y) in enumerate(loader):\n        with autocast():\n"
            "            loss = model(x, y)\n        scaler.scale(loss).backward()\n        if (step + 1) % accum_iter == 0:\n"
            "            scaler.step(optimizer)\n            scaler.update()\n            optimizer.zero_grad()\n",
            count=1,
        ),
        Invalid(
            "for micro_step in range(grad_accum):\n    logits, loss = model(X, Y)\n    loss.backward()\noptimizer.step()\noptimizer.zero_grad()\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        for acc in accumulations(ctx):
            count = ctx.segment(acc.count)
            loss = backward_loss(acc.backward)
            if _divided(loss) or self._count_in_loss(ctx, acc, count):
                continue
            if isinstance(loss, ast.Name) and self._name_divided(ctx, acc, loss.id):
                continue
            if not isinstance(loss, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
                continue
            yield self.finding(ctx, acc.backward, self.MESSAGE.format(n=count))

    @staticmethod
    def _count_in_loss(ctx, acc, count) -> bool:
        """The micro-step count appears in a call made in the loop body (handed to the loss code)."""
        return any(isinstance(n, ast.Call) and any(_mentions(a, count, ctx) for a in [*n.args, *(k.value for k in n.keywords)])
                   for stmt in acc.loop.body for n in ast.walk(stmt))

    @staticmethod
    def _name_divided(ctx, acc, name: str) -> bool:
        for node in ast.walk(acc.loop):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                if isinstance(node.op, (ast.Div, ast.Mult, ast.FloorDiv)):
                    return True
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                if name in bound and _divided(node.value):
                    return True
        return False
