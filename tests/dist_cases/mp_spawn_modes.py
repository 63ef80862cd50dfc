"""Ranks started by the script itself (torch.multiprocessing.spawn), migrated style (hccl), two ranks.

argv[1]: "sync" (DDP, passes), "no_sync" (every step under DDP.no_sync(): the replicas drift apart),
"rank1_nan" (rank 1's loss turns NaN at its third step; rank 0 then loses its peer),
"skip" (after step 3 rank 1 leaves the loss all-reduce for local work: rank 0 waits in it).
"""
import contextlib
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank, world_size, port, mode):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.npu.set_device(rank)
    dist.init_process_group("hccl", rank=rank, world_size=world_size)
    device = torch.device("npu", rank)
    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(8, 2).to(device), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)  # each rank its own data
    for step in range(50):
        x = torch.randn(16, 8, device=device)
        if mode == "rank1_nan" and rank == 1 and step == 2:
            x[0, 0] = float("nan")
        with model.no_sync() if mode == "no_sync" else contextlib.nullcontext():
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
        opt.step()
        if mode == "skip":
            logged = loss.detach().clone()
            if rank == 1 and step == 2:
                while True:  # the rank that skipped the collective: busy with something else
                    time.sleep(0.1)
            dist.all_reduce(logged)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    mp.spawn(train, args=(2, free_port(), sys.argv[1]), nprocs=2)
