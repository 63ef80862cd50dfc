"""`npu-migrate kb` via click's CliRunner (no torch import)."""
from __future__ import annotations

import json

from click.testing import CliRunner

from migrate.commands.kb import kb


def run(*args):
    return CliRunner().invoke(kb, list(args))


def test_ops_list():
    r = run("ops", "--torch-npu", "2.13.0")
    assert r.exit_code == 0, r.output
    assert "aten::addmm" in r.output.splitlines()
    assert "aten::_linalg_eigh" not in r.output


def test_ops_json():
    r = run("ops", "--torch-npu", "2.13", "--format", "json")
    d = json.loads(r.output)
    assert d["version"] == "2.13.0" and "addmm" in d["npu_ops"]


def test_ops_unsupported():
    r = run("ops", "--torch-npu", "2.13.0", "--unsupported")
    assert r.exit_code == 0
    assert "torch.linalg.eigh\taten::_linalg_eigh" in r.output
    apis = {line.split("\t")[0] for line in r.output.splitlines() if not line.startswith("#")}
    assert "torch.nn.utils.clip_grad_norm_" not in apis
    assert "torch.nn.functional.max_pool2d" not in apis and "torch.nn.MaxPool2d" not in apis
    d = json.loads(run("ops", "--torch-npu", "2.13.0", "--unsupported", "--format", "json").output)
    assert d["unsupported"]["torch.linalg.eigh"] == ["_linalg_eigh"]


def test_bad_version():
    r = run("ops", "--torch-npu", "1.0")
    assert r.exit_code == 2 and "known versions" in r.output
    assert run("diff", "2.1.0", "9.9").exit_code == 2


def test_api():
    r = run("api", "torch.cuda.synchronize", "--torch-npu", "2.13.0")
    assert r.exit_code == 0 and "torch.npu.synchronize" in r.output
    r = run("api", "torch.cuda.nvtx.range_push", "--torch-npu", "2.13.0")
    assert r.exit_code == 1 and "torch.npu.mstx.range_push" in r.output
    r = run("api", "cudart")
    assert r.exit_code == 1 and "no torch.npu counterpart" in r.output
    assert run("api", "torch.cuda.CUDAGraph").output.startswith("torch.cuda.CUDAGraph -> torch.npu.NPUGraph")


def test_diff():
    r = run("diff", "2.1.0", "2.14.0", "--format", "json")
    assert r.exit_code == 0
    d = json.loads(r.output)
    assert "_scaled_mm" in d["ops_gained"] and "npurt" in d["torch.npu_gained"]
    r = run("diff", "2.1", "2.13")
    assert r.exit_code == 0 and "+ aten::_scaled_mm" in r.output


def test_format_json_is_the_older_json_flag():
    """The bare --json still works this release, and says on stderr what replaces it (stdout stays JSON)."""
    for args in (("ops", "--torch-npu", "2.13.0", "--unsupported"), ("ops", "--torch-npu", "2.13.0"), ("diff", "2.1.0", "2.14.0")):
        new, old = run(*args, "--format", "json"), run(*args, "--json")
        assert new.exit_code == old.exit_code == 0 and json.loads(new.stdout) == json.loads(old.stdout)
        assert old.stderr == "npu-migrate: --json is deprecated and goes in the next release: use --format json\n"
        assert new.stderr == ""
