"""A GPU-only training script with a realistic step time, for the two-hosts bench's second row (issue 26):
an MLP of about 9M parameters on batches of 256 from a DataLoader, AdamW, `.to(device)` on "cuda".
gpu_only.py (the first row) takes milliseconds a step, so its run is mostly start-up; here a step
takes a few tenths of a second on a CPU (the CUDA twin / the stand-in), as training steps do."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

if not torch.cuda.is_available():
    sys.exit("No GPU found")

device = torch.device("cuda")
torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(8192, 1024), torch.randint(0, 10, (8192,)))
loader = torch.utils.data.DataLoader(data, batch_size=256, shuffle=True)
model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for _epoch in range(10):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
