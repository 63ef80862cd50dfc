"""MNIST through a DataLoader with spawned workers (run with --fake-data): the fake dataset is pickled
into worker processes that start from scratch."""
import torch
import torch_npu  # noqa: F401
from torchvision import datasets, transforms


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(28 * 28, 10)

    def forward(self, x):
        return self.fc(x.flatten(1))


if __name__ == "__main__":
    data = datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True, num_workers=2,
                                         multiprocessing_context="spawn")
    model = Net().npu()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        x, y = x.npu(), y.npu()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
