"""Distributed extras of the stand-in: DeviceMesh, FSDP2 and the npu default backend on the emulated NPU (the CPU, gloo).

Installed by `_emulator.install` after the process-group patches (hccl -> gloo)."""
from __future__ import annotations

import functools

from torch_npu import _emulator

_fsdp2_patched = False


def install() -> None:
    _patch_device_mesh()
    _patch_default_backend()
    _patch_accelerator_probe()


def _patch_accelerator_probe():
    """The accelerator probe (checks.emulation.compat.accelerator_probe: FSDP2's default mesh, FSDP1's device, barrier) says npu, as on
    an Ascend host; the C++ side has no PrivateUse1 hooks here, so it would raise. A torch without the
    probe (before 2.5) has nothing that asks it: nothing to patch, and no reason to stop a script that
    is not even distributed."""
    import torch

    try:
        orig = _emulator.compat.accelerator_probe()
    except _emulator.compat.CompatError:
        return

    @functools.wraps(orig)
    def get_accelerator(*args, **kwargs):
        try:
            return orig(*args, **kwargs)
        except RuntimeError:
            return torch.device("npu", _emulator._State.current)

    setattr(torch._C, orig.__name__, get_accelerator)


def _patch_default_backend():
    """torch_npu registers hccl as the npu device's backend (torch_npu/_init/registry/distributed.py,
    `register_backend("hccl", ..., devices=["npu"])`): get_default_backend_for_device(npu) is "hccl",
    which the stand-in's init_process_group then runs as gloo."""
    import torch.distributed as dist

    orig = getattr(dist, "get_default_backend_for_device", None)
    if orig is None:
        return

    @functools.wraps(orig)
    def get_default_backend_for_device(device):
        text = device.type if hasattr(device, "type") else str(device)
        if text.split(":")[0] == "npu":
            return "hccl"
        return orig(device)

    dist.get_default_backend_for_device = get_default_backend_for_device
    dist.distributed_c10d.get_default_backend_for_device = get_default_backend_for_device


def _patch_device_mesh():
    """Emulated NPUs are the CPU: a DeviceMesh of "npu" devices (FSDP2, DTensor) is a CPU (gloo) mesh."""
    try:
        from torch.distributed import device_mesh
    except ImportError:  # pragma: no cover - torch built without distributed
        return
    orig_init = device_mesh.DeviceMesh.__init__

    @functools.wraps(orig_init)
    def mesh_init(self, device_type, *args, **kwargs):
        if isinstance(device_type, str) and device_type.split(":")[0] == "npu":
            device_type = "cpu"
            _patch_fsdp2_marks()  # here, not at install: importing FSDP costs seconds
        orig_init(self, device_type, *args, **kwargs)

    device_mesh.DeviceMesh.__init__ = mesh_init


def _patch_fsdp2_marks():
    """FSDP2 replaces a module's parameters by new sharded (and, per forward, unsharded) ones; they
    stay on the emulated NPU when the original was there. torch private API (checks.emulation.compat): a
    CompatError naming the torch version when it moved, raised where the script builds its npu mesh."""
    global _fsdp2_patched
    if _fsdp2_patched:
        return
    FSDPParam = _emulator.compat.fsdp2_param_class()
    _fsdp2_patched = True
    sharded_name, unsharded_name = _emulator.compat.FSDP2_PARAM_METHODS
    orig_sharded = getattr(FSDPParam, sharded_name)
    orig_unsharded = getattr(FSDPParam, unsharded_name)

    @functools.wraps(orig_sharded)
    def init_sharded(self, param, *args, **kwargs):
        orig_sharded(self, param, *args, **kwargs)
        if getattr(param, _emulator.MARK, False):
            self._npu_migrate_on_npu = True
            setattr(self.sharded_param, _emulator.MARK, True)

    @functools.wraps(orig_unsharded)
    def init_unsharded(self, *args, **kwargs):
        out = orig_unsharded(self, *args, **kwargs)
        # the original parameter was on the NPU, or the sharded one is now (a meta-device model
        # materialised with to_empty(device="npu"): FSDP2 resets its sharded parameters then)
        on_npu = getattr(self, "_npu_migrate_on_npu", False) or getattr(getattr(self, "sharded_param", None), _emulator.MARK, False)
        if on_npu and getattr(self, "_unsharded_param", None) is not None:
            setattr(self._unsharded_param, _emulator.MARK, True)
        return out

    setattr(FSDPParam, sharded_name, init_sharded)
    setattr(FSDPParam, unsharded_name, init_unsharded)
