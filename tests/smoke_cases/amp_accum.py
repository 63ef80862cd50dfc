"""torch.npu.amp autocast + GradScaler with gradient accumulation (2 micro-batches per step)."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.npu.amp.GradScaler(init_scale=1024.0)
for i in range(20):
    x, y = batch("npu")
    with torch.npu.amp.autocast():
        loss = torch.nn.functional.cross_entropy(model(x), y) / 2
    scaler.scale(loss).backward()
    if i % 2 == 1:
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
