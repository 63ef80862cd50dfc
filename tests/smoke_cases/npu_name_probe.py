"""Looks up the torch.npu name given as argv[1] (it exists only in some torch_npu releases), then trains."""
import sys

import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

getattr(torch.npu, sys.argv[1])
model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x, y = batch("npu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
