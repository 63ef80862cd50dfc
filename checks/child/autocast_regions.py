"""The autocast regions a run on a real device (or the plain CPU) enters, counted by the dtype they compute in.

Runs in the smoke child (imported torch-free; `install(torch)` once torch is imported). The emulated devices count
their regions themselves (checks/emulation/devicemap.AUTOCAST_SEEN) under their autocast policy; on a real GPU or
NPU the regions are the device's own, and this counts them the same way, so that the run's report says the
network computed in float16 even where its loss is float32 (an AMP loss is on autocast's float32 list): validate
then judges the losses with the float16 tolerance (checks/validate/loss_compare.compute_dtype). Found on an H200:
Pytorch-UNet --amp gave float32 losses that drifted from the stand-in's by 1.07e-3 at step 9, judged against the
float32 default (1e-3).
"""
from __future__ import annotations

import functools

SEEN: dict[str, int] = {}  # dtype name -> regions entered enabled


def install(torch) -> None:
    """Count every enabled autocast region (torch.autocast and the device `amp.autocast` subclasses) once."""
    cls = torch.amp.autocast_mode.autocast
    original = cls.__init__
    if getattr(original, "__npu_migrate_counts__", False):
        return

    @functools.wraps(original)
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        original(self, device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
        if getattr(self, "_enabled", enabled):
            name = str(getattr(self, "fast_dtype", dtype)).replace("torch.", "")
            SEEN[name] = SEEN.get(name, 0) + 1

    __init__.__npu_migrate_counts__ = True
    cls.__init__ = __init__
