from migrate.findings import Category, Severity
from migrate.rules._loop import accumulations, is_scheduler_name, method, receiver_name, statement_call, unconditional
from migrate.rules.base import Invalid, Rule


class SchedulerPerMicroBatch(Rule):
    """A learning-rate scheduler stepped on every micro-batch of a gradient-accumulation loop,
    while the optimizer steps once every N micro-batches: the schedule runs N times faster than the
    updates it is meant to pace (warm-up ends N times too early, a cosine or step schedule reaches
    its end after 1/N of the training), and PyTorch warns that `lr_scheduler.step()` ran before
    `optimizer.step()`. Step the scheduler inside the same `if` as the optimizer. Reported only
    when `scheduler.step()` runs unconditionally in the loop whose backward runs every iteration
    and whose optimizer step sits under `if ... % N == 0`; when the schedule's length was counted
    in micro-batches on purpose, suppress with `# noqa: NPU805`."""

    CODE = "NPU805"
    NAME = "scheduler-per-micro-batch"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.WARNING
    MESSAGE = "the LR scheduler steps on every micro-batch but the optimizer only every {n}: the schedule runs {n} times too fast; step it with the optimizer"
    TRIGGERS = ("step",)
    VALID = [
        "for i, (x, y) in enumerate(loader):\n    loss = model(x, y) / accum\n    loss.backward()\n    if (i + 1) % accum == 0:\n"
        "        optimizer.step()\n        scheduler.step()\n        optimizer.zero_grad()\n",
        # per-epoch scheduler
        "for epoch in range(epochs):\n    for i, (x, y) in enumerate(loader):\n        loss = model(x, y) / accum\n        loss.backward()\n"
        "        if (i + 1) % accum == 0:\n            optimizer.step()\n            optimizer.zero_grad()\n    scheduler.step()\n",
        # no accumulation
        "for x, y in loader:\n    optimizer.zero_grad()\n    model(x, y).backward()\n    optimizer.step()\n    scheduler.step()\n",
    ]
    INVALID = [
        Invalid(
            "import torch\nscheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=steps)\n"
            "for i, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y) / accum\n    loss.backward()\n"
            "    if (i + 1) % accum == 0:\n        optimizer.step()\n        optimizer.zero_grad()\n    scheduler.step()\n",
            count=1,
        ),
        Invalid(
            "def fit(self):\n    for step, batch in enumerate(self.loader):\n        loss = self.model(batch) / self.accum\n        loss.backward()\n"
            "        self.lr_scheduler.step()\n        if step % self.accum == self.accum - 1:\n            self.optimizer.step()\n"
            "            self.optimizer.zero_grad()\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        for acc in accumulations(ctx):
            if acc.guard is None:
                continue
            for stmt in unconditional(acc.loop.body):
                call = statement_call(stmt)
                if call is not None and method(call) == "step" and not call.args and is_scheduler_name(receiver_name(call.func.value)):
                    yield self.finding(ctx, call, self.MESSAGE.format(n=ctx.segment(acc.count)))
