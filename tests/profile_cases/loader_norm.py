"""A Dataset that normalises each sample the RMSNorm way in `__getitem__` (host work the DataLoader does):
not the step's compute, so profile reports no fused-operator chance there (the model has none either)."""
import torch
import torch_npu  # noqa: F401
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Normalised(Dataset):
    def __init__(self, n: int):
        self.x = torch.randn(n, 32, generator=torch.Generator().manual_seed(0))
        self.scale = torch.ones(32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + 1e-6)
        return self.scale * x


def main():
    device = torch.device("npu:0")
    loader = DataLoader(Normalised(256), batch_size=8)
    model = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 1)).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
