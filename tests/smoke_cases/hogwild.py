"""Hogwild: the main process only starts workers (torch.multiprocessing; start method from argv[1],
fork by default); each worker trains the shared model with its own optimizer. The steps happen in the
workers only."""
import sys

import torch
import torch.multiprocessing as mp
import torch_npu  # noqa: F401

from _common import batch, tiny_model


def train(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(6):
        x, y = batch("npu")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    mp.set_start_method(sys.argv[1] if len(sys.argv) > 1 else "fork", force=True)
    model = tiny_model("npu")
    model.share_memory()
    workers = [mp.Process(target=train, args=(model,)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print("exit codes", [w.exitcode for w in workers])
