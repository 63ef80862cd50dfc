"""The loss is computed inside torch.npu.amp.autocast() (no dtype named): its dtype is the one the
emulated device's autocast policy gives (smoke --autocast), under one process and under torchrun."""
import torch
import torch_npu  # noqa: F401

model = torch.nn.Linear(8, 4).to("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 8, device="npu")
for _ in range(10):
    with torch.npu.amp.autocast():
        # abs and mean are on no autocast list: the linear's autocast dtype carries through to the loss
        # (`square()` would not: it is pow, which autocast runs in float32 on the device, checks/emulation/autocast.py)
        loss = model(x).abs().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
