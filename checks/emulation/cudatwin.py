"""The CUDA twin: a CPU-backed CUDA stand-in for running an unmigrated GPU script on a host without
CUDA (`smoke --backend cuda-emulated`, the baseline side of `validate` when no GPU is present).

The mirror of the torch_npu stand-in, on the same device mapping (`checks.emulation.devicemap`):
`torch.cuda.is_available()` is True, `device_count()` answers NPU_MIGRATE_DEVICE_COUNT (else the
launcher's world size, else 1), "cuda" / "cuda:N" / `torch.device("cuda")` arguments, `.cuda()`
and bare int devices go to the CPU, streams / events / synchronize / memory statistics are harmless,
`torch.cuda.amp` and `torch.autocast("cuda")` follow the same autocast policy as the NPU stand-in,
torch.compile generates CPU code (triton hidden: its CUDA kernels cannot run here),
nccl runs as gloo, cudnn flags are accepted, capability queries answer NPU_MIGRATE_CUDA_SM (default
8.0) and `torch.version.cuda` is a version string. Both runs of `validate` then take the same code
paths (the original's `use_cuda` branches: shuffle, pin_memory, workers, AMP), so identical losses are
required and meaningful.

Runs inside a smoke child only (imports torch); installed by checks.child.bootstrap before the script runs.
"""
from __future__ import annotations

import os
import types

import torch

from checks.emulation import devicemap as dm
from checks.emulation import deviceruntime as rt

SM_ENV = "NPU_MIGRATE_CUDA_SM"
DEFAULT_SM = (8, 0)
CUDA_VERSION = "12.8"  # torch.version.cuda on a CPU build of torch (a CUDA build keeps its own)


def capability() -> tuple[int, int]:
    """The emulated compute capability, from NPU_MIGRATE_CUDA_SM ("8.0", "9.0", "86")."""
    text = os.environ.get(SM_ENV, "").strip()
    try:
        if "." in text:
            major, minor = text.split(".", 1)
            return int(major), int(minor)
        if text:
            return int(text[:-1]), int(text[-1])
    except ValueError:
        pass
    return DEFAULT_SM


def _props():
    major, minor = capability()
    return types.SimpleNamespace(
        name="NVIDIA GPU (emulated on CPU)", major=major, minor=minor, total_memory=rt.total_memory(),
        multi_processor_count=os.cpu_count() or 1, is_integrated=False, is_multi_gpu_board=False,
        gcnArchName="", uuid="00000000-0000-0000-0000-000000000000", L2_cache_size=0,
        max_threads_per_multi_processor=2048, warp_size=32)


def _to_gloo(backend):
    if isinstance(backend, str) and "nccl" in backend.lower():
        return "gloo"
    return backend


class _Nvtx:
    """torch.cuda.nvtx on the CPU: ranges and marks are accepted and dropped."""

    @staticmethod
    def range_push(msg):
        return 0

    @staticmethod
    def range_pop():
        return 0

    @staticmethod
    def range_start(msg):
        return 0

    @staticmethod
    def range_end(range_id):
        return None

    @staticmethod
    def mark(msg):
        return None

    class range:  # noqa: N801 - torch's name
        def __init__(self, msg, *args, **kwargs):
            pass

        def __enter__(self):
            return None

        def __exit__(self, *exc):
            return False

        def __call__(self, fn):
            return fn


def hide_triton() -> None:
    """What the twin cannot emulate: triton's CUDA kernels. Its tensors are CPU tensors, so
    torch.compile's inductor generates CPU code, as for the stand-in's NPU; but with torch.cuda
    available, inductor asks triton for its CUDA backend (`has_triton()`, then the driver's libcuda),
    which fails on a host without an NVIDIA driver ("libcuda.so cannot found"). The twin answers as a
    host without triton; both sides of validate then compile the same CPU code."""
    from checks.emulation import compat

    triton_utils = compat.triton_probes_module()
    for name in ("has_triton_package", "has_triton"):
        setattr(triton_utils, name, lambda *a, **k: False)


def install(kb_lists: dict | None = None) -> None:
    """Make torch.cuda answer as on a CUDA host, computing on the CPU (once per process)."""
    if not dm.once("cudatwin"):
        return
    if kb_lists is None:
        from migrate import knowledge

        kb_lists = knowledge.load(None).transfer_to_npu or {}
    dm.MAPPED.add("cuda")
    dm.install_mapping(kb_lists)
    dm.accept_int_devices(kb_lists)
    cuda = torch.cuda
    props = _props()
    api = rt.runtime_api("cuda", props)
    api.update(
        get_device_capability=lambda device=None: capability(),
        get_arch_list=lambda: [f"sm_{capability()[0]}{capability()[1]}"],
        is_bf16_supported=lambda including_emulation=True: capability() >= (8, 0),
        is_tf32_supported=lambda: capability() >= (8, 0),
        get_device_properties=lambda device=None: props,
        _is_in_bad_fork=lambda: False, _lazy_init=lambda: None,
        _lazy_call=lambda fn, **kw: fn(),
        ipc_collect=lambda: None,
        utilization=lambda device=None: 0,
        get_gencode_flags=lambda: "",
        nvtx=_Nvtx,
    )
    for name, value in api.items():
        setattr(cuda, name, value)
    # A CUDA build of torch keeps its own version (torchvision checks it against its own build);
    # a CPU build gets one.
    if not torch.version.cuda:
        torch.version.cuda = CUDA_VERSION
    # Tensors built by torch.cuda.FloatTensor(...) and friends live on the (CPU) device.
    for name, cls in rt.legacy_tensor_types().items():
        setattr(cuda, name, cls)
    torch.Tensor.cuda = dm.tensor_to_device
    torch.Tensor.is_cuda = property(lambda self: bool(getattr(self, dm.MARK, False)))
    torch.nn.Module.cuda = dm.module_to_device
    rt.patch_accelerator("cuda", api["Stream"])
    hide_triton()
    dm.patch_multiprocessing_marks()  # .cuda() parameters are still is_cuda in spawned workers
    dm.patch_autocast()
    dm.patch_distributed(_to_gloo)
    import torch.distributed as dist

    dist.is_nccl_available = lambda: True
    cudnn = torch.backends.cudnn
    cudnn.is_available = lambda: True
    cudnn.version = lambda: 90100
