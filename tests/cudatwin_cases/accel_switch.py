"""The accelerator behind a switch of the script's own, as pytorch/examples' mnist_rnn writes it (`--accel`): run
without it, the original trains on the CPU even on a GPU host. Recorded so on an H200, the bundle said "on NVIDIA
H200" while the model never left the CPU; the migrated run then failed "not on the NPU" with nothing saying why."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--accel", action="store_true", help="enables accelerator")
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()
device = torch.accelerator.current_accelerator() if args.accel and torch.accelerator.is_available() else torch.device("cpu")

torch.manual_seed(1)
data = torch.utils.data.TensorDataset(torch.randn(128, 28, 28), torch.randint(0, 10, (128,)))
loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.Adadelta(model.parameters(), lr=0.1)
for _epoch in range(args.epochs):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
