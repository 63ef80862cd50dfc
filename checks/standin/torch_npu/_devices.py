"""Device mapping of the stand-in: npu (and, under transfer_to_npu, cuda) arguments go to the CPU,
and what was placed there gets a logical mark (see _emulator's module docstring)."""
from __future__ import annotations

import functools
import re

import torch

MARK = "_npu_migrate_npu"
CPU = torch.device("cpu")
DEVICE_KWARGS = ("device", "device_type", "map_location", "device_id")

# Device types mapped to the CPU: "npu" always, "cuda" once contrib.transfer_to_npu is imported.
_mapped: set[str] = {"npu"}
_DEVICE_RE = re.compile(r"^\s*(npu|cuda)(?::(\d+))?\s*$")


def _map_device(value, replace_int: bool = False):
    """(mapped value, True) when `value` names a mapped device; (value, False) otherwise."""
    kind = type(value)
    if kind is str:
        m = _DEVICE_RE.match(value)
        if m and m.group(1) in _mapped:
            return "cpu", True
    elif kind is torch.device:
        if value.type in _mapped:
            return CPU, True
    elif kind is dict:
        hit = False
        out = {}
        for k, v in value.items():
            nv, h = _map_device(v)
            out[k] = nv
            hit = hit or h
        return (out, True) if hit else (value, False)
    elif replace_int and kind is int and "cuda" in _mapped:
        return "cpu", True
    return value, False


def mark(obj):
    """Record that `obj` (tensor or module) was placed on the (emulated) NPU."""
    if isinstance(obj, torch.Tensor):
        try:
            setattr(obj, MARK, True)
        except (AttributeError, RuntimeError):
            pass
    elif isinstance(obj, torch.nn.Module):
        for t in obj.parameters():
            setattr(t, MARK, True)
        for t in obj.buffers():
            setattr(t, MARK, True)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            if isinstance(o, torch.Tensor):
                mark(o)
    return obj


def _wrap_device_fn(fn, replace_int: bool = False):
    if getattr(fn, "_npu_migrate_wrapped", False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        hit = False
        if kwargs:
            for key in DEVICE_KWARGS:
                if key in kwargs:
                    value, h = _map_device(kwargs[key])
                    if h:
                        kwargs[key] = value
                        hit = True
        if args:
            new_args = None
            for i, a in enumerate(args):
                if type(a) in (str, torch.device, dict) or (replace_int and type(a) is int):
                    value, h = _map_device(a, replace_int)
                    if h:
                        if new_args is None:
                            new_args = list(args)
                        new_args[i] = value
                        hit = True
            if new_args is not None:
                args = tuple(new_args)
        out = fn(*args, **kwargs)
        if hit:
            mark(out)
        return out

    wrapper._npu_migrate_wrapped = True
    return wrapper


def _wrap_attrs(owner, names, replace_int=False):
    for name in names:
        fn = getattr(owner, name, None)
        if fn is not None:
            setattr(owner, name, _wrap_device_fn(fn, replace_int))


def _tensor_npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    return mark(self.to("cpu", non_blocking=non_blocking, memory_format=memory_format))


def _module_npu(self, device=None):
    self.to("cpu")
    return mark(self)


def _pin_memory(self, device=None):
    # Pinned host memory only matters for real device transfers: a no-op on the CPU.
    return self


def _generator_proxy():
    base = torch.Generator

    class _Meta(type(base)):
        def __instancecheck__(cls, instance):
            return isinstance(instance, base)

    class Generator(base, metaclass=_Meta):
        def __new__(cls, device="cpu"):
            device, _ = _map_device(device)
            return base.__new__(cls, device)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    return Generator


def _rebuild_marked(rebuild, args):
    """In the receiving process (importable there: the stand-in is on its sys.path too)."""
    return mark(rebuild(*args))


def _patch_multiprocessing_marks() -> None:
    """torch.multiprocessing's tensor reduction drops Python attributes: keep the NPU mark across it,
    so a model placed on the (emulated) NPU is still there in a spawned worker, as on a real NPU."""
    from multiprocessing.reduction import ForkingPickler

    from torch.multiprocessing import reductions

    reduce_tensor = reductions.reduce_tensor

    def reduce_marked(tensor):
        rebuild, args = reduce_tensor(tensor)
        if getattr(tensor, MARK, False):
            return _rebuild_marked, (rebuild, args)
        return rebuild, args

    for cls in (torch.Tensor, torch.nn.parameter.Parameter):
        ForkingPickler.register(cls, reduce_marked)
