"""`smoke --fake-data` data is learnable (issue 16): a few steps of an ordinary classifier lower the loss.

1. Every kind of fake (MNIST family, CIFAR10/100, ImageFolder PNGs, the generic in-memory fake) gives
   images whose label is a deterministic function of the image: the nearest class template
   (`fakedata_datasets.templates`) names it, for every sample.
2. A small CNN trained with SGD on the fake MNIST for STEPS steps ends with a clearly lower loss, for
   several seeds; the same network on the same images with the labels shuffled (what the fakes were
   before: labels unrelated to the images) does not, so the check measures the data, not the optimiser.
"""
from __future__ import annotations

import os
import tempfile

import pytest

pytestmark = pytest.mark.runtime
np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
tv_datasets = pytest.importorskip("torchvision.datasets")
transforms = pytest.importorskip("torchvision.transforms")

from checks.emulation import fakedata_datasets  # noqa: E402

# Measured (2026-11-23, 6 seeds): mean of the last 3 losses / mean of the first 3 after 16 steps was
# 0.02-0.41 on the fake MNIST and 0.98-1.02 with shuffled labels; 0.7 sits well between both.
STEPS, LR, RATIO = 16, 0.01, 0.7


@pytest.fixture(scope="module")
def patched():
    path = tempfile.mkdtemp(prefix="fake-data-")
    old = os.environ.get(fakedata_datasets.FAKE_DIR_ENV)
    os.environ[fakedata_datasets.FAKE_DIR_ENV] = path
    fakedata_datasets.fake_root.cache_clear()
    restore = fakedata_datasets.patch_datasets(tv_datasets)
    yield path
    restore()
    if old is None:
        os.environ.pop(fakedata_datasets.FAKE_DIR_ENV, None)
    else:
        os.environ[fakedata_datasets.FAKE_DIR_ENV] = old
    fakedata_datasets.fake_root.cache_clear()


def nearest_template(images, name, classes):
    """images: (n, h, w, c) uint8 -> the index of the nearest class template of each."""
    n, h, w, c = images.shape
    tpl = fakedata_datasets.templates(name, classes, h, w, c).reshape(classes, -1)
    flat = images.reshape(n, -1).astype(np.float32)
    dist = (flat ** 2).sum(1)[:, None] - 2 * flat @ tpl.T + (tpl ** 2).sum(1)[None, :]
    return dist.argmin(1)


def test_mnist_labels_follow_from_the_images(patched, tmp_path):
    ds = tv_datasets.MNIST(str(tmp_path), train=True, download=True)
    images = ds.data.numpy()[..., None]
    assert (nearest_template(images, "MNIST", 10) == ds.targets.numpy()).all()
    assert sorted(set(ds.targets.tolist())) == list(range(10))


@pytest.mark.parametrize("cls_name, classes", [("CIFAR10", 10), ("CIFAR100", 100)])
def test_cifar_labels_follow_from_the_images(patched, tmp_path, cls_name, classes):
    ds = getattr(tv_datasets, cls_name)(str(tmp_path), train=True, download=True)
    labels = np.asarray(ds.targets)
    assert (nearest_template(ds.data, cls_name, classes) == labels).all()
    assert len(set(labels.tolist())) == classes


def test_image_folder_labels_follow_from_the_png_files(patched, tmp_path):
    from PIL import Image

    ds = tv_datasets.ImageFolder(str(tmp_path))
    images = np.stack([np.asarray(Image.open(path).convert("RGB")) for path, _ in ds.samples])
    folders = [int(os.path.basename(os.path.dirname(path)).split("_")[1]) for path, _ in ds.samples]
    assert (nearest_template(images, "ImageFolder", fakedata_datasets.FOLDER_CLASSES) == folders).all()
    # the class index the real ImageFolder gives is the folder's class
    assert [ds.classes[t] for _, t in ds.samples] == [f"class_{f}" for f in folders]


def test_generic_fake_labels_follow_from_the_images(patched, tmp_path):
    ds = tv_datasets.SVHN(str(tmp_path), split="train", download=True)
    assert (nearest_template(ds.data, "SVHN", 10) == np.asarray(ds.labels)).all()


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3)
        self.conv2 = torch.nn.Conv2d(8, 16, 3)
        self.fc = torch.nn.Linear(16 * 12 * 12, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def _train(ds, seed):
    torch.manual_seed(seed)
    loader = torch.utils.data.DataLoader(ds, batch_size=32, shuffle=True)
    net = SmallCNN()
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=0.9)
    losses = []
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if len(losses) == STEPS:
            return losses
    raise AssertionError("the fake MNIST has fewer batches than STEPS")


def _ratio(losses):
    return sum(losses[-3:]) / sum(losses[:3])


@pytest.fixture
def mnist(patched, tmp_path):
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    return tv_datasets.MNIST(str(tmp_path), train=True, download=True, transform=tf)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_small_cnn_lowers_its_loss_on_the_fake_mnist(mnist, seed):
    losses = _train(mnist, seed)
    assert _ratio(losses) < RATIO, [round(x, 3) for x in losses]


def test_with_shuffled_labels_the_same_training_does_not(mnist):
    """The control: images unrelated to their labels (the old fake data) give no such drop."""
    mnist.targets = mnist.targets[torch.randperm(len(mnist.targets), generator=torch.Generator().manual_seed(0))]
    losses = _train(mnist, 0)
    assert _ratio(losses) > 0.9, [round(x, 3) for x in losses]


def test_mnist_has_its_real_length_so_splits_by_absolute_counts_work(patched, tmp_path):
    """lightning-hydra-template splits MNIST train+test into [55_000, 5_000, 10_000]."""
    import torch

    train = tv_datasets.MNIST(str(tmp_path), train=True, download=True)
    test = tv_datasets.FashionMNIST(str(tmp_path), train=False, download=True)
    assert (len(train), len(test)) == (60_000, 10_000)
    parts = torch.utils.data.random_split(torch.utils.data.ConcatDataset([train, tv_datasets.MNIST(str(tmp_path), train=False)]),
                                          [55_000, 5_000, 10_000], generator=torch.Generator().manual_seed(42))
    assert [len(p) for p in parts] == [55_000, 5_000, 10_000]
    image, label = parts[0][0]
    assert label in range(10)
