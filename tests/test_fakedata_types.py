"""`smoke --fake-data` datasets behave like the real torchvision classes (issue 10, item 4).

Property: for MNIST, FashionMNIST, CIFAR10, CIFAR100 and ImageFolder, any constructor form the real
class takes (positional or keyword, with or without transforms) gives a fake whose attribute types
and `__getitem__` output types equal the real class's on a tiny real-format dataset generated here
(idx files, CIFAR pickle batches, PNG class folders). A form the real class rejects is rejected too.
And a fake survives pickling into a fresh process that has none of the patches (a spawned worker).
"""
from __future__ import annotations

import os
import pickle
import struct
import tempfile

import pytest

pytestmark = pytest.mark.runtime
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

np = pytest.importorskip("numpy")
tv_datasets = pytest.importorskip("torchvision.datasets")
transforms = pytest.importorskip("torchvision.transforms")

from checks.emulation import fakedata_datasets  # noqa: E402
from tests.helpers import run_python  # noqa: E402

N = 12  # samples per split in the real-format data


# ---------------------------------------------------------------- tiny real-format datasets
def _idx(path, array, type_code):
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, type_code, array.ndim))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.astype(">u1" if type_code == 8 else ">i4").tobytes())


def _write_mnist(root, name):
    raw = os.path.join(root, name, "raw")
    os.makedirs(raw)
    rng = np.random.RandomState(0)
    for split in ("train", "t10k"):
        _idx(os.path.join(raw, f"{split}-images-idx3-ubyte"), rng.randint(0, 256, (N, 28, 28)), 8)
        _idx(os.path.join(raw, f"{split}-labels-idx1-ubyte"), np.arange(N) % 10, 8)


def _write_cifar(root, folder, files, meta, meta_key, label_key, classes):
    os.makedirs(os.path.join(root, folder))
    rng = np.random.RandomState(1)
    for name in files:
        with open(os.path.join(root, folder, name), "wb") as f:
            pickle.dump({"data": rng.randint(0, 256, (N, 3072)).astype(np.uint8),
                         label_key: [int(i % classes) for i in range(N)]}, f)
    with open(os.path.join(root, folder, meta), "wb") as f:
        pickle.dump({meta_key: [f"c{i}" for i in range(classes)]}, f)


def _write_folder(root):
    from PIL import Image

    rng = np.random.RandomState(2)
    for cls in ("cat", "dog", "emu"):
        os.makedirs(os.path.join(root, cls))
        for i in range(3):
            Image.fromarray(rng.randint(0, 256, (20, 24, 3)).astype(np.uint8)).save(os.path.join(root, cls, f"{i}.png"))


@pytest.fixture(scope="module")
def real_root():
    root = tempfile.mkdtemp(prefix="real-format-")
    _write_mnist(root, "MNIST")
    _write_mnist(root, "FashionMNIST")
    _write_cifar(root, "cifar-10-batches-py", [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"],
                 "batches.meta", "label_names", "labels", 10)
    _write_cifar(root, "cifar-100-python", ["train", "test"], "meta", "fine_label_names", "fine_labels", 100)
    _write_folder(os.path.join(root, "folder"))
    return root


@pytest.fixture(scope="module", autouse=True)
def fake_dir():
    path = tempfile.mkdtemp(prefix="fake-data-")
    old = os.environ.get(fakedata_datasets.FAKE_DIR_ENV)
    os.environ[fakedata_datasets.FAKE_DIR_ENV] = path
    fakedata_datasets.fake_root.cache_clear()
    yield path
    if old is None:
        os.environ.pop(fakedata_datasets.FAKE_DIR_ENV, None)
    else:
        os.environ[fakedata_datasets.FAKE_DIR_ENV] = old
    fakedata_datasets.fake_root.cache_clear()


# ---------------------------------------------------------------- comparing types
def kind(x):
    import torch

    if isinstance(x, torch.Tensor):
        return ("Tensor", str(x.dtype), x.dim())
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.ndim, x.shape[1:])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, kind(x[0]) if x else None)
    if isinstance(x, dict):
        first = next(iter(x.items()), None)
        return ("dict", (kind(first[0]), kind(first[1])) if first else None)
    return type(x).__name__


ATTRS = ("data", "targets", "classes", "class_to_idx", "samples", "imgs", "train", "root", "transform",
         "target_transform", "loader", "extensions")
# (class name, argument names in order after root, data folder under real_root)
CLASSES = {
    "MNIST": (("train", "transform", "target_transform", "download"), ""),
    "FashionMNIST": (("train", "transform", "target_transform", "download"), ""),
    "CIFAR10": (("train", "transform", "target_transform", "download"), ""),
    "CIFAR100": (("train", "transform", "target_transform", "download"), ""),
    "ImageFolder": (("transform", "target_transform"), "folder"),
}


@st.composite
def constructor_forms(draw):
    name = draw(st.sampled_from(sorted(CLASSES)))
    names, _ = CLASSES[name]
    values = {"train": draw(st.booleans()), "download": False,
              "transform": draw(st.sampled_from([None, "to_tensor", "resize_to_tensor"])),
              "target_transform": draw(st.sampled_from([None, "as_float"]))}
    chosen = [n for n in names if draw(st.booleans())]
    positional = draw(st.integers(0, len(names)))
    root_keyword = draw(st.booleans()) and positional == 0
    bogus = draw(st.integers(0, 9)) == 0
    return name, names, values, chosen, positional, root_keyword, bogus


def _transform(tag):
    return {None: None, "to_tensor": transforms.ToTensor(),
            "resize_to_tensor": transforms.Compose([transforms.Resize((8, 8)), transforms.ToTensor()]),
            "as_float": float}[tag]


def _call(cls, root, form):
    _, names, values, chosen, positional, root_keyword, bogus = form
    args, kwargs = [], {}
    used = names[:positional]
    for n in used:
        args.append(_transform(values[n]) if "transform" in n else values[n])
    for n in chosen:
        if n not in used:
            kwargs[n] = _transform(values[n]) if "transform" in n else values[n]
    if bogus:
        kwargs["bogus_option"] = 1
    if root_keyword:
        return cls(root=root, **kwargs)
    return cls(root, *args, **kwargs)


def _build(cls, root, form):
    try:
        return _call(cls, root, form), None
    except TypeError as exc:
        return None, exc


@pytest.fixture
def real_cifar_md5_off(monkeypatch):
    """The real CIFAR checks md5 sums of the official files; the generated ones differ."""
    import torchvision.datasets.cifar as cifar

    monkeypatch.setattr(cifar, "check_integrity", lambda fpath, md5=None: os.path.isfile(fpath))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=constructor_forms(), index=st.integers(0, N - 1))
def test_fake_dataset_types_equal_the_real_class(form, index, real_root, tmp_path, real_cifar_md5_off):
    name = form[0]
    cls = getattr(tv_datasets, name)
    real, real_error = _build(cls, os.path.join(real_root, CLASSES[name][1]), form)
    restore = fakedata_datasets.patch_datasets(tv_datasets)
    try:
        fake, fake_error = _build(cls, str(tmp_path / "nothing-here"), form)
    finally:
        restore()
    assert (real_error is None) == (fake_error is None), (real_error, fake_error)
    if real is None:
        return
    for attr in ATTRS:
        if hasattr(real, attr):
            assert kind(getattr(fake, attr)) == kind(getattr(real, attr)), attr
    real_item, fake_item = real[index % len(real)], fake[index % len(fake)]
    assert [kind(x) for x in fake_item] == [kind(x) for x in real_item]
    if hasattr(real_item[0], "shape"):
        assert tuple(fake_item[0].shape)[:-2] == tuple(real_item[0].shape)[:-2] or name == "ImageFolder"
    assert fake.root == real.root.replace(os.path.join(real_root, CLASSES[name][1]), str(tmp_path / "nothing-here"))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_fake_survives_pickling_into_a_process_without_the_patches(name, tmp_path, real_root, real_cifar_md5_off):
    cls = getattr(tv_datasets, name)
    real = cls(os.path.join(real_root, CLASSES[name][1]), transform=transforms.ToTensor())
    restore = fakedata_datasets.patch_datasets(tv_datasets)
    try:
        fake = cls(str(tmp_path / "nothing-here"), transform=transforms.ToTensor())
    finally:
        restore()
    blob = tmp_path / "fake.pkl"
    blob.write_bytes(pickle.dumps(fake))
    code = ("import pickle, sys, torch\n"
            "ds = pickle.load(open(sys.argv[1], 'rb'))\n"
            "img, target = ds[3]\n"
            "print(type(img).__name__, img.dtype, tuple(img.shape[:1]), type(target).__name__, len(ds))\n")
    proc = run_python("-c", code, str(blob), text=True, timeout=300, cwd=tmp_path,
                      env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    img, target = real[3]
    assert proc.stdout.split()[:5] == ["Tensor", str(img.dtype), str(tuple(img.shape[:1])).replace(" ", ""),
                                       type(target).__name__, str(len(fake))]
