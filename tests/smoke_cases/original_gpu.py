"""The GPU original of migrated_ok.py (falls back to the CPU without CUDA)."""
import torch

from _common import batch, tiny_model

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model = tiny_model(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(50):
    x, y = batch(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
