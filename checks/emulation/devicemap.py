"""Device mapping shared by the two CPU-backed stand-ins: the torch_npu stand-in
(`checks/standin/torch_npu/_emulator.py`) and the CUDA twin (`checks/emulation/cudatwin.py`).

Runs inside a smoke child only (imports torch). A stand-in adds its device type ("npu", "cuda") to
`MAPPED`; from then on every device-taking torch API (the white lists of torch_npu's own
transfer_to_npu patcher, recorded in the knowledge data), `Tensor.to`, `Module.to`, factories,
`torch.device(...)` contexts, `torch.Generator`, autocast and GradScaler map that device to the CPU.
Tensors and modules placed through a mapped device get a logical mark (`MARK`), which the smoke
bootstrap reads to say whether parameters and loss were placed on the emulated device.

Also here: the autocast policy, the mark kept through torch.multiprocessing pickling, and the
distributed rewrite to gloo. The device-runtime objects both stand-ins answer with (streams, events,
device contexts, memory statistics) are `checks/emulation/deviceruntime.py`.
"""
from __future__ import annotations

import functools
import os
import re

import torch

MARK = "_npu_migrate_npu"  # historical name: the mark means "placed on the emulated device"
CPU = torch.device("cpu")
DEVICE_KWARGS = ("device", "device_type", "map_location", "device_id")
AUTOCAST_ENV = "NPU_MIGRATE_EMULATE_AUTOCAST"
# off: autocast regions keep the device's dtypes (float16 unless the script names one) but the
#      lower-precision ops compute in float32, rounded to that dtype (checks/emulation/autocast.py);
# native: CPU autocast with the emulated device's dtype (float16 unless the script names one);
# bf16: CPU autocast in bfloat16. Old values "1"/"0" mean native/off.
# float32 (internal: validate's migrated side against a plain-CPU baseline): regions are entered but
#      disabled, everything in float32, as the original's autocast("cuda") on a host without CUDA.
from checks.launch.child_config import AUTOCAST_POLICIES, SHARED_GENERATOR_ENV  # torch-free

MAPPED: set[str] = set()

# ------------------------------------------------------------------------------ the device's random generator
# A real GPU or NPU draws random numbers from a generator of its own (Philox), apart from the CPU's (MT19937):
# `torch.randn(..., device="cuda")` or `nn.init.normal_` on parameters already on the device leave the CPU
# stream alone, so what the CPU draws later (a DataLoader's shuffled order, CPU-side init) is the same whatever
# the device drew. The emulated device gets its own CPU generator for the same reason: draws through a mapped
# device (random factories given it, in-place draws into tensors placed on it) come from it, seeded by
# torch.manual_seed / torch.<device>.manual_seed(_all) as a device generator is. Its values still differ from
# real hardware's (another algorithm). Seen on an H200: DCGAN draws its noise on the device, and on the
# stand-in those draws shifted the CPU stream, so the DataLoader shuffled another order than on the GPU.
# Dropout of activations is not covered (an activation carries no mark): with `--no-dropout` it does not draw.
# NPU_MIGRATE_SHARED_DEVICE_GENERATOR=1: the device's draws come from the CPU generator (validate against an
# original run on the plain CPU, or a bundle recorded before this generator existed: checks/validate/baseline.py).
RANDOM_FACTORIES = frozenset({"randn", "rand", "randint", "randperm", "normal"})
RANDOM_IN_PLACE = ("normal_", "uniform_", "random_", "bernoulli_", "exponential_", "geometric_", "cauchy_", "log_normal_")
_device_generator: dict = {}


def device_generator():
    """The emulated device's generator (None: shared with the CPU's, SHARED_GENERATOR_ENV)."""
    if os.environ.get(SHARED_GENERATOR_ENV) == "1":
        return None
    gen = _device_generator.get("value")
    if gen is None:
        gen = _device_generator["value"] = torch._C.Generator()  # torch's default seed, as a fresh device generator
    return gen


def patch_random_in_place() -> None:
    """In-place draws into tensors placed on the emulated device use its generator (once per process)."""
    if not once("random-in-place"):
        return
    for name in RANDOM_IN_PLACE:
        original = getattr(torch.Tensor, name, None)
        if original is None:
            continue

        def draw(self, *args, _original=original, **kwargs):
            if kwargs.get("generator") is None and getattr(self, MARK, False):
                gen = device_generator()
                if gen is not None:
                    kwargs["generator"] = gen
            return _original(self, *args, **kwargs)

        functools.update_wrapper(draw, original)
        setattr(torch.Tensor, name, draw)
DEVICE_RE = re.compile(r"^\s*(npu|cuda)(?::(\d+))?\s*$")
_done: set[str] = set()


def once(key: str) -> bool:
    """True the first time `key` is seen (patches are installed once per process)."""
    if key in _done:
        return False
    _done.add(key)
    return True


# ------------------------------------------------------------------------------ mapping
def map_device(value, replace_int: bool = False):
    """(mapped value, True) when `value` names a mapped device; (value, False) otherwise."""
    kind = type(value)
    if kind is str:
        m = DEVICE_RE.match(value)
        if m and m.group(1) in MAPPED:
            return "cpu", True
    elif kind is torch.device:
        if value.type in MAPPED:
            return CPU, True
    elif kind is dict:
        hit = False
        out = {}
        for k, v in value.items():
            nv, h = map_device(v)
            out[k] = nv
            hit = hit or h
        return (out, True) if hit else (value, False)
    elif replace_int and kind is int and MAPPED:
        return "cpu", True  # a bare int is an index of the accelerator: the emulated device
    return value, False


def mark(obj):
    """Record that `obj` (tensor or module) was placed on the emulated device."""
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


def rebuild_marked(rebuild, args):
    """In the receiving process of torch.multiprocessing (where this module is already imported:
    checks/child/spawn_main.py loads the stand-in before multiprocessing unpickles the process object)."""
    return mark(rebuild(*args))


def patch_multiprocessing_marks() -> None:
    """torch.multiprocessing's tensor reduction drops Python attributes: keep the mark across it, so a
    model placed on the emulated device is still there in a spawned worker (hogwild), as on a real
    GPU / NPU. Shared by both stand-ins (once per process)."""
    if not once("multiprocessing-marks"):
        return
    from multiprocessing.reduction import ForkingPickler

    from torch.multiprocessing import reductions

    reduce_tensor = reductions.reduce_tensor

    def reduce_marked(tensor):
        rebuild, args = reduce_tensor(tensor)
        if getattr(tensor, MARK, False):
            return rebuild_marked, (rebuild, args)
        return rebuild, args

    for cls in (torch.Tensor, torch.nn.parameter.Parameter):
        ForkingPickler.register(cls, reduce_marked)


def wrap_device_fn(fn, replace_int: bool = False):
    if getattr(fn, "_npu_migrate_wrapped", False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        hit = False
        if kwargs:
            for key in DEVICE_KWARGS:
                if key in kwargs:
                    value, h = map_device(kwargs[key])
                    if h:
                        kwargs[key] = value
                        hit = True
        if args:
            new_args = None
            for i, a in enumerate(args):
                if type(a) in (str, torch.device, dict) or (replace_int and type(a) is int):
                    value, h = map_device(a, replace_int)
                    if h:
                        if new_args is None:
                            new_args = list(args)
                        new_args[i] = value
                        hit = True
            if new_args is not None:
                args = tuple(new_args)
        if hit and random and kwargs.get("generator") is None:
            gen = device_generator()  # a random factory given the device draws from the device's generator
            if gen is not None:
                kwargs["generator"] = gen
        out = fn(*args, **kwargs)
        if hit:
            mark(out)
        return out

    random = getattr(fn, "__name__", None) in RANDOM_FACTORIES
    wrapper._npu_migrate_wrapped = True
    # TorchScript sees the wrapper where a script calls torch.zeros(...): it stays the aten op there.
    from checks.emulation import compat

    compat.torchscript_builtin_twin(fn, wrapper)
    return wrapper


def wrap_attrs(owner, names, replace_int=False):
    for name in names:
        fn = getattr(owner, name, None)
        if fn is not None:
            setattr(owner, name, wrap_device_fn(fn, replace_int))


def tensor_to_device(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """`Tensor.npu()` / `Tensor.cuda()` on the emulated device."""
    return mark(self.to("cpu", non_blocking=non_blocking, memory_format=memory_format))


def module_to_device(self, device=None):
    """`Module.npu()` / `Module.cuda()` on the emulated device."""
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
            device, _ = map_device(device)
            return base.__new__(cls, device)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    return Generator


def install_mapping(kb_lists: dict) -> None:
    """Wrap torch's device-taking APIs (once per process; which device types map is `MAPPED`)."""
    if not once("mapping"):
        return
    wrap_attrs(torch, kb_lists.get("torch_fn_white_list", ()))
    wrap_attrs(torch.Tensor, [n for n in kb_lists.get("torch_tensor_fn_white_list", ()) if n != "pin_memory"])
    wrap_attrs(torch.nn.Module, kb_lists.get("torch_module_fn_white_list", ()), replace_int=False)
    wrap_attrs(torch.fft, ("fftfreq", "rfftfreq"))
    torch.Tensor.pin_memory = _pin_memory
    from checks.emulation import compat

    device_ctx = compat.device_context_class()
    device_ctx.__init__ = wrap_device_fn(device_ctx.__init__)
    torch.Generator = _generator_proxy()
    patch_random_in_place()

    param_new = torch.nn.Parameter.__new__

    def parameter_new(cls, data=None, requires_grad=True):
        p = param_new(cls, data, requires_grad)
        if data is not None and getattr(data, MARK, False):
            setattr(p, MARK, True)
        return p

    torch.nn.Parameter.__new__ = parameter_new


def accept_int_devices(kb_lists: dict) -> None:
    """`to`/`to_empty` also take a bare int as a device: torch reads it as an index of the
    accelerator (cuda:N on a GPU host, npu:N once torch_npu is imported), here the emulated device."""
    if not once("int-devices"):
        return
    for owner, names in ((torch.Tensor, ("to",)), (torch.nn.Module, kb_lists.get("torch_module_fn_white_list", ()))):
        for name in names:
            fn = getattr(owner, name)
            setattr(owner, name, wrap_device_fn(getattr(fn, "__wrapped__", fn), replace_int=True))


# ------------------------------------------------------------------------------ autocast / scaler
def autocast_policy() -> str:
    value = os.environ.get(AUTOCAST_ENV, "native").strip().lower()
    return {"1": "native", "true": "native", "on": "native", "yes": "native",
            "0": "off", "false": "off", "no": "off"}.get(value, value if value in AUTOCAST_POLICIES else "native")


AUTOCAST_DTYPE = {"value": torch.float16}  # default dtype of the emulated device (NPU and CUDA: float16)
# What autocast regions asked for, for the report: {"float16": n, ...} (requested dtype, before the policy).
AUTOCAST_SEEN: dict[str, int] = {}


def patch_autocast() -> None:
    """autocast / GradScaler on a mapped device run on the CPU under the autocast policy (once)."""
    if not once("autocast"):
        return
    cls = torch.amp.autocast_mode.autocast
    orig_init = cls.__init__

    @functools.wraps(orig_init)
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        kind = device_type.split(":")[0] if isinstance(device_type, str) else device_type
        if kind in MAPPED:
            # The device's default autocast dtype is float16 (the CPU's is bfloat16): keep the device's.
            if dtype is None:
                dtype = AUTOCAST_DTYPE["value"]
            if enabled:
                key = str(dtype).replace("torch.", "")
                AUTOCAST_SEEN[key] = AUTOCAST_SEEN.get(key, 0) + 1
            policy = autocast_policy()
            if policy == "float32":
                enabled = False
            elif policy == "off" and enabled:
                # the device's dtypes, computed in float32 (checks/emulation/autocast.py)
                from checks.emulation import autocast as autocast_emulation

                autocast_emulation.install(kind)
            elif policy == "bf16":
                dtype = torch.bfloat16
            if enabled and policy != "off":  # "off" installs them with its lower-precision kernels
                from checks.emulation import autocast as autocast_emulation

                autocast_emulation.install_float32_lists(kind)  # the device's float32 ops in float32
            device_type = "cpu"
        orig_init(self, device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    cls.__init__ = __init__
    for name in ("is_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype"):
        fn = getattr(torch, name, None)
        if fn is not None:
            setattr(torch, name, wrap_device_fn(fn))

    scaler = torch.amp.GradScaler
    orig_scaler_init = scaler.__init__

    @functools.wraps(orig_scaler_init)
    def scaler_init(self, device="cuda", *args, **kwargs):
        device, _ = map_device(device)
        orig_scaler_init(self, device, *args, **kwargs)

    scaler.__init__ = scaler_init


# ------------------------------------------------------------------------------ distributed
def patch_distributed(to_gloo) -> None:
    """Collectives on the emulated device run on gloo; `to_gloo(backend)` rewrites a backend name."""
    if not once("distributed"):
        return
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

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

    for owner in (dist, c10d):
        fn = getattr(owner, "barrier", None)
        if fn is not None and not getattr(fn, "_npu_migrate_wrapped", False):
            owner.barrier = _cpu_barrier(fn)

    ddp = torch.nn.parallel.DistributedDataParallel
    orig_init = ddp.__init__

    @functools.wraps(orig_init)
    def ddp_init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        # Parameters really live on the CPU, where DDP wants no device_ids.
        orig_init(self, module, None, None, *args, **kwargs)

    ddp.__init__ = ddp_init
    from checks.emulation import sync_batchnorm

    sync_batchnorm.install(ddp)

    dp = torch.nn.DataParallel

    @functools.wraps(dp.__init__)
    def dp_init(self, module, device_ids=None, output_device=None, dim=0):
        # What torch's DataParallel does on a host without devices: a pass-through to the module
        # (its forward then calls the module directly), since the parameters live on the CPU.
        torch.nn.Module.__init__(self)
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None
        self.src_device_obj = CPU

    dp.__init__ = dp_init


def _cpu_barrier(barrier):
    """`dist.barrier(device_ids=[i])` names a device of the emulated accelerator, which c10d would
    hand to gloo as that device (no kernels there): the collectives run on the CPU, where a barrier
    needs no device, so the ids are dropped (the group still synchronises every rank)."""

    @functools.wraps(barrier)
    def wrapper(*args, **kwargs):
        if len(args) > 2:
            args = args[:2] + (None,) + args[3:]
        kwargs.pop("device_ids", None)
        return barrier(*args, **kwargs)

    wrapper._npu_migrate_wrapped = True
    return wrapper
