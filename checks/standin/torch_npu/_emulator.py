"""The CPU-backed torch_npu stand-in: device mapping, `torch.npu`, amp, distributed.

Loaded only inside an emulated `npu-migrate smoke` child (its folder is put first on the child's
sys.path by checks.child.bootstrap). Never imported on a host with a real NPU.

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

import sys
import types
import warnings

import torch
from torch_npu._amp import _make_amp, _patch_autocast
from torch_npu._devices import (  # noqa: F401  (re-exported: the stand-in's device mapping)
    MARK,
    _generator_proxy,
    _map_device,
    _mapped,
    _module_npu,
    _patch_multiprocessing_marks,
    _pin_memory,
    _tensor_npu,
    _wrap_attrs,
    _wrap_device_fn,
    dm,
    mark,
)
from torch_npu._host import _patch_accelerator, _patch_cuda_absent, _patch_distributed, _patch_jit_script
from torch_npu._npu_module import _make_npu_module, _State  # noqa: F401  (_State: torch_npu._dist_mesh)
from torch_npu._surface import (  # noqa: F401  (re-exported for torch_npu/__init__ and contrib)
    KB,
    VERSION,
    NotEmulatedError,
    SurfaceModule,
    _names,
    _NotEmulated,
    compat,
)

_installed = False
_transfer_installed = False


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
    compat.register_device_module("npu", npu)
    sys.modules["torch_npu.npu"] = npu
    sys.modules["torch_npu.npu.amp"] = amp
    sys.modules["torch.npu"] = npu
    sys.modules["torch.npu.amp"] = amp
    top.__dict__["npu"] = npu

    dm.install_mapping(kb_lists)
    # `x.to(0)` is npu:0 on an Ascend host: torch reads an int device as the accelerator's, which is
    # the npu once torch_npu is loaded (torch >= 2.5 autoloads it at `import torch`); transfer_to_npu
    # does the same explicitly (torch_npu 2.14.0 _replace_cuda_to_npu_in_list: int -> f"npu:{arg}").
    dm.accept_int_devices(kb_lists)
    torch.Tensor.npu = _tensor_npu
    torch.Tensor.is_npu = property(lambda self: bool(getattr(self, MARK, False)))
    torch.nn.Module.npu = _module_npu
    _patch_accelerator(npu)
    _patch_multiprocessing_marks()
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
    dm.accept_int_devices(kb_lists)
    import torch.distributed as dist

    dist.is_nccl_available = lambda: True
    _patch_jit_script()
    warnings.warn("emulated torch_npu.contrib.transfer_to_npu: cuda devices, torch.cuda.* and nccl are "
                  "rerouted to the emulated NPU", ImportWarning, stacklevel=3)
