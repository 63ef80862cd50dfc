"""GPU-only libraries behind an option that is off by default (issue 31): warnings that name the
option, marked optional, and apply does not exit 1 for them; the same code without such a guard, in
the `else` branch, or behind an option that is on by default stays an error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import invoke_cli

SCRIPT = '''import argparse
from dataclasses import dataclass, field

import torch
from diffusers import UNet2DConditionModel

p = argparse.ArgumentParser()
p.add_argument("--use-xformers", action="store_true")
p.add_argument("--fused", default=True)
args = p.parse_args()


@dataclass
class Config:
    apex: bool = field(default=False)


cfg = Config()
unet = UNet2DConditionModel()
if args.use_xformers and torch.cuda.is_available():
    unet.enable_xformers_memory_efficient_attention()
if cfg.apex:
    from apex import amp
else:
    import xformers
if args.fused:
    from apex.optimizers import FusedAdam
'''


def _findings(tmp_path: Path, source: str) -> dict[int, dict]:
    script = tmp_path / "train.py"
    script.write_text(source)
    proc = invoke_cli("analyze", str(script), "--format", "json", "--no-cache")
    return {f["line"]: f for f in json.loads(proc.stdout)["findings"] if f["code"] in ("NPU501", "NPU503", "NPU404", "NPU507")}


def test_gpu_only_libraries_behind_default_off_options_are_optional_warnings(tmp_path: Path):
    found = _findings(tmp_path, SCRIPT)
    assert found[21]["severity"] == "warning" and found[21].get("optional") is True
    assert "only when `args.use_xformers` is set, off by default (line 8)" in found[21]["message"]
    assert found[23]["severity"] == "warning" and "`cfg.apex` is set, off by default (line 15)" in found[23]["message"]
    for line in (25, 27):  # the else branch; an option on by default
        assert found[line]["severity"] == "error" and "optional" not in found[line], found[line]


def test_apply_does_not_exit_1_for_optional_items_only(tmp_path: Path):
    optional_only = SCRIPT.split("else:\n")[0]
    _findings(tmp_path, optional_only)
    out = tmp_path / "out"
    proc = invoke_cli("apply", str(tmp_path / "train.py"), "-o", str(out), "--no-config-check")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "NPU503" in proc.stderr.decode()  # still listed for a person
    (tmp_path / "train.py").write_text(SCRIPT)
    proc = invoke_cli("apply", str(tmp_path / "train.py"), "-o", str(tmp_path / "out2"), "--no-config-check")
    assert proc.returncode == 1  # the unguarded ones still fail it
