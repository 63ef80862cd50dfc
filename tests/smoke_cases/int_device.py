"""Migrated style, a bare int as the device (`model.to(gpu_id)`, `x.to(gpu_id)` with gpu_id = 0), as
in a real DDP tutorial's single-device script: with torch_npu imported, torch reads the int as
npu:0."""
import torch
import torch_npu  # noqa: F401

gpu_id = 0
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to(gpu_id)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(4):
    x, y = torch.randn(16, 8).to(gpu_id), torch.randint(0, 2, (16,)).to(gpu_id)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
