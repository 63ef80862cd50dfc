"""validate's msprobe side on real runs: ConfigChecker packs compared by msprobe's config_check, and
statistics dumps (taken by checks/validate/child.py, the script itself has no msprobe code) compared by
msprobe compare. The scripts are variants of tests/validate_cases/train_gpu.py run as plain CPU
processes, several at once; the smoke machinery is not involved here (see test_validate.py)."""

from __future__ import annotations

import importlib.metadata
import importlib.util as _importlib_util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

# find_spec, not importorskip: importing torch/msprobe here would load them into the pytest process
_needs_runtime = pytest.mark.skipif(
    any(_importlib_util.find_spec(name) is None for name in ['msprobe', 'torch']),
    reason="needs msprobe, torch",
)

from checks.validate.copies import insert_hook, line_map  # noqa: E402
from checks.validate.msprobe_bridge import (  # noqa: E402
    _summarise_config_result,
    compare_config_packs,
    compare_dumps,
    write_dump_config,
)
from tests.helpers import ROOT, python_command  # noqa: E402

pytestmark = [_needs_runtime, pytest.mark.runtime]

CASES = Path(__file__).resolve().parent / "validate_cases"
STEPS = 3
DUMP_STEPS = [0, 1]
# a package msprobe's pip item looks at (its resource/dependency.yaml) that is not installed here,
# so a fake dist-info on PYTHONPATH is the only copy the child sees
PIP_CANDIDATES = ("peft", "deepspeed", "datasets", "transformers", "megatron")
# the pip run also differs in two variables msprobe's env item compares (its resource/env.yaml): one set but
# empty, one set where the other run has msprobe's default, the bool False
VARIANT_ENV = {"pip": {"NCCL_ALGO": "", "NCCL_DETERMINISTIC": "1"}}


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
        env = {k: v for k, v in os.environ.items() if k not in ("NCCL_ALGO", "NCCL_DETERMINISTIC")}
        env.update(VARIANT_ENV.get(name, {}), NPU_VALIDATE_DUMP_CONFIG=str(config),
                   PYTHONPATH=str(_fake_dist(folder / "site", package, version)))
        cmd, env = python_command(str(script), "--steps", str(STEPS), env=env)
        procs[name] = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{name}: {out[-2000:]}"
    return root, package, {name: source for name, (source, _) in variants.items()}


def _config(runs, name, tmp_path, **options):
    root, _, _ = runs
    return compare_config_packs(root / "baseline" / "pack.zip", root / name / "pack.zip", tmp_path / "cc", **options)


def _payload(result) -> list[dict]:
    """The items as the child reported them (msprobe_bridge._summarise_sheets)."""
    return [{"name": i.name, "status": i.status, "details": list(i.details), "first_step": i.first_step,
             "differing": [list(r) for r in i.differing]} for i in result.items]


def test_identical_runs_pass_every_item(runs, tmp_path):
    result = _config(runs, "same", tmp_path)
    assert result.error is None
    assert {i.name for i in result.items} >= {"env", "pip", "dataset", "weights", "random"}
    assert result.failed == ()
    # msprobe's workbook is written only when asked for (validate --xlsx)
    assert result.result_xlsx is None and not (tmp_path / "cc" / "result.xlsx").exists()


@pytest.mark.parametrize("name", ["same", "seed", "lr", "pip"])
def test_the_tables_summarised_in_memory_are_what_the_workbook_reads_back(runs, tmp_path, name):
    """The summary taken from msprobe's tables as compare hands them to save_excel equals the summary of
    reading back the result.xlsx that save_excel wrote from the same tables (xlsx=True: both in one compare)."""
    result = _config(runs, name, tmp_path, xlsx=True)
    assert result.error is None and result.result_xlsx == (tmp_path / "cc" / "result.xlsx").resolve()
    _assert_same_payload(_payload(result), _summarise_config_result(str(result.result_xlsx))["items"])
    if name == "pip":  # the env rows as text: "" set is not the unset default "None", msprobe's default False as str.
        # baseline first, though msprobe 26.2.0's env columns are the other way round (EnvArgsChecker.compare passes
        # the bench pack as compare_env_data's npu_path): the migrated run set the two variables, the baseline did not
        assert result.item("env").details == ('NCCL_DETERMINISTIC=False vs NCCL_DETERMINISTIC=1 (error)',
                                              'NCCL_ALGO=None vs NCCL_ALGO="" (error)'), result.item("env").details
    if name == "seed":
        assert result.item("weights").differing and result.item("dataset").details


def _assert_same_payload(in_memory: list[dict], read_back: list[dict]) -> None:
    """Equal, but for the relative differences' last digit: msprobe writes each float whole into the workbook
    and pandas' default float parser (read_excel's, not round-trip) can read it back one unit in the last
    place off; in memory they are msprobe's own."""
    def rows(items):
        return [r for i in items for r in i["differing"]]

    assert [{**i, "differing": None} for i in in_memory] == [{**i, "differing": None} for i in read_back]
    assert [[type(x) for x in r] for r in rows(in_memory)] == [[type(x) for x in r] for r in rows(read_back)]
    for mine, theirs in zip(rows(in_memory), rows(read_back)):
        assert mine[:2] == theirs[:2]
        assert all((a is None and b is None) or math.isclose(a, b, rel_tol=1e-15) for a, b in zip(mine[2:], theirs[2:])), (mine, theirs)


def test_a_table_msprobe_cuts_into_sheets_is_summarised_whole(runs, tmp_path, monkeypatch):
    """save_excel cuts a table longer than CompareConst.MAX_EXCEL_LENGTH rows into `<name>_part_<i>` sheets
    (here lowered to 4 rows in the child): the summary is still of the whole table, as without the cut."""
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # msprobe orders some rows by set iteration: one order for both children
    root, _, _ = runs
    whole = _config(runs, "seed", tmp_path)
    cut = tmp_path / "cut"
    child = ("import sys\nfrom msprobe.core.common.const import CompareConst\nCompareConst.MAX_EXCEL_LENGTH = 4\n"
             "from checks.validate.msprobe_bridge import _child_main\nsys.exit(_child_main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", child, "config-compare", str(root / "baseline" / "pack.zip"),
                           str(root / "seed" / "pack.zip"), str(cut), "--xlsx"], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    marker = "@@NPU_VALIDATE_JSON@@"
    payload = json.loads(next(line[len(marker):] for line in proc.stdout.splitlines() if line.startswith(marker)))
    import pandas as pd

    sheets = pd.ExcelFile(cut / "result.xlsx").sheet_names
    assert {"weights_part_0", "weights_part_1", "dataset_part_0"} <= set(sheets) and "weights" not in sheets, sheets
    assert payload["items"] == _payload(whole)
    assert whole.item("weights").differing and whole.item("weights").first_step == 0
    # the workbook read back: its parts joined again
    _assert_same_payload(payload["items"], _summarise_config_result(str(cut / "result.xlsx"))["items"])


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
