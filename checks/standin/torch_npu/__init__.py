"""CPU-backed stand-in for torch_npu, used only by `npu-migrate smoke --backend emulated`.

Its public names are those of the real torch_npu of the targeted version (knowledge data): a name the
real package lacks raises AttributeError; a name it has works on the CPU or raises NotEmulatedError.
"""
from torch_npu import _emulator

__version__ = _emulator.VERSION
# Lets our own runtime code (validate's dump hook) tell the stand-in from a real torch_npu
# without guessing from its path. Private: the real package has no such name.
__npu_migrate_standin__ = True
_emulator.install(__import__("sys").modules[__name__])

_ALLOWED = _emulator._names("torch_npu")


def _autoload():
    """The `torch.backends` entry point torch >= 2.5 calls at `import torch` (the real package's is
    `torch_npu:_autoload`): importing this module has already installed the stand-in."""


def npu_format_cast(tensor, acl_format, *args, **kwargs):
    """Storage formats are a layout hint on the NPU: the values are unchanged."""
    return tensor


def npu_format_cast_(tensor, *args, **kwargs):
    return tensor


def get_npu_format(tensor):
    return 2  # ACL_FORMAT_ND


def __getattr__(name):
    if name in _ALLOWED:
        return _emulator._NotEmulated(f"torch_npu.{name}")
    raise AttributeError(f"module 'torch_npu' has no attribute '{name}' "
                         f"(torch_npu {_emulator.VERSION} has no torch_npu.{name})")


def _provide_fused():
    """The fused operators with reference math (torch_npu/_fused.py), where the targeted release has them."""
    from torch_npu import _fused

    for name in ("npu_rms_norm", "npu_rotary_mul", "npu_swiglu", "npu_fusion_attention", "npu_confusion_transpose",
                 "fast_gelu", "npu_add_layer_norm", "npu_group_norm_silu", "npu_scaled_masked_softmax"):
        if name in _ALLOWED:
            globals()[name] = getattr(_fused, name)


_provide_fused()


def _import_submodules():
    """The real package imports torch_npu.optim at its own import (torch_npu/_init/core/module_loader.py,
    "old-compatible submodule imports"), so `import torch_npu` then `torch_npu.optim.NpuFusedAdamW` works
    without importing torch_npu.optim: the same here, where the targeted release has it."""
    if "optim" in _ALLOWED:  # import_module: `from torch_npu import optim` would get __getattr__'s placeholder
        __import__("importlib").import_module("torch_npu.optim")


_import_submodules()

