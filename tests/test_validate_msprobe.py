"""validate's msprobe side on real runs: ConfigChecker packs compared by msprobe's config_check, and
statistics dumps (taken by checks/validate/child.py, the script itself has no msprobe code) compared by
msprobe compare. The scripts are variants of tests/validate_cases/train_gpu.py run as plain CPU
processes, several at once; the smoke machinery is not involved here (see test_validate.py)."""

from __future__ import annotations

import importlib.metadata
import importlib.util as _importlib_util
import os
import subprocess
from pathlib import Path

import pytest

# find_spec, not importorskip: importing torch/msprobe here would load them into the pytest process
_needs_runtime = pytest.mark.skipif(
    any(_importlib_util.find_spec(name) is None for name in ['msprobe', 'torch']),
    reason="needs msprobe, torch",
)

from checks.validate.copies import insert_hook, line_map  # noqa: E402
from checks.validate.msprobe_bridge import compare_config_packs, compare_dumps, write_dump_config  # noqa: E402
from tests.helpers import python_command  # noqa: E402

pytestmark = [_needs_runtime, pytest.mark.runtime]

CASES = Path(__file__).resolve().parent / "validate_cases"
STEPS = 3
DUMP_STEPS = [0, 1]
# a package msprobe's pip item looks at (its resource/dependency.yaml) that is not installed here,
# so a fake dist-info on PYTHONPATH is the only copy the child sees
PIP_CANDIDATES = ("peft", "deepspeed", "datasets", "transformers", "megatron")


def _absent_package() -> str:
    for name in PIP_CANDIDATES:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return name
    pytest.skip("every package of msprobe's pip list is installed; cannot fake a version")


def _fake_dist(root: Path, name: str, version: str) -> Path:
    dist = root / f"{name}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return root


def _variant(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def _instrument(source: str, zip_path: Path) -> str:
    source = _variant(source, "import torch.nn.functional as F\n",
                      "import torch.nn.functional as F\nfrom msprobe.core.config_check import ConfigChecker\n"
                      "ConfigChecker.apply_patches(fmk='pytorch')\n")
    source = _variant(source, "    model = Net().to(device)\n",
                      f"    model = Net().to(device)\n    ConfigChecker(model, output_zip_path={str(zip_path)!r}, fmk='pytorch')\n")
    return insert_hook(source)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> folder with pack.zip and dump/, all runs started together."""
    root = tmp_path_factory.mktemp("msprobe_runs")
    gpu = (CASES / "train_gpu.py").read_text()
    package = _absent_package()
    variants = {
        "baseline": (gpu, "1.0.0"),
        "same": (gpu, "1.0.0"),
        "seed": (_variant(gpu, "SEED = 0", "SEED = 1"), "1.0.0"),
        "lr": (_variant(gpu, "LR = 0.1", "LR = 0.12"), "1.0.0"),
        "pip": (gpu, "1.1.0"),
        "dropout": (_variant(gpu, "DROPOUT = 0.2", "DROPOUT = 0.5"), "1.0.0"),
        "no_train": (_variant(gpu, "    model.train()\n", ""), "1.0.0"),
    }
    procs = {}
    for name, (source, version) in variants.items():
        folder = root / name
        folder.mkdir()
        script = folder / "train.py"  # same file name on every side: msprobe matches random-call stacks by it
        script.write_text(_instrument(source, folder / "pack.zip"))
        config = write_dump_config(folder / "dump.json", folder / "dump", DUMP_STEPS)
        env = dict(os.environ, NPU_VALIDATE_DUMP_CONFIG=str(config),
                   PYTHONPATH=str(_fake_dist(folder / "site", package, version)))
        cmd, env = python_command(str(script), "--steps", str(STEPS), env=env)
        procs[name] = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{name}: {out[-2000:]}"
    return root, package, {name: source for name, (source, _) in variants.items()}


def _config(runs, name, tmp_path):
    root, _, _ = runs
    return compare_config_packs(root / "baseline" / "pack.zip", root / name / "pack.zip", tmp_path / "cc")


def test_identical_runs_pass_every_item(runs, tmp_path):
    result = _config(runs, "same", tmp_path)
    assert result.error is None
    assert {i.name for i in result.items} >= {"env", "pip", "dataset", "weights", "random"}
    assert result.failed == ()
    assert result.result_xlsx.is_file()


def test_changed_seed_is_flagged_in_the_initial_weights(runs, tmp_path):
    result = _config(runs, "seed", tmp_path)
    weights = result.item("weights")
    assert weights.status == "error" and weights.first_step == 0
    assert result.item("dataset").status == "error"  # the data is drawn after the seed too


def test_changed_learning_rate_is_flagged_after_the_first_update(runs, tmp_path):
    result = _config(runs, "lr", tmp_path)
    weights = result.item("weights")
    # msprobe's pack "step" counts forward calls: 0 is evaluate(), 1 the first training step (same
    # weights), 2 the forward after the first optimizer update
    assert weights.status == "error" and weights.first_step == 2
    assert result.item("dataset").status == "pass"


def test_package_version_difference_is_flagged_by_pip(runs, tmp_path):
    _, package, _ = runs
    result = _config(runs, "pip", tmp_path)
    pip = result.item("pip")
    assert pip.status == "error"
    assert any(package in d and "1.0.0" in d and "1.1.0" in d for d in pip.details), pip.details
    assert result.item("weights").status == "pass"


# F.dropout(input, p, training, inplace): p is argument 1, training argument 2
@pytest.mark.parametrize("name, argument", [("dropout", ".input.1"), ("no_train", ".input.2")])
def test_dump_compare_names_the_first_diverging_api(runs, tmp_path, name, argument):
    root, _, sources = runs
    copy = root / name / "train.py"
    original = CASES / "train_gpu.py"
    user_files = {os.path.realpath(copy): (str(original), list(line_map(sources[name], copy.read_text())))}
    result = compare_dumps(root / "baseline" / "dump", root / name / "dump", tmp_path / "api", DUMP_STEPS,
                           rtol=0, atol=0, user_files=user_files)
    assert result.error is None, result.error
    first = result.first
    assert first is not None and first.step == 0
    # the first dropout call whose arguments differ (evaluate() calls it first, in eval mode)
    assert first.api.startswith("Functional.dropout.") and first.kind == "argument"
    assert first.entry.endswith(argument)
    # the stack ends in the model's forward, on the line of the original script that calls dropout
    assert first.stack, "no frame of the user's script in the stack"
    path, line = first.stack[-1].split(" in ")[0].rsplit(":", 1)
    assert path == str(original)
    assert "self.drop(" in sources[name].splitlines()[int(line) - 1]


def test_dump_compare_of_identical_runs_finds_nothing(runs, tmp_path):
    root, _, _ = runs
    result = compare_dumps(root / "baseline" / "dump", root / "same" / "dump", tmp_path / "api", DUMP_STEPS, rtol=0, atol=0)
    assert result.error is None and result.first is None and result.compared_rows > 20
