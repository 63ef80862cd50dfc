"""Hand-written ops torch_npu has fused kernels for (a LLaMA-style block, a GroupNorm + SiLU): each line where a chance
starts carries `# PITFALL: fusion` and `FUSED: <api>`. Adagrad has no fused torch_npu optimizer, so
the only findings are the fusion chances. `FUSED_REWRITE=1` runs the same model with the fused APIs
(tests compare the two numerically)."""
import math
import os

import torch
import torch_npu
from torch import nn
from torch.nn import functional as F

REWRITE = os.environ.get("FUSED_REWRITE") == "1"


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        if REWRITE:
            return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]
        variance = x.pow(2).mean(-1, keepdim=True)  # PITFALL: fusion  FUSED: torch_npu.npu_rms_norm
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]  # PITFALL: fusion  FUSED: torch_npu.npu_rotary_mul
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q, cos, sin):
    if REWRITE:
        return torch_npu.npu_rotary_mul(q, cos, sin)
    return (q * cos) + (rotate_half(q) * sin)


class Block(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(2 * dim, dim, bias=False)

    def forward(self, x, cos, sin, masked):
        b, s, d = x.shape
        h = self.norm1(x)
        q, k, v = self.qkv(h).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4).unbind(0)  # PITFALL: fusion  FUSED: torch_npu.npu_confusion_transpose
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scale = 1.0 / math.sqrt(self.head_dim)
        if REWRITE:
            o = torch_npu.npu_fusion_attention(q, k, v, self.heads, "BNSD", atten_mask=masked, scale=scale)[0]
        else:
            scores = torch.matmul(q, k.transpose(-2, -1)) * scale  # PITFALL: fusion  FUSED: torch_npu.npu_fusion_attention
            scores.masked_fill_(masked, float("-inf"))
            o = torch.matmul(F.softmax(scores, dim=-1), v)
        x = x + self.proj(o.transpose(1, 2).reshape(b, s, d))  # PITFALL: fusion  FUSED: torch_npu.npu_confusion_transpose
        h = self.norm2(x)
        if REWRITE:
            return x + self.down(torch_npu.npu_swiglu(self.up(h), dim=-1))
        gate, up = self.up(h).chunk(2, dim=-1)  # PITFALL: fusion  FUSED: torch_npu.npu_swiglu
        return x + self.down(F.silu(gate) * up)


def main():
    device = torch.device("npu:0")
    torch.manual_seed(0)
    dim, seq, heads = 32, 16, 4
    model = nn.ModuleList([Block(dim, heads), nn.Linear(dim, 8), nn.GroupNorm(4, seq)]).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-2)
    pos = torch.arange(seq, dtype=torch.float32)
    freqs = torch.outer(pos, 1.0 / (10000 ** (torch.arange(0, dim // heads, 2) / (dim // heads))))
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[None, None].to(device), emb.sin()[None, None].to(device)
    masked = ~torch.tril(torch.ones(seq, seq, dtype=torch.bool, device=device))  # True: masked out (causal)
    data = torch.randn(64, 4, seq, dim)
    target = torch.randint(0, 8, (64, 4, seq))
    losses = []
    for step in range(int(os.environ.get("FUSED_STEPS", "64"))):
        x, y = data[step % 64].to(device), target[step % 64].to(device)
        h = model[0](x, cos, sin, masked)
        gn = model[2]  # (batch, seq, dim): the sequence positions as GroupNorm's channels
        if REWRITE:
            h = torch_npu.npu_group_norm_silu(h, gn.weight, gn.bias, gn.num_groups, gn.eps)[0]
        else:
            h = F.silu(gn(h))  # PITFALL: fusion  FUSED: torch_npu.npu_group_norm_silu
        out = model[1](h)
        loss = F.cross_entropy(out.reshape(-1, 8), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    print("losses", " ".join(f"{v:.6f}" for v in torch.stack(losses).tolist()))


if __name__ == "__main__":
    main()
