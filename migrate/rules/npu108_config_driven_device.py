import ast
import functools

from migrate.findings import Category, Severity
from migrate.rules.base import Invalid, Rule

_LIGHTNING = ("lightning", "pytorch_lightning")
_TRAINERS = ("lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer", "lightning.pytorch.trainer.trainer.Trainer",
             "pytorch_lightning.Trainer", "pytorch_lightning.trainer.Trainer", "pytorch_lightning.trainer.trainer.Trainer",
             "lightning.Trainer", "lightning.fabric.Fabric", "lightning.Fabric")


class ConfigDrivenDevice(Rule):
    """The device of a config-driven app is chosen at run time, not in its Python: a `@hydra.main`
    entry reads it from YAML (`accelerator: gpu`, `device: cuda`, NPU107), `LightningCLI(...)` from
    its config file, and a Lightning `Trainer` / `Fabric` built without a literal accelerator
    (none given: `auto`, or `accelerator=cfg.accelerator`, `**cfg.trainer`) picks CUDA when
    `torch.cuda.is_available()`. Nothing in such a file names CUDA, yet on an Ascend host the run
    silently falls back to the CPU (Lightning `auto`) or fails (`gpu`). Reported for information;
    what it changes is apply's structural step: a file with this finding that is the entry module
    gets `import torch_npu` and `from torch_npu.contrib import transfer_to_npu` (torch.cuda is then
    served by the NPU), as a file with CUDA calls does. On a Lightning / Fabric file the message also
    says what that port needs: Lightning's CUDA accelerator unpacks `torch.cuda.get_device_capability()`,
    which torch_npu returns as None unless TORCH_NPU_DEVICE_CAPABILITY is set (source and measurement
    in knowledge/data/config_device_keys.toml, `accelerator: gpu`; measured again on
    Lightning-AI/pytorch-lightning@7f0c343 examples/fabric/image_classifier/train_fabric.py: `Fabric()`
    under the stand-in fails in `fabric.setup` with "cannot unpack non-iterable NoneType object" and
    trains with the variable set).

    A Lightning file that names Lightning's CUDA accelerator as a literal, `Trainer(accelerator="gpu")`,
    `trainer_defaults={"accelerator": "cuda"}`, `add_argument("--accelerator", default="gpu")`, is reported
    here too, as a warning: a device choice, as NPU107 reads `accelerator: gpu` in a Trainer YAML (the same
    data, knowledge/data/config_device_keys.toml, with its source), not a GPU-only library (label ruling (L25)).
    On an Ascend host it runs with transfer_to_npu in the entry module and TORCH_NPU_DEVICE_CAPABILITY set,
    or with a registered NPU Accelerator. Lightning 1.x's `gpus=N` and `accelerator="ddp"` (a multi-GPU
    mode) stay NPU503."""

    CODE = "NPU108"
    NAME = "config-driven-device"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.INFO
    MESSAGE = "the device is chosen by configuration at run time"
    TRIGGERS = ("hydra", "LightningCLI", "Trainer", "Fabric", "accelerator")
    VALID = [
        'import lightning as L\ntrainer = L.Trainer(accelerator="cpu")',
        'import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="cpu", devices=1)',
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--accelerator", default="gpu")',  # not Lightning's
        "from transformers import Trainer\ntrainer = Trainer(model=m, args=a)",  # not Lightning's
        "import hydra\ncfg = hydra.compose(config_name='x')",
        "def main(cfg):\n    pass",
    ]
    INVALID = [
        Invalid(
            'import hydra\n@hydra.main(version_base=None, config_path="../configs", config_name="train")\n'
            'def main(cfg):\n    train(cfg)\nif __name__ == "__main__":\n    main()',
            count=1,
        ),
        Invalid("from lightning.pytorch.cli import LightningCLI\ndef cli_main():\n    LightningCLI(Model, Data)", count=1),
        Invalid(
            "import pytorch_lightning as pl\nfrom lightning import Trainer\nt = pl.Trainer(max_epochs=3)\n"
            "t2 = Trainer(**cfg.trainer)\nt3 = pl.Trainer(accelerator=cfg.accelerator)\nt4 = pl.Trainer(accelerator='auto')",
            count=4,
        ),
        Invalid('import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="gpu", devices=1)', count=1),
        Invalid('import lightning\nt = lightning.Trainer(\n    accelerator="cuda",\n    devices=-1,\n)', count=1),
        Invalid('import argparse\nimport pytorch_lightning as pl\np = argparse.ArgumentParser()\n'
                'p.add_argument("--accelerator", default="gpu", type=str)', count=1),
        Invalid('from lightning.pytorch.cli import LightningCLI\ndef main():\n    LightningCLI(\n        M,\n'
                '        trainer_defaults={"accelerator": "gpu", "devices": 1},\n    )', count=2),
    ]

    def check(self, ctx):
        roots = {v.split(".", 1)[0] for v in ctx.imports.values()}
        if "hydra" in roots:
            for func in ctx.nodes.get(ast.FunctionDef, ()):
                for decorator in func.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if ctx.qualname(target) == "hydra.main":
                        yield self.finding(ctx, decorator, f"{self.MESSAGE} (`@hydra.main`: the config files choose it)")
        if not roots.intersection(_LIGHTNING + ("lightning_fabric",)):
            return
        yield from self._gpu_accelerators(ctx)
        for call in ctx.nodes.get(ast.Call, ()):
            name = ctx.qualname(call.func) or ""
            if name.split(".", 1)[0] not in _LIGHTNING:
                continue
            if name.endswith(".LightningCLI"):
                yield self.finding(ctx, call, f"{self.MESSAGE} (`LightningCLI`: its config file and flags choose it){_CAPABILITY}")
            elif name in _TRAINERS and _accelerator_at_run_time(ctx, call):
                yield self.finding(ctx, call, f"{self.MESSAGE} (Lightning picks CUDA when torch.cuda is available: "
                                              f"accelerator not given, `auto` or computed){_CAPABILITY}")


    def _gpu_accelerators(self, ctx):
        """`accelerator="gpu"` / `"cuda"` as a call's keyword, a dict entry, an assigned key or attribute
        (`cfg["accelerator"] = "gpu"`, `args.accelerator = "gpu"`), an annotated default or an argparse
        `--accelerator` default, in a file importing Lightning."""
        setting = _gpu_accelerator_setting()
        if setting is None:
            return
        values: list[ast.AST] = []
        for call in ctx.nodes.get(ast.Call, ()):
            values.extend(k.value for k in call.keywords if k.arg == "accelerator")
            if isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument" \
                    and any(ctx.string_value(a) == "--accelerator" for a in call.args):
                default = ctx.keyword(call, "default")
                if default is not None:
                    values.append(default)
        for node in ctx.nodes.get(ast.Dict, ()):
            values.extend(v for k, v in zip(node.keys, node.values)
                          if isinstance(k, ast.Constant) and k.value == "accelerator")
        for node in ctx.nodes.get(ast.Assign, ()):
            for target in node.targets:
                key = target.attr if isinstance(target, ast.Attribute) else (
                    target.slice.value if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) else None)
                if key == "accelerator":
                    values.append(node.value)
        for node in ctx.nodes.get(ast.AnnAssign, ()):
            if isinstance(node.target, ast.Name) and node.target.id == "accelerator" and node.value is not None:
                values.append(node.value)
        for value in values:
            text = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
            if text is not None and text.lower() in setting.values:
                yield self.finding(ctx, value, f"Lightning's `accelerator=\"{text}\"` chooses the CUDA device ({setting.why}); "
                                               f"NPU: {setting.alternative}", severity=setting.severity)


@functools.lru_cache(maxsize=1)
def _gpu_accelerator_setting():
    """NPU107's Lightning `accelerator: gpu` / `cuda` setting (knowledge/data/config_device_keys.toml)."""
    from migrate.rules.npu107_config_file_gpu import config_settings

    settings, _ = config_settings()
    return next((s for s in settings if s.key == "accelerator" and s.family == "lightning"), None)


# what a Lightning / Fabric app needs on an Ascend host once transfer_to_npu serves torch.cuda
_CAPABILITY = ("; on the NPU (transfer_to_npu) run it with TORCH_NPU_DEVICE_CAPABILITY set, e.g. "
               "`export TORCH_NPU_DEVICE_CAPABILITY=8.0`: Lightning's CUDA accelerator unpacks "
               "torch.cuda.get_device_capability(), which torch_npu returns as None otherwise")


def _accelerator_at_run_time(ctx, call: ast.Call) -> bool:
    if any(k.arg is None for k in call.keywords):
        return True  # `**cfg.trainer`
    value = ctx.keyword(call, "accelerator")
    if value is None:
        return True  # Lightning's default is "auto"
    text = ctx.string_value(value)
    return text is None or text == "auto"
