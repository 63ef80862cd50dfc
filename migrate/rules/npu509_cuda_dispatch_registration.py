import re

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule, Valid

# TORCH_LIBRARY_IMPL(namespace, dispatch key, module): keys naming CUDA (CUDA, AutogradCUDA, SparseCUDA...)
_IMPL = re.compile(r"\bTORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w*CUDA\w*)\s*,")


class CudaDispatchRegistration(Rule):
    """`TORCH_LIBRARY_IMPL(ns, CUDA, m)` in a C++ source registers CUDA kernels for the ops of
    `torch.ops.<ns>`; on an Ascend NPU those ops have no kernel for NPU tensors. The kernels
    must be ported to Ascend C and registered under torch_npu's dispatch key (`PrivateUse1`),
    or the ops implemented with torch / torch_npu ops. One finding per registration block; the
    namespace's users elsewhere in the repository are NPU508."""

    CODE = "NPU509"
    NAME = "cuda-dispatch-registration"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("cpp-source", "cuda-source")
    TRIGGERS = ("TORCH_LIBRARY_IMPL",)
    MESSAGE = "registers CUDA kernels for a custom op namespace"
    VALID = [
        Valid("TORCH_LIBRARY_IMPL(my_ops, CPU, m) {}\n", kind="cpp-source", filename="ops.cpp"),
        Valid("// TORCH_LIBRARY_IMPL(my_ops, CUDA, m) commented out\n", kind="cpp-source", filename="ops.cpp"),
    ]
    INVALID = [
        Invalid("TORCH_LIBRARY_IMPL(my_ops, CUDA, m) {\n  m.impl(\"add\", &add_cuda);\n}\n", kind="cpp-source", filename="ops.cpp", count=1),
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
