"""Original GPU script: torchrun env vars, nccl, one CUDA device per LOCAL_RANK, DDP."""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).cuda(local_rank)
    model = DDP(model, device_ids=[local_rank], output_device=local_rank)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(100 + rank)  # each rank its shard of the data
    for step in range(100):
        x = torch.randn(32, 8, generator=g).cuda(local_rank, non_blocking=True)
        y = torch.randint(0, 4, (32,), generator=g).to(f"cuda:{local_rank}")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
