"""Trains argv[1] optimizer steps, then leaves through os._exit(int(argv[2])) (no cleanup, no report of its own)."""
import os
import sys

import torch

from _common import batch, tiny_model

device = torch.device("npu")
model = tiny_model(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(int(sys.argv[1])):
    x, y = batch(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
os._exit(int(sys.argv[2]))
