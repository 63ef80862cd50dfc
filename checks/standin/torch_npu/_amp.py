"""torch.npu.amp and autocast("npu") of the stand-in: CPU autocast under the autocast policy
(checks/emulation/devicemap.py: off | native | bf16), GradScaler on the CPU."""
from __future__ import annotations

import functools
import sys

import torch
from torch_npu._devices import dm
from torch_npu._surface import SurfaceModule, _names

AUTOCAST_ENV = dm.AUTOCAST_ENV
_autocast_dtype = dm.AUTOCAST_DTYPE  # the NPU's default autocast dtype (float16)


def _patch_autocast():
    dm.patch_autocast()


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
