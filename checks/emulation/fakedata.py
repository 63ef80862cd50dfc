"""`smoke --fake-data`: run real scripts offline.

Inside the smoke child only. torchvision datasets return small synthetic data that behaves like the
real dataset (checks/emulation/fakedata_datasets.py; nothing read or downloaded); pretrained-weight downloads keep the random
initialisation with a warning; outbound network connections (other than loopback, which gloo and
torchrun rendezvous use) are refused.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import socket
import sys

from checks.emulation.fakedata_datasets import patch_datasets, warn_once


class RandomInitStateDict(dict):
    """Returned instead of downloaded weights: load_state_dict keeps the random initialisation."""


def patch_hub(torch) -> None:
    def load_state_dict_from_url(url, *args, **kwargs):
        warn_once(f"not downloading {url}: the model keeps its random initialisation")
        return RandomInitStateDict()

    def download_url_to_file(url, *args, **kwargs):
        raise RuntimeError(f"npu-migrate smoke --fake-data: no network access (download of {url})")

    torch.hub.load_state_dict_from_url = load_state_dict_from_url
    torch.hub.download_url_to_file = download_url_to_file
    try:
        import torch.utils.model_zoo as model_zoo

        model_zoo.load_url = load_state_dict_from_url
    except ImportError:  # pragma: no cover
        pass
    orig_load_state_dict = torch.nn.Module.load_state_dict

    def load_state_dict(self, state_dict, *args, **kwargs):
        if isinstance(state_dict, RandomInitStateDict):
            return torch.nn.modules.module._IncompatibleKeys([], [])
        return orig_load_state_dict(self, state_dict, *args, **kwargs)

    torch.nn.Module.load_state_dict = load_state_dict


def patch_weights_enum(api_module) -> None:
    enum = getattr(api_module, "WeightsEnum", None)
    if enum is None:
        return

    def get_state_dict(self, *args, **kwargs):
        warn_once(f"not downloading pretrained weights {self}: the model keeps its random initialisation")
        return RandomInitStateDict()

    enum.get_state_dict = get_state_dict


def block_network() -> None:
    orig_connect = socket.socket.connect
    orig_create = socket.create_connection

    def _loopback(address) -> bool:
        host = address[0] if isinstance(address, tuple) else address
        return isinstance(host, str) and (host in ("localhost", "::1", "") or host.startswith("127."))

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address):
            raise OSError(f"npu-migrate smoke --fake-data: network access to {address!r} is disabled")
        return orig_connect(self, address)

    def create_connection(address, *args, **kwargs):
        if not _loopback(address):
            raise OSError(f"npu-migrate smoke --fake-data: network access to {address!r} is disabled")
        return orig_create(address, *args, **kwargs)

    socket.socket.connect = connect
    socket.create_connection = create_connection


class PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches torchvision modules right after they are imported (without importing them early)."""

    def __init__(self, patches):
        self.patches = patches  # module name -> callable(module)

    def find_spec(self, fullname, path, target=None):
        patch = self.patches.get(fullname)
        if patch is None:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            patch(module)

        spec.loader.exec_module = exec_and_patch
        return spec


def install(torch) -> None:
    patch_hub(torch)
    block_network()
    patch_modules({"torchvision.datasets": patch_datasets, "torchvision.models._api": patch_weights_enum})


def patch_modules(patches: dict) -> None:
    """Apply each `patches[name](module)` now when the module is imported, else when it is (PatchOnImport)."""
    pending = {}
    for name, patch in patches.items():
        if name in sys.modules:
            patch(sys.modules[name])
        else:
            pending[name] = patch
    if pending:
        sys.meta_path.insert(0, PatchOnImport(pending))
