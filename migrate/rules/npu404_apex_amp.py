from migrate.findings import Category, Severity
from migrate.rules._device_helpers import root_name, uses
from migrate.rules.base import Invalid, Rule
from migrate.rules.npu501_gpu_only_import import fallback_guarded_names


class ApexAmp(Rule):
    """NVIDIA apex's `amp` (`amp.initialize`, `amp.scale_loss`, `amp.master_params`) is built from
    CUDA extensions and does not install or run on an Ascend host (and is deprecated on CUDA too).
    Move to native mixed precision: `torch.amp.autocast("npu")` plus torch_npu's GradScaler, or use
    Huawei's Ascend port of apex. Every use under any alias is reported (the apex import itself is
    NPU501); there is no mechanical rewrite because `amp.initialize` also changes the model and
    optimizer and `scale_loss` is a context manager. Probes of the module's dunders
    (`'state_dict' in amp.__dict__`) are not uses."""

    CODE = "NPU404"
    NAME = "apex-amp"
    CATEGORY = Category.AMP
    SEVERITY = Severity.ERROR
    MESSAGE = "apex.amp needs CUDA and does not run on an NPU host; use native AMP"
    TRIGGERS = ("apex",)
    VALID = [
        'import torch\nwith torch.autocast("npu"): pass',
        "from apex.optimizers import FusedAdam\nopt = FusedAdam(params)",  # not amp (NPU501)
        "import amp\namp.initialize(model)",  # some other amp
        "# from apex import amp\n# amp.initialize(model, opt)",
        "from apex import amp\nif 'state_dict' in amp.__dict__:\n    pass",  # a probe
        # an optional path: the handler binds a fallback (timm utils/cuda.py)
        "try:\n    from apex import amp\n    has_apex = True\nexcept ImportError:\n    amp = None\n    has_apex = False\n"
        "def backward(loss, opt):\n    with amp.scale_loss(loss, opt) as s:\n        s.backward()",
    ]
    INVALID = [
        Invalid("from apex import amp\nmodel, opt = amp.initialize(model, opt, opt_level='O1')", count=1),
        Invalid(
            "from apex import amp\nwith amp.scale_loss(loss, opt) as scaled:\n    scaled.backward()",
            count=1,
        ),
        Invalid("import apex\nmodel, opt = apex.amp.initialize(model, opt)", count=1),
        Invalid("from apex.amp import scale_loss\nwith scale_loss(loss, opt) as s: pass", count=1),
        # a handler that only warns leaves `amp` undefined: no fallback, the use is required (microsoft/LoRA)
        Invalid("try:\n    from apex import amp\nexcept ImportError:\n    warnings.warn('no apex')\n"
                "model, opt = amp.initialize(model, opt)", count=1),
    ]

    def _message(self, kb) -> str:
        if kb is not None and kb.has_api("torch.npu.amp.GradScaler"):
            scaler = "`torch.npu.amp.GradScaler`"
        else:
            scaler = '`torch.amp.GradScaler("npu")`'
        return f"{self.MESSAGE}: `torch.amp.autocast(\"npu\")` + {scaler}, or Huawei's Ascend port of apex"

    def check(self, ctx):
        message = self._message(ctx.kb)
        optional = fallback_guarded_names(ctx)
        for node, qual in uses(ctx, "apex.amp"):
            if qual.rsplit(".", 1)[-1].startswith("__"):
                continue  # `'state_dict' in amp.__dict__` asks what the module has, uses nothing (timm)
            if optional and root_name(node) in optional:
                continue  # `try: from apex import amp except ImportError: amp = None`: an optional path
            yield self.finding(ctx, node, message)
