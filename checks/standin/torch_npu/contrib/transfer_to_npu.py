"""Emulated torch_npu.contrib.transfer_to_npu: reroutes cuda devices, torch.cuda.* and nccl to the
(CPU-backed) NPU, following the white lists of the real patcher recorded in the knowledge data."""
from torch_npu import _emulator

__all__ = []
_emulator.install_transfer()
