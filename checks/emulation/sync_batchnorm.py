"""SyncBatchNorm on the emulated devices (torch_npu stand-in, CUDA twin), where tensors live on the CPU.

torch's SyncBatchNorm refuses CPU input ("expected input tensor to be on GPU", and DDP: "SyncBatchNorm
layers only work with GPU modules") and its kernels (batch_norm_stats, batch_norm_gather_stats...)
have no CPU implementation. On an NPU it runs over HCCL. Here a training-mode forward on CPU input
with more than one rank computes the batch statistics over every rank of the group: per-channel sum,
sum of squares and count, summed with the differentiable all_reduce of torch.distributed.nn (its
backward sums the gradients across ranks, as SyncBatchNorm's own backward does), then normalises
and updates the running statistics (unbiased variance) as torch's does. Everything else (eval, one
rank, no process group, device input) is torch's own forward. Numerics: float32 sums, so the last
bits may differ from the device kernel's Welford reduction; both sides of validate use this one.

Runs inside a smoke child only (imports torch); installed by checks.emulation.devicemap.patch_distributed.
"""
from __future__ import annotations

import functools

import torch


def install(ddp_class) -> None:
    bn = torch.nn.SyncBatchNorm
    orig_forward = bn.forward

    @functools.wraps(orig_forward)
    def forward(self, input):
        if input.device.type == "cpu" and _needs_sync(self):
            return _forward_over_ranks(self, input)
        return orig_forward(self, input)

    bn.forward = forward
    # DDP refuses SyncBatchNorm in a CPU module; the forward above is what makes it work here.
    from checks.emulation import compat

    name = compat.DDP_SYNC_BATCHNORM_CHECK
    if hasattr(ddp_class, name):
        setattr(ddp_class, name, lambda self, module: None)


def _needs_sync(module) -> bool:
    import torch.distributed as dist

    if not (module.training and dist.is_available() and dist.is_initialized()):
        return False
    return dist.get_world_size(module.process_group or dist.group.WORLD) > 1


def _forward_over_ranks(module, input):
    import torch.distributed as dist
    from torch.distributed.nn import functional as dist_nn

    module._check_input_dim(input)
    module._check_non_zero_input_channels(input)
    factor = 0.0 if module.momentum is None else module.momentum
    if module.track_running_stats:
        module.num_batches_tracked.add_(1)
        if module.momentum is None:
            factor = 1.0 / module.num_batches_tracked.item()
    channels = input.size(1)
    dims = [0, *range(2, input.dim())]
    compute = input.float()
    count = torch.full((1,), compute.numel() // channels, dtype=torch.float32)
    local = torch.cat([compute.sum(dims), (compute * compute).sum(dims), count])
    total = dist_nn.all_reduce(local, op=dist.ReduceOp.SUM, group=module.process_group or dist.group.WORLD)
    n = total[-1]
    mean = total[:channels] / n
    var = (total[channels:2 * channels] / n - mean * mean).clamp_min(0)
    shape = [1, channels] + [1] * (input.dim() - 2)
    out = (compute - mean.view(shape)) * torch.rsqrt(var.view(shape) + module.eps)
    if module.weight is not None:
        out = out * module.weight.view(shape) + module.bias.view(shape)
    if module.track_running_stats and module.running_mean is not None:
        with torch.no_grad():
            unbiased = var * n / (n - 1).clamp_min(1)
            module.running_mean.mul_(1 - factor).add_(mean.detach(), alpha=factor)
            module.running_var.mul_(1 - factor).add_(unbiased.detach(), alpha=factor)
    return out.to(input.dtype)
