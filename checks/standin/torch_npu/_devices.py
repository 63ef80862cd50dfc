"""Device mapping of the stand-in: npu (and, under transfer_to_npu, cuda) arguments go to the CPU,
and what was placed there gets a logical mark (see _emulator's module docstring).

The mapping itself is `checks/emulation/devicemap.py`, shared with the CUDA twin (`checks/emulation/cudatwin.py`); this
module adds "npu" to the mapped device types, keeps the stand-in's historical names for it, and
carries the NPU mark across torch.multiprocessing."""
from __future__ import annotations

from torch_npu._surface import _project_module

dm = _project_module("checks.emulation.devicemap")
rt = _project_module("checks.emulation.deviceruntime")  # streams, events, memory: shared with the CUDA twin too
# Device types mapped to the CPU: "npu" always, "cuda" once contrib.transfer_to_npu is imported.
dm.MAPPED.add("npu")

MARK = dm.MARK
CPU = dm.CPU
DEVICE_KWARGS = dm.DEVICE_KWARGS
_mapped = dm.MAPPED
_DEVICE_RE = dm.DEVICE_RE
_map_device = dm.map_device
mark = dm.mark
_wrap_device_fn = dm.wrap_device_fn
_wrap_attrs = dm.wrap_attrs
_tensor_npu = dm.tensor_to_device
_module_npu = dm.module_to_device
_pin_memory = dm._pin_memory
_generator_proxy = dm._generator_proxy


# torch.multiprocessing keeps the NPU mark (shared with the CUDA twin)
_patch_multiprocessing_marks = dm.patch_multiprocessing_marks
