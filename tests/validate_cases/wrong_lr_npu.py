"""A deliberately wrong migration of train_gpu.py: learning rate changed from 0.1 to 0.12."""
import argparse

import torch
import torch_npu
import torch.nn as nn
import torch.nn.functional as F

LR = 0.12
SEED = 0
DROPOUT = 0.2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.drop = nn.Dropout(DROPOUT)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    device = torch.device("npu" if torch.npu.is_available() else "cpu")
    torch.manual_seed(SEED)
    x = torch.randn(256, 8)
    y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    print(f"accuracy before training: {evaluate(model, x.to(device), y.to(device)):.3f}")
    model.train()
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
