import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import enclosing_scope, method, receiver_name, scaled_backward, walk_scope
from migrate.rules.base import Invalid, Rule

_CLIPS = frozenset({"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_norm_",
                    "torch.nn.utils.clip_grad.clip_grad_value_", "torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad.clip_grad_norm"})


def _branches_apart(ctx, a: ast.AST, b: ast.AST) -> bool:
    """True when a and b sit in different branches of one `if` / `try` (they never both run)."""
    chain_a = []
    node = a
    while node is not None:
        chain_a.append(node)
        node = ctx.parent(node)
    ids = {id(n): i for i, n in enumerate(chain_a)}
    node, below = b, None
    while node is not None and id(node) not in ids:
        below = node
        node = ctx.parent(node)
    if node is None or below is None:
        return False
    index = ids[id(node)]
    below_a = chain_a[index - 1] if index > 0 else None
    fields = ("body", "orelse", "handlers", "finalbody")

    def field_of(child):
        for name in fields:
            seq = getattr(node, name, None)
            if isinstance(seq, list) and child in seq:
                return name
        return None

    if isinstance(node, (ast.If, ast.Try)) and below_a is not None:
        fa, fb = field_of(below_a), field_of(below)
        return fa is not None and fb is not None and fa != fb
    return False


def _tests_above(ctx, node: ast.AST) -> set[str]:
    """The source of each `if` test a node sits in the body of, plus `not (...)` for each orelse."""
    found = set()
    child, current = node, ctx.parent(node)
    while current is not None:
        if isinstance(current, ast.If):
            test = " ".join(ctx.segment(current.test).split())
            found.add(test if child in current.body else f"not {test}")
        child, current = current, ctx.parent(current)
    return found


def _opposite_tests(ctx, a: ast.AST, b: ast.AST) -> bool:
    """`if use_amp: scaled backward` ... later `if not use_amp: clip`: they never both run."""
    tests_a, tests_b = _tests_above(ctx, a), _tests_above(ctx, b)
    return any(f"not {t}" in tests_b or (t.startswith("not ") and t[4:] in tests_b) for t in tests_a)


class ClipScaledGradients(Rule):
    """Gradient clipping on scaled gradients: after `scaler.scale(loss).backward()` the `.grad`
    tensors hold the loss-scaled gradients (x65536 at the start), so `clip_grad_norm_` /
    `clip_grad_value_` compare the scaled norm with the threshold and clip far too hard (or, with
    the scale changing after overflows, by a different amount every step). Call
    `scaler.unscale_(optimizer)` before clipping; `scaler.step` then does not unscale twice.
    Reported when, in one function, a clip call follows the scaled backward (in source order, not
    in another branch of the same `if`, nor under the opposite test of a later `if`) with no
    `unscale_` call between them."""

    CODE = "NPU802"
    NAME = "clip-scaled-gradients"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.WARNING
    MESSAGE = "gradients are clipped while still multiplied by the loss scale; call scaler.unscale_(optimizer) before clipping"
    TRIGGERS = ("clip_grad_",)
    VALID = [
        "import torch\nfor x in loader:\n    scaler.scale(model(x)).backward()\n    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    scaler.step(optimizer)\n    scaler.update()\n",
        # clipping only on the unscaled branch
        "import torch\nif use_amp:\n    scaler.scale(loss).backward()\n    scaler.step(optimizer)\nelse:\n    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    optimizer.step()\n",
        # no scaler
        "from torch.nn.utils import clip_grad_norm_\nloss.backward()\nclip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()\n",
        # unscale_ inside the accumulation guard, before clipping
        "import torch\nfor i, x in enumerate(loader):\n    scaler.scale(model(x) / 4).backward()\n    if (i + 1) % 4 == 0:\n"
        "        scaler.unscale_(opt)\n        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        scaler.step(opt)\n        scaler.update()\n",
        # the scaled backward and the clip under opposite tests of two `if`s
        "import torch\nif args.amp:\n    scaler.scale(loss).backward()\nelse:\n    loss.backward()\nif not args.amp:\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
    ]
    INVALID = [
        Invalid(
            "import torch\nscaler = torch.amp.GradScaler('npu')\nfor x, y in loader:\n    with torch.autocast('npu', dtype=torch.float16):\n"
            "        loss = criterion(model(x), y)\n    optimizer.zero_grad()\n    scaler.scale(loss).backward()\n"
            "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n    scaler.step(optimizer)\n    scaler.update()\n",
            count=1,
        ),
        Invalid(
            "from torch.nn.utils import clip_grad_value_\ndef step(self, loss):\n    self.scaler.scale(loss).backward()\n"
            "    if self.clip:\n        clip_grad_value_(self.model.parameters(), self.clip)\n    self.scaler.step(self.opt)\n    self.scaler.update()\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        clips = [c for c in ctx.nodes.get(ast.Call, ()) if ctx.qualname(c.func) in _CLIPS]
        for clip in clips:
            scope = enclosing_scope(ctx, clip)
            calls = [n for n in walk_scope(scope) if isinstance(n, ast.Call)]
            backwards = [c for c in calls if scaled_backward(c) is not None and c.lineno < clip.lineno and not _branches_apart(ctx, c, clip) and not _opposite_tests(ctx, c, clip)]
            if not backwards:
                continue
            last = max(backwards, key=lambda c: c.lineno)
            scaler = receiver_name(scaled_backward(last))
            unscaled = any(
                method(c) == "unscale_" and last.lineno < c.lineno < clip.lineno and receiver_name(c.func.value) == scaler for c in calls
            )
            if not unscaled:
                yield self.finding(ctx, clip)
