"""Synthetic torchvision datasets for `smoke --fake-data` that behave like the real ones.

The real class does the work wherever it can, so attribute types, constructor forms and pickling are
the real ones by construction:
- MNIST family (MNIST, FashionMNIST, KMNIST, EMNIST, QMNIST): the real `__init__` runs; only the
  file access is replaced (`_load_data` returns a uint8 image tensor and int64 targets as the idx
  reader does; `_check_exists` is True; `download` does nothing).
- CIFAR10 / CIFAR100: the real `__init__` reads real-format pickle batches generated under the
  fake-data folder (the md5 check accepts files there); `.root` is then set back to the caller's.
- ImageFolder (and subclasses): the real `__init__` scans a generated folder of PNG files (one
  folder per class); `.samples` point at those files, so the real loader works, also in spawned
  DataLoader workers that never saw these patches.
- Other datasets (SVHN, STL10, ImageNet, ...): a generic in-memory fake of the right image size
  and number of classes.

Every fake is learnable: each class has a fixed smooth template (a random 4x4 grid of colours,
scaled up to the image size) and an image is its class's template plus small pixel noise, so the label
is a deterministic function of the image (the nearest template) and a few steps of an ordinary
classifier lower the loss, as on real data (random labels would make the loss rise and look like a
broken migration). Labels are balanced (sample i has class i % classes).

The fake-data folder is NPU_MIGRATE_FAKE_DATA_DIR (set by the smoke parent, which deletes it after
the run; a torchrun rank uses its own `rank{RANK}` subfolder of it), else a temporary folder. Nothing is read from the caller's root or downloaded.
"""
from __future__ import annotations

import functools
import inspect
import os
import pickle
import sys
import tempfile
import warnings
import zlib

FAKE_LEN = 512
from checks.launch.child_config import FAKE_DATA_DIR_ENV as FAKE_DIR_ENV  # one name, torch-free

FOLDER_CLASSES, FOLDER_PER_CLASS, FOLDER_SIZE = 10, 8, 64
MNIST_FAMILY = ("MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST")
# (class, train) -> the real number of samples, so that code splitting by absolute counts
# (`random_split(ConcatDataset([train, test]), [55_000, 5_000, 10_000])`, lightning-hydra-template)
# works as on the real data. Sources: MNIST, yann.lecun.com/exdb/mnist ("a training set of 60,000
# examples, and a test set of 10,000"); Fashion-MNIST, zalandoresearch/fashion-mnist README (same
# sizes); KMNIST, rois-codh/kmnist README (same sizes). EMNIST and QMNIST (split-dependent sizes) keep
# FAKE_LEN.
MNIST_LENGTHS = {(name, train): 60_000 if train else 10_000 for name in ("MNIST", "FashionMNIST", "KMNIST") for train in (True, False)}
# name -> (PIL mode, height, width, classes) for the generic fake
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
_warned: set[str] = set()


def warn_once(msg: str) -> None:
    if msg in _warned:
        return
    _warned.add(msg)
    warnings.warn(f"npu-migrate smoke --fake-data: {msg}", stacklevel=3)
    print(f"[npu-migrate smoke] fake-data: {msg}", file=sys.stderr)


@functools.lru_cache(maxsize=1)
def fake_root() -> str:
    root = os.environ.get(FAKE_DIR_ENV)
    if root and os.environ.get("RANK") is not None:  # torchrun ranks share the job's folder: one subfolder each
        root = os.path.join(root, f"rank{os.environ['RANK']}")
    root = root or tempfile.mkdtemp(prefix="npu-migrate-fakedata-")
    os.makedirs(root, exist_ok=True)
    return os.path.realpath(root)


def _rng(name: str):
    import numpy as np

    return np.random.RandomState(zlib.crc32(name.encode()))


TEMPLATE_GRID = 4  # each class template is a TEMPLATE_GRID x TEMPLATE_GRID grid of random colours
NOISE_STD = 24.0  # pixel noise around the template (0..255 scale)


def templates(name: str, classes: int, height: int, width: int, channels: int):
    """(classes, height, width, channels) float32: the fixed smooth template of each class of `name`."""
    import numpy as np

    grid = _rng(f"{name}/templates").uniform(32, 224, size=(classes, TEMPLATE_GRID, TEMPLATE_GRID, channels))
    rows = np.arange(height) * TEMPLATE_GRID // height
    cols = np.arange(width) * TEMPLATE_GRID // width
    return grid[:, rows][:, :, cols].astype(np.float32)


def learnable_images(name: str, n: int, classes: int, height: int, width: int, channels: int, part: str = ""):
    """n uint8 images (n, height, width, channels) and their int64 labels (i % classes): each image is its
    class's template plus noise; `part` (a file or split name) varies the noise, never the templates."""
    import numpy as np

    labels = np.arange(n, dtype=np.int64) % classes
    noise = _rng(f"{name}/{part}").normal(0.0, NOISE_STD, size=(n, height, width, channels)).astype(np.float32)
    images = templates(name, classes, height, width, channels)[labels] + noise
    return np.clip(np.rint(images), 0, 255).astype(np.uint8), labels


# ------------------------------------------------------------------------------ MNIST family
def _patch_mnist(cls, name: str) -> None:
    def _load_data(self):
        import torch

        classes = EMNIST_CLASSES.get(getattr(self, "split", None)) or len(self.classes) or 10
        images, labels = learnable_images(name, FAKE_LEN, classes, 28, 28, 1, part=str(getattr(self, "train", "")))
        data = torch.from_numpy(images[..., 0].copy())
        labels = torch.from_numpy(labels)
        length = MNIST_LENGTHS.get((name, bool(getattr(self, "train", True))), FAKE_LEN)
        if length != FAKE_LEN:  # the real length, the FAKE_LEN distinct images repeated
            repeat = torch.arange(length) % FAKE_LEN
            data, labels = data[repeat], labels[repeat]
        if name == "QMNIST":  # (N, 8) int64: class, writer ids, ... (compat targets use column 0)
            targets = torch.zeros(FAKE_LEN, 8, dtype=torch.int64)
            targets[:, 0] = labels
        else:
            targets = labels
        warn_once(f"{type(self).__name__}: {length} synthetic 28x28 images ({min(length, FAKE_LEN)} distinct), {classes} classes "
                  "(nothing read or downloaded)")
        return data, targets

    cls._load_data = _load_data
    cls._check_exists = lambda self: True
    cls._check_legacy_exist = lambda self: False
    cls.download = lambda self: None


# ------------------------------------------------------------------------------ CIFAR
def _write_cifar(cls) -> str:
    """Real-format CIFAR batches (pickled dicts, uint8 rows of 3x32x32) under the fake-data folder."""
    root = os.path.join(fake_root(), cls.__name__)
    folder = os.path.join(root, cls.base_folder)
    done = os.path.join(folder, ".complete")
    if os.path.exists(done):
        return root
    os.makedirs(folder, exist_ok=True)
    classes = IMAGE_DATASETS.get(cls.__name__, ("RGB", 32, 32, 10))[3]
    label_key = "fine_labels" if cls.meta["key"].startswith("fine") else "labels"
    per_file = max(1, FAKE_LEN // len(cls.train_list))
    for file_name, _ in (*cls.train_list, *cls.test_list):
        images, labels = learnable_images(cls.__name__, per_file, classes, 32, 32, 3, part=file_name)
        entry = {"data": images.transpose(0, 3, 1, 2).reshape(per_file, 3072),  # CIFAR rows: R plane, G, B
                 label_key: [int(x) for x in labels]}
        with open(os.path.join(folder, file_name), "wb") as f:
            pickle.dump(entry, f)
    with open(os.path.join(folder, cls.meta["filename"]), "wb") as f:
        pickle.dump({cls.meta["key"]: [f"class_{i}" for i in range(classes)]}, f)
    open(done, "w").close()
    return root


def _patch_cifar(cls, module) -> None:
    real_init = cls.__init__
    signature = inspect.signature(real_init)

    @functools.wraps(real_init)
    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)  # the real class's TypeError for a wrong form
        root = bound.arguments.get("root")
        bound.arguments["root"] = _write_cifar(type(self))
        if "download" in bound.arguments:
            bound.arguments["download"] = False
        real_init(*bound.args, **bound.kwargs)
        self.root = os.path.expanduser(root) if isinstance(root, str) else root
        warn_once(f"{type(self).__name__}: {len(self.data)} synthetic 32x32 images, {len(self.classes)} classes "
              "(nothing read or downloaded)")

    cls.__init__ = __init__
    check_integrity = module.check_integrity

    def check_integrity_fake(fpath, md5=None):
        return os.path.realpath(str(fpath)).startswith(fake_root() + os.sep) or check_integrity(fpath, md5)

    module.check_integrity = check_integrity_fake


# ------------------------------------------------------------------------------ ImageFolder
def _write_image_folder() -> str:
    from PIL import Image

    root = os.path.join(fake_root(), "ImageFolder")
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return root
    images, labels = learnable_images("ImageFolder", FOLDER_CLASSES * FOLDER_PER_CLASS, FOLDER_CLASSES,
                                      FOLDER_SIZE, FOLDER_SIZE, 3)
    for c in range(FOLDER_CLASSES):
        os.makedirs(os.path.join(root, f"class_{c}"), exist_ok=True)
    for i, (pixels, c) in enumerate(zip(images, labels)):
        Image.fromarray(pixels, mode="RGB").save(os.path.join(root, f"class_{c}", f"img_{i // FOLDER_CLASSES}.png"))
    open(done, "w").close()
    return root


def _patch_image_folder(cls) -> None:
    real_init = cls.__init__
    signature = inspect.signature(real_init)

    @functools.wraps(real_init)
    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        root = bound.arguments.get("root")
        bound.arguments["root"] = _write_image_folder()
        real_init(*bound.args, **bound.kwargs)
        self.root = os.path.expanduser(root) if isinstance(root, str) else root
        warn_once(f"{type(self).__name__}: {len(self.samples)} synthetic {FOLDER_SIZE}x{FOLDER_SIZE} PNG images in "
              f"{len(self.classes)} class folders (nothing read from {root})")

    cls.__init__ = __init__


# ------------------------------------------------------------------------------ everything else
def _generic_fake(cls, name: str, spec, real_for=()) -> None:
    """`real_for`: subclasses faked their own way that go through the real __init__ of `cls`."""
    mode, height, width, default_classes = spec
    real_init, real_getitem, real_len = cls.__init__, cls.__getitem__, cls.__len__

    def __init__(self, root=None, *args, transform=None, target_transform=None, **kwargs):
        if isinstance(self, real_for):
            real_init(self, root, *args, transform=transform, target_transform=target_transform, **kwargs)
            return

        classes = default_classes
        n = FAKE_LEN if height * width <= 96 * 96 else 64
        images, labels = learnable_images(name, n, classes, height, width, 1 if mode == "L" else 3,
                                          part=str(kwargs.get("split", kwargs.get("train", ""))))
        targets = [int(x) for x in labels]
        class_names = [f"class_{i}" for i in range(classes)]
        values = {
            "root": root, "transform": transform, "target_transform": target_transform, "transforms": None,
            "train": kwargs.get("train", True), "classes": class_names,
            "class_to_idx": {c: i for i, c in enumerate(class_names)},
            "data": images[..., 0].copy() if mode == "L" else images, "targets": targets, "labels": targets,
            "samples": [(f"<fake {name} {i}>", t) for i, t in enumerate(targets)],
        }
        values["imgs"] = values["samples"]
        for attr, value in values.items():
            try:
                setattr(self, attr, value)
            except AttributeError:  # a read-only property of the real class (computed from the others)
                pass
        warn_once(f"{name}: {n} synthetic {mode} {height}x{width} images, {classes} classes (nothing read or downloaded)")

    def __len__(self):
        if isinstance(self, real_for):
            return real_len(self)
        return len(self.targets)

    def __getitem__(self, index):
        from PIL import Image

        if isinstance(self, real_for):
            return real_getitem(self, index)

        img = Image.fromarray(self.data[index], mode=mode)
        target = self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    cls.__init__ = __init__
    cls.__len__ = __len__
    cls.__getitem__ = __getitem__
    for attr in ("_check_exists", "_check_integrity"):
        if hasattr(cls, attr):
            setattr(cls, attr, lambda self: True)
    if hasattr(cls, "download"):
        cls.download = lambda self: None


def patch_datasets(datasets_module):
    """Patch the dataset classes of `torchvision.datasets`; returns a function that undoes it."""
    saved = []

    def remember(owner, *names):
        for attr in names:
            saved.append((owner, attr, owner.__dict__.get(attr, _MISSING)))

    import torchvision.datasets.cifar as cifar_module

    for name in MNIST_FAMILY:
        cls = getattr(datasets_module, name, None)
        if cls is not None:
            remember(cls, "_load_data", "_check_exists", "_check_legacy_exist", "download")
            _patch_mnist(cls, name)
    cifar = getattr(datasets_module, "CIFAR10", None)
    if cifar is not None:
        remember(cifar, "__init__")
        remember(cifar_module, "check_integrity")
        _patch_cifar(cifar, cifar_module)
    folder = getattr(datasets_module, "ImageFolder", None)
    if folder is not None:
        remember(folder, "__init__")
        _patch_image_folder(folder)
    for name, spec in IMAGE_DATASETS.items():
        if name in MNIST_FAMILY or name in ("CIFAR10", "CIFAR100", "ImageFolder"):
            continue
        cls = getattr(datasets_module, name, None)
        if cls is not None:
            remember(cls, "__init__", "__len__", "__getitem__", "_check_exists", "_check_integrity", "download")
            _generic_fake(cls, name, spec, real_for=(folder,) if name == "DatasetFolder" and folder else ())

    def restore() -> None:
        for owner, attr, value in reversed(saved):
            if value is _MISSING:
                if attr in owner.__dict__:
                    delattr(owner, attr)
            else:
                setattr(owner, attr, value)

    return restore


_MISSING = object()
