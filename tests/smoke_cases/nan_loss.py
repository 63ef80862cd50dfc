import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x, y = batch("npu")
    if step == 1:
        x = x * float("inf")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
