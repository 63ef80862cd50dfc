"""Ranks started by the script itself (torch.multiprocessing.spawn), migrated style (hccl)."""
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.npu.set_device(rank)
    dist.init_process_group("hccl", rank=rank, world_size=world_size)
    device = torch.device("npu", rank)
    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(8, 2).to(device), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)
    for _ in range(50):
        loss = model(torch.randn(16, 8, device=device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    world_size = torch.npu.device_count()
    mp.spawn(train, args=(world_size, free_port()), nprocs=world_size)
