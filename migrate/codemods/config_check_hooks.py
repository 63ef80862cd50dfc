"""Add msprobe's ConfigChecker hooks to an entry script (the config-check step of a migration).

Two insertions, both guarded so the script still runs where msprobe is not installed. After the
module's opening imports, the import, two small helpers and the run-time switch:

    try:
        from msprobe.core.config_check import ConfigChecker
    except ImportError:  # msprobe not installed: the script runs without writing a config pack
        ConfigChecker = None


    def _npu_config_check_setup():
        ...  # ConfigChecker.apply_patches, with a cheap stack walk; its output kept for the pack's log


    def _npu_config_check(model, zip_path):
        ...  # ConfigChecker(model, ...) writing one pack per rank; the model stays picklable


    if ConfigChecker is not None and __import__("os").environ.get("NPU_MIGRATE_CONFIG_CHECK", "1") != "0":
        _npu_config_check_setup()
    else:  # NPU_MIGRATE_CONFIG_CHECK=0 turns the config pack off for a run
        ConfigChecker = None

and, right after the model is built and placed on its device, before training starts:

    if ConfigChecker is not None:
        _npu_config_check(model, "npu_config_check/npu_config_pack_rank{rank}.zip")

The pack path: `{rank}` becomes the process's RANK (torch.distributed's rank when the process group
is up, e.g. under mp.spawn; 0 otherwise), so ranks never write the same file; a relative path is
taken under NPU_MIGRATE_CONFIG_CHECK_DIR when set (else the working directory, where the script's
other relative outputs go). A pack left by an earlier run is emptied first (msprobe appends to a
zip: a re-run duplicated every entry). msprobe's output (INFO lines, zipfile's `Duplicate name`
and other warnings) goes to the pack's `.log` next to it, never the terminal. msprobe's random-call
tracker walks the call stack through `inspect.getframeinfo`, which searches every loaded module for a
`<string>` frame (23 ms a call under mp.spawn): the setup swaps in a walk with the same output read
from linecache. msprobe's forward pre-hook is a closure, which would make `torch.save(model)`,
`copy.deepcopy(model)` and spawn fail: the helper keeps it out of the model's pickled state (a copy
has no hook; the original keeps it). The pack never stops the training run: an item msprobe's hook
cannot collect (it measures every input tensor and cannot take a sparse one, tkipf/pygcn's
adjacency: the dataset item) is written to the pack's `.log` and dropped while the other items go
on; a hook that raises outside its collectors is logged and removed. validate lists what is missing
as not compared. See docs/config_check.md.

Where the hook goes: the model is the receiver of `.parameters()` handed to the first optimizer
constructor (`optim.SGD(model.parameters())`, `AdamW(params=model.module.parameters())`, parameter
groups `[{"params": model.parameters()}]`, a variable holding such groups); the hook goes after that
variable's last assignment or method call (`model.to(device)`, `model.cuda()`, `model = DDP(model)`)
before the optimizer, in the same function. A statement nested in a branch (`if use_cuda:
model.cuda()`) counts through the branch. An optimizer a class builds from `self.parameters()` (in
`__init__` the module is not built yet) is hooked where the caller builds the instance
(`agent = Agent(...)`). When the optimizer comes from a method of the model
(`optimizer = model.configure_optimizers()`), or from a function handed the model first
(`create_optimizer_v2(model, ...)`, timm; `build_optimizer(model, cfg)`), the hook goes after the
model's last placement before that call. When the optimizer is built in another file by a trainer handed
the model (`Trainer(config, model, data)`, minGPT; `Trainer(model=model)`; `trainer.fit(model)`,
Lightning's `configure_optimizers`), the hook goes after the model's last placement before that call
(the model: the `model=` keyword, else the first positional name bound here to a class instance that
is not data or a config). When no model is found nothing is added and the result says why: never guessed.

Idempotent: a module that already imports ConfigChecker or calls `ConfigChecker.apply_patches` is
left alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import libcst as cst
from libcst.helpers import get_full_name_for_node

from migrate.codemods._module import child_blocks, is_docstring, leading_imports_end
from migrate.codemods.config_check_presence import ALREADY_PRESENT, imports_config_check, patches_config_check

DEFAULT_NPU_PACK = "npu_config_check/npu_config_pack_rank{rank}.zip"
DEFAULT_GPU_PACK = "gpu_config_check/gpu_config_pack_rank{rank}.zip"
SWITCH_ENV = "NPU_MIGRATE_CONFIG_CHECK"  # "0": no pack this run
DIR_ENV = "NPU_MIGRATE_CONFIG_CHECK_DIR"  # folder for a relative pack path
HELPER = "_npu_config_check"
SETUP = "_npu_config_check_setup"

_TOP_BLOCK = (
    "try:\n"
    "    from msprobe.core.config_check import ConfigChecker\n"
    "except ImportError:  # msprobe not installed: the script runs without writing a config pack\n"
    "    ConfigChecker = None\n"
)
_PATCH = (
    f'if ConfigChecker is not None and __import__("os").environ.get("{SWITCH_ENV}", "1") != "0":\n'
    f"    {SETUP}()\n"
    f"else:  # {SWITCH_ENV}=0 turns the config pack off for a run\n"
    "    ConfigChecker = None\n"
)
_SETUP_HELPER = f'''
def {SETUP}():
    """msprobe's random-call patches, quiet and cheap (added by npu-migrate apply, see its docs/config_check.md)."""
    import contextlib
    import io
    import linecache
    import os
    import time

    def call_stack(frame):  # msprobe's get_call_stack without inspect's module search (as checks/child/msprobe_speedups.py)
        stack = []
        frame = frame.f_back
        while frame is not None:
            code = frame.f_code
            line = linecache.getline(code.co_filename, frame.f_lineno, frame.f_globals).strip()
            stack.append(f"File {{os.path.abspath(code.co_filename)}}, line {{frame.f_lineno}}, in {{code.co_name}}, {{line}}")
            frame = frame.f_back
        return stack[::-1]

    {SETUP}.started, {SETUP}.output = time.time(), io.StringIO()  # msprobe's lines go to the pack's log
    with contextlib.redirect_stdout({SETUP}.output):
        from msprobe.core.config_check.checkers import random_checker

        if callable(getattr(random_checker, "get_call_stack", None)):
            random_checker.get_call_stack = call_stack
        ConfigChecker.apply_patches(fmk="pytorch")
'''
_HELPER = f'''
def {HELPER}(model, zip_path):
    """msprobe config pack of this run (added by npu-migrate apply, see its docs/config_check.md)."""
    import collections
    import contextlib
    import fcntl
    import os
    import warnings

    rank = os.environ.get("RANK", "0")  # mp.spawn ranks have no RANK: ask torch.distributed when it is up
    dist = __import__("sys").modules.get("torch.distributed")
    if dist is not None and dist.is_available() and dist.is_initialized():
        rank = str(dist.get_rank())
    path = os.path.join(os.environ.get("{DIR_ENV}", ""), zip_path.replace("{{rank}}", rank))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "ab+") as pack:  # a pack left by an earlier run is emptied, not appended to
        fcntl.flock(pack, fcntl.LOCK_EX)
        if os.fstat(pack.fileno()).st_mtime < {SETUP}.started:
            pack.truncate(0)
        fcntl.flock(pack, fcntl.LOCK_UN)
    log = open(os.path.splitext(path)[0] + ".log", "w", buffering=1)  # msprobe's output, never the terminal
    log.write({SETUP}.output.getvalue())

    def quiet(func):
        def run(*args, **kwargs):
            with contextlib.redirect_stdout(log), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    return func(*args, **kwargs)
                finally:
                    log.writelines(f"{{w.category.__name__}}: {{w.message}}\\n" for w in caught)
        return run

    # a DDP / DataParallel wrapper is not always called (`model.forward(x, y)`): the module it wraps is
    while "DataParallel" in type(model).__name__ and isinstance(getattr(model, "module", None), __import__("torch").nn.Module):
        model = model.module
    before = set(model._forward_pre_hooks)
    collectors = getattr(ConfigChecker, "pre_forward_fun_list", [])  # msprobe's per-item collectors, run by its hook
    first = len(collectors)
    cls = type(model)  # msprobe asks `if model:`: a compiled module or a container would answer len()
    model.__class__ = type(cls.__name__, (cls,), {{"__bool__": lambda self: True}})
    try:
        quiet(ConfigChecker)(model, output_zip_path=path, fmk="pytorch")
    except Exception as exc:  # a model that takes no pre-hook (torch.jit.script): the run goes on, env and pip still packed
        log.write(f"config_check: forward pre-hook not placed on {{cls.__name__}}, it raised {{type(exc).__name__}}: {{exc}}; "
                  "dataset, weights and random not packed\\n")
        try:
            quiet(ConfigChecker)(None, output_zip_path=path, fmk="pytorch")
        except Exception as exc:
            log.write(f"config_check: nothing packed, it raised {{type(exc).__name__}}: {{exc}}\\n")
        return
    finally:
        model.__class__ = cls
    added = set(model._forward_pre_hooks) - before

    def skipping(index, collect):  # an item msprobe cannot collect (a sparse input) is logged and dropped, the others go on
        def run(*args, **kwargs):
            try:
                return collect(*args, **kwargs)
            except Exception as exc:
                log.write(f"config_check: {{getattr(collect, '__qualname__', collect)}} dropped, it raised {{type(exc).__name__}}: {{exc}}\\n")
                collectors[index] = lambda *args, **kwargs: None
        return run

    if isinstance(collectors, list):
        collectors[first:] = [skipping(first + i, collect) for i, collect in enumerate(collectors[first:])]

    def guarded(key, hook):  # the pack never stops the run (a sparse input msprobe cannot measure): logged, hook removed
        def run(*args, **kwargs):
            try:
                return hook(*args, **kwargs)
            except Exception as exc:
                log.write(f"config_check: forward pre-hook removed, it raised {{type(exc).__name__}}: {{exc}}\\n")
                model._forward_pre_hooks.pop(key, None)
                model._forward_pre_hooks_with_kwargs.pop(key, None)
        return run

    for key in added:
        model._forward_pre_hooks[key] = guarded(key, quiet(model._forward_pre_hooks[key]))

    class Hooks(collections.OrderedDict):  # msprobe's hook is a closure: pickled copies go without it
        def __reduce__(self):
            return collections.OrderedDict, (), None, None, iter([(k, v) for k, v in self.items() if k not in added])

    # in the module's own __dict__: a compiled module would hand an attribute set to the one it wraps
    model.__dict__["_forward_pre_hooks"] = Hooks(model._forward_pre_hooks)
'''

# The callee of an optimizer constructor: torch.optim.*, apex FusedAdam, bnb.optim.*, transformers AdamW ...
_OPTIMIZER_NAME = re.compile(
    r"(?i)(sgd|adam|optim|rmsprop|lamb|lars|lion|adagrad|adadelta|adamax|lbfgs|adafactor|novograd|sophia|shampoo|muon)"
)
_PARAMETER_METHODS = ("parameters", "named_parameters")


@dataclass(frozen=True)
class HookResult:
    module: cst.Module
    changed: bool
    model_found: bool
    model: str | None  # the model expression the hook uses, e.g. "model" or "self.net"
    message: str
    already_present: bool = False


# ---- is the module already instrumented ------------------------------------------------------
class _PresenceFinder(cst.CSTVisitor):
    """migrate/codemods/config_check_presence.py's rule on a libcst tree."""

    def __init__(self):
        self.present = False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if imports_config_check(get_full_name_for_node(node.module) if node.module is not None else None):
            self.present = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if patches_config_check(node.attr.value, get_full_name_for_node(node.value)):
            self.present = True


def has_hooks(module: cst.Module) -> bool:
    finder = _PresenceFinder()
    module.visit(finder)
    return finder.present


# ---- statements of a scope, with where each one sits ------------------------------------------
Path = tuple  # ((block_node, index), ...): the chain of blocks from the scope body down


def _flatten(block: cst.CSTNode, path: Path, out: list) -> None:
    statements = block.body
    for index, stmt in enumerate(statements):
        here = path + ((block, index),)
        out.append((stmt, here))
        for child in child_blocks(stmt):
            if isinstance(child, cst.IndentedBlock):  # a one-line suite belongs to its statement
                _flatten(child, here, out)


class _ScopeCollector(cst.CSTVisitor):
    """Every function, with the class it is a method of (None for a plain function)."""

    def __init__(self):
        self.functions: list[cst.FunctionDef] = []
        self.owner: dict[int, str | None] = {}
        self._classes: list[str | None] = [None]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.owner[id(node)] = self._classes[-1]
        self._classes.append(None)  # a class nested in a function body is that class's own scope

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._classes.pop()


def _own_nodes(stmt: cst.CSTNode):
    """The small statements a statement holds itself (a suite's one-line body included)."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return list(stmt.body)
    if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With)) and isinstance(stmt.body, cst.SimpleStatementSuite):
        return list(stmt.body.body)
    return []


class _CallFinder(cst.CSTVisitor):
    def __init__(self):
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return True


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    finder = _CallFinder()
    node.visit(finder)
    return finder.calls


def _is_model_expr(node: cst.CSTNode) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _strip_module(node: cst.CSTNode) -> cst.CSTNode:
    while isinstance(node, cst.Attribute) and node.attr.value == "module":
        node = node.value  # DDP / DataParallel wrapper: the wrapped model is the same variable
    return node


def _parameter_method(name: str) -> bool:
    """`parameters()`, `named_parameters()`, and a model's own selection of them (`palm_parameters()`,
    `trainable_parameters()`, `get_parameters()`)."""
    return name in _PARAMETER_METHODS or (name.islower() and name.endswith("_parameters"))


def _parameter_receivers(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = []
    for call in _calls(node):
        func = call.func
        if isinstance(func, cst.Attribute) and _parameter_method(func.attr.value):
            receiver = _strip_module(func.value)
            if _is_model_expr(receiver):
                out.append(receiver)
    return out


def _is_optimizer_call(call: cst.Call) -> bool:
    name = get_full_name_for_node(call.func)
    if not name:
        return False
    return bool(_OPTIMIZER_NAME.search(name.rsplit(".", 1)[-1]))


def _assigned_targets(small: cst.CSTNode) -> list[cst.CSTNode]:
    targets: list[cst.CSTNode] = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        targets = [small.target]
    out = []
    while targets:
        target = targets.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in target.elements)
        else:
            out.append(target)
    return out


def _same(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    return get_full_name_for_node(a) is not None and get_full_name_for_node(a) == get_full_name_for_node(b)


def _touches(stmt: cst.CSTNode, model: cst.CSTNode) -> bool:
    """Does the statement (re)bind the model or call a method on it (placement, wrapping, loading)?"""
    for small in _own_nodes(stmt):
        if any(_same(t, model) for t in _assigned_targets(small)):
            return True
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and _same(_strip_module(func.value), model):
                return True
    if isinstance(stmt, cst.With):
        for item in stmt.items:
            if item.asname is not None and _same(item.asname.name, model):
                return True
    if isinstance(stmt, cst.For) and _same(stmt.target, model):
        return True
    return False


def _value_of(name: cst.CSTNode, statements: list) -> cst.CSTNode | None:
    """The value last assigned to `name` among the statements (for `AdamW(param_groups)`)."""
    found = None
    for stmt, _ in statements:
        for small in _own_nodes(stmt):
            if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
                if any(_same(t, name) for t in _assigned_targets(small)):
                    found = small.value
    return found


@dataclass(frozen=True)
class _Plan:
    block: cst.CSTNode | None  # Module or IndentedBlock to insert into
    after: int  # insert after this index (-1: at the start)
    model: str | None
    message: str
    own_instance: bool = False  # the optimizer is built from `self.parameters()` in a method


_INSTANCE_NAMES = ("self", "cls")
# `model.configure_optimizers()`, `net.build_optimizer(cfg)`: a method (lower case) returning an optimizer
_OPTIMIZER_METHOD = re.compile(r"(?i)optimi[sz]ers?")
# `create_optimizer_v2(model, ...)` (timm), `build_optimizer(model, cfg)`: a function (lower case) that
# builds the optimizer from the model it is handed first
_OPTIMIZER_FACTORY = re.compile(r"^_*(create|build|make|get|init)_?optimi[sz]ers?(_v\d+)?$")


def _optimizer_method_receiver(call: cst.Call) -> cst.CSTNode | None:
    func = call.func
    if not isinstance(func, cst.Attribute) or not func.attr.value.islower():
        return None
    if not _OPTIMIZER_METHOD.search(func.attr.value):
        return None
    receiver = _strip_module(func.value)
    root = receiver
    while isinstance(root, cst.Attribute):
        root = root.value
    if not _is_model_expr(receiver) or not isinstance(root, cst.Name) or root.value in _INSTANCE_NAMES:
        return None
    return receiver


def _optimizer_factory_model(call: cst.Call) -> cst.CSTNode | None:
    """The model handed first to an optimizer-building function (`create_optimizer_v2(model, ...)`)."""
    name = (get_full_name_for_node(call.func) or "").rsplit(".", 1)[-1]
    if not _OPTIMIZER_FACTORY.match(name) or not call.args or call.args[0].keyword is not None:
        return None
    model = _strip_module(call.args[0].value)
    return model if isinstance(model, cst.Name) and model.value not in _INSTANCE_NAMES else None


# A trainer that builds the optimizer itself, from the model it is handed (in another file):
# `Trainer(config, model, data)` (minGPT), `Trainer(model=model, ...)` (transformers),
# `trainer.fit(model, datamodule)` (Lightning, whose module's `configure_optimizers` does it)
_TRAINER_CLASS = re.compile(r"^([A-Z]\w*)?Trainer$")
# what a trainer is handed besides the model: never taken for it
_NOT_A_MODEL = re.compile(r"(Config|Configuration|Args|Arguments|Dataset|DataModule|Loader|Tokenizer|Processor)$")


def is_trainer_call(name: str) -> bool:
    """`Trainer(...)`, `pl.Trainer(...)`, `SFTTrainer(...)`, `trainer.fit(...)` (a full dotted name)."""
    head, _, last = name.rpartition(".")
    return bool(_TRAINER_CLASS.match(last)) or (last == "fit" and head.rsplit(".", 1)[-1].lower().endswith("trainer"))


def _trainer_model(call: cst.Call, statements: list, params: set[str]) -> cst.CSTNode | None:
    """The model a trainer is handed: its `model=` keyword; for `<trainer>.fit(...)` its first positional
    name (Lightning's `fit(model, train_dataloaders, ...)`), bound in this scope or a parameter; else the
    first positional name bound in this scope to a class instance that is not data or a config
    (`Trainer(cfg, model, data)` with `model = GPT(cfg)`)."""
    if not is_trainer_call(get_full_name_for_node(call.func) or ""):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "model":
            model = _strip_module(arg.value)
            bound = isinstance(model, cst.Name) and (model.value in params or _value_of(model, statements) is not None)
            return model if bound and model.value not in _INSTANCE_NAMES else None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if (get_full_name_for_node(call.func) or "").endswith(".fit"):  # `fit(model, ...)`: Lightning's, Fabric trainers'
        model = positional[0] if positional else None
        bound = isinstance(model, cst.Name) and (model.value in params or _value_of(model, statements) is not None)
        return model if bound and model.value not in _INSTANCE_NAMES else None
    for arg in call.args:
        if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
            continue
        value = _value_of(arg.value, statements)
        cls = (get_full_name_for_node(value.func) or "").rsplit(".", 1)[-1] if isinstance(value, cst.Call) else ""
        if cls[:1].isupper() and not _NOT_A_MODEL.search(cls):
            return arg.value
    return None


def _plan_in_scope(module: cst.Module, body_block: cst.CSTNode, params: set[str], *, methods: bool = False,
                   factories: bool = False, trainers: bool = False) -> _Plan | None:
    """The hook's place in one scope: after the model an optimizer is built from; with `methods`,
    after the model whose own method returns the optimizer (`model.configure_optimizers()`); with
    `factories`, after the model handed to an optimizer-building function (`create_optimizer_v2(model)`);
    with `trainers`, after the model handed to a trainer that builds its optimizer (`Trainer(cfg, model)`)."""
    statements: list = []
    _flatten(body_block, (), statements)
    for position, (stmt, path) in enumerate(statements):
        for small in _own_nodes(stmt):
            for call in _calls(small):
                if trainers:
                    model = _trainer_model(call, statements[:position], params)
                    if model is not None:
                        return _anchor(module, statements[:position], path, model, params)
                    continue
                if factories:
                    model = _optimizer_factory_model(call)
                    # only a model built in this scope (`model = create_model(...)`): never a parameter or config
                    if model is not None and isinstance(_value_of(model, statements[:position]), cst.Call):
                        return _anchor(module, statements[:position], path, model, params)
                    continue
                if methods:
                    receiver = _optimizer_method_receiver(call)
                    if receiver is not None:
                        return _anchor(module, statements[:position], path, receiver, params)
                    continue
                if not _is_optimizer_call(call):
                    continue
                receivers = []
                for arg in call.args:
                    receivers += _parameter_receivers(arg.value)
                    if not receivers and isinstance(arg.value, cst.Name):
                        value = _value_of(arg.value, statements[:position])
                        if value is not None:
                            receivers += _parameter_receivers(value)
                if not receivers:
                    continue
                model = receivers[0]
                return _anchor(module, statements[:position], path, model, params)
    return None


def _plan_at_instantiation(module: cst.Module, scopes: list, class_name: str) -> _Plan | None:
    """After `x = ClassName(...)` (and the placement statements right after it) in any scope."""
    for body_block in scopes:
        statements: list = []
        _flatten(body_block, (), statements)
        for position, (stmt, path) in enumerate(statements):
            for small in _own_nodes(stmt):
                if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                    continue
                name = get_full_name_for_node(small.value.func) or ""
                targets = _assigned_targets(small)
                if name.rsplit(".", 1)[-1] != class_name or len(targets) != 1 or not _is_model_expr(targets[0]):
                    continue
                block, index = path[-1]
                if not isinstance(block, (cst.Module, cst.IndentedBlock)):
                    continue
                target = targets[0]
                for later, later_path in statements[position + 1:]:
                    if later_path[:-1] != path[:-1] or later_path[-1][0] is not block or not _touches(later, target):
                        break
                    index = later_path[-1][1]
                text = module.code_for_node(target)
                return _Plan(block, index, text, f"hook where `{text}` is built: {class_name} builds its optimizer "
                                                 "from its own parameters")
    return None


def _anchor(module: cst.Module, before: list, opt_path: Path, model: cst.CSTNode, params: set[str]) -> _Plan:
    text = module.code_for_node(model)
    anchor_path = None
    for stmt, path in before:
        if _touches(stmt, model):
            anchor_path = path
    if anchor_path is None:
        root = model
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and root.value in _INSTANCE_NAMES:
            return _Plan(None, -1, text, f"the optimizer is built from `{text}.parameters()` inside its own class "
                                         "(the hook goes where the caller builds the instance)", own_instance=True)
        if isinstance(root, cst.Name) and root.value in params:
            block = opt_path[0][0]
            first = 1 if block.body and is_docstring(block.body[0]) else 0
            return _Plan(block, first - 1, text, f"model `{text}` is a parameter of the function building the optimizer")
        return _Plan(None, -1, text, f"the optimizer's model `{text}` is not assigned before the optimizer in the same function")
    depth = 0
    while depth < min(len(anchor_path), len(opt_path)) and anchor_path[depth][0] is opt_path[depth][0]:
        if anchor_path[depth][1] != opt_path[depth][1]:
            break
        depth += 1
    if depth >= min(len(anchor_path), len(opt_path)) or anchor_path[depth][0] is not opt_path[depth][0]:
        return _Plan(None, -1, text, f"`{text}` is placed in another branch than the one building its optimizer")
    block, index = anchor_path[depth]
    if not isinstance(block, (cst.Module, cst.IndentedBlock)):
        return _Plan(None, -1, text, f"`{text}` and its optimizer share a one-line block")
    return _Plan(block, index, text, f"hook after the last statement building or placing `{text}`")


def find_model_insertion(module: cst.Module) -> _Plan:
    """Where the hook goes: the module scope first, then each function in order; then the fallbacks
    (an optimizer returned by a model's method; a class building its optimizer from `self`)."""
    collector = _ScopeCollector()
    module.visit(collector)
    scopes = [(module, set(), None)]
    for function in collector.functions:
        if isinstance(function.body, cst.IndentedBlock):
            params = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                             *function.params.kwonly_params)}
            scopes.append((function.body, params, collector.owner.get(id(function))))
    failure = None
    own_classes: list[str] = []
    for body_block, params, owner in scopes:
        plan = _plan_in_scope(module, body_block, params)
        if plan is not None and plan.block is not None:
            return plan
        if plan is not None and plan.own_instance and owner:
            own_classes.append(owner)
        failure = failure or plan
    for body_block, params, _ in scopes:
        plan = _plan_in_scope(module, body_block, params, methods=True)
        if plan is not None and plan.block is not None:
            return plan
    for body_block, params, _ in scopes:
        plan = _plan_in_scope(module, body_block, params, factories=True)
        if plan is not None and plan.block is not None:
            return plan
    for class_name in own_classes:
        plan = _plan_at_instantiation(module, [block for block, _, _ in scopes], class_name)
        if plan is not None:
            return plan
    for body_block, params, _ in scopes:
        plan = _plan_in_scope(module, body_block, params, trainers=True)
        if plan is not None and plan.block is not None:
            return plan
    if failure is not None:
        return failure
    return _Plan(None, -1, None, "no optimizer built from `<model>.parameters()` found")


def _spaced(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code.lstrip("\n")).with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])


class _Inserter(cst.CSTTransformer):
    def __init__(self, insertions: dict[int, list[tuple[int, list]]]):
        self.insertions = insertions

    def _insert(self, original, updated):
        todo = self.insertions.get(id(original))
        if not todo:
            return updated
        body = list(updated.body)
        for after, statements in sorted(todo, key=lambda item: item[0], reverse=True):
            body[after + 1 : after + 1] = statements
        return updated.with_changes(body=body)

    def leave_Module(self, original_node, updated_node):
        return self._insert(original_node, updated_node)

    def leave_IndentedBlock(self, original_node, updated_node):
        return self._insert(original_node, updated_node)


def add_config_check_hooks(module: cst.Module, *, zip_path: str = DEFAULT_NPU_PACK) -> HookResult:
    """Insert the guarded ConfigChecker import/patch at the top and the model hook (see module doc)."""
    if has_hooks(module):
        return HookResult(module, False, True, None, ALREADY_PRESENT, already_present=True)
    plan = find_model_insertion(module)
    if plan.block is None:
        return HookResult(module, False, False, plan.model, f"ConfigChecker hook not added: {plan.message}")
    hook = cst.parse_statement(f"if ConfigChecker is not None:\n    {HELPER}({plan.model}, {json.dumps(zip_path)})\n")
    top = [cst.parse_statement(_TOP_BLOCK), *(_spaced(block) for block in (_SETUP_HELPER, _HELPER, _PATCH))]
    top_index = leading_imports_end(module.body) - 1
    insertions: dict[int, list[tuple[int, list]]] = {id(module): [(top_index, top)]}
    insertions.setdefault(id(plan.block), []).append((plan.after, [hook]))
    if plan.block is module and plan.after < top_index + 1:
        return HookResult(module, False, False, plan.model, "ConfigChecker hook not added: the model is built among the imports")
    new = module.visit(_Inserter(insertions))
    return HookResult(new, True, True, plan.model, f"ConfigChecker hooks added ({plan.message})")
