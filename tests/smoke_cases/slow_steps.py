"""A migrated loop whose steps take about a second each (smoke's progress line has something to show)."""
import time

import torch
import torch_npu  # noqa: F401
from _common import batch, tiny_model

device = torch.device("npu:0" if torch.npu.is_available() else "cpu")
model = tiny_model(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _step in range(50):
    x, y = batch(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    time.sleep(1.0)
