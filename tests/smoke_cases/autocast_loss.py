"""The loss is computed inside torch.npu.amp.autocast() (no dtype named): its dtype is the one the
emulated device's autocast policy gives (smoke --autocast), under one process and under torchrun."""
import torch
import torch_npu  # noqa: F401

model = torch.nn.Linear(8, 4).to("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 8, device="npu")
for _ in range(10):
    with torch.npu.amp.autocast():
        loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
