import ast
import re

from migrate import (
    callable_aliases,
    cuda_tested_entries,
    cute_kernels,
    flag_listed_branches,
    hydra_targets,
    knowledge,
    loaded_modules,
    none_stand_ins,
    package_commands,
    rebound_imports,
    tilelang_kernels,
)
from migrate.context import walk_nodes
from migrate.findings import Category, Severity
from migrate.imported_kernels import imported_kernel_names, kernel_package
from migrate.reexports import triton_kernel_decorator
from migrate.rules._device_helpers import annotation as _annotation
from migrate.rules._device_helpers import availability_probe, binding_scope, chain_tops, report_node, root_name, shadowed
from migrate.rules._text import is_prose
from migrate.rules.base import Invalid, Rule, Valid
from migrate.rules.npu501_gpu_only_import import (
    availability_guard,
    fallback_guarded_names,
    guarded_use,
    match_package,
    needs_a_look,
    package_of,
    unbound_without_package,
)

TRITON = "triton"
NUMBA_CUDA = "numba.cuda"
# decorators that turn a function into a Triton kernel (or wrap one: reexports.triton_kernel_decorator): its body
# is Triton code, reported once at the decorator, not line by line
# Triton's host-side helpers: plain Python around a kernel (grid arithmetic, autotuning configurations,
# compiler exceptions) with no GPU code of their own. They go with the kernel they serve, whose decorator,
# launch and import are the lines that change. From triton 2.0.0's python/triton/__init__.py
# (triton-lang/triton @019ac5cb4c2e): `cdiv`, `next_power_of_2` (triton.utils), `Config` (triton.autotuner),
# `OutOfResources`, `CompilationError` (triton.compiler). Not among them (label ruling (L51)): the `testing` module
# (`do_bench`, `do_bench_cudagraph`, `Benchmark`, `@perf_report`: they time kernels on the GPU), `triton.runtime.driver`
# and `KernelInterface` (a class built on it launches kernels): each call, decorator and base class is a use.
_TRITON_HOST = frozenset({"triton.cdiv", "triton.next_power_of_2", "triton.Config",
                          "triton.OutOfResources", "triton.CompilationError",
                          # host value containers from triton.tools (read in triton-lang/triton python/triton/tools,
                          # tensor_descriptor.py @e0f490b6: a @dataclass of base tensor, shape, strides, block_shape that
                          # only asserts alignment; mxfp.py @62f5073a: MXFP4Tensor / MXScaleTensor convert with torch ops
                          # on the data's own device): the kernel they are handed to is the use (labeller note 61a,
                          # as (L54)); their import is NPU501's
                          "triton.tools.tensor_descriptor.TensorDescriptor", "triton.tools.mxfp.MXFP4Tensor",
                          "triton.tools.mxfp.MXScaleTensor"})
_TRITON_HOST_MODULES = ("triton.compiler.OutOfResources", "triton.compiler.CompilationError")
# `triton.language` read on the host, outside any kernel, as a value: a dtype handed to a kernel as a constexpr
# argument (`compute_type = tl.bfloat16 if ... else tl.float16`) or a module constant made for the kernels
# (`_kAlpha = tl.constexpr(math.sqrt(2.0 / math.pi))`): no GPU code runs there, the kernel that reads it is the use
# (label rule 33b-11).
TRITON_LANGUAGE = "triton.language"


def _triton_host_helper(qual: str) -> bool:
    return qual in _TRITON_HOST or any(qual == m or qual.startswith(m + ".") for m in _TRITON_HOST_MODULES)


def _decorator_argument(node, decorator) -> bool:
    """`node` lies in the arguments of the call `decorator`, not in what it calls."""
    if not isinstance(decorator, ast.Call):
        return False
    return any(node is n for a in (*decorator.args, *decorator.keywords) for n in walk_nodes(a))


def _triton_language_value(ctx, node, qual: str) -> bool:
    """A `triton.language` name read as a value on the host (a dtype, `tl.constexpr(...)`; see TRITON_LANGUAGE), not
    a decorator, a base class or a call of any other of its functions."""
    if not qual.startswith(TRITON_LANGUAGE + "."):
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return qual.rsplit(".", 1)[1] == "constexpr"
    if isinstance(parent, ast.ClassDef) or isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a base class, a decorator
    return True


# numba's CUDA kernels and device functions (`@cuda.jit`, `@cuda.jit(device=True)`): the same, their
# body (`cuda.local.array`, `cuda.blockIdx.x`) is rewritten with the kernel, reported at the decorator
# (migrate/imported_kernels.py's kernel_package tells both kinds, for this rule and for launches across modules)


def reported(entry) -> bool:
    """Entries whose uses are reported: not the ones that work, nor info-only ones (numba's CPU JIT),
    nor packages that run on an NPU in part (`partial`, DeepSpeed): their import is noted once
    (NPU501) and the parts that do not run have their own entries (`deepspeed.ops`)."""
    return entry.status not in ("works", "partial") and entry.severity != "info"


# Methods every torch module / optimizer / plain object has: calling them on an object a GPU-only
# package built is not a use of the package's own API (`opt.step()` of a bitsandbytes optimizer
# is counted at its construction). From torch.nn.Module's and torch.optim.Optimizer's public methods.
_GENERIC_METHODS = frozenset({
    "to", "cuda", "cpu", "npu", "eval", "train", "parameters", "named_parameters", "buffers",
    "named_buffers", "children", "named_children", "modules", "named_modules", "state_dict",
    "load_state_dict", "zero_grad", "step", "half", "float", "double", "bfloat16", "type", "apply",
    "requires_grad_", "register_buffer", "register_parameter", "add_module", "get_submodule",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_backward_hook", "add_param_group", "extra_repr", "share_memory", "get", "items", "keys",
    "values", "append", "update", "close",
})


def _type_check(ctx, node) -> bool:
    """The class tested by `isinstance(value, dr.ops.RasterizeGLContext)` / `issubclass(...)` or caught by `except`, alone or in a tuple:
    no package code runs there, the line stays as written (set 24b's rule 24b-14, 25b-8: not a call, construction or
    base class)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Tuple):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.ExceptHandler) and parent.type is node:
        return True  # `except pynvml.NVMLError:` names the class the same way (label ruling 26b-2, (L40))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "__get__" \
            and len(parent.args) == 2 and parent.args[1] is node:
        # the owner handed to a descriptor's `__get__` (`m.forward = forward.__get__(m, LlamaAttention)`: the repository's
        # function bound as a method of `m`) names the class and runs none of its code (label ruling (L35), note 60e)
        return True
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance", "issubclass") \
        and len(parent.args) == 2 and parent.args[1] is node and ctx.qualname(parent.func) is None


def _type_checked_binding(ctx, node) -> bool:
    """`cls = bnb.nn.Linear4bit` (the whole value of a plain name's assignment) where every read of that name in its
    scope is a type check (`isinstance(module, cls)`): the binding only names the class for those checks, and a type
    check runs none of the package's code (label rulings (L35) with (L52); labeller note 57b on MedicalGPT's
    `find_all_linear_names`). A name read anywhere else (called, returned, handed on) keeps the binding a use."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    scope = binding_scope(ctx, parent.targets[0], name)
    if scope is None:  # a module-level name may be read from other modules: not followed
        return False
    reads = [n for n in walk_nodes(scope) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(_type_check(ctx, n) for n in reads)


def _constant_argument(ctx, node, qual: str) -> bool:
    """A package constant handed to a call (`device.get_attribute(cuda.device_attribute.L2_CACHE_SIZE)`: an enum
    member named in capitals): no package code runs at the read; the call it is given to is the use when it is the
    package's, a method call on the package's object is not (L12; set 25b's rule 25b-16)."""
    last = qual.rsplit(".", 1)[-1]
    parent = ctx.parent(node)
    return len(last) > 1 and last.isupper() and isinstance(parent, (ast.Call, ast.keyword)) and getattr(parent, "func", None) is not node


def _plugin_kept(qual: str, entry) -> bool:
    """A name of the package's public API that its Ascend backend plugin runs as written (`npu_plugin`, `plugin_api`:
    `vllm.LLM`, `vllm.SamplingParams`, `LLMEngine.from_engine_args` with vllm-ascend installed): the import is the line
    that changes (label ruling (L25), 25b-14); the package's internals (`vllm.model_executor.layers.linear.LinearBase`
    patched, `vllm.worker.worker.Worker`) are not that API and stay reported."""
    return bool(entry.npu_plugin) and any(part in entry.plugin_api for part in qual.split(".")[1:])


def _pure(qual: str, key: str, table: dict) -> bool:
    """A plain Python / PyTorch helper of the package, read in its source (knowledge `pure_api`: gsplat's
    `cuda_legacy._torch_impl.quat_to_rotmat`, `cuda_legacy._wrapper.num_sh_bases`): it runs as written once the package
    is installed; the import is the line that changes (NPU501; label rule 34c-8)."""
    pure = table[package_of(key, table)].pure_api
    return bool(pure) and any(qual == name or qual.startswith(name + ".") for name in pure)


def runs_as_written(qual: str, key: str, table: dict) -> bool:
    """A name of entry `key` whose uses are no lines: the plugin's public API or a plain helper (`_plugin_kept`,
    `_pure`). NPU510 asks it too, so that a project name re-exporting `vllm.LLM` or `flash_attn.bert_padding.pad_input`
    is judged like the name itself (migrate/reexports.py)."""
    return _plugin_kept(qual, table[key]) or _pure(qual, key, table)


def _cpu_build_kept(key: str, table: dict) -> bool:
    """`key` is the GPU-only API of a package whose module itself runs on the host (a dotted entry whose root is no
    reported entry: `faiss.index_cpu_to_all_gpus`, faiss-cpu ships `faiss`, label ruling (L65)): the package's CPU
    objects are a way beside its GPU calls. Not the kernel languages (Triton, numba.cuda: the repository's own
    kernels stay work to port, (L42))."""
    root = key.split(".", 1)[0]
    if "." not in key or root in (TRITON, "numba"):
        return False
    entry = table.get(root)
    return entry is None or not needs_a_look(entry)


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


_kernel_package = kernel_package


class GpuOnlyUse(Rule):
    """Every use of a GPU-only package after its import: calls, decorators, attributes, base
    classes, Triton kernel launches `kernel[grid](...)` (also of a kernel another module of the
    repository defines, imported by name: `from .triton_ops import dtw_kernel`; numba.cuda kernels the same), the construction of an object
    from one of its classes (`AutoGPTQForCausalLM.from_pretrained(...)`, not each method later called on the object:
    `model.quantize(data)` goes with its construction), and the construction through a `functools.partial` of the class handed to a
    constructor of the file (mamba_ssm's `create_block`: `Block(dim, partial(Mamba, ...))`,
    `self.mixer = mixer_cls(dim)`), and the object a function of the file returns after one of the package's
    classes built it: each call of the result and each of its own methods (pytorch-pwc's `@cupy.memoize(...)
    def cupy_launch(f, k): return cupy.RawKernel(k, f)`, then `cupy_launch('k', src)(grid=..., args=[...])`,
    a kernel launch; also a function under the package's own decorator returning a call chain rooted in the
    package, `return cupy.cuda.compile_with_cache(k).get_function(f)`). Calling the object itself (`self.encoder(x)` after
    `self.encoder = tcnn.Encoding(...)`) is not reported: a replacement built at the reported
    construction line is called the same way. The import alone
    (NPU501) under-counts the work by the number of call sites; this rule makes the inventory
    complete. Names are resolved through the file's imports (`import bitsandbytes as bnb`,
    `from apex.parallel import convert_syncbn_model`), and each finding carries the alternative
    of the most specific knowledge entry (`flash_attn.ops.activations.swiglu` ->
    `torch_npu.npu_swiglu`). The body of a `@triton.jit` kernel is reported once, at its
    decorator (or at `f = triton.jit(f)` when the decorator is applied as a call); every decorator of the triton
    package is reported, stacked or not (`@triton.autotune(...)` over `@triton.jit`, `@triton.testing.perf_report(...)`),
    once: the triton names in its arguments go with it (`prune_configs_by={"perf_model": estimate_matmul_time}` from
    `triton.ops.matmul_perf_model`; label ruling 40b); a pccm code generator's `@pccm.cuda.cuda_global_function` (it writes a
    CUDA `__global__` kernel into a .cu unit; pccm's other decorators, `static_function`, `cuda.static_function(device=True)`,
    `pybind.mark`, generate C++ and are not; knowledge `pccm`, read in FindDefinition/PCCM pccm/targets/cuda.py; label note
    44c c-2) is reported the same way, and so are the calls of its benchmarking and driver helpers (`triton.testing.do_bench`, `do_bench_cudagraph`,
    `triton.testing.Benchmark(...)`, `triton.runtime.driver...`) and a class built on `triton.KernelInterface`; a
    decorator of the repository's own (a vendored autotuner `@custom_autotune.autotune(...)`) is not, the triton uses
    inside its definition are (label ruling (L51)). A renamed copy of Triton is read as Triton (the knowledge's
    `fork_of`: `import triton_pre_mlir as triton` in MPT's vendored flash_attn_triton.py; its imports are NPU501's,
    named for the fork), and so is Triton re-exported by another package (the knowledge's `reexports`: `from
    vllm.triton_utils import tl, triton` in a copy of vLLM's fused_moe.py; the import is NPU501's, named for vllm).
    Triton's host-side helpers (`triton.cdiv`,
    `triton.next_power_of_2`, `triton.Config`, its compiler exceptions; also under a module-level alias) and
    `triton.language` values read on the host (a dtype `tl.bfloat16` picked for a constexpr argument, a module
    constant `tl.constexpr(...)`) are not reported: they go with the kernel they serve; a launch is a subscripted
    call of a kernel defined in the file (also through a name bound to a choice of kernels, `fx = a if c else b`),
    or of a name containing `kernel` in a file that imports triton, and a kernel's `.warmup(...)` (it compiles the
    kernel for the GPU). A name bound to a reported function (`attn = xops.memory_efficient_attention`, at module level
    or in a function, also picked from a literal dict of them: `f = {"int8": torch_int._CUDA.linear_a8_w8_b8_o8, ...}[t]`,
    or by `a if c else b` between two of them: `index_fn = faiss.GpuIndexFlatIP if cosine else faiss.GpuIndexFlatL2`)
    is reported at each call through it, not at the binding, which only names the callable (label ruling (L52); one
    never called through stays reported at the binding; migrate/callable_aliases.py); a name bound to a switch
    between such a callable and a fallback (`attn_cls = FlashSelfAttention if use_flash_attn else SelfAttention`, the
    two branches of an `if` binding it, `self.attn = flash_attn_varlen_func if use_flash_attn else None`) is reported
    only at each call through it (`attn_cls(...)`, `self.attn(q, kv)` in any method of the class; not calls of the
    object after `inner = inner(...)`), so is an attribute of `self` set to None in `__init__` and bound to such a
    callable once, in the method that first needs it (`if self.criterion is None: from warp_rnnt import rnnt_loss;
    self.criterion = rnnt_loss`, then `self.criterion(log_probs, ...)`), and so is a module name bound to None at the top and to such a callable only
    in a function declaring it `global` (a lazy import: `flash_attn_func, rotary = None, None`, then `global
    flash_attn_func, rotary; flash_attn_func, rotary = _f, _p` after the import, the calls in other functions):
    the binding names and runs nothing (label ruling (L46)). A function's local rebound by several such switches in
    turn (diffusers' trainers: `if use_8bit_adam: cls = bnb.optim.AdamW8bit / else: cls = torch.optim.AdamW`, then
    `opt = cls(params)`; later `cls = prodigyopt.Prodigy` and its own call) is read call by call: each call takes the
    switch nearest above it (an `a if c else b`, the pair in both branches of one `if`, or a plain binding the call
    follows in its block) and is reported when that switch may pick the package, the binding not (label ruling (L52));
    a lone override under an `if` with no `else` stays reported at its binding (30b-1). Entries whose status is `works`
    (`deepspeed.accelerator`, `deepspeed.ops.adam`), `partial` (DeepSpeed itself: its parts that
    do not run have their own entries, such as `deepspeed.ops`) or whose severity is `info`
    (numba's CPU JIT) are not reported, nor the public API of a package whose Ascend backend plugin runs it as written
    (`npu_plugin` / `plugin_api` in the knowledge: vLLM's `LLM`, `SamplingParams`, `EngineArgs`, `LLMEngine`, `LoRARequest` with
    vllm-ascend installed, and its prompt schemas `TextPrompt` / `TokensPrompt` / `EmbedsPrompt`, TypedDicts: label note 42d-6;
    its import is reported by NPU501, its internals stay reported here; label ruling (L25);
    in a repository that names the plugin itself, `vllm_ascend` imported, `vllm-ascend` / `triton-ascend` required or a
    Dockerfile built `FROM .../vllm-ascend:<tag>` (label note 47e-4), none of the package's imports and uses is: migrate/npu_plugins.py, label ruling (L38)),
    nor module metadata (`bnb.__version__`), nor a helper the knowledge lists as plain PyTorch in the package's own source
    (`pure_api`: gsplat's `quat_to_rotmat`, `num_sh_bases`; label rule 34c-8; TensorRT's shape value types `trt.DimsHW(5, 5)` and DataType values `trt.float32`, 45d-11; CuPy's re-exported numpy scalar types `cupy.int32(n)`, 47e-2; flash_attn's `bert_padding` helpers (`unpad_input`, `pad_input`, `index_first_axis`: torch + einops), its `utils.distributed` collectives and `get_dim_for_local_rank`, `utils.pretrained.state_dict_from_pretrained`, its `@torch.jit.script` activations `sqrelu_fwd` / `gelu_fwd`, not its jiterator `swiglu`, and its `utils.benchmark` Timer / profiler wrappers `benchmark_forward` / `pytorch_profiler`; mmcv.tensorrt's `torch_dtype_from_trt` / `torch_device_from_trt`, 50d-5; vLLM's tensor-parallel accessors `get_tensor_model_parallel_rank` / `_world_size` / `_group`, its LoRA config reader `PEFTHelper` and `get_adapter_absolute_path`, set 51; label ruling (L54)), nor an enum member or constant read as a value (`te_recipe.Format.HYBRID`
    handed to the recipe it configures: that construction is the use; also one imported by name,
    `padding_size=DEFAULT_VOCAB_PADDING_SIZE`), nor the package's own probe asked by an `assert` / `if`
    (`assert is_tensorrt_plugin_loaded(), '...'`: a check that raises, (L34)), nor a function handed to the
    standard library's introspection (`inspect.signature(fp8_model_init).parameters`: a version probe), or to a function of the file that only
    introspects its argument (ring-flash-attention's `get_default_args(func)` -> `inspect.getfullargspec(func)`), nor any name of the package handed uncalled to a call of the same
    package (`fmha.memory_efficient_attention_forward(q, k, v, bias, op=fmha.flash.FwOp)` over two lines: one use, at
    the call's first line; label rule 41d-7), nor a function named as the fallback of a lookup on an object
    (`getattr(param, "weight_loader", default_weight_loader)`: the object picks what runs; label rule 35d-2), nor, in module-level code, a chain rooted at the import's name below a module-level rebinding of that name to the
    script's own object in the same block (`trt = TrtEngine(path)`, then `trt.inference_on_images(...)`;
    migrate/rebound_imports.py), nor a class named in a type check
    (`isinstance(v, dr.ops.RasterizeGLContext)`; label ruling (L35)) or a type annotation (`Optional[AttentionBias]`),
    or a constant handed to a call (`dev.get_attribute(cuda.device_attribute.L2_CACHE_SIZE)`), or a C-style enum member
    or numpy scalar type read as a value (`cudart.cudaError_t.cudaSuccess`, `kind = cudart.cudaMemcpyKind.
    cudaMemcpyDeviceToDevice`, `x.astype(cupy.int64)`; label note 44a a-5): no package code runs
    there, nor are availability probes (`bnb is not None`, `if xops:`), the fallback assignment in
    `except ImportError: bnb = None`, uses inside messages, and apex.amp (NPU404 reports it).
    A name the module binds only in the body of an availability check (`if is_flash_attn_2_available(): from flash_attn
    import flash_attn_varlen_func`, no stand-in beside it) and uses outside any such check is a use: without the package
    it is unbound there (label ruling (L42)), unless a switch named for the package selects the branch (`if use_apex:`)
    or the use lies in a function or class named for the package (`def minference_vllm_forward(...)`, the forward patched
    into vLLM's own layers: reached only for the package's objects, (L26)).
    Names imported under `try:` whose ImportError handler binds a fallback (`has_apex = False`), or whose
    availability flag the try switches on after being bound false ahead of it (`has_flash_attn = False` at the module
    top; the uses chosen through the flag or a local made from it, `use_flash_attn = has_flash_attn and ...`), are
    optional paths, as are names imported under `if is_apex_available():` (its `else:` may raise) or after a
    function's `if not is_x_available(): raise ...` (label ruling (L34)), or after an object's own flag that the
    handler sets false, or an attribute the attempt sets, is tested (`if self.use_interop:`, `if not
    self.use_interop: ...; return`, `if hasattr(self, 'cu_tex'):`): neither their import
    line (NPU501) nor their uses are reported; a use reads the import of the nearest function holding it that imports the
    name (a method importing the package with no fallback keeps its uses even when another method's import is
    optional; label note 44a a-5); nor is a use in the branch of such a check, whatever guards its import
    (`if is_flash_v2_installed(): flash_attn_interface.flash_attn_varlen_func(...)` / `else: raise ...`); a handler that only
    passes or warns, raises, or imports the same package again is no fallback, nor is one that binds only flags no line
    of the file reads while the imported names are used after the try (`try: import awq_ext; AWQ_INSTALLED = True /
    except: AWQ_INSTALLED = False`, then `awq_ext.silu_and_mul(...)` with the flag never tested: label rule 31b-7 (c)). So is a package a module probes for
    with a function of its own (`def has_cute(): return find_spec("cutlass") is not None`, called there) and imports
    only inside functions, never at its top: an optional backend (migrate/probed_packages.py; Triton and numba kernels
    excepted); so is one a backend class of the module answers for itself, a `@classmethod` / `@staticmethod` that an
    engine registry elsewhere asks before it offers the class (`def check_lib(cls): try: importlib.import_module("vllm")
    / except ImportError: return False, "..."`, or the answer of a helper given the package's name,
    `check_dependency_available("vllm", "vLLM")`), where the module imports the package at its top only in an import
    attempt or under `if TYPE_CHECKING:` (label rule 46e e-4, (L42)/(L56): a backend chosen by availability with a
    working alternative). A test file copied from the package's own suite with its copyright header (`conftest.py` opening with
    `# SPDX-FileCopyrightText: Copyright contributors to the vLLM project`) is the package's code, not a use (label
    ruling (L24); migrate/vendored_tests.py), and a CI pipeline's own scripts (`.azure-pipelines/scripts/*.py`) are
    infrastructure (label ruling (L39); migrate/machine_setup.py). Nor are the calls in the body of a class the module
    enters only under a CUDA device test with another way beside it (`if x.is_cuda and w.is_cuda: return
    DenseFunc.apply(x, w)` / `return F.linear(x, w)`: an NPU tensor takes torch's way; the package's import stays;
    label ruling 40b-1; migrate/cuda_tested_entries.py). Nor are the repository's own Triton kernels reached
    only through an op registry with an NPU side (a class or function registered `@RMS_REGISTER("triton")` calling
    the kernel's wrapper, in a project that registers NPU implementations in the same registry or one merged into it,
    `RMS_REGISTER.merge(PLATFORM_RMS_REGISTER)`, from an `ascend_npu/` folder or a file importing torch_npu): a
    function of the kernel module goes, decorators and launches, when every reference to it, followed through the
    repository's modules, is inside such a registered op, a branch of `a if c else b`, a binding's value
    (`self.modulate_func = fused_kernel`) or an `if` reading the configuration; a plain call from code nothing selects
    keeps it, and the module's `import triton` lines (NPU501) stay (label ruling (L50) for a config-selected registry,
    migrate/registry_kernels.py). Nor are the uses on the CUDA side of a test asked of a third-party accelerator
    abstraction with an NPU implementation (`if get_accelerator().device_name() == 'cuda':
    multi_tensor_applier(amp_C.multi_tensor_scale, ...)`, as NPU501; migrate/accelerator_tests.py). The finding's
    `package` field names the package, which the summary groups by. A YAML configuration's `_target_:
    apex.optimizers.FusedAdam` (Hydra's instantiate builds it) is a construction too, reported at that line with the
    same filters (migrate/hydra_targets.py; label ruling 40b-5), and so is torchtune's `_component_:
    bitsandbytes.optim.PagedAdamW8bit` (its config.instantiate builds it the same way; label note 45e e-5)."""

    CODE = "NPU507"
    NAME = "gpu-only-use"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR  # default; each finding takes the severity of its knowledge entry
    KINDS = ("python", "launcher")
    MESSAGE = "uses a GPU-only package"
    VALID = [
        # diffusers' BnB4BitDiffusersQuantizer: `validate_environment`, which from_pretrained calls before any other
        # method of a quantizer, raises without bitsandbytes: the imports in its other methods are optional (L34)
        "from .utils import is_bitsandbytes_available\nclass BnbQuantizer(Quantizer):\n"
        "    def validate_environment(self, *args, **kwargs):\n        if not is_bitsandbytes_available():\n"
        "            raise ImportError('pip install bitsandbytes')\n"
        "    def create_param(self, model, value):\n        import bitsandbytes as bnb\n"
        "        return bnb.nn.Params4bit(value)\n",
        # a None stand-in beside a flag, called only in a function that checks the flag first (migrate/none_stand_ins.py)
        "try:\n    from flash_attn import flash_attn_varlen_func\n    HAS_FA = True\nexcept ImportError:\n"
        "    flash_attn_varlen_func = None\n    HAS_FA = False\n\ndef prefill(q, cu, m):\n    if not HAS_FA:\n"
        "        raise ImportError('pip install flash-attn')\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n",
        # host code building a CuTe DSL compile's inputs: the torch -> CuTe dtype dict, the DSL's numeric types as
        # scalars and a fake tensor need no GPU (knowledge `pure_api`, label ruling (L54)); the imports are NPU501's
        "import torch\nimport cutlass\nfrom cutlass import Float32, Int32\n"
        "from quack.compile_utils import make_fake_tensor\nfrom quack.cute_dsl_utils import torch2cute_dtype_map\n"
        "def inputs(x, n):\n    dtype = torch2cute_dtype_map[x.dtype]\n"
        "    return make_fake_tensor(dtype, (n,)), Int32(0), cutlass.Float32 if n else Float32\n",
        # a name bound under an availability check with a stand-in beside it, or used only inside such a check
        "from transformers.utils import is_flash_attn_2_available\nif is_flash_attn_2_available():\n"
        "    from flash_attn import flash_attn_varlen_func\nelse:\n    flash_attn_varlen_func = None\n"
        "def attend(q, cu, m):\n    if flash_attn_varlen_func is None:\n        return sdpa(q, q, q)\n"
        "    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n",
        "from transformers.utils import is_flash_attn_2_available\nif is_flash_attn_2_available():\n"
        "    from flash_attn import flash_attn_varlen_func\ndef attend(q, cu, m):\n    if is_flash_attn_2_available():\n"
        "        return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n    return sdpa(q, q, q)\n",
        # transformers' copied modeling file: the class that calls it is picked from a table keyed by the attention
        # implementation, which transformers checks for flash_attn before it sets it (set 51's FlagEmbedding reading)
        "from transformers.utils import is_flash_attn_2_available\nif is_flash_attn_2_available():\n"
        "    from flash_attn import flash_attn_func\nclass FlashAttention2(Attention):\n    def forward(self, q, k, v):\n"
        "        return flash_attn_func(q, k, v)\nATTENTION_CLASSES = {'eager': Attention, 'flash_attention_2': FlashAttention2}\n",
        # a switch between two callables of an optional import (its handler binds None): an optional path, not reported
        "try:\n    import gemlite\nexcept ImportError:\n    gemlite = None\n"
        "def pack(w, mode):\n    if gemlite is None:\n        return w\n"
        "    make = gemlite.helper.A8W8 if mode == 'dynamic' else gemlite.helper.A16W8\n    return make(w)\n",
        # the Function is entered only under `x.is_cuda and ...`, beside an F.linear way (label ruling 40b-1)
        "import torch\nimport torch.nn.functional as F\nimport fused_dense_lib as fdl\n"
        "class DenseFunc(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, w, b):\n"
        "        return fdl.linear_bias_forward(x, w, b)\n"
        "def dense(x, w, b):\n    if x.is_cuda and w.is_cuda:\n        return DenseFunc.apply(x, w, b)\n"
        "    return F.linear(x, w, b)",
        # a Hydra optimizer config naming torch's AdamW; apex's named only in a comment
        # vllm named but not run: an argument value, a pip line (NPU502's), a comment, an echo, a path
        Valid("lm_eval --model vllm --tasks gsm8k\npip install vllm\n# vllm serve $MODEL\necho 'vllm serve $MODEL'\n"
              "python tools/vllm_serve.py\n", kind="launcher"),
        Valid("# _target_: apex.optimizers.FusedAdam\n_target_: torch.optim.AdamW\nlr: 1e-3\n", kind="launcher",
              filename="configs/optimizer/adamw.yaml"),
        # open3d loads its CPU bindings where no CUDA device is found (partial, info): its neutral names are not uses
        "import open3d as o3d\nv = o3d.utility.Vector3dVector(points)\npcd = o3d.geometry.PointCloud()",
        # SoftGroup blocks.py: spconv publishes a CPU build (partial, like pytorch3d): its import is noted, not each use
        "import spconv.pytorch as spconv\nconv = spconv.SubMConv3d(16, 32, 3)\nx = spconv.SparseConvTensor(f, i, s, 1)",
        # TileLang host values (microsoft/MInference minference/modules/leank.py, LeanK/eval/kernel_benchmark.py): the
        # shape variables of a kernel's signature and the profiler's input-supply enum (knowledge `pure_api`)
        "import tilelang\nimport tilelang.language as T\nargs = [T.symbolic('batch'), T.dynamic('n'), 128]\n"
        "def bench(kernel):\n    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Auto)\n"
        "    return profiler.do_bench(warmup=500)\n",
        # the file's own `autotune` beside a star import of tilelang.autotuner: not the package's decorator
        "import tilelang\nfrom tilelang.autotuner import *\ndef autotune(f):\n    return f\n@autotune\ndef g():\n"
        "    return 1\n",
        # Triton is optional (a bare except binds `triton = None`) and the file defines the kernel again without it:
        # the kernel's decorator and launch are on the path an NPU host never takes. (Without that second definition
        # the file's own kernel is work to port: label rule (s21b-1), the INVALID example below.)
        "try:\n    import triton\nexcept:\n    triton = None\nif triton is not None:\n    @triton.jit\n    def k(x):\n        pass\n"
        "else:\n    def k(x):\n        return x\n"
        "def run(x):\n    grid = lambda META: (triton.cdiv(8, 4),)\n    k[grid](x)",
        # the same shape with a torch class: nothing GPU-only is built
        "from functools import partial\nimport torch.nn as nn\nfrom mamba_ssm import Mamba\n"
        "class Block:\n    def __init__(self, dim, mixer_cls):\n        self.mixer = mixer_cls(dim)\n"
        "    def forward(self, x):\n        return self.mixer(x)\n"
        "def create_block(d):\n    return Block(d, partial(nn.Linear, bias=False))",
        "import torch\nx = torch.zeros(3)",
        "import apex_utils\napex_utils.run()",  # a different package whose name starts the same
        "from deepspeed.accelerator import get_accelerator\nd = get_accelerator().device_name()",
        "import numba\n@numba.njit\ndef f(x): return x",
        "handlers = {}\nhandlers['a'](1)",  # a subscripted call in a file without triton
        '"""bnb.optim.Adam8bit"""\nimport os',
        "try:\n    import bitsandbytes as bnb\nexcept ImportError:\n    bnb = None\nif bnb is not None and ok:\n    pass",
        'import xformers.ops as xops\nprint(f"xformers: {xops is not None}")',
        "import triton\ndef f(triton):\n    return triton.cdiv(1, 2)",  # a parameter shadows the import
        # warprnnt_numba rnnt.py / numba_utils.py: a feature probe of numba's `cuda` module is no use of it (the call
        # it guards is)
        "from numba import cuda\nif hasattr(cuda, 'is_supported_version'):\n    pass\nf = getattr(cuda, 'external_stream', None)",
        # accelerate utils/bnb.py, torchsparse examples/converter.py: a type check names the class, it builds and calls
        # nothing (label rulings 24b-14, 25a-6, (L35)); the construction elsewhere is the use
        "import bitsandbytes as bnb\ndef n(m):\n    return isinstance(m, bnb.nn.Linear4bit) or issubclass(type(m), (bnb.nn.Linear8bitLt, int))",
        # MInference patch.py: the repository's forward bound as a method of a vLLM layer it type-checked; the class is the
        # owner argument of `__get__`, nothing of it runs (label ruling (L35), note 60e)
        "from vllm.model_executor.models.llama import LlamaAttention\n"
        "def update_module(m, forward):\n    if isinstance(m, LlamaAttention):\n"
        "        m.forward = forward.__get__(m, LlamaAttention)\n",
        # the same file's other patcher reads the module's own `LlamaAttention` (transformers'): the vLLM patcher's local
        # import of the same name binds it only in that function (migrate/context.py)
        "import types\nfrom transformers.models.llama.modeling_llama import LlamaAttention\n"
        "def patch_quest(m):\n    m.flash_forward = types.MethodType(LlamaAttention.forward, m)\n"
        "def patch_vllm(m):\n    from vllm.model_executor.models.llama import LlamaAttention\n"
        "    return isinstance(m, LlamaAttention)\n",
        # MedicalGPT find_all_linear_names: a local bound to the class only for the type checks below it names the
        # class and runs nothing (label rulings (L35) with (L52), labeller note 57b)
        "import torch\ndef names(model, int4=False):\n    cls = torch.nn.Linear\n    if int4:\n"
        "        import bitsandbytes as bnb\n        cls = bnb.nn.Linear4bit\n"
        "    return [n for n, m in model.named_modules() if isinstance(m, (cls, torch.nn.Embedding))]",
        # GPTQ-for-LLaMa quant/: Triton's host-side helpers (autotuning configurations, block sizes, compiler
        # exceptions) are no GPU code: the kernels' decorators and launches are
        "import triton\nconfigs = [triton.Config({'BLOCK_SIZE_M': 64}, num_stages=4, num_warps=4)]\n"
        "BLOCK = min(1024, triton.next_power_of_2(n))\n"
        "def bench(call):\n    try:\n        return call()\n"
        "    except triton.compiler.OutOfResources:\n        return float('inf')",
        # a fused-MoE wrapper picks the dtype its kernel computes in, and a module keeps a constant for its kernels:
        # `triton.language` values read on the host, no GPU code runs there (label rule 33b-11)
        "import math\nimport torch\nimport triton\nimport triton.language as tl\n_kAlpha = tl.constexpr(math.sqrt(2.0 / math.pi))\n"
        "def pick(out):\n    compute_type = tl.bfloat16 if out.dtype == torch.bfloat16 else tl.float16\n"
        "    return {'dtype': tl.float32, 'c': compute_type}",
        "import torch\nattn = torch.nn.functional.scaled_dot_product_attention\ny = attn(q, k, v)",  # not GPU-only
        "import bitsandbytes as bnb\nprint(bnb.__version__)",  # module metadata
        "import pynvml\ntry:\n    count = 0\nexcept pynvml.NVMLError:\n    count = -1",  # an except type names a class ((L40))
        "import deepspeed\nx = deepspeed.checkpointing.checkpoint(block, x)",  # partial: runs on NPU
        # nerfacc's public functions are largely torch code beside its kernels (partial, label ruling (L32))
        "import nerfacc\nw = nerfacc.render_weight_from_alpha(alphas, ray_indices=ri)\n"
        "rgb = nerfacc.accumulate_along_rays(w, ri, values=c, n_rays=n)",
        "import deepspeed\nengine, *_ = deepspeed.initialize(model=m, config=c)",
        "from deepspeed.ops.adam import FusedAdam\nopt = FusedAdam(params)",  # has an NPU op builder
        # DeepSpeed's op-builder base (the NPU builders' base too) asked about the host: builds nothing
        "from deepspeed.ops.op_builder.builder import OpBuilder\nis_rocm_pytorch = OpBuilder.is_rocm_pytorch()",
        # ConvNeXt optim_factory.py: the handler binds a fallback flag, which the factory asserts before it builds a
        # fused optimizer; the fused optimizers are optional
        "try:\n    from apex.optimizers import FusedAdam\n    has_apex = True\nexcept ImportError:\n    has_apex = False\n"
        "def make(p, name):\n    if 'fused' in name:\n        assert has_apex, 'APEX required for fused optimizers'\n"
        "    if name == 'fusedadam':\n        return FusedAdam(p)",
        # imaginaire trainer.py: the user's switch is turned off by the failed import (label ruling (L102)), so
        # `if fused_opt:` runs only where apex imported: the second import there and its optimizer are optional
        "import torch\ndef make(cfg, params):\n    fused_opt = cfg.fused_opt\n    try:\n"
        "        from apex.optimizers import FusedAdam\n    except ImportError:\n        fused_opt = False\n"
        "    if cfg.type == 'sgd':\n        if fused_opt:\n            from apex.optimizers import FusedSGD\n"
        "            return FusedSGD(params, lr=cfg.lr)\n        return torch.optim.SGD(params, lr=cfg.lr)\n"
        "    return FusedAdam(params) if fused_opt else torch.optim.Adam(params)\n",
        # megablocks grouped_gemm_util.py: the flag is bound false (annotated) before the try: the package is optional
        "import warnings\n_gg_ok: bool = False\ntry:\n    import grouped_gemm\n    _gg_ok = True\n"
        "except ImportError as error:\n    warnings.warn('Grouped GEMM not available.')\n"
        "def grouped_gemm_is_available():\n    return _gg_ok\n"
        "backend = grouped_gemm.backend if grouped_gemm_is_available() else None\n",
        # flags preset false at the module top, switched on in a version branch of a try under an environment opt-out;
        # the uses are chosen through the flags, also through a local (`use_flash_attn = has_flash_attn and ...`)
        "import os\nhas_flash_attn = False\nhas_xformers = False\nif 'NO_FLASH_ATTN' not in os.environ:\n    try:\n"
        "        import flash_attn\n        if flash_attn.__version__ >= '2.5.7':\n"
        "            from flash_attn import flash_attn_func\n            has_flash_attn = True\n"
        "    except ModuleNotFoundError:\n        pass\nif 'NO_XFORMERS' not in os.environ:\n    try:\n"
        "        import xformers.ops as xops\n        has_xformers = True\n    except ModuleNotFoundError:\n        pass\n"
        "def attention(q, k, v, cfg):\n    use_flash_attn = has_flash_attn and not cfg.no_flash_attn\n"
        "    if use_flash_attn:\n        return flash_attn_func(q, k, v, causal=True)\n"
        "    if has_xformers:\n        return xops.memory_efficient_attention(q, k, v)\n    return sdpa(q, k, v)\n",
        # accelerate benchmarks/fp8: the recipe's enum member passed as a setting; the construction using it is the use
        "import transformer_engine.common.recipe as te_recipe\nfrom transformer_engine.common.recipe import DelayedScaling\n"
        "KW = {'fp8_format': te_recipe.Format.HYBRID, 'amax_history_len': 32}\n"
        "def f():\n    return 1\n",
        # a library function that raises without the package: its uses are optional too (label ruling (L34))
        "def autocast(forward, recipe):\n    if not is_transformer_engine_available():\n        raise ImportError('needs TE')\n"
        "    from transformer_engine.pytorch import fp8_autocast\n    def run(*a):\n"
        "        with fp8_autocast(enabled=True, fp8_recipe=recipe):\n            return forward(*a)\n    return run\n",
        # an out-of-tree vLLM model's weight loading: the package's loader is the fallback of a lookup on each parameter
        # (vLLM's layers set their own), and a padding constant is read as a value: neither runs the package's code
        # (label rule 35d-2)
        "from vllm.model_executor.model_loader.weight_utils import default_weight_loader\n"
        "from vllm.model_executor.layers.vocab_parallel_embedding import DEFAULT_VOCAB_PADDING_SIZE\n"
        "def load(params, weights, lora):\n    for name, w in weights:\n        param = params[name]\n"
        "        loader = getattr(param, 'weight_loader',\n                         default_weight_loader)\n"
        "        loader(param, w)\n    return DEFAULT_VOCAB_PADDING_SIZE if not lora else 2 * DEFAULT_VOCAB_PADDING_SIZE\n",
        # a TensorRT runner's binding table: `trt.nptype` maps a DataType constant to a numpy type in plain Python
        # (knowledge `pure_api`, read in the wheel's tensorrt/__init__.py; label ruling (L54), 43b-6); the import line
        # is NPU501's
        "import numpy as np\nimport tensorrt as trt\n\ndef binding_dtype(engine, index):\n"
        "    return np.dtype(trt.nptype(engine.get_binding_dtype(index)))\n",
        # an RL recipe's weight-sync setup: vLLM's address / port helpers (socket only) and its TCPStore metadata group
        # are plain Python over torch.distributed (knowledge `pure_api`, read in vLLM's source; label ruling (L54), 45e
        # e-4); the imports are NPU501's
        "from vllm.utils import get_ip, get_open_port\nfrom vllm.distributed.utils import StatelessProcessGroup\n"
        "def rendezvous(rank, world):\n    host, port = get_ip(), get_open_port()\n"
        "    return StatelessProcessGroup.create(host=host, port=port, rank=rank, world_size=world)\n",
        # a vendored copy of vLLM's fused_moe.py: its logger factory, torch-version check and cache view are plain Python
        # (knowledge `pure_api`, read in vLLM's source; (L54)), and `current_platform` is the platform vLLM resolves from
        # its plugins, vllm-ascend's NPUPlatform on an Ascend host (knowledge `plugin_api`); the imports are NPU501's
        "from vllm.logger import init_logger\nfrom vllm.platforms import current_platform\n"
        "from vllm.utils.torch_utils import is_torch_equal_or_newer\n"
        "from vllm.model_executor.layers.fused_moe.utils import _resize_cache\nlogger = init_logger(__name__)\n"
        "def cache(ws, m, n):\n    if current_platform.is_cuda() and is_torch_equal_or_newer('2.6.0'):\n"
        "        return _resize_cache(ws, (m, n))\n    return current_platform.fp8_dtype()\n",
        # RULER's serve scripts: a request id from vLLM's `random_uuid` (`str(uuid.uuid4().hex)`) and the MPI rank from
        # TensorRT-LLM's `mpi_rank` (mpi4py's communicator) are plain helpers (knowledge `pure_api`; label ruling (L54),
        # note 60e); the imports are NPU501's, the runner's construction stays a use
        "import tensorrt_llm\nfrom vllm.utils import random_uuid\n"
        "def serve(engine, prompt, params):\n    rank = tensorrt_llm.mpi_rank()\n"
        "    return engine.generate(prompt, params, random_uuid()), rank\n",
        # TensorRT's shape value types and DataType values (knowledge `pure_api`, read in the bindings'
        # pyFoundationalTypes.cpp; label ruling (L54)/(L75), 45d-11): a network's kernel size, a buffer's item size
        "import tensorrt as trt\n\ndef conv(network, x, w, b):\n    layer = network.add_convolution(x, 20, trt.DimsHW(5, 5), w, b)\n"
        "    layer.stride = trt.DimsHW(1, 1)\n    return layer, trt.float32.itemsize\n",
        # a kernel helper's scalar arguments: CuPy re-exports numpy's scalar types (knowledge `pure_api`, read in
        # cupy/__init__.py; label ruling (L54), notes 47a-6 / 47e-2): a host scalar, no CUDA; the import is NPU501's
        "import cupy\n\ndef as_int(n):\n    return cupy.int32(n)\n\ndef as_float(x):\n    return cupy.float32(x)\n",
        # a splatting model's setup: gsplat's pure-PyTorch helpers (knowledge `pure_api`, read in gsplat's source) run as
        # written; the imports are NPU501's, the rasterizer call below them is this rule's (label rule 34c-8)
        "from gsplat.cuda_legacy._torch_impl import quat_to_rotmat\nfrom gsplat.cuda_legacy._wrapper import num_sh_bases\n"
        "def init(quats, degree):\n    dim_sh = num_sh_bases(degree)\n    return quat_to_rotmat(quats), dim_sh\n",
        # an engine's output buffer: mmcv.tensorrt's dtype / device mapping helpers are if/elif lookups of TensorRT enum
        # values (knowledge `pure_api`, read in mmcv/tensorrt/tensorrt_utils.py; label ruling (L54), note 50d-5); the
        # import is NPU501's, the engine's methods are calls on an object (L12)
        "from mmcv.tensorrt.tensorrt_utils import torch_dtype_from_trt, torch_device_from_trt\n\n"
        "def output_buffer(engine, context):\n    dtype = torch_dtype_from_trt(engine.get_binding_dtype(1))\n"
        "    device = torch_device_from_trt(engine.get_location(1))\n    return dtype, device\n",
        # a run-time compiled kernel's parameters: cuda.core's LaunchConfig (grid / block / shared memory for a later
        # `launch(...)`) and ProgramOptions (a dataclass of NVRTC flags) are values (knowledge `pure_api`, read in
        # cuda-python's _launch_config.pyx / _program.py; label rulings (L54)/(L94), set 51); the import is NPU501's
        "from cuda.core import LaunchConfig, ProgramOptions\n\n"
        "def configs(n, arch):\n    config = LaunchConfig(grid=(n + 127) // 128, block=128, shmem_size=0)\n"
        "    return config, ProgramOptions(arch=arch, std='c++17')\n",
        # an attention function whose kernel calls sit in the branches of the project's own version probes, the last
        # `else:` raising (label ruling (L34)); megablocks' load-balancing-loss list helpers are plain Python / torch
        # (knowledge `pure_api`)
        "from megablocks.layers.moe import batched_load_balancing_loss, clear_load_balancing_loss\n"
        "def is_fa2_installed():\n    try:\n        import flash_attn\n    except ImportError:\n        return False\n"
        "    return flash_attn.__version__.startswith('2')\n"
        "def attend(q, cu, m):\n    from flash_attn import flash_attn_interface\n"
        "    if is_fa2_installed():\n        out = flash_attn_interface.flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n"
        "    else:\n        raise RuntimeError('flash-attn 2 is required')\n    return out\n"
        "def moe_loss(args):\n    loss = batched_load_balancing_loss(args)\n    clear_load_balancing_loss()\n    return loss\n",
        # MInference minference_forward.py: vLLM's internals imported under an availability check, used only in the
        # forward the module patches into vLLM's own layers (a function named for the package): an optional path reached
        # only for vLLM's objects (label ruling (L26), note 60e)
        "from transformers.utils.import_utils import _is_package_available\nif _is_package_available('vllm'):\n"
        "    from vllm.attention.ops.paged_attn import PagedAttention\n"
        "def minference_vllm_forward(config):\n    def forward(self, key, value, kv_cache):\n"
        "        k, v = PagedAttention.split_kv_cache(kv_cache, 8, 64)\n        return k, v\n    return forward\n",
        # SimCSE trainers.py (transformers' Trainer): an import under an availability helper is optional, its use in the
        # branch a switch named for the package selects (`use_apex`) too
        "from transformers.file_utils import is_apex_available\nif is_apex_available():\n    from apex import optimizers\n"
        "def make(p, use_apex):\n    if use_apex:\n        return optimizers.FusedAdam(p)",
        # faiss's GPU cloner under a question only a CUDA run answers yes to, replacing the CPU index bound above: off
        # CUDA the CPU index is searched (label ruling (L65) with (L28), 51a; migrate/cuda_tested_entries.py)
        "import faiss, torch\ndef build(x, device=None):\n    index = faiss.IndexFlatIP(x.shape[1])\n"
        "    if device is None and torch.cuda.is_available():\n        try:\n            co = faiss.GpuMultipleClonerOptions()\n"
        "            index = faiss.index_cpu_to_all_gpus(index, co)\n        except Exception:\n            print('cpu faiss')\n"
        "    index.add(x)\n    return index\n",
        "import faiss, torch\ndef build(model, x):\n    index = faiss.index_factory(x.shape[1], 'Flat')\n"
        "    if model.device == torch.device('cuda'):\n        index = faiss.index_cpu_to_gpu(faiss.StandardGpuResources(), 0, index)\n"
        "    index.add(x)\n    return index\n",
        # the package read only in the class registered under the value that selects it (51a-1)
        "try:\n    from flash_attn import flash_attn_func\n    from flash_attn.layers.rotary import apply_rotary_emb\nexcept:\n    pass\n"
        "class Attention:\n    def forward(self, q, k, v):\n        return q @ k @ v\n"
        "class FlashAttention2(Attention):\n    def forward(self, q, k, v):\n        return flash_attn_func(apply_rotary_emb(q, cos, sin), k, v)\n"
        "CLASSES = {'eager': Attention, 'flash_attention_2': FlashAttention2}\n"
        "def layer(config):\n    return CLASSES[config._attn_implementation]()\n",
    ]
    INVALID = [
        # Triton's fused-attention benchmark (thu-nics/MoA tests/triton_attention.py, label note 70d): the "flash" provider is
        # offered only when flash_attn imported (HAS_FLASH), so the `if provider == 'flash':` branch and its do_bench run
        # only there (migrate/flag_listed_branches.py); the Benchmark construction and the Triton branch's do_bench stay
        Invalid("import triton\ntry:\n    from flash_attn import flash_attn_qkvpacked_func as flash_attn_func\n    HAS_FLASH = True\n"
                "except BaseException:\n    HAS_FLASH = False\n"
                "configs = [triton.testing.Benchmark(x_names=['N'], x_vals=[1024], line_arg='provider',\n"
                "                                    line_vals=['triton'] + (['flash'] if HAS_FLASH else []), plot_name='p', args={})]\n"
                "def bench(N, provider, fn):\n    if provider == 'triton':\n        ms = triton.testing.do_bench(fn)\n"
                "    if provider == 'flash':\n        ms = triton.testing.do_bench(lambda: flash_attn_func(N))\n    return ms\n",
                count=2),
        # a None stand-in beside a flag called also on a path checking neither (KVCache-Factory's AdaKV decode branch,
        # labels 64f): the import is required and the unchecked call is the use, the checked one not (L42)
        Invalid("try:\n    from flash_attn import flash_attn_varlen_func\n    HAS_FA = True\nexcept ImportError:\n"
        "    flash_attn_varlen_func = None\n    HAS_FA = False\n\ndef prefill(q, cu, m):\n    if not HAS_FA:\n"
        "        raise ImportError('pip install flash-attn')\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n"
        "def decode(q, cu, m):\n    return flash_attn_varlen_func(q, q, q, cu, cu, m, m)\n", count=1),
        # a loader of the module importing the package's callables and returning them: each call through the name its
        # caller binds (by position, also spelt like the import) is the use, not the `return` (L52; FastVideo's
        # nvfp4_config.py `_require_flashinfer`, labels 61a); a returned callable nobody calls stays a use at the return
        Invalid("def _require_flashinfer():\n    try:\n        from flashinfer import SfLayout, mm_fp4\n"
                "    except ImportError as exc:\n        raise ImportError('pip install flashinfer-python') from exc\n"
                "    return SfLayout, mm_fp4\n\ndef gemm(a, b):\n    _, mm_fp4 = _require_flashinfer()\n"
                "    return mm_fp4(a, b)\n\ndef quantize(x):\n    quant = _require_flashinfer()\n    return quant\n", count=2),
        # a None stand-in read under a user switch (no availability test): the calls are the lines to change (L74), 51a-4
        Invalid("try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n"
        "class Attention:\n    def forward(self, q, k, v, mask=None):\n        if self.xattn:\n"
        "            return xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask() if mask is not None else None)\n"
        "        else:\n            return torch_attention(q, k, v)\n", count=2),
        # ... and the same class also built directly: its calls are reported (51a-1 kept)
        Invalid("try:\n    from flash_attn import flash_attn_func\n    from flash_attn.layers.rotary import apply_rotary_emb\nexcept:\n    pass\n"
        "class Attention:\n    def forward(self, q, k, v):\n        return q @ k @ v\n"
        "class FlashAttention2(Attention):\n    def forward(self, q, k, v):\n        return flash_attn_func(apply_rotary_emb(q, cos, sin), k, v)\n"
        "CLASSES = {'eager': Attention, 'flash_attention_2': FlashAttention2}\n"
        "def layer(config):\n    return CLASSES[config._attn_implementation]()\n"
                "def direct():\n    return FlashAttention2()\n", count=2),
        # a package GPU-only through its own dependency: mistral_inference's attention runs xformers'
        # memory_efficient_attention (the mistral_inference entry of migrate/knowledge/third_party.toml); the import
        # re-raised on ImportError is kept ((L34)); the construction and the generate call are its uses (label set 59e)
        Invalid("try:\n    from mistral_inference.transformer import Transformer\n"
                "    from mistral_inference.generate import generate\nexcept ImportError as err:\n    raise err\n"
                "model = Transformer.from_folder(path, device='cpu')\nout, _ = generate([tokens], model, max_tokens=8)\n",
                count=2),
        # the same cloner under a user switch or a test an NPU passes too: reported (label ruling (L65), (L74); 51a)
        Invalid("import faiss\ndef create_index(emb, use_gpu):\n    index = faiss.IndexFlatIP(len(emb[0]))\n"
                "    if use_gpu:\n        co = faiss.GpuMultipleClonerOptions()\n        index = faiss.index_cpu_to_all_gpus(index, co=co)\n"
                "    index.add(emb)\n    return index\n", count=2),
        Invalid("import faiss\ndef to_device(index, device):\n    if device != 'cpu':\n        co = faiss.GpuClonerOptions()\n"
                "        index = faiss.index_cpu_to_gpu(faiss.StandardGpuResources(), 0, index, co)\n    return index\n", count=3),
        Invalid("import faiss\nres = [faiss.StandardGpuResources() for _ in range(2)]\nvres = faiss.GpuResourcesVector()\n"
                "index = faiss.index_cpu_to_gpu_multiple(vres, [0, 1], faiss.IndexFlatL2(8))\n", count=3),
        # a name bound only under an availability check, called outside any check with no stand-in (EasyR1
        # flash_attention_utils.py: the padding-free attention forward): NameError without flash_attn, a use (L42);
        # the module-level line inside the check and the guarded import stay unreported
        Invalid("from transformers.utils import is_flash_attn_2_available\nif is_flash_attn_2_available():\n"
                "    from flash_attn import flash_attn_func, flash_attn_varlen_func\n"
                "    _supports_window = 'window_size' in inspect.signature(flash_attn_func).parameters\n"
                "def attend(q, k, v, pos, cu, m):\n    if pos is not None:\n"
                "        return flash_attn_varlen_func(q, k, v, cu, cu, m, m)\n    return sdpa(q, k, v)\n", count=1),
        # an import the program does without, but the call through the alias runs with no test of it on its path (its
        # caller is picked by a user option: llm-foundry's `attn_impl: flash`, label set 39d): still a use
        Invalid("from .attention import is_flash_v2_installed\nif is_flash_v2_installed():\n"
                "    from flash_attn import flash_attn_interface\ndef attend(q, cu, m, packed):\n    if packed:\n"
                "        f = flash_attn_interface.flash_attn_varlen_qkvpacked_func\n    else:\n"
                "        f = flash_attn_interface.flash_attn_varlen_func\n    return f(q, cu, m)\n", count=1),
        # an RL actor's remove-padding path (EasyR1 dp_actor.py): flash_attn.bert_padding's helpers are plain torch +
        # einops, `rearrange` einops' own re-exported (knowledge `pure_api`, read in flash_attn/bert_padding.py; label
        # ruling (L54)): no lines where called; the import is NPU501's, and the varlen kernel stays a use
        Invalid("try:\n    from flash_attn.bert_padding import index_first_axis, pad_input, rearrange, unpad_input\n"
                "except ImportError:\n    pass\nfrom flash_attn import flash_attn_varlen_func\n"
                "def forward(x, mask, pos, b, s):\n    h, idx, cu, m = unpad_input(x.unsqueeze(-1), mask)[:4]\n"
                "    p = index_first_axis(rearrange(pos.unsqueeze(-1), 'b s ... -> (b s) ...'), idx)\n"
                "    out = flash_attn_varlen_func(h, h, h, cu, cu, m, m)\n    return pad_input(out, idx, b, s), p\n", count=1),
        # a DINOv2 window backbone's mask (Metric3D ViT_DINO.py, 66e): xformers' attention_patterns builders are torch.cdist on
        # a grid (knowledge `pure_api`, read in xformers/components/attention/attention_patterns.py; (L54)); its
        # memory-efficient kernel stays a use
        Invalid("def prepare_attn_bias(nh, nw, radius, q):\n"
                "    import xformers.components.attention.attention_patterns as AP\n    import xformers.ops as xops\n"
                "    mask = AP.local_2d_pattern(nh, nw, distance=radius + 0.1, p=torch.inf).cuda()\n"
                "    return xops.memory_efficient_attention(q, q, q, attn_bias=mask)\n", count=1),
        # a DiT's qkv split (3DTopia-XL models/attention.py, 71e): xformers.ops.unbind is an autograd Function over
        # x.unbind(dim) whose backward re-stacks with as_strided (knowledge `pure_api`, read in xformers/ops/unbind.py;
        # (L54)); the memory-efficient kernel beside it stays a use
        Invalid("from xformers.ops import memory_efficient_attention, unbind\n"
                "def forward(qkv):\n    q, k, v = unbind(qkv, 2)\n    return memory_efficient_attention(q, k, v)\n",
                count=1),
        # an RL rollout's LoRA sync with vLLM (EasyR1 vllm_utils.py / fsdp_vllm.py): `LoRARequest` is the adapter handle
        # of vLLM's documented `LLM.generate(..., lora_request=...)` (knowledge `plugin_api`), a subclass of it no use;
        # the tensor-parallel accessors, PEFTHelper's config readers and get_adapter_absolute_path are plain Python
        # (knowledge `pure_api`, read in vLLM's source; label ruling (L54)); the worker's LoRA manager patched is an
        # internal ((L44)) and stays a use
        Invalid("from vllm.lora.request import LoRARequest\nfrom vllm.lora.utils import get_adapter_absolute_path\n"
                "from vllm.lora.worker_manager import LRUCacheWorkerLoRAManager\n"
                "from vllm.distributed import parallel_state as vllm_ps\n"
                "class TensorLoRARequest(LoRARequest):\n    pass\n"
                "def load(req, cfg, n):\n    from vllm.lora.peft_helper import PEFTHelper\n"
                "    if cfg:\n        helper = PEFTHelper.from_dict(cfg)\n    else:\n"
                "        helper = PEFTHelper.from_local_dir(get_adapter_absolute_path(req.lora_path), n)\n"
                "    tp = (vllm_ps.get_tensor_model_parallel_world_size(), vllm_ps.get_tensor_model_parallel_rank(),\n"
                "          vllm_ps.get_tensor_model_parallel_group().device_group)\n"
                "    setattr(LRUCacheWorkerLoRAManager, '_load_adapter', load)\n"
                "    return helper, tp, LoRARequest('a', 1, '/p')\n", count=1),
        # pycuda's driver module held by the object (`self.cuda = cuda`, a binding that names the module, (L46)): each
        # call through it in the class's methods is a use; the kernel the SourceModule built, kept as `self._integrate`,
        # is launched in another method (label note 53d on NeuralRecon's TSDF fusion, (L95))
        Invalid("import numpy as np\n"
                "class TSDFVolume:\n"
                "    def __init__(self, vol):\n"
                "        import pycuda.driver as cuda\n"
                "        import pycuda.autoinit\n"
                "        from pycuda.compiler import SourceModule\n"
                "        self.cuda = cuda\n"
                "        self._vol_gpu = cuda.mem_alloc(vol.nbytes)\n"
                "        self.cuda.memcpy_htod(self._vol_gpu, vol)\n"
                "        self._mod = SourceModule('__global__ void integrate(float *v) {}')\n"
                "        self._integrate = self._mod.get_function('integrate')\n"
                "    def integrate(self, depth):\n"
                "        self._integrate(self._vol_gpu, self.cuda.InOut(depth.astype(np.float32)), block=(256, 1, 1), grid=(1, 1))\n"
                "    def get_volume(self, out):\n"
                "        self.cuda.memcpy_dtoh(out, self._vol_gpu)\n", count=6),
        # the kernels a builder method gets from its SourceModule and returns, kept by `__init__` in attributes of `self`
        # (one picked by a conditional expression), launched in another method (label note 57c on pointnerf's querier,
        # (L95)): SourceModule's construction and each launch are uses; the attribute bound twice is not followed
        Invalid("from pycuda.compiler import SourceModule\n"
                "class Querier:\n"
                "    def __init__(self, opt):\n"
                "        self.opt = opt\n"
                "        self.occ, self.query, self.other = self.build_cuda()\n"
                "        self.other = None\n"
                "    def build_cuda(self):\n"
                "        mod = SourceModule('__global__ void occ() {} __global__ void q1() {} __global__ void q2() {}')\n"
                "        occ = mod.get_function('occ')\n"
                "        query = mod.get_function('q1') if self.opt.nn > 0 else mod.get_function('q2')\n"
                "        other = mod.get_function('occ')\n"
                "        return occ, query, other\n"
                "    def run(self, x):\n"
                "        self.occ(x, block=(256, 1, 1), grid=(1, 1))\n"
                "        self.query(x, block=(256, 1, 1), grid=(1, 1))\n"
                "        self.other(x, block=(256, 1, 1), grid=(1, 1))\n", count=3),
        # cupy's driver-level module built a line above and held by a name: the kernels its method returns are launched
        # (label note 53d on FastPhotoStyle, (L95)); the module's construction is the use of `cupy.cuda.function.Module`
        Invalid("from cupy.cuda import function\n\n"
                "def run(ptx, x):\n"
                "    m = function.Module()\n"
                "    m.load(ptx)\n"
                "    kernel = m.get_function('kernel')\n"
                "    kernel(grid=(1, 1), block=(256, 1, 1), args=[x])\n", count=2),
        # NVIDIA's WarpConvNet: its only extension is a CUDAExtension and its setup.py refuses a CPU-only torch (knowledge
        # `warpconvnet`): the constructions of its classes are uses, the calls of the built model are not ((L12))
        Invalid("from warpconvnet.geometry.types.voxels import Voxels\n"
                "from warpconvnet.models.fcgf import ResUNetBN2C\n\n"
                "def features(coords, feats):\n"
                "    model = ResUNetBN2C(in_channels=1, out_channels=32)\n"
                "    return model(Voxels([coords], [feats])).feature_tensor\n", count=2),
        # a large-kernel ConvNet's conv factory: the CUDA implicit-GEMM depth-wise conv (a CUTLASS-built extension whose
        # source sits outside the tree) is chosen by an environment variable the user sets, not by a probe of the
        # package: its construction is a use (knowledge `depthwise_conv2d_implicit_gemm`; label note 45e e-1, (L74))
        Invalid("import os\nimport sys\nimport torch.nn as nn\n\ndef get_conv2d(channels, kernel):\n"
                "    if 'LARGE_KERNEL_CONV_IMPL' in os.environ and kernel > 5:\n"
                "        sys.path.append(os.environ['LARGE_KERNEL_CONV_IMPL'])\n"
                "        from depthwise_conv2d_implicit_gemm import DepthWiseConv2dImplicitGEMM\n"
                "        return DepthWiseConv2dImplicitGEMM(channels, kernel, bias=False)\n"
                "    return nn.Conv2d(channels, channels, kernel, padding=kernel // 2, groups=channels)\n", count=1),
        # a viewer with two CUDA-GL interop classes: one registers its texture under `try:` with a fallback flag set on
        # the object, and its other methods import the bindings again only after testing that flag (or an attribute
        # the attempt sets); the other class imports them in each method with no fallback. Only the second class's
        # calls are uses; the enum members read as values (`cudaMemcpyKind.cudaMemcpyDeviceToDevice`) and the numpy
        # scalar type (`cupy.int64`) are not (label note 44a a-5, (L54))
        Invalid("import cupy\n"
                "class Quad:\n"
                "    def init_texture(self):\n"
                "        if hasattr(self, 'cu_tex'):\n"
                "            from cuda import cudart\n"
                "            cudart.cudaGraphicsUnregisterResource(self.cu_tex)\n"
                "        if self.use_interop:\n"
                "            try:\n"
                "                from cuda import cudart\n"
                "                self.cu_tex = cudart.cudaGraphicsGLRegisterImage(self.tex, 3553, 0)\n"
                "            except (RuntimeError, ModuleNotFoundError):\n"
                "                self.use_interop = False\n"
                "    def copy(self, image):\n"
                "        if not self.use_interop:\n"
                "            self.upload(image)\n"
                "            return\n"
                "        from cuda import cudart\n"
                "        cudart.cudaGraphicsMapResources(1, self.cu_tex, 0)\n"
                "class Renderer:\n"
                "    def init(self):\n"
                "        from cuda import cudart\n"
                "        kind = cudart.cudaMemcpyKind.cudaMemcpyDeviceToDevice\n"
                "        self.cu_vbo = cudart.cudaGraphicsGLRegisterBuffer(self.vbo, 0)\n"
                "        return cupy.asarray(self.idx).astype(cupy.int64), kind\n", count=2),
        # a Hydra experiment config: its optimizer node builds apex's fused Adam (hydra.utils.instantiate), its task and
        # model config nodes the repository's own class and a transformers one (label ruling 40b-5)
        Invalid("trainer:\n  max_steps: 20000\ntask:\n  _target_: train.tasks.seq.SequenceLMModel\n"
                "optimizer:\n  _target_: apex.optimizers.FusedAdam  # fused\n  lr: 6e-4\n"
                "config:\n  _target_: \"transformers.GPT2Config\"\n", count=1, kind="launcher",
                filename="configs/experiment/gpt-160m.yaml"),
        # a torchtune recipe config: `config.instantiate(cfg.optimizer, ...)` builds the `_component_` it names the way
        # Hydra builds a `_target_` (torchtune/config/_instantiate.py); the tokenizer and model are torchtune's own
        # (label note 45e e-5)
        Invalid("tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n"
                "optimizer:\n  _component_: bitsandbytes.optim.PagedAdamW8bit\n  lr: 2e-5\n"
                "optimizer_in_bwd: True\n", count=1, kind="launcher", filename="recipes/configs/8B_full_single.yaml"),
        # a tensor-parallel MLP over flash_attn's helpers: its sequence-parallel gather (torch.distributed) and its
        # @torch.jit.script activation are plain PyTorch (knowledge `pure_api`, read in flash_attn's source; label ruling
        # (L54)); its jiterator swiglu has no NPU build and is reported (the imports are NPU501's)
        Invalid("from flash_attn.ops.activations import sqrelu_fwd, swiglu\n"
                "from flash_attn.utils.distributed import all_gather_raw\n"
                "def mlp(x, y, pg):\n    h, _ = all_gather_raw(x, pg)\n    return swiglu(sqrelu_fwd(h), y)\n", count=1),
        # kaolin runs in part (its import is a warning, its pure-torch helpers no finding), but its SPC octree functions
        # have no CPU build (knowledge: `kaolin.ops.spc.scan_octrees` ...): their calls are reported, quantize_points is not
        Invalid("def build(pts, level, lengths):\n    import kaolin\n"
                "    q = kaolin.ops.spc.quantize_points(pts, level)\n"
                "    octree = kaolin.ops.spc.unbatched_points_to_octree(q, level)\n"
                "    return kaolin.ops.spc.scan_octrees(octree, lengths)\n", count=2),
        # an import attempt whose handler binds a flag nothing reads: the uses after it have no path without the
        # package (label rule 31b-7 (c))
        Invalid("try:\n    import awq_ext\n    KERNELS_OK = True\nexcept:\n    KERNELS_OK = False\n"
                "def act(x, out):\n    awq_ext.silu_and_mul(out, x)\n    return out\n", count=1),
        # a module that imports flash_attn at its top also imports more of it under an availability check, then calls
        # those names outside the check: the check guards nothing (the module needs flash_attn anyway), the calls are uses
        Invalid("from flash_attn.layers.rotary import apply_rotary_emb\nfrom transformers.utils import is_flash_attn_2_available\n"
                "if is_flash_attn_2_available():\n    from flash_attn import flash_attn_varlen_func\n"
                "def attend(q, k, v, cu, m):\n    return flash_attn_varlen_func(q, k, v, cu, cu, m, m)\n", count=1),
        # open3d's CUDA bindings reached by name exist only on a CUDA build with a CUDA device (label rule 27d-13)
        Invalid("import open3d as o3d\npcd.points = o3d.cuda.pybind.utility.Vector3dVector(points)", count=1),
        # the recipe built from the enum member is the use; the member read on its own line is not
        Invalid("import transformer_engine.common.recipe as te_recipe\nfmt = te_recipe.Format.HYBRID\n"
                "recipe = te_recipe.DelayedScaling(fp8_format=fmt)\n", count=1),
        # lit-llama quantization.py (label rule (s21b-1)): an optional import does not make the file's own kernel optional
        # a name imported beside a None stand-in and left unbound by the handler: the call is a NameError without
        # the package (labeller note 70e, HunyuanVideo's attention; migrate/none_stand_ins.py)
        Invalid("try:\n    import flash_attn\n    from flash_attn import flash_attn_func\n"
                "except ImportError:\n    flash_attn = None\n\n"
                "def attend(q, k, v):\n    return flash_attn_func(q, k, v)\n", count=1),
        Invalid("try:\n    import triton\nexcept ImportError:\n    triton = None\n\nif triton is not None:\n"
                "    @triton.jit\n    def kernel(x_ptr):\n        pass\n\ndef run(x):\n    kernel[(1,)](x)\n", count=2),
        # a renamed copy of Triton (MPT's vendored flash_attn_triton.py: `import triton_pre_mlir as triton`) is read as
        # Triton (knowledge `fork_of`): each decorator and the launch, not the `tl.*` lines of the body nor triton.cdiv
        Invalid("import triton_pre_mlir as triton\nimport triton_pre_mlir.language as tl\n"
                "@triton.heuristics({'EVEN': lambda a: a['n'] % 8 == 0})\n@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n"
                "    i = tl.program_id(0)\n    tl.store(x_ptr + i, tl.load(x_ptr + i))\n"
                "def run(x):\n    k[(triton.cdiv(x.numel(), 8),)](x, x.numel(), B=8)\n", count=3),
        # Triton re-exported by another package (vLLM's `vllm.triton_utils` imports triton and triton.language as tl,
        # knowledge `reexports`; a vendored copy of vLLM's fused_moe.py) is read as Triton: the decorator and the launch,
        # not the `tl.*` lines of the body nor the host-side triton.cdiv (as vllm uses before: one line each)
        Invalid("from vllm.triton_utils import tl, triton\n@triton.jit\ndef fused_moe_kernel(x_ptr, B: tl.constexpr):\n"
                "    pid = tl.program_id(axis=0)\n    offs = tl.arange(0, B)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs))\n"
                "def run(x):\n    grid = (triton.cdiv(x.numel(), 8),)\n    fused_moe_kernel[grid](x, B=8)\n", count=2),
        # a launcher that starts vLLM's server runs vllm (knowledge `commands`; `python -m` of the package's module), also
        # inside a command string run by `eval`; the echo of it is text
        Invalid("python3 -m vllm.entrypoints.openai.api_server \\\n    --model ${MODEL_PATH} --port 8000\n"
                "cmd=\"CUDA_VISIBLE_DEVICES=${i} nohup vllm serve ${MODEL} --port $((6000 + i)) &\"\necho $cmd\neval $cmd\n",
                kind="launcher", count=2),
        Invalid("import bitsandbytes as bnb\nopt = bnb.optim.Adam8bit(params)", count=1),
        # `self.criterion = None` in __init__, bound to the op the first time: the call is the use, not the binding (L52)
        Invalid("class Model:\n    def __init__(self):\n        self.criterion = None\n\n    def loss(self, lp, y):\n"
                "        if self.criterion is None:\n            from warp_rnnt import rnnt_loss\n"
                "            self.criterion = rnnt_loss\n        return self.criterion(lp, y)\n", count=1),
        Invalid("from apex.parallel import convert_syncbn_model\nm = convert_syncbn_model(m)", count=1),
        Invalid("import apex\nm = apex.parallel.DistributedDataParallel(m)\nn = apex.parallel.convert_syncbn_model(n)", count=2),
        # the kernel's decorator and its launch; the grid arithmetic `triton.cdiv` is host-side Python that goes with them
        # fpgaminer/GPTQ-triton quant_linear.py: a vendored copy of triton.autotune stacked over the kernel's @triton.jit
        # is the repository's own decorator, not a use (label ruling (L51)): the @triton.jit under it is
        Invalid("import functools\nimport triton\nfrom . import custom_autotune\n"
                "@custom_autotune.autotune(\n    configs=[triton.Config({'B': 64}, num_warps=4)],\n    key=['M'])\n"
                "@triton.jit\ndef k(x_ptr):\n    pass\n@functools.lru_cache()\ndef n(x):\n    return x\n", count=1),
        # ... and that autotuner's own module: its class built on triton.KernelInterface and its timing through
        # triton.testing.do_bench are uses; the configurations and the compiler exception are host-side (L51)
        Invalid("import triton\nclass Autotuner(triton.KernelInterface):\n    def __init__(self, fn):\n"
                "        self.configs = [triton.Config({}, num_warps=4)]\n"
                "    def _bench(self, call):\n        try:\n            return triton.testing.do_bench(call, rep=40)\n"
                "        except triton.OutOfResources:\n            return float('inf')\n", count=2),
        # a kernel stacked under @triton.autotune and @triton.heuristics: each triton decorator is a use, and the
        # kernel's `.warmup(...)` (it compiles the kernel ahead of the launch) is one like the launch itself
        Invalid("import triton\nimport triton.language as tl\n@triton.autotune(configs=[], key=['n'])\n"
                "@triton.heuristics({'EVEN': lambda a: a['n'] % 2 == 0})\n@triton.jit\ndef k(x_ptr, n, EVEN: tl.constexpr):\n"
                "    pass\ndef run(x, n):\n    compiled = k.warmup(x, n, grid=(1,))\n    k[(1,)](x, n)\n    model.warmup()\n", count=5),
        Invalid("import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pid = tl.program_id(0)\ngrid = (triton.cdiv(10, 4),)\nk[grid](x, 10)", count=2),
        # hao-ai-lab/FastVideo attn_qat_train.py (adapted from Triton's fused-attention tutorial): the device-side
        # descriptor's `desc.load` / `desc.store` in the @triton.jit body are kernel code, and the host's
        # `TensorDescriptor(...)` / `MXFP4Tensor(...)` (triton.tools: a dataclass, torch conversions) are values handed
        # to the kernel: the decorator and the launch are the uses (labeller note 61a, (L51)/(L54))
        Invalid("import triton\nimport triton.language as tl\nfrom triton.tools.tensor_descriptor import TensorDescriptor\n"
                "from triton.tools.mxfp import MXFP4Tensor\n@triton.jit\ndef _make_desc(p, shape, strides, block_shape):\n"
                "    return tl.make_tensor_descriptor(p, shape, strides, block_shape)\n"
                "@triton.jit\ndef k(q_ptr, o_ptr, n, B: tl.constexpr):\n"
                "    desc_q = tl.make_tensor_descriptor(q_ptr, shape=[n, B], strides=[B, 1], block_shape=[B, B])\n"
                "    q = desc_q.load([0, 0])\n"
                "    desc_o = _make_desc(o_ptr, [n, B], [B, 1], [B, B])\n    desc_o.store([0, 0], q)\ndef run(q, o, x):\n"
                "    desc = TensorDescriptor(q, shape=[8, 16], strides=[16, 1], block_shape=[16, 16])\n"
                "    packed = MXFP4Tensor(x).to_packed_tensor(dim=1)\n    k[(1,)](desc, o, 8, B=16)\n", count=3),
        # fla-org/native-sparse-attention benchmarks/benchmark_nsa.py: `triton.testing.perf_report` benchmarks a plain
        # Python function (no kernel): the flash_attn call inside it is a use, and so are the triton decorator, the
        # Benchmark it is given and the GPU timing do_bench (label ruling (L51))
        Invalid("import triton\nfrom flash_attn import flash_attn_func\n@triton.testing.perf_report(\n"
                "    triton.testing.Benchmark(x_names=['n'], x_vals=[1], line_arg='p', line_vals=['a'], line_names=['a'],"
                " plot_name='p', args={}))\n"
                "def benchmark(q, k, v):\n    return triton.testing.do_bench(lambda: flash_attn_func(q, k, v))", count=4),
        # ChatTTS velocity/llm_engine.py: a name a method imports itself (the project's own `.worker`) is that import
        # there, not the GPU-only import of the same name in another method
        Invalid("class Engine:\n    def a(self):\n        from .worker import Worker\n        self.w = Worker(1)\n"
                "    def b(self):\n        from vllm.worker.worker import Worker\n        return Worker(2)\n", count=1),
        # vLLM's public API runs as written under its Ascend backend plugin (vllm-ascend; label ruling (L25), 25b-14): the
        # import is reported (NPU501), `LLMEngine.from_engine_args(EngineArgs(...))` and `SamplingParams(...)` are not; an
        # internal registry patched is
        Invalid("def run(cfg):\n    import vllm\n    from vllm import EngineArgs, LLMEngine, SamplingParams\n"
                "    vllm.transformers_utils.config._CONFIG_REGISTRY['llama'] = cfg\n"
                "    engine = LLMEngine.from_engine_args(EngineArgs(model='m', load_format='dummy'))\n"
                "    return engine, SamplingParams(n=1, max_tokens=8)\n", count=1),
        # vLLM's prompt schemas are TypedDicts (plain dicts; knowledge `plugin_api`, label note 42d-6): building one runs
        # no vLLM code, the generate call through the plugin's public API neither; one internal call is reported
        Invalid("def run(llm, embeds, cfg):\n    try:\n        from vllm.inputs import EmbedsPrompt\n"
                "    except ImportError:\n        from vllm.inputs.data import EmbedsPrompt\n"
                "    from vllm import SamplingParams\n    import vllm\n"
                "    vllm.transformers_utils.config._CONFIG_REGISTRY['m'] = cfg\n"
                "    return llm.generate([EmbedsPrompt(prompt_embeds=embeds.float())], SamplingParams(max_tokens=8))\n", count=1),
        # flash_attn's benchmark helpers are torch.utils.benchmark / torch.profiler wrappers (knowledge `pure_api`,
        # label ruling (L54)); its attention kernel is not
        Invalid("from flash_attn.utils.benchmark import benchmark_forward, pytorch_profiler\n"
                "from flash_attn import flash_attn_func\n"
                "def bench(q, k, v):\n    benchmark_forward(flash_attn_func, q, k, v, desc='fa2')\n"
                "    pytorch_profiler(flash_attn_func, q, k, v)\n    return flash_attn_func(q, k, v)\n", count=1),
        # faiss runs on the CPU (faiss-cpu), but its GPU resources and the CPU-to-GPU copy exist only in a CUDA build
        # (label note 42a-4): both calls are reported, the flat index is not
        Invalid("import faiss\ndef knn(pts, k):\n    index = faiss.IndexFlatL2(pts.shape[1])\n"
                "    if pts.get_device() != -1:\n        res = faiss.StandardGpuResources()\n"
                "        index = faiss.index_cpu_to_gpu(res, 0, index)\n    index.add(pts)\n    return index.search(pts, k)\n", count=2),
        # the script reuses the import's name for its own engine wrapper: below the rebinding the name is that object
        # (label note 48d); the construction of the package's logger above it stays
        Invalid("import tensorrt as trt\nLOGGER = trt.Logger()\nclass Engine:\n    def infer(self, x):\n        return x\n"
                "if __name__ == '__main__':\n    trt = Engine()\n    for x in range(3):\n        y = trt.infer(x)\n", count=1),
        # a fork's depthwise sparse convolution raises off CUDA: its construction is the use, not the import (48d d-1)
        Invalid("from MinkowskiEngine import MinkowskiLinear, MinkowskiDepthwiseConvolution\n"
                "class Block:\n    def __init__(self, dim):\n        self.dw = MinkowskiDepthwiseConvolution(dim, kernel_size=7, dimension=3)\n"
                "        self.fc = MinkowskiLinear(dim, dim)\n", count=1),
        # mmdet3d 0.17's point-in-box functions: the framework is no GPU-only package, but points_in_boxes_gpu calls only
        # its extension's CUDA binding (points_in_boxes_cpu is the CPU op): the call is the use, not the import (label note
        # 70f, by analogy with (L65))
        Invalid("from mmdet3d.ops.roiaware_pool3d import points_in_boxes_gpu, points_in_boxes_cpu\n"
                "def inside(points, boxes):\n    return points_in_boxes_gpu(points, boxes), points_in_boxes_cpu(points[0], boxes[0])\n",
                count=1),
        # faiss's GPU flat indexes, picked by a switch between two of them: reported at the call through the name, not at
        # the binding (label ruling (L52)); the config is a GPU-only class too (GpuIndexFlat.h, wrapped under GPU_WRAPPER)
        Invalid("import faiss\ndef search(q, g, k, cosine):\n    res = faiss.StandardGpuResources()\n"
                "    cfg = faiss.GpuIndexFlatConfig()\n    make = faiss.GpuIndexFlatIP if cosine else faiss.GpuIndexFlatL2\n"
                "    index = make(res, g.shape[1], cfg)\n    index.add(g)\n    return index.search(q, k)\n", count=3),
        # plenoctree: svox's loader returns its CUDA-only compiled module (svox.csrc), whose classes and ops are called
        # through the bound name, past svox's PyTorch fallback; the loader's call and each call through the name are
        # uses ((L31)), the Python API of the partial package (N3Tree) is not
        Invalid("import svox\nfrom svox.helpers import _get_c_extension\n_C = _get_c_extension()\n"
                "def weights(grid, cam, focal):\n    tree = svox.N3Tree(N=2)\n    opts = _C.RenderOptions()\n"
                "    spec = _C.CameraSpec()\n    spec.fx = focal\n    return _C.grid_weight_render(grid, spec, opts), tree\n"
                "def main(d, w):\n    q = _get_c_extension()\n    return q.quantize_median_cut(d, w, 16)\n", count=6),
        # the loaded module tested against None before its call (a probe, (L31)); a name rebound to something else: the
        # loader's calls only
        Invalid("from svox.helpers import _get_c_extension\n_C = _get_c_extension()\n"
                "def render(grid):\n    if _C is None:\n        return grid.sum()\n    return _C.volume_render(grid)\n"
                "def other(x):\n    q = _get_c_extension()\n    q = x\n    return q.volume_render(x)\n", count=2),
        # 3DGS: the rasterizer's settings value is a NamedTuple (pure_api, (L54)/(L75)); the rasterizer's construction is
        # the use
        Invalid("from diff_gaussian_rasterization import GaussianRasterizationSettings, GaussianRasterizer\n"
                "def render(pc, cam, bg):\n    s = GaussianRasterizationSettings(\n        image_height=cam.h, image_width=cam.w,\n"
                "        bg=bg, debug=False)\n    r = GaussianRasterizer(raster_settings=s)\n    return r(means3D=pc)\n", count=1),
        # QServe: its layers call qserve_backend's CUDA ops in forward (their construction is the use), its sampler,
        # metadata and config helpers are plain PyTorch (pure_api, (L54), note 63e); a compiled op's call is a use
        Invalid("from qserve_backend import fused_kernels\nfrom qserve.modeling.layers.layernorm import RMSNorm\n"
                "from qserve.modeling.layers.sampler import Sampler\nfrom qserve.utils.quant_config import QServeQuantConfig\n"
                "def build(n, sp, x, s):\n    norm = RMSNorm(n)\n    cfg = QServeQuantConfig(weight_bits=8)\n"
                "    sampler = Sampler(sp)\n    fused_kernels.invoke_quant(x, s)\n    return norm, cfg, sampler\n", count=2),
        # SGLang: its offline Engine runs as written on its NPU build (plugin_api, (L44)), its serializer and io_struct
        # records are plain (pure_api, (L54), note 63b); a patched scheduler internal stays reported
        Invalid("import sglang\nfrom sglang import Engine\nfrom sglang.srt.utils import MultiprocessingSerializer\n"
                "from sglang.srt.managers.io_struct import ReleaseMemoryOccupationReqOutput\n"
                "def run(path, w, f):\n    e = Engine(model_path=path)\n    b = MultiprocessingSerializer.serialize(w)\n"
                "    return e, b, ReleaseMemoryOccupationReqOutput()\n"
                "sglang.srt.managers.scheduler.Scheduler.release_memory_occupation = f\n", count=1),
        # RAFT-Stereo's CUDA correlation sampler built outside the repository, its import tried with no fallback
        Invalid("import torch\ntry:\n    import corr_sampler\nexcept:\n    pass\n"
                "class CorrSampler(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, volume, coords, r):\n"
                "        corr, = corr_sampler.forward(volume, coords, r)\n        return corr\n", count=1),
        # DFloat11: a kernel taken from a cupy module at module level, launched in functions ((L95)): the construction and
        # each launch; a torch module moved with a generic method is called as the torch interface, not reported
        Invalid("import cupy as cp\nimport tensorrt as trt\n_decode = cp.RawModule(path='k.ptx').get_function('decode')\n"
                "def run(x, n):\n    _decode(grid=(n,), block=(256,), args=[x.data_ptr(), n])\n"
                "def again(x):\n    _decode((1,), (32,), (x.data_ptr(),))\n"
                "def local(x):\n    k = cp.RawModule(code='src').get_function('k')\n    k((1,), (32,), (x,))\n", count=5),
        # torchsparse has a CPU build, but its GPU hash table is bound only in the CUDA build: the construction is the
        # use, its method calls on the object are not ((L65), (L12)); torchsparse's own functions are not (partial)
        Invalid("import torch\nimport torchsparse\nimport torchsparse.nn.functional as F\ndef query(q, t):\n"
                "    keys = torch.zeros(2 * t.shape[0], dtype=torch.int64)\n"
                "    table = torchsparse.backend.GPUHashTable(keys, keys.int())\n    table.insert_coords(t)\n"
                "    return table.lookup_coords(q), F.sphashquery(q, t)\n", count=1),
        # warp_rnnt (1ytic's CUDA-Warp RNN-T loss: no CPU build) called as the loss (label note 42d-8)
        Invalid("import torch\nfrom warp_rnnt import rnnt_loss\ndef loss(logits, y, tl, ul):\n"
                "    return rnnt_loss(torch.log_softmax(logits, -1), y, tl, ul, reduction='mean')\n", count=1),
        # a type check runs none of the package's code (rules 24b-14, 25b-8): the construction only
        Invalid("import nvdiffrast.torch as dr\ndef save(objs):\n    ctx = dr.RasterizeGLContext()\n"
                "    return [o for o in objs if not isinstance(o, (dr.ops.RasterizeGLContext, dr.RasterizeCudaContext))]\n",
                count=1),
        # annotations name the package's classes without running them (mit-han-lab/qserve qserve/utils/input_metadata.py):
        # the import only (an NPU501 finding), not the hints
        Invalid("from typing import Optional\nimport xformers.ops as xops\nclass Meta:\n"
                "    def __init__(self, bias: Optional[xops.AttentionBias] = None) -> 'xops.AttentionBias':\n"
                "        self.attn_bias: Optional[xops.AttentionBias] = bias\n"
                "        self.mask = xops.LowerTriangularMask()\n", count=1),
        # a package constant handed to a call runs nothing (Atom's python-api.ipynb, rule 25b-16): the construction only
        Invalid("import pycuda.driver as cuda\ndef l2_size():\n    dev = cuda.Device(0)\n"
                "    return dev.get_attribute(cuda.device_attribute.L2_CACHE_SIZE)\n", count=1),
        Invalid("import GPUtil\nids = GPUtil.getAvailable(order='first', limit=10, maxMemory=0.5)", count=1),  # 2d-gaussian-splatting nerf_eval.py
        # quip-sharp lib/utils/matmul_had.py: Dao-AILab's CUDA-only Hadamard transform
        Invalid("import fast_hadamard_transform\ny = fast_hadamard_transform.hadamard_transform(x, 0.5)", count=1),
        # AdelaiDet onnx/test_onnxruntime.py: the TensorRT backend for ONNX (NVIDIA TensorRT, CUDA devices only)
        Invalid("import onnx_tensorrt.backend as tensorrt_backend\nrep = tensorrt_backend.prepare(model)\nout = rep.run(x)", count=1),
        # BasicVSR++-style deploy tools: mmcv 1.x's TensorRT wrappers are GPU-only, mmcv and its ops (Ascend builds) are not
        Invalid("import mmcv\nfrom mmcv.ops import ModulatedDeformConv2d\nfrom mmcv.tensorrt import TRTWrapper, onnx2trt\n"
                "engine = onnx2trt(m, {})\nw = TRTWrapper(engine, ['a'], ['b'])\nc = ModulatedDeformConv2d(3, 3, 3)\n", count=2),
        # megablocks layers/mlp.py, ops/gather.py: stanford-stk's Triton block-sparse products and its CUDA autocast decorators
        Invalid("import stk.ops\ndef f(x, w, topo):\n    y = stk.ops.sdd(x, w, topo)\n    return stk.ops.dsd(y, w)", count=2),
        Invalid("import torch\nfrom stk.backend.autocast import custom_bwd, custom_fwd\n"
                "class G(torch.autograd.Function):\n    @staticmethod\n    @custom_fwd\n    def forward(ctx, x):\n        return x\n"
                "    @staticmethod\n    @custom_bwd\n    def backward(ctx, g):\n        return g", count=2),
        Invalid("import triton\nfrom .kernels import _fwd_kernel\n_fwd_kernel[(4,)](x)", count=1),
        # PointRCNN kitti_object_eval_python/rotate_iou.py: numba.cuda kernels are reported at their
        # decorators (not each `cuda.local.array` / `cuda.threadIdx` line inside), host calls and the launch
        Invalid("import numba\nfrom numba import cuda\n@cuda.jit('(float32[:], int32)', device=True, inline=True)\n"
                "def area(a, n):\n    c = cuda.local.array((2,), dtype=numba.float32)\n    return c[0]\n"
                "@cuda.jit('(int64, float32[:])')\ndef k(n, out):\n    tx = cuda.threadIdx.x\n    out[tx] = area(out, n)\n"
                "def run(x):\n    cuda.select_device(0)\n    k[4, 32](8, x)", count=4),
        # warprnnt_numba tests/.../test_rnnt_helper.py: kernels defined inside test functions, each named `_kernel`: their
        # bodies are quiet at any depth (the decorators and launches are the uses)
        Invalid("from numba import cuda\ndef test_a(x):\n    @cuda.jit\n    def _kernel(x):\n        i = cuda.grid(1)\n"
                "        x[i] = 0\n    _kernel[1, 8](x)\ndef test_b(x):\n    @cuda.jit\n    def _kernel(x):\n"
                "        i = cuda.grid(1)\n    _kernel[1, 8](x)", count=4),
        # a pccm code generator (spconv-style csrc/*.py): `@pccm.cuda.cuda_global_function` writes a CUDA `__global__`
        # kernel to a .cu unit, reported at the decorator like @triton.jit; pccm's other decorators (static_function,
        # cuda.static_function(device=True), pybind.mark) generate C++ / device helpers and are not (knowledge: pccm)
        Invalid("import pccm\nclass Ops(pccm.Class):\n    @pccm.cuda.cuda_global_function\n    def fill_kernel(self):\n"
                "        return pccm.FunctionCode()\n    @pccm.cuda.static_function(device=True, forceinline=True)\n"
                "    def helper(self):\n        return pccm.FunctionCode()\n    @pccm.pybind.mark\n    @pccm.static_function\n"
                "    def run(self):\n        return pccm.FunctionCode()", count=1),
        Invalid("import pynvml\npynvml.nvmlInit()\nh = pynvml.nvmlDeviceGetHandleByIndex(0)", count=2),
        Invalid("import deepspeed\nfrom deepspeed.ops.transformer import DeepSpeedTransformerLayer\nl = DeepSpeedTransformerLayer(cfg)", count=1),
        Invalid("import pynvml\nok = pynvml.c_nvmlProcessInfo_t.__name__ == 'c_nvmlProcessInfo_t'", count=1),
        Invalid("from flash_attn.ops.activations import swiglu\ny = swiglu(a, b)", count=1),
        Invalid("import xformers.ops as xops\ny = xops.memory_efficient_attention(q, k, v)", count=1),
        # a version probe reading the function's signature runs nothing; the call is the use
        Invalid("import inspect\nfrom flash_attn import flash_attn_func\n"
                "if 'window_size' in inspect.signature(flash_attn_func).parameters:\n    kw = {'window_size': (-1, -1)}\n"
                "out = flash_attn_func(q, k, v, **kw)\n", count=1),
        # ring-flash-attention's helper reading a kernel's default arguments (`inspect.getfullargspec` through a second
        # helper, `func._init_fn` for a wrapped one) runs nothing; the kernel's call is the use (label note 58a); a helper
        # that also calls its argument is no introspection
        Invalid("import inspect\nfrom functools import cache\n@cache\ndef _defaults(func):\n"
                "    spec = inspect.getfullargspec(func)\n    return dict(zip(spec.args, spec.defaults or ()))\n"
                "def get_default_args(func):\n    if inspect.isfunction(func):\n        return _defaults(func)\n"
                "    return _defaults(func._init_fn)\n"
                "def run_it(func):\n    return func()\n"
                "def forward(q, k, v):\n    from flash_attn.flash_attn_interface import _flash_attn_varlen_forward\n"
                "    params = get_default_args(_flash_attn_varlen_forward).copy()\n"
                "    params.update({'q': q, 'k': k, 'v': v})\n    run_it(_flash_attn_varlen_forward)\n"
                "    return _flash_attn_varlen_forward(**params)\n", count=2),
        # mmcv's TensorRT plugin probe asserted before the conversion: a check that raises; the conversion is the use
        Invalid("from mmcv.tensorrt import is_tensorrt_plugin_loaded, onnx2trt\n"
                "assert is_tensorrt_plugin_loaded(), 'TensorRT plugin should be compiled.'\n"
                "engine = onnx2trt(model, opt_shape_dict)\n", count=1),
        # microsoft/BitNet gpu/model.py: the op class handed to the package's call is a setting of that call, reported
        # once at its first line (label rule 41d-7); the same class handed to a function of the file is a use
        Invalid("from xformers.ops import fmha\ndef attend(q, k, v, bias):\n"
                "    return fmha.memory_efficient_attention_forward(\n        q, k, v, bias, op=fmha.flash.FwOp\n    )\n"
                "def run(q):\n    return attend(q, q, q, fmha.flash.FwOp)\n", count=2),
        # the call is the use; the classes an `except` catches, alone or in a tuple, are not ((L40))
        Invalid("import pynvml\ntry:\n    pynvml.nvmlInit()\nexcept (pynvml.NVMLError, OSError):\n    pass", count=1),
        # the call through the alias is the use, the binding only names the op (label ruling (L52))
        Invalid("import xformers.ops.fmha\nattn = xformers.ops.fmha.memory_efficient_attention\ndef f(q, k, v):\n    return attn(q, k, v)", count=1),
        Invalid("import xformers.ops as xops\nattn = xops.memory_efficient_attention\ndef f(attn):\n    return attn(1)", count=1),  # a parameter shadows the alias
        # a local picked from a literal dict of a GPU-only package's ops, then called: the call (label ruling (L52),
        # replacing 25b-13's 2 + 1)
        Invalid("import torch_int\nclass Linear:\n    def forward(self, x):\n        f = {\n"
                "            'int8': torch_int._CUDA.linear_a8_w8_b8_o8,\n            'fp32': torch_int._CUDA.linear_a8_w8_bfp32_ofp32,\n"
                "        }[self.out_dtype]\n        return f(x, self.weight)\n", count=1),
        # Qwen run_gptq.py: the construction from the package's class is the line that changes, not each method
        # of the object it built (label rule (L12): text-generation-webui's `model.load(split)` after
        # `ExLlamaV2(config)`, ChatTTS's `self.cache_engine.swap_in(...)` after vllm's `CacheEngine(...)`)
        Invalid("from auto_gptq import AutoGPTQForCausalLM\ndef main(name, cfg, data):\n"
                "    model = AutoGPTQForCausalLM.from_pretrained(name, cfg)\n    model.eval()\n"
                "    model.quantize(data)\n    model.save_quantized('out')", count=1),
        Invalid("from exllamav2 import ExLlamaV2, ExLlamaV2Config\nclass M:\n    def __init__(self, path):\n"
                "        config = ExLlamaV2Config()\n        config.prepare()\n        self.ex_model = ExLlamaV2(config)\n"
                "        self.ex_model.load_autosplit(None)\n    def run(self, ids):\n        return self.ex_model.forward(ids)",
                count=2),
        # PKU-YuanGroup/Helios triton_norm.py (unsloth-style): a kernel made by `f = triton.jit(f)` is reported at
        # those lines, not per body line; its launch and a launch through a choice between kernels are launches; a
        # host helper bound to a module name (`next_power_of_2 = triton.next_power_of_2`) stays a host helper
        Invalid("import triton\nimport triton.language as tl\ndef _bwd(x, n: tl.constexpr):\n    v = tl.load(x)\n"
                "_bwd = triton.jit(_bwd)\n_bwd = triton.heuristics({'G': lambda a: True})(_bwd)\n"
                "@triton.jit\ndef _fwd(x):\n    pass\n@triton.jit\ndef _gfwd(x):\n    pass\n"
                "next_power_of_2 = triton.next_power_of_2\ndef run(x, g):\n    b = next_power_of_2(8)\n"
                "    fx = _gfwd if g else _fwd\n    fx[(1,)](x)\n    _bwd[(1,)](x)", count=6),
        # pytorch-pwc correlation.py: a memoized launcher returns a cupy kernel object; each launch of its
        # result is a use (the decorator and the construction are reported once, in the launcher)
        # its compiled module called by name: the CUDA kernel itself, no torch path (the `nerfacc.cuda` entry)
        Invalid("import nerfacc\nimport nerfacc.cuda\nidx, t0, t1 = nerfacc.cuda.ray_marching(rays_o, rays_d, t_min, t_max)",
                count=1),
        Invalid("import cupy\n@cupy.memoize(for_each_device=True)\ndef launch(name, src):\n    return cupy.RawKernel(src, name)\n"
                "def run(x):\n    launch('k', 'src')(grid=(1,), block=(16,), args=[x])\n    k = launch('k', 'src')\n"
                "    k(grid=(1,), block=(16,), args=[x])", count=4),
        # liteflownet / softmax-splatting correlation.py: the memoized launcher returns a function of the module cupy
        # compiled (a call chain rooted in cupy under cupy's own decorator): each launch of its result is a use; the
        # `cupy.int32(n)` argument is numpy's scalar type re-exported (pure_api, notes 47a-6 / 47e-2): not one
        Invalid("import cupy\n@cupy.memoize(for_each_device=True)\ndef launch(name, src):\n"
                "    return cupy.cuda.compile_with_cache(src).get_function(name)\n"
                "def run(x, n):\n    launch('k', 'src')(\n        grid=(1,), block=(16,),\n        args=[cupy.int32(n), x])", count=3),
        # a function returning what a package function computed (a tensor): only that call is reported
        Invalid("from flash_attn import flash_attn_func\ndef attn(q, k, v):\n    return flash_attn_func(q, k, v)\n"
                "def f(q, k, v):\n    return attn(q, k, v).transpose(1, 2)(0)", count=1),
        # a tensor a GPU-only function returned is not the package's object: only the call is reported
        Invalid("from flash_attn import flash_attn_func\ndef f(q, k, v):\n    out = flash_attn_func(q, k, v)\n"
                "    return out.transpose(1, 2).reshape(2, -1)", count=1),
        # hustvl/Vim (mamba_ssm's create_block): a partial of the class handed to a block's constructor; the
        # construction through the factory is the use, the `partial(...)` only names the class (L52), labels 69e
        Invalid("from functools import partial\nfrom mamba_ssm.modules.mamba_simple import Mamba\n"
                "class Block:\n    def __init__(self, dim, mixer_cls, norm_cls=None):\n        self.mixer = mixer_cls(dim)\n"
                "    def forward(self, x):\n        return self.mixer(x)\n"
                "def create_block(d):\n    mixer_cls = partial(Mamba, layer_idx=0)\n    return Block(d, mixer_cls)", count=1),
        Invalid("import functools\nfrom mamba_ssm import Mamba\n"
                "class Block:\n    def __init__(self, dim, mixer_cls):\n        self.mixer = mixer_cls(dim)\n"
                "def create_block(d):\n    return Block(d, mixer_cls=functools.partial(Mamba, layer_idx=0))", count=1),
        # NX-AI/vision-lstm models_mamba.py (Vim): the class picked by a switch inside the partial, one choice the package's
        Invalid("from functools import partial\nimport torch.nn as nn\nfrom mamba_ssm.ops.triton.layernorm import RMSNorm\n"
                "class Block:\n    def __init__(self, dim, norm_cls):\n        self.norm = norm_cls(dim)\n"
                "def create_block(d, rms_norm=True):\n    norm_cls = partial(nn.LayerNorm if not rms_norm else RMSNorm, eps=1e-5)\n"
                "    return Block(d, norm_cls)", count=1),
        # an optimizer the package built: its construction is the construct, not each step
        Invalid("import bitsandbytes as bnb\ndef f(p):\n    opt = bnb.optim.Adam8bit(p)\n    opt.zero_grad()\n    opt.step()", count=1),
        # mobiusml/hqq hqq/utils/vllm.py: monkey-patching the GPU-only package (an attribute of it set) is a use of it
        Invalid("import vllm.model_executor.layers.linear as vllm_linear\ndef patch(init):\n    vllm_linear.LinearBase.__init__ = init",
                count=1),
        # a module the package built, kept on self and called in forward: the construction is the line
        # that changes, the call `self.inner_attn(qkv)` stays as it is for a replacement module
        Invalid("import torch\nfrom flash_attn.modules.mha import FlashSelfAttention\nclass A(torch.nn.Module):\n"
                "    def __init__(self):\n        super().__init__()\n        self.inner_attn = FlashSelfAttention(causal=True)\n"
                "    def forward(self, qkv):\n        return self.inner_attn(qkv)", count=1),
        # torch-ngp's tinycudann encoders: each construction, not each `self.encoder(x)`
        Invalid("import tinycudann as tcnn\nclass N:\n    def __init__(self):\n        self.encoder = tcnn.Encoding(3, cfg)\n"
                "        self.net = tcnn.Network(32, 1, net_cfg)\n    def forward(self, x):\n        h = self.encoder(x)\n"
                "        return self.net(h)", count=2),
        Invalid("try:\n    from apex.optimizers import FusedAdam\nexcept ImportError:\n    pass\nopt = FusedAdam(params)", count=1),
        # a switch between the package's class and a fallback: the call through the name, not the binding (L46)
        Invalid("from flash_attn.modules.mha import FlashSelfAttention\ndef make(flash):\n"
                "    cls = FlashSelfAttention if flash else None\n    return cls(causal=True)", count=1),
        # the local bound to the class and also handed on (returned): the binding stays a use (only type checks are not)
        Invalid("import torch\ndef pick(model, int4=False):\n    cls = torch.nn.Linear\n    if int4:\n"
                "        import bitsandbytes as bnb\n        cls = bnb.nn.Linear4bit\n"
                "    found = [m for m in model.modules() if isinstance(m, cls)]\n    return cls, found", count=1),
        # a lazy import through module globals bound to None first: the calls, not the rebinding (L46)
        Invalid("import torch\nattn_func, rotary = None, None\ndef _load():\n    global attn_func, rotary\n"
                "    from flash_attn import flash_attn_func as _f\n    from flash_attn.layers.rotary import apply_rotary_emb as _p\n"
                "    attn_func, rotary = _f, _p\ndef forward(q, k, v, cos, sin):\n    out = attn_func(rotary(q, cos, sin), k, v)\n"
                "    return out", count=2),
        # a local rebound by switches in turn (diffusers' trainers): each call through it takes the switch above it,
        # the bindings name the class and run nothing (L52); the call after the prodigyopt binding is not the package's
        Invalid("import torch\ndef build(args, params):\n    if args.use_8bit_adam:\n        import bitsandbytes as bnb\n"
                "        opt_cls = bnb.optim.AdamW8bit\n    else:\n        opt_cls = torch.optim.AdamW\n"
                "    opt = opt_cls(params, lr=args.lr)\n    if args.ademamix:\n        opt_cls = bnb.optim.AdEMAMix8bit if args.use_8bit else bnb.optim.AdEMAMix\n"
                "        opt = opt_cls(params)\n    if args.prodigy:\n        import prodigyopt\n        opt_cls = prodigyopt.Prodigy\n"
                "        opt = opt_cls(params)\n    return opt", count=2),
        # the same Function applied with no device test (and one under a test with no other way): the call is a use
        Invalid("import torch\nimport fused_dense_lib as fdl\n"
                "class DenseFunc(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, w, b):\n"
                "        return fdl.linear_bias_forward(x, w, b)\n"
                "def dense(x, w, b):\n    if x.is_cuda:\n        return DenseFunc.apply(x, w, b)\n"
                "def dense2(x, w, b):\n    return DenseFunc.apply(x, w, b)", count=1),
        # the autotuner's pruning helpers are arguments of the decorator: reported once, at `@triton.autotune` and
        # `@triton.jit` (the import is NPU501's)
        Invalid("import triton\nimport triton.language as tl\n"
                "from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time\n"
                "@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['M'],\n"
                "                 prune_configs_by={'early_config_prune': early_config_prune,\n"
                "                                   'perf_model': estimate_matmul_time, 'top_k': 10})\n"
                "@triton.jit\ndef k(x, BLOCK: tl.constexpr):\n    pass\n", count=2),
        # quack-style CuTe DSL reduction (alibaba/ROLL fused_cross_entropy.py, copied from Dao-AILab/quack): the
        # decorators `@cute.jit` / `@cute.kernel`, `cute.compile(...)` and the call of what it compiled are the uses;
        # the bodies, and the plain method `_cluster` the jit body traces, are kernel code (label ruling (L4), like
        # `tl.*` in a @triton.jit body); the fake tensor, symbolic size and Int32 scalars only feed the compiler
        # (knowledge `pure_api`, (L54)); the imports are NPU501's (migrate/cute_kernels.py)
        Invalid("import cutlass\nimport cutlass.cute as cute\nfrom cutlass import Int32, const_expr\n"
                "class Op:\n    def _cluster(self):\n        self.n = const_expr(cute.size(1))\n"
                "    @cute.jit\n    def __call__(self, mX: cute.Tensor, stream):\n        self._cluster()\n"
                "        self.kernel(mX).launch(grid=[cute.ceil_div(mX.shape[0], 4), 1, 1], block=[128, 1, 1])\n"
                "    @cute.kernel\n    def kernel(self, mX: cute.Tensor):\n"
                "        tidx, _, _ = cute.arch.thread_idx()\n        mX[tidx] = mX[tidx] + Int32(1)\n"
                "def run(x):\n    if 'k' not in run.cache:\n"
                "        fake = cute.runtime.make_fake_tensor(Int32, (cute.sym_int(),), stride=(1,))\n"
                "        run.cache['k'] = cute.compile(Op(), fake, Int32(0))\n    run.cache['k'](x, Int32(0))\n"
                "run.cache = {}\n", count=4),
        # TileLang (THUDM/slime glm5/ops/tilelang_indexer_fwd.py, adapted from tile-ai/tilelang's examples): the
        # `@tilelang.jit` decorator, the call of the decorated function (it compiles the kernel), the call of what that
        # returned (a launch) and `impl(...)(...)` (both, one line) are the uses; the jit body with its `@T.prim_func`
        # is kernel code (label ruling (L4), as a @triton.jit body), the pass-config key and the module's dtype names
        # host values (knowledge `pure_api`); the imports are NPU501's (migrate/tilelang_kernels.py)
        Invalid("import tilelang\nimport torch\nfrom tilelang import language as T\nBF16 = T.bfloat16\n"
                "@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})\n"
                "def impl(heads, dim):\n    n = T.dynamic('n')\n    @T.prim_func\n"
                "    def k(X: T.Tensor([n, dim], BF16)):\n        with T.Kernel(T.ceildiv(n, 64), threads=128) as bx:\n"
                "            s = T.alloc_shared([64, dim], BF16)\n            T.copy(X[bx * 64, 0], s)\n    return k\n"
                "def run(x):\n    kernel = impl(heads=4, dim=x.shape[1])\n    kernel(x)\n    impl(4, 8)(x)\n"
                "def other(impl, x):\n    return impl(x)\n", count=4),
        # TileLang (microsoft/MInference minference/ops/leank_flash_decoding.py): `@T.macro` functions are kernel code
        # that the `@T.prim_func` inlines (their decorators are the lines, not their bodies); `@autotune` from a star
        # import of tilelang.autotuner stacked on a jit defined in a factory function, and the call of that jit in the
        # function (it compiles and tunes the kernel); the later plain `def kernel` is no kernel
        # (migrate/tilelang_kernels.py; labeller 60e note on TileLang)
        Invalid("import tilelang\nimport tilelang.language as T\nfrom tilelang.autotuner import *\n"
                "def build(n, tune=False):\n    def body(bn):\n        @T.macro\n"
                "        def load(X: T.Tensor([n], 'float16'), S):\n            T.copy(X[0], S)\n"
                "            for i in T.Parallel(bn):\n                S[i] = T.exp2(S[i])\n"
                "        @T.prim_func\n        def main(X: T.Tensor([n], 'float16')):\n"
                "            with T.Kernel(T.ceildiv(n, bn), threads=128) as bx:\n"
                "                S = T.alloc_shared([bn], 'float16')\n                load(X, S)\n        return main\n"
                "    if tune:\n        @autotune(configs=[{'bn': 64}, {'bn': 128}], warmup=10, rep=10)\n"
                "        @tilelang.jit(out_idx=[1])\n        def kernel(bn=None):\n            return body(bn)\n"
                "        return kernel()\n    def kernel(bn):\n        return body(bn)\n    x = kernel(64)\n"
                "    return kernel\n", count=5),
        # Megatron-core's Transformer Engine wrappers (knowledge `megatron.core.extensions.transformer_engine`: its
        # TE* classes subclass TE's layers) and TE's own extension module: a construction and a call are the uses, a
        # type check is not (label ruling (L35)); the imports are NPU501's (labeller notes 52a-6/7)
        Invalid("from megatron.core.extensions.transformer_engine import TELinear\n"
                "import transformer_engine_torch as tex\n"
                "def lora(cfg, module, cu, cp):\n    if isinstance(module, TELinear):\n"
                "        idx = tex.thd_get_partitioned_indices(cu, cu[-1], cp, 0)\n"
                "    return TELinear(4, 4, config=cfg, parallel_mode=None)\n", count=2),
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
        # the body of `if provider == "flash":` where "flash" is offered only as `(["flash"] if HAS_FLASH else [])`,
        # the flag of flash_attn's import attempt: runs only where that package imported (migrate/flag_listed_branches.py)
        spans = flag_listed_branches.flag_listed_spans(ctx) if ctx.kind != "launcher" else []
        for found in self._uses(ctx):
            if not (spans and flag_listed_branches.inside(spans, found.line)):
                yield found

    def _uses(self, ctx):
        table = knowledge.third_party()
        if ctx.kind == "launcher":
            yield from self._config_targets(ctx, table)
            yield from self._package_runs(ctx, table)
            return
        known = ctx.__dict__.get("_npu_known_kernels")
        if known:  # the second look of migrate/imported_kernels.py: launches of the kernels other modules define
            names = imported_kernel_names(ctx, known)
            for package in sorted(set(names.values())):
                if package in table and reported(table[package]):
                    yield from self._launches(ctx, {n for n, p in names.items() if p == package}, table, package, by_name=False)
            return
        kernels = self._kernels(ctx)
        # every kernel's body, at any depth and whatever its name (test functions each defining their own `_kernel`)
        kernel_bodies = {id(k) for k, _ in kernels.values()} | {
            id(f) for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for f in ctx.nodes.get(kind, ())
            if f.decorator_list and _kernel_package(ctx, f) is not None}
        if cute_kernels.wanted(ctx.source):  # CuTe DSL kernels and the helpers they trace (migrate/cute_kernels.py)
            kernel_bodies |= cute_kernels.kernel_bodies(ctx)
        tilelang = tilelang_kernels.wanted(ctx.source)
        if tilelang:  # `@tilelang.jit` / `@T.prim_func` bodies (migrate/tilelang_kernels.py)
            kernel_bodies |= tilelang_kernels.kernel_bodies(ctx)
        compiles: set[int] = set()  # the `cute.compile(...)` calls reported: their results' calls are launches
        tile_compiles: set[int] = set()  # the same for TileLang: `tilelang.compile(...)` and calls of its jit functions
        optional = fallback_guarded_names(ctx)
        # `cls = FlashSelfAttention if use_flash_attn else SelfAttention`: the binding names, its calls run (L46)
        switched = callable_aliases.switched_aliases(ctx, _alias_resolver(ctx, table)) if "if" in ctx.source else []
        if "global" in ctx.source:  # `f = None` at the top, `global f; f = _f` in a lazy import: the calls run it (L46)
            switched += callable_aliases.global_aliases(ctx, _alias_resolver(ctx, table))
        # `cls = bnb.optim.AdamW8bit` / `else: cls = torch.optim.AdamW`, `cls(params)`, then `cls = prodigyopt.Prodigy`:
        # each call through the name takes the switch above it (L52)
        rebound = callable_aliases.rebound_calls(ctx, _alias_resolver(ctx, table)) if "if" in ctx.source else []
        picked = {id(branch) for alias in (*switched, *(a for _, a in rebound)) for branch in alias.branches}
        # `tec = transformer_engine.pytorch.distributed.checkpoint` then `tec(...)`: the calls through the alias are the
        # uses, the binding only names the callable (label ruling (L52), which replaced 25b-13's reading of both lines);
        # an alias never called through stays a use at its binding
        aliases = callable_aliases.callable_aliases(ctx, _alias_resolver(ctx, table))
        # `_, mm_fp4, _ = _require_flashinfer()` where the module's loader returns the callables it imports: each call
        # through the bound name is the use, the `return` only hands them over (L52)
        loaded, returned = callable_aliases.loader_aliases(ctx, _alias_resolver(ctx, table)) if "return" in ctx.source else ({}, {})
        aliases = {**loaded, **aliases}
        # (a loader's bound name may spell the imported one, `_, mm_fp4, _ = ...`: a local of the caller, which the
        # import-resolved chain pass leaves as shadowed)
        alias_calls = [c for c in callable_aliases.alias_calls(ctx, aliases) if ctx.qualname(c.call.func) is None
                       or ((c.alias.scope, c.alias.name) in returned and shadowed(ctx, c.call.func))]
        picked |= callable_aliases.binding_chains(ctx, {(c.alias.scope, c.alias.name) for c in alias_calls})
        picked |= {id(returned[(c.alias.scope, c.alias.name)]) for c in alias_calls if (c.alias.scope, c.alias.name) in returned}
        # `self.cuda = cuda` (a module of the package held by the object), then `self.cuda.memcpy_htod(...)` in its
        # methods: the calls through the attribute are the uses, the binding only names the module (L46)/(L52)
        module_calls = [c for c in callable_aliases.module_attribute_calls(
            ctx, callable_aliases.module_attributes(ctx, _alias_resolver(ctx, table)))
            if not (optional and c.alias.root in optional)] if "self." in ctx.source else []
        picked |= {chain for c in module_calls for chain in c.alias.chains}
        # `module.full_attn_func = flash_attn_func` (or a wrapper handed it), then `self.full_attn_func(...)` in the
        # forward patched onto that module: the calls through the attribute are the uses, the stores only name it (L52)
        stored_calls = self._stored_attribute_calls(ctx, table, optional, switched) if "self." in ctx.source else []
        picked |= {chain for _, alias in stored_calls for chain in alias.chains}
        # `build_selective_scan_fn(selective_scan_cuda, ...)` with `selective_scan_cuda.fwd(...)` on the parameter inside:
        # the calls through the parameter are the uses, the hand-over only names the module (L46)/(L57), labels 69c
        parameter_calls = [c for c in callable_aliases.parameter_module_calls(
            ctx, callable_aliases.parameter_modules(ctx, _alias_resolver(ctx, table)))
            if not (optional and any(k.split(".", 1)[0] in optional for k in c.alias.keys))] if "def " in ctx.source else []
        picked |= {argument for c in parameter_calls for argument in c.alias.arguments}
        # `mixer_cls = partial(Mamba, ...)`, then `self.mixer = mixer_cls(dim)`: the construction through the factory is
        # the use (reported by `_instance_uses`), the `partial(...)` only names the class (L52), labels 69e
        picked |= self._called_factory_chains(ctx, table, optional) if "partial" in ctx.source else set()
        # a class entered only under `if x.is_cuda and ...:` with a torch way beside (label ruling 40b-1)
        cuda_side = cuda_tested_entries.cuda_tested_classes(ctx)
        for node, qual in chain_tops(ctx):
            if id(node) in picked:
                continue
            key = match_package(qual, table)
            if key is None or not reported(table[key]) or _owned_elsewhere(qual) or _metadata(qual, table) \
                    or _plugin_kept(qual, table[key]) or _pure(qual, key, table):
                continue
            if key == TRITON and (_triton_host_helper(qual) or _triton_language_value(ctx, node, qual)):
                continue
            # a load, or an attribute of the package set (monkey-patching it: `vllm_linear.LinearBase.__init__ = f`)
            stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            if not (stored or isinstance(getattr(node, "ctx", None), ast.Load)) or availability_probe(ctx, node) or is_prose(ctx, node) \
                    or _feature_probe(ctx, node) or _type_check(ctx, node) or _type_checked_binding(ctx, node) \
                    or _annotation(ctx, node) \
                    or _constant_argument(ctx, node, qual) or _constant_value(ctx, node) or _value_member(ctx, node) \
                    or _getattr_default(ctx, node) \
                    or _argument_of_package_call(ctx, node, key, table) or _package_probe(ctx, node, qual):
                continue
            if shadowed(ctx, node) or (optional and guarded_use(ctx, root_name(node), node)
                                       and not unbound_without_package(ctx, root_name(node), node)):
                continue
            if none_stand_ins.checked_flagged_read(ctx, root_name(node), node):
                continue  # a None stand-in beside a flag, read where its function checks them (migrate/none_stand_ins.py)
            if rebound_imports.rebound(ctx, node):  # `trt = TrtEngine(...)` above it: the script's own object
                continue
            # a call in the branch of an availability check (`if is_flash_v2_installed(): ...varlen_func(...)` / `else:
            # raise RuntimeError(...)`): the program takes it only where the package is (label ruling (L34)). Not the
            # repository's own Triton / numba kernels (`if HAS_TRITON: @triton.jit ...`): they stay work to port (L42)
            if package_of(key, table) not in (TRITON, "numba") and availability_guard(ctx, node) is not None:
                continue
            if kernel_bodies and self._inside_kernel(ctx, node, kernel_bodies):
                continue
            if cuda_side and cuda_tested_entries.inside(ctx, node, cuda_side):
                continue
            # faiss's GPU API under `if torch.cuda.is_available():` upgrading the CPU index bound above (L65 with (L28))
            if _cpu_build_kept(key, table) and cuda_tested_entries.cuda_side_upgrade(ctx, node):
                continue
            if qual in (cute_kernels.COMPILE, tilelang_kernels.COMPILE) and isinstance(ctx.parent(node), ast.Call) \
                    and ctx.parent(node).func is node:
                (compiles if qual == cute_kernels.COMPILE else tile_compiles).add(id(ctx.parent(node)))
            yield self._finding(ctx, report_node(ctx, node), qual, key, table)
        yield from self._tilelang_uses(ctx, table, kernel_bodies, tile_compiles) if tilelang else ()
        for launch, compiled in cute_kernels.compiled_launches(ctx, compiles) if compiles else ():
            what = f"`{ctx.segment(launch.func)}(...)`, a launch of the CuTe DSL kernel compiled at line {compiled.lineno},"
            yield self._finding(ctx, launch, cute_kernels.COMPILE, match_package(cute_kernels.COMPILE, table), table, what=what)
        for found in alias_calls:  # each call through an alias of a GPU-only callable (migrate/callable_aliases.py)
            if optional and any(root_name(chain) in optional and _none_tested_before(ctx, root_name(chain), found.call)
                                for chain in callable_aliases.bound_chains(ctx, found.alias)):
                continue  # the package's optional import (`except ImportError: gemlite = None`), tested before the call
            qual = found.alias.keys[0]
            yield self._finding(ctx, found.call, qual, match_package(qual, table), table)
        for found in module_calls:
            key = match_package(found.qual, table)
            if key is None or not reported(table[key]) or _owned_elsewhere(found.qual) or _metadata(found.qual, table) \
                    or _plugin_kept(found.qual, table[key]) or _pure(found.qual, key, table):
                continue
            what = f"`{ctx.segment(found.call.func)}(...)`, a call of `{found.qual}` through `self.{found.alias.name}` (bound at line {found.alias.line}),"
            yield self._finding(ctx, found.call, found.qual, key, table, what=what)
        for call, alias in callable_aliases.switched_calls(ctx, switched):
            if not (optional and root_name(alias.branches[0]) in optional):
                yield self._finding(ctx, call, alias.key, match_package(alias.key, table), table)
        for call, alias in rebound:
            if not (optional and root_name(alias.branches[0]) in optional):
                yield self._finding(ctx, call, alias.key, match_package(alias.key, table), table)
        for call, alias in stored_calls:
            yield self._finding(ctx, call, alias.keys[0], match_package(alias.keys[0], table), table)
        for found in parameter_calls:
            key = match_package(found.qual, table)
            if key is None or not reported(table[key]) or _pure(found.qual, key, table):
                continue
            what = f"`{ctx.segment(found.call.func)}(...)`, a call of `{found.qual}` through the parameter `{found.alias.name}`,"
            yield self._finding(ctx, found.call, found.qual, key, table, what=what)
        yield from self._instance_uses(ctx, table, optional, kernel_bodies)
        yield from self._loaded_module_calls(ctx, table, optional)
        yield from self._method_result_calls(ctx, table, optional)
        triton_kernels = {name: f for name, (f, package) in kernels.items() if package == TRITON}
        triton_optional = any(ctx.imports.get(name, "").split(".", 1)[0] == TRITON for name in optional)
        if not triton_optional and (triton_kernels or TRITON in ctx.imports.values() or any(v.startswith("triton.") for v in ctx.imports.values())):
            yield from self._launches(ctx, triton_kernels, table)  # with an optional Triton, the launches are on its path too
        numba_kernels = {name for name, (_, package) in kernels.items() if package == NUMBA_CUDA}
        if numba_kernels and NUMBA_CUDA in table and reported(table[NUMBA_CUDA]):
            yield from self._launches(ctx, numba_kernels, table, NUMBA_CUDA, by_name=False)

    @staticmethod
    def _stored_attribute_calls(ctx, table, optional, switched):
        """The `self.<name>(...)` calls through attributes the file stores only as a GPU-only callable
        (migrate/callable_aliases.py `stored_attributes`), other than those a switched alias reads, and not of a
        package imported optionally."""
        aliases = callable_aliases.stored_attributes(ctx, _alias_resolver(ctx, table))
        if not aliases:
            return []
        taken = {id(call) for call, _ in callable_aliases.switched_calls(ctx, switched)}
        return [(call, alias) for call, alias in callable_aliases.stored_attribute_calls(ctx, aliases)
                if id(call) not in taken and not (optional and any(k.split(".", 1)[0] in optional for k in alias.keys))]

    def _loaded_module_calls(self, ctx, table, optional):
        """`_C = _get_c_extension()` (a package's loader of its compiled module, knowledge `loads_module`), then
        `_C.grid_weight_render(...)`: each call through the name is a call into the compiled module (label ruling
        (L31)); the loader's call itself is a use of its own entry, reported with the chains. Not where the function
        (else the module) tests the name against None before the call."""
        loaders = {key: entry.loads_module for key, entry in table.items() if entry.loads_module}
        if not loaders or not any(key.rsplit(".", 1)[-1] in ctx.source for key in loaders):
            return

        def loader_module(qual):
            key = match_package(qual, table)
            return loaders.get(key) if key == qual else None

        for found in loaded_modules.module_calls(ctx, loaded_modules.loaded_modules(ctx, loader_module)):
            key = match_package(found.qual, table)
            if key is None or not reported(table[key]) or _none_tested_before(ctx, found.loaded.name, found.call):
                continue
            if optional and guarded_use(ctx, found.loaded.name, found.call):
                continue
            what = f"`{ctx.segment(found.call.func)}(...)`, a call into `{found.loaded.module}` (bound at line {found.loaded.line}),"
            yield self._finding(ctx, found.call, found.qual, key, table, what=what)

    def _method_result_calls(self, ctx, table, optional):
        """`_decode = cp.RawModule(path=ptx).get_function('decode')`, then `_decode(grid=..., block=..., args=[...])` in
        a function: the name holds what a method of the package's object returned (a cupy kernel), and each call of the
        name runs it (label ruling (L95): a RawKernel launch is a use at the launch line). The binding names one
        construction of the package's class, reported with the chains; generic methods (`.to()`, `.eval()`: the object
        itself, whose calls are the torch module interface) and private ones are not read. A name bound once in its
        scope (a function, or the module).

        The object may be built a line above and held by a name of the same function (`m = function.Module()`,
        `k = m.get_function('k')`, `k(grid=..., block=..., args=[...])`: cupy's driver-level module) or by an attribute
        of `self` in the same class (`self.mod = SourceModule(src)` in `__init__`, `self.k = self.mod.get_function('k')`,
        `self.k(..., block=..., grid=...)` in another method: pycuda). An attribute of `self` holding the method's result
        is read like a name, bound once in its class (label notes 53d on FastPhotoStyle and NeuralRecon)."""
        if "(" not in ctx.source:
            return
        held: dict[tuple[int | None, str], tuple[str, str, int]] = {}
        objects = self._held_objects(ctx, table, optional)
        for statement in ctx.nodes.get(ast.Assign, ()):
            if len(statement.targets) != 1:
                continue
            value = statement.value
            # `k = mod.get_function("a") if cond else mod.get_function("b")`: either kernel
            branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            found = [self._method_result(ctx, branch, table, optional, objects) for branch in branches]
            if any(built is None for built in found):
                continue
            key = self._holder_key(ctx, statement.targets[0])
            if key is not None:
                held[key] = (*found[0], statement.lineno)
        held = self._bound_once(ctx, held)
        held.update(self._returned_to_attributes(ctx, held))
        if not held:
            return
        names = {name for _, name in held}
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Name):
                if func.id not in names or ctx.qualname(func) is not None:
                    continue
            elif not (isinstance(func, ast.Attribute) and f"self.{func.attr}" in names):
                continue
            key = self._holder_key(ctx, func)
            found = held.get(key) if key is not None else None
            if found is None or (isinstance(func, ast.Name) and key[0] is not None and call.lineno < found[2]):
                continue
            qual, key, line = found
            what = f"`{ctx.segment(func)}(...)`, a call of what a `{qual}` object's method returned (bound at line {line}),"
            yield self._finding(ctx, call, qual, key, table, what=what)

    def _method_result(self, ctx, value, table, optional, objects) -> tuple[str, str] | None:
        """(qual, key) when `value` calls a non-generic method of an object a GPU-only package's class built (in place,
        or held by a name or `self` attribute of `objects`): `mod.get_function("k")`."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            return None
        method = value.func.attr
        if method in _GENERIC_METHODS or method.startswith("_"):
            return None
        receiver = value.func.value
        built = self._built_by_package(ctx, receiver, table, optional)
        if built is None and isinstance(receiver, (ast.Name, ast.Attribute)) and objects:
            holder = self._holder_key(ctx, receiver)
            built = objects.get(holder) if holder is not None else None
        return built

    def _returned_to_attributes(self, ctx, held: dict) -> dict:
        """`self` attributes bound, by a tuple (or single) assignment from a call of a method of the same class, to the
        held names that method returns: pointnerf's querier, whose `build_cuda()` compiles a SourceModule, binds
        `get_occ_vox = mod.get_function("get_occ_vox")` ... and `return get_occ_vox, near_vox_full, ...`, and whose
        `__init__` keeps them, `self.get_occ_vox, self.near_vox_full, ... = self.build_cuda()`, for the launches in
        other methods (label note 57c on pointnerf, (L95)). Each attribute bound once in its class."""
        if not held or "return" not in ctx.source:
            return {}
        returned: dict[tuple[int, str], list] = {}  # (class, method) -> per position: the held entry or None
        for statement in ctx.nodes.get(ast.Return, ()):
            function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
            owner = ctx.enclosing(function, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) if function else None
            if not isinstance(owner, ast.ClassDef) or statement.value is None:
                continue
            values = statement.value.elts if isinstance(statement.value, ast.Tuple) else [statement.value]
            entries = [held.get(self._holder_key(ctx, v)) if isinstance(v, ast.Name) else None for v in values]
            key = (id(owner), function.name)
            if key in returned or not any(entries):
                returned[key] = []  # a method returning in more than one place (or nothing held): not read
                continue
            returned[key] = entries
        returned = {key: entries for key, entries in returned.items() if entries}
        if not returned:
            return {}
        out: dict[tuple[int | None, str], tuple] = {}
        bindings: dict[tuple[int | None, str], int] = {}
        for statement in ctx.nodes.get(ast.Assign, ()):
            for target in statement.targets:
                for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self":
                        holder = self._holder_key(ctx, element)
                        bindings[holder] = bindings.get(holder, 0) + 1
            value = statement.value
            if not (len(statement.targets) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and isinstance(value.func.value, ast.Name) and value.func.value.id == "self"):
                continue
            owner = ctx.enclosing(statement, (ast.ClassDef,))
            entries = returned.get((id(owner), value.func.attr)) if owner is not None else None
            target = statement.targets[0]
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            if not entries or len(elements) != len(entries):
                continue
            for element, entry in zip(elements, entries):
                holder = self._holder_key(ctx, element) if isinstance(element, ast.Attribute) else None
                if entry is not None and holder is not None:
                    out[holder] = entry
        return {holder: entry for holder, entry in out.items() if bindings.get(holder) == 1 and holder not in held}

    @staticmethod
    def _holder_key(ctx, node) -> tuple[int | None, str] | None:
        """(scope, name) of a name (its binding function, None: the module) or of `self.attr` (its class)."""
        if isinstance(node, ast.Name):
            scope = binding_scope(ctx, node, node.id)
            return (id(scope) if scope is not None else None, node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            owner = ctx.enclosing(node, (ast.ClassDef,))
            return (id(owner), f"self.{node.attr}") if owner is not None else None
        return None

    def _held_objects(self, ctx, table, optional) -> dict[tuple[int | None, str], tuple[str, str]]:
        """(scope, name) -> (qual, key) for the names and `self` attributes bound once, in their scope, to a construction
        of a reported GPU-only package's class (`m = function.Module()`, `self.mod = SourceModule(src)`)."""
        built: dict[tuple[int | None, str], tuple[str, str]] = {}
        for statement in ctx.nodes.get(ast.Assign, ()):
            if len(statement.targets) != 1:
                continue
            found = self._built_by_package(ctx, statement.value, table, optional)
            if found is not None:
                key = self._holder_key(ctx, statement.targets[0])
                if key is not None:
                    built[key] = found
        return self._bound_once(ctx, built)

    @classmethod
    def _bound_once(cls, ctx, found: dict) -> dict:
        """The entries of `found` ((scope, name) -> ...) whose name the file's single-target assignments bind once
        in that scope. Only the assignments to a name or `self` attribute spelled like a key are read: the scope of
        every other target is never asked (it was, for each assignment of the file: a twentieth of the cold scan)."""
        if not found:
            return found
        spelled = {name for _, name in found}
        seen: dict[tuple[int | None, str], int] = {}
        for statement in ctx.nodes.get(ast.Assign, ()):
            if len(statement.targets) != 1:
                continue
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                if target.id not in spelled:
                    continue
            elif not (isinstance(target, ast.Attribute) and f"self.{target.attr}" in spelled):
                continue
            key = cls._holder_key(ctx, target)
            if key in found:
                seen[key] = seen.get(key, 0) + 1
        return {key: value for key, value in found.items() if seen.get(key) == 1}

    def _built_by_package(self, ctx, value, table, optional) -> tuple[str, str] | None:
        """(qualified name, package key) when `value` builds an object of a reported GPU-only
        package's class (a class call, or a class's constructor method such as `from_pretrained`)."""
        if not isinstance(value, ast.Call):
            return None
        return self._package_class(ctx, value.func, table, optional)

    def _package_class(self, ctx, node, table, optional) -> tuple[str, str] | None:
        """(qualified name, package key) when `node` names a reported GPU-only package's class or
        one of its constructor methods."""
        qual = ctx.qualname(node)
        key = match_package(qual, table) if qual else None
        if key is None or not reported(table[key]) or _owned_elsewhere(qual) or _plugin_kept(qual, table[key]) \
                or _pure(qual, key, table) or (key == TRITON and _triton_host_helper(qual)):
            return None
        parts = qual.split(".")
        # an object of the package's classes: `FlashSelfAttention(...)`, `AutoGPTQForCausalLM.from_pretrained(...)`;
        # what a function returns (`out = flash_attn_func(q, k, v)`, a tensor) is not the package's
        if not (parts[-1][:1].isupper() or (len(parts) > 1 and parts[-2][:1].isupper())):
            return None
        if optional and root_name(node) in optional:
            return None
        return qual, key

    def _instance_uses(self, ctx, table, optional, kernel_bodies=frozenset()):
        """Objects a GPU-only package built, used later: `model = AutoGPTQForCausalLM.from_pretrained(...)`
        then `model.quantize(data)`, in the same function; `self.q = GPTQModel(...)` then
        `self.q.pack(...)`, in the same class. Calls of its own methods are uses; calls of the object
        itself and generic module / optimizer methods (`.to()`, `.step()`) are not."""
        locals_: dict[tuple[int, str], tuple[str, str]] = {}  # (scope, name) -> (qual, key)
        members: dict[tuple[int, str], tuple[str, str]] = {}  # (class, attribute of self) -> (qual, key)
        factories = self._factories(ctx, table, optional)
        returners = self._returners(ctx, table, optional)
        held: set[tuple[int, str]] = set()  # (scope, name) holding what a returner returned: `k = launch(...)`
        for statement in ctx.nodes.get(ast.Assign, ()):
            if len(statement.targets) != 1:
                continue
            built = self._built_by_package(ctx, statement.value, table, optional)
            if built is None and returners:
                built = self._returned(ctx, statement.value, returners)
                if built is not None and isinstance(statement.targets[0], ast.Name):
                    held.add((id(ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))), statement.targets[0].id))
            if built is None and factories and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Name):
                # `self.mixer = mixer_cls(dim)`: a factory of the class builds the object (reported here)
                scope = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                built = factories.get((id(scope), statement.value.func.id))
                if built is not None:
                    qual, key = built
                    what = f"`{statement.value.func.id}(...)`, a factory of `{qual}`,"
                    yield self._finding(ctx, statement.value, qual, key, table, what=what)
            if built is None:
                continue
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                locals_[(id(ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))), target.id)] = built
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                owner = ctx.enclosing(statement, (ast.ClassDef,))
                if owner is not None:
                    members[(id(owner), target.attr)] = built
        if not locals_ and not members and not returners:
            return
        for call in ctx.nodes.get(ast.Call, ()):
            # inside a kernel body (`desc.load(...)` on a `tl.make_tensor_descriptor(...)` of a @triton.jit body): kernel
            # code, reported once at the kernel's decorator (label ruling (L51))
            if kernel_bodies and self._inside_kernel(ctx, call, kernel_bodies):
                continue
            func = call.func
            # what a function of this file returned, called: `cupy_launch(name, src)(grid=..., args=[...])`,
            # `k = cupy_launch(name, src); k(...)` (the object was built inside the function, reported there once)
            built = self._returned(ctx, func, returners) if returners else None
            if built is None and isinstance(func, ast.Name) and ctx.qualname(func) is None and held and \
                    (id(ctx.enclosing(func, (ast.FunctionDef, ast.AsyncFunctionDef))), func.id) in held:
                built = locals_.get((id(ctx.enclosing(func, (ast.FunctionDef, ast.AsyncFunctionDef))), func.id))
            if built is not None:
                qual, key = built
                what = f"`{ctx.segment(func) if isinstance(func, ast.Name) else func.func.id + '(...)'}(...)`, a call of the `{qual}` object a function of this file returns,"
                yield self._finding(ctx, call, qual, key, table, what=what)
                continue
            # calling the object itself (`self.encoder(x)`, `self.inner_attn(qkv)`) is the interface every
            # torch module shares: a replacement built at the reported construction line is called the
            # same way, so the call is not a line that must change. Only the package's own methods are.
            if not isinstance(func, ast.Attribute):
                continue
            method = func.attr  # its method: `launch(...).get_function(...)`
            if method in _GENERIC_METHODS or method.startswith("_"):
                continue
            # the methods of an object one of the package's classes built (`model.quantize(data)` after
            # `AutoGPTQForCausalLM.from_pretrained(...)`, `self.cache_engine.swap_in(...)` after `CacheEngine(...)`)
            # go with the construction, the line that names the package's class (label rule (L12), sets 18-19:
            # ChatTTS's vllm worker, text-generation-webui's exllamav2 loaders); what a launcher of this file
            # returned stays a kernel object whose every call and method is a launch
            holder = func.value
            if not (isinstance(holder, ast.Call) or (isinstance(holder, ast.Name) and (
                    id(ctx.enclosing(holder, (ast.FunctionDef, ast.AsyncFunctionDef))), holder.id) in held)):
                continue
            built = self._instance(ctx, holder, locals_, members, returners)
            if built is None:
                continue
            qual, key = built
            what = f"`{ctx.segment(func)}(...)`, on the object from `{qual}(...)`,"
            yield self._finding(ctx, call, qual, key, table, what=what)

    def _factories(self, ctx, table, optional, chains: dict | None = None) -> dict[tuple[int, str], tuple[str, str]]:
        """Names that build a GPU-only package's objects when called: `mixer_cls = partial(Mamba, ...)`
        in a function, and the constructor parameter it is handed to (`Block(dim, mixer_cls)` with
        `def __init__(self, dim, mixer_cls)`: the pattern of mamba_ssm's `create_block`, copied into
        Vim, VMamba and other Mamba models). Keyed by (function, name). A class picked by a switch (`partial(nn.LayerNorm
        if not rms_norm else RMSNorm, ...)`, Vim's create_block) is the package's where one choice is (L52). With
        `chains`, the class nodes named in the `partial(...)` each name may hold (by id) are collected into it."""
        def partial_of(node) -> tuple[str, str] | None:  # `partial(Mamba, ...)`
            if isinstance(node, ast.Call) and node.args and ctx.qualname(node.func) == "functools.partial":
                named = node.args[0]
                choices = [named.body, named.orelse] if isinstance(named, ast.IfExp) else [named]
                found = [(c, self._package_class(ctx, c, table, optional)) for c in choices]
                found = [(c, b) for c, b in found if b is not None]
                if found and chains is not None:
                    chains.setdefault(id(node), {id(c) for c, _ in found})
                return found[0][1] if found else None
            return None

        out: dict[tuple[int, str], tuple[str, str]] = {}
        inline = False
        for call in ctx.nodes.get(ast.Call, ()):
            built = partial_of(call)
            if built is None:
                continue
            statement = ctx.parent(call)
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                scope = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                out[(id(scope), statement.targets[0].id)] = built
                if chains is not None:
                    chains[(id(scope), statement.targets[0].id)] = chains.pop(id(call), set())
            else:
                inline = True  # handed on directly: `Block(dim, partial(Mamba, ...))`
        if not out and not inline:
            return out
        inits = {}
        for cls in ctx.nodes.get(ast.ClassDef, ()):
            init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is not None and ctx.enclosing(cls, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) is None:
                inits[cls.name] = init
        for call in ctx.nodes.get(ast.Call, ()):
            if not (isinstance(call.func, ast.Name) and call.func.id in inits):
                continue
            init = inits[call.func.id]
            params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
            scope = id(ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef)))
            handed = [(params[i] if i < len(params) else None, a) for i, a in enumerate(call.args)]
            handed += [(k.arg, k.value) for k in call.keywords]
            for param, arg in handed:
                built = out.get((scope, arg.id)) if isinstance(arg, ast.Name) else partial_of(arg)
                if param and built is not None:
                    out[(id(init), param)] = built
                    if chains is not None:
                        given = chains.get((scope, arg.id), set()) if isinstance(arg, ast.Name) else chains.get(id(arg), set())
                        chains[(id(init), param)] = chains.get((id(init), param), set()) | given
        return out

    def _called_factory_chains(self, ctx, table, optional) -> set[int]:
        """The class nodes of the `partial(...)` bindings of `_factories` whose name (or the constructor parameter it
        is handed to) is called in an assignment, `self.mixer = mixer_cls(dim)`, as `_instance_uses` reports it."""
        chains: dict = {}
        factories = self._factories(ctx, table, optional, chains)
        if not factories:
            return set()
        out: set[int] = set()
        for statement in ctx.nodes.get(ast.Assign, ()):
            value = statement.value
            if len(statement.targets) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                key = (id(ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))), value.func.id)
                if key in factories:
                    out |= chains.get(key, set())
        return out

    def _returners(self, ctx, table, optional) -> dict[str, tuple[str, str]]:
        """Top-level functions of this file that return an object a GPU-only package's class built
        (pytorch-pwc's `@cupy.memoize(...) def cupy_launch(f, k): return cupy.RawKernel(k, f)`; directly, or
        through a name of the function bound to it): name -> (qual, key). A function returning what a
        package function computed (`return flash_attn_func(q, k, v)`, a tensor) is not one."""
        out: dict[str, tuple[str, str]] = {}
        # exact pre-test: a returner returns (directly, or through a name bound to it) a value `_built_by_package`
        # recognises; a file none of whose returned or assigned values is one has none, and the walks below,
        # this rule's dearest part on a large file, are skipped; so is a function under the package's own decorator
        # (`_made_under_package_decorator`: what it returns may be a call chain rooted in the package)
        if not any(self._built_by_package(ctx, node.value, table, optional)
                   for kind in (ast.Return, ast.Assign) for node in ctx.nodes.get(kind, ())) and \
                not any(isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and _package_decorators(ctx, function, table)
                        for function in ctx.tree.body):
            return out
        for function in ctx.tree.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            bound: dict[str, tuple[str, str]] = {}
            returns = []
            for node in walk_nodes(function):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    built = self._built_by_package(ctx, node.value, table, optional)
                    if built is not None:
                        bound[node.targets[0].id] = built
                elif isinstance(node, ast.Return) and node.value is not None:
                    returns.append(node.value)
            for value in returns:
                built = self._built_by_package(ctx, value, table, optional) or \
                    (bound.get(value.id) if isinstance(value, ast.Name) else None) or \
                    self._made_under_package_decorator(ctx, function, value, table)
                if built is not None:
                    out[function.name] = built
                    break
        return out

    @staticmethod
    def _made_under_package_decorator(ctx, function, value, table) -> tuple[str, str] | None:
        """A function the package's own decorator wraps (`@cupy.memoize(for_each_device=True)`, a cache of compiled
        kernels) returning a call chain rooted in that package (`return cupy.cuda.compile_with_cache(src).get_function(
        name)`): what it returns is the package's kernel object (liteflownet / softmax-splatting correlation layers)."""
        if not isinstance(value, ast.Call):
            return None
        keys = _package_decorators(ctx, function, table)
        if not keys:
            return None
        node = value
        while isinstance(node, (ast.Call, ast.Attribute)):  # down the chain to its root: `cupy.cuda.compile_with_cache`
            inner = node.func if isinstance(node, ast.Call) else node.value
            qual = ctx.qualname(inner)
            key = match_package(qual, table) if qual else None
            if key is not None and package_of(key, table) in keys:
                return qual, key
            node = inner
        return None

    def _returned(self, ctx, node, returners) -> tuple[str, str] | None:
        """(qual, key) when `node` is a call of a returner of this file (`cupy_launch(...)`)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in returners \
                and ctx.qualname(node.func) is None and not shadowed(ctx, node.func):
            return returners[node.func.id]
        return None

    def _instance(self, ctx, holder, locals_, members, returners=None):
        if returners and isinstance(holder, ast.Call):
            return self._returned(ctx, holder, returners)  # `launch(...).method(...)`
        if isinstance(holder, ast.Name) and ctx.qualname(holder) is None:
            return locals_.get((id(ctx.enclosing(holder, (ast.FunctionDef, ast.AsyncFunctionDef))), holder.id))
        if isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id == "self":
            owner = ctx.enclosing(holder, (ast.ClassDef,))
            return members.get((id(owner), holder.attr)) if owner is not None else None
        return None

    def _kernels(self, ctx) -> dict[str, tuple[ast.AST, str]]:
        """name -> (function, TRITON or NUMBA_CUDA) for the GPU kernels the file defines: decorated, or
        made a kernel by a module-level assignment of the decorator applied as a call
        (`_bwd = triton.jit(_bwd)`, `_bwd = triton.heuristics({...})(_bwd)`, unsloth-style)."""
        out = {}
        functions = {}
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.nodes.get(kind, ()):
                functions.setdefault(function.name, function)
                package = _kernel_package(ctx, function) if function.decorator_list else None
                if package is not None:
                    out[function.name] = (function, package)
        for statement in ctx.tree.body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)):
                continue
            call = statement.value
            wrapped = call.args[0] if len(call.args) == 1 and isinstance(call.args[0], ast.Name) else None
            name = _decorator_name(ctx, call)
            if triton_kernel_decorator(name) \
                    and wrapped is not None and wrapped.id in functions:
                out.setdefault(statement.targets[0].id, (functions[wrapped.id], TRITON))
                out.setdefault(wrapped.id, (functions[wrapped.id], TRITON))
        return out

    @staticmethod
    def _kernel_aliases(ctx, kernels) -> set[str]:
        """Names bound to a kernel of the file or a choice between kernels
        (`fx = _gemma_fwd if gemma else _fwd`), whose subscripted calls are launches too."""
        return {node.targets[0].id for node in ctx.nodes.get(ast.Assign, ())
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and _kernel_choice(node.value, kernels)}

    @staticmethod
    def _inside_kernel(ctx, node, kernel_bodies) -> bool:
        child, parent = node, ctx.parent(node)
        while parent is not None:
            if id(parent) in kernel_bodies:
                # the body; or an argument of one of its decorators (`@triton.autotune(configs=...,
                # prune_configs_by={"perf_model": estimate_matmul_time})`): it goes with the decorator, reported once
                # there (label ruling 40b: the kernel's decorators are the lines); the decorator's own name is the use
                return child not in parent.decorator_list or _decorator_argument(node, child)
            child, parent = parent, ctx.parent(parent)
        return False

    def _launches(self, ctx, kernels, table, package=TRITON, by_name=True):
        """Subscripted calls `kernel[grid](...)` of a kernel of `kernels` (with `by_name`, also of a
        name containing `kernel`, for Triton kernels imported from another file), and a Triton kernel's
        `kernel.warmup(..., grid=(1,))`, which compiles it for the GPU ahead of the launch (label rule 33b-1, (L51);
        a kernel of `kernels` or a name bound to one only)."""
        if package not in table:
            return
        entry = table[package]
        label = "Triton" if package == TRITON else "numba.cuda"
        aliases = self._kernel_aliases(ctx, kernels)
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if package == TRITON and isinstance(func, ast.Attribute) and func.attr == "warmup" \
                    and isinstance(func.value, ast.Name) and (func.value.id in kernels or func.value.id in aliases):
                text = f"{package}: compile of the {label} kernel `{func.value.id}.warmup(...)` ({entry.status} on Ascend NPU)"
                if entry.alternative:
                    text += f"; NPU alternative: {entry.alternative}"
                yield self.finding(ctx, call, text, severity=Severity.parse(entry.severity), package=package)
                continue
            if not isinstance(func, ast.Subscript):
                continue
            target = func.value
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name is None:
                continue
            if name not in kernels and name not in aliases and not (by_name and "kernel" in name.lower()):
                continue
            text = f"{package}: launch of the {label} kernel `{name}[grid](...)` ({entry.status} on Ascend NPU)"
            if entry.alternative:
                text += f"; NPU alternative: {entry.alternative}"
            yield self.finding(ctx, call, text, severity=Severity.parse(entry.severity), package=package)

    def _tilelang_uses(self, ctx, table, kernel_bodies, compiles):
        """The calls of the file's `@tilelang.jit` functions (each compiles its kernel) and the launches of what a
        compile returned (migrate/tilelang_kernels.py); `compiles` holds the `tilelang.compile(...)` calls reported."""
        key = match_package(tilelang_kernels.COMPILE, table)
        if key is None or not reported(table[key]):
            return
        for decorator, qual in tilelang_kernels.star_decorators(ctx):  # `from tilelang.autotuner import *`, `@autotune`
            yield self._finding(ctx, decorator, qual, key, table, what=f"`@{qual}`")
        compiles = set(compiles)
        for call in tilelang_kernels.jit_calls(ctx, kernel_bodies):
            compiles.add(id(call))
            what = f"`{call.func.id}(...)`, a compile of the TileLang kernel `@tilelang.jit {call.func.id}`,"
            if isinstance(ctx.parent(call), ast.Call) and ctx.parent(call).func is call:
                what = f"`{call.func.id}(...)(...)`, a compile and launch of the TileLang kernel `@tilelang.jit {call.func.id}`,"
            yield self._finding(ctx, call, tilelang_kernels.COMPILE, key, table, what=what)
        for launch, compiled in cute_kernels.compiled_launches(ctx, compiles) if compiles else ():
            what = f"`{ctx.segment(launch.func)}(...)`, a launch of the TileLang kernel compiled at line {compiled.lineno},"
            yield self._finding(ctx, launch, tilelang_kernels.COMPILE, key, table, what=what)

    def _config_targets(self, ctx, table):
        """`_target_: apex.optimizers.FusedAdam` in a YAML configuration: Hydra builds the class it names."""
        for target in hydra_targets.targets(ctx.path, ctx.lines):
            qual = target.name
            key = match_package(qual, table)
            if key is None or not reported(table[key]) or _owned_elsewhere(qual) or _metadata(qual, table) \
                    or _plugin_kept(qual, table[key]) or _pure(qual, key, table) or key == TRITON:
                continue
            yield self._finding(ctx, (target.line, target.start, target.line, target.end), qual, key, table,
                                what=f"`{qual}` (built by the configuration's `{target.key}`)")

    def _package_runs(self, ctx, table):
        """`vllm serve ...` / `python3 -m vllm.entrypoints.openai.api_server` in a launcher: the line runs the package
        (migrate/package_commands.py; knowledge `commands`)."""
        for run in package_commands.package_runs(ctx.lines):
            key = match_package(run.module, table)
            if key is None or not reported(table[key]) or _plugin_kept(run.module, table[key]) or _pure(run.module, key, table):
                continue
            yield self._finding(ctx, (run.line, run.start, run.line, run.end), run.module, key, table,
                                what=f"`{run.text}` (runs `{run.module}`)")

    def _finding(self, ctx, node, qual, key, table, what: str | None = None):
        entry = table[key]
        package = package_of(key, table)
        text = f"{package}: {what or f'`{qual}`'} targets NVIDIA GPUs ({entry.status} on Ascend NPU)"
        if entry.alternative:
            text += f"; NPU alternative: {entry.alternative}"
        if entry.alternative_api:
            text += f" (see `{entry.alternative_api}`)"
        return self.finding(ctx, node, text, severity=Severity.parse(entry.severity), replacement=entry.alternative_api,
                            package=package)


_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]+$")


def _alias_resolver(ctx, table):
    """The qualified name of a chain naming a reported callable of a GPU-only package (for migrate/callable_aliases.py),
    None for anything else."""
    def resolve(node):
        qual = ctx.qualname(node)
        key = match_package(qual, table) if qual else None
        if key is None or not reported(table[key]) or _owned_elsewhere(qual) or shadowed(ctx, node) or _plugin_kept(qual, table[key]) \
                or _pure(qual, key, table) \
                or (key == TRITON and _triton_host_helper(qual)):  # `next_power_of_2 = triton.next_power_of_2`
            return None
        return qual
    return resolve


def _constant_value(ctx, node) -> bool:
    """`te_recipe.Format.HYBRID`, `pynvml.NVML_TEMPERATURE_GPU`: an enum member or module constant read as a value (an
    argument, a dict value), not called: it names a setting of the call that uses it, which is reported on its own
    (`DelayedScaling(fp8_format=...)`); neither a call, a construction, a decorator nor a base class (label rule). The
    same for a constant imported by name (`from vllm...vocab_parallel_embedding import DEFAULT_VOCAB_PADDING_SIZE`,
    then `padding_size=DEFAULT_VOCAB_PADDING_SIZE`: label rule 35d-2)."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    else:
        return False
    if not (isinstance(node.ctx, ast.Load) and _CONSTANT.match(name)):
        return False
    parent = ctx.parent(node)
    return not (isinstance(parent, ast.Call) and parent.func is node) and not isinstance(parent, ast.ClassDef)


# numpy's scalar types, which array libraries re-export under the same names (`cupy.int64`, `cupy.float32`)
_SCALAR_TYPES = frozenset({"bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                           "float32", "float64", "complex64", "complex128", "intp", "uintp"})
_LOWER_PREFIX = re.compile(r"^[a-z]{2,}(?=[A-Z])")


def _value_member(ctx, node) -> bool:
    """A member read as a value, not called (label note 44a a-5, (L54)): a member of a C-style enum, named with its
    enum's lower-case prefix (cuda-python's `cudart.cudaError_t.cudaSuccess`, `cudart.cudaMemcpyKind.
    cudaMemcpyDeviceToDevice`, `flags = cudart.cudaGraphicsRegisterFlags.cudaGraphicsRegisterFlagsWriteDiscard`): it
    names a setting or a result code of the call that uses it, which is reported on its own; or a numpy scalar type
    re-exported by the package (`x.astype(cupy.int64)`, `dtype=cupy.float32`): a host dtype, no GPU code runs there."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return False
    if node.attr in _SCALAR_TYPES:
        return True
    enum = node.value.attr if isinstance(node.value, ast.Attribute) else None
    prefix = _LOWER_PREFIX.match(enum or "")
    return prefix is not None and node.attr != enum and node.attr.startswith(prefix.group()) \
        and node.attr[len(prefix.group())].isupper()


def _argument_of_package_call(ctx, node, key: str, table) -> bool:
    """A name of the package handed, uncalled, to a call of the same package (`fmha.memory_efficient_attention_forward(q,
    k, v, bias, op=fmha.flash.FwOp)` written over two lines): it picks a setting of that call, which is the use and is
    reported at its first line (label rule 41d-7: one label per such call)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.keyword):
        parent = ctx.parent(parent)
    elif not (isinstance(parent, ast.Call) and any(a is node for a in parent.args)):
        return False
    if not isinstance(parent, ast.Call) or parent.func is node:
        return False
    callee = ctx.qualname(parent.func)
    return callee is not None and match_package(callee, table) == key


_PROBE_FUNCTION = re.compile(r"(?:is|has)_\w+_(?:available|loaded|installed|compiled)|\w+_is_available")


def _package_probe(ctx, node, qual: str) -> bool:
    """The package's own availability probe called without arguments as the test of an `assert` / `if` (also under
    `not`): `assert is_tensorrt_plugin_loaded(), 'TensorRT plugin should be compiled.'` (mmcv.tensorrt). It asks
    whether the GPU-only part is there and stops with its own message otherwise: a check that raises, no use
    (LABELLING (L31)/(L34); label notes 27b, 41b-6). The import of the probe stays reported."""
    if not _PROBE_FUNCTION.fullmatch(qual.rsplit(".", 1)[-1]):
        return False
    call = ctx.parent(node)
    if not (isinstance(call, ast.Call) and call.func is node and not call.args and not call.keywords):
        return False
    test = ctx.parent(call)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call, test = test, ctx.parent(test)
    return isinstance(test, (ast.Assert, ast.If)) and test.test is call


def _getattr_default(ctx, node) -> bool:
    """`getattr(param, "weight_loader", default_weight_loader)`: the package's function is the fallback of a lookup on
    the object, bound and not called (label ruling (L52)); which function runs is the object's own choice, and vLLM's
    own layers give each parameter its loader (label rule 35d-2: neither the binding nor the calls through it)."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "getattr" \
        and ctx.qualname(parent.func) is None and len(parent.args) == 3 and parent.args[2] is node


def _feature_probe(ctx, node) -> bool:
    """`hasattr(cuda, 'external_stream')`, `getattr(cuda, 'external_stream', None)`: asks whether the module has a
    name (a version probe), does not use it; the call of the name on the next line is the use (label rule (L12))."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and ctx.qualname(parent.func) in _INTROSPECTION:
        return True  # `inspect.signature(fp8_model_init).parameters`: reads the function's signature, runs nothing
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and isinstance(parent.func, ast.Name) \
            and ctx.qualname(parent.func) is None and parent.func.id in _introspecting_helpers(ctx):
        return True  # `get_default_args(_flash_attn_varlen_forward)`: the file's helper only reads the signature
    if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.args and parent.args[0] is node):
        return False
    return (parent.func.id == "hasattr" and len(parent.args) == 2) or (parent.func.id == "getattr" and len(parent.args) == 3)


# the standard library's introspection of a function object (label rule 41d-4: Pai-Megatron-Patch's
# `if "preserve_high_precision_init_val" in inspect.signature(fp8_model_init).parameters:` is a version probe)
_INTROSPECTION = frozenset({"inspect.signature", "inspect.getfullargspec", "inspect.getargspec", "inspect.getsource",
                            "inspect.getsourcefile", "inspect.getfile", "inspect.getmodule", "inspect.getdoc"})


# the introspection a helper may also do on its argument without running it
_INSPECTS = _INTROSPECTION | {"inspect.isfunction", "inspect.ismethod", "inspect.isclass", "inspect.isbuiltin",
                              "inspect.isroutine", "inspect.unwrap"}
_HELPERS_KEY = "_npu507_introspecting_helpers"


def _introspecting_helpers(ctx) -> frozenset[str]:
    """Module-level functions of this file whose first parameter is only introspected: each read of it (or of one of
    its attributes, `func._init_fn`) is the first argument of `inspect.getfullargspec(...)` / `inspect.signature(...)` /
    `inspect.isfunction(...)` or of another such helper of the file. ring-flash-attention's `get_default_args(func)` ->
    `_get_default_args(func)` -> `inspect.getfullargspec(func)` (modelscope/twinkle zigzag_ring_attn.py, label note 58a:
    `get_default_args(_flash_attn_varlen_forward)` runs no kernel, (L52)); the kernel's call after it is the use."""
    found = ctx.__dict__.get(_HELPERS_KEY)
    if found is not None:
        return found
    functions = {f.name: f for f in ctx.tree.body if isinstance(f, ast.FunctionDef) and f.args.args} \
        if "inspect" in ctx.source else {}
    helpers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            if name not in helpers and _only_introspected(ctx, function, helpers):
                helpers.add(name)
                changed = True
    found = ctx.__dict__[_HELPERS_KEY] = frozenset(helpers)
    return found


def _only_introspected(ctx, function: ast.FunctionDef, helpers: set[str]) -> bool:
    param = function.args.args[0].arg
    reads = [n for n in walk_nodes(function) if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)]
    if not reads:
        return False
    for read in reads:
        held = read
        parent = ctx.parent(held)
        if isinstance(parent, ast.Attribute) and parent.value is held:
            held, parent = parent, ctx.parent(parent)
        if not (isinstance(parent, ast.Call) and parent.args and parent.args[0] is held):
            return False
        if not (ctx.qualname(parent.func) in _INSPECTS
                or (isinstance(parent.func, ast.Name) and parent.func.id in helpers and ctx.qualname(parent.func) is None)):
            return False
    return True


def _package_decorators(ctx, function, table) -> set[str]:
    """The reported GPU-only packages whose own decorators wrap `function` (`@cupy.memoize(...)`: {"cupy"})."""
    keys = set()
    for decorator in function.decorator_list:
        qual = _decorator_name(ctx, decorator)
        key = match_package(qual, table) if qual else None
        if key is not None and reported(table[key]):
            keys.add(package_of(key, table))
    return keys


def _none_tested_before(ctx, name: str, call: ast.AST) -> bool:
    """The function holding `call` (else the module) compares `name` with None before it (`if gemlite is None:
    return w`): the optional import's stand-in is tested on this path. Without such a test a call through an alias of
    an import the program does without still runs whenever its caller is reached (llm-foundry's
    `gen_flash_attn_padding_info`, called for `attn_impl == 'flash'`: label set 39d reads that option as a label)."""
    scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef)) or ctx.tree
    return any(isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == name
               and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
               and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None
               and node.lineno < call.lineno for node in walk_nodes(scope))


def _kernel_choice(value, kernels) -> bool:
    """A kernel of the file by name, or a choice between such (`_gemma_fwd if gemma else _fwd`). A module function: a
    recursive closure is a reference cycle, kept to the end of the scan with the collector off (migrate/cli.py)."""
    if isinstance(value, ast.IfExp):
        return _kernel_choice(value.body, kernels) and _kernel_choice(value.orelse, kernels)
    return isinstance(value, ast.Name) and value.id in kernels
