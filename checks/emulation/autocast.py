"""The default autocast policy ("off") of the emulated devices: autocast regions keep the dtypes the
script gets on the device, computed in float32.

A region entered on the emulated device (`torch.autocast("cuda"/"npu")`, `torch.cuda.amp.autocast()`)
is a CPU autocast region with the device's dtype (float16 unless the script names one), so every op
sees the dtypes it sees on the device: a script that casts its inputs to float16 itself and relies on
autocast for the weights runs, `out.dtype` is float16, GradScaler sees float16 losses where the device
gives them. The ops autocast runs in the lower precision (matmuls, convolutions, attention, RNN
cells: the union of the CUDA and CPU lists of `aten/src/ATen/autocast_mode.cpp`, torch 2.14) get a
kernel here that rounds their floating inputs to that dtype, computes in float32 and rounds the
result to it: what a float16 matmul with float32 accumulation gives on the device, at float32 speed
on a CPU (CPU float16 matmuls are 5-20x slower). The device's float32 lists (FP32_OPS, FP32_SET_OPT_DTYPE_OPS:
exp, log, pow, softmax, sum, layer_norm, ...) get kernels that compute them in float32 as the device does, where
the CPU's autocast has none of its own (under every policy); the promote list is the CPU's own.

Like torch's own autocast cache (`cached_cast`, aten/src/ATen/autocast_mode.cpp), a float32 leaf tensor
that requires grad (a weight) is cast to the autocast dtype once per region and that tensor reused by
every op of the region that takes it (an RNN cell called per time step, a module called on two views,
tied weights), each use reading it back in float32: the device's graph (one cast, the uses' gradients
summed in the lower precision before the cast back), one copy per use less each way. The cache is
dropped where torch drops its own (`torch.clear_autocast_cache`, called on leaving the outermost
region) and is off where the region's is (`cache_enabled=False`); rounded under no_grad and with grad
are kept apart, and a weight changed in place since (an optimizer step inside the region) is rounded
again.

Runs inside a smoke child only (imports torch). Installed once, at the first region entered under
the policy; the kernels are registered for the AutocastCPU dispatch key of the process.
"""
from __future__ import annotations

import warnings

import torch

# aten overloads autocast runs in the lower precision on CUDA (AT_FORALL_LOWER_PRECISION_FP and the
# KERNEL_CUDA lower_precision_fp lines) or on the CPU (KERNEL_CPU lower_precision_fp), torch 2.14.
LOWER_PRECISION_OPS = (
    "_convolution", "_convolution.deprecated", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d.input", "conv_transpose3d.input", "convolution", "prelu", "addmm", "addmv", "addr",
    "matmul", "einsum", "mm", "mv", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul",
    "linalg_multi_dot", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell", "scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
)
# aten overloads autocast runs in float32 on the device (policy fp32: floating inputs cast to float32) and the ones
# it runs in float32 unless the call names a dtype (fp32_set_opt_dtype: softmax, sum, cumsum, ...), per emulated
# device. CUDA: AT_FORALL_FP32 and AT_FORALL_FP32_SET_OPT_DTYPE of pytorch's aten/src/ATen/autocast_mode.h (torch 2.x;
# the upsample ops are CUDA's only). NPU: torch_npu's own AutocastPrivateUse1 registrations, Ascend/pytorch
# torch_npu/csrc/aten/AutoCastOps.cpp @0c9b75c7 (no upsample ops, no Dimname overloads). Only the ones the CPU's
# autocast does not register itself get a kernel here (the CPU's own fp32 list, mse_loss, nll_loss, prod..., gives
# float32 too). Found on an H200: Pytorch-UNet's dice loss takes F.softmax of float16 logits inside autocast; CUDA
# returns float32, the emulation returned float16, and validate named that dtype as the first difference.
_FP32_COMMON = (
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt", "sinh",
    "tan", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar", "softplus", "layer_norm", "native_layer_norm",
    "group_norm", "frobenius_norm.dim", "nuclear_norm", "nuclear_norm.dim", "cosine_similarity", "poisson_nll_loss",
    "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss",
    "huber_loss", "mse_loss", "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss",
    "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm",
    "logsumexp",
)
FP32_OPS = {
    "npu": _FP32_COMMON,
    "cuda": _FP32_COMMON + ("upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_nearest2d",
                            "_upsample_nearest_exact2d", "upsample_nearest3d", "_upsample_nearest_exact3d",
                            "upsample_linear1d", "upsample_bilinear2d", "_upsample_bilinear2d_aa",
                            "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa"),
}
_SET_OPT_COMMON = ("prod", "prod.dim_int", "softmax.int", "log_softmax.int", "cumprod", "cumsum", "linalg_vector_norm",
                   "linalg_matrix_norm", "linalg_matrix_norm.str_ord", "sum", "sum.dim_IntList")
FP32_SET_OPT_DTYPE_OPS = {
    "npu": _SET_OPT_COMMON,
    "cuda": _SET_OPT_COMMON + ("prod.dim_Dimname", "softmax.Dimname", "log_softmax.Dimname", "cumprod.dimname",
                               "cumsum.dimname", "sum.dim_DimnameList"),
}
_ELIGIBLE = (torch.float32, torch.float16, torch.bfloat16)
MMAP_THRESHOLD = 32 << 20  # glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit); larger blocks stay mapped
TRIM_THRESHOLD = 1 << 30  # a freed top of heap up to 1 GiB is kept
_library = None
# (id(tensor), dtype, grad enabled) -> (tensor, its version, its cast): held so that its id is not reused
_cache: dict[tuple, tuple] = {}


def install(device: str = "npu") -> None:
    """Register the float32-compute kernels for the lower-precision ops (once per process); `device`, the emulated
    device type ("npu", "cuda"), picks its float32 lists (install_float32_lists)."""
    global _library
    if _library is not None:
        return
    from checks.emulation import compat

    below = compat.below_autocast_cpu()
    _library = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel": on purpose
        for name in LOWER_PRECISION_OPS:
            packet, _, overload = name.partition(".")
            op = getattr(getattr(torch.ops.aten, packet, None), overload or "default", None)
            if op is not None:
                _library.impl(name, _kernel(op, below), "AutocastCPU")
    clear = torch.clear_autocast_cache

    def clear_autocast_cache():  # torch's region exit clears its cache and, with it, this one
        _cache.clear()
        clear()

    torch.clear_autocast_cache = clear_autocast_cache
    keep_freed_memory()
    install_float32_lists(device)


_float32_library = None


def install_float32_lists(device: str) -> None:
    """Kernels for the AutocastCPU dispatch key that run the emulated device's float32 ops in float32 (FP32_OPS,
    FP32_SET_OPT_DTYPE_OPS, for the device this process emulates), where the CPU's autocast registers none: under
    every autocast policy of an emulated region (once per process)."""
    global _float32_library
    if _float32_library is not None:
        return
    from checks.emulation import compat

    below = compat.below_autocast_cpu()
    device = device if device in FP32_OPS else "npu"
    _float32_library = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for names, make in ((FP32_OPS[device], _fp32_kernel), (FP32_SET_OPT_DTYPE_OPS[device], _set_opt_dtype_kernel)):
            for name in names:
                packet, _, overload = name.partition(".")
                op = getattr(getattr(torch.ops.aten, packet, None), overload or "default", None)
                if op is None or torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "AutocastCPU"):
                    continue
                _float32_library.impl(name, make(op, below), "AutocastCPU")


def _to_float32(value):
    if isinstance(value, torch.Tensor):
        return value.float() if value.dtype in (torch.float16, torch.bfloat16) else value
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], torch.Tensor):
        return type(value)(_to_float32(v) for v in value)
    return value


def _fp32_kernel(op, below):
    """autocast's fp32 policy: floating inputs of a lower precision cast to float32, the op run below autocast."""
    def in_float32(*args, **kwargs):
        args = [_to_float32(a) for a in args]
        kwargs = {k: _to_float32(v) for k, v in kwargs.items()}
        with below():
            return op(*args, **kwargs)

    return in_float32


def _set_opt_dtype_kernel(op, below):
    """autocast's fp32_set_opt_dtype policy: a floating first input and no dtype named -> dtype float32."""
    arguments = op._schema.arguments
    position = next((i for i, a in enumerate(arguments) if a.name == "dtype"), None)
    keyword = position is not None and arguments[position].kwarg_only

    def float32_unless_named(*args, **kwargs):
        first = args[0] if args else None
        if isinstance(first, torch.Tensor) and first.dtype in _ELIGIBLE and position is not None:
            if keyword:
                if kwargs.get("dtype") is None:
                    kwargs["dtype"] = torch.float32
            elif len(args) > position:
                if args[position] is None:
                    args = (*args[:position], torch.float32, *args[position + 1:])
            elif kwargs.get("dtype") is None:
                kwargs["dtype"] = torch.float32
        with below():
            return op(*args, **kwargs)

    return float32_unless_named


def keep_freed_memory() -> bool:
    """Let glibc keep freed heap memory for the next allocation instead of handing it back (per process).

    The policy's casts add megabyte-sized temporaries per weight and per activation, each step, in both
    passes. With glibc's defaults a block over the (sliding) mmap threshold is mapped fresh and a freed top
    of heap over the trim threshold is returned: the next step faults every page of them in again, which
    cost more than the copies themselves (bench/autocast_workload.py, one thread: 4 copies of 1024x1024
    took 16 ms a step; 4 ms with this). Values and dtypes do not change; a block over 32 MiB is still
    mapped and returned. False where there is no glibc `mallopt` (the defaults stay).
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc malloc.h
    return bool(mallopt(m_mmap_threshold, MMAP_THRESHOLD)) and bool(mallopt(m_trim_threshold, TRIM_THRESHOLD))


def _kernel(op, below):
    def lower_precision_in_float32(*args, **kwargs):
        dtype = torch.get_autocast_dtype("cpu")
        args = [_round(a, dtype) for a in args]
        kwargs = {k: _round(v, dtype) for k, v in kwargs.items()}
        with below():
            out = op(*args, **kwargs)
        return _lower(out, dtype)

    return lower_precision_in_float32


def _round(value, dtype):
    """An eligible floating tensor rounded to the autocast dtype, held in float32 (lists too)."""
    if isinstance(value, torch.Tensor):
        if value.dtype not in _ELIGIBLE:
            return value
        if value.dtype is torch.float32 and value.requires_grad and value.is_leaf and not value._is_view() \
                and torch.is_autocast_cache_enabled():
            key = (id(value), dtype, torch.is_grad_enabled())
            hit = _cache.get(key)
            if hit is None or hit[0] is not value or hit[1] != value._version:  # changed in place: again
                hit = _cache[key] = (value, value._version, value.to(dtype))
            return hit[2].float()
        return value.to(dtype).float() if value.dtype != dtype else value.float()
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], torch.Tensor):
        return type(value)(_round(v, dtype) for v in value)
    return value


def _lower(out, dtype):
    if isinstance(out, torch.Tensor):
        return out.to(dtype) if out.dtype == torch.float32 else out
    if isinstance(out, (list, tuple)):
        return type(out)(_lower(v, dtype) for v in out)
    return out
