"""A project's own option value that selects its GPU-only code path (NPU503, label rule 39d-4).

A repository compares one of its config values with a literal and runs GPU-only code in the branch taken:

    if self.attn_impl == "flash":                    # modeling.py
        info = gen_flash_attn_padding_info(...)      # a function of this file importing flash_attn (NPU501/507)
    elif self.attn_impl == "torch": ...

    if config.use_flash_attn:                        # a boolean switch
        from flash_attn.modules.mha import MHA

The lines that SET that key to that value pick the GPU-only path: `attn_impl: flash` in a YAML config,
`--use_flash_attn` / `--attn_impl flash` / `model.attn_impl=flash` in a launcher, `def __init__(self, attn_impl="flash")`,
`{"attn_impl": "flash"}`, `Model(use_flash_attn=True)`, `use_flash_attn: bool = True` in a dataclass. Each is reported
(warning) as the repository's own form of `attn_implementation="flash_attention_2"`.

Recorded per file as facts (the comparisons: key, value, branch lines and the names the branch calls; the same file's
functions those names are; the settings: key, value, line), decided after the scan from the findings: a branch selects
a GPU-only path when it holds (or a function of its file that it calls holds) a GPU-only import, use or extension call
(NPU501 / NPU507 / NPU508, not an optional one). A value is reported only where ANOTHER value of the same key takes a
branch without such a finding (an `elif attn_impl == "torch":` / `else:` path; a boolean's off side, unless its `else:`
is GPU-only too): a value that only switches between two of the project's own GPU-only paths (nvdiffrast's
`context_type: cuda` vs `gl`) is no option to change (label rule 39d-2). Keys too generic to be one option
(`device`, `type`, `name`, `mode`, ...) are not read: a device choice is NPU1xx's.

A guarded import is no finding (optional), yet a branch may still need it: `try: from flash_attn... import f` / `except
ImportError: f = None`, then `if cfg.fused_loss: if f is not None: ... else: raise NameError(...)` (or `assert f is not
None`, or `if cfg.fused_dense and FusedDense is None: raise`). Such a branch (kind "cfgneeds", why: the try's modules)
selects a GPU-only path where a module of that try is a GPU-only package of NPU501's catalogue (not partial, not one
the repository vendors with its kernels): label rules 40d-11, 40d-4, 38c-4. An argparse flag's other spellings set its
dest (kind "cfgalias": `--use-flash-attn` for `dest="use_flash_attn_v1"`).
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re

from migrate.context import walk_nodes
from migrate.repo_index import Definition

CODES = frozenset({"NPU501", "NPU507", "NPU508"})  # the GPU-only findings a branch may hold
_GENERIC = frozenset({"device", "device_type", "type", "name", "mode", "kind", "dtype", "accelerator", "split", "task",
                      "stage", "phase", "training", "verbose", "debug", "args", "self", "cfg", "config", "key", "value",
                      "impl", "backend", "method", "model", "version", "platform", "os", "sys", "cuda", "gpu"})
_TRUE = "True"
_MAX_CALLS = 40


def _key(node) -> str | None:
    """`attn_impl`, `self.attn_impl`, `cfg["attn_impl"]` -> "attn_impl"; None for anything else."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        name = node.slice.value
    else:
        return None
    return name if len(name) > 3 and name.lower() not in _GENERIC and re.fullmatch(r"\w+", name) else None


def _tested(test) -> list[tuple[str, str]]:
    """(key, value) pairs an `if` test selects: `k == "v"`, `k in ("v", "w")`, `"v" in k` (a list option holding the
    value), a bare `k` (value "True"), an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        pairs = [pair for value in test.values for pair in _tested(value)]
        compared = [pair for pair in pairs if pair[1] != _TRUE]
        return compared or pairs  # `if self.rope and self.rope_impl == "dail":` selects by rope_impl
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], ast.Eq):
            if isinstance(left, ast.Constant):
                left, right = right, left
            key = _key(left)
            if key and isinstance(right, ast.Constant) and isinstance(right.value, str) and right.value:
                return [(key, right.value)]
        if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            key = _key(left)
            values = [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if key and values and len(values) == len(right.elts):
                return [(key, v) for v in values]
        if isinstance(test.ops[0], ast.In) and isinstance(left, ast.Constant) and isinstance(left.value, str) and left.value:
            key = _key(right)  # `if 'engine' in include:`: a value of a list option (`nargs='+'`) chosen by its user
            if key:
                return [(key, left.value)]
        return []
    key = _key(test) if isinstance(test, (ast.Name, ast.Attribute)) else None
    return [(key, _TRUE)] if key else []


def _short_switch(test) -> bool:
    """A bare boolean switch whose name is too short to be read as an option (`if self.config.fp8:`, `if amp:`): the
    branch is still a selection of its own, so a GPU-only use inside it does not count for a caller's branch (qwen3-vl's
    `_checkpointed_forward`, taken for `recompute_granularity == "full"`, calls TE's checkpoint only under `fp8`)."""
    name = test.attr if isinstance(test, ast.Attribute) else test.id if isinstance(test, ast.Name) else None
    return bool(name) and len(name) <= 3 and name.lower() not in _GENERIC and re.fullmatch(r"\w+", name) is not None


def _switch_names(test) -> list[str] | None:
    """The names of a test built only of bare names (`int4 or int8`, `not a and b`), None for any other test."""
    if isinstance(test, ast.Name):
        return [test.id]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _switch_names(test.operand)
    if isinstance(test, ast.BoolOp):
        names = [_switch_names(value) for value in test.values]
        return None if any(n is None for n in names) else [name for n in names for name in n]
    return None


def _parameter_switches(nodes, tests: dict[int, list[str]]) -> set[int]:
    """The `if` statements (ids, among `tests`: id -> the names their test reads) whose test reads only parameters of
    the function holding them: `def find_all_linear_names(model, int4=False, int8=False): if int4 or int8: import
    bitsandbytes` is chosen by the caller's arguments (`int4=args.load_in_4bit`), a selection of its own, not by the
    branch that calls the function (MedicalGPT's `if args.use_peft:` reaches bitsandbytes only when load_in_4bit /
    8bit is set, labeller note 57b)."""
    wanted = {name for names in tests.values() for name in names}
    out: set[int] = set()
    for function in [*nodes.get(ast.FunctionDef, ()), *nodes.get(ast.AsyncFunctionDef, ())]:
        arguments = function.args
        parameters = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        if not parameters & wanted:
            continue
        stack = list(function.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue  # a nested function's own parameters decide there
            if id(node) in tests and set(tests[id(node)]) <= parameters:
                out.add(id(node))
            stack.extend(ast.iter_child_nodes(node))
    return out


def _calls(statements) -> list[str]:
    """The first `_MAX_CALLS` distinct names called in `statements`, in walk order: the walk stops at the last one
    (nested branches walk their bodies again: torch's modules of long `if` chains walked ~450k nodes here)."""
    names: dict[str, None] = {}
    for statement in statements:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if name and name not in names:
                    names[name] = None
                    if len(names) == _MAX_CALLS:
                        return list(names)
    return list(names)


def _raises(statements) -> bool:
    return isinstance(statements[-1], ast.Raise)


def _test_file(path: str) -> bool:
    """A test module: its settings exercise each path of the option, no user runs them as a configuration."""
    parts = path.replace("\\", "/").split("/")
    return any(p in ("tests", "test") for p in parts[:-1]) or parts[-1].startswith("test_") or parts[-1].endswith("_test.py")


def _span(statements) -> tuple[int, int]:
    return statements[0].lineno, statements[-1].end_lineno or statements[-1].lineno


def _value(node) -> str | None:
    if isinstance(node, ast.Constant) and node.value is True:
        return _TRUE
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value and len(node.value) < 60:
        return node.value
    return None


# where a setting is written: a config file or launcher line, a dataclass field, a dict entry, an argparse option (each
# a config field by itself), or a parameter default / call keyword, which counts only for a key that is a config field
# somewhere in the repository: `def apply(q, layout="interleaved")` or `attn(q, k, is_causal=True)` in library-style op
# code passes a function's argument, no option a user sets
_FIELD, _ARGUMENT = "field", "argument"


def _setting(out: list, key: str | None, node, path: str, where: str = _FIELD) -> None:
    value = _value(node)
    if key and value is not None and len(key) > 3 and key.lower() not in _GENERIC:
        out.append(Definition("cfgset", f"{key}={value}", path, node.lineno, False, why=where))


# an optional import's stand-in: `try: from flash_attn... import f` / `except ImportError: f = None`; a branch that raises
# or asserts where the stand-in is None (`assert f is not None, "..."`, `if f is None: raise`, `if f is not None: ...
# else: raise`, `if cfg.fused and f is None: raise` as the option's own test) needs the import: it is GPU-only where the
# import is (label rules 40d-11, 40d-4, 40b-5); a stand-in the code falls back from (`if f is not None: fast else: slow`)
# is no such need (OLMo's `flash_attention`, label rule 40d-11)
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _none(node) -> bool:
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_none(e) for e in node.elts)
    return isinstance(node, ast.Constant) and node.value is None


def _standins(walked) -> dict[str, tuple[int, int, str]]:
    """name -> the lines of the `try:` body whose failed import binds the name to None, and the modules it imports."""
    out: dict[str, tuple[int, int, str]] = {}
    for node in walked:
        if not isinstance(node, ast.Try) or not any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body):
            continue
        modules = [alias.name for s in node.body if isinstance(s, ast.Import) for alias in s.names]
        modules += [f"{s.module}.{alias.name}" for s in node.body if isinstance(s, ast.ImportFrom) and s.module
                    and not s.level for alias in s.names]
        span = (*_span(node.body), ",".join(modules))
        for handler in node.handlers:
            caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            if handler.type is not None and not any(isinstance(c, ast.Name) and c.id in _IMPORT_ERRORS for c in caught):
                continue
            for statement in handler.body:
                if isinstance(statement, ast.Assign) and _none(statement.value):
                    for target in statement.targets:
                        for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                            if isinstance(name, ast.Name):
                                out[name.id] = span
    return out


def _missing(test, standins, present: bool) -> list[str]:
    """The stand-ins `test` finds missing (present=False: `f is None`, `not f`) or present (`f is not None`, `f`)."""
    if isinstance(test, ast.BoolOp):  # `assert a is not None or b is not None` needs neither one
        if present and isinstance(test.op, ast.Or):
            return []
        return [name for value in test.values for name in _missing(value, standins, present)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _missing(test.operand, standins, not present)
    if isinstance(test, ast.Name):
        return [test.id] if present and test.id in standins else []
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id in standins and _none(test.comparators[0]):
        op = test.ops[0]
        return [test.left.id] if isinstance(op, (ast.IsNot, ast.NotEq) if present else (ast.Is, ast.Eq)) else []
    return []


def _needed(statements, standins) -> list[str]:
    """The stand-ins these statements raise or assert on when None (not inside a branch on another option)."""
    names: list[str] = []
    for statement in statements:
        if isinstance(statement, ast.Assert):
            names += _missing(statement.test, standins, True)
        elif isinstance(statement, ast.If):
            checked = _missing(statement.test, standins, False) if _raises(statement.body) else []
            if statement.orelse and _raises(statement.orelse):
                checked += _missing(statement.test, standins, True)
            names += checked
            if checked or not _tested(statement.test):
                names += _needed(statement.body, standins) + _needed(statement.orelse, standins)
        elif isinstance(statement, (ast.With, ast.Try)):
            names += _needed(statement.body, standins)
    return names


def python_facts(tree, path: str, nodes=None) -> list[Definition]:
    """The comparisons (kind "cfgbranch": name `key=value`, why `last:call,call`; an `else:` as `key=!value`), the
    functions a branch calls (kind "cfgfunc", why: last line) and the settings (kind "cfgset") of a module."""
    if nodes is None:  # by type, in `ast.walk` order (context.index_tree's shape)
        nodes = {}
        for node in walk_nodes(tree):
            nodes.setdefault(type(node), []).append(node)
    out: list[Definition] = []
    called: set[str] = set()
    compared = False
    standins = _standins(nodes.get(ast.Try, ()))
    switch_tests = {id(node): names for node in nodes.get(ast.If, ()) if not isinstance(node.test, ast.Constant)
                    and (names := _switch_names(node.test)) and not _tested(node.test)}
    parameter_switches = _parameter_switches(nodes, switch_tests) if switch_tests else set()
    for node in nodes.get(ast.If, ()):
        if not isinstance(node.test, ast.Constant):
            pairs = _tested(node.test)
            if not pairs:
                # `if self.config.fp8:` or a function's `if int4 or int8:` on its own parameters: a selection of its
                # own, read as no option
                if _short_switch(node.test) or id(node) in parameter_switches:
                    first, last = _span(node.body)
                    out.append(Definition("cfggate", "", path, first, False, why=str(last)))
                continue
            if standins:  # the branch needs an optional import (kind "cfgneeds", why: the `try:` body's lines)
                needed = _needed(node.body, standins)
                if _raises(node.body):  # `if cfg.fused_dense and FusedDense is None: raise ...`
                    needed = _missing(node.test, standins, False)
                    pairs = [pair for pair in pairs if pair[0] not in needed]
                for name in dict.fromkeys(needed):
                    modules = standins[name][2]
                    for key, value in pairs if modules else ():
                        out.append(Definition("cfgneeds", f"{key}={value}", path, node.lineno, False, why=modules))
            if _raises(node.body):
                continue
            compared = True
            first, last = _span(node.body)
            calls = _calls(node.body)
            called.update(calls)
            for key, value in pairs:
                out.append(Definition("cfgbranch", f"{key}={value}", path, first, False, why=f"{last}:{','.join(calls)}"))
            if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)) \
                    and not _raises(node.orelse):  # `else: raise ValueError(...)` is no path that works
                first, last = _span(node.orelse)
                calls = _calls(node.orelse)
                called.update(calls)
                for key, value in pairs:
                    out.append(Definition("cfgbranch", f"{key}=!{value}", path, first, False,
                                          why=f"{last}:{','.join(calls)}"))
    for node in [*nodes.get(ast.FunctionDef, ()), *nodes.get(ast.AsyncFunctionDef, ()), *nodes.get(ast.Dict, ()),
                 *nodes.get(ast.Call, ()), *nodes.get(ast.AnnAssign, ())]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if compared and node.name in called:
                out.append(Definition("cfgfunc", node.name, path, node.lineno, False, why=str(node.end_lineno or node.lineno)))
            arguments = node.args
            positional = arguments.posonlyargs + arguments.args
            for arg, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
                _setting(out, arg.arg, default, path, _ARGUMENT)
            for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
                if default is not None:
                    _setting(out, arg.arg, default, path, _ARGUMENT)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    _setting(out, key.value, value, path)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg and keyword.arg != "default":
                    _setting(out, keyword.arg, keyword.value, path, _ARGUMENT)
            _argparse_default(out, node, path)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Call) and any(k.arg == "default" for k in value.keywords):
                value = next(k.value for k in value.keywords if k.arg == "default")  # `field(default=...)`
            _setting(out, node.target.id, value, path)
    return out


def _argparse_default(out: list, call, path: str) -> None:
    """`parser.add_argument("--attn_impl", default="flash")` -> the setting at the default."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "add_argument" and call.args):
        return
    flag = call.args[0]
    if not (isinstance(flag, ast.Constant) and isinstance(flag.value, str) and flag.value.startswith("--")):
        return
    out.append(Definition("cfgarg", flag.value[2:].replace("-", "_"), path, call.lineno, False))  # the script's option
    # `add_argument("--use-flash-attn", "--use-flash-attn-v1", dest="use_flash_attn_v1")`: the code tests the dest, a
    # launcher may set any of the flags (kind "cfgalias", name `flag=dest`)
    flags = [a.value[2:].replace("-", "_") for a in call.args
             if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]
    dest = next((k.value.value for k in call.keywords if k.arg == "dest" and isinstance(k.value, ast.Constant)
                 and isinstance(k.value.value, str)), flags[0])
    action = next((k.value.value for k in call.keywords if k.arg == "action" and isinstance(k.value, ast.Constant)), None)
    for name in flags if action in (None, "store", "store_true") else ():  # `--no-x` (store_false) turns x off
        if name != dest:
            out.append(Definition("cfgalias", f"{name}={dest}", path, call.lineno, False))
    default = next((k.value for k in call.keywords if k.arg == "default"), None)
    if default is not None:
        _setting(out, flag.value[2:].replace("-", "_"), default, path)


# `attn_impl: flash` (a YAML mapping line), `--attn_impl flash` / `--attn_impl=flash` / `--use_flash_attn` (a flag),
# `model.attn_impl=flash` (a Hydra override)
_YAML = re.compile(r"^[ \t]*(?:-[ \t]+)?([A-Za-z_]\w*)[ \t]*:[ \t]*['\"]?([\w.+-]+)['\"]?[ \t]*(?:#.*)?$")
_FLAG = re.compile(r"(?:^|[ \t'\"])--([A-Za-z_][\w-]*)(?:(?:=|[ \t]+)['\"]?([\w.+-]+)['\"]?)?(?=[ \t'\"\\]|$)")
_OVERRIDE = re.compile(r"(?:^|[ \t'\"])(?:[\w]+\.)*([A-Za-z_]\w*)=['\"]?([\w.+-]+)['\"]?(?=[ \t'\"\\]|$)")


# a launcher's flag is the option of the script its command runs (`torchrun ... train_sft.py --use_flash_attn`): where
# that script of the repository declares the flag (argparse), only the script's own branches on it decide (label rule
# 37e-10: the same `--use_flash_attn` maps to HF flash_attention_2 in one script, an NPU-aware kernel in another); a GPU-
# only library option value in the branch (NPU503, `attn_implementation="flash_attention_2"`) is such a path too
_SCRIPT = re.compile(r"([\w./-]+\.py)(?=[ \t'\"]|$)")
_SCRIPT_OF = "script:"
# a shell variable a launcher sets (`export FLASH=0`, `FLASH="0"`) and its uses (`--use-flash $FLASH`, `${FLASH}`): the
# flag's value is the one the script itself assigned last above the line (run_mtbench.sh's `--use-flash $FLASH` with
# `export FLASH=0`: 0, not a bare flag read as true); a variable the script never assigns stays as written
_SHELL_SET = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=(['\"]?)([\w.+-]*)\2[ \t]*(?:#.*)?$")
_SHELL_USE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
# values that are the flag's own argument, never a positional after a bare flag (`--use-flash 0`)
_SWITCH_VALUES = frozenset({"0", "1", "true", "false", "True", "False", "yes", "no"})


def _scalar(value: str) -> str:
    return _TRUE if value in ("true", "True") else value


_CELL = "cell "  # the mode of a notebook cell's setting: `cell 30`


def launcher_facts(path: str, text: str, cell: int | None = None) -> list[Definition]:
    """The settings of a YAML config or a launcher (kind "cfgset") and the scripts a launcher names (kind "cfgruns");
    a notebook's shell lines (`!python export.py --include engine`) as a launcher's, each setting with its `cell`."""
    out = _launcher_facts(path, text)
    if cell is None:
        return out
    return [dataclasses.replace(d, mode=f"{_CELL}{cell}") for d in out if d.kind == "cfgset"]


def _overridden_yaml_lines(text: str) -> set[int]:
    """Lines of a YAML file whose key the same mapping sets again further down: a YAML loader keeps the last value of a
    duplicated key (PyYAML's constructor fills the mapping in order; yacs/fvcore configs load with it), so the earlier
    line selects nothing (facebookresearch/SlowFast's `NORM_TYPE: "sync_batchnorm_apex"` right above `NORM_TYPE:
    "sync_batchnorm"` under `BN:`; label note 49d d-1). A mapping is the run of keys at one indentation below one
    parent line (a key, or a `- ` list item, which opens a mapping of its own)."""
    stack: list[tuple[int, int]] = []  # (indentation, line) of the open parents
    seen: dict[tuple[int, str], int] = {}  # (parent line, key) -> the line setting it last
    overridden: set[int] = set()
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith(("#", "---", "...")):
            continue
        indent = len(line) - len(stripped)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stripped.startswith("- "):  # a list item: a new mapping, its first key after the dash
            stack.append((indent, number))
            stripped = stripped[2:].lstrip()
            indent = len(line) - len(stripped)
        key = re.match(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|$)", stripped)
        if key is None:
            continue
        parent = stack[-1][1] if stack else 0
        earlier = seen.get((parent, key.group(1)))
        if earlier is not None:
            overridden.add(earlier)
        seen[(parent, key.group(1))] = number
        stack.append((indent, number))
    return overridden


def _launcher_facts(path: str, text: str) -> list[Definition]:
    out: list[Definition] = []
    yaml = path.endswith((".yaml", ".yml"))
    overridden = _overridden_yaml_lines(text) if yaml else set()
    script = ""  # the Python script the current command runs (a `\`-continued command keeps it)
    variables: dict[str, str] = {}  # the shell variables the launcher has set so far
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        if not yaml and "=" in line:
            assigned = _SHELL_SET.match(line)
            if assigned:
                variables[assigned.group(1)] = assigned.group(3)
        if not yaml and "$" in line and variables:
            line = _SHELL_USE.sub(lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), line)
        if not yaml:
            named = _SCRIPT.findall(line)
            if named:
                script = named[-1].lstrip("./")
                # every script the launcher runs (kind "cfgruns"): a framework's own flags are read where the launcher
                # runs one of its entry points, wherever in the file they are set (migrate/launcher_flags.py)
                out.extend(Definition("cfgruns", name, path, number, False) for name in dict.fromkeys(named))
        if yaml:
            match = _YAML.match(line)
            if match and number not in overridden:
                key, value = match.group(1), _scalar(match.group(2))
                if len(key) > 3 and key.lower() not in _GENERIC:
                    out.append(Definition("cfgset", f"{key}={value}", path, number, False))
            continue
        for match in _FLAG.finditer(line):
            key = match.group(1).replace("-", "_")
            value = match.group(2)
            if value is None or value.startswith("-"):
                value = _TRUE
            if len(key) > 3 and key.lower() not in _GENERIC:
                where = f"{_SCRIPT_OF}{script}" if script else ""
                out.append(Definition("cfgset", f"{key}={_scalar(value)}", path, number, False, why=where))
                # a flag then an argument (`--use_flash_attn data/`), not `--fused_loss=false`
                if match.group(2) and not match.group(2).startswith("-") and "=" not in match.group(0) \
                        and match.group(2) not in _SWITCH_VALUES:
                    out.append(Definition("cfgset", f"{key}={_TRUE}", path, number, False, why=where))
        for match in _OVERRIDE.finditer(line):
            key, value = match.group(1), _scalar(match.group(2))
            if len(key) > 3 and key.lower() not in _GENERIC and not key.isupper():
                out.append(Definition("cfgset", f"{key}={value}", path, number, False))
        if not yaml and not line.rstrip().endswith("\\"):
            script = ""
    return out


def report(results: list) -> list:
    """`results` with an NPU503 finding at each setting of a key to a value whose branch is GPU-only (see above)."""
    from migrate.findings import Category, Finding, Severity

    branches: list[tuple[str, str, int, int, list[str]]] = []  # (path, key=value, first, last, calls)
    functions: dict[tuple[str, str], list[tuple[int, int]]] = {}
    gates: dict[str, list[tuple[int, int]]] = {}  # path -> spans of short switches' branches (`if self.config.fp8:`)
    settings: dict[str, list[tuple[str, int, str]]] = {}
    declared: dict[str, set[str]] = {}  # script path -> its argparse options
    needs: list[tuple[str, str]] = []  # (key=value, the modules of the `try:` whose stand-in the branch needs)
    aliases: dict[str, set[str]] = {}  # a flag -> the argparse dests it sets
    for result in results:
        test_file = None  # asked once per file, at its first setting
        # filtered in one comprehension: the loop below sees a file's few option facts, not its every fact (~87k on torch)
        for fact in [fact for fact in result.facts or () if fact[0] == "def" and fact[1][:3] == "cfg"]:
            if fact[1] == "cfgbranch":
                last, _, calls = fact[5].partition(":")
                branches.append((result.path, fact[2], fact[3], int(last), calls.split(",") if calls else []))
            elif fact[1] == "cfgfunc":
                functions.setdefault((result.path, fact[2]), []).append((fact[3], int(fact[5])))
            elif fact[1] == "cfggate":
                gates.setdefault(result.path, []).append((fact[3], int(fact[5])))
            elif fact[1] == "cfgarg":
                declared.setdefault(result.path, set()).add(fact[2])
            elif fact[1] == "cfgneeds":
                needs.append((fact[2], fact[5]))
            elif fact[1] == "cfgalias":
                flag, _, dest = fact[2].partition("=")
                aliases.setdefault(flag, set()).add(dest)
            elif fact[1] == "cfgset" and not (test_file if test_file is not None else (test_file := _test_file(result.path))):
                settings.setdefault(fact[2], []).append((result.path, fact[3], fact[5] if len(fact) > 5 else "",
                                                         int(fact[6][len(_CELL):]) if len(fact) > 6 and fact[6].startswith(_CELL) else None))
    if not branches or not settings:
        return results
    gpu_lines: dict[str, list[int]] = {}
    option_lines: dict[str, list[int]] = {}  # NPU503 lines: a library's GPU-only option value
    warning = Severity.WARNING  # read once: an enum member's lookup is a descriptor call (~40k findings on torch)
    for result in results:
        if result.path in declared:  # read only for a script's own argparse option (`in_script` below)
            option_lines[result.path] = [f.line for f in result.findings if f.code == "NPU503"]
        # a package with an Ascend backend of its own (a "partial" entry, NPU501 at warning: liger_kernel) leaves the
        # value a path that runs on the NPU: no GPU-only branch (label rule 37e-11)
        lines = [f.line for f in result.findings if f.code in CODES and not f.optional
                 and not (f.code == "NPU501" and f.severity == warning)]
        if lines:
            gpu_lines[result.path] = lines
    selected: set[str] = set()  # key=value whose branch is GPU-only
    # a branch needing an optional import (an availability check that raises) is GPU-only where the import's package
    # is (NPU501's table, a "partial" entry not: it runs on the NPU in part): the import itself is no finding (optional)
    # a package the repository vendors with its kernels (VideoMamba's mamba/mamba_ssm) is its own code: the option then
    # selects the project's own kernels, no library's GPU-only path (label rule 38c-4)
    from migrate.own_package import vendored_with_kernels

    vendored = vendored_with_kernels(results) if needs else frozenset()
    for pair, modules in needs:
        if any(_gpu_only(module) and module.split(".", 1)[0] not in vendored for module in modules.split(",") if module):
            selected.add(pair)
    plain: set[str] = set()  # keys with a branch (a value or an `else:`) holding no GPU-only finding
    gpu_else: set[str] = set()  # keys whose `else:` is GPU-only too (a boolean's off side is then no way out)
    spans_in: dict[str, list[tuple[int, int]]] = {}
    for path, _, first, last, _ in branches:
        spans_in.setdefault(path, []).append((first, last))
    for path, spans in gates.items():  # selections too: a called function's use inside one is not the caller's
        spans_in.setdefault(path, []).extend(spans)

    def innermost(path: str, line: int) -> tuple[int, int] | None:
        around = [s for s in spans_in.get(path, ()) if s[0] <= line <= s[1]]
        return min(around, key=lambda s: s[1] - s[0]) if around else None

    # sorted, so each branch looks only at the lines inside it (a large file has thousands of branches and findings)
    sorted_gpu = {path: sorted(lines) for path, lines in gpu_lines.items()}
    in_script: set[tuple[str, str]] = set()  # (script, key=value) whose branch in that script is GPU-only
    for path, pair, first, last, calls in branches:
        lines = sorted_gpu.get(path, ())
        key, _, value = pair.partition("=")
        # a finding counts for the branch it sits in directly, or in a called function outside any selection of its own
        # (`if self.rope:` calling a function that picks `rope_impl == "dail"` selects nothing GPU-only by itself)
        gpu = any(innermost(path, line) == (first, last) for line in _within(lines, first, last)) or any(
            innermost(path, line) in (None, (first, last))
            for name in calls for a, b in functions.get((path, name), ()) for line in _within(lines, a, b))
        # the script's own argparse option: the branch holds the finding, or calls the function of its file that does
        # (export.py's `if 'engine' in include: export_engine(...)`, whose body imports tensorrt)
        if key in declared.get(path, ()) and (_within(lines, first, last) or (gpu and not value.startswith("!"))
                                              or any(first <= line <= last for line in option_lines.get(path, ()))):
            in_script.add((path, pair))
        if gpu and value.startswith("!"):
            gpu_else.add(key)
        elif gpu:
            selected.add(pair)
        else:
            plain.add(key)
    chosen = {pair for pair in selected if pair.partition("=")[0] not in gpu_else
              and (pair.endswith("=" + _TRUE) or pair.partition("=")[0] in plain)}
    scripted = {pair for _, pair in in_script}
    if not chosen and not scripted:
        return results
    # the option names some setting sets other than as an argument's default: read only where a value is chosen
    fields = {pair.partition("=")[0] for pair, sites in settings.items() if any(s[2] != _ARGUMENT for s in sites)}
    paths = [result.path for result in results]
    added: dict[str, list] = {}
    for pair in chosen | scripted:
        key, _, value = pair.partition("=")
        flags = [flag for flag, dests in aliases.items() if dests == {key}]  # `--use-flash-attn` for use_flash_attn_v1
        for path, line, where, cell in [*settings.get(pair, ()), *(s for f in flags for s in settings.get(f"{f}={value}", ()))]:
            if where.startswith(_SCRIPT_OF):
                script = _script(where[len(_SCRIPT_OF):], path, paths)
                if script and pair.partition("=")[0] in declared.get(script, ()):
                    if (script, pair) in in_script:
                        added.setdefault(path, []).append((cell if cell is not None else -1, line, pair))
                    continue
            if pair in chosen and (where != _ARGUMENT or pair.partition("=")[0] in fields):
                added.setdefault(path, []).append((cell if cell is not None else -1, line, pair))
    out = []
    for result in results:
        sites = added.get(result.path)
        if sites:
            taken = {(f.cell if f.cell is not None else -1, f.line) for f in result.findings if f.code == "NPU503"}
            new = []
            for cell, line, pair in sorted(set(sites)):
                if (cell, line) in taken:
                    continue
                taken.add((cell, line))
                key, _, value = pair.partition("=")
                new.append(Finding(result.path, line, 1, line, 1, "NPU503", Severity.WARNING, Category.THIRD_PARTY,
                                   f"`{key}` set to `{value}`: the project's code takes a GPU-only path for this value "
                                   f"(a GPU-only package or CUDA extension in the branch it selects); choose the value "
                                   f"of the path that runs without it on the NPU", cell=None if cell < 0 else cell))
            result = result.adding(new)
        out.append(result)
    return out


def _within(lines: list[int], first: int, last: int) -> list[int]:
    """The lines of sorted `lines` from `first` to `last`, both included."""
    return lines[bisect.bisect_left(lines, first):bisect.bisect_right(lines, last)]


def _script(named: str, launcher: str, paths: list[str]) -> str | None:
    """The repository file a launcher's `path/to/train.py` names: beside the launcher, else the one file ending so."""
    folder = launcher.replace("\\", "/").rpartition("/")[0]
    beside = f"{folder}/{named}" if folder else named
    ends = [p for p in paths if p.replace("\\", "/").lstrip("./") == beside.lstrip("./")
            or p.replace("\\", "/").endswith("/" + named)]
    exact = [p for p in ends if p.replace("\\", "/").lstrip("./") == beside.lstrip("./")]
    return exact[0] if exact else ends[0] if len(ends) == 1 else None


def _gpu_only(module: str) -> bool:
    """`module` is a package NPU501's knowledge marks GPU-only (not "partial")."""
    from migrate import knowledge
    from migrate.rules.npu501_gpu_only_import import match_package, needs_a_look

    table = knowledge.third_party()
    key = match_package(module, table)
    return key is not None and needs_a_look(table[key]) and table[key].status != "partial"
