"""A GPU chosen in configuration files (Hydra / Lightning / Accelerate YAML) and a config-driven entry
module (issue 31, item 7): analyze finds the settings, apply rewrites the values it can (only the value
changes: comments and layout stay byte for byte) and adds `transfer_to_npu` to the entry module even
though no line of it names CUDA."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import invoke_cli

TRANSFER = "from torch_npu.contrib import transfer_to_npu"
FILES = {
    # lightning-hydra-template's shape: src/train.py reads configs/ two folders up
    "src/train.py": (
        "import hydra\nimport lightning as L\n\n\n"
        '@hydra.main(version_base="1.3", config_path="../configs", config_name="train.yaml")\n'
        "def main(cfg):\n    trainer = hydra.utils.instantiate(cfg.trainer)\n    trainer.fit(hydra.utils.instantiate(cfg.model))\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    ),
    "src/cli.py": "from lightning.pytorch.cli import LightningCLI\n\nfrom model import Net\n\nLightningCLI(Net)\n",
    "src/model.py": "import lightning as L\n\n\nclass Net(L.LightningModule):\n    pass\n",
    "configs/train.yaml": "defaults:\n  - trainer: gpu\n  - _self_\n\nseed: 12\n",
    "configs/trainer/gpu.yaml": "defaults:\n  - default\n\n# the GPU trainer\naccelerator: gpu\ndevices: 1\n",
    "configs/trainer/ddp.yaml": (
        "defaults:\n  - default\n\nstrategy:\n  _target_: lightning.pytorch.strategies.DDPStrategy\n"
        "  process_group_backend:   nccl    # NCCL all-reduce\naccelerator: cpu\n"
    ),
    "accelerate_config.yaml": "compute_environment: LOCAL_MACHINE\ndistributed_type: 'MULTI_GPU'  # 8 GPUs\r\ngpu_ids: all\n",
}


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())
    return root


def test_analyze_finds_gpu_settings_in_yaml_and_the_config_driven_entry(tmp_path: Path):
    root = _project(tmp_path)
    proc = invoke_cli("analyze", str(root), "--format", "json")
    found = {(Path(f["path"]).relative_to(root).as_posix(), f["line"], f["code"], f["severity"])
             for f in json.loads(proc.stdout)["findings"] if f["code"] in ("NPU107", "NPU108")}
    assert found == {
        ("configs/trainer/gpu.yaml", 5, "NPU107", "warning"),  # Lightning has no NPU accelerator: by hand
        ("configs/trainer/ddp.yaml", 6, "NPU107", "error"),
        ("accelerate_config.yaml", 2, "NPU107", "error"),
        ("src/train.py", 5, "NPU108", "info"),
        ("src/cli.py", 5, "NPU108", "info"),
    }


def test_apply_rewrites_only_the_values_and_adds_transfer_to_the_entry_modules(tmp_path: Path):
    root = _project(tmp_path)
    out = tmp_path / "out"
    proc = invoke_cli("apply", str(root), "-o", str(out), "--no-config-check")
    assert proc.returncode == 1, proc.stderr.decode()  # the Lightning `accelerator: gpu` is left to a person
    read = {name: (out / name).read_bytes() for name in FILES}
    assert read["configs/trainer/ddp.yaml"] == FILES["configs/trainer/ddp.yaml"].replace("   nccl ", "   hccl ").encode()
    assert read["accelerate_config.yaml"] == FILES["accelerate_config.yaml"].replace("'MULTI_GPU'", "'MULTI_NPU'").encode()
    assert read["configs/trainer/gpu.yaml"] == FILES["configs/trainer/gpu.yaml"].encode()
    assert "NPU107" in proc.stderr.decode() and "transfer_to_npu" in proc.stderr.decode()
    for entry in ("src/train.py", "src/cli.py"):
        assert TRANSFER in read[entry].decode(), entry
    assert read["src/model.py"] == FILES["src/model.py"].encode()  # a library module with no device choice


def test_a_lightning_app_is_told_the_capability_variable_its_port_needs(tmp_path: Path):
    """Lightning-AI/pytorch-lightning examples/fabric/image_classifier/train_fabric.py: `Fabric()` picks
    CUDA under transfer_to_npu and dies in `fabric.setup` on torch_npu's None capability unless
    TORCH_NPU_DEVICE_CAPABILITY is set; the finding on it must say so (a Hydra entry need not)."""
    root = _project(tmp_path)
    (root / "src" / "fabric_app.py").write_text("from lightning.fabric import Fabric\n\nfabric = Fabric()\n")
    proc = invoke_cli("analyze", str(root), "--format", "json")
    messages = {Path(f["path"]).name: f["message"] for f in json.loads(proc.stdout)["findings"] if f["code"] == "NPU108"}
    for name in ("fabric_app.py", "cli.py"):
        assert "TORCH_NPU_DEVICE_CAPABILITY" in messages[name], messages
    assert "TORCH_NPU_DEVICE_CAPABILITY" not in messages["train.py"]  # @hydra.main: the YAML finding (NPU107) says it
