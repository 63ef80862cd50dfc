"""No optimizer: parameters updated by hand under torch.no_grad() and through p.data (a step per backward)."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
for step in range(10):
    x, y = batch("npu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            if i % 2:
                p -= 0.1 * p.grad
            else:
                p.data.add_(p.grad, alpha=-0.1)
print("done")
