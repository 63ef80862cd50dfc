"""A training loop with no optimizer: the parameters are updated by hand, one tensor at a time (as
pytorch/examples' word_language_model does by default). smoke counts each backward() as a step;
`npu-migrate profile` must measure those steps too and find the planted sync at its line.
"""
import torch
import torch_npu  # noqa: F401
from torch import nn


def main():
    device = torch.device("npu:0")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    x, y = torch.randn(16, 32, device=device), torch.randint(0, 4, (16,), device=device)
    lr = 0.1
    for step in range(1000):
        model.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        if loss.item() > 100:  # PITFALL: host_sync
            break


if __name__ == "__main__":
    main()
