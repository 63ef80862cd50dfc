"""The inserted ConfigChecker hooks really run (msprobe on the CPU) and write the config pack."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

from migrate.rewrite import instrument_source
from tests.helpers import run_python

SCRIPT = '''import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    model.to("cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(16, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("trained")


if __name__ == "__main__":
    main()
'''


@pytest.mark.runtime
@pytest.mark.skipif(importlib.util.find_spec("msprobe") is None or importlib.util.find_spec("torch") is None,
                    reason="needs torch and msprobe (mindstudio-probe)")
def test_instrumented_script_writes_the_config_pack(tmp_path: Path):
    result = instrument_source(SCRIPT, zip_path="./gpu_config_pack.zip")
    assert result.model_found
    (tmp_path / "train_cc.py").write_text(result.text)
    proc = run_python("train_cc.py", cwd=tmp_path, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "trained" in proc.stdout
    with zipfile.ZipFile(tmp_path / "gpu_config_pack.zip") as pack:
        names = pack.namelist()
    assert "env" in names and any(n.startswith("weights/step") for n in names)
