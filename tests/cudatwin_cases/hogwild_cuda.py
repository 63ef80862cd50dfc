"""Hogwild on a GPU, unmigrated: the model is placed with .cuda() in the main process, shared, and
trained by workers started with the spawn method (argv[1]; torch.multiprocessing pickles the
parameters). A worker refuses to train a model that is no longer on the GPU, as a script checking
`p.is_cuda` would."""
import sys

import torch
import torch.multiprocessing as mp


def train(model):
    if not all(p.is_cuda for p in model.parameters()):
        raise SystemExit("model is not on the GPU in the worker")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(6):
        x, y = torch.randn(16, 8).cuda(), torch.randint(0, 2, (16,)).cuda()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    mp.set_start_method(sys.argv[1] if len(sys.argv) > 1 else "spawn", force=True)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).cuda()
    model.share_memory()
    workers = [mp.Process(target=train, args=(model,)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if any(w.exitcode for w in workers):
        raise SystemExit(f"worker exit codes {[w.exitcode for w in workers]}")
