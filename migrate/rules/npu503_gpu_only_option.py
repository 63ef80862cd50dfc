import ast
import functools
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from importlib import resources

from migrate import knowledge, package_commands
from migrate._toml import toml as tomllib
from migrate.findings import Category, Severity
from migrate.lazy_constructions import lazy_type
from migrate.option_selections import chosen_after_import
from migrate.requirement_checks import checked_before
from migrate.rules._text import is_prose, shell_matches
from migrate.rules.base import Invalid, Rule, Valid

# what a computed option's message says after its key: migrate/own_callees.py picks those findings out by it
COMPUTED_MARK = "=<computed>` selects GPU-only code"


@dataclass(frozen=True)
class GpuOption:
    key: str
    values: tuple  # str and/or bool
    why: str
    alternative: str
    source: str
    modules: tuple[str, ...] = ()  # only in files importing one of these (a generic key)
    reads: bool = False  # reading the key (`cfg["gpus"]`, `"gpus" in cfg`) decides GPU against CPU
    guards: tuple[str, ...] = ()  # globs on the availability predicates / flags under which the value is optional
    within: str = ""  # in YAML, only under this parent key (accelerate's `fp8_config:` / `backend: TE`)
    package: str = ""  # the import name of the GPU-only package the value selects (Finding.package; own_package.drop_self_selections)


@dataclass(frozen=True)
class GpuCall:
    name: str
    modules: tuple[str, ...]
    why: str
    alternative: str
    source: str
    guards: tuple[str, ...] = ()  # globs on the availability predicates / checked packages under which it is optional
    package: str = ""  # the import name of the GPU-only package the construction selects (Finding.package)
    # keywords that, set true, make the construction run anywhere (`FineGrainedFP8Config(dequantize=True)`: the
    # quantizer returns before its device check)
    kept_by: tuple[str, ...] = ()
    # only a construction that reaches a model load selects the package: one stored into an object's attribute
    # (`hf_config.quantization_config = FineGrainedFP8Config()`) writes a saved config and loads nothing
    loads_only: bool = False


@dataclass(frozen=True)
class GpuUse:
    """A method (`[[method]]`, matched by its name on any object) or a name (`[[name]]`, a glob on
    the last component of the alias-resolved name) whose use selects a GPU-only library."""

    pattern: str
    modules: tuple[str, ...]
    why: str
    alternative: str
    source: str
    method: bool
    values: tuple[str, ...] = ()  # a method's argument values that pick the GPU-only path (empty: any call)
    keyword: str = ""  # the keyword that may carry that argument instead of the first position
    guards: tuple[str, ...] = ()  # globs on the availability predicates / flags under which the use is optional


@functools.lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("migrate.knowledge").joinpath("data", "gpu_only_options.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.lru_cache(maxsize=1)
def gpu_only_uses() -> tuple[GpuUse, ...]:
    """The `[[method]]` and `[[name]]` tables of `gpu_only_options.toml`."""
    data = _data()
    return tuple(
        GpuUse(u["name"] if method else u["pattern"], tuple(u["modules"]), u["why"], u["alternative"], u["source"], method,
               tuple(u.get("values", ())), u.get("keyword", ""), tuple(u.get("guards", ())))
        for method, table in ((True, "method"), (False, "name")) for u in data.get(table, ())
    )


def _method_argument(ctx, call: ast.Call, keyword: str):
    """The constant a `[[method]]` call passes in its first position or as `keyword=` (None otherwise)."""
    if call.args:
        return _constant(call.args[0])
    node = ctx.keyword(call, keyword) if keyword else None
    return None if node is None else _constant(node)


@functools.lru_cache(maxsize=1)
def gpu_only_options() -> tuple[tuple[GpuOption, ...], tuple[GpuCall, ...]]:
    """The option table from `migrate/knowledge/data/gpu_only_options.toml`."""
    data = _data()
    options = tuple(
        GpuOption(o["key"], tuple(o["values"]), o["why"], o["alternative"], o["source"], tuple(o.get("modules", ())),
                  o.get("reads", False), tuple(o.get("guards", ())), o.get("within", ""), o.get("package", ""))
        for o in data.get("option", ())
    )
    calls = tuple(GpuCall(c["name"], tuple(c["modules"]), c["why"], c["alternative"], c["source"], tuple(c.get("guards", ())),
                          c.get("package", ""), tuple(c.get("kept_by", ())), c.get("loads_only", False))
                  for c in data.get("call", ()))
    return options, calls


def _lookup(key: str, value, roots: frozenset | None = None, parent: str | None = None) -> GpuOption | None:
    """The option `key=value` selects; `roots` are the top-level packages the file imports (None:
    a launcher or config, where options limited to some packages' files are not looked at, except those
    whose `within` is the YAML parent key `parent`)."""
    for option in gpu_only_options()[0]:
        if option.key != key:
            continue
        if roots is None and option.within:
            if parent != option.within:
                continue
        elif option.modules and (roots is None or not roots.intersection(option.modules)):
            continue
        for wanted in option.values:
            if wanted == ANY_VALUE:
                if _selects(value):
                    return option
            elif isinstance(wanted, bool):
                if value is wanted:
                    return option
            elif isinstance(value, str) and value == wanted:
                return option
    return _selector(key, value, roots)


# the words in a keyword / field / dict key name that make a catalogue `selectors` value there a kernel choice
_SELECTOR_KEY_WORDS = ("kernel", "impl", "backend")


@functools.lru_cache(maxsize=1)
def _package_selectors() -> tuple[tuple[str, tuple[str, ...], str, str], ...]:
    """(import root, selector values, alternative, source) of the catalogue's partial packages that name the string
    values selecting their GPU-only kernels (third_party.toml `selectors`)."""
    from migrate.knowledge import third_party
    return tuple((root, entry.selectors, entry.alternative or "", entry.source)
                 for root, entry in third_party().items() if entry.selectors and entry.status == "partial")


def _selector(key: str, value, roots: frozenset | None) -> GpuOption | None:
    """`step_kernel="triton"` in a file importing mlstm_kernels: a string value that selects a GPU-only kernel of
    a package the catalogue marks partial (it also ships native PyTorch kernels, so its import is not reported),
    set at a name that says kernel / impl / backend."""
    if roots is None or not isinstance(value, str) or not any(word in key.lower() for word in _SELECTOR_KEY_WORDS):
        return None
    for root, values, alternative, source in _package_selectors():
        if root.split(".", 1)[0] in roots and value in values:
            return GpuOption(key, (value,), f"a GPU-only (Triton) kernel of {root}, which also ships native PyTorch kernels",
                             alternative, source, (root,))
    return None


ANY_VALUE = "*"  # `values = ["*"]`: any value that is not off


def _selects(value) -> bool:
    """Whether a literal value of a value-independent option (Lightning's `gpus`) turns it on:
    `gpus=0`, `gpus=None`, `gpus=""` and `gpus="0"` mean the CPU."""
    if value is None or value is False or value == 0:
        return False
    return not (isinstance(value, str) and value.strip().strip(",") in ("", "0", "None", "none"))


def _availability_names(test) -> list[str]:
    """The names of the availability predicates / flags an `if` test asks (`is_flash_attn_2_available()`,
    `HAS_FLASH_ATTN`), alone or as operands of an `and`."""
    from migrate.rules.npu501_gpu_only_import import _AVAILABILITY, _FLAG

    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [name for value in test.values for name in _availability_names(value)]
    if isinstance(test, ast.Call):
        name = test.func.id if isinstance(test.func, ast.Name) else getattr(test.func, "attr", "")
        return [name] if _AVAILABILITY.match(name) else []
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
    return [name] if _FLAG.match(name) else []


def _attempt_value_test(ctx, test, guards: tuple[str, ...]) -> bool:
    """`FLASH_VER == 2` where the file's `try:` importing a package matching `guards` binds `FLASH_VER = 2` and its
    ImportError handler `FLASH_VER = None` / `False` (Wan2.1 prompt_extend.py): the comparison asks whether the
    package imported, an availability check like `HAS_FLASH_ATTN`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)):
        return False
    name, wanted = test.left.id, test.comparators[0].value
    if wanted is None or wanted is False:
        return False
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    for attempt in ctx.nodes.get(ast.Try, ()):
        imported = [a.name for s in attempt.body if isinstance(s, ast.Import) for a in s.names] + [
            s.module or "" for s in attempt.body if isinstance(s, ast.ImportFrom)]
        if not any(fnmatchcase(module.lower(), guard) for module in imported for guard in guards):
            continue
        on = any(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value == wanted
                 and any(isinstance(t, ast.Name) and t.id == name for t in s.targets) for s in attempt.body)
        off = any(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value in (None, False)
                  and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                  for h in attempt.handlers if _catches_import_error(h) for s in h.body)
        if on and off:
            return True
    return False


def _selects_nothing(ctx, call: ast.Call, gpu_call: GpuCall) -> bool:
    """A construction of `gpu_call` that cannot select its package: a `kept_by` keyword set true
    (`FineGrainedFP8Config(dequantize=True)` loads a bf16 model anywhere), or, for a `loads_only` class, the value
    stored into an attribute (`hf_config.quantization_config = FineGrainedFP8Config()` writes a config to save)."""
    for keyword in call.keywords:
        if keyword.arg in gpu_call.kept_by and _constant(keyword.value) is True:
            return True
    if not gpu_call.loads_only:
        return False
    parent = getattr(ctx, "parent", lambda _: None)(call)
    return isinstance(parent, ast.Assign) and parent.value is call and all(
        isinstance(target, ast.Attribute) for target in parent.targets)


def _under_availability_check(ctx, node, guards: tuple[str, ...]) -> bool:
    """`node` lies in the body of an `if` (or the true branch of a conditional expression) whose test asks for a
    package matching one of `guards`, or follows in its function a requirement check of such a package
    (`check_version("bitsandbytes>=0.39.0", mandatory=True)`, migrate/requirement_checks.py: it raises without it)."""
    child, parent = node, getattr(ctx, "parent", lambda _: None)(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test and not (
                isinstance(parent, ast.If) and any(child is s for s in parent.orelse)) and not (
                isinstance(parent, ast.IfExp) and child is parent.orelse):
            if any(fnmatchcase(name.lower(), guard) for name in _availability_names(parent.test) for guard in guards):
                return True
            # a flag bound True in a `try:` importing the package (`try: import flash_attn; flash_attn_flag = True /
            # except ImportError: pass`, then `if flash_attn_flag: from_pretrained(..., use_flash_attention_2=True)`;
            # VLMEvalKit llava.py, labeller note 70e: a probe with a fallback), or a call of such a probe function
            if getattr(ctx, "nodes", None) is not None and _probe_flag_test(ctx, parent.test, tuple(guards)):
                return True
        # the `else` of a test that the package is missing (`elif not is_xformers_available(): warn(...) / else:
        # pipe.enable_xformers_memory_efficient_attention()`, threestudio's guidance modules, label note 72e): the
        # branch runs only where the package is there
        if isinstance(parent, ast.If) and any(child is s for s in parent.orelse) and isinstance(parent.test, ast.UnaryOp) \
                and isinstance(parent.test.op, ast.Not) and any(
                    fnmatchcase(name.lower(), guard) for name in _availability_names(parent.test.operand) for guard in guards):
            return True
        child, parent = parent, ctx.parent(parent)
    # `try: import flash_attn; self._attn_implementation = "flash_attention_2" / except: pass` (migrate/option_selections.py)
    if isinstance(node, ast.AST) and getattr(ctx, "tree", None) is not None and chosen_after_import(ctx, node, guards):
        return True
    # `check_version("bitsandbytes>=0.39.0", mandatory=True)` before it in the function (migrate/requirement_checks.py)
    return checked_before(ctx, node, lambda package: any(fnmatchcase(package, guard) for guard in guards))


def _boolean_keys() -> frozenset[str]:
    return frozenset(o.key for o in gpu_only_options()[0] if True in o.values)


def _under_own_switch(ctx, node) -> bool:
    """`node` lies in the body of an `if` whose test reads `self.<key>` of a boolean GPU-only option (accelerate
    DeepSpeedPlugin: `if self.enable_msamp and "msamp" not in self.deepspeed_config: self.deepspeed_config["msamp"] =
    {"enabled": True, ...}`): a library's config class turning its own switch into another setting. The user's
    switch (`DeepSpeedPlugin(enable_msamp=True)`) is the line reported; a script's `if args.load_in_4bit:` is not
    this (its value still reaches the library there)."""
    parent_of = getattr(ctx, "parent", None)
    if parent_of is None:
        return False
    keys = _boolean_keys()
    child, parent = node, parent_of(node)
    while parent is not None:
        if isinstance(parent, ast.If) and child is not parent.test and not any(child is s for s in parent.orelse):
            for read in ast.walk(parent.test):
                if isinstance(read, ast.Attribute) and read.attr in keys and isinstance(read.value, ast.Name) \
                        and read.value.id == "self":
                    return True
        child, parent = parent, parent_of(parent)
    return False


_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex"})


def _expected_to_fail(ctx, node) -> bool:
    """`node` lies in a `with pytest.raises(...)` / `with self.assertRaises(ValueError):` block (accelerate
    tests/test_quantization.py: `BnbQuantizationConfig(load_in_8bit=True, load_in_4bit=True)` must raise): a test of
    the library's validation, the value never reaches a GPU-only path."""
    parent_of = getattr(ctx, "parent", None)
    parent = parent_of(node) if parent_of is not None else None
    while parent is not None:
        if isinstance(parent, ast.With) and any(
                isinstance(item.context_expr, ast.Call) and isinstance(item.context_expr.func, (ast.Attribute, ast.Name))
                and (getattr(item.context_expr.func, "attr", None) or getattr(item.context_expr.func, "id", None)) in _RAISES
                for item in parent.items):
            return True
        parent = parent_of(parent)
    return False


_CATCH_ALL = frozenset({"Exception", "BaseException"})


def _sets_again(handler: ast.AST, key: str, value) -> bool:
    """The handler selects the same value again: the string literal anywhere in it (`_attn_implementation=
    "flash_attention_2"` in MInference's reload, labels 60), or the keyword / dict key with the same constant."""
    for node in ast.walk(handler):
        if isinstance(value, str) and isinstance(node, ast.Constant) and node.value == value:
            return True
        if isinstance(node, ast.keyword) and node.arg == key and isinstance(node.value, ast.Constant) \
                and node.value.value == value:
            return True
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == key and isinstance(v, ast.Constant)
                                              and v.value == value for k, v in zip(node.keys, node.values)):
            return True
    return False


def _fallback_handler(attempt: ast.Try, key: str, value) -> bool:
    """A handler of `attempt` that catches everything (bare, `Exception`) and loads again without the value: its
    body calls a `from_pretrained` (or a `pipeline(...)`), does not select the value again (`_sets_again`), and
    raises nowhere outside a nested `try:` of its own."""
    for handler in attempt.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
        if caught is not None and not any(isinstance(n, ast.Name) and n.id in _CATCH_ALL for n in names):
            continue
        raises = any(isinstance(s, ast.Raise) for s in handler.body)
        loads = any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", None))
                    in ("from_pretrained", "pipeline") for n in ast.walk(handler))
        if loads and not raises and not _sets_again(handler, key, value):
            return True
    return False


def _in_tried_body(ctx, node, key: str, value) -> bool:
    """`node` lies in the body of a `try:` with a fallback handler (`_fallback_handler`)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
        if isinstance(parent, ast.Try) and any(child is s for s in parent.body) and _fallback_handler(parent, key, value):
            return True
        child, parent = parent, ctx.parent(parent)
    return False


def _tried_with_fallback(ctx, node, key: str, value) -> bool:
    """The option is given to a model load tried in a `try:` whose catch-all handler loads again without it
    (VLMEvalKit spatial_mllm.py: `try: from_pretrained(..., attn_implementation="flash_attention_2") / except
    Exception: from_pretrained(..., attn_implementation="eager")`; RULER model_wrappers.py: `model_kwargs =
    {"attn_implementation": "flash_attention_2"}` read only in `try: pipeline(..., model_kwargs=model_kwargs) /
    except: AutoModelForCausalLM.from_pretrained(name)`): without flash_attn the load fails and the program takes
    the other one, a working fallback (labeller notes 59e, 70e). A dict bound to a name counts where every read of
    the name is in such a body."""
    if getattr(ctx, "parent", None) is None or getattr(ctx, "nodes", None) is None:
        return False
    if _in_tried_body(ctx, node, key, value):
        return True
    child, parent = node, ctx.parent(node)
    if isinstance(parent, ast.Dict):
        child, parent = parent, ctx.parent(parent)
    if not (isinstance(parent, ast.Assign) and parent.value is child and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    scope = ctx.enclosing(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
    reads = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == name and isinstance(n.ctx, ast.Load)
             and ctx.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef)) is scope]
    return bool(reads) and all(_in_tried_body(ctx, n, key, value) for n in reads)


def _mapped_option_key(ctx, node: ast.Assign, roots) -> str | None:
    """The library keyword a conditional assignment to a name feeds with a GPU-only literal: `attn_impl =
    "flash_attention_2" if use_flash_attention_2 else "eager"` whose name is the keyword (`attn_implementation = ...`)
    or is handed on in the same function as `attn_implementation=attn_impl` / `{"attn_implementation": attn_impl}`."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) or not isinstance(node.value, ast.IfExp):
        return None
    literals = [value for value in (_constant(node.value.body), _constant(node.value.orelse)) if isinstance(value, str)]
    if not literals:
        return None
    name = node.targets[0].id
    keys = {name} | _handed_on_keys(ctx, node, name)
    for key in sorted(keys):
        if any(_lookup(key, literal, roots) is not None for literal in literals):
            return key
    return None


def _handed_on_keys(ctx, node, name: str) -> set:
    """The keywords the name `name` is handed on as in the function (or module) of `node`: `attn_implementation=name`,
    `{"attn_implementation": name}`."""
    keys = set()
    scope = ctx.parent(node)
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = ctx.parent(scope)
    for inner in ast.walk(scope) if scope is not None else ():
        if isinstance(inner, ast.keyword) and inner.arg and isinstance(inner.value, ast.Name) and inner.value.id == name:
            keys.add(inner.arg)
        elif isinstance(inner, ast.Dict):
            keys.update(_constant(k) for k, v in zip(inner.keys, inner.values)
                        if isinstance(v, ast.Name) and v.id == name and isinstance(_constant(k), str))
    return keys


def _literal_option(ctx, node: ast.Assign, roots) -> GpuOption | None:
    """The option a GPU-only literal bound to a name selects where the name is handed on as that option's keyword in
    the same function: `attn_implementation = "flash_attention_2"` in one branch of the project's switch (`elif
    args.use_flash_attention:`), then `from_pretrained(..., attn_implementation=attn_implementation)` (thu-nics/MoA
    longbench_evaluate.py, label note 70d): the line where the project picks the library's GPU-only value, as for
    `_mapped_option_key`'s conditional expression. A literal never handed on as the keyword is not read."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    literal = _constant(node.value)
    if not isinstance(literal, str) or literal not in _option_literals():
        return None
    for key in sorted(_handed_on_keys(ctx, node, node.targets[0].id)):
        option = _lookup(key, literal, roots)
        if option is not None and not _translates_the_option(ctx, node, key):
            return option
    return None


def _translates_the_option(ctx, node, key: str) -> bool:
    """The literal is picked under a test that reads the option itself (VeOmni's flash.py: `if
    module.config._attn_implementation == "veomni_flash_attention_2_with_sp": fa_kernel_implementation =
    "flash_attention_2"`): a value already chosen elsewhere (its config line) turned into the library's spelling, not
    the project's choice. Only the branch the test selects (its body; an `elif` below it tests on its own)."""
    wanted = key.lstrip("_")
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, ast.If) and any(child is statement for statement in parent.body) and any(
                (isinstance(n, ast.Attribute) and n.attr.lstrip("_") == wanted)
                or (isinstance(n, ast.Name) and n.id.lstrip("_") == wanted) for n in ast.walk(parent.test)):
            return True
        child, parent = parent, ctx.parent(parent)
    return False


@functools.lru_cache(maxsize=1)
def _option_literals() -> frozenset:
    return frozenset(v for option in gpu_only_options()[0] for v in option.values if isinstance(v, str))


def _probe_flag_test(ctx, test, guards: tuple[str, ...]) -> bool:
    """The `if` test reads a flag or calls a probe function of the file for a package matching `guards` (`_probes`)."""
    ctx.__dict__.setdefault("_npu503_probes", {})
    flags, probes = ctx.__dict__.setdefault("_npu503_guard_probes", {}).get(guards) or _probes(ctx, guards, None)
    ctx.__dict__["_npu503_guard_probes"][guards] = (flags, probes)
    return any(isinstance(node, ast.Name) and node.id in flags
               or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in probes
               for node in ast.walk(test))


def _probed_test(ctx, test, key: str, roots) -> bool:
    """Whether the conditional's test asks if the option's package imported: a name bound True in a `try:` importing
    it (`try: import flash_attn; flash_attn_flag = True`), or a call of a function of the file whose `try:` imports it
    and returns True, or a name bound from such a call (`installed_flash_attn = has_flash_attn()`). The value is then
    an optional path, not the project's switch (label rule (L1), notes 59e on granite_vision.py, 61c on AngelSlim's
    dflash_benchmark.py)."""
    guards = {g for option in gpu_only_options()[0] if option.key == key for g in option.guards}
    if not guards:
        return False
    flags, probes = ctx.__dict__.setdefault("_npu503_probes", {}).get(key) or _probes(ctx, guards, key)
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and node.id in flags:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in probes:
            return True
    return False


def _probes(ctx, guards, key) -> tuple[frozenset[str], frozenset[str]]:
    """(flag names, probe function names) of the file for a package matching `guards` (see _probed_test)."""
    flags: set[str] = set()
    probes: set[str] = set()
    for node in ctx.nodes.get(ast.Try, ()):
        modules = [alias.name for inner in node.body if isinstance(inner, ast.Import) for alias in inner.names]
        modules += [inner.module for inner in node.body if isinstance(inner, ast.ImportFrom) and inner.module]
        if not any(fnmatchcase(m.lower(), g) for m in modules for g in guards):
            continue
        for inner in node.body:
            if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Constant) and inner.value.value is True:
                flags.update(t.id for t in inner.targets if isinstance(t, ast.Name))
            if isinstance(inner, ast.Return) and isinstance(inner.value, ast.Constant) and inner.value.value is True:
                scope = ctx.parent(node)
                while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    scope = ctx.parent(scope)
                if scope is not None:
                    probes.add(scope.name)
    if probes:
        for node in ctx.nodes.get(ast.Assign, ()):
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id in probes:
                flags.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found = (frozenset(flags), frozenset(probes))
    ctx.__dict__["_npu503_probes"][key] = found
    return found


def _mapped_by(ctx, function, parameter: str, roots) -> bool:
    """Whether `function` turns its own boolean `parameter` into a library value itself: its body tests the parameter
    in a conditional that assigns a GPU-only literal (`attn_impl = "flash_attention_2" if use_flash_attention_2 else
    "eager"`, see _mapped_option_key) and never hands it on under its own name. The parameter is then the project's
    switch, not transformers' old keyword: the conditional is the line reported."""
    mapped = False
    for inner in ast.walk(function):
        if isinstance(inner, ast.keyword) and inner.arg == parameter:
            return False
        if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.IfExp) and any(
                isinstance(n, ast.Name) and n.id == parameter for n in ast.walk(inner.value.test)):
            mapped = mapped or _mapped_option_key(ctx, inner, roots) is not None
    return mapped


def _computed(node) -> bool:
    """A value known only at run time (`load_in_4bit=args.bits == 4`), not a literal or None."""
    return not isinstance(node, ast.Constant)


def _own_field(node, key: str) -> bool:
    """`output["load_in_4bit"] = self.load_in_4bit`: an object's own field of the same name copied into a dict (a
    config's `to_dict`): the value was chosen where the field was set, the copy selects nothing (label note 68a,
    diffusers' quantization_config.py: a plain config class)."""
    return isinstance(node, ast.Attribute) and node.attr == key and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _builds_an_object(node) -> bool:
    """`gr.Checkbox(label="load-in-8bit", ...)`: a class called (its name capitalised) builds an object, a UI widget
    registered under the option's name (text-generation-webui ui_model_menu.py: `shared.gradio['load_in_8bit'] =
    gr.Checkbox(...)`), not the on/off value a loader's keyword takes."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name[:1].isupper()


def _constant(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool, int)):
        return node.value
    default = _environment_default(node)
    return _constant(default) if default is not None else None


def _environment_default(node):
    """The literal default of an environment read, `os.environ.get("ATTN_IMPL", "flash_attention_2")` /
    `os.getenv(name, default)`: the value the option takes unless the user sets the variable, as an argparse
    default is (GPTQModel's test helpers: `"attn_implementation": os.environ.get(f"{prefix}_ATTN_IMPL",
    "paged|flash_attention_2")`)."""
    if not isinstance(node, ast.Call) or len(node.args) != 2 or node.keywords:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and (
            (func.attr == "get" and isinstance(func.value, ast.Attribute) and func.value.attr == "environ")
            or (func.attr == "get" and isinstance(func.value, ast.Name) and func.value.id == "environ")
            or (func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os")):
        return node.args[1] if isinstance(node.args[1], ast.Constant) else None
    return None


def _section_switch(node):
    """A dict value's constant; for a DeepSpeed-style config section (`"msamp": {"enabled": True, "opt_level": "O1"}`,
    `"fp16": {"enabled": True}`), the constant of its "enabled" key: the section is switched on by it."""
    if isinstance(node, ast.Dict):
        return next((_constant(v) for k, v in zip(node.keys, node.values) if _constant(k) == "enabled"), None)
    return _constant(node)


_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?([\w.-]+)\s*:")


def _yaml_parent(lines, number: int) -> str | None:
    """The key of the YAML block holding line `number` (1-based): the nearest line above it indented less
    (`fp8_config:` above `  backend: TE`); None at the top level."""
    line = lines[number - 1]
    indent = len(line) - len(line.lstrip())
    if indent == 0:
        return None
    for above in reversed(lines[:number - 1]):
        stripped = above.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _KEY_LINE.match(above)
        if match and len(match.group(1)) < indent:
            return match.group(2)
    return None


_YAML_BOOL = {"true": True, "True": True, "TRUE": True, "yes": True, "false": False, "False": False, "no": False}


def _text_value(raw: str):
    raw = raw.strip().strip("\"'")
    return _YAML_BOOL.get(raw, raw)


@functools.lru_cache(maxsize=1)
def _launcher_pattern() -> re.Pattern:
    keys = sorted({o.key for o in gpu_only_options()[0]}, key=len, reverse=True)
    # a CLI flag may spell the key's underscores as dashes (`--enable-flashinfer` for `enable_flashinfer`: argparse's
    # dest of a dashed flag is the underscored name)
    names = "|".join(re.escape(k).replace("_", "[_-]") for k in keys)
    # YAML `key: value` / `- key: value`, or a CLI flag `--key value` / `--key=value` / bare `--key`
    return re.compile(
        rf"(?:^\s*(?:-\s+)?(?P<ykey>{names})\s*:\s*(?P<yval>[^\s#]+)"
        rf"|(?<![\w-])--(?:[\w-]+\.)*(?P<ckey>{names})(?:[=\s]+(?P<cval>[^\s\\;&|]+))?)"
    )


def _own_parameter(ctx, call: ast.Call, name: str) -> bool:
    """Whether `call` calls a function this file defines with a parameter `name`: a module-level
    `def` called by its name, or a method of the enclosing class called on `self` / `cls`. Passing
    `load_in_8bit=load_in_8bit` on to such a function is plumbing of the repository's own parameter;
    the line that hands the value to the library is reported instead."""
    func = call.func
    if isinstance(func, ast.Name):
        wanted, scope = func.id, ctx.tree
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        wanted, scope = func.attr, ctx.parent(call)
        while scope is not None and not isinstance(scope, ast.ClassDef):
            scope = ctx.parent(scope)
        if scope is None:
            return False
    else:
        return False
    parameters = _defined_parameters(ctx, scope).get(wanted)
    return parameters is not None and name in parameters


def _repository_callee(ctx, call: ast.Call) -> bool:
    """Whether `call` calls a function or class of the scanned repository's own package, imported into this file:
    by a relative import (`from .models import Actor`) or from the package one of this file's folders is
    (`from openrlhf.models import Actor` in openrlhf/trainer/launcher.py). A computed option handed to it
    (`Actor(pretrain, load_in_4bit=args.load_in_4bit)`) is the repository's own switch passed on, like
    `_own_parameter` across files: the line where the package hands it to the library is reported there."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "from_pretrained" and isinstance(func.value, ast.Name):
        # `LayerWiseMiniCPMForCausalLM.from_pretrained(..., attn_implementation="flash_attention_2" if use_flash else
        # None)`: the repository's model class loaded through the loader it inherits from transformers'
        # PreTrainedModel, which takes the keyword itself (51a option labels)
        return False
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name):
        return False
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if statement.level and any((alias.asname or alias.name) == func.id for alias in statement.names):
            return True
    name = ctx.qualname(call.func)
    if name is None:
        return False
    root = name.split(".", 1)[0]
    from migrate.deps import known_roots

    if root in known_roots():  # a library the knowledge base knows: a folder named like it (`~/transformers/proj/`) is
        return False           # where the project lives, not the library's own package (relative imports count above)
    folders = [part for part in re.split(r"[\\/]", ctx.path)[:-1] if part not in ("", ".", "..")]
    return root in folders


def _defined_parameters(ctx, scope) -> dict[str, frozenset[str]]:
    """name -> parameter names of the first `def` of each name directly in `scope` (the module or a class), read
    once per scope and file: `_own_parameter` asks per keyword, and a module of thousands of statements was
    walked again for each (torch: 27k walks, ~4 s CPU)."""
    table = ctx.__dict__.setdefault("_npu503_defined_parameters", {})
    found = table.get(id(scope))
    if found is None:
        found = table[id(scope)] = {}
        for statement in scope.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name not in found:
                arguments = statement.args
                found[statement.name] = frozenset(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
    return found


class GpuOnlyOption(Rule):
    """Option values that make a library pick a GPU-only code path even though no GPU package is
    imported in the file: Hugging Face `optim="paged_adamw_32bit"` and the other bitsandbytes
    optimizers, `attn_implementation="flash_attention_2"`, `use_flash_attention_2=True`,
    `load_in_4bit=True` / `load_in_8bit=True`, `half_precision_backend="apex"` and any
    `BitsAndBytesConfig(...)` (reported once at the call: its own keywords are not reported again; an mmengine-style lazy
    construction `dict(type=BitsAndBytesConfig, load_in_4bit=True, ...)` / `{"type": BitsAndBytesConfig, ...}` is such a
    call, reported at the `type=` line with its keywords folded in, migrate/lazy_constructions.py; `type="..."` strings
    name no class). Found in call keywords, dict literals (`{"optim": ...}`), attribute
    assignments (`args.optim = ...`, `kwargs["load_in_8bit"] = True`, the config attribute behind a keyword set
    directly: `config._attn_implementation = "flash_attention_2"`), YAML configs (`optim: paged_adamw_32bit`), JSON arguments
    files (`"optim": "paged_adamw_32bit"`) where a Python file of the repository parses JSON with HfArgumentParser
    (`parser.parse_json_file(json_file=...)`, migrate/json_configs.py) and command-line
    flags in launchers (`--optim paged_adamw_32bit`, `--load_in_4bit`, diffusers' examples'
    `--enable_xformers_memory_efficient_attention`; a nested-config flag by its last dotted part,
    `--ds.attn_implementation flash_attention_2`), argparse defaults
    (`add_argument("--optim", default="paged_adamw_32bit")`, `"--ds.attn_implementation"` too) and function parameter
    defaults (`def __init__(self, name, attn_implementation="flash_attention_2")`: what every caller leaving it out gets). Lightning's `accelerator="gpu"` is a device choice,
    reported by NPU108 (label ruling (L25)); Lightning 1.x's
    `gpus` flag is on for any value but 0 / None / "" (`Trainer(gpus=1)`, `trainer_config["gpus"] = 1`)
    and its `accelerator="ddp"` ran multi-GPU DDP; where the code reads the flag to decide GPU
    against CPU (`if "gpus" in trainer_config:`, `trainer_config["gpus"]`) that line is reported too. The recognised keys and
    values are data (`migrate/knowledge/data/gpu_only_options.toml`, each with its source). A boolean
    option given a computed value (`load_in_4bit=args.bits == 4`) is a warning (GPU-only whenever it
    is true; so is a conditional value one of whose branches is a GPU-only value,
    `attn_implementation="flash_attention_2" if flag else "eager"`; so is such a value set as a keyword-dict key, `kwargs["load_in_4bit"] = flag`, but not the
    same value handed on to a function of this file that takes it, or to a function or class of the repository's own
    package imported into this file (`from .models import Actor` / `from mypkg.models import Actor` in mypkg/...; never a
    package the knowledge base knows, such as transformers, by a folder named like it): that is
    plumbing, the package's call of the library is reported where it is; a value set only under an
    availability check of the package it needs, `if is_flash_attn_2_available():`, or a comparison of a flag the file's import attempt of that package sets, `'flash_attention_2' if FLASH_VER == 2 else None` after `try: from flash_attn import ...; FLASH_VER = 2 / except ModuleNotFoundError: FLASH_VER = None`, is an optional path, not reported), and a dataclass field default (`optim: str = field(default="paged_adamw_32bit")`) is
    read like a keyword. Methods and names whose use turns on a GPU-only library are data too
    (`[[method]]`, `[[name]]`): diffusers' `enable_xformers_memory_efficient_attention()` and its
    `*XFormers*Processor` classes, in files that import diffusers (not under `if is_xformers_available():`, an optional path), and a method given a GPU-only
    argument value (`set_attention_backend("flash_hub")`: a flash-attn / FA3 / SageAttention /
    xformers backend of diffusers' attention dispatcher; `"_native_npu"` is the NPU one). A package the catalogue marks partial (it also ships native PyTorch kernels, so its
    import is not reported) may list the string values that select its GPU-only kernels (third_party.toml `selectors`):
    such a value set at a keyword, field default or dict key whose name says kernel / impl / backend in a file importing
    the package is reported (mlstm_kernels' `step_kernel="triton"`). accelerate's FP8 engines are such options too
    (`FP8RecipeKwargs(backend="TE" | "msamp")`, `DeepSpeedPlugin(enable_msamp=True)`, a DeepSpeed config section
    `"msamp": {"enabled": True}`, read by its "enabled" key, `backend: TE` under a YAML `fp8_config:` (an option's
    `within`), `--fp8_backend te`). Not reported: a value inside `with pytest.raises(...)` / `self.assertRaises(...)`
    (a test of the library's validation), and a value a library's config class sets under `if self.<switch>:` of a
    boolean GPU-only option (`if self.enable_msamp: self.deepspeed_config["msamp"] = {...}`: its own switch passed
    on; the user's switch is reported). The `from ... import` of a
    name whose uses are reported (`from transformers import BitsAndBytesConfig`) is a warning at
    the import: it changes with those lines. A project's OWN option is read the same way (label rule 39d-4,
    migrate/config_options.py): where its code compares a config value with a literal (`if self.attn_impl == "flash":`,
    `rope_impl in ("dail",)`, a list option holding it `if "engine" in include:`, a bare switch `if config.use_flash_attn:`) and the branch taken holds a GPU-only import,
    use or extension call (NPU501 / NPU507 / NPU508, not optional; directly, or in a function of the same file the branch
    calls, outside a selection of its own), each line setting that key to that value is a warning: a YAML line
    `attn_impl: flash` (not one whose key the same mapping sets again further down, `NORM_TYPE: "sync_batchnorm_apex"`
    above `NORM_TYPE: "sync_batchnorm"`: the loader keeps the last, label note 49d d-1), a launcher's `--attn_impl flash` / `--use_flash_attn` / `model.attn_impl=flash`, a parameter or
    dataclass default `attn_impl: str = "flash"`, a dict entry `{"attn_impl": "flash"}`, a keyword
    `Block(use_flash_attn=True)`, an argparse default; a parameter default or call keyword only for a key that is also a
    config field somewhere in the repository (a YAML line, a launcher flag, a dataclass field, a dict entry, an argparse
    option): `def apply(q, layout="interleaved")` or `attn(q, k, is_causal=True)` in library-style op code passes a
    function's argument, no option a user sets. A package the catalogue marks partial (NPU501 at warning: liger_kernel's
    Ascend backend) is no GPU-only branch (`--use_liger True`, label rule 37e-11). A launcher's flag is the option of
    the script its command runs (`torchrun ... train_sft.py --use_flash_attn`; a notebook's shell line too, `!python
    export.py --include engine`, reported in its cell): where that repository script declares the
    flag (argparse), only its own branches on it decide (the branch holding the finding or calling the function of the
    script that does: `if "engine" in include: export_engine(...)`, whose body imports tensorrt, set 43b), a library option value such as
    `attn_implementation="flash_attention_2"` (NPU503) in the branch counting too (label rule 37e-10). Only where
    another value of the key takes a branch without such a
    finding (`elif attn_impl == "torch":`, a boolean's off side, not an `else: raise`): a value that switches between
    two of the project's own GPU-only paths (nvdiffrast's `context_type: cuda` vs `gl`) is not reported (label rule
    39d-2); nor are settings in test modules, nor generic keys (`device`, `type`, `mode`, ...). A branch that raises
    or asserts where an optional import's None stand-in is missing (`try: from flash_attn... import f` / `except
    ImportError: f = None`, then under `if cfg.fused_loss:` an `if f is not None: ... else: raise`, `assert f is not
    None`, or the option's own test `if cfg.fused_dense and FusedDense is None: raise`) needs that import: GPU-only where
    its package is in the catalogue (not partial, not a package the repository vendors with its kernels: label rules
    40d-11, 40d-4, 38c-4); a stand-in the code falls back from is no such need. An argparse flag's aliases set its dest
    (`add_argument("--use-flash-attn", "--use-flash-attn-v1", dest="use_flash_attn_v1")`; not a store_false
    `--no-x`), and `--x=false` sets no True. Collected as per-file facts, decided after the scan. A well-known
    framework's OWN launcher flags, parsed by its argument parser outside the repository (Megatron-LM, often an absent
    submodule), are data too (migrate/launcher_flags.py, knowledge/data/launcher_flags.toml: per flag and value what it
    selects, its Megatron-LM source line and what Ascend's MindSpeed does with it; label rule 41d-3): in a launcher
    running a repository script that imports `megatron` (`torchrun ... ../llama2/pretrain_llama.py`, wherever in the
    launcher the flag is set, `te_options="--transformer-impl transformer_engine"`), `--transformer-impl
    transformer_engine`, `--use-flash-attn`, `--attention-backend flash|fused`, `--fp8-format e4m3|hybrid`, the older
    `--fp8-hybrid` / `--fp8-e4m3`, `--moe-grouped-gemm` and `--moe-permute-fusion` are warnings; those that are
    TransformerConfig fields too (`transformer_impl`, `moe_grouped_gemm`, `moe_permute_fusion`) also as a config-field
    default in a repository file importing megatron (`transformer_impl: str = "transformer_engine"` in a TransformerConfig
    subclass). Not reported: values that keep the non-GPU path (`--transformer-impl local`, `--attention-backend auto`),
    size, path and recipe flags (`--fp8-amax-history-len`), commented lines, a launcher of a script that does not
    import megatron, a flag the repository's own argparse declares (a Megatron fork, Megatron-DeepSpeed's own
    `--use-flash-attn`: its own option, read as above). Nor is an option or class selecting the package the checkout
    itself holds (an entry's `package` in the data, `bitsandbytes` for `load_in_4bit=True` and `BitsAndBytesConfig`, where
    the scan holds `bitsandbytes/__init__.py` beside a setup.py / pyproject.toml: its own benchmarks, examples and tests;
    its GPU-only parts are reported where they are, label rule (R3), 46d-2; migrate/own_package.py)."""

    CODE = "NPU503"
    NAME = "gpu-only-option"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("python", "launcher")
    MESSAGE = "selects a GPU-only code path"
    VALID = [
        # EETQ after a requirement check that raises without it (label ruling L34)
        # Wan2.1 prompt_extend.py: the import attempt binds a version flag (`FLASH_VER = 2`, None without flash_attn);
        # the value chosen when it compares equal is taken only where flash_attn imported: an optional path
        Valid("try:\n    from flash_attn import flash_attn_varlen_func\n    FLASH_VER = 2\nexcept ModuleNotFoundError:\n"
              "    flash_attn_varlen_func = None\n    FLASH_VER = None\n"
              "m = AutoModelForCausalLM.from_pretrained(n, attn_implementation='flash_attention_2' if FLASH_VER == 2 else None)\n"),
        # diffusers' BitsAndBytesConfig.to_dict: the config's own fields copied into the dict it returns select nothing
        Valid("from transformers.utils import QuantizationConfigMixin\nclass BnbConfig(QuantizationConfigMixin):\n"
              "    def to_dict(self):\n        output = {}\n        output['load_in_4bit'] = self.load_in_4bit\n"
              "        return output\n"),
        Valid("from transformers import EetqConfig\ndef load(kw):\n    check_version('eetq', mandatory=True)\n"
              "    kw['quantization_config'] = EetqConfig()\n"),
        # transformers' FP8 config that loads a bf16 model anywhere (`dequantize=True`: the quantizer returns before its
        # device check), or stored into a config to be saved (loads nothing)
        # threestudio guidance: the method called in the `else` of `not is_xformers_available()` (which only warns):
        # an optional path (in the `if` branch of that test it is not: INVALID)
        Valid("from diffusers.utils.import_utils import is_xformers_available\nif cfg.use_sdpa:\n    pass\n"
              "elif not is_xformers_available():\n    warn('xformers is not available')\nelse:\n"
              "    pipe.enable_xformers_memory_efficient_attention()\n"),
        Valid("from transformers import FineGrainedFP8Config\n"
              "m = AutoModelForCausalLM.from_pretrained(n, quantization_config=FineGrainedFP8Config(dequantize=True))\n"),
        Valid("from transformers import FineGrainedFP8Config\nhf_config.quantization_config = FineGrainedFP8Config()\n"
              "hf_config.save_pretrained(out)\n"),
        'args = TrainingArguments(output_dir="o", optim="adamw_torch")',
        # text-generation-webui ui_model_menu.py: a UI widget registered under the option's name is no loader keyword
        "import gradio as gr\nshared.gradio['load_in_8bit'] = gr.Checkbox(label='load-in-8bit', value=shared.args.load_in_8bit)\n"
        "shared.gradio['use_flash_attention_2'] = gr.Checkbox(label='use_flash_attention_2', value=False)",
        'model = AutoModel.from_pretrained(name, attn_implementation="sdpa")',
        'model = AutoModel.from_pretrained(name, attn_implementation={"text_config": "sdpa", "vision_config": "eager"})',
        "model = AutoModel.from_pretrained(name, load_in_4bit=False)",
        'print("use optim=paged_adamw_32bit on GPUs")',
        "kwargs = {}\nkwargs['load_in_8bit'] = False\nkwargs['attn_implementation'] = 'sdpa'\nnames['optim'] = other",
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--accelerator", default="auto")\np.add_argument("--gpu", default="gpu")',
        'import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="cpu")',
        'import pytorch_lightning as pl\ntrainer = pl.Trainer(gpus=0, strategy="ddp")\ncfg = {"gpus": None}',
        'cfg = {"gpus": 2, "accelerator": "ddp"}\nif "gpus" in cfg:\n    n = cfg["gpus"]',  # not a Lightning file
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--accelerator", default="gpu")',  # not a Lightning file
        'import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="gpu", devices=1)',  # a device choice: NPU108
        Valid("trainer:\n  accelerator: gpu\n", kind="launcher", filename="config.yaml"),  # no import to tell whose option
        Valid("optim: adamw_torch\nload_in_4bit: false\n", kind="launcher", filename="config.yaml"),
        # a computed switch handed to the repository's own wrapper (imported from its package, or relatively): the
        # wrapper's call of the library is the line reported, in the wrapper's file
        Valid("from mypkg.models import Actor\nactor = Actor(pretrain, load_in_4bit=args.ds.load_in_4bit)\n",
              filename="mypkg/trainer/launcher.py"),
        Valid("from .models import get_model\nm = get_model(name, load_in_8bit=args.load_in_8bit)\n",
              filename="mypkg/serve.py"),
        Valid("# --optim paged_adamw_32bit\npython train.py --optim adamw_torch\n", kind="launcher"),
        # the switch defined (off by default) and read: the launcher that passes it is the line to change
        'import argparse\np = argparse.ArgumentParser()\n'
        'p.add_argument("--enable_xformers_memory_efficient_attention", action="store_true")\n'
        'args = p.parse_args()\nif args.enable_xformers_memory_efficient_attention:\n    print("xformers")',
        "model.enable_xformers_memory_efficient_attention()",  # not a diffusers file: whose method is unknown
        # the config built after a requirement check that raises without bitsandbytes (migrate/requirement_checks.py)
        "from transformers import BitsAndBytesConfig\ndef quant(kw, bits):\n    if bits == 4:\n"
        "        require_version('bitsandbytes>=0.39.0')\n        kw['quantization_config'] = BitsAndBytesConfig(load_in_4bit=True)\n",
        'from diffusers import UNet2DModel\nunet.enable_npu_flash_attention()\nprint("call enable_xformers_memory_efficient_attention() on GPUs")',
        "from diffusers.models.attention_processor import AttnProcessor2_0, XFormersAttnProcessor\nunet.set_attn_processor(AttnProcessor2_0())",
        # TencentARC/InstantMesh zero123plus/pipeline.py:92, :186: the processor class chosen only under diffusers' availability
        # check of xformers is an optional path like the method call below (and its import is not reported with it)
        "from diffusers.models.attention_processor import AttnProcessor, XFormersAttnProcessor, AttnProcessor2_0\n"
        "from diffusers.utils.import_utils import is_xformers_available\nif new_torch:\n    p = AttnProcessor2_0()\n"
        "elif is_xformers_available():\n    p = XFormersAttnProcessor()\nelse:\n    p = AttnProcessor()\n"
        "P = AttnProcessor2_0\nif is_xformers_available():\n    P = XFormersAttnProcessor",
        # a parameter passed on to a function of this file that takes it: plumbing, not the library call
        "def load(name, load_in_4bit=False):\n    return name\nm = load(n, load_in_4bit=args.q)",
        'm = AutoModel.from_pretrained(n, attn_implementation="sdpa" if args.fast else "eager")',  # neither branch is GPU-only
        # PKU-YuanGroup/Helios: the attention backend names the dispatcher runs on an NPU or anywhere
        'from diffusers import WanTransformer3DModel\nt.set_attention_backend("_native_npu")\nt.set_attention_backend(args.backend)\nt.set_attention_backend(backend="native")',
        'model.set_attention_backend("flash_hub")',  # not a diffusers file: whose method is unknown
        # guoyww/AnimateDiff app.py / scripts/animate.py: under diffusers' availability check of xformers the call is an
        # optional path (label rule (L1)); so under an NPU-excluding test or after an NPU early exit (migrate/npu_aware.py)
        "from diffusers.utils.import_utils import is_xformers_available\nif is_xformers_available(): unet.enable_xformers_memory_efficient_attention()",
        "from diffusers import UNet2DModel\nif use_xformers and not is_npu_available():\n    unet.enable_xformers_memory_efficient_attention()\n"
        "else:\n    raise ValueError('no xformers')",
        "from diffusers import UNet2DModel\nif use_xformers:\n    if is_npu_available():\n        raise ValueError('NPU: no xformers')\n"
        "    unet.enable_xformers_memory_efficient_attention()",
        # a partial package's native kernel names, a selector value at a name that is no kernel choice, and "triton" in a
        # file that does not import the package whose catalogue entry lists it
        'from mlstm_kernels.torch.backend_module import mLSTMBackendConfig\n'
        'cfg = mLSTMBackendConfig(chunkwise_kernel="chunkwise--native_autograd", step_kernel="native")\nlog(name="triton")',
        'cfg = Config(step_kernel="triton", attn_impl="triton")',
        # accelerate: a backend name outside an accelerate file, the torchao FP8 engine, a `backend:` key outside
        # `fp8_config:`, and a config class passing its own switch on (accelerate DeepSpeedPlugin.__post_init__)
        'import torch.distributed as dist\ndist.init_process_group(backend="nccl")\nr = Recipe(backend="te")',
        'from accelerate.utils import FP8RecipeKwargs\nk = FP8RecipeKwargs(backend="AO")',
        Valid("dynamo_config:\n  backend: TE\nfp8_config:\n  backend: AO\n", kind="launcher", filename="default_config.yaml"),
        "class Plugin:\n    enable_msamp: bool = None\n    def __post_init__(self):\n        if self.enable_msamp:\n"
        "            self.deepspeed_config['msamp'] = {'enabled': True, 'opt_level': 'O1'}\n",
        # accelerate tests/test_quantization.py: a value that must fail the library's validation never runs
        "import unittest\nclass T(unittest.TestCase):\n    def test_both(self):\n        with self.assertRaises(ValueError):\n"
        "            BnbQuantizationConfig(load_in_8bit=True, load_in_4bit=True)\n",
        '{"msamp": {"enabled": False}, "bf16": {"enabled": True}}',
        # a registry string names no class of an import: the registry decides what it builds
        "model = dict(type='AutoModelForCausalLM', quantization_config=dict(type='BitsAndBytesConfig'))",
        # set only after the package imported in the same try (an availability selection, 51a-1)
        "class Config(PretrainedConfig):\n    def __init__(self, **kw):\n        super().__init__(**kw)\n"
        "        try:\n            import flash_attn\n            self._attn_implementation = 'flash_attention_2'\n"
        "        except:\n            pass\n",
    ]
    INVALID = [
        # the repository's own model class loaded through the from_pretrained it inherits from transformers: the
        # switched keyword reaches transformers there (51a: layerwise load_model.py)
        Invalid("from .modeling_minicpm import LayerWiseModel\ndef load(args):\n    return LayerWiseModel.from_pretrained(\n"
                "        args.path, attn_implementation='flash_attention_2' if args.use_flash_attn else None)\n", count=1),
        Invalid('args = TrainingArguments(output_dir="o", optim="paged_adamw_32bit")', count=1),
        # the project's switch picks the GPU-only value into a name handed on as the keyword (thu-nics/MoA
        # longbench_evaluate.py, label note 70d): the literal's line; a literal never handed on as the keyword is not read
        Invalid('from transformers import AutoModelForCausalLM\ndef load(args):\n    if args.moa:\n        impl = "sdpa"\n'
                '    elif args.use_flash_attention:\n        impl = "flash_attention_2"\n    label = "flash_attention_2"\n'
                '    return AutoModelForCausalLM.from_pretrained("m", attn_implementation=impl), label\n', count=1),
        # ... not where the test reads the option itself: a chosen value turned into the library's spelling (VeOmni flash.py)
        Invalid('from transformers import AutoModelForCausalLM\ndef load(config, args):\n'
                '    if config._attn_implementation == "own_fa2":\n        impl = "flash_attention_2"\n'
                '    elif args.fa:\n        impl = "flash_attention_3"\n'
                '    return AutoModelForCausalLM.from_pretrained("m", attn_implementation=impl)\n', count=1),
        # a quantized Llama's loader sets the config attribute behind attn_implementation= itself; the assert that
        # later checks it reads the value and sets nothing (label rule 35d-5)
        Invalid('def load(cls, name):\n    config = cls.config_class.from_pretrained(name)\n'
                '    config._attn_implementation = "flash_attention_2"\n    return cls(config)\n'
                'def attn(config):\n    assert config._attn_implementation == "flash_attention_2"\n', count=1),
        Invalid("m = AutoModelForCausalLM.from_pretrained(n, load_in_4bit=args.bits == 4, load_in_8bit=args.bits == 8)", count=2),
        # a load tried with flash_attention_2 whose catch-all handler loads again without it (labeller notes 59e
        # spatial_mllm.py, 70e RULER model_wrappers.py): a working fallback; a handler that re-raises is none
        Invalid("def load(name):\n    kwargs = {'attn_implementation': 'flash_attention_2'}\n    try:\n"
                "        return pipeline('text-generation', model=name, model_kwargs=kwargs)\n    except:\n"
                "        return AutoModelForCausalLM.from_pretrained(name)\n"
                "def load2(name):\n    try:\n        return AutoModel.from_pretrained(name, attn_implementation='flash_attention_2')\n"
                "    except Exception as e:\n        logging.warning(e)\n        return AutoModel.from_pretrained(name, attn_implementation='eager')\n"
                "def load3(name):\n    try:\n        return AutoModel.from_pretrained(name, attn_implementation='flash_attention_2')\n"
                "    except Exception as e:\n        raise RuntimeError(name) from e\n"
                # MInference's RULER wrapper (labels 60): the reload selects flash_attention_2 again, no fallback
                "def load4(name):\n    kwargs = {'attn_implementation': 'flash_attention_2'}\n    try:\n"
                "        return pipeline('text-generation', model=name, model_kwargs=kwargs)\n    except:\n"
                "        return AutoModelForCausalLM.from_pretrained(name, _attn_implementation='flash_attention_2')\n",
                count=3),
        # the option only where a probe of the file imported flash_attn (VLMEvalKit llava.py, labeller note 70e): an
        # optional path; the plain call beside it selects nothing GPU-only
        Invalid("flash_attn_flag = False\ntry:\n    import flash_attn\n    flash_attn_flag = True\nexcept ImportError:\n"
                "    pass\nif flash_attn_flag:\n    m = LlavaForConditionalGeneration.from_pretrained(p, use_flash_attention_2=True)\n"
                "else:\n    m = LlavaForConditionalGeneration.from_pretrained(p)\n"
                "m2 = AutoModelForCausalLM.from_pretrained(p, use_flash_attention_2=True)\n", count=1),
        # the kwargs a vision config is built from set the property and its stored value: each key must change
        # (VLMEvalKit valley_eagle vision_encoder_config.py, labeller note 70e: two labels)
        Invalid('cfg = Qwen2VLVisionConfig(**{\n    "depth": 32,\n    "_attn_implementation": "flash_attention_2",\n'
                '    "_attn_implementation_internal": "flash_attention_2"\n})\n', count=2),
        # a project kept in a folder named like the library it calls is not that library's own package
        Invalid("from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained(n, load_in_4bit=args.q4)\n",
                count=1, filename="home/me/transformers/proj/train.py"),
        Invalid('from dataclasses import dataclass, field\n@dataclass\nclass A:\n    optim: str = field(default="paged_adamw_32bit")', count=1),
        Invalid('cfg = {"optim": "adamw_bnb_8bit", "lr": 1e-4}', count=1),
        Invalid('m = AutoModelForCausalLM.from_pretrained(n, attn_implementation="flash_attention_2")'),
        # Open-Sora tools/caption/caption_llava.py: one branch of a conditional value is the GPU-only one
        Invalid('m = AutoModelForCausalLM.from_pretrained(n, attn_implementation="flash_attention_2" if args.fa else "eager")', count=1),
        # a keyword dict written out, handed on later (`from_pretrained(n, **config)`)
        Invalid('config = {"trust_remote_code": True, "attn_implementation": "flash_attention_2" if args.fa2 else None}\n'
                'from transformers.utils import is_flash_attn_2_available\n'
                'kw = {"attn_implementation": "flash_attention_2" if is_flash_attn_2_available() else "sdpa"}', count=1),
        # mobiusml/hqq examples/models/aria_multimodal.py: one attention implementation per sub-config
        Invalid('m = AutoModelForCausalLM.from_pretrained(n, attn_implementation={"text_config": "sdpa", "vision_config": "flash_attention_2"})'),
        Invalid("m = AutoModelForCausalLM.from_pretrained(n, load_in_8bit=True)"),
        # Wan2.1 prompt_extend.py: the import attempt binds a version flag (`FLASH_VER = 2`, None without flash_attn);
        # a flag set without an import attempt of flash_attn is no availability check (the optional case: among the
        # valid examples)
        Invalid("FLASH_VER = 2\nm = AutoModelForCausalLM.from_pretrained(n, attn_implementation='flash_attention_2' if FLASH_VER == 2 else None)\n",
                count=1),
        # ChatTTS gpt.py: set only under transformers' availability predicate of the package it needs, the value is an
        # optional path (label rule (L1)); under another test, or in the `else` of that check, it is not
        Invalid("from transformers.utils import is_flash_attn_2_available\nif self.use_flash_attn and is_flash_attn_2_available():\n"
                "    cfg = LlamaConfig(attn_implementation='flash_attention_2')\nelif args.fa:\n"
                "    cfg = LlamaConfig(attn_implementation='flash_attention_2')\n"
                "impl = AutoModel.from_pretrained(n, attn_implementation='flash_attention_2' if is_flash_attn_2_available() else 'sdpa')\n"
                "if is_flash_attn_2_available():\n    pass\nelse:\n    m = AutoModel.from_pretrained(n, use_flash_attention_2=True)\n",
                count=2),
        Invalid("m = AutoModel.from_pretrained(n, use_flash_attention_2=True)"),
        # IST-DASLab/QUIK experiments/modelutils.py: transformers 4.34's private switch, set on the config
        Invalid("config = transformers.LlamaConfig.from_json_file(path)\nconfig._flash_attn_2_enabled = True\n"),
        # the import of a name whose uses are reported changes with them (a warning at the import)
        Invalid("from transformers import BitsAndBytesConfig\nq = BitsAndBytesConfig(load_in_4bit=True)", count=2),
        # qlora.py: the config call is the construct; its options (`load_in_4bit=` on a line of its own) go with
        # it, while the same options given to from_pretrained itself are constructs of their own
        Invalid("from transformers import AutoModelForCausalLM, BitsAndBytesConfig\nm = AutoModelForCausalLM.from_pretrained(\n"
                "    n,\n    load_in_4bit=args.bits == 4,\n    quantization_config=BitsAndBytesConfig(\n"
                "        load_in_4bit=args.bits == 4,\n        load_in_8bit=args.bits == 8,\n    ),\n)", count=3),
        Invalid("from transformers import GPTQConfig as G, AutoModel\nq = G(bits=4)\nm = AutoModel.from_pretrained(n)", count=2),
        Invalid("import transformers as tf\nq = tf.BitsAndBytesConfig()", count=1),
        # an mmengine-style config: the dict the registry builds is the construction, at the line naming the class, its
        # keywords (`load_in_4bit=True`) the constructor's; the import goes with it (migrate/lazy_constructions.py)
        Invalid("from transformers import AutoModelForCausalLM, BitsAndBytesConfig\nmodel = dict(\n"
                "    type=AutoModelForCausalLM.from_pretrained,\n    quantization_config=dict(\n"
                "        type=BitsAndBytesConfig,\n        load_in_4bit=True,\n        bnb_4bit_quant_type='nf4'))\n"
                "q = {'type': BitsAndBytesConfig, 'load_in_8bit': True}\n", count=3),
        # an option whose value is an environment read with a GPU-only default (the default runs unless the user sets it)
        Invalid('import os\nmodel_args = {\n    "attn_implementation": os.environ.get(\n        "EVAL_ATTN_IMPL",\n'
                '        "paged|flash_attention_2",\n    ),\n}\n'),
        # a quantization method chosen by a user option: EETQ's config, imported in its branch (import and construction);
        # not under a raising `check_version("eetq", mandatory=True)` (an optional path, label ruling L34)
        # the method called where the package is missing (`if not is_xformers_available():`) is no optional path
        Invalid("from diffusers.utils.import_utils import is_xformers_available\nif not is_xformers_available():\n"
                "    pipe.enable_xformers_memory_efficient_attention()\n"),
        # kvpress kvzap/train.py (71e): a bf16 model quantized to FP8 on the fly under a user switch ((L74)); transformers'
        # quantizer raises without CUDA / XPU
        Invalid("from transformers import AutoModelForCausalLM, FineGrainedFP8Config\ndef load(n, fp8):\n"
                "    quantization_config = FineGrainedFP8Config() if fp8 else None\n"
                "    return AutoModelForCausalLM.from_pretrained(n, quantization_config=quantization_config)\n", count=2),
        Invalid("def quant_config(method, bits):\n    if method == 'eetq':\n        from transformers import EetqConfig\n"
                "        return EetqConfig(f'int{bits}')\n", count=2),
        Invalid('args.optim = "paged_adamw_8bit"'),
        Invalid("kwargs = {}\nkwargs['load_in_8bit'] = True\nkwargs['attn_implementation'] = 'flash_attention_2'", count=2),
        # lm-evaluation-harness models/huggingface.py (vendored in xvyaward/owq @03cfc994): the 4-bit key set from a parameter
        # is reported; the same parameter handed on to the class's own `_create_auto_model` is not, its `from_pretrained` is
        Invalid("from transformers import AutoModelForCausalLM\nclass LM:\n"
                "    def __init__(self, n, load_in_8bit=False, load_in_4bit=False):\n"
                "        self.model = self._create_auto_model(n, load_in_8bit=load_in_8bit, load_in_4bit=load_in_4bit)\n"
                "    def _create_auto_model(self, n, load_in_8bit=False, load_in_4bit=False):\n"
                "        model_kwargs = {}\n        model_kwargs['load_in_4bit'] = load_in_4bit\n"
                "        return AutoModelForCausalLM.from_pretrained(n, load_in_8bit=load_in_8bit, **model_kwargs)", count=2),
        Invalid('import argparse\nimport pytorch_lightning as pl\np = argparse.ArgumentParser()\np.add_argument("--accelerator", default="gpu", type=str)\np.add_argument("--optim", default="paged_adamw_8bit")', count=1),
        Invalid('import pytorch_lightning as pl\ntrainer = pl.Trainer(gpus=1, precision=32)\nt2 = pl.Trainer(gpus=args.gpus)', count=2),
        Invalid(
            'import pytorch_lightning as pl\ntrainer_config = {}\ntrainer_config["accelerator"] = "ddp"\n'
            'if not "gpus" in trainer_config:\n    del trainer_config["accelerator"]\nelse:\n    gpuinfo = trainer_config["gpus"]',
            count=3,
        ),
        Invalid("model:\n  attn_implementation: flash_attention_2\noptim: 'paged_adamw_32bit'\n", kind="launcher", filename="config.yaml", count=2),
        Invalid("python train.py --optim paged_adamw_32bit --load_in_4bit\n", kind="launcher", count=2),
        # an evaluation harness told to run its vLLM backend (knowledge `selected_by`: lm-evaluation-harness and lmms-eval
        # register their vLLM model classes as "vllm"), also on a continuation line; `--model hf` is no such option
        Invalid("lm_eval --model vllm \\\n    --tasks gsm8k\npython3 -m lmms_eval \\\n    --model vllm \\\n    --tasks mme\n"
                "lm_eval --model hf --tasks gsm8k\n# lm_eval --model vllm\n", kind="launcher", count=2),
        # RULER's run.sh: sglang's server switched to FlashInfer's CUDA kernels; the launch itself is sglang's (NPU build)
        Invalid("python -m sglang.launch_server \\\n    --model-path ${MODEL_PATH} \\\n    --enable-flashinfer \\\n    &\n",
                kind="launcher", count=1),
        # accelerate's FP8 engines (Transformer Engine, MS-AMP): the recipe's backend, DeepSpeedPlugin's switch, the
        # DeepSpeed config section (on by its "enabled" key), the config file's fp8_config and the launch flag
        Invalid('from accelerate import Accelerator, DeepSpeedPlugin\nfrom accelerate.utils import FP8RecipeKwargs\n'
                'handlers = [FP8RecipeKwargs(backend="TE")]\nk = FP8RecipeKwargs(backend="msamp", opt_level="O1")\n'
                'plugin = DeepSpeedPlugin(zero_stage=1, enable_msamp=True)\n'
                'config = {"bf16": {"enabled": True}, "msamp": {"enabled": True, "opt_level": "O1"}}\n', count=4),
        Invalid('mixed_precision: fp8\nfp8_config:\n  amax_history_len: 1024\n  backend: TE  # or MSAMP\n', kind="launcher",
                filename="fp8.yaml", count=1),
        Invalid("accelerate launch --mixed_precision fp8 --fp8_backend te train.py\n", kind="launcher", count=1),
        Invalid("accelerate launch sft.py --attn_implementation=flash_attention_2\n", kind="launcher"),
        # a nested-config (dotted) flag names the option by its last part, in launchers and in its argparse default
        Invalid("deepspeed --module mypkg.cli.train_sft \\\n   --ds.attn_implementation flash_attention_2 \\\n   --ds.zero_stage 2\n",
                kind="launcher"),
        Invalid('import argparse\np = argparse.ArgumentParser()\np.add_argument("--ds.attn_implementation", type=str, '
                'default="flash_attention_2")\n'),
        # a parameter's literal default is the value every caller leaving it out hands on (a model wrapper's signature);
        # the parameter handed to the library there is plumbing of it, not a second finding
        Invalid("from transformers import AutoModelForCausalLM\nclass Actor:\n"
                "    def __init__(self, name, attn_implementation=\"flash_attention_2\", load_in_4bit=False):\n"
                "        self.model = AutoModelForCausalLM.from_pretrained(name, attn_implementation=attn_implementation)\n",
                count=1),
        # diffusers' training examples: the switch that makes the script call enable_xformers_memory_efficient_attention()
        Invalid("accelerate launch train_dreambooth.py --mixed_precision=fp16 \\\n  --enable_xformers_memory_efficient_attention\n",
                kind="launcher"),
        Invalid("from diffusers import UNet2DConditionModel\nif args.xformers:\n    unet.enable_xformers_memory_efficient_attention()\n    pipeline.enable_xformers_memory_efficient_attention()", count=2),
        Invalid("from diffusers.models.attention_processor import CustomDiffusionXFormersAttnProcessor as XP\nattention_class = XP", count=2),
        Invalid("import diffusers\nunet.set_attn_processor(diffusers.models.attention_processor.XFormersAttnProcessor())", count=1),
        # NX-AI/xlstm xlstm/xlstm_large/model.py:56-:65 and its demo notebook: mlstm_kernels' Triton kernels chosen by name
        Invalid('try:\n    from mlstm_kernels.torch.backend_module import mLSTMBackendConfig\nexcept ImportError:\n    raise\n'
                '@dataclass\nclass Config:\n    chunkwise_kernel: str = "chunkwise--triton_limit_chunk"\n'
                '    step_kernel: str = "triton"\ncfg = Config(sequence_kernel="native_sequence__triton", mode="inference")', count=3),
        # PKU-YuanGroup/Helios infer_helios.py:248-253: FlashAttention-3 / flash-attn 2 kernels from the Hub
        Invalid('from diffusers import ContextParallelConfig\ntry:\n    transformer.set_attention_backend("_flash_3_hub")\n'
                'except Exception:\n    transformer.set_attention_backend("flash_hub")\npipe.transformer.set_attention_backend(backend="sage")', count=3),
    ]

    def triggers(self, kb):
        options, calls = gpu_only_options()
        uses = {u.pattern if u.method else u.pattern.strip("*").split("*", 1)[0] for u in gpu_only_uses()}
        selectors = {value for _, values, _, _ in _package_selectors() for value in values}
        dashed = {o.key.replace("_", "-") for o in options if "_" in o.key}  # CLI spellings (`_launcher_pattern`)
        programs = set(package_commands.selecting_programs())  # `lm_eval --model vllm`
        return tuple({o.key for o in options} | dashed | {c.name for c in calls} | uses | selectors | programs)

    def check(self, ctx):
        if ctx.kind == "launcher":
            yield from self._check_lines(ctx)
            yield from self._backend_selections(ctx)
            return
        flagged: dict[str, tuple] = {}  # bare names whose uses were reported -> (why, package or None)
        yield from (finding for finding in self._python(ctx, flagged) if finding is not None)
        yield from self._imports_of(ctx, flagged)

    def _imports_of(self, ctx, flagged):
        """`from transformers import BitsAndBytesConfig`: the import of a name whose uses in this file
        are reported goes (or changes) with them; a warning, the uses are the work."""
        if not flagged:
            return
        for statement in ctx.nodes.get(ast.ImportFrom, ()):
            if statement.level:
                continue
            names = [alias.name for alias in statement.names if (alias.asname or alias.name) in flagged
                     and ctx.imports.get(alias.asname or alias.name) == f"{statement.module}.{alias.name}"]
            if not names:
                continue
            whys = "; ".join(dict.fromkeys(flagged[a.asname or a.name][0] for a in statement.names if a.name in names))
            packages = {flagged[a.asname or a.name][1] for a in statement.names if a.name in names}
            shown = ", ".join(f"`{name}`" for name in names)
            # one finding at the statement's first line, like every import finding (label rule (L16): a multi-line
            # `from transformers import (\n    BitsAndBytesConfig,\n    GPTQConfig)` is one import)
            yield self.finding(ctx, statement, f"imports {shown}, reported where {'it is' if len(names) == 1 else 'they are'} "
                               f"used ({whys}): the import changes with those lines", severity=Severity.WARNING,
                               package=packages.pop() if len(packages) == 1 else None)

    def _python(self, ctx, flagged):
        options, calls = gpu_only_options()
        roots = frozenset(v.split(".", 1)[0] for v in ctx.imports.values())
        for call in ctx.nodes.get(ast.Call, ()):
            gpu_call = self._gpu_call(ctx, call.func, calls)
            named = call.func
            lazy = lazy_type(ctx, call)
            if gpu_call is None and lazy is not None:
                # mmengine `dict(type=BitsAndBytesConfig, load_in_4bit=True, ...)`: a construction of the class
                # at the line naming it, its keywords the constructor's (migrate/lazy_constructions.py)
                gpu_call, named = self._gpu_call(ctx, lazy, calls), lazy
            if gpu_call is not None and gpu_call.guards and _under_availability_check(ctx, call, gpu_call.guards):
                continue  # `check_version("bitsandbytes>=0.39.0", mandatory=True)` before it: an optional path, options too
            if gpu_call is not None and _selects_nothing(ctx, call, gpu_call):
                continue
            for keyword in call.keywords if gpu_call is None else ():  # a reported config's options go with it
                if keyword.arg is not None:
                    option = _lookup(keyword.arg, _constant(keyword.value), roots)
                    if option is not None:
                        yield self._option_finding(ctx, keyword.value, option, _constant(keyword.value))
                    elif isinstance(keyword.value, ast.Dict):  # per sub-config: `{"vision_config": "flash_attention_2"}`
                        for value in keyword.value.values:
                            option = _lookup(keyword.arg, _constant(value), roots)
                            if option is not None:
                                yield self._option_finding(ctx, value, option, _constant(value))
                    elif isinstance(keyword.value, ast.IfExp) and not _own_parameter(ctx, call, keyword.arg) \
                            and not _repository_callee(ctx, call):
                        yield from self._conditional_finding(ctx, keyword.arg, keyword.value, roots)
                    elif _computed(keyword.value) and not _own_parameter(ctx, call, keyword.arg) \
                            and not _repository_callee(ctx, call):
                        yield from self._computed_finding(ctx, keyword.arg, keyword.value, roots)
            if isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument":
                yield from self._argparse_default(ctx, call, roots)
            if gpu_call is not None:
                if isinstance(named, ast.Name):
                    flagged[named.id] = (gpu_call.why, gpu_call.package or None)
                yield self.finding(ctx, call if named is call.func else named,
                                   f"`{gpu_call.name}` is {gpu_call.why}; NPU: {gpu_call.alternative}",
                                   package=gpu_call.package or None)
        yield from self._uses(ctx, roots, flagged)
        yield from self._parameter_defaults(ctx, roots)
        for node in ctx.nodes.get(ast.AnnAssign, ()):
            # a dataclass field default: `optim: str = field(default="paged_adamw_32bit")`
            if isinstance(node.target, ast.Name) and node.value is not None:
                value = node.value
                if isinstance(value, ast.Call) and ctx.keyword(value, "default") is not None:
                    value = ctx.keyword(value, "default")
                option = _lookup(node.target.id, _constant(value), roots)
                if option is not None:
                    yield self._option_finding(ctx, value, option, _constant(value))
        for node in ctx.nodes.get(ast.Dict, ()):
            lazy = lazy_type(ctx, node)
            gpu_call = self._gpu_call(ctx, lazy, calls) if lazy is not None else None
            if gpu_call is not None:
                # `{"type": BitsAndBytesConfig, "load_in_4bit": True}`: a lazy construction, its keys go with it
                if not (gpu_call.guards and _under_availability_check(ctx, node, gpu_call.guards)):
                    if isinstance(lazy, ast.Name):
                        flagged[lazy.id] = (gpu_call.why, gpu_call.package or None)
                    yield self.finding(ctx, lazy, f"`{gpu_call.name}` is {gpu_call.why}; NPU: {gpu_call.alternative}",
                                       package=gpu_call.package or None)
                continue
            for key, value in zip(node.keys, node.values):
                key_text = _constant(key)
                if isinstance(key_text, str):
                    option = _lookup(key_text, _section_switch(value), roots)
                    if option is not None:
                        yield self._option_finding(ctx, value, option, _section_switch(value))
                    elif isinstance(value, ast.IfExp) and any(
                            _constant(branch) is not None for branch in (value.body, value.orelse)):
                        # a keyword dict written out: `{"attn_implementation": "flash_attention_2" if
                        # args.use_flash_attention_2 else None}`, read as the same keyword (label ruling (L74))
                        yield from self._conditional_finding(ctx, key_text, value, roots)
        yield from self._reads(ctx, options, roots)
        for node in ctx.nodes.get(ast.Assign, ()):
            key = _mapped_option_key(ctx, node, roots)
            if key is not None and not _probed_test(ctx, node.value.test, key, roots):
                # `attn_impl = "flash_attention_2" if use_flash_attention_2 else "eager"`, then
                # `attn_implementation=attn_impl`: the line where the project turns its own switch into the
                # library's GPU-only value (label note 63b)
                yield from self._conditional_finding(ctx, key, node.value, roots)
            option = _literal_option(ctx, node, roots) if isinstance(node.value, ast.Constant) else None
            if option is not None:
                found = self._option_finding(ctx, node.value, option, node.value.value)
                if found is not None:
                    yield found
            for target in node.targets:
                # `args.optim = ...` and `kwargs["load_in_8bit"] = True` (keyword dicts built up key by key)
                key = target.attr if isinstance(target, ast.Attribute) else (
                    _constant(target.slice) if isinstance(target, ast.Subscript) else None)
                if isinstance(key, str):
                    option = _lookup(key, _section_switch(node.value), roots)
                    if option is not None:
                        yield self._option_finding(ctx, node.value, option, _section_switch(node.value))
                    elif isinstance(target, ast.Subscript) and _computed(node.value) and not _builds_an_object(node.value) \
                            and not _own_field(node.value, key):
                        # `model_kwargs["load_in_4bit"] = load_in_4bit`: a keyword dict built key by key
                        yield from self._computed_finding(ctx, key, node.value, roots)

    def _parameter_defaults(self, ctx, roots):
        """`def __init__(self, pretrain, attn_implementation="flash_attention_2", ...)`: a parameter's literal
        default is the value every caller that leaves it out hands on, read like a keyword (as an argparse default)."""
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.nodes.get(kind, ()):
                arguments = function.args
                positional = (*arguments.posonlyargs, *arguments.args)
                pairs = [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
                         *((a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)]
                for argument, default in pairs:
                    value = _constant(default)
                    option = _lookup(argument.arg, value, roots) if value is not None else None
                    if option is not None and _mapped_by(ctx, function, argument.arg, roots):
                        continue  # the function's own switch, turned into the library's value in its body (reported there)
                    if option is not None:
                        finding = self._option_finding(ctx, default, option, value)
                        if finding is not None:
                            yield finding

    def _conditional_finding(self, ctx, key, value, roots):
        """`attn_implementation="flash_attention_2" if flag else "eager"`: a branch of the conditional selects
        a GPU-only option value (a warning: GPU-only whenever that branch is taken, like a computed boolean);
        a conditional whose branches are not literals is read like any computed value."""
        branches = [_constant(node) for node in (value.body, value.orelse)]
        if all(branch is None for branch in branches):
            yield from self._computed_finding(ctx, key, value, roots)
            return
        for which, branch in zip((value.body, value.orelse), branches):
            option = _lookup(key, branch, roots) if branch is not None else None
            if option is not None and which is value.body and option.guards and (any(
                    fnmatchcase(name.lower(), guard) for name in _availability_names(value.test) for guard in option.guards)
                    or _attempt_value_test(ctx, value.test, option.guards)):
                return  # `"flash_attention_2" if is_flash_attn_2_available() else "sdpa"`: taken only where flash_attn is
            if option is not None:
                yield self.finding(
                    ctx, value,
                    f"`{key}={branch!r} if ... else ...` selects GPU-only code whenever that branch is taken ({option.why}); "
                    f"NPU: {option.alternative}",
                    severity=Severity.WARNING, package=option.package or None,
                )
                return

    def _computed_finding(self, ctx, key, value, roots):
        """A boolean option given a run-time value: GPU-only whenever it is true (a warning)."""
        option = _lookup(key, True, roots)
        if option is not None and (True in option.values or ANY_VALUE in option.values) and not _under_own_switch(ctx, value):
            yield self.finding(
                ctx, value,
                f"`{key}{COMPUTED_MARK} whenever it is true ({option.why}); NPU: {option.alternative}",
                severity=Severity.WARNING, package=option.package or None,
            )

    @staticmethod
    def _gpu_call(ctx, func, calls) -> GpuCall | None:
        """The data's GPU-only call (`BitsAndBytesConfig(...)`) the callee `func` names, if any."""
        name = ctx.qualname(func)
        if name is None:
            return _unbound_gpu_call(ctx, func, calls)
        for gpu_call in calls:
            if name.rsplit(".", 1)[-1] == gpu_call.name and name.split(".", 1)[0] in gpu_call.modules:
                return gpu_call
        return None

    def _reads(self, ctx, options, roots):
        """`if "gpus" in trainer_config:` and `trainer_config["gpus"]` (read or deleted): the code that
        decides GPU against CPU from a value-independent option (`reads = true` in the data)."""
        keys = {o.key: o for o in options if o.reads and roots.intersection(o.modules)}
        if not keys:
            return
        for node in ctx.nodes.get(ast.Compare, ()):
            key = _constant(node.left)
            if key in keys and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                yield self.finding(ctx, node.left, f"reads `{key}`, which {keys[key].why}; NPU: {keys[key].alternative}")
        for node in ctx.nodes.get(ast.Subscript, ()):
            key = _constant(node.slice)
            if key in keys and not isinstance(node.ctx, ast.Store) and not is_prose(ctx, node):
                yield self.finding(ctx, node, f"reads `{key}`, which {keys[key].why}; NPU: {keys[key].alternative}")

    def _uses(self, ctx, roots, flagged):
        """`unet.enable_xformers_memory_efficient_attention()` and `attention_class = XFormersProcessor`."""
        uses = [u for u in gpu_only_uses() if roots.intersection(u.modules)]
        if not uses:
            return
        methods = {u.pattern: u for u in uses if u.method}
        names = [u for u in uses if not u.method]
        for call in ctx.nodes.get(ast.Call, ()):
            if isinstance(call.func, ast.Attribute) and call.func.attr in methods and not is_prose(ctx, call):
                use = methods[call.func.attr]
                if use.guards and _under_availability_check(ctx, call, use.guards):
                    continue  # `if is_xformers_available(): unet.enable_xformers_memory_efficient_attention()`
                if not use.values:
                    yield self.finding(ctx, call.func, f"`{call.func.attr}()` turns on {use.why}; NPU: {use.alternative}")
                    continue
                value = _method_argument(ctx, call, use.keyword)
                if value in use.values:
                    yield self.finding(ctx, call.func, f'`{call.func.attr}("{value}")` turns on {use.why}; NPU: {use.alternative}')
        if not names:
            return
        for node in (*ctx.nodes.get(ast.Name, ()), *ctx.nodes.get(ast.Attribute, ())):
            if not isinstance(node.ctx, ast.Load) or isinstance(ctx.parent(node), ast.Attribute):
                continue
            name = ctx.qualname(node)
            if name is None or name.split(".", 1)[0] not in roots:
                continue
            last = name.rsplit(".", 1)[-1]
            for use in names:
                if name.split(".", 1)[0] in use.modules and fnmatchcase(last, use.pattern) and not is_prose(ctx, node):
                    if use.guards and _under_availability_check(ctx, node, use.guards):
                        break  # `elif is_xformers_available(): proc = XFormersAttnProcessor()`: an optional path
                    if isinstance(node, ast.Name):
                        flagged[node.id] = (use.why, None)
                    yield self.finding(ctx, node, f"`{last}` is {use.why}; NPU: {use.alternative}")
                    break

    def _argparse_default(self, ctx, call, roots):
        """`parser.add_argument("--optim", default="paged_adamw_32bit")`: the flag's default selects it."""
        default = ctx.keyword(call, "default")
        if default is None:
            return
        for arg in call.args:
            flag = ctx.string_value(arg)
            if flag and flag.startswith("--"):
                # `--ds.attn_implementation`: a dotted (nested-config) flag names the option by its last part
                option = _lookup(flag[2:].replace("-", "_").rsplit(".", 1)[-1], _constant(default), roots)
                if option is not None:
                    yield self._option_finding(ctx, default, option, _constant(default))
                return

    def _option_finding(self, ctx, node, option: GpuOption, value):
        """The finding for a literal option value; None where it is set only under an availability check of the
        package it needs (`if is_flash_attn_2_available(): ... attn_implementation="flash_attention_2"`, ChatTTS
        gpt.py): the program takes that path only where the package is, like an import under such a check (NPU501);
        None too where a library's config class passes on its own switch (`_under_own_switch`)."""
        if option.guards and _under_availability_check(ctx, node, option.guards):
            return None
        if not isinstance(node, tuple) and (_under_own_switch(ctx, node) or _expected_to_fail(ctx, node)
                                            or _tried_with_fallback(ctx, node, option.key, value)):
            return None
        shown = value if isinstance(value, str) else str(value)
        if not isinstance(node, tuple) and _environment_default(node) is not None:
            node = _environment_default(node)  # the default's line: the literal to change
        return self.finding(ctx, node, f"`{option.key}={shown}` selects GPU-only code ({option.why}); NPU: {option.alternative}",
                            package=option.package or None)

    def _backend_selections(self, ctx):
        """`lm_eval --model vllm`: another program's option that makes it run a GPU-only package as its backend
        (knowledge `selected_by`, migrate/package_commands.py)."""
        table = knowledge.third_party()
        for selection in package_commands.backend_selections(ctx.lines):
            entry = table[selection.package]
            text = (f"`{selection.option}` makes `{selection.program}` run `{selection.package}` as its backend, which "
                    f"targets NVIDIA GPUs ({entry.status} on Ascend NPU)")
            if entry.alternative:
                text += f"; NPU alternative: {entry.alternative}"
            yield self.finding(ctx, (selection.line, selection.start, selection.line, selection.end), text,
                               severity=Severity.parse(entry.severity), package=selection.package)

    def _check_lines(self, ctx):
        for number, match in shell_matches(ctx.lines, _launcher_pattern()):
            if match.group("ykey"):
                key, raw, start, end = match.group("ykey"), match.group("yval"), match.start("yval"), match.end("yval")
            else:
                key, raw = match.group("ckey").replace("-", "_"), match.group("cval")
                value_given = raw is not None and not raw.startswith("-")
                if not value_given:
                    raw = "true"  # a bare boolean flag
                start, end = match.start(), (match.end("cval") if value_given else match.end("ckey"))
            value = _text_value(raw)
            option = _lookup(key, value, parent=_yaml_parent(ctx.lines, number) if match.group("ykey") else None)
            if option is not None:
                yield self._option_finding(ctx, (number, start, number, end), option, value)


def _unbound_gpu_call(ctx, func, calls) -> GpuCall | None:
    """A bare call of the data's class name that the file never binds (no import, assignment, definition or star
    import of it) in a file importing one of the class's libraries: InvSR's trainer.py calls `BitsAndBytesConfig(
    load_in_4bit=True, ...)` under its `model_quantization` switch with only `from diffusers import ...` above (a
    NameError as written, meant as diffusers' class). The construction is the label, at the call's first line, its
    keywords going with it (label rulings (L29), (L74); label note 68a unclear 2)."""
    if not isinstance(func, ast.Name) or ctx.star_modules:
        return None
    matching = [c for c in calls if c.name == func.id]
    if not matching:
        return None
    roots = {v.split(".", 1)[0] for v in ctx.imports.values()}
    matching = [c for c in matching if roots.intersection(c.modules)]
    if not matching or func.id in ctx.imports:
        return None
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Name) and node.id == func.id and not isinstance(node.ctx, ast.Load):
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == func.id:
            return None
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".", 1)[0]) == func.id for a in node.names):
            return None
        if isinstance(node, ast.arg) and node.arg == func.id:
            return None
    return matching[0]

