import ast
import re

from migrate import knowledge, none_stand_ins
from migrate.context import walk_nodes
from migrate.findings import Category, Severity
from migrate.requirement_checks import checked_before
from migrate.rules.base import Invalid, Rule

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def match_package(module: str, table: dict) -> str | None:
    """The longest key of the third-party table that `module` is or is inside of."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        if key in table:
            return key
    return None


def package_of(key: str, table: dict) -> str:
    """The top-level entry a key belongs to (`apex.optimizers` -> `apex`, `nvidia.dali` stays)."""
    return match_package(key.split(".", 1)[0], table) or key


def needs_a_look(entry) -> bool:
    """An import or dependency of this package is reported: not `works`, and not a `partial`
    package whose note is only `info` (numba: its CPU JIT keeps working, numba.cuda is its own entry)."""
    return entry.status != "works" and not (entry.status == "partial" and entry.severity == "info")


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = {t.id if isinstance(t, ast.Name) else getattr(t, "attr", None) for t in types}
    if not names & _IMPORT_ERRORS:
        return False
    # a handler that only re-raises is no fallback
    return not all(isinstance(stmt, ast.Raise) for stmt in handler.body)


def _binds_a_fallback(handler: ast.ExceptHandler, package: str) -> bool:
    """The handler gives the program something to run without the package: it binds a name
    (`has_apex = False`, `FusedAdam = None`, an import of a substitute, a def or class). A handler
    that only passes, warns or prints leaves the imported names undefined, one that ends in
    `raise` (gpustat: a clearer ImportError) stops the program, and one that imports the same
    package under an older name (LLaVA: `flash_attn_varlen_qkvpacked_func as ...`) still needs it:
    no fallback in any of these. Nor is an import of another GPU-only package (VMamba forks: `try: import
    selective_scan_cuda_core / except Exception: import selective_scan_cuda`): the substitute is another CUDA-only
    compiled module, so no path without a GPU remains (label note 69c, "a fallback that is itself CUDA-only")."""
    if any(isinstance(statement, ast.Raise) for statement in handler.body):
        return False
    table = knowledge.third_party()
    # the handler's own unguarded import of a GPU-only module fails there too, whatever else it binds (`SSMODE = ...`)
    if any(isinstance(statement, (ast.Import, ast.ImportFrom)) and _gpu_only_import(statement, table)
           for statement in handler.body):
        return False
    for statement in handler.body:
        for n in ast.walk(statement):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
                if all(m.split(".", 1)[0] != package for m in modules):
                    return True
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef)):
                return True
    return False


def _gpu_only_import(statement: ast.Import | ast.ImportFrom, table: dict) -> bool:
    """Every module `statement` imports is a catalogued package with no NPU build (status "unsupported"), not a
    partial one; a relative import (`from . import x`) is the repository's own."""
    if isinstance(statement, ast.ImportFrom):
        modules = [statement.module] if statement.module and not statement.level else []
    else:
        modules = [a.name for a in statement.names]
    keys = [match_package(m, table) for m in modules]
    return bool(keys) and all(k is not None and table[k].status == "unsupported" for k in keys)


def _answers_unavailable(handler: ast.ExceptHandler, empties: frozenset[str] = frozenset()) -> bool:
    """The handler is a probe's "not available" answer: it returns False / None or an empty collection (`def has_fa3(): try: from
    flash_attn_interface import flash_attn_func; return True / except ImportError: return False`, xDiT envs.py):
    its caller takes the path without the package. A handler that also raises is no such answer, nor one that reports
    the failure as an error before it returns (`logger.error("This version of AutoGPTQ does not support LoRA ..."); return`,
    text-generation-webui LoRA.py): the feature stops there, there is no path without the package."""
    if any(isinstance(statement, ast.Raise) for statement in handler.body) or _reports_an_error(handler):
        return False
    return any(isinstance(statement, ast.Return) and (_nothing(statement.value, empties) or _minus_one(statement.value))
               for statement in handler.body)


def _minus_one(value: ast.AST | None) -> bool:
    """`return -1`: the "unavailable" sentinel of a probe that otherwise returns a measure (`def
    _snapshot_gpu_free_ratio(ids): try: import pynvml; pynvml.nvmlInit() / except Exception: return -1`, its callers
    testing `0 <= ratio`: label rule 46e e-5)."""
    return isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant) \
        and value.operand.value == 1 and not isinstance(value.operand.value, bool)


_EMPTY_CONSTRUCTORS = frozenset({"set", "frozenset", "list", "dict", "tuple"})


def _nothing(value: ast.AST | None, empties: frozenset[str] = frozenset()) -> bool:
    """`return`, `return False` / `None`, or an empty collection, `return []` / `{}` / `()` / `set()` (a monitor's
    `def get_gpu_stats(): try: import pynvml / except ImportError: logger.warning(...); return []`): the answer
    "none here" that the caller reads as no device of that kind (label rule 43e e-2); also a local of `empties`, bound
    to an empty collection just before the try (`result: Dict[int, int] = {}` / `try: from pynvml import ... / except
    ImportError: return result`, label rule 46e e-5)."""
    if value is None or (isinstance(value, ast.Constant) and value.value in (False, None)):
        return True
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)) and not value.elts:
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY_CONSTRUCTORS \
            and not value.args and not value.keywords:
        return True
    if isinstance(value, ast.Name) and value.id in empties:
        return True
    return isinstance(value, ast.Dict) and not value.keys


def _empty_before(ctx, attempt: ast.Try, constants: bool = False) -> frozenset[str]:
    """Names the statements before `attempt` in its block last bind to an empty collection (`result = {}`,
    `pids: set = set()`), in a function: what a handler returning them answers is "none here". With `constants`,
    also those bound to `0` / `False` / `None` (a counter's default: `device_count = 0`)."""
    if ctx.enclosing(attempt, (ast.FunctionDef, ast.AsyncFunctionDef)) is None:
        return frozenset()
    parent = ctx.parent(attempt)
    block = next((b for f in ("body", "orelse", "finalbody") if isinstance(b := getattr(parent, f, None), list)
                  and any(s is attempt for s in b)), None)
    if block is None:
        return frozenset()
    empties: set[str] = set()
    for statement in block:
        if statement is attempt:
            break
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value is not None else []
        for target in targets:
            if isinstance(target, ast.Name):
                (empties.add if _nothing(statement.value) and (constants or not isinstance(statement.value, ast.Constant))
                 else empties.discard)(target.id)
    return frozenset(empties)


def _default_kept(ctx, attempt: ast.Try, handlers) -> bool:
    """The try overwrites a default bound just before it to "none here" and a handler passes, keeping it
    (`device_count = 0` / `try: from pynvml import ...; nvmlInit(); device_count = nvmlDeviceGetCount() / except
    Exception: pass` / `return device_count > 0`, label rule 46e e-5): the function answers "no such device" without
    the package, like a handler's `return False`."""
    if not any(all(isinstance(s, ast.Pass) or _notice(s) for s in h.body) for h in handlers):
        return False
    defaults = _empty_before(ctx, attempt, constants=True)
    if not defaults:
        return False
    assigned = {t.id for s in _walk_block(attempt.body) if isinstance(s, (ast.Assign, ast.AnnAssign))
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)}
    return bool(assigned & defaults)


def guarding_try(ctx, statement) -> ast.Try | None:
    """The nearest `try:` holding `statement` in its body with a handler that catches ImportError."""
    child, parent = statement, ctx.parent(statement)
    while parent is not None:
        if isinstance(parent, ast.Try) and child in parent.body and any(_catches_import_error(h) for h in parent.handlers):
            return parent
        child, parent = parent, ctx.parent(parent)
    return None


# `is_apex_available()`, and the private spelling of a generic probe (accelerate imports.py:
# `_is_package_available("transformer_engine", "transformer-engine")`); also the `installed` spelling of a project's
# own probe (`def is_flash_v2_installed(): try: import flash_attn / except: return False / return version >= ...`):
# the same question, asked the same way
_AVAILABILITY = re.compile(r"^_?is_\w+_(?:available|installed)$")


def availability_subject(name: str) -> str:
    """The <pkg> of `is_<pkg>_available` / `is_<pkg>_installed` (leading `_` dropped)."""
    name = name.lstrip("_")
    return name[3:name.rindex("_")]


# an availability flag imported from another module of the project, by its spelling: `HAS_FLASH_ATTN`,
# `has_apex`, `FLASH_ATTN_AVAILABLE`, `is_triton_available` (yunchang's `from yunchang.globals import HAS_FLASH_ATTN`)
_FLAG = re.compile(r"^(?:HAS|has|Has)_\w+$|^\w+_(?:AVAILABLE|available|Available)$")


def _imported_names(ctx) -> frozenset[str]:
    cached = ctx.__dict__.get("_npu_from_imported")
    if cached is None:
        cached = ctx.__dict__["_npu_from_imported"] = frozenset(
            alias.asname or alias.name for s in ctx.nodes.get(ast.ImportFrom, ()) for alias in s.names)
    return cached


def _set_by_import_attempt(ctx) -> frozenset[str]:
    """Names this file binds True in a `try:` that imports a module and False in its ImportError handler
    (`try: import flash_attn; HAS_FLASH_ATTN = True except ImportError: HAS_FLASH_ATTN = False`), or to
    `importlib.util.find_spec(...) is not None`: availability flags of its own."""
    cached = ctx.__dict__.get("_npu_attempt_flags")
    if cached is not None:
        return cached
    out: set[str] = set()
    for attempt in ctx.nodes.get(ast.Try, ()):
        if not any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in attempt.body):
            continue
        on = {t.id for s in attempt.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value is True
              for t in s.targets if isinstance(t, ast.Name)}
        off = {t.id for h in attempt.handlers if _catches_import_error(h) for s in h.body
               if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value in (False, None)
               for t in s.targets if isinstance(t, ast.Name)}
        out |= on & off
        out |= _flags_set_before(ctx, attempt)  # `_has_x = False` ahead of `try: import x; _has_x = True` (46b-8)
        out |= _switches_turned_off(ctx, attempt)  # `fused = cfg.fused` ahead of `try: import x except: fused = False`
        out |= _instance_flags(ctx, attempt)
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if isinstance(value, ast.Compare) and isinstance(value.left, ast.Call) \
                and (ctx.qualname(value.left.func) or "").endswith("find_spec") and isinstance(value.ops[0], ast.IsNot):
            out.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    ctx.__dict__["_npu_attempt_flags"] = frozenset(out)
    return ctx.__dict__["_npu_attempt_flags"]


def _self_attributes(statements, value=None) -> set[str]:
    """`self.x` for each `self.x = ...` among `statements` and their inner blocks (with `value`, only `self.x = value`)."""
    return {f"self.{t.attr}" for s in statements for n in ast.walk(s) if isinstance(n, ast.Assign)
            and (value is None or (isinstance(n.value, ast.Constant) and n.value.value is value))
            for t in n.targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}


def _instance_flags(ctx, attempt: ast.Try) -> set[str]:
    """An object's own availability flag (an interop set up in a method, EasyVolcap-style viewers: `if
    self.use_interop: try: from cuda import cudart; self.res = cudart.register(...) / except (RuntimeError,
    ModuleNotFoundError): self.use_interop = False`): `self.use_interop`, bound False in the ImportError handler and
    switched on in the try body or tested by the `if` holding the try; and `hasattr:self.res` for each attribute the
    try body sets, whose presence (`if hasattr(self, "res"):`) says the attempt succeeded. Methods testing either run
    the package only on the path where it imported (label note 44a a-5)."""
    off = {f for h in attempt.handlers if _catches_import_error(h) for f in _self_attributes(h.body, False)}
    if not off:
        return set()
    on = _self_attributes(attempt.body, True)
    holder = ctx.parent(attempt)
    if isinstance(holder, ast.If) and attempt in holder.body and isinstance(holder.test, ast.Attribute) \
            and isinstance(holder.test.value, ast.Name) and holder.test.value.id == "self":
        on.add(f"self.{holder.test.attr}")
    flags = off & on
    if not flags:
        return set()
    return flags | {f"hasattr:{a}" for a in _self_attributes(attempt.body) - flags}


def _instance_test(ctx, test) -> bool:
    """`self.flag` or `hasattr(self, "attr")` naming an object's availability flag (`_instance_flags`)."""
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
        return f"self.{test.attr}" in _set_by_import_attempt(ctx)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" and len(test.args) == 2 \
            and isinstance(test.args[0], ast.Name) and test.args[0].id == "self" and isinstance(test.args[1], ast.Constant):
        return f"hasattr:self.{test.args[1].value}" in _set_by_import_attempt(ctx)
    return False


def _availability_test(ctx, test) -> bool:
    """`is_<pkg>_available()`, or an availability flag: one this file sets from an import attempt, or one it
    imports whose name says so (`HAS_FLASH_ATTN`); alone or as an operand of an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_availability_test(ctx, v) for v in test.values)
    if _instance_test(ctx, test):  # `self.use_interop`, `hasattr(self, "res")`
        return True
    if isinstance(test, ast.Subscript):  # `env_info["has_flash_attn"]`: a flag read from a mapping by its key
        key = test.slice
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(_FLAG.match(key.value))
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        from migrate.availability_predicates import selected_by_check, selected_mode_check

        # `get_default_backend() == Backend.TRITON`; `attn_mode == "flash2"` after `attn_mode = maybe_fallback(attn_mode)`
        return selected_by_check(ctx, test) or selected_mode_check(ctx, test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        # `"flash_attn" in sys.modules`: the package was already imported elsewhere in this process
        return isinstance(test.left, ast.Constant) and isinstance(test.left.value, str) \
            and ctx.qualname(test.comparators[0]) == "sys.modules"
    if isinstance(test, ast.Call):
        func = test.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and test.args:  # `info.get("has_flash_attn")`
            key = test.args[0]
            return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(_FLAG.match(key.value))
        if _AVAILABILITY.match(func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")):
            return True
        return _predicate_call(ctx, func)
    if isinstance(test, ast.Name):
        from migrate.availability_predicates import module_flags

        return test.id in _set_by_import_attempt(ctx) or (test.id in _imported_names(ctx) and (
            bool(_FLAG.match(test.id)) or _known_flag(ctx, test.id))) or test.id in module_flags(ctx) \
            or _local_flag(ctx, test)
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):  # `globals.HAS_FLASH_ATTN`
        return test.value.id in _imported_names(ctx) and (
            (ctx.qualname(test.value) is None and bool(_FLAG.match(test.attr))) or _known_flag(ctx, test.value.id, test.attr))
    return False


_LOCAL_FLAGS_KEY = "_npu_local_flags"


def _local_flag(ctx, name: ast.Name) -> bool:
    """`name` is a local of the function holding it, bound once there, to an availability test: Tencent/AngelSlim
    sparsity/algorithms/xattention/prefill.py `_kernel_ok = _k.kernels_available(head_dim)`, then `if _kernel_ok:
    return _kernel_prefill(...)` (the pure-torch reference otherwise, label ruling (L42))."""
    function = ctx.parent(name)
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        function = ctx.parent(function)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    cache = ctx.__dict__.setdefault(_LOCAL_FLAGS_KEY, {})
    key = (id(function), name.id)
    if key in cache:
        return cache[key]
    cache[key] = False  # asked again while the bound value is tested
    stores = [n for n in walk_nodes(function) if isinstance(n, ast.Name) and n.id == name.id
              and not isinstance(n.ctx, ast.Load)] + \
        [a for a in walk_nodes(function.args) if isinstance(a, ast.arg) and a.arg == name.id]
    if len(stores) == 1 and isinstance(stores[0], ast.Name):
        bound = ctx.parent(stores[0])
        cache[key] = isinstance(bound, ast.Assign) and len(bound.targets) == 1 and bound.targets[0] is stores[0] \
            and _availability_test(ctx, bound.value)
    return cache[key]


def _predicate_call(ctx, func) -> bool:
    """`xformers_enabled()`, `model_management.xformers_enabled()`: a function answering from an availability flag,
    of this module or imported from one the scan read (migrate/availability_predicates.py)."""
    from migrate.availability_predicates import predicates

    if isinstance(func, ast.Name):
        return func.id in predicates(ctx) or (func.id in _imported_names(ctx) and _known_flag(ctx, func.id, call=True))
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id in _imported_names(ctx) and _known_flag(ctx, func.value.id, func.attr, call=True)


def _known_flag(ctx, local: str, attribute: str = "", call: bool = False) -> bool:
    """`local` (or `local.attribute`) is imported from a module that sets it from an import attempt: known
    after the scan read that module (migrate/imported_flags.py), else never. With `call`, a function answering from
    such a flag (recorded with a trailing `()`, migrate/availability_predicates.py)."""
    known = ctx.__dict__.get("_npu_known_flags")
    if not known:
        return False
    from migrate.kernel_values import _imported_names as imported_dotted

    full = imported_dotted(ctx).get(local)
    if full is None:
        return False
    full = (f"{full}.{attribute}" if attribute else full) + ("()" if call else "")
    return any(full == flag or flag.endswith("." + full) or full.endswith("." + flag) for flag in known)


def availability_guard(ctx, statement) -> ast.AST | None:
    """The nearest `if is_<pkg>_available():` holding `statement` in its body (transformers'
    availability helpers, copied into many trainers: `if is_apex_available(): from apex import amp`),
    or `if HAS_FLASH_ATTN:` with an availability flag (`_availability_test`). An `else:` that raises
    does not make the package required (label ruling (L34)): without the package the code stops with a
    clear error of its own (diffusers' examples: `else: raise ValueError("xformers is not available")`),
    there is nothing there to port. Else the module-level factory function holding it that a kernel registry calls only
    on the GPU hardware it is registered for (`gated_factory`), else the early exit of a function (`early_exit_guard`)."""
    child, parent = statement, ctx.parent(statement)
    while parent is not None:
        if isinstance(parent, ast.If) and child in parent.body and _availability_test(ctx, parent.test):
            return parent
        if isinstance(parent, ast.If) and child in parent.orelse and _fallback_selected(ctx, parent.test):
            return parent  # `if attn_mode == "torch": ... else:` after a selector falling back to "torch"
        if isinstance(parent, ast.Module):
            factory = gated_factory(ctx, child)
            if factory is not None:
                return factory
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name.startswith("_"):
                from migrate.optional_modules import checked_callees

                if child.name in checked_callees(ctx):
                    return child
        child, parent = parent, ctx.parent(parent)
    return early_exit_guard(ctx, statement)


def _fallback_selected(ctx, test) -> bool:
    """`mode == "torch"` with "torch" what a fallback selector gives where the package is missing
    (migrate/availability_predicates.fallback_selectors): its `else:` runs only where the package was found."""
    if not isinstance(test, ast.Compare):
        return False
    from migrate.availability_predicates import selected_mode_check

    return selected_mode_check(ctx, test, orelse=True)


def gated_factory(ctx, top: ast.AST) -> ast.AST | None:
    """`top`, a module-level function, when a kernel registry of the repository runs it only where the GPU hardware it
    is registered with is present (`KernelSpec(..., factory=_liger_swiglu_factory, hardware=HardwareRequirement(
    device_type="gpu"))`, ByteDance-Seed/VeOmni ops/liger/__init__.py; migrate/optional_modules.gated_factories):
    the registry's CUDA branch, label rulings (L56)/(L88)."""
    if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) or "factory" not in ctx.source:
        return None
    keys = ctx.__dict__.get("_npu_gated_factories")
    if keys is None:
        from migrate.optional_modules import gated_factories

        keys = ctx.__dict__["_npu_gated_factories"] = gated_factories(ctx.tree, ctx.nodes)
    return top if "factory:" + top.name in keys else None


def _negated_availability(ctx, test) -> bool:
    """`not is_<pkg>_available()` (`_availability_test` negated), alone or as an operand of an `or`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_negated_availability(ctx, v) for v in test.values)
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _availability_test(ctx, test.operand)


_EXITS_KEY = "_npu_early_exits"


def _early_exit(ctx, statement) -> bool:
    """`if not is_<pkg>_available(): raise ImportError(...)` (or `return False`): no `else:`, the body ends the path;
    or `assert is_<pkg>_available(), "please install ..."`, the same check raising AssertionError; or a call of a function
    that raises without the package (`default_context(device, raise_error=True)`, migrate/raising_checks.py). Answered
    once per statement of the file (`early_exit_guard` asks of every statement of each block holding an import or a
    use: torch, ~7 times each)."""
    exits = ctx.__dict__.get(_EXITS_KEY)
    if exits is None:
        exits = ctx.__dict__[_EXITS_KEY] = {}
    key = id(statement)
    known = exits.get(key)
    if known is None:
        known = exits[key] = _exits_early(ctx, statement)
    return known


def _exits_early(ctx, statement) -> bool:
    from migrate.raising_checks import raising_call

    if raising_call(ctx, statement):
        return True
    if isinstance(statement, ast.Assert):
        return _availability_test(ctx, statement.test)
    return isinstance(statement, ast.If) and not statement.orelse and bool(statement.body) \
        and isinstance(statement.body[-1], (ast.Raise, ast.Return)) and _negated_availability(ctx, statement.test)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def _raising_call(ctx, statement) -> bool:
    """A call of a project function that raises without some package guards only what comes after it in its block: it
    names no package here, and a helper that checks torchvision late in a training script's `main()` (diffusers'
    `resolve_interpolation_mode(...)`) says nothing about a bitsandbytes import above it (set 34d, 2026-11-27)."""
    from migrate.raising_checks import raising_call

    return raising_call(ctx, statement)


def early_exit_guard(ctx, statement) -> ast.If | None:
    """Inside a function, an availability check that leaves when the package is missing (label ruling (L34)):
    accelerate's `def convert_model(model): if not is_transformer_engine_available(): raise ImportError(...)`, then
    `import transformer_engine.pytorch as te` and its uses; pynvml imported after `if not is_pynvml_available():
    raise ...` in the branch that needs it; `if not is_bnb_available(): return False` before `import bitsandbytes`.
    The check guards its block wherever it stands in it (peft loftq_utils.py imports bitsandbytes first and checks
    `is_bnb_4bit_available()` two statements later: the same feature), and the blocks inside that block; the
    `else:` of `if not is_<pkg>_available(): ...` too. Not at module level (an import-time raise makes the module
    fail for every importer), and not a bare `try: import x / except ImportError: raise` (no check: still reported)."""
    child, parent = statement, ctx.parent(statement)
    while parent is not None and not isinstance(parent, (ast.Module, ast.ClassDef, ast.Lambda)):
        if isinstance(parent, ast.If) and child in parent.orelse and _negated_availability(ctx, parent.test):
            return parent
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                check = next((s for s in block if s is not child and _early_exit(ctx, s)
                              and (s.lineno < child.lineno or not _raising_call(ctx, s))), None)
                if check is not None:
                    return check
        if isinstance(parent, _SCOPES):
            return _validated_class(ctx, parent)
        child, parent = parent, ctx.parent(parent)
    return None


# the methods that run before any other of their class: the constructor, and the quantizer protocol's entry (transformers
# quantizers/base.py HfQuantizer and diffusers quantizers/base.py DiffusersQuantizer: `from_pretrained` builds the
# quantizer, then calls `hf_quantizer.validate_environment(...)` before `preprocess_model` / `create_quantized_param` /
# `postprocess_model`: transformers modeling_utils.py, diffusers models/modeling_utils.py)
_ENTRY_METHODS = ("__init__", "validate_environment")


def _validated_class(ctx, method) -> ast.AST | None:
    """The early exit of the class `method` belongs to: a method of it that runs before every other one (`__init__`,
    a quantizer's `validate_environment`) leaves at its top when the package is missing (`if not
    is_bitsandbytes_available(): raise ImportError(...)`, diffusers' BnB4BitDiffusersQuantizer). The package's
    uses in the class's other methods run only after that check passed: optional (label ruling (L34); label note 68a,
    diffusers' quantizers/bitsandbytes/bnb_quantizer.py)."""
    owner = ctx.parent(method)
    if not isinstance(owner, ast.ClassDef):
        return None
    for entry in owner.body:
        if isinstance(entry, _SCOPES) and entry.name in _ENTRY_METHODS and entry is not method:
            check = next((s for s in entry.body if isinstance(s, ast.If) and _early_exit(ctx, s)), None)
            if check is not None:
                return check
    return None


def _npu_fallback_handler(ctx, statement) -> bool:
    """`try: import torch_npu except ImportError: from flash_attn import flash_attn_func`: the handler is the
    branch for a host without torch_npu (as migrate/npu_aware.py reads it); on the NPU it never runs."""
    child, parent = statement, ctx.parent(statement)
    while parent is not None:
        if isinstance(parent, ast.ExceptHandler) and child in parent.body and _catches_import_error(parent):
            attempt = ctx.parent(parent)
            if isinstance(attempt, ast.Try) and any(
                    (isinstance(s, ast.Import) and any(a.name.split(".", 1)[0] == "torch_npu" for a in s.names))
                    or (isinstance(s, ast.ImportFrom) and not s.level and (s.module or "").split(".", 1)[0] == "torch_npu")
                    for s in attempt.body):
                return True
        child, parent = parent, ctx.parent(parent)
    return False


_ERROR_NOTICES = frozenset({"error", "exception", "critical", "fatal"})  # logging levels that say the attempt failed


def _reports_an_error(handler: ast.ExceptHandler) -> bool:
    """The handler logs at error level (`logger.error(...)`, `logging.exception(...)`)."""
    return any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
               and s.value.func.attr in _ERROR_NOTICES for s in handler.body)


# kernel languages: decorators that define the repository's own GPU kernels (`@triton.jit`, `@triton.autotune(...)`,
# `@numba.cuda.jit`), by the dotted name a decorator resolves to
_KERNEL_DECORATORS = {"triton": frozenset({"triton.jit", "triton.autotune", "triton.heuristics"}),
                      "numba": frozenset({"numba.cuda.jit"})}


def own_kernels_without_fallback(ctx, package: str) -> bool:
    """The file defines its own GPU kernels in the kernel language `package` (`@triton.jit def k(...)`, `@numba.cuda.jit`)
    and no other definition of those names (lit-llama quantization.py: `try: import triton / except: triton = None`,
    then `if triton is not None: @triton.autotune(...) @triton.jit def linear_kernel_4bit_weight(...)`). An optional
    import does not make such kernels optional: they are the repository's own work to port (label rules (y5),
    (s21b-1)), so neither the import nor the kernels' decorators and launches are dropped. A file that defines the
    same name again without the decorator (a torch fallback kernel) keeps its import optional."""
    decorators = _KERNEL_DECORATORS.get(package)
    if decorators is None:
        return False
    kernels, others = set(), set()
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        for node in ctx.nodes.get(kind, ()):
            own = any(ctx.qualname(d.func if isinstance(d, ast.Call) else d) in decorators for d in node.decorator_list)
            if own and in_probe(ctx, node):
                continue  # a test kernel compiled to see whether the JIT works: the probe, not a kernel to port
            if own and _behind_a_check(ctx, node):
                continue  # reached only where the package is, another backend otherwise (label ruling (L42))
            (kernels if own else others).add(node.name)
    return bool(kernels - others - _launched_behind_checks(ctx, kernels - others))


def _launched_behind_checks(ctx, kernels: set[str]) -> set[str]:
    """The kernels among `kernels` whose every use in the file sits behind an availability check of the package: the
    file's own Triton kernels after `try: import triton / has_triton = True / except ImportError: has_triton = False`,
    launched only from host functions opening with `if not has_triton or not x.is_cuda: return <torch path>`
    (turboderp-org/exllamav3 util/measures.py), from a module function the file calls only under `if has_triton:`
    (gated_delta_net_fn/conv1d.py), or from other such kernels. A check that only raises (`if not has_triton: raise
    RuntimeError(...)`, `_ensure_triton()`) is no way on by itself (label ruling (L42)): its function counts where the
    file calls it only behind a check with one. The program reaches them only where the package is, with its own path otherwise: optional, as label
    rulings (L59)/(L102) read it (62c note on exllamav3's own Triton kernels). A kernel or host function the file never
    uses (launched from another module) keeps the import and the decorators reported: who calls it is not read here."""
    if not kernels:
        return set()
    uses: dict[str, list[ast.Name]] = {}
    for name in ctx.nodes.get(ast.Name, ()):
        if isinstance(name.ctx, ast.Load):
            uses.setdefault(name.id, []).append(name)
    functions = {node.name: node for node in ctx.tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    known: dict[str, bool] = {}

    def reached_behind_checks(function: str) -> bool:
        if function not in known:
            known[function] = False  # a recursive call proves nothing
            known[function] = bool(uses.get(function)) and all(checked(use) for use in uses[function])
        return known[function]

    def checked(use: ast.Name) -> bool:
        guard = availability_guard(ctx, use)
        if isinstance(guard, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                isinstance(guard, ast.If) and not (guard.body and isinstance(guard.body[-1], ast.Raise))):
            return True  # a check with a way on (not `if not has_triton: raise`: asked of the callers below, (L42))
        scope = ctx.enclosing(use, (ast.FunctionDef, ast.AsyncFunctionDef))
        if scope is None:
            return False
        if scope.name in kernels:
            return True
        return functions.get(scope.name) is scope and reached_behind_checks(scope.name)

    try:
        return {kernel for kernel in kernels if uses.get(kernel) and all(checked(use) for use in uses[kernel])}
    finally:  # the two closures call each other: a cycle (holding ctx) the scan never collects, its collector off
        reached_behind_checks = checked = None  # noqa: F841


def _behind_a_check(ctx, node) -> bool:
    """The kernel is defined in a private function that the module calls only behind an availability check
    (migrate/optional_modules.py `checked_callees`, its callees included): Tencent/AngelSlim
    quant/core/quant_func.py defines `@triton.jit def weight_dequant_kernel` inside `_get_weight_dequant_kernel()`,
    called by `_weight_dequant_triton()`, called only under `if use_triton() and x.is_cuda:` with the PyTorch
    function in the `else:` (label ruling (L42): a selection that checks the package first). Not a kernel after a check
    that raises (`_ensure_triton()` raising ImportError: no working alternative, (L42)), nor one defined in the body
    of a module-level `if HAS_TRITON:` (lit-llama's `if triton is not None:`): who calls it is not read here."""
    from migrate.optional_modules import checked_callees

    top, above = node, ctx.parent(node)
    while above is not None and not isinstance(above, ast.Module):
        top, above = above, ctx.parent(above)
    if top is node or not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return top.name in checked_callees(ctx)


def in_probe(ctx, statement) -> bool:
    """`statement` lies in an availability probe: a module-level function named `is_<pkg>_available` /
    `_installed`, or one answering from an import attempt or another check (migrate/availability_predicates.py).
    Tencent/AngelSlim compressor/_platform.py: `is_triton_available()` imports triton in a `try:` and calls
    `_test_triton_jit()`, which imports triton, compiles a `@triton.jit` test kernel and launches it on a CUDA
    tensor, answering False on any exception. Their imports and the test kernel ask whether the package works; the
    code that runs the package's kernels is elsewhere, behind the answer (label notes 61c: the probe itself is no
    label, (L34)/(L42))."""
    from migrate.availability_predicates import predicates

    top, above = statement, ctx.parent(statement)
    while above is not None and not isinstance(above, ast.Module):
        top, above = above, ctx.parent(above)
    if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) or top is statement:
        return False
    return bool(_AVAILABILITY.match(top.name)) or top.name in predicates(ctx)


def _type_checking_only(ctx, statement) -> bool:
    """`if TYPE_CHECKING: from vllm import AsyncLLMEngine` (or `typing.TYPE_CHECKING`): read by type checkers only, the
    program never runs the import (the names serve string annotations)."""
    child, parent = statement, ctx.parent(statement)
    while parent is not None:
        if isinstance(parent, ast.If) and any(child is s for s in parent.body):
            test = parent.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                    isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
                return True
        child, parent = parent, ctx.parent(parent)
    return False


def optional_import(ctx, statement, package: str) -> bool:
    """`statement` imports `package` on a path the program does without: under `if
    is_<pkg>_available():`, or in a `try:` whose ImportError handler binds a fallback. Never the import of a
    kernel language the file defines its own kernels with (`own_kernels_without_fallback`)."""
    if own_kernels_without_fallback(ctx, package):
        return False
    if availability_guard(ctx, statement) is not None or _npu_fallback_handler(ctx, statement):
        return True
    if guarding_try(ctx, statement) is not None and in_probe(ctx, statement):
        return True
    if checked_before(ctx, statement, package):  # `check_version("liger-kernel", mandatory=True)` in the function
        return True
    if _type_checking_only(ctx, statement):
        return True
    attempt = guarding_try(ctx, statement)
    if attempt is None:
        return _reached_only_from_attempts(ctx, statement, package)
    if _unread_flag_only(ctx, statement, attempt):
        return False
    handlers = [h for h in attempt.handlers if _catches_import_error(h)]
    if none_stand_ins.untested_stand_in(ctx, statement, attempt, handlers) and not _read_flag_set_before(ctx, attempt):
        return False  # `except ImportError: fn = None`, then `fn(...)` with no test of it (migrate/none_stand_ins.py)
    if none_stand_ins.unchecked_flagged_call(ctx, attempt):
        return False  # `except ImportError: fn = None; HAS_FN = False`, then `fn(...)` on a path checking neither
    if _records_failure(attempt):  # `except Exception as e: results[k] = {"error": str(e)}`: no fallback (L73)
        return False
    empties = _empty_before(ctx, attempt)
    if any(_binds_a_fallback(h, package) or _answers_unavailable(h, empties) for h in handlers):
        return True
    if _default_kept(ctx, attempt, handlers):
        return True
    return _flag_set_before(ctx, attempt) or _probe_only(ctx, statement, attempt) or _warned_and_unused(ctx, statement, attempt) \
        or _used_only_in_the_attempt(ctx, statement, attempt) or _selected_only(ctx, statement, attempt, package)


# the nodes below which a read does not run unconditionally when the module is imported
_DEFERRED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.If, ast.IfExp, ast.Try, ast.While, ast.For,
             ast.BoolOp, ast.With, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.ExceptHandler)


def _read_at_import(ctx, statement, attempt: ast.Try) -> bool:
    """DeepLink-org/DLBlas token_dispatcher.py: `try: from deep_ep import Buffer; use_deepep = True / except
    ImportError: use_deepep = False` at module level, then `class DeepEPBuffer: _deepep_sms = Buffer.num_sms`. A name
    the module-level try imports is read by a statement that runs whenever the module is imported (the module's own
    body or a class body in it, outside any function, branch, loop, try or annotation), before any flag can be read:
    without the package the module fails at import (NameError), so the handler's flag or fallback covers no path and
    the import stays required (label ruling (L102) not met, note 67a (2)). Read by NPU501 only: the uses keep their
    reading (those behind the flag are guarded; the import-time read is a value read, (L54))."""
    if ctx.enclosing(attempt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) is not None:
        return False
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names if a.name != "*"}
    # a name a handler binds (`except ImportError: SwiGLU = SwiGLUFFN`, DINOv2's swiglu_ffn.py) is defined either way
    names -= {n.id for h in attempt.handlers for n in ast.walk(h) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names -= {(a.asname or a.name).split(".", 1)[0] for h in attempt.handlers for n in ast.walk(h)
              if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    if not names:
        return False
    inside = {id(n) for n in ast.walk(attempt)}
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id not in names or not isinstance(node.ctx, ast.Load) or id(node) in inside:
            continue
        child, parent = node, ctx.parent(node)
        while parent is not None and not isinstance(parent, _DEFERRED) \
                and not (isinstance(parent, ast.AnnAssign) and child is parent.annotation) \
                and not isinstance(child, ast.arg):
            child, parent = parent, ctx.parent(parent)
        if parent is None and child is not node:
            return True
    return False


def _selected_only(ctx, statement, attempt: ast.Try, package: str) -> bool:
    """MiniCPM's config and modeling files: `try: import flash_attn; self._attn_implementation = "flash_attention_2" /
    except: pass` (the import decides a setting and nothing reads it), or `try: from flash_attn import
    flash_attn_func / except: pass` read only in the class registered under `"flash_attention_2"`: an availability
    selection, the option line that asks for it is the finding (label ruling (L102) with (L42), 51a-1;
    migrate/option_selections.py)."""
    from migrate import option_selections

    if option_selections.records_a_choice(ctx, statement, attempt):
        return True
    handlers = [h for h in attempt.handlers if _catches_import_error(h)]
    if not handlers or not all(all(_notice(s) for s in h.body) for h in handlers) or any(a.name == "*" for a in statement.names):
        return False
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    return option_selections.read_only_where_selected(ctx, names, package)


def _reached_only_from_attempts(ctx, statement, package: str) -> bool:
    """The import sits unguarded in a module-private helper (`def _get_info_by_pynvml(gpu_id): import pynvml; ...`)
    whose every mention in its module is inside the `try:` body of another function's attempt to import the same
    package, an attempt that is itself optional (`try: from pynvml import nvmlInit, ...; return
    _collect(nvmlInit, _get_info_by_pynvml) / except ImportError: pass / except Exception: logger.error(...)`, then a
    torch fallback: label rule 46e e-5). The helper runs only where that attempt got the package; without it the
    attempt's fallback runs. A public helper (no leading `_`) may be imported from elsewhere: not read so."""
    function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None or not function.name.startswith("_") or ctx.parent(function) is not ctx.tree:
        return False
    mentions = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == function.name]
    if not mentions:
        return False
    for mention in mentions:
        attempt = guarding_try(ctx, mention)
        if attempt is None or not any(id(mention) in {id(n) for n in ast.walk(s)} for s in attempt.body):
            return False
        imports = [s for s in attempt.body if isinstance(s, (ast.Import, ast.ImportFrom))
                   and any(match_package(_package_of_alias(s, a), {package: None}) for a in s.names)]
        if not imports or guarding_try(ctx, imports[0]) is not attempt or not optional_import(ctx, imports[0], package):
            return False
    return True


def _unread_flag_only(ctx, statement, attempt: ast.Try) -> bool:
    """AutoAWQ fused/mlp.py: `try: import awq_ext; AWQ_INSTALLED = True / except: AWQ_INSTALLED = False`, then
    `self.linear = awq_ext.gemm_forward_cuda` with no test of the flag anywhere in the file. The handler binds only
    flags (names the import does not bind, set to constants), nothing in the file reads any of them (nor names them
    in a string, `__all__`), and the imported names are read after the try: the flag records the absence but no
    code takes another path on it, so the uses fail without the package (label rule 31b-7 (c)). A flag that some
    line tests (`if XFORMERS_IS_AVAILABLE:`, `assert AWQ_INSTALLED, ...`) keeps the import optional."""
    if any(a.name == "*" for a in statement.names):
        return False
    handlers = [h for h in attempt.handlers if _catches_import_error(h)]
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    flags: set[str] = set()
    for handler in handlers:
        for s in handler.body:
            if isinstance(s, ast.Pass):
                continue
            if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                    and all(isinstance(t, ast.Name) for t in s.targets)):
                return False
            flags.update(t.id for t in s.targets)
    if not flags or flags & names:
        return False
    if any(n.id in flags and isinstance(n.ctx, ast.Load) for n in ctx.nodes.get(ast.Name, ())):
        return False
    if any(isinstance(n.value, str) and n.value in flags for n in ctx.nodes.get(ast.Constant, ())):
        return False
    inside = {id(n) for s in attempt.body for n in ast.walk(s)}
    return any(n.id in names and isinstance(n.ctx, ast.Load) and id(n) not in inside for n in ctx.nodes.get(ast.Name, ()))


# calls a handler makes to tell the user, not to give a fallback: `logger.warning(...)`, `warnings.warn(...)`,
# `print(...)`, `traceback.print_exc()`
_NOTICES = frozenset({"warn", "warning", "info", "debug", "error", "exception", "print", "print_exc"})


def _notice(statement) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _NOTICES


def _only_notices(handler: ast.ExceptHandler) -> bool:
    return any(not isinstance(s, ast.Pass) for s in handler.body) and all(_notice(s) for s in handler.body)


def _records_failure(attempt: ast.Try) -> bool:
    """cubvh's benchmark: `try: import diso; ...; results[res]["disomc"] = {"times": ...} / except Exception as e:
    print(f"disomc error: {e}"); results[res]["disomc"] = {"error": str(e)}`. Every handler catches any failure and
    stores the caught error in a place the try body fills with the step's result (the same target, written the same
    way), besides telling the user: the failure is that step's recorded result, nothing after the try computes it
    without the package (label ruling (L73), 46a rule note a-7). A handler that stores something else, or none of the
    error, keeps the fallback reading."""
    filled = {ast.unparse(t) for s in _walk_block(attempt.body) if isinstance(s, ast.Assign) for t in s.targets
              if isinstance(t, (ast.Subscript, ast.Attribute))}
    if not filled or not attempt.handlers:
        return False
    for handler in attempt.handlers:
        if not _catches_everything(handler) or handler.name is None:
            return False
        recorded = False
        for statement in handler.body:
            if (isinstance(statement, ast.Assign) and all(ast.unparse(t) in filled for t in statement.targets)
                    and any(isinstance(n, ast.Name) and n.id == handler.name for n in ast.walk(statement.value))):
                recorded = True
            elif not _notice(statement):
                return False
        if not recorded:
            return False
    return True


def _warned_and_unused(ctx, statement, attempt: ast.Try) -> bool:
    """text-generation-webui exllamav2.py: `try: import flash_attn / except ModuleNotFoundError: logger.warning('...
    VRAM usage higher ...'); pass / except Exception: logger.warning(...); traceback.print_exc()`. The import only tells
    the user whether a package another library picks up by itself is installed: every handler only warns, and no
    name the import binds is read anywhere in the file. The program runs on without it (label rule (y1)); a handler
    that only passes stays a required import (`_probe_only`)."""
    if any(a.name == "*" for a in statement.names) or not all(_only_notices(h) for h in attempt.handlers):
        return False
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    return not any(node.id in names and isinstance(node.ctx, ast.Load) for node in ctx.nodes.get(ast.Name, ()))


def _used_only_in_the_attempt(ctx, statement, attempt: ast.Try) -> bool:
    """gsplat losses.py: `try: from fused_ssim import fused_ssim; if ...: return 1.0 - fused_ssim(a, b) / except
    ImportError: pass`, then the reference SSIM in torch. Every read of the imported names is inside the `try:` body,
    and the ImportError handler only passes or warns: without the package the code after the try runs, which is the
    fallback (label ruling 24b-13). The try's `else:` runs only when the import succeeded, so reads there count as
    inside too (mmengine-style optimizer registries: `try: import bitsandbytes as bnb / except (ImportError,
    RuntimeError): pass / else: register(bnb.optim...)`). A name read after the try (or never read) leaves the import
    required, and so does a try that is a function's whole remaining work (`_failure_report`)."""
    if any(a.name == "*" for a in statement.names) or _failure_report(ctx, attempt):
        return False
    handlers = [h for h in attempt.handlers if _catches_import_error(h)]
    if not handlers or not all(all(isinstance(s, ast.Pass) for s in h.body) or _only_notices(h) for h in handlers):
        return False
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    inside = {id(n) for s in (*attempt.body, *attempt.orelse) for n in ast.walk(s)}
    # an import in a function binds locals: only that function's reads are of its names (another function of the
    # file importing the same names binds its own: xinference's device_utils, two NVML helpers, 46e e-5)
    function = ctx.enclosing(attempt, (ast.FunctionDef, ast.AsyncFunctionDef))
    scope = ast.walk(function) if function is not None and not _declared_global(function, names) \
        else ctx.nodes.get(ast.Name, ())
    reads = [n for n in scope if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(id(n) in inside for n in reads)


def _declared_global(function: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names) for n in ast.walk(function))


def _catches_everything(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    names = [] if kinds is None else kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    return all(isinstance(n, ast.Name) and n.id in ("Exception", "BaseException") for n in names)


def _failure_report(ctx, attempt: ast.Try) -> bool:
    """YOLOv5 export.py: `def export_engine(...): try: check_requirements(('tensorrt',)); import tensorrt as trt; ...
    trt.Builder(logger) ... / except Exception as e: LOGGER.info(f'export failure: {e}')`. The try is the last
    statement of its function and every handler catches any failure (`Exception`, a bare `except:`) only to tell the
    user: nothing runs after it, so there is no path without the package, only the report that the function's job
    failed. The function is chosen by a user option (`--include engine`), not by an availability check: the import
    and its uses stay required (label ruling (L73)). A handler for ImportError alone, or a try followed by more code
    (the torch reference after gsplat's fused_ssim attempt), keeps the fallback reading."""
    function = ctx.parent(attempt)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.body[-1] is not attempt:
        return False
    return bool(attempt.handlers) and all(_catches_everything(h) and _only_notices(h) for h in attempt.handlers)


def _flag_set_before(ctx, attempt: ast.Try) -> bool:
    """EETQ llama_modules.py: `use_flash = False` before `try: from flash_attn import ...; use_flash = True
    except: pass`. The flag the try switches on after the import was bound false before it: the fallback
    is bound ahead of the try instead of in its handler, and `if use_flash:` picks the path without it. The
    binding may carry an annotation (megablocks grouped_gemm_util.py: `_grouped_gemm_is_available: bool = False`).
    The flag may be switched on in a branch of the try body (`if version >= (2, 5, 7): from flash_attn import
    flash_attn_with_kvcache; has_flash_attn = True`), and bound false in an enclosing block, before the statement
    that holds the try (module-level `has_xformers = False`, then `if "NO_XFORMERS" not in os.environ: try: ...`)."""
    return bool(_flags_set_before(ctx, attempt))


def _flags_set_before(ctx, attempt: ast.Try) -> set[str]:
    """The flags of `_flag_set_before`: switched on in the try body, bound false before the try."""
    flags = {t.id for s in _walk_block(attempt.body) if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
             and s.value.value is True for t in s.targets if isinstance(t, ast.Name)}
    if not flags:
        return set()
    return _bound_before(ctx, attempt, flags, lambda value: isinstance(value, ast.Constant) and value.value in (False, None))


def _switches_turned_off(ctx, attempt: ast.Try) -> set[str]:
    """imaginaire utils/trainer.py: `fused_opt = cfg_opt.fused_opt` / `try: from apex.optimizers import FusedAdam /
    except: fused_opt = False`, then `if fused_opt: from apex.optimizers import FusedSGD ...`. A switch bound (to
    anything: the user's option) before the try and bound False or None in its ImportError handler is false whenever
    the import failed: the user's choice is honoured only where the package imported, so `if fused_opt:` is the
    try's availability question (label ruling (L102))."""
    off = {t.id for h in attempt.handlers if _catches_import_error(h) for s in h.body
           if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value in (False, None)
           for t in s.targets if isinstance(t, ast.Name)}
    if not off:
        return set()
    return _bound_before(ctx, attempt, off, lambda value: True)


def _bound_before(ctx, attempt: ast.Try, names: set[str], value_ok) -> set[str]:
    """Of `names`, those an assignment binds, to a value `value_ok` accepts, in the statements before `attempt` in its
    block, else in the block around that, and so on up to the enclosing function or class (the nearest block that
    binds any of them answers)."""
    child, parent = attempt, ctx.parent(attempt)
    while True:
        fields = ("body", "orelse", "finalbody", "handlers") if parent is not None else ()
        block = next((getattr(parent, f) for f in fields if child in getattr(parent, f, ())), None) if parent is not None \
            else ctx.tree.body
        before = block[: block.index(child)] if block and child in block else []
        found = {t.id for s in before if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None and value_ok(s.value)
                 for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name) and t.id in names}
        if found:
            return found
        if parent is None or isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return set()
        child, parent = parent, ctx.parent(parent)


def _read_flag_set_before(ctx, attempt: ast.Try) -> bool:
    """kaolin nvdiffrast_context.py: `_has_nvdiffrast = False` before `try: import nvdiffrast.torch as nvdiff;
    _has_nvdiffrast = True / except ImportError: nvdiff = None`, and `def nvdiffrast_is_available(): return
    _has_nvdiffrast` reads the flag: the None stand-in needs no test of its own, the flag is the module's question
    (label rule 46b-8). A flag nothing reads after the try is no question."""
    flags = _flags_set_before(ctx, attempt)
    inside = {id(n) for n in ast.walk(attempt)}
    return any(n.id in flags and isinstance(n.ctx, ast.Load) and id(n) not in inside for n in ctx.nodes.get(ast.Name, ()))


def _walk_block(statements):
    """The statements of a block and of the blocks nested in it, not entering function or class bodies."""
    for statement in statements:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _walk_block(getattr(statement, field, ()) or ())
        for handler in getattr(statement, "handlers", ()) or ():
            yield from _walk_block(handler.body)


def _probe_only(ctx, statement, attempt: ast.Try) -> bool:
    """LLamaTuner env_utils.py: `try: import bitsandbytes; info["version"] = bitsandbytes.__version__ except
    Exception: pass`. The imported names are read only for module metadata (`__version__`) inside the try: an
    environment report the program does without; nothing runs on the GPU there."""
    names = {(a.asname or a.name).split(".", 1)[0] for a in statement.names}
    if any(a.name == "*" for a in statement.names):
        return False
    inside = {id(n) for s in attempt.body for n in ast.walk(s)}
    read = False
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id not in names or not isinstance(node.ctx, ast.Load):
            continue
        parent = ctx.parent(node)
        if id(node) not in inside or not (isinstance(parent, ast.Attribute) and parent.attr.startswith("__")):
            return False
        read = True
    return read  # an import never read at all is no probe: a handler that passes leaves it required


def fallback_guarded_names(ctx) -> frozenset[str]:
    """Local names bound by imports inside `try:` whose ImportError handler binds a fallback
    (ConvNeXt: `try: from apex.optimizers import FusedAdam; has_apex = True except ImportError:
    has_apex = False`). Their uses sit on paths the program only takes when the package is there;
    their import lines are not reported either (`GpuOnlyImport._optional`). Imports under
    `if is_<pkg>_available():` are optional the same way, except in a module that also imports the same package
    unconditionally at its top (verl's legacy Megatron attention: `from flash_attn.layers.rotary import
    apply_rotary_emb` at the top, `if is_flash_attn_2_available(): from flash_attn import flash_attn_varlen_func`
    further down, and `flash_attn_varlen_func(...)` called outside that `if`): that module cannot be imported without
    the package, so the check guards nothing and the names' uses are required (label rule 27b-4). The guarded import
    line itself stays unreported (NPU501: skipped where the package is missing)."""
    cached = ctx.__dict__.get("_npu_optional_names")  # NPU404 and NPU507 both ask
    if cached is not None:
        return cached
    roots = {key.split(".", 1)[0] for key in knowledge.third_party()}
    required = _imported_at_top(ctx)
    names: set[str] = set()
    statements: set[int] = set()
    for kind in (ast.Import, ast.ImportFrom):
        for statement in ctx.nodes.get(kind, ()):
            for alias in statement.names:
                package = _package_of_alias(statement, alias)
                if package in roots and optional_import(ctx, statement, package):
                    if package in required and availability_guard(ctx, statement) is not None:
                        continue  # a check of a package the module requires anyway guards nothing
                    names.add((alias.asname or alias.name).split(".", 1)[0])
                    statements.add(id(statement))
    ctx.__dict__["_npu_optional_statements"] = frozenset(statements)
    ctx.__dict__["_npu_optional_names"] = frozenset(names)
    return ctx.__dict__["_npu_optional_names"]


_BINDING_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _import_bindings(ctx) -> dict[tuple[int | None, str], list]:
    """(id of the function whose body holds the import, None at module level; local name) -> its import statements."""
    cached = ctx.__dict__.get("_npu_import_bindings")
    if cached is None:
        cached = {}
        for kind in (ast.Import, ast.ImportFrom):
            for statement in ctx.nodes.get(kind, ()):
                scope = ctx.enclosing(statement, _BINDING_SCOPES)
                for alias in statement.names:
                    name = (alias.asname or alias.name).split(".", 1)[0]
                    cached.setdefault((id(scope) if scope is not None else None, name), []).append(statement)
        ctx.__dict__["_npu_import_bindings"] = cached
    return cached


def guarded_use(ctx, name: str | None, node) -> bool:
    """The use `node` of the local `name` reads an import on a path the program does without (`fallback_guarded_names`).
    The import that binds it is the one of the nearest function holding the use that imports the name, else the
    module's: a method's own `from cuda import cudart` with no fallback makes its uses required even when another method
    imports the same name under `try: ... except ImportError:` (label note 44a a-5: HardwareRendering's interop has no
    fallback, Quad's has). A name no scope up to the module imports keeps the file-wide reading."""
    optional = fallback_guarded_names(ctx)
    if name is None or name not in optional:
        return False
    bindings, guarded = _import_bindings(ctx), ctx.__dict__["_npu_optional_statements"]
    scope = ctx.enclosing(node, _BINDING_SCOPES)
    while scope is not None:
        found = bindings.get((id(scope), name))
        if found:
            return any(id(s) in guarded for s in found)
        scope = ctx.enclosing(scope, _BINDING_SCOPES)
    found = bindings.get((None, name))
    return not found or any(id(s) in guarded for s in found)


def unbound_without_package(ctx, name: str | None, node) -> bool:
    """The use `node` of the local `name` reads a name the module binds only in the body of an availability check
    (`if is_flash_attn_2_available(): from flash_attn import flash_attn_varlen_func`), with no other binding of it
    (no `else:` stand-in, no fallback assignment), from outside any such check: on a host without the package the name
    is unbound there and the use fails (NameError), so it is work to port, not an optional path (label rulings (L42),
    as (L26)'s reverse; EasyR1 flash_attention_utils.py calls flash_attn_varlen_func in the padding-free path with no
    check). Not a use in a branch a switch named for the package selects (`if use_apex: optimizers.FusedAdam(p)`: the
    option is the program's own choice of that path, (L102)), nor one in a branch of an availability check
    (`availability_guard`); the guarded import line itself stays unreported (NPU501)."""
    if name is None:
        return False
    bindings = _import_bindings(ctx)
    scope = ctx.enclosing(node, _BINDING_SCOPES)
    found = None
    while found is None:
        found = bindings.get((id(scope) if scope is not None else None, name))
        if scope is None:
            break
        scope = ctx.enclosing(scope, _BINDING_SCOPES)
    if not found or not all(_inside_check(ctx, statement) for statement in found):
        return False
    if _bound_otherwise(ctx, name, found) or availability_guard(ctx, node) is not None:
        return False
    packages = {_package_of_alias(s, a) for s in found for a in s.names if (a.asname or a.name).split(".", 1)[0] == name}
    return not _switched_for(ctx, node, packages) and not _picked_from_a_table(ctx, node) \
        and not _picked_under_a_check(ctx, node) and not _in_code_named_for(ctx, node, packages)


def _picked_under_a_check(ctx, node) -> bool:
    """`node` lies in a function or class that the module names only inside availability checks (ComfyUI's
    attention.py: `if model_management.xformers_enabled(): optimized_attention = attention_xformers`): reached only
    where the package is."""
    names = {p.name for p in _ancestors(ctx, node) if isinstance(p, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    for name in names:
        loads = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == name and isinstance(n.ctx, ast.Load)]
        if loads and all(availability_guard(ctx, n) is not None for n in loads):
            return True
    return False


def _ancestors(ctx, node):
    parent = ctx.parent(node)
    while parent is not None:
        yield parent
        parent = ctx.parent(parent)


def _picked_from_a_table(ctx, node) -> bool:
    """`node` lies in a class or function the module offers as a value of a table keyed by strings, which the
    configuration picks from (transformers' copied modeling files: `LLAMA_ATTENTION_CLASSES = {"eager": ...,
    "flash_attention_2": LlamaFlashAttention2}`, indexed by `config._attn_implementation`, which transformers checks
    for the package before it is set): an availability-checked selection, (L42) / set 51's reading of the copied files."""
    offered = {v.id for d in ctx.nodes.get(ast.Dict, ()) if d.keys and all(isinstance(k, ast.Constant)
               and isinstance(k.value, str) for k in d.keys) for v in d.values if isinstance(v, ast.Name)}
    if not offered:
        return False
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and parent.name in offered:
            return True
        parent = ctx.parent(parent)
    return False


def _inside_check(ctx, statement) -> bool:
    """`statement` lies in the body of the `if` that `availability_guard` finds for it (not after an early exit)."""
    guard = availability_guard(ctx, statement)
    return isinstance(guard, ast.If) and any(statement is n for part in guard.body for n in ast.walk(part))


def _bound_otherwise(ctx, name: str, imports: list) -> bool:
    """Some statement of the file other than `imports` binds `name`: an assignment, a definition, another import."""
    for kind in (ast.Import, ast.ImportFrom):
        for statement in ctx.nodes.get(kind, ()):
            if statement not in imports and any((a.asname or a.name).split(".", 1)[0] == name for a in statement.names):
                return True
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        if any(d.name == name for d in ctx.nodes.get(kind, ())):
            return True
    return any(n.id == name and not isinstance(n.ctx, ast.Load) for n in ctx.nodes.get(ast.Name, ()))


def _package_words(packages: set[str]) -> set[str]:
    """`packages` and their catalogued aliases, lower case."""
    words = {p.lower() for p in packages if p}
    for key, entry in knowledge.third_party().items():
        if key.split(".", 1)[0] in words:
            words.update(a.lower() for a in entry.aliases)
    return words


def _names_word(name: str, word: str) -> bool:
    """`name` holds `word` as one of its parts: snake case (`minference_vllm_forward`, `forward_vllm_042`) or a
    capitalised part of camel case (`VllmAttentionPatch`), not inside a longer word (`apexify`)."""
    if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", name.lower()):
        return True
    return re.search(rf"(?:^|(?<=[a-z0-9_])){re.escape(word.capitalize())}(?![a-z])", name) is not None


def _in_code_named_for(ctx, node, packages: set[str]) -> bool:
    """`node` lies in a function or class named for one of `packages` (MInference minference_forward.py:
    `def minference_vllm_forward(...)`, the attention forward it patches into vLLM's layers, calling the
    `PagedAttention` imported under `if _is_package_available("vllm"):`): the module's adapter for that package's own
    objects, reached only where the package runs them, an optional path like the availability-checked import it reads
    (label ruling (L26): helpers reached only for objects already of the package's type; labeller note 60e)."""
    words = _package_words(packages)
    return any(isinstance(p, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
               and any(_names_word(p.name, word) for word in words) for p in _ancestors(ctx, node))


def _switched_for(ctx, node, packages: set[str]) -> bool:
    """`node` lies in a branch whose test reads a name that names one of `packages` or its catalogued alias
    (`use_apex`, `self.args.use_flash_attn`)."""
    words = {p.lower() for p in packages if p}
    for key, entry in knowledge.third_party().items():
        if key.split(".", 1)[0] in words:
            words.update(a.lower() for a in entry.aliases)
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and child is not parent.test:
            for part in ast.walk(parent.test):
                text = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else ""
                if any(word in text.lower() for word in words):
                    return True
        child, parent = parent, ctx.parent(parent)
    return False


def _imported_at_top(ctx) -> frozenset[str]:
    """The packages (import roots) a top-level statement of the module imports, not under `try:` / `if`."""
    return frozenset(_package_of_alias(statement, alias) for statement in getattr(ctx.tree, "body", ())
                     if isinstance(statement, (ast.Import, ast.ImportFrom)) and not getattr(statement, "level", 0)
                     for alias in statement.names)


def _package_of_alias(statement, alias) -> str:
    imported = statement.module if isinstance(statement, ast.ImportFrom) else alias.name
    return (imported or "").split(".", 1)[0]


class GpuOnlyImport(Rule):
    """Imports of packages that only run on NVIDIA GPUs (apex, flash_attn, xformers, bitsandbytes,
    triton, cupy, pynvml, nvidia.dali, tensorrt, ...). The package list, its status, severity and
    the NPU alternative come from the knowledge base (`migrate/knowledge/third_party.toml`), with
    the most specific entry winning (`apex.optimizers` before `apex`). One finding per import
    statement and package. An import the program does without is not reported: inside `try: ...
    except ImportError:` whose handler binds a fallback (`has_apex = False`, `FusedAdam = None` where some line tests
    the stand-in: `if FusedAdam is not None`, `assert FusedAdam`, or compares a flag the handler sets to None beside it,
    `if FLASH_VER == 2`; a None nothing tests is no fallback,
    migrate/none_stand_ins.py, unless the try also switches on a flag bound false before it that the module reads,
    `_has_x = False` ... `def x_is_available(): return _has_x`: label rule 46b-8, or every file importing the module
    makes the same attempt and tests its own stand-in, `assert amp is not None` in the training script importing
    utils.py: migrate/importer_tested_stand_ins.py, label note 49b b-9, (L60)), or that answers "none here" (`return False` / `None`, or an empty collection: `def
    get_gpu_stats(): try: import pynvml / except ImportError: logger.warning(...); return []`, the caller reads no
    device of that kind; label rule 43e e-2; also `return set()`, or a local the function bound to an empty collection
    just before the try, `result = {}` ... `except ImportError: return result`, label rule 46e e-5; or `return -1`,
    the "unavailable" sentinel of a probe that otherwise returns a measure, 46e e-5; or a handler that
    passes, keeping a default "none here" bound just before the try that the try body overwrites, `device_count = 0` /
    `try: from pynvml import ...; device_count = nvmlDeviceGetCount() / except Exception: pass` / `return device_count
    > 0`, 46e e-5), or whose
    availability flag, switched on in the try body (also in a branch of it), was bound false before the try in its
    block or an enclosing one (`has_xformers = False` at the module top, then `if "NO_XFORMERS" not in os.environ:
    try: import xformers.ops as xops; has_xformers = True / except ModuleNotFoundError: pass`), or
    under `if is_apex_available():` (transformers' availability helpers; also a project's own probe spelled
    `is_<pkg>_installed()`, `is_flash_v2_installed`) or an availability flag (`if
    HAS_FLASH_ATTN:` set from an import attempt in this file, or imported from the project's module that sets it:
    known by its name, `HAS_x` / `x_AVAILABLE`, or after the scan by reading that module, migrate/imported_flags.py),
    or a function of the project answering from such a flag, in this module or another (ComfyUI-style model management:
    `if model_management.xformers_enabled(): import xformers` where `def xformers_enabled(): if cpu_state !=
    CPUState.GPU: return False / return XFORMERS_IS_AVAILABLE`, the flag set by `try: import xformers` with a bare
    `except:`; every answer but False / None is such a flag, another such function, or comes after `if not
    xformers_enabled(): return False`; one that can answer True without the package is none:
    migrate/availability_predicates.py), or an
    object's own flag that a method's import attempt sets false in its handler (`if self.use_interop: try: from cuda
    import cudart ... except ModuleNotFoundError: self.use_interop = False`; then `if self.use_interop:`, `if not
    self.use_interop: ...; return`, or `if hasattr(self, 'cu_tex'):` for an attribute the attempt sets: label note 44a
    a-5), also
    when its `else:` raises, or in a function that leaves early without the package (`if not
    is_transformer_engine_available(): raise ImportError(...)` / `return False` / `assert is_unsloth_available(), ...`, anywhere in the import's block or
    an enclosing one of the function: the code handles the package's absence with its own error, label ruling
    (L34); so does a call, as a statement or an assignment's value, of a project function that raises without the
    package, of this module or another (`glctx = default_nvdiffrast_context(device, raise_error=True)` where
    `def default_nvdiffrast_context(device, raise_error=False): if not nvdiffrast_is_available(): if raise_error:
    raise ValueError(...)`, or an `if not <availability test>:` ending in `raise`; without `raise_error=True` that
    helper returns None and the uses after it stay reported; a bare None stand-in of the import read only after such
    a call is no untested stand-in: migrate/raising_checks.py, label note 46b b-8); so does a requirement check of
    the package, `require_version("bitsandbytes>=0.39")` /
    `check_version("liger-kernel", mandatory=True)`, migrate/requirement_checks.py, which also drops the package's
    imports and uses inside functions across the repository when some module checks it under an option, `if
    args.use_unsloth: check_version("unsloth", mandatory=True)`, or asserts it available there, `if self.use_liger_kernel:
    assert is_liger_available()`, or calls there a check function of its own, `if cfg.moe_type == "MegaBlock-D":
    check_stk_installed()` where `def check_stk_installed(): try: import stk / except ModuleNotFoundError: ...;
    sys.exit()` (named like a check, its handler ending in `sys.exit()`, not a raise; then the package's module-level import
    attempts, `try: import stk / except ImportError: pass`, go too: they cannot stop the module loading)), or after an NPU branch of its block that returns its own result (`if
    is_npu_tensor(q): return npu_forward(q, k, v)`, migrate/npu_aware.py: the rest is the CUDA path), or under `if TYPE_CHECKING:` (never run), or in the `except ImportError:` of a `try: import torch_npu`; on an NPU host the
    fallback path runs and nothing there needs porting. Nor is an import of a package name the repository itself
    defines: the package's own files and its checkout's tests and examples, and a script beside a module file of the
    scan named like it (`testcuda.py` importing `dcn_v2` beside the checkout's own `dcn_v2.py`, in a folder no file
    imports as a package; label rulings (L81)/(L93)), import the repository's code, whose compiled calls are reported
    where they are (migrate/own_package.py). A bare `try: import x / except ImportError: raise ...` checks
    nothing and stays reported, and so does one whose handler binds only availability flags that no line of the file
    reads (nor names in a string, `__all__`) while the imported names are used after the try (`try: import awq_ext;
    AWQ_INSTALLED = True / except: AWQ_INSTALLED = False`, then `awq_ext.gemm_forward_cuda` with no test of the flag:
    the flag chooses nothing, label rule 31b-7 (c)); a flag that some line tests (`assert AWQ_INSTALLED, ...`,
    `"xformers" if XFORMERS_IS_AVAILABLE else "softmax"`) keeps it optional. A guarded import whose handler only passes
    or warns is reported, its `error` dropped to `warning`, except where every handler only warns and no name the
    import binds is read in the file (`try: import flash_attn / except ImportError: logger.warning(...)`: it only
    tells the user whether another library's optional speed-up is installed), or where every read of the imported names
    is inside the `try:` body or its `else:` (`try: from fused_ssim import fused_ssim; return fused_ssim(a, b) / except ImportError:
    pass`, then a torch reference after the try: without the package the code after the try is the fallback;
    `try: import bitsandbytes as bnb / except (ImportError, RuntimeError): pass / else: register(bnb.optim)`: the
    `else:` runs only with the package; an import in a function binds its locals, so only that function's reads
    count, 46e e-5), or where it sits unguarded in a module-private helper (`def _nvml_info(i): import pynvml`) that
    its module mentions only inside the `try:` body of another function's optional attempt of the same package (`try:
    from pynvml import nvmlInit; return _collect(nvmlInit, _nvml_info) / except ImportError: pass`, then a torch
    fallback: the helper runs only where the attempt got the package, 46e e-5); not where the try is the last statement of its function and every handler
    catches any failure only to report it (a per-format exporter's `def export_engine(...): try: import tensorrt as
    trt; ... trt.Builder(logger) / except Exception as e: LOGGER.info(f'export failure: {e}')`: nothing runs after it,
    the format is the user's choice, so the import and its uses stay reported, label ruling (L73); so are a benchmark's
    per-method attempts whose every handler catches any failure and stores the caught error where the try stores the
    step's result, `try: import diso; ...; results[res]["diso"] = {"mean": t} / except Exception as e: print(e);
    results[res]["diso"] = {"error": str(e)}`: the failure is the recorded result, nothing computes it without the
    package, label note 46a a-7). `importlib.import_module("apex")` and other
    dynamic imports are not followed. A module of the repository that every importer imports in such a `try:` or
    under an availability check of a GPU-only package (its name or its catalogued alias: `is_bnb_available()`,
    third_party.toml `aliases`; also the `else:` of an import attempt of such a package, `try: from megablocks import
    ops / except ModuleNotFoundError: pass / else: from .megablock_moe import MegaBlockMoE`) or of a CUDA device (`device.type == "cuda"`, `torch.cuda.is_available()`, or the
    project's own GPU-support probe, `if is_fp8_supported_gpu():` with Triton kernels there and a torch module in the
    `else:`; named so, and when defined in the importing module, its body asks about CUDA: label rule 30d-9), or in a
    method of a backend class that answers for its own package (`@classmethod def check_lib(cls): try:
    importlib.import_module("vllm") / except ImportError: return False, "..."`, asked by an engine registry before it
    offers the class, as migrate/probed_packages.py reads it: `def load(self): from .xavier.engine import XavierEngine`
    runs only where vllm is; label rule 46e e-4, its kernels staying as for a `try:`) is an
    optional path too, and so is one whose every importer is
    itself such a module, up to three modules in a row, package `__init__` or ordinary (the CUDA branch of a device
    dispatch, `if device == "cuda": from .cuda import gemm` beside `elif device == "npu":`, reaching the Triton kernels
    through cuda/__init__.py and the module that imports them: label rule 30d-1; a module's own unit test or benchmark
    script (under benchmarks/) importing it unguarded does not count where a file outside the tests and benchmarks
    imports it, note 40d-3; an import inside a function after an availability check that leaves without the package,
    of this module or another (`raise_if_dsl_unavailable("op")`, a raising check; `if not dsl_kernels_available():
    return`), or inside a private function of its module (`def _op(x): from .impl import kernel`) that the module
    calls only behind such a check or in the body of `if <availability test>:`, its other reads being registration
    decorators (`@_op.register_fake`), counts as one under an availability check: torchao's CuTe DSL op wrappers, label
    ruling (L97); a module-level name bound once to an availability test, `_dsl_ok = torch.cuda.is_available() and
    _dsl_runtime_available()`, is an availability flag, and a function answering `len(_missing_packages()) == 0` or
    `not _missing_packages()`, where `_missing_packages` is a function of the module asking `importlib.util.find_spec`,
    a predicate: migrate/availability_predicates.py): its imports and uses are not reported
    (migrate/optional_modules.py). The repository's own Triton / numba.cuda kernels in such a module stay reported where
    an importer only tries the import (rule (y5): a stand-in that raises or is None fails the call), and go where the
    module is reached only through checks of the package (label ruling (L42)): availability checks, an import attempt
    recording an availability flag (`except ImportError: _TRITON_AVAILABLE = False`) or binding the imported
    names to None where the importing module tests one of them against None (`except ImportError: step = None`, then
    `if step is None:` or `assert Norm is not None, ...`: label ruling 40b-4), a test of a flag of any name
    that the importing module sets false where its own import of the package fails (`if WITH_TRITON: from
    .ssd_combined import ...` after `try: import triton` / `except ImportError: WITH_TRITON = False`), or the branch of a backend
    registry that requires it (`if backend == "acme:triton":` with `REG["acme:triton"] = Info(...,
    requirements=["triton>=2.0"])` registered in that module and the requirements checked there,
    `require_version(requirement)`), also through a layer module that imports the kernels in a `try:` and is itself
    imported only so (a check in the module that binds a name is no check where another module imports that name
    from it outside any guard: `if HAS_TRITON: from .attn import attention` in a package `__init__`, then `from
    eng.kernels import attention` at an engine's top fails without the package, so attn.py's kernels stay reported;
    the other names bound under that check stay an optional path); so is a test that skips without the package
    (`@require_bitsandbytes`, `@pytest.mark.skipif(not _has_vllm, ...)` over a module flag `_has_vllm =
    importlib.util.find_spec("vllm") is not None`, or `@pytest.mark.skipif(vllm is None, ...)` over `vllm =
    lazy_import("vllm")`, xoscar's helper that is None without the package, and a class or function of the test file that only such tests
    reference; migrate/skip_decorators.py). Entries whose status is `works` (DeepSpeed's device-neutral
    `deepspeed.accelerator`, the op-builder base `deepspeed.ops.op_builder.builder.OpBuilder`) are not reported; a
    `from m import a, b` one of whose names still needs a look (`OpBuilder, CUDAOpBuilder`) is, under that name's entry;
    each use after the import is NPU507; not under the entry of a class or function that imports on any host and fails
    only where it runs (knowledge `use_only`: a fork's `MinkowskiEngine.MinkowskiDepthwiseConvolution`, whose
    construction NPU507 reports; label note 48d d-1). Nor are, in a repository that
    names the package's Ascend plugin or NPU build (third_party.toml `npu_plugin`: it imports `vllm_ascend`, a
    manifest requires `vllm-ascend` or a Dockerfile builds `FROM .../vllm-ascend:<tag>`, the image installing the plugin
    (label note 47e-4, migrate/base_images.py); a manifest requires `triton-ascend`), that package's imports and uses anywhere:
    the repository already runs it on the NPU through the plugin (label ruling (L38), migrate/npu_plugins.py); its
    manifest lines (NPU502) stay reported. Nor is anything in the CUDA folder of the repository's own device dispatch
    with an NPU side (a selector `if device_type == "cuda": from .cuda import CudaBackend` beside
    `if device_type == "ascend": from .ascend import ...`, or a registry `{"cuda": "cuda", "npu": "npu_impl"}` beside
    `import_module`, both folders in the scan): its Triton kernels, GPU-only imports and uses, and a wrapper module
    only that folder imports (`third_party/deep_gemm`); a file of it that code outside imports by its own module stays
    (label ruling (L50) in general form, migrate/device_dispatch.py). Nor is anything on the CUDA side of a test
    asked of a third-party accelerator abstraction with an NPU implementation (DeepSpeed's
    `get_accelerator().device_name() == 'cuda'`, knowledge/pluggable_accelerators.toml with its source): the body of
    such an `if` (with or without an `else`), the `else` of `!= 'cuda'`, and the rest of a block after
    `if not ... == 'cuda': return`; on the NPU the abstraction answers "npu" (label ruling (L50), set 40 note 40d-1,
    migrate/accelerator_tests.py)."""

    CODE = "NPU501"
    NAME = "gpu-only-import"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR  # default; each finding takes the severity of its knowledge entry
    MESSAGE = "imports a GPU-only package"
    VALID = [
        # diffusers' BnB4BitDiffusersQuantizer: `validate_environment`, which from_pretrained calls before any other
        # method of a quantizer, raises without bitsandbytes: the imports in its other methods are optional (L34)
        "from .utils import is_bitsandbytes_available\nclass BnbQuantizer(Quantizer):\n"
        "    def validate_environment(self, *args, **kwargs):\n        if not is_bitsandbytes_available():\n"
        "            raise ImportError('pip install bitsandbytes')\n"
        "    def create_param(self, model, value):\n        import bitsandbytes as bnb\n"
        "        return bnb.nn.Params4bit(value)\n",
        # imaginaire trainer.py: the user's switch is turned off by the failed import (label ruling (L102)), so
        # `if fused_opt:` runs only where apex imported: the second import there and its optimizer are optional
        "import torch\ndef make(cfg, params):\n    fused_opt = cfg.fused_opt\n    try:\n"
        "        from apex.optimizers import FusedAdam\n    except ImportError:\n        fused_opt = False\n"
        "    if cfg.type == 'sgd':\n        if fused_opt:\n            from apex.optimizers import FusedSGD\n"
        "            return FusedSGD(params, lr=cfg.lr)\n        return torch.optim.SGD(params, lr=cfg.lr)\n"
        "    return FusedAdam(params) if fused_opt else torch.optim.Adam(params)\n",
        # a class of a package that imports on any host (the partial MinkowskiEngine), whose code fails off CUDA: its
        # import runs nothing (knowledge `use_only`); its construction is NPU507's (label note 48d d-1)
        "from MinkowskiEngine import MinkowskiConvolution, MinkowskiDepthwiseConvolution\n",
        # the handler computes the same result without the package: a fallback, not a recorded failure
        "import torch\ndef bench(sdf, results):\n    try:\n        import diso\n        results['mc'] = diso.DiffMC()(sdf)\n"
        "    except Exception as e:\n        print(f'diso error: {e}')\n        results['mc'] = torch_mc(sdf)\n    return results\n",
        # an SSIM loss that tries the fused kernel inside the try and falls through to its torch reference after it
        "def ssim_loss(a, b):\n    try:\n        from fused_ssim import fused_ssim\n        if not a.is_cpu:\n"
        "            return 1.0 - fused_ssim(a, b)\n    except ImportError:\n        pass\n    return 1.0 - reference_ssim(a, b)\n",
        # an optimizer registry that registers the package's classes only in the try's `else:` (runs only with it)
        "import inspect\n\ndef register_8bit(registry):\n    try:\n        import bitsandbytes as bnb\n"
        "    except (ImportError, RuntimeError):\n        pass\n    else:\n"
        "        for name, cls in inspect.getmembers(bnb.optim, inspect.isclass):\n            registry[name] = cls\n",
        # the same kernel name defined again without Triton: the file has a path without the package
        "try:\n    import triton\nexcept ImportError:\n    triton = None\n\nif triton is not None:\n"
        "    @triton.jit\n    def kernel(x_ptr):\n        pass\nelse:\n    def kernel(x_ptr):\n        return x_ptr\n",
        "import torch\nimport numpy as np",
        "import apex_utils",  # a different package whose name starts the same
        "import mmcv\nfrom mmcv.ops import ModulatedDeformConv2d",  # device-neutral; its ops have Ascend builds (27b-3)
        "import nvidia_dali_helpers",
        "from . import apex",  # a relative import is the project's own module
        '"""import apex"""',
        "import numba\n@numba.jit(nopython=True)\ndef dtw(x):\n    return x",  # numba's CPU JIT runs on an NPU host
        "try:\n    import xformers.ops\nexcept ImportError:\n    xformers = None",  # a fallback: the program does without it
        # Wan2.1 prompt_extend.py: the handler sets a version flag to None beside the stand-in, and the module compares
        # the flag (`FLASH_VER == 2`) before taking the flash path: the stand-in is tested (migrate/none_stand_ins.py)
        "try:\n    from flash_attn import flash_attn_varlen_func\n    FLASH_VER = 2\nexcept ModuleNotFoundError:\n"
        "    flash_attn_varlen_func = None\n    FLASH_VER = None\n\ndef dtype():\n    return 'bf16' if FLASH_VER == 2 else 'fp16'\n",
        # tuple-bound None stand-ins the module tests (mamba_ssm modules/mamba_simple.py): a fallback, (L59)
        "try:\n    from causal_conv1d import causal_conv1d_fn, causal_conv1d_update\nexcept ImportError:\n"
        "    causal_conv1d_fn, causal_conv1d_update = None, None\n\ndef conv(x, w):\n"
        "    if causal_conv1d_fn is None:\n        return torch_conv(x, w)\n    return causal_conv1d_fn(x, w)\n",
        # a None stand-in the module tests before the flash path (an assert that stops with its own error, (L34))
        "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n\ndef attend(q, k, v, flash):\n"
        "    if flash:\n        assert flash_attn is not None, 'pip install flash-attn'\n"
        "        return flash_attn.flash_attn_func(q, k, v)\n    return sdpa(q, k, v)\n",
        # a None stand-in beside a flag, called only in a function that checks the flag first (migrate/none_stand_ins.py)
        "try:\n    from flash_attn import flash_attn_varlen_func\n    HAS_FA = True\nexcept ImportError:\n"
        "    flash_attn_varlen_func = None\n    HAS_FA = False\n\ndef prefill(q, cu, m):\n    if not HAS_FA:\n"
        "        raise ImportError('pip install flash-attn')\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n",
        # ... or in a function the module registers only under the flag (cache-dit backends/flash.py, labels 64a)
        "try:\n    from flash_attn_interface import flash_attn_func as fa3\n    HAS_FA3 = True\nexcept ImportError:\n"
        "    fa3 = None\n    HAS_FA3 = False\n\ndef _fa3_forward(q, k, v):\n    return fa3(q, k, v)\n\n"
        "if HAS_FA3:\n    REGISTRY['fa3'] = _fa3_forward\n",
        "if is_apex_available():\n    from apex import amp",  # transformers' availability helper: optional
        # the project's own probe in the `installed` spelling, imported from its attention module: optional
        "from .attention import is_flash_v2_installed\nif is_flash_v2_installed():\n"
        "    from flash_attn.layers.rotary import RotaryEmbedding\n",
        # an availability check that raises without the package is optional too (label ruling (L34)): the else of
        # the check (diffusers' examples), a function that leaves early (a library's feature behind its extra), the
        # early exit anywhere in the function's block, `return False` instead of the raise, the else of a negated check
        "if args.enable_xformers:\n    if is_xformers_available():\n        import xformers\n"
        "    else:\n        raise ValueError('xformers is not available')",
        "def to_te(model):\n    if not is_transformer_engine_available():\n        raise ImportError('needs transformer_engine')\n"
        "    import transformer_engine.pytorch as te\n    return te.Linear(4, 4)\n",
        "def dequantize(w):\n    import bitsandbytes as bnb\n    if not is_bnb_4bit_available():\n"
        "        raise ValueError('bitsandbytes 4bit is not available')\n    return bnb.functional.dequantize_4bit(w)\n",
        "def multi_backend():\n    if not is_bnb_available():\n        return False\n    import bitsandbytes as bnb\n"
        "    return 'multi_backend' in bnb.features\n",
        "def affinity(rank):\n    if is_amdsmi_available():\n        pass\n    else:\n        if not is_pynvml_available():\n"
        "            raise ImportError('pip install nvidia-ml-py')\n        import pynvml\n        pynvml.nvmlInit()\n",
        "def f():\n    if not is_flash_attn_available():\n        return None\n    else:\n        import flash_attn\n",
        # an object's own interop flag, set false where the import attempt fails: the methods testing it (or an
        # attribute only the attempt sets) import the package again on the path where it imported (label note 44a a-5)
        "class Quad:\n    def init_texture(self):\n        if hasattr(self, 'cu_tex'):\n"
        "            from cuda import cudart\n            cudart.cudaGraphicsUnregisterResource(self.cu_tex)\n"
        "        if self.use_interop:\n            try:\n                from cuda import cudart\n"
        "                self.cu_tex = cudart.cudaGraphicsGLRegisterImage(self.tex, 3553, 0)\n"
        "            except (RuntimeError, ModuleNotFoundError):\n                self.use_interop = False\n"
        "    def copy(self, image):\n        if not self.use_interop:\n            self.upload(image)\n            return\n"
        "        from cuda import cudart\n        cudart.cudaGraphicsMapResources(1, self.cu_tex, 0)\n",
        # the same check as an assert at the top of the loader a user option selects (`--backend unsloth`)
        "def load_fast(args):\n    assert is_unsloth_available(), 'pip install unsloth'\n"
        "    if args.vision:\n        from unsloth import FastVisionModel as M\n    else:\n"
        "        from unsloth import FastLanguageModel as M\n    return M.from_pretrained(args.model)\n",
        # a requirement check that raises without the package, before the import in its function
        # (migrate/requirement_checks.py); an import only type checkers read
        "def patch(model):\n    require_version('liger-kernel>=0.5')\n    from liger_kernel.transformers import apply\n"
        "    apply(model)\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vllm import AsyncLLMEngine\n",
        "def mxfp8():\n    if _is_package_available('transformer_engine'):\n        import transformer_engine.pytorch\n",
        # a handler def that does the work itself (a torch path) is a real fallback, unlike one that only raises
        "try:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n"
        "    def flash_attn_func(q, k, v):\n        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n\n"
        "def attend(q, k, v):\n    return flash_attn_func(q, k, v)\n",
        # yunchang: an availability flag imported from the project's module that sets it from an import attempt
        "from .globals import HAS_FLASH_ATTN\nif HAS_FLASH_ATTN:\n    from flash_attn import flash_attn_func\n"
        "def attn(q, k, v):\n    return flash_attn_func(q, k, v)\n",
        "from . import globals as g\nif g.FLASH_ATTN_AVAILABLE and causal:\n    import flash_attn\n",
        # the flag set in this file: a try-import, or importlib.util.find_spec
        "try:\n    import xformers\n    ok = True\nexcept ImportError:\n    ok = False\nif ok:\n    import xformers.ops\n",
        "import importlib.util\nhave_fa = importlib.util.find_spec('flash_attn') is not None\nif have_fa:\n    import flash_attn\n",
        # the branch for a host without torch_npu: on the NPU it never runs
        "try:\n    import torch_npu\nexcept ImportError:\n    from flash_attn import flash_attn_func\n",
        # text-generation-webui exllamav2.py: the import only tells the user whether flash-attn is installed (exllamav2
        # picks it up by itself); every handler warns, no imported name is read: the program runs on without it
        "import logging, traceback\nlogger = logging.getLogger(__name__)\ntry:\n    import flash_attn\n"
        "except ModuleNotFoundError:\n    logger.warning('running without flash-attention: more VRAM')\n    pass\n"
        "except Exception:\n    logger.warning('failed to load flash-attention')\n    traceback.print_exc()\n",
        # xDiT: availability read from a mapping by a `has_<pkg>` key, a guard on sys.modules, a probe
        # function whose handler answers False
        "env_info = PACKAGES_CHECKER.get_packages_info()\nif env_info['has_flash_attn']:\n"
        "    from flash_attn import flash_attn_func\n",
        "if info.get('has_transformer_engine', False):\n    import transformer_engine.pytorch as te\n",
        "import sys\nif 'flash_attn' in sys.modules:\n    import flash_attn\n    print(flash_attn.__version__)\n",
        "def check_flash_attn():\n    try:\n        from flash_attn import flash_attn_func\n        return True\n"
        "    except ImportError:\n        return False\n",
        # a monitor whose handler answers "no GPUs here" with an empty list: the caller reads no device of that kind
        "def get_gpu_stats():\n    try:\n        import pynvml\n    except ImportError:\n"
        "        logger.warning('no pynvml, skip gpu stats')\n        return []\n    pynvml.nvmlInit()\n",
        # the same answer as `set()`, or as a local bound to an empty collection just before the try (label 46e e-5)
        "def busy_pids():\n    try:\n        import pynvml\n        pynvml.nvmlInit()\n    except Exception:\n"
        "        return set()\n    return {p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses(0)}\n",
        "def gpu_memory_by_pid():\n    result = {}\n    try:\n        from pynvml import nvmlInit\n"
        "    except ImportError:\n        return result\n    nvmlInit()\n    return result\n",
        # an unguarded import in a private helper mentioned only inside another function's optional attempt of the
        # same package; that attempt's names are read only in its try (another function's own import of the same
        # names binds its own locals), and a torch fallback follows it
        "import torch\n\ndef _nvml_memory(i):\n    import pynvml\n    h = pynvml.nvmlDeviceGetHandleByIndex(i)\n"
        "    return pynvml.nvmlDeviceGetMemoryInfo(h).used\n\ndef gpu_memory():\n    try:\n"
        "        from pynvml import nvmlInit, nvmlDeviceGetCount\n        nvmlInit()\n"
        "        return [_nvml_memory(i) for i in range(nvmlDeviceGetCount())]\n    except ImportError:\n        pass\n"
        "    except Exception as e:\n        logger.error(f'pynvml failed: {e}')\n"
        "    return [torch.cuda.memory_allocated(i) for i in range(torch.cuda.device_count())]\n\n"
        "def busy():\n    try:\n        from pynvml import nvmlInit, nvmlDeviceGetCount\n    except ImportError:\n"
        "        return 0\n    nvmlInit()\n    return nvmlDeviceGetCount()\n",
        # the "unavailable" sentinel -1 of a probe that otherwise returns a measure
        "def free_ratio(idx):\n    try:\n        import pynvml\n        pynvml.nvmlInit()\n    except Exception:\n"
        "        return -1\n    info = pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(idx))\n"
        "    return info.free / info.total\n",
        # a default "none here" bound before the try, overwritten in it; the handler passes and keeps it
        "def has_nvidia_gpu():\n    count = 0\n    try:\n        from pynvml import nvmlInit, nvmlDeviceGetCount\n"
        "        nvmlInit()\n        count = nvmlDeviceGetCount()\n    except Exception:\n        pass\n    return count > 0\n",
        "import deepspeed",  # runs on an NPU (its npu accelerator); its CUDA-only ops have their own entries
        "from deepspeed.ops.op_builder.builder import OpBuilder",  # the device-neutral builder base (NPU builders' too)
        # EETQ: the flag is bound false before the try; `if use_flash:` takes the path without the package
        "use_flash = False\ntry:\n    from flash_attn import flash_attn_func\n    use_flash = True\nexcept:\n    pass\n"
        "def attn(q, k, v):\n    if use_flash:\n        return flash_attn_func(q, k, v)\n    return sdpa(q, k, v)\n",
        # flags preset false at the top of the module, switched on in a version branch of a try nested under an
        # environment opt-out; the handler only passes: the flag picks the torch path without the package
        "import os\nhas_flash_attn = False\nhas_xformers = False\nif 'NO_FLASH_ATTN' not in os.environ:\n    try:\n"
        "        import flash_attn\n        if flash_attn.__version__ >= '2.5.7':\n"
        "            from flash_attn import flash_attn_func, flash_attn_with_kvcache\n            has_flash_attn = True\n"
        "    except ModuleNotFoundError:\n        pass\nif 'NO_XFORMERS' not in os.environ:\n    try:\n"
        "        import xformers.ops as xops\n        has_xformers = True\n    except ModuleNotFoundError:\n        pass\n",
        # megablocks grouped_gemm_util.py: the same with an annotated flag and a handler that warns; the use is
        # chosen by the flag's accessor
        "import warnings\n_gg_ok: bool = False\ntry:\n    import grouped_gemm\n    _gg_ok = True\n"
        "except ImportError as error:\n    warnings.warn('Grouped GEMM not available.')\n"
        "def grouped_gemm_is_available():\n    return _gg_ok\n"
        "backend = grouped_gemm.backend if grouped_gemm_is_available() else None\n",
        # a handler binding a None stand-in that nothing tests, beside a flag preset false that the module reads (its
        # accessor), which the function using the package tests first (label rule 46b-8)
        "_has_rast = False\ntry:\n    import nvdiffrast.torch as nvdiff\n    _has_rast = True\nexcept ImportError:\n"
        "    nvdiff = None\n    logger.info('Cannot import nvdiffrast')\ndef rast_available():\n    return _has_rast\n"
        "def context(device):\n    if not rast_available():\n        raise ValueError('install nvdiffrast')\n"
        "    return nvdiff.RasterizeCudaContext(device=device)\n",
        # LLamaTuner env_utils.py: only the version is read, in an environment report
        "def env():\n    info = {}\n    try:\n        import bitsandbytes\n        info['bnb'] = bitsandbytes.__version__\n"
        "    except Exception:\n        pass\n    return info\n",
        # the flag the handler binds is tested before the use (an assert at the head of the layer, an attention
        # choice): the program takes another path or stops with its own message without the package
        "try:\n    import awq_ext\n    NORM_OK = True\nexcept:\n    NORM_OK = False\n"
        "def rms_norm(x, w):\n    assert NORM_OK, 'pip install the norm kernels'\n    return awq_ext.layernorm_forward_cuda(x, w)\n",
        "try:\n    import xformers.ops\n    XF_OK = True\nexcept ImportError:\n    XF_OK = False\n"
        "mode = 'xformers' if XF_OK else 'softmax'\n",
        # a config choosing flash attention only after its own import succeeded, and a modeling file reading the
        # package only in the class registered under that value: an availability selection (L102)/(L42), 51a-1
        # (migrate/option_selections.py)
        "class Config(PretrainedConfig):\n    def __init__(self, **kw):\n        super().__init__(**kw)\n"
        "        try:\n            import flash_attn\n            self._attn_implementation = 'flash_attention_2'\n"
        "        except:\n            pass\n",
        "try:\n    from flash_attn import flash_attn_func\n    from flash_attn.bert_padding import pad_input\nexcept:\n    pass\n"
        "class Attention:\n    def forward(self, q, k, v):\n        return q @ k @ v\n"
        "class FlashAttention2(Attention):\n    def forward(self, q, k, v):\n        return pad_input(flash_attn_func(q, k, v))\n"
        "CLASSES = {'eager': Attention, 'flash_attention_2': FlashAttention2}\n"
        "def layer(config):\n    return CLASSES[config._attn_implementation]()\n",
        # a None stand-in read only on one side of a user switch with a torch way beside it: the import binds None off
        # CUDA and the program runs on; the switched reads are NPU507's (L42), (L74), 51a-4
        "try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n"
        "class Attention:\n    def forward(self, q, k, v, mask=None):\n        if self.xattn:\n"
        "            return xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask() if mask is not None else None)\n"
        "        else:\n            return torch_attention(q, k, v)\n",
    ]
    INVALID = [
        # a None stand-in beside a flag called also on a path checking neither (KVCache-Factory's AdaKV decode branch,
        # labels 64f): the import is required and the unchecked call is the use, the checked one not (L42)
        Invalid("try:\n    from flash_attn import flash_attn_varlen_func\n    HAS_FA = True\nexcept ImportError:\n"
        "    flash_attn_varlen_func = None\n    HAS_FA = False\n\ndef prefill(q, cu, m):\n    if not HAS_FA:\n"
        "        raise ImportError('pip install flash-attn')\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n"
        "def decode(q, cu, m):\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n", count=1),
        # ... a switch the handler does not turn off (only a warning there): `if fused_opt:` is the user's choice alone
        Invalid("import warnings\ndef make(cfg, params):\n    fused_opt = cfg.fused_opt\n    try:\n"
                "        import apex\n    except ImportError:\n        warnings.warn('no apex')\n"
                "    if fused_opt:\n        from apex.optimizers import FusedSGD\n        return FusedSGD(params)\n", count=1),
        # ... the same stand-in read outside any switch: the import stays a finding (36e-4)
        Invalid("try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n"
                "def attend(q, k, v):\n    return xops.memory_efficient_attention(q, k, v)\n", count=1),
        # the flash attention class also built directly: the names are read outside the selection (51a-1 kept)
        Invalid("try:\n    from flash_attn import flash_attn_func\n    from flash_attn.bert_padding import pad_input\nexcept:\n    pass\n"
        "class Attention:\n    def forward(self, q, k, v):\n        return q @ k @ v\n"
        "class FlashAttention2(Attention):\n    def forward(self, q, k, v):\n        return pad_input(flash_attn_func(q, k, v))\n"
        "CLASSES = {'eager': Attention, 'flash_attention_2': FlashAttention2}\n"
        "def layer(config):\n    return CLASSES[config._attn_implementation]()\n"
                "def direct():\n    return FlashAttention2()\n", count=2),
        # a benchmark's per-method attempt records the failure as that method's result (label note 46a a-7, (L73))
        Invalid("import torch\ndef bench(sdf, results):\n    try:\n        import diso\n        mc = diso.DiffMC(dtype=torch.float32)\n"
                "        results['diso'] = {'verts': mc(sdf)[0].shape[0]}\n    except Exception as e:\n"
                "        print(f'diso error: {e}')\n        results['diso'] = {'error': str(e)}\n"
                "    results['torch'] = sdf.sum()\n    return results\n", count=1),
        # a per-format exporter whose whole body is the try and whose handler only reports the failure: the format is
        # a user's choice, nothing runs without the package (label ruling (L73)); one import, one construction
        Invalid("import logging\nLOGGER = logging.getLogger(__name__)\n\ndef export_engine(onnx_file):\n    try:\n"
                "        import tensorrt as trt\n        builder = trt.Builder(trt.Logger(trt.Logger.INFO))\n"
                "        return builder\n    except Exception as e:\n        LOGGER.info(f'export failure: {e}')\n", count=1),
        # None stand-ins that nothing tests: `flash_attn_varlen_func(...)` is None(...) without the package, so both
        # imports are required (migrate/none_stand_ins.py; label rulings (L30), (L42)); the version read is no test
        Invalid("try:\n    import flash_attn\n    from flash_attn.flash_attn_interface import flash_attn_varlen_func\n"
                "except ImportError:\n    flash_attn = None\n    flash_attn_varlen_func = None\n\n"
                "def attend(q, k, v, cu):\n    if flash_attn.__version__ >= '2.7.0':\n        pass\n"
                "    return flash_attn_varlen_func(q, k, v, cu, cu)\n", count=2),
        # a name the attempt imports beside None stand-ins that the handler does not bind at all (HunyuanVideo's
        # attention as vendored by x-attention, labeller note 70e): a NameError without the package, that import
        # stays (the stand-in nothing reads leaves its own import optional)
        Invalid("try:\n    import flash_attn\n    from flash_attn import flash_attn_func\n"
                "except ImportError:\n    flash_attn = None\n\n"
                "def attend(q, k, v):\n    return flash_attn_func(q, k, v)\n"
                # a handler binding the attempt's own choice is no stand-in (DFloat11 inference.py, labels 60e)
                "try:\n    import flash_attn as fa2\n    attn_impl = 'flash_attention_2'\nexcept ImportError:\n"
                "    attn_impl = None\nm = load(attn_implementation=attn_impl)\n"
                # a stand-in under the wrong name leaves the alias unbound (DLBlas grouped_gemm.py, labels 67)
                "try:\n    from apex.contrib import grouped_gemm as gm\nexcept ImportError:\n    grouped_gemm = None\n"
                "def gmm(a, b):\n    return gm.ops.gmm(a, b)\n", count=2),
        # the same stand-ins bound by one tuple assignment (mamba_ssm ops/triton/ssd_combined.py, labels 65b): the
        # calls are None(...) without the package, no line asks
        Invalid("try:\n    from causal_conv1d import causal_conv1d_fn\n    import causal_conv1d_cuda\n"
                "except ImportError:\n    causal_conv1d_fn, causal_conv1d_cuda = None, None\n\n"
                "def conv(x, w):\n    y = causal_conv1d_fn(x, w)\n    return causal_conv1d_cuda.causal_conv1d_fwd(y, w)\n", count=2),
        # stand-ins that only raise (a helper bound to the imported names, or a def of the imported name): the call
        # fails without the package as None(...) would (label ruling (L42); fastvideo-kernel's vmoba.py, labels 61a)
        Invalid("try:\n    from flash_attn import flash_attn_varlen_func\nexcept ImportError:\n\n"
                "    def _unsupported(*args, **kwargs):\n        raise ImportError('install flash-attn')\n\n"
                "    flash_attn_varlen_func = _unsupported\n\n"
                "def attend(q, k, v, cu):\n    return flash_attn_varlen_func(q, k, v, cu, cu)\n", count=1),
        Invalid("try:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n"
                "    def flash_attn_func(*args, **kwargs):\n        \"\"\"Needs flash-attn.\"\"\"\n"
                "        raise RuntimeError('install flash-attn')\n\n"
                "def attend(q, k, v):\n    return flash_attn_func(q, k, v)\n", count=1),
        # the handler binds an availability flag that nothing in the file reads, and the imported names are used
        # after the try: the flag chooses nothing, so the uses fail without the package (label rule 31b-7 (c))
        Invalid("try:\n    from flash_attn import flash_attn_func\n    FA_OK = True\nexcept:\n    FA_OK = False\n"
                "def attend(q, k, v):\n    return flash_attn_func(q, k, v, causal=True)\n", count=1),
        # lit-llama quantization.py (label rule (s21b-1)): the file's own Triton kernel under an optional import; with
        # no other definition of the kernel the import stays work to port
        Invalid("try:\n    import triton\nexcept ImportError:\n    triton = None\n\nif triton is not None:\n"
                "    @triton.jit\n    def kernel(x_ptr):\n        pass\n", count=1),
        # a requirement check of another package, or one that only warns (`mandatory=False`)
        Invalid("def patch(model):\n    require_version('transformers>=4.45')\n    import liger_kernel\n", count=1),
        # a public helper may be imported from another module: its import stays reported
        Invalid("def nvml_memory(i):\n    import pynvml\n    return pynvml.nvmlDeviceGetMemoryInfo(i).used\n\n"
                "def gpu_memory():\n    try:\n        import pynvml\n        return nvml_memory(0)\n"
                "    except ImportError:\n        return None\n", count=1),
        Invalid("def patch(model):\n    check_version('liger-kernel', mandatory=False)\n    import liger_kernel\n", count=1),
        # module level: an import-time raise fails every importer, not one feature (L34 covers functions)
        Invalid("if not is_pynvml_available():\n    raise ImportError('pip install nvidia-ml-py')\nimport pynvml\n", count=1),
        # the check asks the opposite (`if is_x_available(): raise`), or the early exit does not leave the path
        Invalid("def f():\n    if is_bnb_available():\n        raise ValueError('conflict')\n    import bitsandbytes\n", count=1),
        Invalid("def f():\n    if not is_bnb_available():\n        print('missing')\n    import bitsandbytes\n", count=1),
        Invalid("import apex", count=1),
        # a handler that only warns, but the imported name is used later: the package is still needed there
        Invalid("import warnings\ntry:\n    import flash_attn\nexcept ImportError:\n    warnings.warn('no flash-attn')\n"
                "def f(q, k, v):\n    return flash_attn.flash_attn_func(q, k, v)\n", count=1),
        # an imported flag whose name does not say availability, a local flag no import attempt sets,
        # a try importing something else than torch_npu: the package is needed on that path
        Invalid("from .config import USE_FLASH\nif USE_FLASH:\n    from flash_attn import flash_attn_func\n", count=1),
        Invalid("HAS_FLASH = True\nif HAS_FLASH:\n    from flash_attn import flash_attn_func\n", count=1),
        Invalid("try:\n    import torch_musa\nexcept ImportError:\n    from flash_attn import flash_attn_func\n", count=1),
        # a mapping key that does not say availability, a negated sys.modules guard, a handler that raises
        Invalid("if cfg['use_flash']:\n    from flash_attn import flash_attn_func\n", count=1),
        Invalid("import sys\nif 'flash_attn' not in sys.modules:\n    import flash_attn\n", count=1),
        Invalid("def load():\n    try:\n        import flash_attn\n        return True\n    except ImportError:\n"
                "        raise RuntimeError('install flash_attn')\n", count=1),
        # text-generation-webui LoRA.py: a handler that logs an error and returns ends the feature; no path without it
        Invalid("import logging\nlogger = logging.getLogger(__name__)\ndef add_lora(names):\n    try:\n"
                "        from auto_gptq import get_gptq_peft_model\n    except ImportError:\n"
                "        logger.error('this AutoGPTQ cannot load a LoRA')\n        return\n    return get_gptq_peft_model(names)\n", count=1),
        # the flag is not bound before the try, and the package is used outside the version probe: both needed
        Invalid("try:\n    from flash_attn import flash_attn_func\n    use_flash = True\nexcept:\n    pass\n", count=1),
        # the flag is bound false only inside another function, not in a block holding the try: no preset fallback
        Invalid("def reset():\n    has_xformers = False\ntry:\n    import xformers.ops as xops\n    has_xformers = True\n"
                "except ModuleNotFoundError:\n    pass\n", count=1),
        Invalid("try:\n    import bitsandbytes as bnb\n    v = bnb.__version__\nexcept Exception:\n    pass\n"
                "layer = bnb.nn.Linear8bitLt(4, 4)\n", count=1),
        Invalid("from apex.optimizers import FusedAdam, FusedLAMB", count=1),
        Invalid("import nvidia.dali.fn as fn"),
        Invalid("import pynvml\npynvml.nvmlInit()", count=1),
        Invalid("from flash_attn import flash_attn_func"),
        Invalid("try:\n    import xformers.ops\nexcept ImportError:\n    pass", count=1),  # no fallback: names left undefined
        # the imported name is read after the try too: the path after it needs the package
        Invalid("def ssim_loss(a, b):\n    try:\n        from fused_ssim import fused_ssim\n        warm = fused_ssim(a, a)\n"
                "    except ImportError:\n        pass\n    return fused_ssim(a, b)\n", count=1),
        Invalid("import os, bitsandbytes as bnb, triton", count=2),
        # one name of the import needs a look though the other works: the CUDA builder is reported
        Invalid("from deepspeed.ops.op_builder.builder import OpBuilder, CUDAOpBuilder", count=1),
        Invalid("from nvidia import dali"),
        Invalid("import numba\nfrom numba import cuda", count=1),  # numba.cuda, not numba's CPU JIT
        Invalid("from spas_sage_attn.autotune import SparseAttentionMeansim", count=1),  # SpargeAttn's CUDA kernels
        Invalid("import pyprof\npyprof.init()", count=1),  # NVIDIA PyProf (NVTX + nvprof / Nsight)
        # wenet runtime/gpu (TensorRT export, Triton CUDA decoders): NVIDIA's CUDA Python bindings and Riva's CUDA
        # WFST decoder; onnxruntime (CPU or CUDA build, one module) and Riva's gRPC client are not reported
        Invalid("from cuda import cudart\nimport onnxruntime\nimport riva.client\n"
                "from riva.asrlib.decoder.python_decoder import (BatchedMappedDecoderCuda,\n"
                "                                                BatchedMappedDecoderCudaConfig)\n", count=2),
    ]

    def triggers(self, kb):
        return tuple({key.split(".", 1)[0] for key in knowledge.third_party()})

    def check(self, ctx):
        table = knowledge.third_party()
        for statement in ctx.nodes.get(ast.Import, ()):
            seen: set[str] = set()
            for alias in statement.names:
                key = match_package(alias.name, table)
                if key is not None and needs_a_look(table[key]) and not self._optional(ctx, statement):
                    root = package_of(key, table)
                    if root not in seen:
                        seen.add(root)
                        yield self._finding(ctx, statement, alias.name, key, table, at=alias)
        for statement in ctx.nodes.get(ast.ImportFrom, ()):
            if statement.level or not statement.module:
                continue
            # the most specific entry among the names that need a look: `from deepspeed.ops.op_builder.builder import
            # OpBuilder, CUDAOpBuilder` is reported for CUDAOpBuilder though the OpBuilder base works
            best: str | None = None
            for alias in statement.names:
                candidate = match_package(f"{statement.module}.{alias.name}", table)
                if candidate is not None and table[candidate].use_only:  # importing it runs nothing; its use is NPU507's
                    candidate = match_package(statement.module, table)
                if candidate is not None and needs_a_look(table[candidate]) and (best is None or len(candidate) > len(best)):
                    best = candidate
            if best is not None and not self._optional(ctx, statement):
                yield self._finding(ctx, statement, statement.module, best, table)

    def _finding(self, ctx, statement, module, key, table, at=None):
        entry = table[key]
        severity = Severity.parse(entry.severity)
        guarded = self._guarded(ctx, statement)
        shown = key if len(key) > len(module) else module
        if entry.status == "partial":  # DeepSpeed: runs on an NPU, some of its parts do not
            text = f"`{shown}` runs on Ascend NPU only in part: check the parts this code uses"
        else:
            text = f"`{shown}` targets NVIDIA GPUs ({entry.status} on Ascend NPU)"
        if entry.note:
            text += f": {entry.note}"
        if entry.alternative:
            text += f" NPU alternative: {entry.alternative}"
        if entry.alternative_api:
            text += f" (see `{entry.alternative_api}`)"
        if guarded:
            text += " [import guarded by try/except ImportError without a fallback: check what runs without it]"
            if severity is Severity.ERROR:
                severity = Severity.WARNING
        return self.finding(ctx, at or statement, text, severity=severity, replacement=entry.alternative_api,
                            package=package_of(key, table))

    @staticmethod
    def _optional(ctx, statement) -> bool:
        """An import the program does without: under `if is_<pkg>_available():`, or in a `try:` whose
        ImportError handler binds a fallback (`has_apex = False`): nothing there needs porting."""
        attempt = guarding_try(ctx, statement)
        if attempt is not None and _read_at_import(ctx, statement, attempt):
            return False  # `_deepep_sms = Buffer.num_sms` in a class body: the module fails at import without it
        if all(optional_import(ctx, statement, _package_of_alias(statement, a)) for a in statement.names):
            return True
        # `except ImportError: xops = None` with every read on one side of a switch (`if self.xattn: ... else: ...`):
        # the import binds None off CUDA and the program runs on; the reads are NPU507's (migrate/none_stand_ins.py)
        handlers = [h for h in attempt.handlers if _catches_import_error(h)] if attempt is not None else []
        return bool(handlers) and none_stand_ins.switched_stand_in(ctx, statement, attempt, handlers)

    @staticmethod
    def _guarded(ctx, statement) -> bool:
        return guarding_try(ctx, statement) is not None
