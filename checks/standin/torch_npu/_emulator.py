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
import sys
import types
import warnings

import torch

VERSION_ENV = "NPU_MIGRATE_TORCH_NPU_VERSION"
_installed = False
_transfer_installed = False


def _project_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _import_project(name: str):
    """Import one of our own modules (`checks.devicemap`, `migrate.knowledge`), also from a grandchild
    process that started without the bootstrap's preloaded modules."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        root = _project_root()
        sys.path.append(root)
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(root)


dm = _import_project("checks.devicemap")
# Device types mapped to the CPU: "npu" always, "cuda" once contrib.transfer_to_npu is imported.
dm.MAPPED.add("npu")
_mapped = dm.MAPPED
MARK = dm.MARK


class NotEmulatedError(NotImplementedError):
    """A real torch_npu API that the CPU stand-in does not implement."""


# ------------------------------------------------------------------------------ knowledge
def _knowledge():
    return _import_project("migrate.knowledge").load(os.environ.get(VERSION_ENV) or None)


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


# ------------------------------------------------------------------------------ autocast / scaler
_autocast_dtype = dm.AUTOCAST_DTYPE


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
    props = types.SimpleNamespace(name="Ascend NPU (emulated on CPU)", total_memory=dm.total_memory(),
                                  major=0, minor=0, multi_processor_count=os.cpu_count() or 1)
    npu._provide(
        **dm.runtime_api("npu", props),
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
        **dm.legacy_tensor_types(),
    )
    return npu


# ------------------------------------------------------------------------------ distributed
def _to_gloo(backend):
    if isinstance(backend, str):
        low = backend.lower()
        if "hccl" in low or ("nccl" in low and "cuda" in _mapped):
            return "gloo"
        if "nccl" in low:
            # On an Ascend host torch has no NCCL: fail as it would there.
            raise RuntimeError("Distributed package doesn't have NCCL built in "
                               "(emulated Ascend host: use backend='hccl')")
    return backend


def _patch_distributed():
    import torch.distributed as dist

    dm.patch_distributed(_to_gloo)
    dist.is_hccl_available = lambda: True


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

    dm.install_mapping(kb_lists)
    torch.Tensor.npu = dm.tensor_to_device
    torch.Tensor.is_npu = property(lambda self: bool(getattr(self, MARK, False)))
    torch.nn.Module.npu = dm.module_to_device
    dm.patch_accelerator("npu", npu.Stream)
    dm.patch_autocast()
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
    torch.Tensor.cuda = dm.tensor_to_device
    torch.Tensor.is_cuda = torch.Tensor.is_npu
    torch.nn.Module.cuda = dm.module_to_device
    # to/to_empty also take a bare int as a device there (cuda:N -> npu:N).
    dm.accept_int_devices(kb_lists)
    import torch.distributed as dist

    dist.is_nccl_available = lambda: True
    warnings.warn("emulated torch_npu.contrib.transfer_to_npu: cuda devices, torch.cuda.* and nccl are "
                  "rerouted to the emulated NPU", ImportWarning, stacklevel=3)
