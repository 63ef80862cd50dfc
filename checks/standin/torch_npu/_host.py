"""The rest of an emulated Ascend host: distributed (hccl -> gloo), torch.cuda absent, torch.accelerator."""
from __future__ import annotations

import functools

import torch
from torch_npu._devices import _mapped
from torch_npu._npu_module import _device_count, _DeviceContext, _peak_rss_bytes, _rss_bytes, _set_device, _State, _Stream


def _patch_distributed():
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

    def to_gloo(backend):
        if isinstance(backend, str):
            low = backend.lower()
            if "hccl" in low or ("nccl" in low and "cuda" in _mapped):
                return "gloo"
            if "nccl" in low:
                # On an Ascend host torch has no NCCL: fail as it would there.
                raise RuntimeError("Distributed package doesn't have NCCL built in "
                                   "(emulated Ascend host: use backend='hccl')")
        return backend

    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if "backend" in kwargs:
                kwargs["backend"] = to_gloo(kwargs["backend"])
            elif args:
                args = (to_gloo(args[0]),) + tuple(args[1:])
            if "device_id" in kwargs:
                kwargs["device_id"] = None
            return fn(*args, **kwargs)
        return wrapper

    for owner in (dist, c10d):
        for name in ("init_process_group", "new_group"):
            fn = getattr(owner, name, None)
            if fn is not None and not getattr(fn, "_npu_migrate_wrapped", False):
                w = wrap(fn)
                w._npu_migrate_wrapped = True
                setattr(owner, name, w)
    dist.is_hccl_available = lambda: True

    ddp = torch.nn.parallel.DistributedDataParallel
    orig_init = ddp.__init__

    @functools.wraps(orig_init)
    def ddp_init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        # Parameters really live on the CPU, where DDP wants no device_ids.
        orig_init(self, module, None, None, *args, **kwargs)

    ddp.__init__ = ddp_init


# ------------------------------------------------------------------------------ torch.cuda on an Ascend host
def _patch_cuda_absent():
    """torch.cuda as on an Ascend host (a CPU build of torch): no devices, CUDA-only calls raise."""
    torch.cuda.is_available = lambda: False
    torch.cuda.device_count = lambda: 0
    torch.version.cuda = None

    def nvtx_missing(*args, **kwargs):
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build? "
                           "(emulated Ascend host: torch.cuda.nvtx does not exist there; use torch.npu.mstx)")

    for name in ("range_push", "range_pop", "range_start", "range_end", "mark", "range"):
        if hasattr(torch.cuda.nvtx, name):
            setattr(torch.cuda.nvtx, name, nvtx_missing)


# ------------------------------------------------------------------------------ install
def _patch_accelerator(npu) -> None:
    """torch.accelerator reports the npu device; its C++ side has no PrivateUse1 hooks, so answer here."""
    acc = getattr(torch, "accelerator", None)
    if acc is None:
        return
    impl = dict(
        is_available=lambda: True, device_count=_device_count,
        current_device_index=lambda: _State.current, current_device_idx=lambda: _State.current,
        set_device_index=_set_device, set_device_idx=_set_device, synchronize=lambda device=None: None,
        empty_cache=lambda: None, empty_host_cache=lambda: None,
        current_stream=lambda device=None: _Stream(device), set_stream=lambda stream: None,
        memory_allocated=lambda device=None: _rss_bytes(), max_memory_allocated=lambda device=None: _peak_rss_bytes(),
        memory_reserved=lambda device=None: _rss_bytes(), max_memory_reserved=lambda device=None: _peak_rss_bytes(),
        reset_peak_memory_stats=lambda device=None: None, reset_accumulated_memory_stats=lambda device=None: None,
    )
    for name, fn in impl.items():
        if hasattr(acc, name):
            setattr(acc, name, fn)
    if hasattr(acc, "device_index"):
        acc.device_index = _DeviceContext
