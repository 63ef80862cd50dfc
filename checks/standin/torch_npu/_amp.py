"""torch.npu.amp and autocast("npu") of the stand-in: CPU autocast with the NPU's dtype, GradScaler on the CPU."""
from __future__ import annotations

import functools
import os
import sys

import torch
from torch_npu._devices import _map_device, _mapped, _wrap_device_fn
from torch_npu._surface import SurfaceModule, _names

AUTOCAST_ENV = "NPU_MIGRATE_EMULATE_AUTOCAST"


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
