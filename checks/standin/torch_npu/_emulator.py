"""The CPU-backed torch_npu stand-in: device mapping, `torch.npu`, amp, distributed.

Loaded only inside an emulated `npu-migrate smoke` child (its folder is put first on the child's
sys.path by checks.bootstrap). Never imported on a host with a real NPU.

How "on the NPU" is tracked: every tensor really lives on the CPU and reports `cpu`. Tensors and
modules that went through an npu-mapped device argument (`.to("npu")`, `.npu()`, `device="npu"`
factories, `Module.to/npu`) get a logical mark (`_npu_migrate_npu`). The smoke bootstrap reads the
marks on the optimizer's parameters, and follows the loss's autograd graph to its leaves, to say
whether parameters and loss were placed on the NPU. Marks do not follow arithmetic: `Tensor.is_npu`
is only True on tensors that were placed explicitly.

The public surface (`torch.npu`, `torch_npu`, `torch.npu.amp`, ...) is built from the knowledge data
of the targeted torch_npu version: a name the real module lacks raises AttributeError; a name it has
either works on the CPU or raises NotEmulatedError when used.
"""
from __future__ import annotations

import functools
import os
import re
import sys
import time
import types
import warnings

import torch

VERSION_ENV = "NPU_MIGRATE_TORCH_NPU_VERSION"
AUTOCAST_ENV = "NPU_MIGRATE_EMULATE_AUTOCAST"
MARK = "_npu_migrate_npu"
CPU = torch.device("cpu")
DEVICE_KWARGS = ("device", "device_type", "map_location", "device_id")

# Device types mapped to the CPU: "npu" always, "cuda" once contrib.transfer_to_npu is imported.
_mapped: set[str] = {"npu"}
_installed = False
_transfer_installed = False
_DEVICE_RE = re.compile(r"^\s*(npu|cuda)(?::(\d+))?\s*$")


class NotEmulatedError(NotImplementedError):
    """A real torch_npu API that the CPU stand-in does not implement."""


# ------------------------------------------------------------------------------ knowledge
def _knowledge():
    try:
        from migrate import knowledge
    except ModuleNotFoundError:  # a grandchild process without the bootstrap's preloaded modules
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        sys.path.append(root)
        try:
            from migrate import knowledge
        finally:
            sys.path.remove(root)
    return knowledge.load(os.environ.get(VERSION_ENV) or None)


KB = _knowledge()
VERSION = KB.version


def _names(module: str) -> frozenset[str]:
    return KB.module_names(module) or frozenset()


# ------------------------------------------------------------------------------ surfaces
class _NotEmulated:
    """Placeholder for a public name of the real torch_npu that the stand-in does not implement."""

    def __init__(self, qualname: str):
        self._qualname = qualname

    def _fail(self):
        raise NotEmulatedError(
            f"{self._qualname} exists in torch_npu {VERSION} but is not emulated by the CPU stand-in "
            "(npu-migrate smoke --backend emulated); run on a real Ascend NPU to exercise it")

    def __call__(self, *args, **kwargs):
        self._fail()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._fail()

    def __enter__(self):
        self._fail()

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<not emulated: {self._qualname}>"


class SurfaceModule(types.ModuleType):
    """A module whose public names are exactly those of the real torch_npu module."""

    def __init__(self, name: str, real_name: str, allowed: frozenset[str], display: str | None = None):
        super().__init__(name)
        self.__dict__["_surface_allowed"] = allowed
        self.__dict__["_surface_real"] = real_name
        self.__dict__["_surface_display"] = display or name

    def _provide(self, **impls):
        for name, value in impls.items():
            if name in self._surface_allowed:
                self.__dict__[name] = value

    def __getattr__(self, name):
        if name in self.__dict__.get("_surface_allowed", ()):
            placeholder = _NotEmulated(f"{self._surface_display}.{name}")
            self.__dict__[name] = placeholder
            return placeholder
        raise AttributeError(
            f"module '{self._surface_display}' has no attribute '{name}' "
            f"(torch_npu {VERSION} has no {self._surface_display}.{name})")

    def __dir__(self):
        return sorted(set(self._surface_allowed) | {k for k in self.__dict__ if k.startswith("__")})


# ------------------------------------------------------------------------------ device mapping
def _map_device(value, replace_int: bool = False):
    """(mapped value, True) when `value` names a mapped device; (value, False) otherwise."""
    kind = type(value)
    if kind is str:
        m = _DEVICE_RE.match(value)
        if m and m.group(1) in _mapped:
            return "cpu", True
    elif kind is torch.device:
        if value.type in _mapped:
            return CPU, True
    elif kind is dict:
        hit = False
        out = {}
        for k, v in value.items():
            nv, h = _map_device(v)
            out[k] = nv
            hit = hit or h
        return (out, True) if hit else (value, False)
    elif replace_int and kind is int and "cuda" in _mapped:
        return "cpu", True
    return value, False


def mark(obj):
    """Record that `obj` (tensor or module) was placed on the (emulated) NPU."""
    if isinstance(obj, torch.Tensor):
        try:
            setattr(obj, MARK, True)
        except (AttributeError, RuntimeError):
            pass
    elif isinstance(obj, torch.nn.Module):
        for t in obj.parameters():
            setattr(t, MARK, True)
        for t in obj.buffers():
            setattr(t, MARK, True)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            if isinstance(o, torch.Tensor):
                mark(o)
    return obj


def _wrap_device_fn(fn, replace_int: bool = False):
    if getattr(fn, "_npu_migrate_wrapped", False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        hit = False
        if kwargs:
            for key in DEVICE_KWARGS:
                if key in kwargs:
                    value, h = _map_device(kwargs[key])
                    if h:
                        kwargs[key] = value
                        hit = True
        if args:
            new_args = None
            for i, a in enumerate(args):
                if type(a) in (str, torch.device, dict) or (replace_int and type(a) is int):
                    value, h = _map_device(a, replace_int)
                    if h:
                        if new_args is None:
                            new_args = list(args)
                        new_args[i] = value
                        hit = True
            if new_args is not None:
                args = tuple(new_args)
        out = fn(*args, **kwargs)
        if hit:
            mark(out)
        return out

    wrapper._npu_migrate_wrapped = True
    return wrapper


def _wrap_attrs(owner, names, replace_int=False):
    for name in names:
        fn = getattr(owner, name, None)
        if fn is not None:
            setattr(owner, name, _wrap_device_fn(fn, replace_int))


def _tensor_npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    return mark(self.to("cpu", non_blocking=non_blocking, memory_format=memory_format))


def _module_npu(self, device=None):
    self.to("cpu")
    return mark(self)


def _pin_memory(self, device=None):
    # Pinned host memory only matters for real device transfers: a no-op on the CPU.
    return self


def _generator_proxy():
    base = torch.Generator

    class _Meta(type(base)):
        def __instancecheck__(cls, instance):
            return isinstance(instance, base)

    class Generator(base, metaclass=_Meta):
        def __new__(cls, device="cpu"):
            device, _ = _map_device(device)
            return base.__new__(cls, device)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    return Generator


# ------------------------------------------------------------------------------ autocast / scaler
def _emulate_autocast() -> bool:
    return os.environ.get(AUTOCAST_ENV, "1") not in ("0", "false", "off", "no")


def _patch_autocast():
    cls = torch.amp.autocast_mode.autocast
    orig_init = cls.__init__

    @functools.wraps(orig_init)
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        kind = device_type.split(":")[0] if isinstance(device_type, str) else device_type
        if kind in _mapped:
            # The NPU's default autocast dtype is float16 (the CPU's is bfloat16): keep the NPU's.
            if dtype is None:
                dtype = _autocast_dtype["value"]
            if not _emulate_autocast():
                enabled = False
            device_type = "cpu"
        orig_init(self, device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    cls.__init__ = __init__
    for name in ("is_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype"):
        fn = getattr(torch, name, None)
        if fn is not None:
            setattr(torch, name, _wrap_device_fn(fn))

    scaler = torch.amp.GradScaler
    orig_scaler_init = scaler.__init__

    @functools.wraps(orig_scaler_init)
    def scaler_init(self, device="cuda", *args, **kwargs):
        device, _ = _map_device(device)
        orig_scaler_init(self, device, *args, **kwargs)

    scaler.__init__ = scaler_init


_autocast_dtype = {"value": torch.float16}


def _make_amp():
    amp = SurfaceModule("torch_npu.npu.amp", "torch_npu.npu.amp", _names("torch_npu.npu.amp"), "torch.npu.amp")

    class autocast(torch.amp.autocast_mode.autocast):
        """torch.npu.amp.autocast: autocast on the CPU with the NPU's dtype (default float16)."""

        def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
            super().__init__("npu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler(torch.amp.GradScaler):
        """torch.npu.amp.GradScaler: torch.amp.GradScaler on the CPU."""

        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000, enabled=True, **kwargs):
            super().__init__("npu", init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    impls = dict(autocast=autocast, GradScaler=GradScaler,
                 custom_fwd=functools.partial(torch.amp.custom_fwd, device_type="cpu"),
                 custom_bwd=functools.partial(torch.amp.custom_bwd, device_type="cpu"))
    amp._provide(**impls)
    for sub in ("autocast_mode", "grad_scaler", "common", "sharded_grad_scaler"):
        real = f"torch_npu.npu.amp.{sub}"
        module = SurfaceModule(real, real, _names(real), f"torch.npu.amp.{sub}")
        module._provide(**impls, amp_definitely_not_available=lambda: False)
        sys.modules[real] = module
        amp._provide(**{sub: module})
    return amp


# ------------------------------------------------------------------------------ torch.npu
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


# ------------------------------------------------------------------------------ distributed
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


def install(top: types.ModuleType) -> None:
    """Register the `npu` device and `torch.npu`, and map npu devices to the CPU (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    kb_lists = KB.transfer_to_npu or {}
    torch.utils.rename_privateuse1_backend("npu")
    amp = _make_amp()
    npu = _make_npu_module(amp)
    torch._register_device_module("npu", npu)
    sys.modules["torch_npu.npu"] = npu
    sys.modules["torch_npu.npu.amp"] = amp
    sys.modules["torch.npu"] = npu
    sys.modules["torch.npu.amp"] = amp
    top.__dict__["npu"] = npu

    _wrap_attrs(torch, kb_lists.get("torch_fn_white_list", ()))
    _wrap_attrs(torch.Tensor, [n for n in kb_lists.get("torch_tensor_fn_white_list", ()) if n != "pin_memory"])
    _wrap_attrs(torch.nn.Module, kb_lists.get("torch_module_fn_white_list", ()), replace_int=False)
    _wrap_attrs(torch.fft, ("fftfreq", "rfftfreq"))
    torch.Tensor.pin_memory = _pin_memory
    torch.Tensor.npu = _tensor_npu
    torch.Tensor.is_npu = property(lambda self: bool(getattr(self, MARK, False)))
    torch.nn.Module.npu = _module_npu
    import torch.utils._device as device_ctx

    device_ctx.DeviceContext.__init__ = _wrap_device_fn(device_ctx.DeviceContext.__init__)
    torch.Generator = _generator_proxy()

    param_new = torch.nn.Parameter.__new__

    def parameter_new(cls, data=None, requires_grad=True):
        p = param_new(cls, data, requires_grad)
        if data is not None and getattr(data, MARK, False):
            setattr(p, MARK, True)
        return p

    torch.nn.Parameter.__new__ = parameter_new
    _patch_accelerator(npu)
    _patch_autocast()
    _patch_distributed()
    from torch_npu import _dist_mesh  # DeviceMesh / FSDP2 on the emulated NPU

    _dist_mesh.install()
    _patch_cuda_absent()


def install_transfer() -> None:
    """torch_npu.contrib.transfer_to_npu: cuda arguments and torch.cuda.* go to the (emulated) NPU."""
    global _transfer_installed
    if _transfer_installed:
        return
    _transfer_installed = True
    _mapped.add("cuda")
    kb_lists = KB.transfer_to_npu or {}
    npu = sys.modules["torch_npu.npu"]
    # As the real patcher: torch.cuda.X becomes torch.npu.X for every public torch.npu name.
    for name in npu._surface_allowed:
        value = getattr(npu, name)
        if not isinstance(value, (_NotEmulated, types.ModuleType)):
            setattr(torch.cuda, name, value)
    for name in ("autocast", "GradScaler", "custom_fwd", "custom_bwd"):
        setattr(torch.cuda.amp, name, getattr(npu.amp, name))
    torch.cuda.DoubleTensor = torch.FloatTensor
    torch.Tensor.cuda = _tensor_npu
    torch.Tensor.is_cuda = torch.Tensor.is_npu
    torch.nn.Module.cuda = _module_npu
    # to/to_empty also take a bare int as a device there (cuda:N -> npu:N).
    for owner, names in ((torch.Tensor, ("to",)), (torch.nn.Module, kb_lists.get("torch_module_fn_white_list", ()))):
        for name in names:
            fn = getattr(owner, name)
            setattr(owner, name, _wrap_device_fn(getattr(fn, "__wrapped__", fn), replace_int=True))
    import torch.distributed as dist

    dist.is_nccl_available = lambda: True
    warnings.warn("emulated torch_npu.contrib.transfer_to_npu: cuda devices, torch.cuda.* and nccl are "
                  "rerouted to the emulated NPU", ImportWarning, stacklevel=3)
