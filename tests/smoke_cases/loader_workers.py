"""A migrated loop fed by a DataLoader with two worker processes, slow enough to be signalled mid-run.
Its pid and its workers' pids go to files in the folder argv[1] (mainR, workerR-0, workerR-1; R the
torchrun rank, empty for one process), "mainR" last, written once two optimizer steps are done (the
workers exist by then)."""
import os
import sys
import time

import torch
import torch_npu  # noqa: F401
from _common import tiny_model

out = sys.argv[1]
rank = os.environ.get("RANK", "")


def note_pid(name):
    """Written whole or not at all (the test reads a file as soon as it exists: it must never see it empty)."""
    path = os.path.join(out, name)
    with open(path + ".part", "w") as f:
        f.write(str(os.getpid()))
    os.replace(path + ".part", path)


def note_worker(worker_id):
    note_pid(f"worker{rank}-{worker_id}")


data = torch.utils.data.TensorDataset(torch.randn(4096, 8), torch.randint(0, 2, (4096,)))
loader = torch.utils.data.DataLoader(data, batch_size=16, num_workers=2, worker_init_fn=note_worker)
device = torch.device("npu:0" if torch.npu.is_available() else "cpu")
model = tiny_model(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (x, y) in enumerate(loader, 1):
    loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 2:
        note_pid(f"main{rank}")
    time.sleep(0.5)
