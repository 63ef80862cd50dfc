import ast
import functools
import re

from migrate import knowledge
from migrate.findings import Category, Edit, Severity
from migrate.rules._env import hits
from migrate.rules._text import string_constants, word_pattern
from migrate.rules.base import Invalid, Rule, Valid

_OWN_RULES = re.compile(r"^(?:CUDA_VISIBLE_DEVICES|(?:TORCH_)?NCCL_.*)$")  # NPU701 / NPU702


@functools.lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    return tuple(sorted(name for name in knowledge.env_vars() if not _OWN_RULES.match(name)))


@functools.lru_cache(maxsize=1)
def _pattern() -> re.Pattern:
    return word_pattern(_names())


# the CUDA family's prefixes: a variable with one of them that the table does not list is CUDA's too
# (CUDA_DEVICE_MAX_CONNECTIONS, NVIDIA_TF32_OVERRIDE, CUDNN_LOGINFO_DBG, ...), reported as unknown
_FAMILY = re.compile(
    r"(?<![A-Za-z0-9_])(?:CUDA|CUBLAS|CUBLASLT|CUDNN|CUFFT|CURAND|CUSPARSE|NVIDIA|TORCH_CUDA|PYTORCH_CUDA|PYTORCH_NVML)_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])"
)
_FAMILY_TRIGGERS = ("CUDA_", "CUBLAS", "CUDNN_", "CUFFT_", "CURAND_", "CUSPARSE_", "NVIDIA_")


_ENV_ACCESS = ("environ", "getenv", "putenv", "unsetenv", "env")


def _named_outside_the_environment(ctx) -> frozenset:
    """(line, name) of Python strings that are exactly a CUDA-family name the table does not know but
    are not handed to the environment: `{"cudnn": "CUDNN_ATTENTION"}` (torch's SDPA backend names),
    hipify's `("CUDA_R_16F", ...)` mapping rows. A name the table lists is an environment variable
    wherever it is spelled; an unknown family name is one only where the environment is read or
    written (`os.environ[...]`, `getenv(...)`, `env={...}`, `... in os.environ`) or shell-style."""
    out = set()
    for node in string_constants(ctx):
        value = node.value
        if not _FAMILY.fullmatch(value) or value in knowledge.env_vars():
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Dict):  # a key or value of a dict: the dict's own context decides
            parent = ctx.parent(parent)
        if isinstance(parent, ast.keyword):
            context = parent.arg or ""
        elif isinstance(parent, ast.Subscript):
            context = ctx.segment(parent.value) or ""
        elif isinstance(parent, ast.Call):
            context = ctx.segment(parent.func) or ""
        elif isinstance(parent, ast.Compare):
            context = " ".join(ctx.segment(c) or "" for c in parent.comparators)
        else:
            context = ""
        if not any(word in context.lower() for word in _ENV_ACCESS):
            out.add((ctx.span(node)[0], value))
    return frozenset(out)


class CudaEnvVar(Rule):
    """CUDA environment variables other than CUDA_VISIBLE_DEVICES (NPU701) and NCCL_* (NPU702),
    taken from the knowledge base's env_vars table: PYTORCH_CUDA_ALLOC_CONF,
    CUDA_LAUNCH_BLOCKING, CUDA_HOME, TORCH_CUDA_ARCH_LIST, ... Where the table names an Ascend
    counterpart (PYTORCH_CUDA_ALLOC_CONF -> PYTORCH_NPU_ALLOC_CONF, CUDA_LAUNCH_BLOCKING ->
    ASCEND_LAUNCH_BLOCKING) the name is rewritten; otherwise the variable is reported with the
    table's note. Same places and exclusions as NPU701. A variable absent from the table but named
    like CUDA's (CUDA_*, CUBLAS_*, CUDNN_*, NVIDIA_*, TORCH_CUDA_*, PYTORCH_CUDA_*, ...:
    Megatron's CUDA_DEVICE_MAX_CONNECTIONS) is reported as a CUDA setting the table does not know."""

    CODE = "NPU703"
    NAME = "cuda-env-var"
    CATEGORY = Category.ENVIRONMENT
    SEVERITY = Severity.WARNING
    FIXABLE = True
    KINDS = ("python", "launcher")
    MESSAGE = "CUDA environment variable: the Ascend runtime does not read it"
    VALID = [
        '"""PYTORCH_CUDA_ALLOC_CONF tunes the allocator."""',
        'import os\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True"',
        Valid("# export CUDA_LAUNCH_BLOCKING=1\n", kind="launcher"),
        'import os\nrows = [("CUDA_HOME", home), ("torch", torch_version)]',  # a display label
        # torch/nn/attention: a backend's name, not a variable of the environment
        'BACKENDS = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION"}\nname = BACKENDS["cudnn"]',
        'ROWS = [("CUDA_ARRAY_DESCRIPTOR", "HIP_ARRAY_DESCRIPTOR")]',  # torch/utils/hipify: an API type's name
    ]
    INVALID = [
        Invalid(
            'import os\nos.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"',
            expected='import os\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True"',
        ),
        Invalid(
            "export CUDA_LAUNCH_BLOCKING=1\n",
            expected="export ASCEND_LAUNCH_BLOCKING=1\n",
            kind="launcher",
        ),
        Invalid('import os\nos.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"', count=1),
        Invalid('import os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"', count=1),
        Invalid('import os\nif "CUDA_MODULE_LOADING_X" in os.environ:\n    v = os.getenv("CUDA_FOO_SETTING")\n'
                'subprocess.run(cmd, env={"NVIDIA_BAR": "1"})', count=3),
        Invalid("export CUDA_DEVICE_MAX_CONNECTIONS=1\nNVIDIA_TF32_OVERRIDE=0 torchrun train.py\n", kind="launcher", count=2),
    ]

    def triggers(self, kb):
        return _names() + _FAMILY_TRIGGERS

    def check(self, ctx):
        table = knowledge.env_vars()
        not_env = _named_outside_the_environment(ctx) if ctx.kind == "python" else frozenset()
        for hit in hits(ctx, _FAMILY):
            if (hit.line, hit.name) in not_env:
                continue
            if hit.name not in table and not _OWN_RULES.match(hit.name):
                yield self.finding(
                    ctx, hit.span,
                    f"`{hit.name}` is a CUDA-family setting npu-migrate's table does not know: the Ascend runtime does "
                    "not read it; find the Ascend setting it stands for (CANN / torch_npu docs) or remove it",
                )
        for hit in hits(ctx, _pattern()):
            entry = table[hit.name]
            if entry.npu:
                yield self.finding(
                    ctx, hit.span, f"`{hit.name}` is CUDA's; the Ascend counterpart is `{entry.npu}` ({entry.note})",
                    edits=[Edit(hit.line, hit.column, hit.line, hit.end_column, entry.npu)], replacement=entry.npu,
                )
            else:
                yield self.finding(ctx, hit.span, f"`{hit.name}` is CUDA's and has no Ascend counterpart: {entry.note}")
