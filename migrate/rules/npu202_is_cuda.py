import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import guards_optional_fast_path
from migrate.rules.base import Invalid, Rule


class IsCuda(Rule):
    """`tensor.is_cuda` is False for every tensor on an Ascend host, so code guarded by it (moving
    data, choosing kernels, pinning memory) silently takes the CPU path. torch_npu registers its
    device through torch's privateuse1 backend, which generates `Tensor.is_npu` (and for
    `PackedSequence`); the rewrite to `.is_npu` is offered only when the knowledge data confirms the
    target torch_npu does that. Reads only: assignments such as `cfg.is_cuda = True` and reads of an
    attribute the file itself assigns (`self.is_cuda`) are a program's own flag and are left alone."""

    CODE = "NPU202"
    NAME = "is-cuda"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = "`.is_cuda` is always False on an NPU host; use `.is_npu`"
    TRIGGERS = ("is_cuda",)
    VALID = [
        "if x.is_npu: pass",
        "cfg.is_cuda = False",
        "self.is_cuda = use_gpu\nif self.is_cuda: pass",  # the program's own flag
        "def f(is_cuda): return is_cuda",
        "msg = 'x.is_cuda'",
        # an optional CUDA fast path that falls back when it fails (openai/whisper timing.py)
        "def dtw(x):\n    if x.is_cuda:\n        try:\n            return dtw_cuda(x)\n        except RuntimeError:\n            warn('falling back')\n    return dtw_cpu(x)",
    ]
    INVALID = [
        Invalid("if x.is_cuda: pass", expected="if x.is_npu: pass", count=1),
        Invalid("pin = not batch[0].is_cuda", expected="pin = not batch[0].is_npu"),
        Invalid("flags = [t.is_cuda for t in ts]", expected="flags = [t.is_npu for t in ts]"),
        # the kernel is required: the handler re-raises (or there is no try at all)
        Invalid("if x.is_cuda:\n    try:\n        y = k(x)\n    except RuntimeError:\n        raise\nelse:\n    y = x", count=1),
        Invalid("if not x.is_cuda:\n    raise NotImplementedError('CPU not supported')", count=1),
    ]

    def check(self, ctx):
        kb = ctx.kb
        confirmed = bool(getattr(kb, "tensor_npu_methods", False))
        attributes = [n for n in ctx.nodes.get(ast.Attribute, ()) if n.attr == "is_cuda"]
        own_flags = {ctx.segment(n.value) for n in attributes if not isinstance(n.ctx, ast.Load)}
        for node in attributes:
            if not isinstance(node.ctx, ast.Load) or ctx.segment(node.value) in own_flags \
                    or guards_optional_fast_path(ctx, node):
                continue
            name = ctx.qualname(node)
            if name is not None and not name.startswith("torch"):
                continue  # e.g. an attribute of some other imported module
            if confirmed:
                yield self.finding(ctx, node, edits=[ctx.replace_attr_name(node, "is_npu")], replacement="is_npu")
            else:
                message = (
                    f"`.is_cuda` is always False on an NPU host; the knowledge data for torch_npu "
                    f"{getattr(kb, 'version', '?')} does not confirm `Tensor.is_npu`: test `x.device.type == \"npu\"`"
                )
                yield self.finding(ctx, node, message, fixable=False)
