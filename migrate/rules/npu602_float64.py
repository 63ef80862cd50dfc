import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import chain_tops
from migrate.rules.base import Invalid, Rule

_FLOAT64_DTYPES = frozenset({"torch.float64", "torch.double"})
_DOUBLE_TENSORS = frozenset({"torch.DoubleTensor", "torch.cuda.DoubleTensor"})


_DTYPE_NAMES = frozenset({"float64", "double", "fp64", "f64"})


def dtype_table_entry(ctx, node) -> bool:
    """A dtype listed in a serializer's table, not computed with: a key of a dict whose values are
    all names (`{torch.float64: "F64", ...}`, sd-scripts' safetensors writer), the value stored
    under a name (`dtype_map["F8_E5M2"] = torch.float8_e5m2`), or the value a name parser returns
    for names (`if s in ["fp8", "float8"]: return torch.float8_e4m3fn`, sd-scripts' str_to_dtype)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Dict) and any(key is node for key in parent.keys):
        return all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in parent.values)
    if isinstance(parent, ast.Return) and parent.value is node:
        branch = ctx.parent(parent)
        test = branch.test if isinstance(branch, ast.If) and parent in branch.body else None
        if isinstance(test, ast.Compare) and len(test.comparators) == 1:
            names = test.comparators[0]
            items = names.elts if isinstance(names, (ast.List, ast.Tuple, ast.Set)) else [names]
            return bool(items) and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items)
        return False  # `if s in ["fp8", "float8"]: return torch.float8_e4m3fn`: a name parser
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0]
        return isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)
    return False


class Float64(Rule):
    """float64 on an Ascend NPU: most NPU kernels compute in fp32 / fp16 / bf16 and have no float64
    variant, so double tensors hit unsupported-dtype errors or CPU fallbacks (torch_npu's own
    transfer_to_npu patch even maps `DoubleTensor` to `FloatTensor`). Flagged: the dtype objects
    `torch.float64` / `torch.double` wherever they appear (`dtype=`, `.to(...)`,
    `set_default_dtype(...)`, dtype tables), `torch.DoubleTensor`, and `.double()` method calls
    with no arguments. numpy's `np.float64` is not torch's and is left alone. Usually the fix is
    float32; keep float64 only for host-side (CPU) numerics. Comparisons that only test a dtype
    (`t.dtype == torch.float64`, `dtype in (torch.float32, torch.float64)`), name tables
    (`{"float64": torch.float64}`) and serializer tables (`{torch.float64: "F64"}`,
    `dtype_map["F64"] = torch.float64`, `if s in ["f64", "double"]: return torch.float64`) are not
    reported."""

    CODE = "NPU602"
    NAME = "float64"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "float64 is not supported by most NPU kernels; use float32 (or keep this computation on the CPU)"
    TRIGGERS = ("float64", "double", "Double")
    VALID = [
        "import numpy as np\na = np.zeros(3, dtype=np.float64)",
        "import torch\nx = torch.zeros(3, dtype=torch.float32)",
        "x = struct.double(4, 8)",  # a call with arguments: not Tensor.double()
        '"""Uses torch.float64 on CPU."""',
        "import torch\nif t.dtype in (torch.float32, torch.float64): pass",
        'import torch\nDTYPES = {"float64": torch.float64, "fp32": torch.float32, "double": torch.double}',
    ]
    INVALID = [
        Invalid("import torch\nx = torch.zeros(3, dtype=torch.float64)", count=1),
        Invalid("import torch as th\nx = y.to(th.double)", count=1),
        Invalid("y = x.double()", count=1),
        Invalid('import torch\nNAMES = {torch.float64: "F64", torch.float32: "F32"}\nx = torch.ones(2, dtype=torch.float64)', count=1),
        Invalid('import torch\ndef pick(s, hi):\n    if s in ["f64"]:\n        return torch.float32\n    if hi:\n        return torch.float64\n', count=1),
        Invalid("import torch\nt = torch.DoubleTensor([1.0])", count=1),
        Invalid("import torch\ntorch.set_default_dtype(torch.float64)", count=1),
        Invalid("from torch import float64\nx = torch.ones(2, dtype=float64)", count=1),
        Invalid('import torch\nkw = {"dtype": torch.float64}\nx = torch.ones(2, **kw)', count=1),
    ]

    @staticmethod
    def _in_comparison(ctx, node) -> bool:
        """`x.dtype == torch.float64` / `dtype in (torch.float32, torch.float64)` only test a dtype."""
        parent = ctx.parent(node)
        while isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
            parent = ctx.parent(parent)
        return isinstance(parent, ast.Compare)

    @staticmethod
    def _named_in_a_dtype_table(ctx, node) -> bool:
        """`{"float64": torch.float64, ...}`: a table from dtype names to dtypes (a config parser)
        lists float64 without computing in it; the code that picks it is what matters."""
        parent = ctx.parent(node)
        if dtype_table_entry(ctx, node):
            return True
        if not isinstance(parent, ast.Dict):
            return False
        for key, value in zip(parent.keys, parent.values):
            if value is node:
                text = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
                return text.lower().replace("torch.", "") in _DTYPE_NAMES
        return False

    def check(self, ctx):
        for node, name in chain_tops(ctx):  # only the full chain, not its prefixes; rooted at an imported name
            if name in _FLOAT64_DTYPES:
                if self._in_comparison(ctx, node) or self._named_in_a_dtype_table(ctx, node):
                    continue
                yield self.finding(ctx, node, replacement="torch.float32")
            elif name in _DOUBLE_TENSORS:
                yield self.finding(ctx, node, "`DoubleTensor` is float64, which most NPU kernels do not support; use torch.FloatTensor / float32", replacement="torch.FloatTensor")
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "double" and not call.args and not call.keywords:
                if ctx.qualname(func) is None:
                    yield self.finding(ctx, call, "`.double()` converts to float64, which most NPU kernels do not support; use `.float()`", replacement=".float()")
