import ast

from migrate import knowledge
from migrate.findings import Category, Severity
from migrate.rules._device_helpers import availability_probe, chain_tops, report_node, root_name, shadowed
from migrate.rules._text import is_prose
from migrate.rules.base import Invalid, Rule
from migrate.rules.npu501_gpu_only_import import fallback_guarded_names, match_package, package_of

TRITON = "triton"
# decorators that turn a function into a Triton kernel (or wrap one): its body is Triton code,
# reported once at the decorator, not line by line
_KERNEL_DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics")


def reported(entry) -> bool:
    """Entries whose uses are reported: not the ones that work, nor info-only ones (numba's CPU JIT),
    nor packages that run on an NPU in part (`partial`, DeepSpeed): their import is noted once
    (NPU501) and the parts that do not run have their own entries (`deepspeed.ops`)."""
    return entry.status not in ("works", "partial") and entry.severity != "info"


def _owned_elsewhere(qual: str) -> bool:
    """apex.amp uses are NPU404's (one finding per construct)."""
    return qual == "apex.amp" or qual.startswith("apex.amp.")


def _metadata(qual: str, table: dict) -> bool:
    """`bnb.__version__`, `xformers.ops.__file__`: a module's metadata, not a use of GPU code
    (`pynvml.c_nvmlProcessInfo_t.__name__` is still a use of the class)."""
    if "." not in qual:
        return False
    module, last = qual.rsplit(".", 1)
    return last.startswith("__") and last.endswith("__") and ("." not in module or module in table)


def _decorator_name(ctx, decorator) -> str | None:
    return ctx.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator)


def _is_kernel(ctx, function) -> bool:
    for decorator in function.decorator_list:
        name = _decorator_name(ctx, decorator)
        if name is not None and (name in _KERNEL_DECORATORS or name.startswith("triton.")):
            return True
    return False


class GpuOnlyUse(Rule):
    """Every use of a GPU-only package after its import: calls, decorators, attributes, base
    classes, `except` types, and Triton kernel launches `kernel[grid](...)`. The import alone
    (NPU501) under-counts the work by the number of call sites; this rule makes the inventory
    complete. Names are resolved through the file's imports (`import bitsandbytes as bnb`,
    `from apex.parallel import convert_syncbn_model`), and each finding carries the alternative
    of the most specific knowledge entry (`flash_attn.ops.activations.swiglu` ->
    `torch_npu.npu_swiglu`). The body of a `@triton.jit` kernel is reported once, at its
    decorator; a launch is a subscripted call of a kernel defined in the file, or of a name
    containing `kernel` in a file that imports triton. Entries whose status is `works`
    (`deepspeed.accelerator`, `deepspeed.ops.adam`), `partial` (DeepSpeed itself: its parts that
    do not run have their own entries, such as `deepspeed.ops`) or whose severity is `info`
    (numba's CPU JIT) are not reported, nor module metadata (`bnb.__version__`), nor
    are availability probes (`bnb is not None`, `if xops:`), the fallback assignment in
    `except ImportError: bnb = None`, uses inside messages, and apex.amp (NPU404 reports it).
    Names imported under `try:` whose ImportError handler binds a fallback (`has_apex = False`) are
    optional paths: their import line is reported (NPU501), their uses are not; a handler that only
    passes or warns, raises, or imports the same package again is no fallback. The finding's
    `package` field names the package, which the summary groups by."""

    CODE = "NPU507"
    NAME = "gpu-only-use"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR  # default; each finding takes the severity of its knowledge entry
    MESSAGE = "uses a GPU-only package"
    VALID = [
        "import torch\nx = torch.zeros(3)",
        "import apex_utils\napex_utils.run()",  # a different package whose name starts the same
        "from deepspeed.accelerator import get_accelerator\nd = get_accelerator().device_name()",
        "import numba\n@numba.njit\ndef f(x): return x",
        "handlers = {}\nhandlers['a'](1)",  # a subscripted call in a file without triton
        '"""bnb.optim.Adam8bit"""\nimport os',
        "try:\n    import bitsandbytes as bnb\nexcept ImportError:\n    bnb = None\nif bnb is not None and ok:\n    pass",
        'import xformers.ops as xops\nprint(f"xformers: {xops is not None}")',
        "import triton\ndef f(triton):\n    return triton.cdiv(1, 2)",  # a parameter shadows the import
        "import torch\nattn = torch.nn.functional.scaled_dot_product_attention\ny = attn(q, k, v)",  # not GPU-only
        "import bitsandbytes as bnb\nprint(bnb.__version__)",  # module metadata
        "import deepspeed\nx = deepspeed.checkpointing.checkpoint(block, x)",  # partial: runs on NPU
        "import deepspeed\nengine, *_ = deepspeed.initialize(model=m, config=c)",
        "from deepspeed.ops.adam import FusedAdam\nopt = FusedAdam(params)",  # has an NPU op builder
        # ConvNeXt optim_factory.py: the handler binds a fallback flag; the fused optimizers are optional
        "try:\n    from apex.optimizers import FusedAdam\n    has_apex = True\nexcept ImportError:\n    has_apex = False\n"
        "def make(p, name):\n    if name == 'fusedadam':\n        return FusedAdam(p)",
    ]
    INVALID = [
        Invalid("import bitsandbytes as bnb\nopt = bnb.optim.Adam8bit(params)", count=1),
        Invalid("from apex.parallel import convert_syncbn_model\nm = convert_syncbn_model(m)", count=1),
        Invalid("import apex\nm = apex.parallel.DistributedDataParallel(m)\nn = apex.parallel.convert_syncbn_model(n)", count=2),
        Invalid("import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pid = tl.program_id(0)\ngrid = (triton.cdiv(10, 4),)\nk[grid](x, 10)", count=3),
        Invalid("import triton\nfrom .kernels import _fwd_kernel\n_fwd_kernel[(4,)](x)", count=1),
        Invalid("import pynvml\npynvml.nvmlInit()\nh = pynvml.nvmlDeviceGetHandleByIndex(0)", count=2),
        Invalid("import deepspeed\nfrom deepspeed.ops.transformer import DeepSpeedTransformerLayer\nl = DeepSpeedTransformerLayer(cfg)", count=1),
        Invalid("import pynvml\nok = pynvml.c_nvmlProcessInfo_t.__name__ == 'c_nvmlProcessInfo_t'", count=1),
        Invalid("from flash_attn.ops.activations import swiglu\ny = swiglu(a, b)", count=1),
        Invalid("import xformers.ops as xops\ny = xops.memory_efficient_attention(q, k, v)", count=1),
        Invalid("import pynvml\ntry:\n    pass\nexcept pynvml.NVMLError:\n    pass", count=1),
        Invalid("import xformers.ops.fmha\nattn = xformers.ops.fmha.memory_efficient_attention\ndef f(q, k, v):\n    return attn(q, k, v)", count=2),
        Invalid("import xformers.ops as xops\nattn = xops.memory_efficient_attention\ndef f(attn):\n    return attn(1)", count=1),  # a parameter shadows the alias
        Invalid("try:\n    from apex.optimizers import FusedAdam\nexcept ImportError:\n    pass\nopt = FusedAdam(params)", count=1),
        # gpustat nvml.py: the handler binds a name but then raises a clearer ImportError: no fallback
        Invalid("try:\n    import pynvml\nexcept ImportError as e:\n    found = None\n    raise ImportError('need nvidia-ml-py') from e\n"
                "pynvml.nvmlInit()", count=1),
        # LLaVA: the handler imports the same package under its older name: still flash_attn
        Invalid("try:\n    from flash_attn.flash_attn_interface import flash_attn_unpadded_qkvpacked_func as f\n"
                "except ImportError:\n    from flash_attn.flash_attn_interface import flash_attn_varlen_qkvpacked_func as f\n"
                "out = f(qkv)", count=1),
    ]

    def triggers(self, kb):
        return tuple({key.split(".", 1)[0] for key in knowledge.third_party()})

    def check(self, ctx):
        table = knowledge.third_party()
        kernels = self._kernels(ctx)
        kernel_bodies = {id(k) for k in kernels.values()}
        optional = fallback_guarded_names(ctx)
        for node, qual in chain_tops(ctx):
            key = match_package(qual, table)
            if key is None or not reported(table[key]) or _owned_elsewhere(qual) or _metadata(qual, table):
                continue
            if not isinstance(getattr(node, "ctx", None), ast.Load) or availability_probe(ctx, node) or is_prose(ctx, node):
                continue
            if shadowed(ctx, node) or (optional and root_name(node) in optional):
                continue
            if kernel_bodies and self._inside_kernel(ctx, node, kernel_bodies):
                continue
            yield self._finding(ctx, report_node(ctx, node), qual, key, table)
        yield from self._alias_calls(ctx, table)
        if kernels or TRITON in ctx.imports.values() or any(v.startswith("triton.") for v in ctx.imports.values()):
            yield from self._launches(ctx, kernels, table)

    def _alias_calls(self, ctx, table):
        """Calls through a module-level alias of a GPU-only function
        (`xformers_attention = xformers.ops.fmha.memory_efficient_attention`; `xformers_attention(q, k, v)`):
        the alias line is reported above, each call here."""
        aliases: dict[str, str] = {}
        for statement in ctx.tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
                    and isinstance(statement.value, (ast.Attribute, ast.Name)):
                qual = ctx.qualname(statement.value)
                key = match_package(qual, table) if qual else None
                if key is not None and reported(table[key]) and not _owned_elsewhere(qual):
                    aliases[statement.targets[0].id] = qual
        if not aliases:
            return
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Name) and func.id in aliases and ctx.qualname(func) is None and not shadowed(ctx, func):
                qual = aliases[func.id]
                yield self._finding(ctx, call, qual, match_package(qual, table), table)

    def _kernels(self, ctx) -> dict[str, ast.AST]:
        out = {}
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.nodes.get(kind, ()):
                if function.decorator_list and _is_kernel(ctx, function):
                    out[function.name] = function
        return out

    @staticmethod
    def _inside_kernel(ctx, node, kernel_bodies) -> bool:
        child, parent = node, ctx.parent(node)
        while parent is not None:
            if id(parent) in kernel_bodies:
                return child not in parent.decorator_list
            child, parent = parent, ctx.parent(parent)
        return False

    def _launches(self, ctx, kernels, table):
        if TRITON not in table:
            return
        entry = table[TRITON]
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if not isinstance(func, ast.Subscript):
                continue
            target = func.value
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name is None:
                continue
            if name not in kernels and "kernel" not in name.lower():
                continue
            text = f"triton: launch of the Triton kernel `{name}[grid](...)` ({entry.status} on Ascend NPU)"
            if entry.alternative:
                text += f"; NPU alternative: {entry.alternative}"
            yield self.finding(ctx, call, text, severity=Severity.parse(entry.severity), package=TRITON)

    def _finding(self, ctx, node, qual, key, table):
        entry = table[key]
        package = package_of(key, table)
        text = f"{package}: `{qual}` targets NVIDIA GPUs ({entry.status} on Ascend NPU)"
        if entry.alternative:
            text += f"; NPU alternative: {entry.alternative}"
        if entry.alternative_api:
            text += f" (see `{entry.alternative_api}`)"
        return self.finding(ctx, node, text, severity=Severity.parse(entry.severity), replacement=entry.alternative_api,
                            package=package)
