"""A function of the repository that answers "is the package usable?" from an availability flag is a check like the flag.

ComfyUI's model_management.py, copied across the diffusion ecosystem (Fooocus's ldm_patched, many forks), sets a flag
from an import attempt and asks it through functions:

    try:
        import xformers
        XFORMERS_IS_AVAILABLE = True
    except:
        XFORMERS_IS_AVAILABLE = False

    def xformers_enabled():
        if cpu_state != CPUState.GPU:
            return False
        return XFORMERS_IS_AVAILABLE

    def xformers_enabled_vae():
        enabled = xformers_enabled()
        if not enabled:
            return False
        return XFORMERS_ENABLED_VAE

and another module does `if model_management.xformers_enabled(): import xformers`: on a host without xformers
the function answers False, the import never runs. Such a function is an availability predicate when every answer
it can give that is not "no" (False / None / nothing) comes from an availability test (`_availability_test` of NPU501:
a flag this module sets by an import attempt, an `is_<pkg>_available()` call, a flag named HAS_x / x_AVAILABLE, another
predicate of the module, or one of them as an operand of `and`, also through a local variable bound to one), or is
given only after an early exit on the negated test (`if not enabled: return False`). A function that can answer
True without the package (`if args.force: return True`) is none.

A function that lists the packages of a table whose `importlib.util.find_spec(...)` is None (torchao's
`_missing_cutedsl_runtime_packages()`) is asked the same question: `return len(_missing_packages()) == 0` (or `not
_missing_packages()`) answers from it (`spec_probes`, `_none_missing`). A module-level name bound once to an
availability test (`_dsl_ok = torch.cuda.is_available() and _dsl_runtime_available()`) is a flag of its module
(`module_flags`).

Same module: NPU501 / NPU507 / NPU404 read `if xformers_enabled():` as an availability guard. Another module: the
predicates are recorded as "flag" definitions of mode "call" (migrate/imported_flags.py), and the importer's second
analysis reads `if model_management.xformers_enabled():` (called) like an imported flag.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

_KEY = "_npu_predicates"
_ASKED = ("_available", "_AVAILABLE", "HAS_", "has_", "_installed")  # how a flag or probe of another module is spelled


def predicates(ctx) -> frozenset[str]:
    """Names of the module-level functions of this file that are availability predicates (see the module doc)."""
    cached = ctx.__dict__.get(_KEY)
    if cached is not None:
        return cached
    from migrate.rules.npu501_gpu_only_import import _set_by_import_attempt

    found: frozenset[str] = frozenset()
    ctx.__dict__[_KEY] = found  # read by `_availability_test` while this runs: grows until nothing more is found
    if not _set_by_import_attempt(ctx) and not any(word in ctx.source for word in _ASKED):
        return found  # nothing here a function could answer from
    functions = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        return found
    while True:
        grown = frozenset(f.name for f in functions if _answers_availability(ctx, f))
        ctx.__dict__[_KEY] = grown
        if grown == found:
            return grown
        found = grown


_STATEMENT_LISTS = ("body", "handlers", "orelse", "finalbody", "cases")  # where statements hold statements
_LISTS_OF: dict[type, tuple[str, ...]] = {}  # node type -> its fields among those, in the node's own order


def own_returns(function) -> list[ast.Return]:
    """The `return` statements of `function` itself (not those of functions or classes defined inside it). A
    `return` is a statement: only the statement lists of statements (and of `except` handlers and `case`s) are read,
    not their expressions (a lambda holds no statement)."""
    out, todo = [], list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            out.append(node)
            continue
        fields = _LISTS_OF.get(type(node))
        if fields is None:
            fields = _LISTS_OF[type(node)] = tuple(f for f in node._fields if f in _STATEMENT_LISTS)
        for field in fields:
            todo.extend(getattr(node, field))
    return out


def _tests_availability(ctx, tested, expr) -> bool:
    """The expression tests availability: a local set from a check (`tested`), a None stand-in's test, an `and` of
    such, or NPU501's availability test. A module function: a recursive nested function holds its own cell, a cycle
    that kept the file's context and tree alive while the collector is off (the whole scan, migrate/cli.py)."""
    from migrate.rules.npu501_gpu_only_import import _availability_test

    if isinstance(expr, ast.Name) and expr.id in tested:
        return True
    if _none_missing(ctx, expr):
        return True
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return any(_tests_availability(ctx, tested, v) for v in expr.values)
    return _availability_test(ctx, expr)


def _answers_availability(ctx, function) -> bool:
    from migrate.rules.npu501_gpu_only_import import _nothing

    tested = _tested_locals(ctx, function)

    def test(expr) -> bool:  # not recursive itself (a recursive closure is a reference cycle, see _tests_availability)
        return _tests_availability(ctx, tested, expr)

    exits = [line for line in (_early_exit_line(function, test), _import_probe_line(function)) if line is not None]
    exit_line = min(exits) if exits else None
    returns = own_returns(function)
    some = False
    for node in returns:
        if _nothing(node.value):
            continue
        if exit_line is not None and node.lineno > exit_line:
            some = True
            continue
        if not test(node.value):
            return False
        some = True
    return some


def module_flags(ctx) -> frozenset[str]:
    """Module-level names bound once, at the module's top level, to an availability test (`_availability_test`, this
    module's predicates included): torchao's `_mxfp8_cutedsl_kernels_available = (_is_sm_10x() and
    is_cuda_version_at_least(12, 8) and _cutedsl_runtime_available())`, then `if not _mxfp8_cutedsl_kernels_available:
    raise NotImplementedError(...)` in the op wrappers. A name bound anywhere else too is none."""
    cached = ctx.__dict__.get(_FLAGS_KEY)
    if cached is not None:
        return cached
    ctx.__dict__[_FLAGS_KEY] = frozenset()  # asked by `_availability_test` while this runs
    if "_available" not in ctx.source and "_AVAILABLE" not in ctx.source:
        return frozenset()
    from migrate.rules.npu501_gpu_only_import import _availability_test

    top = {id(s) for s in ctx.tree.body}
    bound: dict[str, int] = {}
    for node in ctx.nodes.get(ast.Name, ()):
        if isinstance(node.ctx, ast.Store):
            bound[node.id] = bound.get(node.id, 0) + 1
    found = frozenset(s.targets[0].id for s in ctx.tree.body
                      if isinstance(s, ast.Assign) and id(s) in top and len(s.targets) == 1
                      and isinstance(s.targets[0], ast.Name) and bound.get(s.targets[0].id) == 1
                      and isinstance(s.value, (ast.BoolOp, ast.Call)) and _availability_test(ctx, s.value))
    ctx.__dict__[_FLAGS_KEY] = found
    return found


_FLAGS_KEY = "_npu_module_flags"


def spec_probes(ctx) -> frozenset[str]:
    """The module-level functions of this file whose own body asks `importlib.util.find_spec(...)`: each lists (or
    counts) the packages of a table that are not importable here (torchao's `_missing_cutedsl_runtime_packages()`,
    collecting the pip names of `cuda.bindings.driver`, `cutlass`, ... whose spec is None)."""
    cached = ctx.__dict__.get(_SPEC_KEY)
    if cached is None:
        cached = ctx.__dict__[_SPEC_KEY] = frozenset(
            s.name for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(isinstance(n, ast.Call) and (ctx.qualname(n.func) or "").endswith("find_spec") for n in walk_nodes(s)))
    return cached


_SPEC_KEY = "_npu_spec_probes"


def spec_predicates(ctx) -> frozenset[str]:
    """The module-level functions of this file whose every answer is `importlib.util.find_spec(<pkg>) is not None`
    (`_spec_found`), for the modules importing them (migrate/imported_flags.py, "flag" definitions of mode "call"): the
    importer's `if has_vllm(): from vllm... import X` runs only where the package is installed (label ruling (L102)).
    In the module itself such a function keeps the reading of rule 28a-9 (a use under it of a name the module imports
    at its top stays reported)."""
    if "find_spec" not in ctx.source:
        return frozenset()
    from migrate.rules.npu501_gpu_only_import import _nothing

    found = set()
    for function in ctx.tree.body:
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            answers = [r.value for r in own_returns(function) if not _nothing(r.value)]
            if answers and all(_spec_found(ctx, value) for value in answers):
                found.add(function.name)
    return frozenset(found)


def _spec_found(ctx, expr) -> bool:
    """`importlib.util.find_spec("vllm") is not None`: the package is importable here, as a module-level flag bound to
    the same probe (`_set_by_import_attempt`). FlagGems' modules_tests/module_test_util.py `def has_vllm() -> bool:
    return importlib.util.find_spec("vllm") is not None`, then `if has_vllm(): from vllm... import SiluAndMul`."""
    return isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.IsNot) \
        and isinstance(expr.comparators[0], ast.Constant) and expr.comparators[0].value is None \
        and isinstance(expr.left, ast.Call) and (ctx.qualname(expr.left.func) or "").endswith("find_spec")


def _none_missing(ctx, expr) -> bool:
    """`len(_missing_packages()) == 0` or `not _missing_packages()`, `_missing_packages()` a `spec_probes` function of
    this module: True only where none of the packages it looks for is missing."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        call = expr.operand
    elif isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Eq) \
            and isinstance(expr.comparators[0], ast.Constant) and expr.comparators[0].value == 0 \
            and isinstance(expr.left, ast.Call) and isinstance(expr.left.func, ast.Name) and expr.left.func.id == "len" \
            and len(expr.left.args) == 1:
        call = expr.left.args[0]
    else:
        return False
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and "find_spec" in ctx.source \
        and call.func.id in spec_probes(ctx)  # the text searched last: a whole module, for each expression asked


def _tested_locals(ctx, function) -> frozenset[str]:
    """Local names the function's own top-level statements bind to an availability test (`enabled = xformers_enabled()`)."""
    from migrate.rules.npu501_gpu_only_import import _availability_test

    return frozenset(t.id for s in function.body if isinstance(s, ast.Assign) and _availability_test(ctx, s.value)
                     for t in s.targets if isinstance(t, ast.Name))


def _import_probe_line(function) -> int | None:
    """The last line of the first import of a GPU-only package (one of the catalogue) in the first top-level `try:` of
    the function whose every handler catches a failed import and answers "no" (`return False`): every return after it
    runs only where the package imported. Tencent/AngelSlim sparsity/algorithms/flexprefill/kernels/__init__.py:

        def kernels_available(head_dim=None):
            try:
                import flash_attn
                import triton
            except Exception:
                return False
            if head_dim is None:
                return True
            return head_dim in _SUPPORTED_HEAD_DIMS

    answers True only where flash_attn and triton import, as `if not is_triton_available(): return False` would."""
    from migrate.optional_modules import _catches_import_error
    from migrate.rules.npu501_gpu_only_import import _nothing
    from migrate.skip_decorators import catalogue_package, catalogue_roots

    attempt = next((s for s in function.body if isinstance(s, ast.Try)), None)
    if attempt is None or attempt.orelse or attempt.finalbody or not attempt.handlers or not all(
            _catches_import_error(h) and h.body and isinstance(h.body[-1], ast.Return) and _nothing(h.body[-1].value)
            for h in attempt.handlers):
        return None
    roots = catalogue_roots()
    for statement in attempt.body:
        names = [a.name for a in statement.names] if isinstance(statement, ast.Import) else \
            [statement.module or ""] if isinstance(statement, ast.ImportFrom) and not statement.level else []
        if any(catalogue_package(name.split(".", 1)[0], roots) for name in names):
            return statement.end_lineno
    return None


def _early_exit_line(function, test) -> int | None:
    """The last line of the first top-level `if not <test>: return <nothing>` (no `else:`) of the function, before which
    no other answer than "no" is given: every return after it runs only where the package is."""
    from migrate.rules.npu501_gpu_only_import import _nothing

    for statement in function.body:
        if isinstance(statement, ast.If) and not statement.orelse and statement.body \
                and isinstance(statement.body[-1], ast.Return) and _nothing(statement.body[-1].value) \
                and isinstance(statement.test, ast.UnaryOp) and isinstance(statement.test.op, ast.Not) \
                and test(statement.test.operand):
            return statement.end_lineno
    return None


def selected_by_check(ctx, expr) -> bool:
    """`get_default_backend() == Backend.TRITON` (or `Backend.TRITON == get_default_backend()`, `is`): a comparison of a
    call of a backend selector of this module with a value it returns only where the package is (`selectors`).

    Tencent/AngelSlim compressor/_platform.py picks Triton or PyTorch by availability and asks the choice through a
    comparison:

        def get_default_backend() -> Backend:
            if is_triton_available():
                return Backend.TRITON
            return Backend.PYTORCH

        def use_triton() -> bool:
            return get_default_backend() == Backend.TRITON

    `use_triton()` is True only where `is_triton_available()` was: it is a predicate like `xformers_enabled()`, and
    `if use_triton(): from .fp8_gemm import ...` (else the PyTorch module) is a selection that checks the package first
    (label ruling (L42): the Triton kernels reached only so are an optional backend)."""
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Eq, ast.Is))):
        return False
    left, right = expr.left, expr.comparators[0]
    if not isinstance(left, ast.Call):
        left, right = right, left
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and not left.args and not left.keywords):
        return False
    value = _constant_key(right)
    return value is not None and value in selectors(ctx).get(left.func.id, ())


_SELECTORS_KEY = "_npu_selectors"


def _constant_key(node) -> str | None:
    """A value a selector may return, as a key: a constant (`"triton"`) or a dotted name (`Backend.TRITON`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
        return repr(node.value)
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and parts:
        return ".".join([node.id, *reversed(parts)])
    return None


def selectors(ctx) -> dict[str, frozenset[str]]:
    """The module-level functions of this file taking no argument that return only constants or dotted names
    (`Backend.TRITON`, `"pytorch"`) -> the values each returns only in the body of an `if` testing availability
    (`_availability_test`: `if is_triton_available(): return Backend.TRITON`), never elsewhere. Where none of its
    returns is under such a test the function is none."""
    cached = ctx.__dict__.get(_SELECTORS_KEY)
    if cached is not None:
        return cached
    ctx.__dict__[_SELECTORS_KEY] = {}  # asked by `_availability_test` while this runs
    found: dict[str, frozenset[str]] = {}
    if "return" in ctx.source and ("_available" in ctx.source or "_AVAILABLE" in ctx.source or "HAS_" in ctx.source):
        from migrate.rules.npu501_gpu_only_import import _availability_test

        for function in ctx.tree.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.args.args \
                    or function.args.posonlyargs or function.args.kwonlyargs or function.args.vararg \
                    or function.args.kwarg:
                continue
            checked: dict[str, bool] = {}
            if not _selector_returns(ctx, function.body, False, checked, _availability_test):
                continue
            values = frozenset(value for value, under in checked.items() if under)
            if values and len(values) < len(checked):
                found[function.name] = values
    ctx.__dict__[_SELECTORS_KEY] = found
    return found


def _selector_returns(ctx, statements, under: bool, checked: dict, test) -> bool:
    """Record each `return <value>` of `statements` (and of the statements they hold, not of nested functions) in
    `checked`: value -> True while every return of it is in the body of an `if` testing availability. False where
    a return gives anything but a constant or a dotted name."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, ast.Return):
            value = _constant_key(statement.value) if statement.value is not None else None
            if value is None:
                return False
            checked[value] = checked.get(value, True) and under
            continue
        if isinstance(statement, ast.If):
            inner = under or test(ctx, statement.test)
            if not (_selector_returns(ctx, statement.body, inner, checked, test)
                    and _selector_returns(ctx, statement.orelse, under, checked, test)):
                return False
            # `if not is_triton_available(): return Backend.PYTORCH`: what follows runs only where the package is
            under = under or (not statement.orelse and isinstance(statement.body[-1], ast.Return)
                              and isinstance(statement.test, ast.UnaryOp) and isinstance(statement.test.op, ast.Not)
                              and test(ctx, statement.test.operand))
            continue
        for field in _STATEMENT_LISTS:
            for part in getattr(statement, field, ()):
                held = part.body if isinstance(part, (ast.excepthandler, ast.match_case)) else [part]
                if not _selector_returns(ctx, held, under, checked, test):
                    return False
    return True


_FALLBACKS_KEY = "_npu_fallback_selectors"


def fallback_selectors(ctx) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """The module-level functions of this file that take a mode and give it back only after checking its package,
    falling back to another mode otherwise -> (the values given back only after a check, the fallback values).

    Tencent-Hunyuan/HunyuanVideo-1.5 hyvideo/commons/__init__.py:

        def maybe_fallback_attn_mode(attn_mode):
            if attn_mode == 'sageattn':
                try:
                    from sageattention import sageattn
                except Exception:
                    attn_mode = 'flash'
            if attn_mode == 'flash':
                if is_flash3_available(): attn_mode = 'flash3'
                elif is_flash2_available(): attn_mode = 'flash2'
                else: attn_mode = 'torch'
            elif attn_mode == 'flash2':
                if not is_flash2_available(): attn_mode = 'torch'
            ...
            return attn_mode

    Every return gives the first parameter back; the fallbacks are the constants it is set to where a check failed
    (an import attempt's handler, the `else:` of `if <availability test>:`, the body of `if not <test>:`); the checked
    values are those it is compared with (`attn_mode == 'flash2'`) in an `if` whose body checks a package, and those
    set where a check passed (`if is_flash3_available(): attn_mode = 'flash3'`), less the fallbacks. After
    `attn_mode = maybe_fallback_attn_mode(attn_mode)`, the caller's `if attn_mode == "flash2":` (and the `else:` of
    `if attn_mode == "torch":`) runs only where the package is: a selection that checks the package first (label
    ruling (L42)), as `selected_by_check`."""
    cached = ctx.__dict__.get(_FALLBACKS_KEY)
    if cached is not None:
        return cached
    ctx.__dict__[_FALLBACKS_KEY] = {}
    found: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    if "return" in ctx.source and ("import" in ctx.source or "_available" in ctx.source):
        from migrate.rules.npu501_gpu_only_import import _availability_test, _catches_import_error

        for function in ctx.tree.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.args.args:
                continue
            mode = function.args.args[0].arg
            if mode == "self" or f"return {mode}" not in ctx.source:
                continue
            inner = list(walk_nodes(function))
            returns = [n for n in inner if isinstance(n, ast.Return)]
            if not returns or any(not (isinstance(r.value, ast.Name) and r.value.id == mode) for r in returns):
                continue
            fallbacks: set[str] = set()
            checked: set[str] = set()
            compared_checks: set[str] = set()
            ok = True
            for n in inner:
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == mode for t in n.targets):
                    value = _constant_key(n.value)
                    if value is None:
                        ok = False  # set from anything else: what comes back is not known
                        break
                elif isinstance(n, ast.ExceptHandler) and _catches_import_error(n):
                    fallbacks |= _set_to(n.body, mode)
                elif isinstance(n, ast.If):
                    test = n.test
                    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
                    if _availability_test(ctx, test.operand if negated else test):
                        fallbacks |= _set_to(n.body if negated else n.orelse, mode, top=True)
                        if not negated:
                            checked |= _set_to(n.body, mode, top=True)
                    compared = _compared(test, mode)
                    if compared is not None and _checks_in(ctx, n.body, _availability_test, _catches_import_error):
                        compared_checks.add(compared)
            checked = (checked | compared_checks) - fallbacks
            final = fallbacks - compared_checks  # a fallback resolved further (`'flash'` -> flash3 / flash2 / torch) is none
            if ok and checked and final:
                found[function.name] = (frozenset(checked), frozenset(final))
    ctx.__dict__[_FALLBACKS_KEY] = found
    return found


def _set_to(statements, name: str, top: bool = False) -> set[str]:
    """The constants `name` is set to in `statements` (with `top`, only at their own level: not in a nested `if`)."""
    nodes = statements if top else [n for s in statements for n in walk_nodes(s)]
    return {_constant_key(n.value) for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name and _constant_key(n.value) is not None}


def _compared(test, name: str) -> str | None:
    """`name == <constant>` (either side) -> the constant's key."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is))):
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.Name) and left.id == name):
        left, right = right, left
    return _constant_key(right) if isinstance(left, ast.Name) and left.id == name else None


def _checks_in(ctx, statements, test, catches) -> bool:
    """`statements` hold an import attempt or an availability test (negated or not)."""
    for statement in statements:
        for n in walk_nodes(statement):
            if isinstance(n, ast.Try) and any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in n.body) \
                    and any(catches(h) for h in n.handlers):
                return True
            if isinstance(n, ast.If):
                inner = n.test.operand if isinstance(n.test, ast.UnaryOp) and isinstance(n.test.op, ast.Not) else n.test
                if test(ctx, inner):
                    return True
    return False


def _selector_of(ctx, call) -> tuple[frozenset[str], frozenset[str]] | None:
    """(checked values, fallbacks) of the fallback selector `call` calls: of this module, or imported from a module
    the scan read (recorded as `module.name(=checked|fallbacks)`, migrate/imported_flags.py)."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if isinstance(func, ast.Name) and func.id in fallback_selectors(ctx):
        return fallback_selectors(ctx)[func.id]
    known = ctx.__dict__.get("_npu_known_flags")
    if not known:
        return None
    from migrate.kernel_values import _imported_names as imported_dotted

    if isinstance(func, ast.Name):
        full = imported_dotted(ctx).get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = imported_dotted(ctx).get(func.value.id)
        full = f"{owner}.{func.attr}" if owner else None
    else:
        full = None
    if full is None:
        return None
    for flag in known:
        name, sep, values = flag.partition("(=")
        if sep and (full == name or name.endswith("." + full) or full.endswith("." + name)):
            checked, _, fallbacks = values.rstrip(")").partition("|")
            return frozenset(checked.split("\x1f")), frozenset(fallbacks.split("\x1f"))
    return None


def _selected_mode(ctx, name: ast.Name) -> tuple[frozenset[str], frozenset[str]] | None:
    """The selector whose call last set `name` before this read in its function (`attn_mode =
    maybe_fallback_attn_mode(attn_mode)`), nothing setting it in between."""
    function = ctx.parent(name)
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        function = ctx.parent(function)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    stores = [n for n in walk_nodes(function) if isinstance(n, ast.Name) and n.id == name.id
              and not isinstance(n.ctx, ast.Load) and n.lineno < name.lineno]
    if not stores:
        return None
    last = max(stores, key=lambda n: (n.lineno, n.col_offset))
    bound = ctx.parent(last)
    if not (isinstance(bound, ast.Assign) and len(bound.targets) == 1 and bound.targets[0] is last):
        return None
    return _selector_of(ctx, bound.value)


def selected_mode_check(ctx, test, orelse: bool = False) -> bool:
    """`mode == "flash2"` after `mode = selector(mode)` with "flash2" a value the selector gives only after a check
    (`fallback_selectors`); with `orelse`, `mode == "torch"` with "torch" a fallback: its `else:` runs only where a
    package was found."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is))):
        return False
    name = test.left if isinstance(test.left, ast.Name) else test.comparators[0]
    if not isinstance(name, ast.Name):
        return False
    value = _compared(test, name.id)
    if value is None:
        return False
    selector = _selected_mode(ctx, name)
    return selector is not None and value in selector[1 if orelse else 0]
