"""A rank started by torch.multiprocessing.spawn fails in its own code (a shape error at line 10)."""
import torch
import torch.multiprocessing as mp


def worker(rank):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(3, 5)
    model(x).sum().backward()
    opt.step()


if __name__ == "__main__":
    mp.spawn(worker, nprocs=1)
