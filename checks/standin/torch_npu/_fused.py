"""torch_npu's fused operators, reference math on the CPU: what `npu-migrate profile` suggests
(checks/profile/fusion.py) must run here so a rewritten script smoke-runs and validates.

Each function follows the docstring of the same API in torch_npu 2.14.0's `torch_npu/_op_plugin_docs.py`
(formula) and its signature in `torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml`. What the
reference cannot honour (varlen / sparse attention modes, a `rotate` matrix with grads) raises
NotEmulatedError rather than computing something else.
"""
from __future__ import annotations

import torch
from torch.nn import functional as F
from torch_npu._surface import NotEmulatedError


def npu_rms_norm(self, gamma, epsilon=1e-06):
    """y = x * rsqrt(mean(x**2 over gamma's dims) + epsilon) * gamma; returns (y, rstd)."""
    dims = tuple(range(-gamma.dim(), 0))
    rstd = torch.rsqrt(self.pow(2).mean(dim=dims, keepdim=True) + epsilon)
    return self * rstd * gamma, rstd


def npu_rotary_mul(self, r1, r2, rotary_mode="half", rotate=None):
    """output = r1 * input + r2 * x_new; half: x_new = cat((-x2, x1), -1) with x1, x2 = chunk(input, 2, -1);
    interleave: pairs (x[2i], x[2i+1]) -> (-x[2i+1], x[2i]); with `rotate`: x_new = input @ rotate."""
    if rotate is not None:
        x_new = self @ rotate
    elif rotary_mode == "half":
        x1, x2 = torch.chunk(self, 2, -1)
        x_new = torch.cat((-x2, x1), dim=-1)
    elif rotary_mode == "interleave":
        x1, x2 = self[..., ::2], self[..., 1::2]
        x_new = torch.stack((-x2, x1), dim=-1).flatten(-2)
    else:
        raise ValueError(f"npu_rotary_mul: rotary_mode must be 'half' or 'interleave', not {rotary_mode!r}")
    return r1 * self + r2 * x_new


def npu_swiglu(self, dim=-1):
    """swiglu(x, dim) = swish(A) * B = A * sigmoid(A) * B, A and B the halves of x along dim."""
    a, b = torch.chunk(self, 2, dim=dim)
    return F.silu(a) * b


def npu_confusion_transpose(self, perm, shape, transpose_first):
    """transpose_first: permute(perm) then reshape(shape); else reshape(shape) then permute(perm)."""
    if transpose_first:
        return self.permute(*perm).reshape(*shape)
    return self.reshape(*shape).permute(*perm)


_LAYOUTS = {"BNSD": "bnsd", "BSND": "bsnd", "BSH": "bsh", "SBH": "sbh"}


def _to_bnsd(t, layout, heads):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, heads, h // heads).transpose(1, 2)
    s, b, h = t.shape  # SBH
    return t.reshape(s, b, heads, h // heads).permute(1, 2, 0, 3)


def _from_bnsd(t, layout):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    b, n, s, d = t.shape
    if layout == "BSH":
        return t.transpose(1, 2).reshape(b, s, n * d)
    return t.permute(2, 0, 1, 3).reshape(s, b, n * d)  # SBH


def npu_fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None, atten_mask=None,
                         scale=1.0, keep_prob=1.0, pre_tockens=2147483647, next_tockens=2147483647, inner_precise=0,
                         prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                         gen_mask_parallel=True, sync=False, softmax_layout="", sink=None, dropout_mask=None,
                         seed=0, offset=0):
    """y = Softmax(Mask(scale * (pse + query @ key^T), atten_mask)), attention = Dropout(y, keep_prob) @ value;
    atten_mask True (or 1) masks a position out. Returns (attention_out, softmax_max, softmax_sum,
    softmax_out, seed, offset, numels) like the real op; only attention_out is meaningful here."""
    if input_layout not in _LAYOUTS:
        raise NotEmulatedError(f"torch_npu.npu_fusion_attention: input_layout {input_layout!r} is not emulated "
                               "(BNSD, BSND, BSH, SBH are)")
    if (sparse_mode not in (0, 1) or prefix is not None or actual_seq_qlen is not None
            or actual_seq_kvlen is not None or sink is not None or padding_mask is not None
            or pre_tockens != 2147483647 or next_tockens != 2147483647):
        raise NotEmulatedError("torch_npu.npu_fusion_attention: sparse modes, varlen, prefix, sink and "
                               "pre/next_tockens bands are not emulated")
    q, k, v = (_to_bnsd(t, input_layout, head_num) for t in (query, key, value))
    if k.shape[1] != q.shape[1]:  # grouped-query attention: key/value heads shared
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    scores = q @ k.transpose(-2, -1)
    if pse is not None:
        scores = scores + pse
    scores = scores * scale
    if atten_mask is not None:
        scores = scores.masked_fill(atten_mask.bool(), float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    if keep_prob < 1.0:
        probs = F.dropout(probs, p=1.0 - keep_prob, training=True)
    out = _from_bnsd(probs @ v, input_layout)
    empty = query.new_empty(0)
    return out, empty, empty, empty, seed, offset, 0


def fast_gelu(self):
    """x / (1 + exp(-1.702 x)): formula 2 of `npu_fast_gelu`'s docstring (Atlas A2/A3), which reproduces
    `fast_gelu`'s own example (0.5991 -> 0.4403); an approximation of gelu, not gelu itself."""
    return self * torch.sigmoid(1.702 * self)


def npu_add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False):
    """x = x1 + x2, y = layer_norm(x) over gamma's dims; returns (y, mean, rstd, x). The wheel has no
    docstring for it: the math is what its name and signature say (codegen yaml)."""
    x = x1 + x2
    dims = tuple(range(-gamma.dim(), 0))
    mean = x.mean(dim=dims, keepdim=True)
    rstd = torch.rsqrt(x.var(dim=dims, unbiased=False, keepdim=True) + epsilon)
    return (x - mean) * rstd * gamma + beta, mean, rstd, x


def npu_group_norm_silu(input, weight, bias, group, eps=1e-05):
    """silu(group_norm(input, group, weight, bias, eps)); returns (out, mean (N, group), rstd (N, group))."""
    n = input.shape[0]
    grouped = input.reshape(n, group, -1)
    mean = grouped.mean(dim=-1)
    rstd = torch.rsqrt(grouped.var(dim=-1, unbiased=False) + eps)
    return F.silu(F.group_norm(input, group, weight, bias, eps)), mean, rstd


def npu_scaled_masked_softmax(x, mask, scale=1.0, fixed_triu_mask=False):
    """softmax(x * scale) with the positions where mask is True masked out; fixed_triu_mask: the mask is
    the upper triangle (above the diagonal) generated by the op."""
    if fixed_triu_mask:
        h, w = x.shape[-2:]
        mask = torch.ones(h, w, dtype=torch.bool, device=x.device).triu(1)
    return torch.softmax((x * scale).masked_fill(mask.bool(), float("-inf")), dim=-1)
