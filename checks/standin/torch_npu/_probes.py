"""What a script's start-up probes read on an Ascend host, answered by the stand-in.

There, torch is a CPU build with torch_npu beside it, and transfer_to_npu copies torch.npu's names
onto torch.cuda (torch_npu 2.14.0 `contrib/transfer_to_npu.py`, `_patch_cuda`). So:
- `torch.backends.cudnn.version()` is None and `is_available()` False, `torch.backends.cuda.is_built()`
  False, `torch.version.cuda` None: the CPU build's answers (this host's torch may be a CUDA build,
  whose cudnn probe would raise on the emulated device's capability);
- `torch.npu.get_device_capability()` (and torch.cuda's under transfer_to_npu) is None unless
  TORCH_NPU_DEVICE_CAPABILITY says "major.minor", with the same warning (torch_npu/npu/__init__.py,
  `get_device_capability`);
- `get_device_properties()` carries the fields of torch_npu's `_NPUDeviceProperties`: name,
  total_memory, cube_core_num, vector_core_num, L2_cache_size, uuid (its repr in
  torch_npu/lib/libtorch_npu.so), and gcnArchName, which torch's inductor reads when
  torch.version.cuda is None (the name is a string of libtorch_npu.so; its value on a real NPU is not
  recorded here, so it is empty). major/minor/multi_processor_count are kept from earlier versions
  of the stand-in (whether the real object has them is not verified).
"""
from __future__ import annotations

import os
import re
import types
import warnings

import torch

CAPABILITY_ENV = "TORCH_NPU_DEVICE_CAPABILITY"
_WARNING = ("The return value of get_device_capability is only for compatibility with PyTorch "
            "and does not represent the actual capability of the NPU device.")


def device_properties(total_memory: int):
    cores = os.cpu_count() or 1
    return types.SimpleNamespace(
        name="Ascend NPU (emulated on CPU)", total_memory=total_memory, cube_core_num=cores,
        vector_core_num=cores, L2_cache_size=0, uuid="00000000-0000-0000-0000-000000000000",
        gcnArchName="", major=0, minor=0, multi_processor_count=cores)


def get_device_capability(device=None):
    """torch_npu 2.14.0's answer: (major, minor) from TORCH_NPU_DEVICE_CAPABILITY, else None."""
    text = os.getenv(CAPABILITY_ENV)
    if not text:
        warnings.warn(f"You can set the device capability via the environment variable {CAPABILITY_ENV}. {_WARNING}", stacklevel=2)
        return None
    match = re.match(r"^(\d+)\.(\d+)$", text)
    if not match:
        warnings.warn(f"torch.npu.get_device_capability can't parse {CAPABILITY_ENV} environment variable: {text}. "
                      "Expected format is 'major.minor' where major and minor are non-negative integers (e.g., '8.0').", stacklevel=2)
        return None
    warnings.warn(_WARNING, stacklevel=2)
    return int(match.group(1)), int(match.group(2))


def answer_as_cpu_build() -> None:
    """torch.backends.cudnn / torch.backends.cuda / torch.version as a CPU build of torch answers."""
    cudnn = torch.backends.cudnn
    cudnn.version = lambda: None
    cudnn.is_available = lambda: False
    cudnn.is_acceptable = lambda tensor: False
    torch.backends.cuda.is_built = lambda: False
    torch.version.cuda = None
    hide_triton()


def hide_triton() -> None:
    """No triton on an Ascend host's CPU build of torch (the CUDA wheels pull it; the CPU ones do
    not), and transfer_to_npu answers has_triton() False anyway (`_patch_has_triton`): torch's
    inductor then never asks the CUDA-only triton probes (capability >= (9, 0), ...) of the NPU."""
    from torch_npu._surface import compat

    triton_utils = compat.triton_probes_module()
    for name in ("has_triton_package", "has_triton"):
        setattr(triton_utils, name, lambda *a, **k: False)
