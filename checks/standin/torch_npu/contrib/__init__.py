"""torch_npu.contrib of the CPU stand-in: only transfer_to_npu is emulated."""
from torch_npu import _emulator

_ALLOWED = _emulator._names("torch_npu.contrib")


def __getattr__(name):
    if name == "transfer_to_npu":  # `from torch_npu.contrib import transfer_to_npu` asks here first
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name in _ALLOWED:
        return _emulator._NotEmulated(f"torch_npu.contrib.{name}")
    raise AttributeError(f"module 'torch_npu.contrib' has no attribute '{name}' "
                         f"(torch_npu {_emulator.VERSION} has no torch_npu.contrib.{name})")
