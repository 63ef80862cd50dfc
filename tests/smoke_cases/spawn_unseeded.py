"""torch.multiprocessing.spawn with no seed anywhere in the script (like a DDP tutorial's
multigpu.py): the spawned worker builds its model and batches from whatever random state it has."""
import torch
import torch.multiprocessing as mp
import torch_npu  # noqa: F401

from _common import batch, tiny_model


def train(rank):
    model = tiny_model("npu")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(6):
        x, y = batch("npu")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    mp.spawn(train, nprocs=1)
