"""A correctly migrated loop: passes on the NPU and on the emulated NPU."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

device = torch.device("npu:0" if torch.npu.is_available() else "cpu")
model = tiny_model(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(50):
    x, y = batch(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
