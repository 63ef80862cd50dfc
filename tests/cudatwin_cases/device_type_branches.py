"""A GPU script that keeps its device *type* in a variable and branches on it (written for the
device-type consistency test). The original, on the CUDA twin, takes the CUDA branches; after
`apply`, on the NPU stand-in, the migrated script must take the same ones: the value assigned to
`device_type` and the strings it is compared with must be rewritten together."""
import argparse
import json
from contextlib import nullcontext

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("facts", nargs="?", help="where to write the branches taken (JSON)")
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
device = args.device
device_type = "cuda" if "cuda" in device else "cpu"
ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type=device_type, dtype=torch.bfloat16)


def build_optimizer(model, lr, amp_device_type):
    fused = amp_device_type == "cuda"
    return torch.optim.AdamW(model.parameters(), lr=lr, fused=fused), fused


def main(facts_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    optimizer, fused = build_optimizer(model, 1e-2, device_type)
    pin = device_type == "cuda"
    if facts_path:  # before training: smoke ends the run after its steps
        with open(facts_path, "w") as f:
            json.dump({"fused": fused, "pin": pin, "autocast": not isinstance(ctx, nullcontext)}, f)
    for _ in range(4):
        x = torch.randn(16, 8).pin_memory() if pin else torch.randn(16, 8)
        with ctx:
            loss = model(x.to(device)).pow(2).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main(args.facts)
