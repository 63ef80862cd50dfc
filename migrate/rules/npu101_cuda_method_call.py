import ast

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule


class CudaMethodCall(Rule):
    """`.cuda()` moves a tensor or module to a CUDA device, which does not exist on an Ascend host.
    torch_npu adds the equivalent `.npu()` to tensors and modules, with the same arguments
    (device index, `non_blocking`). Flagged on any receiver: a call named `cuda` is almost always
    torch's, and a false positive costs one look while a miss costs a crash on the cluster."""

    CODE = "NPU101"
    NAME = "cuda-method-call"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.ERROR
    FIXABLE = True
    MESSAGE = "`.cuda()` has no device on an NPU host; use `.npu()`"
    TRIGGERS = ("cuda",)
    VALID = [
        "model.npu()",
        "x = tensor.to(device)",
        "cfg.cuda = False",  # an attribute, not a call
        "if args.cuda: pass",
        "import numba\nnumba.cuda.jit(f)",  # numba.cuda.jit is not a `.cuda()` call
    ]
    INVALID = [
        Invalid("model.cuda()", expected="model.npu()"),
        Invalid("x = x.cuda(non_blocking=True)", expected="x = x.npu(non_blocking=True)"),
        Invalid("net = Net().cuda(local_rank)", expected="net = Net().npu(local_rank)"),
        Invalid("y = (a + b) . cuda ()", expected="y = (a + b) . npu ()"),
    ]

    def check(self, ctx):
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "cuda":
                name = ctx.qualname(func)
                if name is not None and not name.startswith("torch."):
                    continue  # e.g. numba.cuda(...) / cupy.cuda(...): not a torch object
                # at `.cuda(...)` itself, not at the start of a multi-line chain above it
                _, _, end_line, end_col = ctx.span(func)
                _, _, call_end_line, call_end_col = ctx.span(call)
                start = end_col - len(func.attr)
                line_text = ctx.lines[end_line - 1]
                dot = line_text.rfind(".", 0, start)
                if dot >= 0 and not line_text[dot + 1 : start].strip():
                    start = dot  # `.cuda(...)` with its dot, when it is on the same line
                where = (end_line, start, call_end_line, call_end_col)
                yield self.finding(ctx, where, edits=[ctx.replace_attr_name(func, "npu")], replacement=".npu()")
