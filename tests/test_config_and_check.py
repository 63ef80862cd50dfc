"""pyproject configuration, the `check` gate, baselines and start-up cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from migrate.config import ConfigError, load_config
from migrate.findings import Severity
from tests.helpers import ROOT, invoke_cli

SCRIPT = "import torch\nx = torch.ones(1).cuda()\ntorch.backends.cudnn.benchmark = True\n"


def test_config_is_read_from_pyproject(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.npu-migrate]\nignore = ["NPU2"]\nselect = ["NPU"]\nfail-on = "warning"\n'
        'exclude = ["legacy"]\ntorch-npu-version = "2.13.0"\n[tool.npu-migrate.per-file-ignores]\n"tests/*" = ["NPU1"]\n'
    )
    config = load_config([str(tmp_path)])
    assert config.ignore == ("NPU2",) and config.fail_on is Severity.WARNING
    assert config.exclude == ("legacy",) and config.torch_npu_version == "2.13.0"
    assert not config.is_selected("NPU101", "tests/test_x.py") and config.is_selected("NPU101", "src/x.py")


def test_bad_config_is_a_clear_usage_error(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.npu-migrate]\nselect = ["E501"]\n')
    with pytest.raises(ConfigError, match="not an NPU code"):
        load_config([str(tmp_path)])
    (tmp_path / "x.py").write_text(SCRIPT)
    proc = invoke_cli("check", str(tmp_path))
    assert proc.returncode == 2 and b"not an NPU code" in proc.stderr and b"Traceback" not in proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.npu-migrate]\nunknown-key = 1\n')
    assert invoke_cli("check", str(tmp_path)).returncode == 2


def test_check_gate_fail_on_levels(tmp_path: Path):
    (tmp_path / "x.py").write_text("import torch\ntorch.backends.cudnn.benchmark = True\n")
    info_only = invoke_cli("check", str(tmp_path))
    assert info_only.returncode == 0, info_only.stdout
    assert invoke_cli("check", "--fail-on", "info", str(tmp_path)).returncode == 1
    (tmp_path / "x.py").write_text(SCRIPT)
    assert invoke_cli("check", str(tmp_path)).returncode == 1
    assert invoke_cli("check", "--ignore", "NPU1", str(tmp_path)).returncode == 0


def test_baseline_accepts_known_findings_and_fails_new_ones(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "x.py").write_text(SCRIPT)
    baseline = tmp_path / "baseline.json"
    created = invoke_cli("check", "--baseline", str(baseline), str(src))
    assert baseline.exists() and created.returncode == 1
    assert invoke_cli("check", "--baseline", str(baseline), str(src)).returncode == 0
    # unrelated lines above the known finding do not make it new
    (src / "x.py").write_text("# header\n\n" + SCRIPT)
    assert invoke_cli("check", "--baseline", str(baseline), str(src)).returncode == 0
    (src / "x.py").write_text("# header\n\n" + SCRIPT + "y = torch.zeros(1).cuda()\n")
    proc = invoke_cli("check", "--baseline", str(baseline), "--format", "json", str(src))
    assert proc.returncode == 1
    assert [f["line"] for f in json.loads(proc.stdout)["findings"]] == [6]
    baseline.write_text("not json")
    assert invoke_cli("check", "--baseline", str(baseline), str(src)).returncode == 2


def test_check_never_prompts_without_a_terminal(tmp_path: Path):
    (tmp_path / "x.py").write_text(SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "migrate", "check", str(tmp_path)], stdin=subprocess.DEVNULL,
                          capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1


def test_version_does_not_import_heavy_modules():
    code = "import sys; from migrate.cli import main; rc = main(['--version']); heavy = [m for m in ('torch', 'libcst', 'rich', 'yaml') if m in sys.modules]; print(heavy); sys.exit(rc)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode().strip().endswith("[]"), proc.stdout


def test_static_side_never_imports_torch(tmp_path: Path):
    (tmp_path / "x.py").write_text(SCRIPT)
    code = (
        "import sys\nfrom migrate.engine import scan\nfrom migrate.rewrite import *\n"
        f"scan([{str(tmp_path)!r}], use_cache=False, jobs=1)\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
