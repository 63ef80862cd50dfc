"""torch_npu.optim on the CPU: the fused optimizers `npu-migrate profile` suggests, with their math.

torch_npu 2.14.0's `torch_npu/optim/npu_fused_adam.py` and `npu_fused_adamw.py` update one flattened
buffer per group with the same arithmetic as torch.optim.Adam / AdamW (L2 weight decay added to the
gradient / decoupled `param *= 1 - lr * weight_decay`, bias-corrected moments, `addcdiv_`), so each is
torch's optimizer with the real class's signature (no foreach / fused options). `npu_fused_sgd.py` is
torch.optim.SGD's arithmetic too: L2 weight decay added to the gradient, the first momentum buffer a copy of
that gradient, then `buf = momentum * buf + (1 - dampening) * grad`, Nesterov `grad + momentum * buf`,
`param -= lr * step`. The other NpuFused* classes exist here by name only (NotEmulatedError when used):
their math was not checked against torch's.
"""
import sys

import torch
from torch.optim.optimizer import required
from torch_npu._surface import SurfaceModule, _names


class _Fused:
    def clip_grad_norm_fused_(self, max_norm, norm_type=2):
        """NpuFusedOptimizerBase.clip_grad_norm_fused_: the gradient norm of all its parameters clipped."""
        params = [p for group in self.param_groups for p in group["params"]]
        return torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)


class NpuFusedAdam(_Fused, torch.optim.Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=False)


class NpuFusedSGD(_Fused, torch.optim.SGD):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False):
        if lr is required:  # the real class has no default learning rate (torch's Optimizer refuses the group)
            raise ValueError("parameter group didn't specify a value of required optimization parameter lr")
        super().__init__(params, lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                         nesterov=nesterov, foreach=False)


class NpuFusedAdamW(_Fused, torch.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=False)


_module = SurfaceModule(__name__, "torch_npu.optim", _names("torch_npu.optim"))
_module.__dict__.update(__file__=__file__, __doc__=__doc__)
_module._provide(NpuFusedAdam=NpuFusedAdam, NpuFusedAdamW=NpuFusedAdamW, NpuFusedSGD=NpuFusedSGD)
sys.modules[__name__] = _module
