"""Computes losses and gradients but never steps an optimizer."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = batch("npu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
print("done")
