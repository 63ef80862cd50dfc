import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import CUDA_DEVICE_TEXT, holds_device, literal_to_npu
from migrate.rules.base import Invalid, Rule


def _cuda_literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(CUDA_DEVICE_TEXT.match(node.value))


def _device_identity(node) -> bool:
    """`x.device.type`, `dev.type`, `device_type`, `args.device`, `str(x.device)`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "type" or holds_device(node.attr)
    if isinstance(node, ast.Name):
        return holds_device(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
        return _device_identity(node.args[0])
    return False


def _elements(node):
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in node.elts if _cuda_literal(e)]
    return [node] if _cuda_literal(node) else []


class DeviceTypeCompare(Rule):
    """Code that branches on the device type (`x.device.type == "cuda"`, `device_type != "cuda"`,
    `str(x.device).startswith("cuda")`, `dev.type in ("cuda", "mps")`) takes the non-CUDA branch on
    an Ascend host, where tensors report the type `"npu"`: mixed precision, pinned memory or
    synchronisation then silently switch off. The rewrite changes the compared literal to "npu".
    Any receiver ending in `.type`, or named like a device (`device`, `dev`, `*_device`,
    `device_type`), counts; comparisons with "cpu" / "mps" are left alone."""

    CODE = "NPU201"
    NAME = "device-type-compare"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = 'device-type test against "cuda" is never true on an NPU host; compare with "npu"'
    TRIGGERS = ("cuda",)
    VALID = [
        'if x.device.type == "npu": pass',
        'if x.device.type == "cpu": pass',
        'if name == "cuda": pass',  # not a device
        'is_gpu = backend.startswith("cuda")',
        'device = "cuda"',  # an assignment: NPU104
        'print("x.device.type == cuda")',
    ]
    INVALID = [
        Invalid('if x.device.type == "cuda": pass', expected='if x.device.type == "npu": pass', count=1),
        Invalid("use_amp = device_type != 'cuda'", expected="use_amp = device_type != 'npu'"),
        Invalid('ok = str(t.device).startswith("cuda")', expected='ok = str(t.device).startswith("npu")'),
        Invalid(
            'if dev.type in ("cuda", "mps"): pass',
            expected='if dev.type in ("npu", "mps"): pass',
            count=1,
        ),
        Invalid('if "cuda" in str(x.device): pass', expected='if "npu" in str(x.device): pass'),
        Invalid('if args.device == "cuda:0": pass', expected='if args.device == "npu:0": pass'),
        Invalid(
            "device_type = 'cuda' if 'cuda' in device else 'cpu'",
            expected="device_type = 'cuda' if 'npu' in device else 'cpu'",  # the value is NPU104's
            count=1,
        ),
        Invalid("use_fused = fused_ok and self.amp_device_type == 'cuda'", expected="use_fused = fused_ok and self.amp_device_type == 'npu'"),
    ]

    def check(self, ctx):
        found: dict[int, ast.AST] = {}
        for node in ctx.nodes.get(ast.Compare, ()):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    if _device_identity(left) and _cuda_literal(right):
                        found[id(right)] = right
                    elif _device_identity(right) and _cuda_literal(left):
                        found[id(left)] = left
                elif isinstance(op, (ast.In, ast.NotIn)):
                    if _device_identity(left):
                        for element in _elements(right):
                            found[id(element)] = element
                    elif _cuda_literal(left) and _device_identity(right):
                        found[id(left)] = left
                left = right
        for node in ctx.nodes.get(ast.Call, ()):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "startswith" and node.args and _device_identity(func.value):
                for element in _elements(node.args[0]):
                    found[id(element)] = element
        for literal in sorted(found.values(), key=lambda n: (n.lineno, n.col_offset)):
            edit, new_text = literal_to_npu(ctx, literal)
            yield self.finding(ctx, literal, edits=[edit] if edit else [], replacement=new_text)
