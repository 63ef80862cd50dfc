"""Ops autocast runs in float32 on the device (Pytorch-UNet's dice loss: F.softmax of float16 logits inside
autocast is float32 on CUDA): the dtypes they give in an autocast region, written to argv[1]."""
import json
import sys

import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Conv2d(3, 2, 3).to(device)
x = torch.randn(2, 3, 8, 8, device=device)
with torch.autocast(device_type=device):
    logits = model(x)  # float16: a lower-precision op
    seen = {"logits": logits.dtype, "softmax": F.softmax(logits, dim=1).dtype,
            "softmax_named": F.softmax(logits, dim=1, dtype=torch.float16).dtype,
            "log_softmax": F.log_softmax(logits, dim=1).dtype, "exp": logits.exp().dtype,
            "sum": logits.sum().dtype, "cumsum": logits.cumsum(1).dtype, "pow": logits.pow(2).dtype,
            "layer_norm": F.layer_norm(logits, logits.shape[-1:]).dtype, "relu": F.relu(logits).dtype,
            "mse_loss": F.mse_loss(logits, logits.detach()).dtype}
json.dump({k: str(v).replace("torch.", "") for k, v in seen.items()}, open(sys.argv[1], "w"))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):  # the smoke stops at its steps: the facts are written before
    with torch.autocast(device_type=device):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
