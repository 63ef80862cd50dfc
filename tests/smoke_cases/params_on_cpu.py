"""Imports torch_npu but never moves the model or the data to the NPU."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("cpu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x, y = batch("cpu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
