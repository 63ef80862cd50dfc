import ast
import functools

from migrate import knowledge
from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule

# Method names that are also common methods of non-tensor objects, so `x.name()` alone does not
# say that x is a tensor: `mode` is pandas' DataFrame/Series.mode (checked against pandas and
# numpy.ndarray for every `Tensor.*` name in the data). For these only qualified calls count
# (`torch.mode(x)`, `torch.Tensor.mode(x)`).
_SHARED_METHOD_NAMES = frozenset({"mode"})


@functools.cache
def _builtin_method_names() -> frozenset[str]:
    names: set[str] = set()
    for kind in (str, bytes, list, dict, set, frozenset, tuple, int, float, complex):
        names.update(dir(kind))
    return frozenset(names)


@functools.cache
def _tables(version: str) -> tuple[dict, dict, tuple]:
    """(qualified name -> (api, ops), method name -> (api, ops), trigger words) for a version."""
    apis = sorted(knowledge.load(version).unsupported_apis().items())
    functions: dict[str, tuple[str, tuple[str, ...]]] = {}
    methods: dict[str, tuple[str, tuple[str, ...]]] = {}
    for api, ops in apis:
        if api.startswith("Tensor."):
            name = api[len("Tensor.") :]
            functions[f"torch.Tensor.{name}"] = (api, ops)
            if name not in _SHARED_METHOD_NAMES and name not in _builtin_method_names():
                methods[name] = (api, ops)
        else:
            functions[api] = (api, ops)
    triggers = tuple(sorted({api.rsplit(".", 1)[-1] for api, _ in apis}))
    return functions, methods, triggers


def _tables_for(kb):
    return _tables(kb.version)


# cuDNN / MIOpen library kernels: CUDA (ROCm) only by name, whatever the op tables say
_GPU_LIBRARY_OPS = ("cudnn_", "_cudnn_", "miopen_", "_miopen_")
_JIT_GET_OPERATION = "torch._C._jit_get_operation"


@functools.cache
def _aten_alternatives() -> dict[str, dict]:
    return knowledge.read_toml("data/aten_alternatives.toml").get("op", {})


def _direct_aten_ops(ctx, call) -> list[tuple[str, str]] | None:
    """[(shown, op)] for `torch.ops.aten.X(...)`, `torch.ops.aten.X.overload(...)` and
    `torch._C._jit_get_operation("aten::X")`."""
    name = ctx.qualname(call.func)
    if name is None:
        return None
    if name.startswith("torch.ops.aten."):
        parts = name.split(".")
        if len(parts) in (4, 5):
            return [(name, parts[3])]
    elif name == _JIT_GET_OPERATION and call.args:
        # a literal, or literals picked at run time (`"aten::a" if transpose else "aten::b"`)
        return [
            (f"{name}({node.value!r})", node.value[len("aten::"):].split(".", 1)[0])
            for node in ast.walk(call.args[0])
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("aten::")
        ]
    return None


class UnsupportedOp(Rule):
    """A torch API whose aten operator(s) have no NPU kernel in the target torch_npu version:
    torch_npu then falls back to running the op on the CPU (its wheels carry that path and the
    `TORCH_NPU_FALLBACK_CPU_DISABLE` switch), which is slow, copies data across, breaks graph
    capture, and fails outright where the fallback is disabled: a warning, not an error. The API -> operator table is data: traced from torch and checked against each
    torch_npu wheel's kernel list (`kb.unsupported_apis()`), so the answer changes with
    `--torch-npu-version`. Calls are matched by alias-resolved name (`torch.linalg.eigh`,
    `import torch.linalg as LA; LA.eigh`, `from torch.linalg import eigh`, `nn.HuberLoss()`).
    `Tensor.X` entries are also matched as method calls `x.X(...)` on any receiver that is not
    an imported module, except names shared with common non-tensor objects (builtin container
    methods, pandas' `.mode()`): those only match in qualified form. Ordinary ops with kernels
    (cross_entropy, MaxPool2d, clip_grad_norm_...) are never reported because they are not in
    the data."""

    CODE = "NPU601"
    NAME = "unsupported-op"
    CATEGORY = Category.OPS
    SEVERITY = Severity.WARNING
    MESSAGE = "uses an operator with no NPU kernel"
    VALID = [
        "import torch\ny = torch.nn.functional.cross_entropy(a, b)",
        "import torch\ntorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
        "import torch.nn as nn\npool = nn.MaxPool2d(2)",
        "import numpy as np\nw = np.linalg.eigh(a)",  # numpy, not torch
        "import pandas as pd\nm = df.mode()",  # pandas' mode: a shared method name
        '"""torch.linalg.eigh is slow"""',
        "import torch\ny = torch.ops.aten.add(x, x)",  # has an NPU kernel
        "import torch\nop = torch._C._jit_get_operation('aten::grid_sampler_2d_backward')",
        "import torch\ny = torch.ops.mylib.cudnn_thing(x)",  # not aten
    ]
    INVALID = [
        Invalid("import torch\nw, v = torch.linalg.eigh(a)", count=1),
        Invalid("import torch.linalg as LA\nw, v = LA.eigh(a)", count=1),
        Invalid("from torch.linalg import eigh\nw, v = eigh(a)", count=1),
        Invalid("y = x.logcumsumexp(dim=0)", count=1),
        Invalid("import torch\ny = torch.logcumsumexp(x, 0)", count=1),
        Invalid("import torch\nv, i = torch.mode(x)", count=1),
        Invalid("import torch\nc = torch.ops.aten._weight_int4pack_mm(x, w, 128, sz)", count=1),
        Invalid("import torch\nw = torch.ops.aten._convert_weight_to_int4pack.default(q, 8)", count=1),
        Invalid("import torch\nop = torch._C._jit_get_operation('aten::cudnn_convolution_backward_weight')", count=1),
        Invalid("import torch\nop = torch._C._jit_get_operation('aten::add' if t else 'aten::cudnn_convolution_transpose_backward_weight')", count=1),
    ]

    def triggers(self, kb):
        return _tables_for(kb)[2] + ("ops.aten", "_jit_get_operation")

    def check(self, ctx):
        kb = ctx.kb
        functions, methods, _ = _tables_for(kb)
        for call in ctx.nodes.get(ast.Call, ()):
            direct = _direct_aten_ops(ctx, call)
            if direct is not None:
                for shown, op in direct:
                    finding = self._direct(ctx, call, kb, shown, op)
                    if finding is not None:
                        yield finding  # one per call
                        break
                continue
            func = call.func
            name = ctx.qualname(func)
            hit = None
            if name is not None:
                hit = functions.get(name)
            elif isinstance(func, ast.Attribute):
                hit = methods.get(func.attr)
            if hit is None:
                continue
            api, ops = hit
            shown = api if name is None else name
            yield self.finding(
                ctx,
                call,
                f"`{shown}` needs aten op{'s' if len(ops) > 1 else ''} {', '.join(ops)} with no NPU kernel in "
                f"torch_npu {kb.version}: it fails or falls back to the CPU; move it to the CPU explicitly or replace it",
            )

    def _direct(self, ctx, call, kb, shown: str, op: str):
        """A direct call of an aten operator that has no NPU kernel (per the wheel's kernel list)
        or is a cuDNN / MIOpen library kernel."""
        if op.startswith(_GPU_LIBRARY_OPS):
            why = "a cuDNN/MIOpen library kernel (CUDA/ROCm only)"
        elif kb.op_supported(op) is False:
            why = f"no NPU kernel in torch_npu {kb.version}"
        else:
            return None
        text = f"`{shown}` calls aten op {op}: {why}"
        alternative = _aten_alternatives().get(op)
        if alternative is not None and kb.has_api(alternative["alternative_api"]):
            text += f"; NPU: {alternative['alternative']}"
            return self.finding(ctx, call, text, replacement=alternative["alternative_api"])
        return self.finding(ctx, call, text + "; replace it with a torch op that has an NPU kernel")
