import re

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule, Valid

# TORCH_LIBRARY_IMPL(namespace, dispatch key, module): keys naming CUDA (CUDA, AutogradCUDA, SparseCUDA...)
_IMPL = re.compile(r"\bTORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w*CUDA\w*)\s*,")


class CudaDispatchRegistration(Rule):
    """`TORCH_LIBRARY_IMPL(ns, CUDA, m)` in a CUDA source (`.cu`) registers CUDA kernels for the ops of
    `torch.ops.<ns>`; on an Ascend NPU those ops have no kernel for NPU tensors. The kernels
    must be ported to Ascend C and registered under torch_npu's dispatch key (`PrivateUse1`),
    or the ops implemented with torch / torch_npu ops. One finding per registration block in a CUDA
    source; the namespace's users elsewhere in the repository are NPU508. A registration in a C++
    file (`.cpp`) is not reported: it belongs to the kernel that its built `.cu` (NPU506, at `:1`)
    stands for, and an unbuilt `.cpp` is no finding of a build (label rule: `.cpp` files are not
    labelled; flute qgemm.cpp, set 13, and RWKV-LM `*_op.cpp`, set 21, were not)."""

    CODE = "NPU509"
    NAME = "cuda-dispatch-registration"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("cuda-source",)
    TRIGGERS = ("TORCH_LIBRARY_IMPL",)
    MESSAGE = "registers CUDA kernels for a custom op namespace"
    VALID = [
        Valid("TORCH_LIBRARY_IMPL(my_ops, CPU, m) {}\n", kind="cuda-source", filename="ops.cu"),
        Valid("// TORCH_LIBRARY_IMPL(my_ops, CUDA, m) commented out\n", kind="cuda-source", filename="ops.cu"),
        # RWKV-LM cuda/wkv7_op.cpp: the C++ half of a JIT build whose `.cu` is reported at its first line
        Valid("TORCH_LIBRARY_IMPL(wind_backstepping, CUDA, m) {\n  m.impl(\"forward\", &forward);\n}\n",
              kind="cpp-source", filename="wkv7_op.cpp"),
    ]
    INVALID = [
        Invalid("TORCH_LIBRARY_IMPL(my_ops, CUDA, m) {\n  m.impl(\"add\", &add_cuda);\n}\n", kind="cuda-source", filename="ops.cu", count=1),
        Invalid("TORCH_LIBRARY_IMPL(my_ops, AutogradCUDA, m) {}\n", kind="cuda-source", filename="ops.cu", count=1),
    ]

    def check(self, ctx):
        for number, line in enumerate(ctx.lines, start=1):
            if "TORCH_LIBRARY_IMPL" not in line:
                continue
            match = _IMPL.search(line)
            if match is None or line.lstrip().startswith("//"):
                continue
            namespace, key = match.group(1), match.group(2)
            message = (
                f"`TORCH_LIBRARY_IMPL({namespace}, {key}, ...)` registers CUDA kernels for `torch.ops.{namespace}`: "
                "port them to Ascend C and register them under torch_npu's dispatch key `PrivateUse1`, "
                "or implement the ops with torch / torch_npu ops"
            )
            yield self.finding(ctx, (number, match.start(), number, match.end()), message)
