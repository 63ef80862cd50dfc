"""host_sync: calls that make the host wait for the device, counted at the user's own line.

Each entry of SYNC_CALLS wraps one Tensor method or torch function. A call counts when:
- a training step is being measured (after optimizer step 1, which includes the set-up);
- it is made directly by user code (the calling frame is in the script's folder): torch's internal
  calls (Adam's step counter, GradScaler's inf check) and the harness's own calls never count;
- it is the outermost such call (printing a tensor calls .item()/.tolist() inside: one sync);
- the tensor lives on the device. On a real NPU: its device is not the CPU. Emulated (every tensor
  really is on the CPU): it is not a batch the DataLoader produced and nobody moved, and it was not
  already copied to the host by a counted `.cpu()` in this step (`x.cpu().numpy()` is one sync).
"""
from __future__ import annotations

import functools
import weakref

# (owner, attribute, what it does): the owner is "Tensor" or "torch".
SYNC_CALLS = (
    ("Tensor", "item", ".item() copies a scalar to the host"),
    ("Tensor", "tolist", ".tolist() copies the tensor to the host"),
    ("Tensor", "numpy", ".numpy() needs the data on the host"),
    ("Tensor", "cpu", ".cpu() copies the tensor to the host"),
    ("Tensor", "__bool__", "truth test of a tensor (if/while/and/or/assert) reads its value on the host"),
    ("Tensor", "__int__", "int(tensor) reads its value on the host"),
    ("Tensor", "__float__", "float(tensor) reads its value on the host"),
    ("Tensor", "__index__", "using a tensor as an index/range bound reads its value on the host"),
    ("Tensor", "__repr__", "printing a tensor copies it to the host"),
    ("Tensor", "__format__", "formatting a tensor copies it to the host"),
    ("Tensor", "nonzero", "nonzero() has a data-dependent output shape: the host waits for the count"),
    ("Tensor", "masked_select", "masked_select() has a data-dependent output shape"),
    ("Tensor", "unique", "unique() has a data-dependent output shape"),
    ("Tensor", "argwhere", "argwhere() has a data-dependent output shape"),
    ("torch", "nonzero", "torch.nonzero() has a data-dependent output shape: the host waits for the count"),
    ("torch", "masked_select", "torch.masked_select() has a data-dependent output shape"),
    ("torch", "unique", "torch.unique() has a data-dependent output shape"),
    ("torch", "argwhere", "torch.argwhere() has a data-dependent output shape"),
    ("torch", "unique_consecutive", "torch.unique_consecutive() has a data-dependent output shape"),
)
BOOL_INDEX = "boolean-mask indexing has a data-dependent output shape: the host waits for the count"
# results of these are host copies: a later .numpy()/.item() on them is not another sync
_COPIES_TO_HOST = frozenset({"cpu"})


class HostSync:
    def __init__(self, torch, state):
        self.torch = torch
        self.state = state
        self.frames = state.frames
        self.depth = 0  # > 0 inside a wrapped call: nested calls are part of it
        self.host = weakref.WeakSet()  # DataLoader batches (emulated: not on the device until moved)
        self.copied: set[int] = set()  # ids of tensors a counted .cpu() returned, this step
        self.emulated = state.backend == "emulated"

    def on_device(self, t) -> bool:
        if not isinstance(t, self.torch.Tensor):
            return False
        if not self.emulated:
            return t.device.type != "cpu"
        if id(t) in self.copied:
            return False
        if getattr(t, "_npu_migrate_npu", False):
            return True
        try:
            return t not in self.host
        except TypeError:
            return True

    def new_step(self) -> None:
        self.copied.clear()

    def install(self) -> None:
        torch = self.torch
        for owner_name, attr, what in SYNC_CALLS:
            owner = torch.Tensor if owner_name == "Tensor" else torch
            fn = getattr(owner, attr, None)
            if fn is None:
                continue
            label = f"{'Tensor.' if owner_name == 'Tensor' else 'torch.'}{attr}"
            setattr(owner, attr, self._wrap(fn, label, what, attr in _COPIES_TO_HOST))
        torch.Tensor.__getitem__ = self._wrap_getitem(torch.Tensor.__getitem__)

    def _wrap(self, fn, label, what, copies):
        hs = self

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if hs.depth or not hs.state.measuring or hs.state.in_loader:
                hs.depth += 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    hs.depth -= 1
            where = hs.frames.caller(2)
            hs.depth += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                hs.depth -= 1
            if where is not None and args and hs.on_device(args[0]):
                hs.state.count("host_sync", where, label, what)
                if copies and isinstance(out, hs.torch.Tensor):
                    hs.copied.add(id(out))
            return out

        return wrapper

    def _wrap_getitem(self, fn):
        hs = self
        torch = self.torch

        def is_mask(index) -> bool:
            if isinstance(index, torch.Tensor):
                return index.dtype == torch.bool
            if isinstance(index, tuple):
                return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in index)
            return False

        @functools.wraps(fn)
        def getitem(self, index):
            if hs.depth or not hs.state.measuring or hs.state.in_loader or not is_mask(index):
                return fn(self, index)
            where = hs.frames.caller(2)
            hs.depth += 1
            try:
                out = fn(self, index)
            finally:
                hs.depth -= 1
            if where is not None and hs.on_device(self):
                hs.state.count("host_sync", where, "boolean indexing", BOOL_INDEX)
            return out

        return getitem
