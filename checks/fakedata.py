"""`smoke --fake-data`: run real scripts offline.

Inside the smoke child only. torchvision datasets return small synthetic data of the right shape and
number of classes (nothing read or downloaded); pretrained-weight downloads keep the random
initialisation with a warning; outbound network connections (other than loopback, which gloo and
torchrun rendezvous use) are refused.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import socket
import sys
import warnings

FAKE_LEN = 512
# name -> (PIL mode, height, width, classes)
IMAGE_DATASETS = {
    "MNIST": ("L", 28, 28, 10), "FashionMNIST": ("L", 28, 28, 10), "KMNIST": ("L", 28, 28, 10),
    "QMNIST": ("L", 28, 28, 10), "EMNIST": ("L", 28, 28, 47),
    "CIFAR10": ("RGB", 32, 32, 10), "CIFAR100": ("RGB", 32, 32, 100), "SVHN": ("RGB", 32, 32, 10),
    "STL10": ("RGB", 96, 96, 10), "ImageNet": ("RGB", 256, 256, 1000), "ImageFolder": ("RGB", 64, 64, 10),
    "DatasetFolder": ("RGB", 64, 64, 10), "Caltech101": ("RGB", 128, 128, 101), "Food101": ("RGB", 128, 128, 101),
    "Flowers102": ("RGB", 128, 128, 102), "OxfordIIITPet": ("RGB", 128, 128, 37), "StanfordCars": ("RGB", 128, 128, 196),
    "GTSRB": ("RGB", 32, 32, 43), "Places365": ("RGB", 256, 256, 365), "CelebA": ("RGB", 218, 178, 40),
}
EMNIST_CLASSES = {"byclass": 62, "bymerge": 47, "balanced": 47, "letters": 26, "digits": 10, "mnist": 10}


class RandomInitStateDict(dict):
    """Returned instead of downloaded weights: load_state_dict keeps the random initialisation."""


def _warn(msg: str) -> None:
    warnings.warn(f"npu-migrate smoke --fake-data: {msg}", stacklevel=3)
    print(f"[npu-migrate smoke] fake-data: {msg}", file=sys.stderr)


def _fake_dataset(cls, name: str, spec):
    mode, height, width, default_classes = spec

    def __init__(self, root=None, *args, transform=None, target_transform=None, **kwargs):
        import numpy as np

        classes = default_classes
        if name == "EMNIST":
            split = kwargs.get("split", args[0] if args else "balanced")
            classes = EMNIST_CLASSES.get(split, default_classes)
        rng = np.random.RandomState(len(name))
        n = FAKE_LEN if height * width <= 96 * 96 else 64
        shape = (n, height, width) if mode == "L" else (n, height, width, 3)
        targets = [i % classes for i in range(n)]
        class_names = [f"class_{i}" for i in range(classes)]
        values = {
            "root": root, "transform": transform, "target_transform": target_transform, "transforms": None,
            "train": kwargs.get("train", True), "classes": class_names,
            "class_to_idx": {c: i for i, c in enumerate(class_names)},
            "data": rng.randint(0, 256, size=shape, dtype=np.uint8), "targets": targets, "labels": targets,
            "samples": [(f"<fake {name} {i}>", t) for i, t in enumerate(targets)],
        }
        values["imgs"] = values["samples"]
        for attr, value in values.items():
            try:
                setattr(self, attr, value)
            except AttributeError:  # a read-only property of the real class (computed from the others)
                pass
        _warn(f"{name}: {n} synthetic {mode} {height}x{width} images, {classes} classes (nothing read or downloaded)")

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        from PIL import Image

        img = Image.fromarray(self.data[index], mode=mode)
        target = self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __repr__(self):
        return f"Fake{name}(len={len(self)}, classes={len(self.classes)})"

    cls.__init__ = __init__
    cls.__len__ = __len__
    cls.__getitem__ = __getitem__
    cls.__repr__ = __repr__
    for attr in ("_check_exists", "_check_integrity"):
        if hasattr(cls, attr):
            setattr(cls, attr, lambda self: True)
    if hasattr(cls, "download"):
        cls.download = lambda self: None


def patch_datasets(datasets_module) -> None:
    for name, spec in IMAGE_DATASETS.items():
        cls = getattr(datasets_module, name, None)
        if cls is not None:
            _fake_dataset(cls, name, spec)


def patch_hub(torch) -> None:
    def load_state_dict_from_url(url, *args, **kwargs):
        _warn(f"not downloading {url}: the model keeps its random initialisation")
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
        _warn(f"not downloading pretrained weights {self}: the model keeps its random initialisation")
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


class _PatchOnImport(importlib.abc.MetaPathFinder):
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
    patches = {"torchvision.datasets": patch_datasets, "torchvision.models._api": patch_weights_enum}
    pending = {}
    for name, patch in patches.items():
        if name in sys.modules:
            patch(sys.modules[name])
        else:
            pending[name] = patch
    if pending:
        sys.meta_path.insert(0, _PatchOnImport(pending))
