"""torch.multiprocessing.spawn: the main process only starts two spawned workers; each trains its own
copy of the model with its own optimizer. The steps happen in the spawned processes only."""
import torch
import torch.multiprocessing as mp
import torch_npu  # noqa: F401

from _common import batch, tiny_model


def train(rank):
    torch.manual_seed(rank)
    model = tiny_model("npu")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(6):
        x, y = batch("npu")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    mp.spawn(train, nprocs=2)
    print("spawned workers done")
