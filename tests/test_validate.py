"""`npu-migrate validate` end to end: the original through the smoke machinery on the CPU, the migrated
script on the torch_npu stand-in, msprobe config_check, loss alignment, msprobe dump + compare.
Both sides run on this CPU, so a correct migration must give identical losses."""

from __future__ import annotations

import csv
import importlib.metadata
import importlib.util as _importlib_util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# find_spec, not importorskip: importing torch/msprobe here would load them into the pytest process
_needs_runtime = pytest.mark.skipif(
    any(_importlib_util.find_spec(name) is None for name in ['torch', 'msprobe']),
    reason="needs torch, msprobe",
)

from checks.validate.baseline import run_validate_baseline  # noqa: E402
from checks.validate.repeat import DEFAULT_REPEAT  # noqa: E402
from checks.validate.report import terminal_text  # noqa: E402
from checks.validate.run import ValidateError, run_validate  # noqa: E402 (after the skip marker, on purpose)

pytestmark = [_needs_runtime, pytest.mark.runtime]

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "validate_cases"
GPU = CASES / "train_gpu.py"
STEPS = 3


def _validate(npu_name, tmp_path, **kwargs):
    return run_validate(GPU, CASES / npu_name, steps=STEPS, out_dir=tmp_path / "out", timeout=300, **kwargs)


def _source_line(frame: str) -> str:
    path, line = frame.split(" in ")[0].rsplit(":", 1)
    return Path(path).read_text().splitlines()[int(line) - 1]


def test_correct_migration_gives_identical_losses(tmp_path):
    result = _validate("train_npu.py", tmp_path, keep=True)
    assert (result.verdict, result.exit_code) == ("pass", 0), result.reasons
    assert result.equivalence
    base, mig = result.run("baseline"), result.run("migrated")
    assert (base.backend, mig.backend) == ("cuda-emulated", "emulated")  # no GPU here: the CUDA twin
    assert len(base.losses) == STEPS and base.losses == mig.losses
    assert result.losses.identical
    assert {i.name: i.status for i in result.config_check.items} == {
        "env": "pass", "pip": "pass", "dataset": "pass", "weights": "pass", "random": "pass"}
    # what was compared is said, and what msprobe knows but did not compare (no launch script given)
    assert result.config_check.not_compared == ("hyperparameters",)
    assert result.reasons[-1].endswith("config_check compared env, pip, dataset, weights, random; not compared: "
                                       "hyperparameters (packed only when ConfigChecker is given the launch script (shell_path))")
    assert result.api is None  # nothing diverged: no dump
    out = tmp_path / "out"
    rows = list(csv.DictReader((out / "losses.csv").open()))
    assert [float(r["baseline_loss"]) for r in rows] == list(base.losses)
    # msprobe's result.xlsx only with --xlsx (tests/test_validate_two_hosts.py): the reports say how to get it
    assert not (out / "config_check" / "result.xlsx").exists() and result.config_check.result_xlsx is None
    assert "random pass  (msprobe's table: --xlsx)" in terminal_text(result)
    summary = (out / "summary.md").read_text()
    assert "Full result: not written (`validate --xlsx` writes msprobe's table to config_check/result.xlsx)" in summary
    assert "equivalence check" in summary and "PASS" in summary
    data = json.loads((out / "validate.json").read_text())
    assert data["exit_code"] == 0 and data["losses"]["identical"] is True
    assert data["losses"]["plot"] == "losses.svg" and "![losses](losses.svg)" in summary  # drawn without matplotlib
    assert (out / "losses.svg").read_text().startswith("<svg") and result.plot_note is None
    assert not any(GPU.parent.glob("*.zip")), "validate wrote into the user's folder"
    # identical losses: the original ran once (the script's own line, printed once per run, in the log)
    assert (out / "validate.log").read_text().count("accuracy before training") == 2
    assert data["baseline_runs"] == 1 and data["repeat"] is None and not (out / "baseline_runs.csv").exists()
    # one path for one host and two: the original was recorded into a bundle (kept: --keep) and compared as
    # `validate --baseline` compares; that bundle, given to `validate --baseline`, judges the same run the same way
    assert "data: the first 3 batches match the recorded ones (msprobe dataset statistics)" in result.notes
    kept = json.loads((out / "baseline_bundle" / "manifest.json").read_text())
    assert kept["dump_steps"] == [0, 1] and kept["losses"] == list(base.losses)  # as `npu-migrate baseline` records
    again = run_validate_baseline(out / "baseline_bundle", CASES / "train_npu.py", out_dir=tmp_path / "again", timeout=300)
    assert (again.verdict, again.exit_code, again.reasons) == (result.verdict, result.exit_code, result.reasons)
    assert again.run("baseline").losses == base.losses and again.run("migrated").losses == mig.losses
    assert ([(i.name, i.status) for i in again.config_check.items] == [(i.name, i.status) for i in result.config_check.items])
    assert again.notes[2:] == result.notes[2:] and again.equivalence  # after the bundle's own line (host, versions)


def test_changed_learning_rate_fails_and_names_the_optimizer_update(tmp_path):
    # --keep: the recording holds the dump of steps 1-2 (as `npu-migrate baseline`), so only the migrated
    # side is dumped and compared against it, as on the NPU host (test_dropped_train_mode_...: both sides)
    result = _validate("wrong_lr_npu.py", tmp_path, keep=True)
    assert (result.verdict, result.exit_code) == ("fail", 1)
    assert result.losses.first_divergence == 1  # row index: step 1 runs with the same initial weights
    assert result.losses.first_divergence_step == 2
    assert result.config_check.item("weights").status == "error"
    first = result.api.first
    assert first is not None and first.step == 0 and first.kind == "argument"
    assert first.api.startswith("Tensor.add_") and "alpha" in first.entry
    assert "-0.1" in first.message and "-0.12" in first.message
    assert "optimizer.step()" in _source_line(first.stack[-1])
    assert any("loss diverges at step 2" in r for r in result.reasons)  # 1-based, as smoke's table
    # the original ran again, gave the same losses, and the verdict stayed the rewrite's
    assert result.repeat.deterministic and result.baseline_runs == 2
    assert "the original repeats itself" in result.reasons[-1]
    runs = list(csv.DictReader((tmp_path / "out" / "baseline_runs.csv").open()))
    assert [r["run_1"] for r in runs] == [r["run_2"] for r in runs] and len(runs) == STEPS
    assert list((tmp_path / "out" / "dump" / "compare").glob("compare_result_step0_*.csv"))
    assert not (tmp_path / "out" / "dump" / "baseline").exists()  # the recorded dump was the baseline's side


def test_dropped_train_mode_fails_with_dropout_as_first_diverging_api(tmp_path):
    result = _validate("no_train_mode_npu.py", tmp_path)
    assert result.exit_code == 1
    assert result.losses.first_divergence == 0
    first = result.api.first
    assert first is not None and first.api.startswith("Functional.dropout.") and first.kind == "argument"
    assert "self.drop(" in _source_line(first.stack[-1])
    assert "first diverging API" in (tmp_path / "out" / "summary.md").read_text()


def test_changed_seed_is_flagged_by_config_check(tmp_path):
    result = _validate("wrong_seed_npu.py", tmp_path, dump=False)
    assert result.exit_code == 1 and result.api is None
    weights = result.config_check.item("weights")
    assert weights.status == "error" and weights.first_step == 0  # initial weights differ
    assert any(r.startswith("config_check weights") for r in result.reasons)
    assert (tmp_path / "out" / "baseline" / "config_check_pack.log").is_file()  # why an item is missing, both sides


def test_package_version_difference_is_flagged_by_pip(tmp_path):
    package = next((p for p in ("peft", "deepspeed", "datasets", "transformers") if not _installed(p)), None)
    if package is None:
        pytest.skip("no package of msprobe's pip list is absent here")
    envs = {}
    for side, version in (("baseline", "1.0.0"), ("migrated", "2.0.0")):
        dist = tmp_path / side / f"{package}-{version}.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
        envs[side] = {"PYTHONPATH": str(tmp_path / side)}
    result = _validate("train_npu.py", tmp_path, baseline_env=envs["baseline"], migrated_env=envs["migrated"])
    assert result.exit_code == 1
    assert result.losses.identical  # the training itself is the same
    pip = result.config_check.item("pip")
    assert pip.status == "error"
    assert any(package in d and "1.0.0" in d and "2.0.0" in d for d in pip.details)
    assert any(r.startswith("config_check pip") for r in result.reasons)


def _installed(name: str) -> bool:
    try:
        importlib.metadata.version(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def test_refuses_a_non_empty_out_dir(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    with pytest.raises(ValidateError, match="--force"):
        _validate("train_npu.py", tmp_path)
    assert (tmp_path / "out" / "keep.txt").exists()


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "migrate", "validate", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_exit_codes(tmp_path):
    missing = _cli(str(GPU), str(tmp_path / "nope.py"), "--out", str(tmp_path / "o1"), cwd=tmp_path)
    assert missing.returncode == 2 and "no such script" in missing.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nraise RuntimeError('boom')\n")
    proc = _cli(str(broken), str(CASES / "train_npu.py"), "--steps", "2", "-q", "--out", str(tmp_path / "o2"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "baseline" in proc.stdout and "does not run" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("fixture, extra", [("amp_gradscaler/train.py", {}), ("cnn_cifar/train.py", {"fake_data": True})])
def test_fixture_against_its_apply_output(tmp_path, fixture, extra):
    """A bundled GPU fixture against what `npu-migrate apply` makes of it (ConfigChecker hooks included)."""
    src = ROOT / "fixtures" / "gpu_scripts" / fixture
    migrated = tmp_path / "migrated" / "train.py"
    migrated.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "migrate", "apply", str(src), "-o", str(migrated)], cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert migrated.is_file(), proc.stdout + proc.stderr
    result = run_validate(src, migrated, steps=STEPS, out_dir=tmp_path / "out", timeout=300, dump=False, **extra)
    assert result.exit_code == 0, result.reasons
    assert result.losses.identical and len(result.losses.rows) == STEPS
    # apply's own hook writes the migrated pack where validate reads it (checks/validate/copies.retarget_zip)
    assert result.config_check is not None and result.config_check.error is None, result.config_check
    assert not (migrated.parent / "npu_config_check").exists()  # the run's working directory: the user's folder


def test_config_check_switched_off_by_the_user_is_honoured(tmp_path, monkeypatch):
    """NPU_MIGRATE_CONFIG_CHECK=0 (e.g. for a model msprobe cannot hook): no packs are written or
    compared, and the result says so; the losses are still compared."""
    monkeypatch.setenv("NPU_MIGRATE_CONFIG_CHECK", "0")
    result = _validate("train_npu.py", tmp_path, dump=False)
    assert (result.verdict, result.exit_code) == ("pass", 0), result.reasons
    assert result.losses.identical
    assert result.config_check.items == () and "NPU_MIGRATE_CONFIG_CHECK=0" in result.config_check.error
    assert not list((tmp_path / "out").rglob("config_check_pack.zip"))


HOGWILD_STEPS = 5


def test_hogwild_original_that_does_not_repeat_passes_against_its_own_spread(tmp_path):
    """Two mp.Process workers train shared-memory parameters without a lock: the original's own losses
    differ run to run; the correct migration passes, with the note and its cause said first."""
    result = run_validate(CASES / "hogwild_gpu.py", CASES / "hogwild_npu.py", steps=HOGWILD_STEPS,
                          out_dir=tmp_path / "out", timeout=300)
    assert (result.verdict, result.exit_code) == ("pass", 0), result.reasons
    first = result.reasons[0]
    assert first.startswith("the original is not deterministic: run-to-run difference up to "), result.reasons
    assert "shared-memory parameters written by several processes" in first and "hogwild_gpu.py:" in first
    assert "losses within the original's own run-to-run spread" in result.reasons[1]
    assert 2 <= result.baseline_runs <= 1 + DEFAULT_REPEAT and not result.repeat.deterministic
    runs = list(csv.DictReader((tmp_path / "out" / "baseline_runs.csv").open()))
    assert any(len({r[f"run_{i + 1}"] for i in range(result.baseline_runs)}) > 1 for r in runs)  # the spread is real
    data = json.loads((tmp_path / "out" / "validate.json").read_text())
    assert data["baseline_runs"] == result.baseline_runs and data["repeat"]["max_spread"] > 0
    assert "not deterministic" in (tmp_path / "out" / "summary.md").read_text()
    retried = [n for n in result.notes if n.startswith("the original races")]  # only when its first run lay outside
    assert all("lies within the spread and is the one compared" in n for n in retried), retried


def test_hogwild_with_a_changed_learning_rate_still_fails(tmp_path):
    result = run_validate(CASES / "hogwild_gpu.py", CASES / "hogwild_wrong_lr_npu.py", steps=HOGWILD_STEPS,
                          out_dir=tmp_path / "out", timeout=300, dump=False, repeat=1)
    assert (result.verdict, result.exit_code) == ("fail", 1)
    assert result.baseline_runs == 2  # --repeat 1: one extra run, never more
    assert result.losses.first_divergence is not None
    assert any("outside the original's range" in r for r in result.reasons), result.reasons
    # the original races: the migrated script ran again too, and lay outside every time
    assert any(n.startswith("the original races") and n.endswith("it lies outside every time: the difference is the "
                                                                  "rewrite's") for n in result.notes), result.notes
