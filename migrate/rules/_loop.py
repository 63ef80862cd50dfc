"""What the training-loop rules (NPU8xx) share: finding the backward pass, the optimizer step,
gradient accumulation and checkpoint dictionaries in a module's syntax tree.

Every helper here leans towards "not found": a loop the helpers cannot read is left alone, because a
training-loop finding on a correct loop costs the user more than a missed one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from migrate.context import walk_nodes

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def method(call: ast.AST) -> str | None:
    """`x.name(...)` -> "name"; anything else -> None."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def receiver_name(node: ast.AST | None) -> str:
    """The last name of a receiver chain, lower-cased: `self.optimizer` -> "optimizer",
    `model.module` -> "module", `opts[0]` -> "opts"; "" when there is none."""
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    if isinstance(node, ast.Name):
        return node.id.lower()
    return ""


def is_optimizer_name(name: str) -> bool:
    return "optim" in name or name in {"opt", "optimiser"}


def is_scheduler_name(name: str) -> bool:
    return "sched" in name or name in {"lr_scheduler", "lr_sched", "warmup"}


def is_scaler_name(name: str) -> bool:
    return "scaler" in name or name in {"loss_scaler"}


def enclosing_scope(ctx, node: ast.AST) -> ast.AST:
    """The function (or module) whose body holds the node."""
    current = ctx.parent(node)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        current = ctx.parent(current)
    return current if current is not None else ctx.tree


def walk_scope(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function (or module) body, not descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def identifiers(ctx) -> set[str]:
    """Every name, attribute, argument, keyword and function name of the module, lower-cased
    (from the context's nodes by type, once per file: several rules ask)."""
    cached = ctx.__dict__.get("_loop_identifiers")
    if cached is not None:
        return cached
    nodes = ctx.nodes
    names: set[str] = {n.id for n in nodes.get(ast.Name, ())}
    names.update(n.attr for n in nodes.get(ast.Attribute, ()))
    names.update(n.arg for n in nodes.get(ast.arg, ()))
    names.update(n.arg for n in nodes.get(ast.keyword, ()) if n.arg)
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        names.update(n.name for n in nodes.get(kind, ()))
    for alias in nodes.get(ast.alias, ()):
        names.update((alias.asname or alias.name).split("."))
    cached = ctx.__dict__["_loop_identifiers"] = frozenset(name.lower() for name in names)
    return cached


def is_test_module(path: str) -> bool:
    """A pytest module: checkpoints written there are fixtures, often partial on purpose."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def strings(ctx) -> set[str]:
    return {n.value for n in ctx.nodes.get(ast.Constant, ()) if isinstance(n.value, str)}


def backward_loss(call: ast.Call) -> ast.AST | None:
    """The loss a backward call differentiates: `loss.backward()` -> `loss`,
    `scaler.scale(loss).backward()` -> `loss`, `(loss / n).backward()` -> `loss / n`. None for
    `accelerator.backward(loss)`-style calls (a wrapper that scales and divides by itself) and
    `backward(gradient)` calls on non-scalar outputs."""
    if method(call) != "backward" or call.args:
        return None
    target = call.func.value
    if method(target) == "scale" and len(target.args) == 1 and not target.keywords:
        return target.args[0]
    return target


def scaled_backward(call: ast.Call) -> ast.AST | None:
    """The scaler of `scaler.scale(loss).backward()` (the receiver of `.scale`), else None."""
    if method(call) != "backward" or call.args:
        return None
    target = call.func.value
    if method(target) == "scale" and len(target.args) == 1 and is_scaler_name(receiver_name(target.func.value)):
        return target.func.value
    return None


def unconditional(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a loop body that run on every iteration: the body itself and what is
    nested in `with` blocks and `try` bodies (not branches, loops or functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from unconditional(stmt.body)
        elif isinstance(stmt, ast.Try):
            yield from unconditional(stmt.body)


def statement_call(stmt: ast.stmt) -> ast.Call | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return stmt.value
    return None


def is_optimizer_step(call: ast.AST) -> bool:
    """`optimizer.step()`, `self.optim.step()`, `scaler.step(optimizer)`."""
    if method(call) != "step":
        return False
    name = receiver_name(call.func.value)
    return is_optimizer_name(name) or (is_scaler_name(name) and len(call.args) == 1)


def is_zero_grad(call: ast.AST) -> bool:
    return method(call) == "zero_grad"


def _modulo(test: ast.AST) -> ast.BinOp | None:
    for node in walk_nodes(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return node
    return None


@dataclass(frozen=True)
class Accumulation:
    """A loop that runs backward on every iteration and steps the optimizer on some of them.

    `loop`: the loop; `backward`: the backward call that runs on every iteration; `count`: the
    number of micro-steps (the right side of `%`, or the `range(...)` bound of a micro-step loop);
    `guard`: the `if ... % n == 0:` around the optimizer step (None for a micro-step loop whose
    step follows it)."""

    loop: ast.AST
    backward: ast.Call
    count: ast.AST
    guard: ast.If | None


def _calls(nodes) -> Iterator[ast.Call]:
    for stmt in nodes:
        for node in walk_nodes(stmt):
            if isinstance(node, ast.Call):
                yield node


def _every_iteration_backward(loop) -> ast.Call | None:
    for stmt in unconditional(loop.body):
        call = statement_call(stmt)
        if call is not None and backward_loss(call) is not None:
            return call
    return None


def _step_condition(stmt: ast.If, flags: dict[str, ast.BinOp]) -> ast.BinOp | None:
    """The `%` an `if` tests: in its own test, or through a flag set in the loop body
    (`sync = (i + 1) % n == 0` ... `if sync:`)."""
    if isinstance(stmt.test, ast.Name) and stmt.test.id in flags:
        return flags[stmt.test.id]
    return _modulo(stmt.test)


def _guarded_step(loop) -> tuple[ast.If, ast.BinOp] | None:
    """The `if ... % n ...:` statement (run every iteration) whose body steps the optimizer, and
    its `%`, provided the gradients are not also cleared on every iteration."""
    guard = None
    flags = {}
    for stmt in unconditional(loop.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if _modulo(stmt.value) is not None:
                flags[stmt.targets[0].id] = _modulo(stmt.value)
        if isinstance(stmt, ast.If) and any(is_optimizer_step(c) for c in _calls(stmt.body)):
            modulo = _step_condition(stmt, flags)
            if modulo is not None:
                guard = guard or (stmt, modulo)
        call = statement_call(stmt)
        if call is not None and (is_zero_grad(call) or is_optimizer_step(call)):
            return None  # cleared or stepped on every iteration: no accumulation
    return guard


def _following(ctx, stmt: ast.stmt) -> list[ast.stmt]:
    return ctx.statements_after(stmt) or []


def _range_bound(loop) -> ast.AST | None:
    if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name):
        if loop.iter.func.id == "range" and len(loop.iter.args) == 1:
            return loop.iter.args[0]
    return None


def accumulations(ctx) -> Iterator[Accumulation]:
    """Gradient-accumulation loops of two shapes:

    - `for i, batch in ...: loss.backward(); if (i + 1) % n == 0: optimizer.step(); ...zero_grad()`
    - `for micro in range(n): loss.backward()` followed by `optimizer.step()` (nanoGPT's shape).
    """
    for loop in [n for t in _LOOPS for n in ctx.nodes.get(t, ())]:
        backward = _every_iteration_backward(loop)
        if backward is None:
            continue
        guarded = _guarded_step(loop)
        if guarded is not None:
            guard, modulo = guarded
            yield Accumulation(loop, backward, modulo.right, guard)
            continue
        bound = _range_bound(loop)
        if bound is None or isinstance(bound, ast.Constant) and bound.value == 1:
            continue
        if any(is_optimizer_step(c) or is_zero_grad(c) for c in _calls(loop.body)):
            continue
        after = _following(ctx, loop)
        if any(is_optimizer_step(c) for c in _calls(after)):
            yield Accumulation(loop, backward, bound, None)


def dict_keys(node: ast.AST) -> list[str] | None:
    """The string keys of a dict literal or a `dict(a=..., b=...)` call; None for anything else."""
    if isinstance(node, ast.Dict):
        return [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return [kw.arg for kw in node.keywords if kw.arg]
    return None


def saved_object(ctx, call: ast.Call) -> ast.AST | None:
    """What a `torch.save(obj, path)` call writes, following a local name to its nearest assignment
    above the save in the same function (`ckpt = {...}; torch.save(ckpt, path)`); None when the
    name has no assignment there (a parameter)."""
    obj = call.args[0] if call.args else ctx.keyword(call, "obj")
    if isinstance(obj, ast.Name):
        scope = enclosing_scope(ctx, call)
        assigned = [
            n for n in walk_scope(scope)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == obj.id
        ]
        before = [n for n in assigned if n.lineno < call.lineno]
        if not before:
            return None
        return max(before, key=lambda n: n.lineno).value  # the nearest assignment above the save
    return obj


def torch_saves(ctx) -> list[ast.Call]:
    return [c for c in ctx.nodes.get(ast.Call, ()) if ctx.qualname(c.func) == "torch.save"]


def torch_loads(ctx) -> list[ast.Call]:
    return [c for c in ctx.nodes.get(ast.Call, ()) if ctx.qualname(c.func) == "torch.load"]


def creates_optimizer(ctx) -> bool:
    """A `torch.optim.<Optimizer>(...)` (not a scheduler) is constructed in the module."""
    for call in ctx.nodes.get(ast.Call, ()):
        name = ctx.qualname(call.func) or ""
        if name.startswith("torch.optim.") and ".lr_scheduler" not in name and name[12:13].isupper():
            return True
    return False




def state_kind(key: str) -> str | None:
    """Which training state a checkpoint key (or a name) holds: optimizer / scheduler / scaler /
    step; None for the model, metrics, config and anything else."""
    k = key.lower()
    if "optim" in k or k in {"opt", "opt_state"}:
        return "optimizer"
    if "sched" in k or k in {"lr_scheduler"}:
        return "scheduler"
    if "scaler" in k or k in {"amp", "loss_scale"}:
        return "scaler"
    if k in {"epoch", "step", "iter", "iteration", "global_step", "iter_num", "start_epoch", "steps", "epochs", "it"}:
        return "step"
    return None


def saved_state(ctx, obj: ast.AST) -> set[str]:
    """The training state kinds a saved object holds, judged from dict keys and the receivers of
    `.state_dict()` calls inside it."""
    kinds: set[str] = set()
    for key in dict_keys(obj) or ():
        kind = state_kind(key)
        if kind:
            kinds.add(kind)
    for node in walk_nodes(obj):
        if method(node) == "state_dict":
            kind = state_kind(receiver_name(node.func.value))
            if kind:
                kinds.add(kind)
    return kinds
