"""Kills itself with a signal (argv[1]) during training: after one optimizer step."""
import os
import signal
import sys

import torch

from _common import batch, tiny_model

device = torch.device("npu")
model = tiny_model(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = batch(device)
loss = torch.nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
os.kill(os.getpid(), getattr(signal, sys.argv[1]))
