import ast

from migrate.context import walk_nodes
from migrate.findings import Category, Severity
from migrate.rules._device_helpers import (
    CUDA_DEVICE_TEXT,
    cuda_device_literals,
    device_like_name,
    holds_device,
    literal_to_npu,
    target_name,
)
from migrate.rules._text import is_prose
from migrate.rules.base import Invalid, Rule

# Calls whose first positional argument is a device.
_DEVICE_ARG0 = frozenset(
    {
        "torch.device",
        "torch.set_default_device",
        "torch.get_device_module",
        "torch.Generator",
        "torch.cuda.device",
        "torch.cuda.set_device",
        "torch.npu.device",
        "torch.npu.set_device",
    }
)
# Keywords that take a device on any call (besides device-named ones: `output_device=`, `dev=`).
# `location=`: torch.serialization's name for a storage's device tag, kept by checkpoint helpers
# (ControlNet's `load_state_dict(path, location="cuda")`, which hands it to `map_location=`).
_DEVICE_KEYWORDS = frozenset({"device", "map_location", "pin_memory_device", "location"})
# String methods that take a device name apart: `str(device).replace("cuda:", "")`.
_PARSE_METHODS = frozenset({"replace", "removeprefix", "split", "lstrip", "strip"})
_NORMALISE = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "replace"})


def _parses_device(ctx, receiver) -> bool:
    """`str(x)` / `x.type` / a device-named variable: the string being taken apart is a device's."""
    # `str(device).strip().lower().replace("cuda:", "")`: look through string normalisation first
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr in _NORMALISE:
        receiver = receiver.func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "str" and receiver.args:
        receiver = receiver.args[0]
    return isinstance(receiver, (ast.Name, ast.Attribute)) and device_like_name(
        receiver.id if isinstance(receiver, ast.Name) else receiver.attr
    )


# GradScaler's device argument belongs to NPU403.
_GRAD_SCALERS = frozenset({"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler", "torch.GradScaler"})


class CudaDeviceString(Rule):
    """A `"cuda"` / `"cuda:N"` device string names a device type that does not exist on an Ascend
    host: `torch.device("cuda")`, `x.to("cuda:0")` and `device="cuda"` all fail there. torch_npu's
    device type is `"npu"` (`"npu:N"`). Only strings that reach a device are flagged: arguments of
    `torch.device` / `torch.set_default_device` / `torch.cuda.device`, `.to(...)`, any `device=` /
    `map_location=` / `location=` keyword or device-named keyword (`output_device=`; a
    `map_location` dict's values too), variables and attributes named like a device
    (`device`, `dev`, `*_device`) or later used as one, parameter defaults, `{"device": ...}` entries,
    the default of `getattr(obj, "device", "cuda")`, a positional argument of a function the file
    defines whose parameter is named like a device (`def move_embed(model, device)`),
    argparse `--device` defaults and choices, and both branches of
    `"cuda" if torch.cuda.is_available() else "cpu"`. Variables named like a device type
    (`device_type`, `*_device_type`) count too: NPU201 rewrites their comparisons with "cuda", so
    the value they are given must change with them (`device_type = "cuda" if "cuda" in device else
    "cpu"` ... `if device_type == "cuda"` would otherwise take the CPU branch on an NPU host). Docstrings, comments, messages, help texts and
    comparisons (NPU201) are left alone, as are "cpu" and "mps". The rewrite changes only `cuda`
    inside the literal, keeping quotes and f-string fields. A device name taken apart
    (`str(device).replace("cuda:", "")`, `.split("cuda:")` on a device-named value) is flagged too:
    on an NPU the name is "npu:N" and the parse silently yields garbage."""

    CODE = "NPU104"
    NAME = "cuda-device-string"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.ERROR
    FIXABLE = True
    MESSAGE = 'a "cuda" device string names no device on an NPU host; use "npu"'
    TRIGGERS = ("cuda",)
    VALID = [
        'import torch\nd = torch.device("npu:0")',
        'x = x.to("cpu")',
        'print("moving to cuda")',
        "ckpt = load(path, location=\"us-east\")\nf(m, output_device=\"cpu\")",
        'logger.info("device=%s", "cuda")',
        'logger.info("config", extra={"device": "cuda"})',
        'if x.device.type == "cuda": pass',  # NPU201
        'parser.add_argument("--device", default="cpu", help="cuda or cpu")',
        'def f():\n    """Runs on "cuda" by default."""',
        'backend = "cuda"',  # not named like a device, never used as one
        'device = "mps" if use_mps else "cpu"',
        'kernel = load(name="k", sources=["k.cu"], extra_cuda_cflags=["-O3"])',
        'device = "cuda_graphs"',  # not a device string
        'name = str(title).strip().lower().replace("cuda:", "")',  # not a device-named value
        'kernel_type = "cuda"',  # not named like a device or device type
        'device_types = ["cuda", "cpu"]',
    ]
    INVALID = [
        Invalid(
            'gpu_id = int(str(device).replace("cuda:", ""))',
            expected='gpu_id = int(str(device).replace("npu:", ""))',
            count=1,
        ),
        Invalid(
            'device = str(device).strip().lower().replace("cuda:", "").replace("none", "")',
            expected='device = str(device).strip().lower().replace("npu:", "").replace("none", "")',
            count=1,
        ),
        Invalid('import torch\nd = torch.device("cuda")', expected='import torch\nd = torch.device("npu")', count=1),
        Invalid("x = x.to('cuda:1', non_blocking=True)", expected="x = x.to('npu:1', non_blocking=True)"),
        Invalid('x = torch.zeros(3, device=f"cuda:{rank}")', expected='x = torch.zeros(3, device=f"npu:{rank}")'),
        Invalid(
            'import torch\nsd = torch.load(p, map_location="cuda:0")',
            expected='import torch\nsd = torch.load(p, map_location="npu:0")',
        ),
        Invalid(  # ControlNet: a checkpoint helper's `location=`, and a device-named keyword
            "model.load_state_dict(load_state_dict('./models/c.pth', location='cuda'))\nwrap(m, output_device='cuda:0')",
            expected="model.load_state_dict(load_state_dict('./models/c.pth', location='npu'))\nwrap(m, output_device='npu:0')",
            count=2,
        ),
        Invalid(
            'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"',
            expected='import torch\ndevice = "npu" if torch.cuda.is_available() else "cpu"',
            count=1,
        ),
        Invalid(
            'parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"], help="cuda or cpu")',
            expected='parser.add_argument("--device", default="npu", choices=["npu", "cpu"], help="cuda or cpu")',
            count=2,
        ),
        Invalid('cfg = {"device": "cuda:0", "lr": 0.1}', expected='cfg = {"device": "npu:0", "lr": 0.1}'),
        Invalid('d = "cuda:" + str(i)\ny = y.to(d)', expected='d = "npu:" + str(i)\ny = y.to(d)'),
        Invalid('def train(model, device="cuda"):\n    pass', expected='def train(model, device="npu"):\n    pass'),
        Invalid('self.device = "cuda"', expected='self.device = "npu"'),
        Invalid(  # llm-awq pre_quant.py: a device handed to the file's own function by position
            'def move_embed(model, device):\n    model.embed.to(device)\nmove_embed(m, "cuda")\nmove_embed(m, "cpu")',
            expected='def move_embed(model, device):\n    model.embed.to(device)\nmove_embed(m, "npu")\nmove_embed(m, "cpu")',
        ),
        Invalid(
            "device_type = 'cuda' if 'cuda' in device else 'cpu'",
            expected="device_type = 'npu' if 'cuda' in device else 'cpu'",  # the test is NPU201's
            count=1,
        ),
        Invalid('self.amp_device_type = "cuda"', expected='self.amp_device_type = "npu"'),
        Invalid(
            'def make_optimizer(params, device_type="cuda"):\n    pass',
            expected='def make_optimizer(params, device_type="npu"):\n    pass',
        ),
        Invalid('print(x.to("cuda").sum())', expected='print(x.to("npu").sum())'),
        Invalid(
            'p.add_argument("--gpu", default="cuda")\nargs = p.parse_args()\nm.to(args.gpu)',
            expected='p.add_argument("--gpu", default="npu")\nargs = p.parse_args()\nm.to(args.gpu)',
        ),
        Invalid(
            'init(device=getattr(args, "device", "cuda"))\nd = getattr(args, "device", "cuda")',
            expected='init(device=getattr(args, "device", "npu"))\nd = getattr(args, "device", "npu")',
            count=2,
        ),
    ]

    def check(self, ctx):
        # every literal reported is a string constant naming a CUDA device, or an f-string opening with one: a
        # file holding none has nothing to report (most files the `cuda` trigger lets in)
        if not any(isinstance(node.value, str) and CUDA_DEVICE_TEXT.match(node.value) for node in ctx.nodes.get(ast.Constant, ())):
            return
        literals: dict[int, ast.AST] = {}

        def add(expr):
            for literal in cuda_device_literals(expr):
                literals.setdefault(id(literal), literal)

        used_as_device: set[str] = set()

        def device_position(expr):
            if isinstance(expr, (ast.Name, ast.Attribute)):
                used_as_device.add(ctx.segment(expr))
            add(expr)

        for call in ctx.nodes.get(ast.Call, ()):
            name = ctx.qualname(call.func)
            if name in _GRAD_SCALERS:
                continue
            func = call.func
            if name in _DEVICE_ARG0 and call.args:
                device_position(call.args[0])
            if name == "torch.device":
                device_position(ctx.keyword(call, "type"))
            if name == "torch.load" and len(call.args) > 1:
                device_position(call.args[1])
            if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) == 3 and \
                    device_like_name(ctx.string_value(call.args[1])):
                add(call.args[2])  # getattr(args, "device", "cuda"): the default device (timm)
            if isinstance(func, ast.Attribute) and func.attr == "to" and call.args:
                device_position(call.args[0])
            if isinstance(func, ast.Attribute) and func.attr in _PARSE_METHODS and call.args and _parses_device(ctx, func.value):
                add(call.args[0])  # str(device).replace("cuda:", "") parses a device name
            for kw in call.keywords:
                if kw.arg in _DEVICE_KEYWORDS or device_like_name(kw.arg):
                    device_position(kw.value)
                    if kw.arg == "map_location" and isinstance(kw.value, ast.Dict):
                        for value in kw.value.values:
                            add(value)  # the keys are where the checkpoint was saved: left as they are
        for call in ctx.nodes.get(ast.Call, ()):  # after all device positions are known
            if isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument":
                self._argparse(ctx, call, add, used_as_device)
        self._local_calls(ctx, add, used_as_device)

        # assignments, parameter defaults, dict entries, returns of device-named functions
        for node in ctx.nodes.get(ast.Assign, ()):
            if any(self._device_target(ctx, t, used_as_device) for t in node.targets):
                add(node.value)
        for node in ctx.nodes.get(ast.AnnAssign, ()):
            if node.value is not None and self._device_target(ctx, node.target, used_as_device):
                add(node.value)
        for node in ctx.nodes.get(ast.arguments, ()):
            positional = node.posonlyargs + node.args
            for arg, default in zip(positional[len(positional) - len(node.defaults):], node.defaults):
                if holds_device(arg.arg) or arg.arg in used_as_device:
                    add(default)
            for arg, default in zip(node.kwonlyargs, node.kw_defaults):
                if default is not None and (holds_device(arg.arg) or arg.arg in used_as_device):
                    add(default)
        for node in ctx.nodes.get(ast.Dict, ()):
            if is_prose(ctx, node):
                continue  # e.g. logger.info("config", extra={"device": "cuda"}): text for a person
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and holds_device(key.value):
                    add(value)
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for func in ctx.nodes.get(kind, ()):
                if "device" in func.name.lower():
                    for node in walk_nodes(func):
                        if isinstance(node, ast.Return):
                            add(node.value)

        # Every literal here sits in a position that reaches a device, so it is reported even inside
        # a print or log call: `print(x.to("cuda"))` still moves x.
        for literal in sorted(literals.values(), key=lambda n: (n.lineno, n.col_offset)):
            edit, new_text = literal_to_npu(ctx, literal)
            if new_text is None:
                message = f"{self.MESSAGE} (not rewritten automatically: `cuda` is not written out in the literal)"
            else:
                message = f"`{ctx.segment(literal)}` names a CUDA device, which an NPU host does not have; use `{new_text}`"
            yield self.finding(ctx, literal, message, edits=[edit] if edit else [], replacement=new_text)

    @staticmethod
    def _local_calls(ctx, add, used_as_device):
        """`move_embed(model, "cuda")` where the file defines `def move_embed(model, device)`: a
        positional argument given to a parameter named like a device (or used as one)."""
        takes_device = {}  # module-level function -> positional parameters, when one of them is a device
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.nodes.get(kind, ()):
                params = function.args.posonlyargs + function.args.args
                if isinstance(ctx.parent(function), ast.Module) and function.name not in takes_device and \
                        any(holds_device(p.arg) or p.arg in used_as_device for p in params):
                    takes_device[function.name] = params
        if not takes_device:
            return
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if not (isinstance(func, ast.Name) and func.id in takes_device and ctx.qualname(func) is None):
                continue
            for param, arg in zip(takes_device[func.id], call.args):
                if isinstance(arg, ast.Starred):
                    break
                if holds_device(param.arg) or param.arg in used_as_device:
                    add(arg)

    @staticmethod
    def _device_target(ctx, target, used_as_device) -> bool:
        if isinstance(target, (ast.Tuple, ast.List)):
            return False
        return holds_device(target_name(target)) or ctx.segment(target) in used_as_device

    @staticmethod
    def _argparse(ctx, call, add, used_as_device):
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        dest = ctx.string_value(ctx.keyword(call, "dest"))
        if dest is None:
            longs = [f for f in flags if f.startswith("--")]
            chosen = longs[0] if longs else (flags[0] if flags else "")
            dest = chosen.lstrip("-").replace("-", "_")
        used = any(text == dest or text.endswith("." + dest) for text in used_as_device)
        if not (holds_device(dest) or used):
            return
        add(ctx.keyword(call, "default"))
        choices = ctx.keyword(call, "choices")
        if isinstance(choices, (ast.List, ast.Tuple, ast.Set)):
            for element in choices.elts:
                add(element)
