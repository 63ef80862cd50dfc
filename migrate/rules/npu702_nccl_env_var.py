import re

from migrate import knowledge
from migrate.findings import Category, Severity
from migrate.rules._env import hits
from migrate.rules.base import Invalid, Rule, Valid

# NCCL's own variables and PyTorch's process-group variables for NCCL
_PATTERN = re.compile(r"(?<![A-Za-z0-9_])(?:TORCH_)?NCCL_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])")


class NcclEnvVar(Rule):
    """`NCCL_*` (and PyTorch's `TORCH_NCCL_*`) environment variables tune NVIDIA's collective
    library; HCCL does not read them. The message gives the HCCL counterpart from the knowledge
    base's env_vars table when there is one (e.g. NCCL_SOCKET_IFNAME -> HCCL_SOCKET_IFNAME,
    TORCH_NCCL_ASYNC_ERROR_HANDLING -> HCCL_ASYNC_ERROR_HANDLING) and says so when there is none
    or the variable is unknown. Never rewritten: value syntax and units differ (NCCL_BUFFSIZE is
    bytes, HCCL_BUFFSIZE megabytes), so each setting needs a look. Found in the same places as
    NPU701 (Python env access and command strings, launcher lines; not comments or echo text)."""

    CODE = "NPU702"
    NAME = "nccl-env-var"
    CATEGORY = Category.ENVIRONMENT
    SEVERITY = Severity.WARNING
    KINDS = ("python", "launcher")
    MESSAGE = "NCCL environment variable: HCCL does not read it"
    TRIGGERS = ("NCCL_",)
    VALID = [
        '"""Set NCCL_DEBUG=INFO when debugging."""',
        'import torch\nok = torch.distributed.is_nccl_available()',
        'import os\nos.environ["HCCL_CONNECT_TIMEOUT"] = "1200"',
        Valid("# export NCCL_DEBUG=INFO\n", kind="launcher"),
        Valid('echo "tip: NCCL_DEBUG=INFO shows more"\n', kind="launcher"),
    ]
    INVALID = [
        Invalid('import os\nos.environ["NCCL_DEBUG"] = "INFO"', count=1),
        Invalid('import os\nos.environ["NCCL_SOCKET_IFNAME"] = "eth0"', count=1),
        Invalid("export NCCL_IB_DISABLE=1\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n", kind="launcher", count=2),
        Invalid("NCCL_P2P_LEVEL=NVL torchrun train.py\n", kind="launcher", count=1),
    ]

    def check(self, ctx):
        table = knowledge.env_vars()
        for hit in hits(ctx, _PATTERN):
            entry = table.get(hit.name)
            if entry is not None and entry.npu:
                npu = entry.counterpart(getattr(ctx, "kb", None))  # the target wheel's spelling
                text = f"`{hit.name}` is read by NCCL only; the HCCL counterpart is `{npu}`"
                if entry.note:
                    text += f" ({entry.note})"
                yield self.finding(ctx, hit.span, text, replacement=npu)
            elif entry is not None:
                yield self.finding(ctx, hit.span, f"`{hit.name}` is read by NCCL only and has no HCCL counterpart: {entry.note}")
            else:
                yield self.finding(ctx, hit.span, f"`{hit.name}` is read by NCCL only; no HCCL counterpart is known (remove it or find the HCCL_* setting in the CANN docs)")
