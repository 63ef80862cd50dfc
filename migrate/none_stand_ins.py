"""A None stand-in nothing tests is no fallback: the import it stands in for stays required (NPU501 / NPU507).

An import attempt whose ImportError handler binds the imported names to None and nothing else,

    try:
        import flash_attn
        from flash_attn.flash_attn_interface import flash_attn_varlen_func
    except ImportError:
        flash_attn = None
        flash_attn_varlen_func = None

    def attention(q, k, v, cu):
        return flash_attn_varlen_func(q, k, v, cu, cu)   # None(...) off CUDA: a TypeError

gives the program nothing to run without the package unless some line of the module asks whether the stand-in is
there: `if flash_attn_varlen_func is None:`, `assert flash_attn is not None, "..."`, `if flash_attn:`, `x = fn or
other`. With such a test the module takes another path or stops with its own error (label ruling (L34); Pointcept's
Point Transformer V3, `assert flash_attn is not None` before its flash path: set 34a-4). Without any, every use fails
where the package is missing: the import and its uses are lines to change (label rulings (L30), (L42); HunyuanVideo's
attention, set 36e-4). A stand-in function that only raises is no fallback either (label ruling (L42): "an optional import whose
stand-in raises or is None: the call fails there"): `except ImportError: def _unsupported(*a, **k): raise
ImportError("install flash-attn")` with `flash_attn_varlen_func = _unsupported`, or a `def flash_attn_func(...)` of the
imported name that only raises (fastvideo-kernel's vmoba.py, labeller note 61a: "stand-in raises (L42)"). A handler
that also binds a flag (`HAS_FLASH = False`), a substitute (`from .ref import attn`), a def that does some work or a
class is a real fallback and is not read here. A name the attempt imports that such a handler leaves unbound
(`from flash_attn import flash_attn_func` beside `flash_attn = None`) has no stand-in at all: a NameError where the
package is missing, read as an untested stand-in (labeller note 70e, HunyuanVideo's attention). A flag the handler sets to None too, where the attempt gives
it a value (`FLASH_VER = 2` / `FLASH_VER = None`), is tested by any comparison (`if FLASH_VER == 2:`): the module
asks whether the package is there.

A stand-in read only on one side of a switch with another way beside it (`if self.xattn: x = xops.memory_efficient_attention(
...) / else: <torch attention>`, EVA-CLIP's transformer) leaves the import itself harmless: it binds None off CUDA and
the program runs on the other side of the switch. The uses are the lines to change (a user switch is no availability
check, (L74)), the import is not (label ruling (L42) calls it "an optional import"; labeller note 51a-4):
`switched_stand_in`, read by NPU501 only.
"""

from __future__ import annotations

import ast


def _only_raises(function: ast.AST) -> bool:
    """`def f(*args, **kwargs): raise ImportError("...")` (a docstring before the raise allowed): a function whose only
    behaviour is to stop the program."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _nones(statement: ast.Assign) -> bool:
    """`causal_conv1d_fn, causal_conv1d_cuda = None, None` (mamba_ssm ops/triton/ssd_combined.py): each name of a tuple
    target bound to None by a tuple of as many Nones, as `a = b = None` or two lines would bind them."""
    value = statement.value
    return isinstance(value, ast.Tuple) and all(_none(e) for e in value.elts) and all(
        isinstance(t, ast.Tuple) and len(t.elts) == len(value.elts) for t in statement.targets)


def _stand_ins(handler: ast.ExceptHandler) -> set[str] | None:
    """The names `handler` binds to None, or to a function that only raises (defined there, or bound to such a function
    by name), when that is all it does (besides passing or a notice call), else None."""
    names: set[str] = set()
    raising: set[str] = set()
    for statement in handler.body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            continue  # `logger.warning(...)`: tells the user, binds nothing
        if _only_raises(statement):
            raising.add(statement.name)
            names.add(statement.name)
            continue
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) and statement.value.id in raising:
            pass  # `flash_attn_varlen_func = _unsupported`: the stand-in raises when called
        elif not (isinstance(statement, ast.Assign) and (_none(statement.value) or _nones(statement))):
            return None
        for target in statement.targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            if not all(isinstance(e, ast.Name) for e in elements):
                return None
            names.update(e.id for e in elements)
    return names or None


def _tested(ctx, node: ast.Name) -> bool:
    """`node` is read as a question about whether it is there: compared with None, the test of an `if` / `while` /
    `assert` / conditional expression, an operand of `not` / `and` / `or`."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Compare):
        return any(isinstance(c, ast.Constant) and c.value is None for c in (parent.left, *parent.comparators))
    if isinstance(parent, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return parent.test is node
    if isinstance(parent, ast.BoolOp):
        return True
    return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)


def tested_anywhere(ctx, name: str) -> bool:
    """Some line of the module reads `name` as a question about whether it is there (`_tested`): `if quant_cuda is
    None:`, `assert gemm_cuda, "..."`."""
    return any(node.id == name and isinstance(node.ctx, ast.Load) and _tested(ctx, node)
               for node in ctx.nodes.get(ast.Name, ()))


def _bound_in(handlers) -> set[str]:
    """Every name the handlers' statements bind (assignment targets, defs)."""
    names: set[str] = set()
    for handler in handlers:
        for statement in handler.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(statement.name)
            for target in statement.targets if isinstance(statement, ast.Assign) else ():
                names.update(e.id for e in ast.walk(target) if isinstance(e, ast.Name))
    return names


def untested_stand_in(ctx, statement, attempt: ast.Try, handlers) -> bool:
    """`statement` (an import in `attempt`'s body) binds a name that the ImportError `handlers` replace by a bare None,
    and no line of the module tests any of the handler's stand-ins: the import is required."""
    if any(a.name == "*" for a in statement.names):
        return False
    stand_ins: set[str] = set()
    for handler in handlers:
        names = _stand_ins(handler)
        if names is None:
            return False
        stand_ins |= names
    bound = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    # a name the attempt binds that the handlers, binding None stand-ins for its neighbours, leave unbound gets no
    # stand-in at all (`from flash_attn import flash_attn_func` beside `flash_attn = None`): a NameError off CUDA
    # (labeller note 70e on HunyuanVideo's attention)
    # (DLBlas grouped_gemm.py: `from apex.contrib import grouped_gemm as gm` / `grouped_gemm = None`). Then only the
    # reads of the unbound names count: `attn_implementation = None` beside `import flash_attn` is the attempt's
    # choice, read after it, while `flash_attn` is read nowhere (DFloat11 inference.py, labels 60e: optional)
    if not bound & stand_ins:
        stand_ins = bound - _bound_in(handlers)
    if not bound & stand_ins:
        return False
    from migrate.rules.npu501_gpu_only_import import early_exit_guard

    inside = {id(n) for n in ast.walk(attempt)}  # reads after the attempt are the uses
    read_after = False
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id not in stand_ins or not isinstance(node.ctx, ast.Load) or id(node) in inside:
            continue
        if _tested(ctx, node):
            return False
        if early_exit_guard(ctx, node) is not None:
            continue  # after a check in its function that stops without the package (migrate/raising_checks.py)
        # a flag the handler sets to None beside the stand-ins, and the attempt to a value (`FLASH_VER = 2`): any
        # comparison of it (`if FLASH_VER == 2`) asks whether the package is there (Wan2.1 prompt_extend.py)
        if node.id not in bound and isinstance(ctx.parent(node), ast.Compare):
            return False
        read_after = True
    return read_after


def _beside_a_way(ctx, node: ast.AST) -> bool:
    """`node` lies in the body of an `if` that has an `else`, or in the true branch of a conditional expression (not
    its test): the switch has another way beside the branch."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, ast.If) and parent.orelse and any(child is s for s in parent.body):
            return True
        if isinstance(parent, ast.IfExp) and child is parent.body:
            return True
        child, parent = parent, ctx.parent(parent)
    return False


def switched_stand_in(ctx, statement, attempt: ast.Try, handlers) -> bool:
    """An untested None stand-in (`untested_stand_in`) whose every read after the attempt lies on one side of a switch
    with another way beside it (`_beside_a_way`): the import is no line to change, the reads stay (NPU507)."""
    if not untested_stand_in(ctx, statement, attempt, handlers):
        return False
    stand_ins = set().union(*(_stand_ins(h) or set() for h in handlers))
    inside = {id(n) for n in ast.walk(attempt)}
    reads = [n for n in ctx.nodes.get(ast.Name, ()) if n.id in stand_ins and isinstance(n.ctx, ast.Load)
             and id(n) not in inside]
    return bool(reads) and all(_beside_a_way(ctx, n) for n in reads)


def _flagged(handler: ast.ExceptHandler) -> tuple[set[str], set[str]] | None:
    """(the names `handler` binds to None, the flags it sets to False) where that is all it does (besides passing or a
    notice call) and it sets at least one of each, else None."""
    nones: set[str] = set()
    flags: set[str] = set()
    for statement in handler.body:
        if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            continue
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
                and statement.value.value in (None, False) and all(isinstance(t, ast.Name) for t in statement.targets)):
            return None
        (nones if statement.value.value is None else flags).update(t.id for t in statement.targets)
    return (nones, flags) if nones and flags else None


_FLAGGED_KEY = "_npu_flagged_stand_ins"


def _flagged_attempts(ctx) -> dict[int, tuple[set[str], set[str]]]:
    """id of each import attempt whose ImportError handlers bind None stand-ins beside a False flag -> (stand-ins,
    flags)."""
    cached = ctx.__dict__.get(_FLAGGED_KEY)
    if cached is not None:
        return cached
    found: dict[int, tuple[set[str], set[str]]] = {}
    if "None" in ctx.source and "False" in ctx.source:
        from migrate.rules.npu501_gpu_only_import import _catches_import_error

        for attempt in ctx.nodes.get(ast.Try, ()):
            handlers = [h for h in attempt.handlers if _catches_import_error(h)]
            read = [_flagged(h) for h in handlers]
            if handlers and all(r is not None for r in read) \
                    and any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in attempt.body):
                found[id(attempt)] = (set().union(*(r[0] for r in read)), set().union(*(r[1] for r in read)))
    ctx.__dict__[_FLAGGED_KEY] = found
    return found


def _function_tests(ctx, node: ast.AST, stand_ins: set[str], flags: set[str]) -> bool:
    """The function holding `node` (the class, for a method) reads one of the flags or asks whether a stand-in is there
    (`_tested`), anywhere in it: a check on the paths through it (`if not _flash_attn_available: raise ...`, `if
    flash_attn_func is None:`)."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    if isinstance(ctx.parent(function), ast.ClassDef):  # a method: its class (`self.use_flash = ... and HAS_FLASH`
        function = ctx.parent(function)                 # in `__init__`, `if self.use_flash:` in `forward`)
    for n in ast.walk(function):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and (
                n.id in flags or (n.id in stand_ins and _tested(ctx, n))):
            return True
    return False


def _named_only_under_checks(ctx, node: ast.AST, availability_guard) -> bool:
    """`node` lies in a module-level function that its module names (calls, registers: `forward_op=_flash_attention_3_
    forward_op`) only under an availability check, at least once: vipshop/cache-dit attention/backends/flash.py
    registers its FlashAttention-3 forward only `if _flash_attn_3_available:` (labels 64a: optional)."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    while function is not None and ctx.parent(function) is not ctx.tree:
        function = ctx.enclosing(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    mentions = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == function.name and isinstance(n.ctx, ast.Load)]
    return bool(mentions) and all(availability_guard(ctx, m) is not None for m in mentions)


def unchecked_flagged_call(ctx, attempt: ast.Try) -> bool:
    """`attempt` binds None stand-ins beside a flag (`except ImportError: flash_attn_varlen_func = None;
    _flash_attn_available = False`), and a stand-in is called after it in a function that neither reads the flag nor
    asks whether a stand-in is there, with no availability check or early exit above the call: that path calls None
    without the package (label ruling (L42), read path by path: Zefan-Cai/KVCache-Factory llama_model.py, whose
    `_flash_attention_forward` checks `_flash_attn_available` and raises while the AdaKV/HeadKV decode branches call
    `flash_attn_varlen_func` directly, labels 64f). The import attempt is then required; the checked calls stay
    unreported (`checked_flagged_read`)."""
    read = _flagged_attempts(ctx).get(id(attempt))
    if read is None:
        return False
    stand_ins, flags = read
    from migrate.rules.npu501_gpu_only_import import availability_guard

    inside = {id(n) for n in ast.walk(attempt)}
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id not in stand_ins or not isinstance(node.ctx, ast.Load) or id(node) in inside:
            continue
        call = ctx.parent(node)
        if not (isinstance(call, ast.Call) and call.func is node):
            continue
        if _function_tests(ctx, node, stand_ins, flags) or availability_guard(ctx, node) is not None \
                or _named_only_under_checks(ctx, node, availability_guard):
            continue
        if ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) is None:
            continue  # at module level: the import-time path, read by the module-wide rules above
        return True
    return False


def checked_flagged_read(ctx, name: str | None, node) -> bool:
    """`node` reads a None stand-in of an attempt with a flag (`unchecked_flagged_call`) in a function that checks the
    flag or the stand-in: not a use, though an unchecked call elsewhere makes the import required."""
    if name is None:
        return False
    attempts = _flagged_attempts(ctx)
    if not attempts:
        return False
    for stand_ins, flags in attempts.values():
        if name in stand_ins and _function_tests(ctx, node, stand_ins, flags):
            return True
    return False
