"""An ordinary GPU-only training script: refuses to start without CUDA, `.cuda()`, torch.device("cuda:0"),
nccl, DataParallel, cudnn/TF32 flags, streams and events, and `use_cuda`-guarded shuffle / pin_memory / AMP.
Without the CUDA twin its baseline cannot run on a CPU-only host ("No GPU found")."""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

if not torch.cuda.is_available():
    sys.exit("No GPU found")

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
use_cuda = torch.cuda.is_available()
device = torch.device("cuda:0")
torch.cuda.set_device(0)
dist.init_process_group("nccl", init_method="file://" + os.path.join(tempfile.mkdtemp(), "store"), rank=0, world_size=1)

torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(256, 20), torch.randint(0, 3, (256,)))
loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=use_cuda, pin_memory=use_cuda)
model = nn.DataParallel(nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 3)).cuda())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=use_cuda)
stream = torch.cuda.Stream()
start = torch.cuda.Event(enable_timing=True)
start.record()
for _epoch in range(3):
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.to(device)
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_cuda):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch.cuda.synchronize()
print("peak memory", torch.cuda.max_memory_allocated())
