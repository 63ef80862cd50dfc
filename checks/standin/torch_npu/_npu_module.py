"""`torch.npu` of the stand-in: devices, streams, events, memory statistics and RNG on the CPU.

The device runtime is `checks/emulation/deviceruntime.py`'s (shared with the CUDA twin); the NPU-only parts
(mstx, amp, hf32 switches, autocast getters) are here."""
from __future__ import annotations

import types

import torch
from torch_npu import _probes
from torch_npu._amp import _autocast_dtype
from torch_npu._devices import rt
from torch_npu._surface import SurfaceModule, _names

# Historical names of the stand-in's device runtime (torch_npu._dist_mesh, _host).
_State = rt.State
_device_count = rt.device_count
_index = rt.index
_set_device = rt.set_device
_rss_bytes = rt.rss_bytes
_peak_rss_bytes = rt.peak_rss_bytes
_Event = rt.Event
_Stream = rt.stream_class("npu")
_StreamContext = rt.StreamContext
_DeviceContext = rt.DeviceContext


class _Mstx:
    """torch.npu.mstx on the CPU: markers are accepted and dropped."""

    _next = 0

    @staticmethod
    def mark(message="", stream=None, domain="default"):
        return None

    @classmethod
    def range_start(cls, message="", stream=None, domain="default"):
        cls._next += 1
        return cls._next

    @staticmethod
    def range_end(range_id, domain="default"):
        return None

    @classmethod
    def range_push(cls, message="", stream=None, domain="default"):
        return 0

    @staticmethod
    def range_pop(domain="default"):
        return 0

    @staticmethod
    def mstx_range(message="", stream=None, domain="default"):
        def wrapper(func):
            return func
        return wrapper


def _make_npu_module(amp):
    npu = SurfaceModule("torch_npu.npu", "torch_npu.npu", _names("torch_npu.npu"), "torch.npu")
    npu.__dict__["__file__"] = __file__
    # Private hooks torch itself calls on a registered device module (torch.manual_seed, lazy init).
    npu.__dict__.update(_is_in_bad_fork=lambda: False, _lazy_init=lambda: None, _lazy_call=lambda fn, **kw: fn())
    props = _probes.device_properties(rt.total_memory())
    npu._provide(
        **rt.runtime_api("npu", props),
        get_device_capability=_probes.get_device_capability,
        get_amp_supported_dtype=lambda: [torch.float16, torch.bfloat16],
        is_autocast_enabled=lambda: torch.is_autocast_enabled("cpu"),
        set_autocast_enabled=lambda enabled: torch.set_autocast_enabled("cpu", enabled),
        get_autocast_dtype=lambda: _autocast_dtype["value"],
        set_autocast_dtype=lambda dtype: _autocast_dtype.__setitem__("value", dtype),
        mstx=_Mstx,
        amp=amp,
        set_compile_mode=lambda *a, **k: None,
        set_option=lambda *a, **k: None,
        matmul=types.SimpleNamespace(allow_hf32=False, allow_tf32=False),
        conv=types.SimpleNamespace(allow_hf32=True, allow_tf32=True),
        config=types.SimpleNamespace(allow_internal_format=False),
        utilization=lambda device=None: 0,
        **rt.legacy_tensor_types(),
    )
    return npu
