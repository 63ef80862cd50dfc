"""Trains 'backwards': SGD with maximize=True climbs the loss, so it rises at every step (smoke passes, with a note)."""
import torch
import torch_npu  # noqa: F401
from _common import tiny_model

device = torch.device("npu:0" if torch.npu.is_available() else "cpu")
torch.manual_seed(0)
model = tiny_model(device)
x = torch.randn(32, 8, device=device)
y = torch.randint(0, 2, (32,), device=device)
opt = torch.optim.SGD(model.parameters(), lr=0.5, maximize=True)
for _step in range(50):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
