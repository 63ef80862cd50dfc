"""A DCGAN-like loop that draws its noise on the device (pytorch/examples dcgan/main.py's shape): the draws on
the device must leave the CPU generator alone, as on a real GPU, so that the DataLoader shuffles the same order.
Writes the facts to argv[1]."""
import json
import sys

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(7)
probe = torch.Generator().manual_seed(7)  # the CPU stream as it would be without any draw on the device
net = torch.nn.Linear(4, 2)  # initialised on the CPU: draws from the CPU stream, as on a GPU host
torch.rand(8, generator=probe), torch.rand(2, generator=probe)  # as much as Linear's init draws (weight 8, bias 2)
expected = torch.randperm(8, generator=probe).tolist()
net = net.to(device)
torch.nn.init.normal_(net.weight, 0.0, 0.02)  # in place, on the device: the device's generator
noise = torch.randn(16, 4, device=device)  # a factory given the device: the device's generator
order = torch.randperm(8).tolist()  # a sampler's shuffle: the CPU generator
state = torch.cuda.get_rng_state()
again = torch.randn(2, device=device)
torch.cuda.set_rng_state(state)
json.dump({"order": order, "expected": expected, "device_replays": bool(torch.equal(again, torch.randn(2, device=device))),
           "seeded_like_torch": bool(torch.cuda.initial_seed() == 7)}, open(sys.argv[1], "w"))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):  # the smoke stops at its steps: the facts are written before
    loss = net(noise).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
