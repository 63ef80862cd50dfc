"""`torch.npu` of the stand-in: devices, streams, events, memory statistics and RNG on the CPU."""
from __future__ import annotations

import os
import time
import types

import torch
from torch_npu._amp import _autocast_dtype
from torch_npu._devices import _DEVICE_RE
from torch_npu._surface import SurfaceModule, _names


class _State:
    current = 0


def _device_count() -> int:
    for var in ("LOCAL_WORLD_SIZE", "WORLD_SIZE"):
        try:
            return max(1, int(os.environ[var]))
        except (KeyError, ValueError):
            continue
    return 1


def _index(device) -> int:
    if device is None:
        return _State.current
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        m = _DEVICE_RE.match(device)
        return int(m.group(2) or 0) if m else 0
    if isinstance(device, torch.device):
        return device.index or 0
    return 0


def _set_device(device):
    idx = _index(device)
    if idx < 0 or idx >= _device_count():
        raise RuntimeError(f"emulated NPU: invalid device ordinal {idx} (device_count() is {_device_count()})")
    _State.current = idx


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _peak_rss_bytes() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Event:
    """torch.npu.Event on the CPU: the CPU is synchronous, so records are timestamps."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self._t = None

    def record(self, stream=None):
        self._t = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, end):
        if self._t is None or end._t is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end._t - self._t) * 1000.0


class _Stream:
    """torch.npu.Stream on the CPU: work is synchronous, so waits are no-ops."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device = torch.device("npu", _index(device))
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = event or _Event()
        event.record(self)
        return event

    def synchronize(self):
        pass

    def query(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _StreamContext:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


class _DeviceContext:
    def __init__(self, device):
        self.idx = _index(device)
        self.prev = None

    def __enter__(self):
        self.prev = _State.current
        _State.current = self.idx

    def __exit__(self, *exc):
        _State.current = self.prev
        return False


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


_seed = {"value": 0}


def _make_npu_module(amp):
    npu = SurfaceModule("torch_npu.npu", "torch_npu.npu", _names("torch_npu.npu"), "torch.npu")
    npu.__dict__["__file__"] = __file__
    # Private hooks torch itself calls on a registered device module (torch.manual_seed, lazy init).
    npu.__dict__.update(_is_in_bad_fork=lambda: False, _lazy_init=lambda: None, _lazy_call=lambda fn, **kw: fn())
    props = types.SimpleNamespace(name="Ascend NPU (emulated on CPU)", total_memory=os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
                                  major=0, minor=0, multi_processor_count=os.cpu_count() or 1)

    def _manual_seed(seed):
        # The emulated NPU shares the CPU generator; like torch.cuda.manual_seed on a host without
        # CUDA, seeding the device generator leaves the CPU stream alone (so numerics match a CPU run).
        _seed["value"] = int(seed)

    def _seed_random():
        _seed["value"] = torch.seed()

    legacy = {f"{kind}Tensor": getattr(torch, f"{kind}Tensor") for kind in
              ("BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long", "Short")}
    npu._provide(
        is_available=lambda: True,
        device_count=_device_count,
        current_device=lambda: _State.current,
        set_device=_set_device,
        device=_DeviceContext,
        device_of=lambda obj: _DeviceContext(None),
        synchronize=lambda device=None: None,
        is_initialized=lambda: True,
        init=lambda: None,
        manual_seed=_manual_seed,
        manual_seed_all=_manual_seed,
        seed=_seed_random,
        seed_all=_seed_random,
        initial_seed=lambda: _seed["value"],
        get_rng_state=lambda device="npu": torch.get_rng_state(),
        set_rng_state=lambda new_state, device="npu": torch.set_rng_state(new_state),
        get_rng_state_all=lambda: [torch.get_rng_state()],
        set_rng_state_all=lambda states: torch.set_rng_state(states[0]),
        empty_cache=lambda: None,
        memory_allocated=lambda device=None: _rss_bytes(),
        max_memory_allocated=lambda device=None: _peak_rss_bytes(),
        memory_reserved=lambda device=None: _rss_bytes(),
        max_memory_reserved=lambda device=None: _peak_rss_bytes(),
        memory_cached=lambda device=None: _rss_bytes(),
        max_memory_cached=lambda device=None: _peak_rss_bytes(),
        reset_peak_memory_stats=lambda device=None: None,
        reset_max_memory_allocated=lambda device=None: None,
        reset_max_memory_cached=lambda device=None: None,
        reset_accumulated_memory_stats=lambda device=None: None,
        memory_stats=lambda device=None: {"allocated_bytes.all.current": _rss_bytes(),
                                          "allocated_bytes.all.peak": _peak_rss_bytes()},
        memory_summary=lambda device=None, abbreviated=False: f"emulated NPU on CPU: RSS {_rss_bytes()} bytes",
        mem_get_info=lambda device=None: (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"), props.total_memory),
        get_device_name=lambda device=None: props.name,
        get_device_properties=lambda device=None: props,
        is_bf16_supported=lambda *a, **k: True,
        get_amp_supported_dtype=lambda: [torch.float16, torch.bfloat16],
        is_autocast_enabled=lambda: torch.is_autocast_enabled("cpu"),
        set_autocast_enabled=lambda enabled: torch.set_autocast_enabled("cpu", enabled),
        get_autocast_dtype=lambda: _autocast_dtype["value"],
        set_autocast_dtype=lambda dtype: _autocast_dtype.__setitem__("value", dtype),
        Event=_Event,
        Stream=_Stream,
        StreamContext=_StreamContext,
        stream=_StreamContext,
        current_stream=lambda device=None: _Stream(device),
        default_stream=lambda device=None: _Stream(device),
        set_stream=lambda stream: None,
        mstx=_Mstx,
        amp=amp,
        set_compile_mode=lambda *a, **k: None,
        set_option=lambda *a, **k: None,
        matmul=types.SimpleNamespace(allow_hf32=False, allow_tf32=False),
        conv=types.SimpleNamespace(allow_hf32=True, allow_tf32=True),
        config=types.SimpleNamespace(allow_internal_format=False),
        utilization=lambda device=None: 0,
        **legacy,
    )
    return npu
