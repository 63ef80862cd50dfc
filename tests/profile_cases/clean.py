"""A training loop with no performance pitfall: `npu-migrate profile` must report nothing for it.

Losses are kept on the device and read once at the end (after training), the data is in memory,
shapes are fixed, everything is float32, and Adagrad has no fused torch_npu counterpart.
"""
import torch
import torch_npu  # noqa: F401
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    device = torch.device("npu:0")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, drop_last=True)
    # wide enough that the in-memory DataLoader stays far below the data_loading threshold of a step
    model = nn.Sequential(nn.Linear(64, 3072), nn.ReLU(), nn.Linear(3072, 3072), nn.ReLU(), nn.Linear(3072, 10)).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-2)
    running = torch.zeros((), device=device)
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.detach()
    print(f"mean loss {running.item() / (2 * len(loader)):.4f}")


if __name__ == "__main__":
    main()
