"""A plain loop for the Ascend-profiler orchestration test (runs on the CPU with the fake torch_npu)."""
import torch
from torch import nn


def main():
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
