"""The GPU original of tests/smoke_cases/loader_workers.py for the signal tests of validate: the same model
and data, no worker processes and no pause, so it finishes its steps quickly; it takes (and ignores) the
same argument, the folder where the migrated script writes its pids."""
import sys

import torch

assert len(sys.argv) == 2, "usage: loader_gpu.py PIDS_DIR"
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.utils.data.TensorDataset(torch.randn(4096, 8), torch.randint(0, 2, (4096,)))
for x, y in torch.utils.data.DataLoader(data, batch_size=16):
    loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
