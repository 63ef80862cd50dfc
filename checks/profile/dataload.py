"""Data loading: how long each training step waits for the DataLoader, and with which settings.

Wraps `_BaseDataLoaderIter.__next__` (torch's private iterator base class, the one place every
DataLoader iteration passes through; guarded: without it this measurement is skipped and the run
says so). The batches it returns are remembered as host tensors for host_sync (emulated).
"""
from __future__ import annotations

import functools
import time


def install(torch, state) -> bool:
    try:
        from torch.utils.data.dataloader import _BaseDataLoaderIter
    except ImportError:
        return False
    orig_next = _BaseDataLoaderIter.__next__
    frames = state.frames

    @functools.wraps(orig_next)
    def __next__(self):
        if state.in_loader:  # a nested loader inside a Dataset: part of the outer wait
            return orig_next(self)
        where = frames.first_user(2) if state.measuring else None
        state.loader_where = where
        state.in_loader = True
        t0 = time.perf_counter()
        try:
            batch = orig_next(self)
        finally:
            waited = time.perf_counter() - t0
            state.in_loader = False
        if state.measuring and where is not None:
            settings = {"num_workers": getattr(self, "_num_workers", None),
                        "pin_memory": getattr(self, "_pin_memory", None),
                        "prefetch_factor": getattr(self, "_prefetch_factor", None),
                        "persistent_workers": getattr(self, "_persistent_workers", None)}
            state.data_wait(where, waited, settings)
        if state.hostsync is not None:
            _remember(torch, batch, state.hostsync.host, 2)
        return batch

    _BaseDataLoaderIter.__next__ = __next__
    return True


def _remember(torch, batch, host, depth: int) -> None:
    if isinstance(batch, torch.Tensor):
        try:
            host.add(batch)
        except TypeError:
            pass
    elif depth and isinstance(batch, (list, tuple)):
        for item in batch:
            _remember(torch, item, host, depth - 1)
    elif depth and isinstance(batch, dict):
        for item in batch.values():
            _remember(torch, item, host, depth - 1)
