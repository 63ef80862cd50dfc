"""The device runtime both CPU-backed stand-ins answer with (`torch.npu` of the torch_npu stand-in,
`torch.cuda` of the CUDA twin): device count and current device, streams and events (the CPU is
synchronous: waits are no-ops, events are timestamps), device contexts, seeds, memory statistics
from the process RSS, and `torch.accelerator`. The device *mapping* (arguments, marks, autocast,
distributed) is `checks/emulation/devicemap.py`.

Runs inside a smoke child only (imports torch).
"""
from __future__ import annotations

import os
import time
import types

import torch

from checks.emulation.devicemap import DEVICE_RE, device_generator, once


class State:
    current = 0


def device_count() -> int:
    """Emulated devices: NPU_MIGRATE_DEVICE_COUNT, else the launcher's world size, else 1."""
    for var in ("NPU_MIGRATE_DEVICE_COUNT", "LOCAL_WORLD_SIZE", "WORLD_SIZE"):
        try:
            return max(1, int(os.environ[var]))
        except (KeyError, ValueError):
            continue
    return 1


def index(device) -> int:
    if device is None:
        return State.current
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        m = DEVICE_RE.match(device)
        return int(m.group(2) or 0) if m else 0
    if isinstance(device, torch.device):
        return device.index or 0
    return 0


def set_device(device):
    idx = index(device)
    if idx < 0 or idx >= device_count():
        raise RuntimeError(f"emulated device: invalid device ordinal {idx} (device_count() is {device_count()})")
    State.current = idx


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def peak_rss_bytes() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def total_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


class Event:
    """A device event on the CPU: the CPU is synchronous, so records are timestamps."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, **kwargs):
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


def stream_class(device_type: str):
    class Stream:
        """A device stream on the CPU: work is synchronous, so waits are no-ops."""

        def __init__(self, device=None, priority=0, **kwargs):
            self.device = torch.device(device_type, index(device))
            self.priority = priority

        def wait_stream(self, stream):
            pass

        def wait_event(self, event):
            pass

        def record_event(self, event=None):
            event = event or Event()
            event.record(self)
            return event

        def synchronize(self):
            pass

        def query(self):
            return True

        def is_capturing(self):
            return False  # no graph capture on the CPU (optimizers ask before each step)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    return Stream


class StreamContext:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


class DeviceContext:
    def __init__(self, device):
        self.idx = index(device)
        self.prev = None

    def __enter__(self):
        self.prev = State.current
        State.current = self.idx

    def __exit__(self, *exc):
        State.current = self.prev
        return False


def memory_api() -> dict:
    """Memory statistics of the emulated device: the process's RSS."""
    return dict(
        empty_cache=lambda: None,
        memory_allocated=lambda device=None: rss_bytes(),
        max_memory_allocated=lambda device=None: peak_rss_bytes(),
        memory_reserved=lambda device=None: rss_bytes(),
        max_memory_reserved=lambda device=None: peak_rss_bytes(),
        memory_cached=lambda device=None: rss_bytes(),
        max_memory_cached=lambda device=None: peak_rss_bytes(),
        reset_peak_memory_stats=lambda device=None: None,
        reset_max_memory_allocated=lambda device=None: None,
        reset_max_memory_cached=lambda device=None: None,
        reset_accumulated_memory_stats=lambda device=None: None,
        memory_stats=lambda device=None: {"allocated_bytes.all.current": rss_bytes(),
                                          "allocated_bytes.all.peak": peak_rss_bytes()},
        memory_summary=lambda device=None, abbreviated=False: f"emulated device on CPU: RSS {rss_bytes()} bytes",
        mem_get_info=lambda device=None: (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"), total_memory()),
    )


def patch_accelerator(device_type: str, stream_cls) -> None:
    """torch.accelerator reports the emulated device (its C++ side knows no such device here)."""
    acc = getattr(torch, "accelerator", None)
    if acc is None or not once("accelerator"):
        return
    impl = dict(
        is_available=lambda: True, device_count=device_count,
        current_accelerator=lambda check_available=False: torch.device(device_type),
        current_device_index=lambda: State.current, current_device_idx=lambda: State.current,
        set_device_index=set_device, set_device_idx=set_device, synchronize=lambda device=None: None,
        empty_cache=lambda: None, empty_host_cache=lambda: None,
        current_stream=lambda device=None: stream_cls(device), set_stream=lambda stream: None,
        memory_allocated=lambda device=None: rss_bytes(), max_memory_allocated=lambda device=None: peak_rss_bytes(),
        memory_reserved=lambda device=None: rss_bytes(), max_memory_reserved=lambda device=None: peak_rss_bytes(),
        reset_peak_memory_stats=lambda device=None: None, reset_accumulated_memory_stats=lambda device=None: None,
    )
    for name, fn in impl.items():
        if hasattr(acc, name):
            setattr(acc, name, fn)
    if hasattr(acc, "device_index"):
        acc.device_index = DeviceContext




def legacy_tensor_types() -> dict:
    return {f"{kind}Tensor": getattr(torch, f"{kind}Tensor") for kind in
            ("BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long", "Short")}


def no_op(*args, **kwargs):
    return None


def namespace(**kw) -> types.SimpleNamespace:
    return types.SimpleNamespace(**kw)


_seed = {"value": 0}


def _manual_seed(seed):
    # The emulated device's own generator (checks/emulation/devicemap.device_generator), seeded as a device's is;
    # where it is shared with the CPU's (NPU_MIGRATE_SHARED_DEVICE_GENERATOR=1), seeding the device leaves the CPU
    # stream alone, like torch.cuda.manual_seed on a host without CUDA (so numerics match a CPU run).
    _seed["value"] = int(seed)
    gen = device_generator()
    if gen is not None:
        gen.manual_seed(int(seed))


def _seed_random():
    gen = device_generator()
    _seed["value"] = gen.seed() if gen is not None else torch.seed()


def _get_rng_state(device=None):
    gen = device_generator()
    return gen.get_state() if gen is not None else torch.get_rng_state()


def _set_rng_state(new_state, device=None):
    gen = device_generator()
    if gen is not None:
        gen.set_state(new_state)
    else:
        torch.set_rng_state(new_state)


def runtime_api(device_type: str, props) -> dict:
    """The `torch.<device>` runtime both stand-ins answer with: devices, streams, events, seeds, memory."""
    stream = stream_class(device_type)
    return dict(
        is_available=lambda: True,
        device_count=device_count,
        current_device=lambda: State.current,
        set_device=set_device,
        device=DeviceContext,
        device_of=lambda obj: DeviceContext(None),
        synchronize=lambda device=None: None,
        is_initialized=lambda: True,
        init=lambda: None,
        manual_seed=_manual_seed,
        manual_seed_all=_manual_seed,
        seed=_seed_random,
        seed_all=_seed_random,
        initial_seed=lambda: _seed["value"],
        get_rng_state=_get_rng_state,
        set_rng_state=_set_rng_state,
        get_rng_state_all=lambda: [_get_rng_state()],
        set_rng_state_all=lambda states: _set_rng_state(states[0]),
        get_device_name=lambda device=None: props.name,
        get_device_properties=lambda device=None: props,
        is_bf16_supported=lambda *a, **k: True,
        Event=Event,
        Stream=stream,
        StreamContext=StreamContext,
        stream=StreamContext,
        current_stream=lambda device=None: stream(device),
        default_stream=lambda device=None: stream(device),
        set_stream=lambda stream: None,
        is_current_stream_capturing=lambda: False,
        **memory_api(),
    )
