"""Tiny CUDA training script that saves its hyperparameters, activation function included, before training
(as scripts that `torch.save(vars(args))` or a config object do): pickling `F.gelu` works on torch's own function
and fails on msprobe's wrapper of it, so under msprobe's API dump the script stops before its first step."""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, activation):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.activation = activation
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(self.activation(self.fc1(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    hparams = {**vars(args), "activation": F.gelu}
    torch.save(hparams, os.path.join(tempfile.gettempdir(), f"hparams_{os.getpid()}.pt"))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    model = Net(hparams["activation"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for step in range(args.steps):
        idx = torch.randint(0, 256, (32,))
        data, target = x[idx].to(device), y[idx].to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
