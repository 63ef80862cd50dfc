"""Two hosts on this machine: `npu-migrate baseline` records the original in one working directory and
environment, `npu-migrate validate --baseline` compares a migrated script in another (another cwd, an
extra PYTHONPATH entry and environment variable), through the real console entry point. Both sides are
the CPU emulations, so a correct migration must give the recorded losses exactly."""

from __future__ import annotations

import csv
import importlib.util as _importlib_util
import json
import math
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

pytestmark = [pytest.mark.skipif(any(_importlib_util.find_spec(n) is None for n in ("torch", "msprobe")),
                                 reason="needs torch, msprobe"), pytest.mark.runtime]

CASES = Path(__file__).resolve().parent / "validate_cases"
STEPS = 3


@pytest.fixture(scope="module")
def host_a(tmp_path_factory):
    """The GPU host: its own cwd and environment; the bundle recorded there (as an archive, as one copies it)."""
    cwd = tmp_path_factory.mktemp("host_a")
    proc = run_cli("baseline", str(CASES / "train_gpu.py"), "--out", "bundle", "--archive", "--steps", str(STEPS), "--seed", "7", "-q",
                   cwd=cwd, env={"HOST_A_ONLY": "1"})
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return cwd


def _host_b(tmp_path: Path, host_a: Path) -> tuple[Path, dict]:
    """The NPU host: the bundle copied into another cwd, another environment."""
    cwd = tmp_path / "host_b"
    (cwd / "site").mkdir(parents=True)
    shutil.copy(host_a / "bundle.tar.gz", cwd / "bundle.tar.gz")
    # the checkout under test stays first after the host's own folder (run_cli puts it there; replaced here, the
    # editable install would give another checkout's code to a worktree's tests)
    env = {"HOST_B_ONLY": "1", "PYTHONPATH": os.pathsep.join([str(cwd / "site"), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return cwd, env


def test_recorded_bundle_is_complete(host_a, tmp_path):
    with tarfile.open(host_a / "bundle.tar.gz") as tar:
        files = {m.name.removeprefix("bundle/") for m in tar.getmembers() if m.isfile()}
        names = {Path(f).name for f in files}
        manifest = json.load(tar.extractfile("bundle/manifest.json"))
        env = json.load(tar.extractfile("bundle/env.json"))
        smoke = json.load(tar.extractfile("bundle/smoke.json"))
        log = tar.extractfile("bundle/record.log").read().decode()
        dumped = json.load(tar.extractfile(next(m for m in tar.getmembers() if m.name.startswith("bundle/dump/step0/")
                                                and m.name.endswith("/dump.json"))))["data"]
    assert {"manifest.json", "losses.csv", "smoke.json", "config_check_pack.zip", "data_fingerprint.json",
            "pip_list.txt", "env.json"} <= names
    assert manifest["backend"] == "cuda-emulated" and manifest["emulated"] is True  # no GPU here: said so
    assert manifest["steps"] == STEPS and len(manifest["losses"]) == STEPS and manifest["seed"] == 7
    assert manifest["data_fingerprint"]["observed"] is True
    assert set(manifest["files"]) == files - {"manifest.json"}  # every other file has its checksum
    assert manifest["dump_steps"] == [0, 1] and any(f.startswith("dump/step1/") for f in files)
    # the pack's max/min/mean/norm of the input and the weights before each forward are not among the dumped APIs
    assert manifest["pack_statistics_in_dump"] is False and manifest["schema_version"] == 2
    assert "Functional.linear.0.forward" in dumped and not [k for k in dumped if k.startswith(("Tensor.max.", "Tensor.norm."))]
    # after the dumped steps msprobe's API wrappers are taken off: the step left runs on torch's own APIs
    assert "msprobe API dump done after step 2; the steps left run on torch's own APIs" in log
    assert not (host_a / "bundle").exists(), "--archive keeps the archive only"
    assert env["HOST_A_ONLY"] == "1" and "HOST_B_ONLY" not in env  # the environment of the recording host
    # the top-level modules the run imported (a pip difference in a package neither run imported is a note)
    assert {"torch", "json"} <= set(smoke["imported_modules"]) and not [n for n in smoke["imported_modules"] if "." in n]


def test_correct_migration_on_the_other_host_gives_the_recorded_losses(host_a, tmp_path):
    cwd, env = _host_b(tmp_path, host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "train_npu.py"), "-q", "--out", "out",
                   cwd=cwd, env=env)
    text = proc.stdout.decode()
    assert proc.returncode == 0, text + proc.stderr.decode()[-3000:]
    with tarfile.open(cwd / "bundle.tar.gz") as tar:
        recorded = json.load(tar.extractfile("bundle/manifest.json"))["losses"]
    rows = list(csv.DictReader((cwd / "out" / "losses.csv").open()))
    assert [float(r["baseline_loss"]) for r in rows] == recorded == [float(r["migrated_loss"]) for r in rows]
    assert json.loads((cwd / "out" / "validate.json").read_text())["losses"]["identical"] is True
    assert "the first 3 batches match the recorded ones" in text
    smoke = json.loads((cwd / "out" / "migrated" / "smoke.json").read_text())
    assert smoke["backend"] == "emulated"
    # msprobe's workbook only with --xlsx: the config_check line says so instead of a path
    assert not (cwd / "out" / "config_check" / "result.xlsx").exists()
    assert "random pass  (msprobe's table: --xlsx)" in text
    assert json.loads((cwd / "out" / "validate.json").read_text())["config_check"]["result_xlsx"] is None


@pytest.fixture(scope="module")
def wrong_lr(host_a, tmp_path_factory):
    """validate --baseline of wrong_lr_npu.py (a learning rate the rewrite changed): (host_b's cwd, the process)."""
    cwd, env = _host_b(tmp_path_factory.mktemp("wrong_lr"), host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "wrong_lr_npu.py"), "-q", "--out", "out",
                   "--xlsx", cwd=cwd, env=env)
    return cwd, proc


def test_wrong_learning_rate_on_the_other_host_fails_naming_it(wrong_lr):
    cwd, proc = wrong_lr
    text = proc.stdout.decode()
    assert proc.returncode == 1, text + proc.stderr.decode()[-3000:]
    assert "loss diverges at step 2" in text  # step 1's loss comes before the first update
    assert "config_check weights: differs" in text
    # the API dump of steps 1-2 recorded in the bundle against the migrated run's: the optimizer update
    first = json.loads((cwd / "out" / "validate.json").read_text())["api_compare"]["first"]
    assert first["api"].startswith("Tensor.add_") and "alpha" in first["entry"], first
    assert "-0.1" in first["message"] and "-0.12" in first["message"]
    assert "wrong_lr_npu.py" in first["stack"][-1] and "optimizer.step()" in text


def test_the_migrated_run_compares_the_packs_as_validates_own_msprobe_child_does(wrong_lr, tmp_path, monkeypatch):
    """The config_check comparison ran in the migrated training process after its report (msprobe imported there
    already), its msprobe lines in config_check/msprobe.log only; the fallback, validate's own msprobe child, gives
    the same items and the same result.xlsx sheets from the same packs (under the training run's PYTHONHASHSEED:
    msprobe orders some rows by set iteration). Both summarise msprobe's tables in memory; --xlsx had them written
    too, and what the run summarised is what reading that workbook back gives."""
    from checks.validate.msprobe_bridge import IN_RUN_HEADER, _summarise_config_result, compare_config_packs

    cwd, proc = wrong_lr
    out = cwd / "out"
    log = (out / "config_check" / "msprobe.log").read_text()
    assert log.splitlines()[0] == IN_RUN_HEADER, log[:500]
    assert "config checking result save to" in log
    shown = proc.stdout.decode() + proc.stderr.decode() + (out / "validate.log").read_text()
    assert "config checking result save to" not in shown and IN_RUN_HEADER not in shown
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    own = compare_config_packs(out / "baseline" / "config_check_pack.zip", out / "migrated" / "config_check_pack.zip",
                               tmp_path / "cc", xlsx=True)
    assert own.error is None and IN_RUN_HEADER not in (tmp_path / "cc" / "msprobe.log").read_text()
    validated = json.loads((out / "validate.json").read_text())["config_check"]
    assert [{"name": i.name, "status": i.status, "details": list(i.details), "first_step": i.first_step}
            for i in own.items] == validated["items"]
    assert list(own.not_compared) == validated["not_compared"]
    assert any(i["status"] == "error" for i in validated["items"])  # a comparison with findings, not all-pass

    def sheets(xlsx: Path) -> dict:
        with zipfile.ZipFile(xlsx) as book:  # docProps/: the time it was written
            return {n: book.read(n) for n in book.namelist() if not n.startswith("docProps/")}

    assert validated["result_xlsx"] == "config_check/result.xlsx"
    assert sheets(out / "config_check" / "result.xlsx") == sheets(own.result_xlsx)
    read_back = _summarise_config_result(str(out / "config_check" / "result.xlsx"))["items"]
    assert [{k: i[k] for k in ("name", "status", "details", "first_step")} for i in read_back] == validated["items"]
    # the relative differences up to the last digit pandas' float parser may change reading the workbook back
    mine = [row for i in own.items for row in i.differing]
    theirs = [row for i in read_back for row in i["differing"]]
    assert mine and [r[:2] for r in mine] == [tuple(r[:2]) for r in theirs]
    assert all(a == b or math.isclose(a, b, rel_tol=1e-15) for r, t in zip(mine, theirs) for a, b in zip(r[2:], t[2:]))


def test_different_data_on_the_other_host_is_named_first(host_a, tmp_path):
    """wrong_seed_npu.py draws other inputs (and weights): the data comparison fails before the losses.
    --no-dump: the data are compared from the config_check pack, not the API dump (the diverging losses
    would otherwise run the migrated script a second time under msprobe's dump: the wrong-learning-rate
    test above covers that comparison against the recorded dump)."""
    cwd, env = _host_b(tmp_path, host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "wrong_seed_npu.py"), "-q", "--out", "out",
                   "--no-dump", cwd=cwd, env=env)
    assert proc.returncode == 1, proc.stdout.decode() + proc.stderr.decode()[-3000:]
    reasons = json.loads((cwd / "out" / "validate.json").read_text())["reasons"]
    assert reasons[0].startswith("data: the batches differ from the recorded ones from msprobe pack step 0"), reasons


def test_shuffled_data_order_on_the_other_host_is_named_as_such(tmp_path):
    """loader_shuffled_npu.py shuffles its DataLoader with another seed: over one epoch it gives the recorded
    samples in another order, which the per-sample digests of the data fingerprint name as such."""
    host_a = tmp_path / "host_a"
    host_a.mkdir()
    proc = run_cli("baseline", str(CASES / "loader_gpu.py"), "--out", "bundle", "--archive", "--steps", "4",
                   "--dump-steps", "0", "-q", cwd=host_a)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    cwd, env = _host_b(tmp_path, host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "loader_shuffled_npu.py"), "-q", "--out", "out",
                   cwd=cwd, env=env)
    assert proc.returncode == 1, proc.stdout.decode() + proc.stderr.decode()[-3000:]
    reasons = json.loads((cwd / "out" / "validate.json").read_text())["reasons"]
    assert reasons[0].startswith("data: shuffled data order: the DataLoader gave the same 64 samples as recorded in its "
                                 "first 4 batches"), reasons


def test_no_dropout_and_strict_fp32_set_the_run_before_the_script():
    """`baseline --no-dropout` (and validate --baseline of such a bundle) run the script with msprobe's
    remove_dropout: nn.Dropout, F.dropout and dropout2d keep their input in training mode (they drop
    before the hook runs, in the same process); so do attention's dropout_p (scaled_dot_product_attention by keyword
    and by position, nn.MultiheadAttention through multi_head_attention_forward), which msprobe's leaves on."""
    import subprocess
    import sys

    from checks.validate import child

    probe = ("import runpy, torch\n"
             "x = torch.ones(64, 8, 4, 4)\n"
             "F = torch.nn.functional\n"
             "q = torch.randn(2, 2, 8, 4)\n"
             "attention = F.scaled_dot_product_attention(q, q, q)\n"
             "mha = torch.nn.MultiheadAttention(4, 2, dropout=0.5).train()\n"
             "mha_out = lambda: mha(q[0], q[0], q[0], need_weights=False)[0]\n"
             "mha.dropout = 0.0\n"
             "mha_plain = mha_out()\n"
             "mha.dropout = 0.5\n"
             "def kept():\n"
             "    outs = [torch.nn.Dropout(0.5).train()(x), torch.nn.functional.dropout(x, 0.5, True),\n"
             "            torch.nn.functional.dropout2d(x, 0.5, True)]\n"
             "    return [bool(torch.equal(o, x)) for o in outs] + [\n"
             "        bool(torch.allclose(F.scaled_dot_product_attention(q, q, q, dropout_p=0.5), attention)),\n"
             "        bool(torch.allclose(F.scaled_dot_product_attention(q, q, q, None, 0.5), attention)),\n"
             "        bool(torch.allclose(mha_out(), mha_plain))]\n"
             "tf32 = lambda: (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)\n"
             "torch.backends.cuda.matmul.allow_tf32 = True\n"
             "print('BEFORE', kept(), tf32())\n"
             f"runpy.run_path({child.__file__!r})\n"
             "print('AFTER', kept(), tf32())\n")
    env = {**os.environ, "NPU_MIGRATE_NO_DROPOUT": "1", "NPU_MIGRATE_STRICT_FP32": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert "BEFORE [False, False, False, False, False, False] (True, True)" in proc.stdout, proc.stderr[-2000:]
    # --strict-fp32 too (the same hook): TF32 off for cuDNN and cuBLAS
    assert "AFTER [True, True, True, True, True, True] (False, False)" in proc.stdout, proc.stderr[-2000:]


def test_no_dropout_zeroes_the_attention_dropout_and_the_dump_records_it(tmp_path):
    """nn.TransformerEncoder's nn.MultiheadAttention applies its dropout through multi_head_attention_forward's
    dropout_p (no F.dropout call): found on an H200 (word_language_model `--model Transformer`), `--no-dropout` left it
    on and the two devices drew other attention masks. Now the run trains as with dropout 0, and the dump (msprobe's
    wrappers, put on at every debugger start) records the dropout_p the call ran with: 0."""
    script = CASES / "transformer_lm_gpu.py"
    proc = run_cli("baseline", str(script), "--out", "removed", "--steps", str(STEPS), "--no-dropout", "--dump-steps", "2",
                   "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert "attention's dropout_p included" in proc.stdout.decode() + proc.stderr.decode()
    proc = run_cli("baseline", str(script), "--out", "zero", "--steps", str(STEPS), "--dump-steps", "0", "-q",
                   "--", "--dropout", "0", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]

    def losses(bundle):
        with open(tmp_path / bundle / "losses.csv", newline="") as handle:
            return [row["loss"] for row in csv.DictReader(handle)]

    assert losses("removed") == losses("zero") and len(losses("zero")) == STEPS
    attention = {}
    for path in sorted((tmp_path / "removed" / "dump").glob("step*/*/dump.json")):
        for name, entry in json.loads(path.read_text())["data"].items():
            if "multi_head_attention_forward" in name and name.endswith(".forward"):
                attention[f"{path.parent.parent.name}/{name}"] = (entry["input_args"][10]["value"],
                                                                   entry["input_kwargs"]["training"]["value"])
    assert set(attention) == {"step0/Functional.multi_head_attention_forward.0.forward",
                              "step1/Functional.multi_head_attention_forward.0.forward"}, attention
    assert set(attention.values()) == {(0.0, True)}


def test_the_bundle_records_the_float32_switches_as_the_run_left_them(tmp_path):
    """--strict-fp32 turns TF32 off before the script's first line; a script that turns it on again wins, and
    the manifest says so (fp32_effective, written by the child once the run's report is written)."""
    script = tmp_path / "tf32_train.py"
    script.write_text("import torch\n"
                      "torch.backends.cuda.matmul.allow_tf32 = True  # as nanoGPT's train.py does\n"
                      "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                      "torch.manual_seed(0)\n"
                      "model = torch.nn.Linear(4, 1).to(device)\n"
                      "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                      "for _ in range(3):\n"
                      "    loss = model(torch.ones(2, 4, device=device)).pow(2).mean()\n"
                      "    opt.zero_grad(); loss.backward(); opt.step()\n")
    proc = run_cli("baseline", str(script), "--out", "bundle", "--steps", "2", "--strict-fp32", "--dump-steps", "0", "-q",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    manifest = json.loads((tmp_path / "bundle" / "manifest.json").read_text())
    assert manifest["fp32"] == "strict"
    assert manifest["fp32_effective"]["cuda_matmul_allow_tf32"] is True, manifest.get("fp32_effective")
    assert manifest["fp32_effective"]["cudnn_allow_tf32"] is False  # --strict-fp32's, untouched by the script
    script.write_text(script.read_text().replace("allow_tf32 = True", "allow_tf32 = False"))
    proc = run_cli("baseline", str(script), "--out", "bundle2", "--steps", "2", "--dump-steps", "0", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    effective = json.loads((tmp_path / "bundle2" / "manifest.json").read_text())["fp32_effective"]
    assert effective["cuda_matmul_allow_tf32"] is False and effective["cudnn_allow_tf32"] is True  # torch's defaults


def test_an_original_that_fails_only_under_the_api_dump_is_recorded_without_it(tmp_path):
    """saved_hparams_gpu.py pickles F.gelu before its first step: torch's own function pickles, msprobe's wrapper of
    it does not (pytorch-ignite under torch 2.11 failed the same way at import, on a real H200). The recording
    runs it again without the API dump and says so, instead of "the original does not run"."""
    proc = run_cli("baseline", str(CASES / "saved_hparams_gpu.py"), "--out", "bundle", "--steps", "2", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    manifest = json.loads((tmp_path / "bundle" / "manifest.json").read_text())
    assert len(manifest["losses"]) == 2 and manifest["dump_steps"] == []
    note = next(n for n in manifest["notes"] if "msprobe's API dump" in n)
    assert "before its first step" in note and "saved_hparams_gpu.py:30" in note and "pickle" in note
    assert not (tmp_path / "bundle" / "dump").exists()


_MAX_PROBE = """import json, os, runpy, sys, torch
from pathlib import Path
runpy.run_path(sys.argv[1])  # checks/validate/child.py: the dump of step 0 (NPU_VALIDATE_DUMP_CONFIG)
if os.environ.get("HOOKS") == "1":
    from msprobe.core.config_check import ConfigChecker
torch.manual_seed(0)
model = torch.nn.Linear(8, 3)
if os.environ.get("HOOKS") == "1":
    ConfigChecker(model=model, output_zip_path=sys.argv[2])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
logits = model(torch.randn(4, 8))
print("PEAK", float(logits.max()))  # the script's own x.max()
logits.sum().backward()
opt.step()
data = json.loads(next(Path(sys.argv[3]).rglob("dump.json")).read_text())["data"]
print("MAX", json.dumps({k: v["input_args"][0]["shape"] for k, v in data.items() if k.startswith("Tensor.max.")}))
"""


def _max_entries(tmp_path: Path, runs: dict[str, dict]) -> dict[str, dict]:
    """Per run (name -> extra environment; HOOKS=1: msprobe's ConfigChecker attached to the model): the dump's
    Tensor.max entries (name -> its tensor's shape) of one step that calls `logits.max()`. The runs go side by side."""
    import subprocess
    import sys

    from checks.validate import child
    from checks.validate.msprobe_bridge import write_dump_config

    procs = {}
    for name, extra in runs.items():
        work = tmp_path / name
        work.mkdir()
        config = write_dump_config(work / "dump.json", work / "dump", [0])
        env = {**os.environ, "NPU_VALIDATE_DUMP_CONFIG": str(config), **extra,
               "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        procs[name] = subprocess.Popen([sys.executable, "-c", _MAX_PROBE, child.__file__, str(work / "pack.zip"),
                                        str(work / "dump")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       env=env, cwd=work)
    found = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        line = [x for x in out.splitlines() if x.startswith("MAX ")]
        assert line, out[-2000:] + err[-3000:]
        found[name] = json.loads(line[0][4:])
    return found


def test_the_packs_statistics_leave_the_scripts_own_calls_their_numbers(tmp_path):
    """The config_check pack's statistics (max/min/mean/norm of the inputs and weights before every forward) are
    not dumped: the script's own `logits.max()` is Tensor.max.0 with the hooks attached, as in a run without them
    (where it is the only max), so a run with hooks and one without pair the same calls. A schema-1 bundle's comparing run (NPU_VALIDATE_PACK_STATS_DUMPED=1,
    set by validate --baseline) dumps them as that recording did: the script's call numbered after the pack's."""
    found = _max_entries(tmp_path, {"hooks": {"HOOKS": "1"}, "schema1": {"HOOKS": "1", "NPU_VALIDATE_PACK_STATS_DUMPED": "1"}})
    assert found["hooks"] == {"Tensor.max.0.forward": [4, 3]}, found["hooks"]
    # as recorded before: the pack's max of its input and of both parameters first, then the script's
    assert found["schema1"] == {"Tensor.max.0.forward": [4, 8], "Tensor.max.1.forward": [3, 8],
                                "Tensor.max.2.forward": [3], "Tensor.max.3.forward": [4, 3]}, found["schema1"]


def test_an_original_that_hangs_before_its_first_step_is_not_run_twice(tmp_path):
    """The run without the dump is for an original that FAILS under it; one that times out before its first step
    (a download that never ends) is reported once, at its timeout, not waited for a second time."""
    script = tmp_path / "hangs_gpu.py"
    script.write_text("import time\nimport torch\n\ntime.sleep(120)\nmodel = torch.nn.Linear(2, 2).cuda()\n")
    proc = run_cli("baseline", str(script), "--out", "bundle", "--steps", "2", "--timeout", "6", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr.decode()[-3000:]
    text = proc.stdout.decode() + proc.stderr.decode()
    assert "running it again without the dump" not in text and "nothing recorded" in text
    assert not (tmp_path / "bundle").exists()


@pytest.fixture(scope="module")
def lstm_host_a(tmp_path_factory):
    """The GPU host of lstm_lm_gpu.py: an LSTM language model whose detached hidden state is its next input."""
    cwd = tmp_path_factory.mktemp("lstm_host_a")
    proc = run_cli("baseline", str(CASES / "lstm_lm_gpu.py"), "--out", "bundle", "--archive", "--steps", str(STEPS),
                   "--dump-steps", "0", "-q", cwd=cwd)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return cwd


def _perturbed_state(host_b: Path) -> Path:
    """The bundle as a folder whose recorded hidden state (args.1.0, args.1.1) of pack steps 1 and 2 is what another
    device's numerics give (the mean moved by 4e-3 relative, as an H200 against the stand-in moved it), the tokens as
    recorded; its checksum updated."""
    with tarfile.open(host_b / "bundle.tar.gz") as tar:
        tar.extractall(host_b / "unpacked", filter="data")
    folder = host_b / "unpacked" / "bundle"
    path = folder / "data_fingerprint.json"
    fingerprint = json.loads(path.read_text())
    for step in ("1", "2"):
        for state in fingerprint["batches"][step]["args"]["1"].values():
            state["mean"] *= 1.004
    path.write_text(json.dumps(fingerprint, indent=1, sort_keys=True))
    manifest = json.loads((folder / "manifest.json").read_text())
    from checks.validate.bundle import sha256_file

    manifest["files"]["data_fingerprint.json"] = sha256_file(path)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return folder


def test_a_recurrent_state_that_follows_the_devices_numerics_is_not_named_as_data(lstm_host_a, tmp_path):
    """Seen on an H200 (pytorch/examples' word_language_model): the LSTM's (h, c), detached and passed back in, differ
    from pack step 1 as each device computes them; the bundle records them as the model's own outputs carried in, so
    validate names them in a note, not "different data", and the tokens still decide the data."""
    cwd, env = _host_b(tmp_path, lstm_host_a)
    with tarfile.open(cwd / "bundle.tar.gz") as tar:
        recorded = json.load(tar.extractfile("bundle/data_fingerprint.json"))
    assert recorded["carried"] == {"1": ["args.1.0", "args.1.1"], "2": ["args.1.0", "args.1.1"]}
    folder = _perturbed_state(cwd)
    proc = run_cli("validate", "--baseline", str(folder), str(CASES / "lstm_lm_npu.py"), "-q", "--out", "out",
                   cwd=cwd, env=env)
    text = proc.stdout.decode()
    assert proc.returncode == 0, text + proc.stderr.decode()[-3000:]
    report = json.loads((cwd / "out" / "validate.json").read_text())
    assert not [r for r in report["reasons"] if r.startswith("data:")] and report["losses"]["identical"] is True
    assert any(n.startswith("data: args.1.0, args.1.1 (msprobe pack steps 1, 2): the model's own outputs of the previous "
                            "forward carried in (a recurrent state)") for n in report["notes"]), report["notes"]
    smoke = json.loads((cwd / "out" / "migrated" / "smoke.json").read_text())
    assert smoke["loop"]["carried_inputs"] == recorded["carried"]


def test_other_tokens_beside_a_recurrent_state_are_still_the_data(lstm_host_a, tmp_path):
    """lstm_lm_tokens_npu.py feeds the tokens one position later: the data fails first, at pack step 0 (args.0)."""
    cwd, env = _host_b(tmp_path, lstm_host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "lstm_lm_tokens_npu.py"), "-q", "--out", "out",
                   "--no-dump", cwd=cwd, env=env)
    assert proc.returncode == 1, proc.stdout.decode() + proc.stderr.decode()[-3000:]
    reasons = json.loads((cwd / "out" / "validate.json").read_text())["reasons"]
    assert reasons[0].startswith("data: the batches differ from the recorded ones from msprobe pack step 0 (args.0"), reasons


@pytest.fixture(scope="module")
def manual_host_a(tmp_path_factory):
    """The GPU host of manual_lm_gpu.py: no optimizer, the parameters updated by hand (pytorch/examples'
    word_language_model), recorded with the API dump of its first 3 steps."""
    cwd = tmp_path_factory.mktemp("manual_host_a")
    proc = run_cli("baseline", str(CASES / "manual_lm_gpu.py"), "--out", "bundle", "--archive", "--steps", "4",
                   "--dump-steps", "3", "-q", cwd=cwd)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return cwd


def test_a_loop_updated_by_hand_is_dumped_step_by_step(manual_host_a):
    """Seen on an H200: word_language_model recorded with --dump-steps 3 held one dump folder (the dump was cut at
    optimizer steps only). Now each backward() counted as a step closes its dumped step: 3 folders, each with its
    forward and backward; the update by hand of a step (`Tensor.add_`) falls into the next one."""
    with tarfile.open(manual_host_a / "bundle.tar.gz") as tar:
        manifest = json.load(tar.extractfile("bundle/manifest.json"))
        smoke = json.load(tar.extractfile("bundle/smoke.json"))
        dumps = {m.name.split("/")[2]: list(json.load(tar.extractfile(m))["data"]) for m in tar.getmembers()
                 if m.name.startswith("bundle/dump/step") and m.name.endswith("/dump.json")}
    assert smoke["step_source"] == "backward" and len(manifest["losses"]) == 4
    assert manifest["dump_steps"] == manifest["dump_steps_requested"] == [0, 1, 2] and sorted(dumps) == ["step0", "step1", "step2"]
    for names in dumps.values():
        assert "Functional.linear.0.forward" in names and "Functional.linear.0.backward" in names, names
    assert not [n for n in dumps["step0"] if n.startswith("Tensor.add_.")]
    assert "Tensor.add_.0.forward" in dumps["step1"]
    assert dumps["step2"] == dumps["step1"]


def test_a_wrong_update_by_hand_is_named_at_the_dumped_step_it_runs_in(manual_host_a, tmp_path):
    """manual_lm_wrong_lr_npu.py updates with 1.2 times the learning rate: the loss diverges at step 2 and the recorded
    dump of step 2 names the update by hand there."""
    cwd, env = _host_b(tmp_path, manual_host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "manual_lm_wrong_lr_npu.py"), "-q", "--out",
                   "out", cwd=cwd, env=env)
    text = proc.stdout.decode()
    assert proc.returncode == 1, text + proc.stderr.decode()[-3000:]
    assert "loss diverges at step 2" in text and "msprobe API dump not compared" not in text, text
    api = json.loads((cwd / "out" / "validate.json").read_text())["api_compare"]
    assert api["dump_steps"] == [1, 2]
    first = api["first"]
    assert (first["step"], first["dump_folder"], first["api"]) == (2, "step1", "Tensor.add_.0.forward"), first
    assert first["message"] == "argument alpha differs: baseline -0.5, migrated -0.6", first
    assert "alpha=-args.lr * 1.2" in text


def test_a_correct_migration_of_a_loop_updated_by_hand_matches_its_recorded_dump(manual_host_a, tmp_path):
    cwd, env = _host_b(tmp_path, manual_host_a)
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(CASES / "manual_lm_npu.py"), "-q", "--out", "out",
                   "--dump", cwd=cwd, env=env)
    text = proc.stdout.decode()
    assert proc.returncode == 0, text + proc.stderr.decode()[-3000:]
    report = json.loads((cwd / "out" / "validate.json").read_text())
    assert report["losses"]["identical"] is True and report["api_compare"]["first"] is None, report["api_compare"]
    assert "API dump compare: no API differs beyond tolerance in step(s) 1" in text


def _pack_steps_in(pack: Path) -> dict[str, list[int]]:
    """The forwards (msprobe's step folders) each per-forward item of a config_check pack holds."""
    with zipfile.ZipFile(pack) as z:
        names = z.namelist()
    return {item: sorted({int(n.split("/")[1].removeprefix("step")) for n in names if n.startswith(item + "/step")})
            for item in ("dataset", "weights")}


def test_the_pack_covers_the_first_forwards_on_both_hosts_as_the_bundle_says(tmp_path):
    """The pack's dataset and weights items (msprobe collects them before every forward) for the first PACK_STEPS
    forwards of the recording and of the migrated run compared with it; --pack-steps 0 packs every forward, and a bundle
    that does not say (recorded before pack_steps) is compared with a migrated run that packs every forward too."""
    from checks.validate.bundle import FINGERPRINT_BATCHES
    from checks.validate.hosts import PACK_STEPS

    steps = PACK_STEPS + 3
    host_a = tmp_path / "host_a"
    host_a.mkdir()
    for out, extra in (("bundle", ()), ("every", ("--pack-steps", "0")), ("few", ("--pack-steps", "1"))):
        proc = run_cli("baseline", str(CASES / "train_gpu.py"), "--out", out, "--steps", str(steps), "--seed", "7", "-q",
                       "--dump-steps", "0", *extra, cwd=host_a)
        assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    manifest = json.loads((host_a / "bundle" / "manifest.json").read_text())
    assert manifest["pack_steps"] == PACK_STEPS and manifest["recorded_steps"] == steps
    first = list(range(PACK_STEPS))
    assert _pack_steps_in(host_a / "bundle" / "config_check_pack.zip") == {"dataset": first, "weights": first}
    assert json.loads((host_a / "every" / "manifest.json").read_text())["pack_steps"] is None
    every = _pack_steps_in(host_a / "every" / "config_check_pack.zip")["weights"]
    assert len(every) >= steps and every == list(range(len(every)))  # a forward per step at least (msprobe's own packs)
    # fewer than the data fingerprint reads is raised to its batches
    assert json.loads((host_a / "few" / "manifest.json").read_text())["pack_steps"] == FINGERPRINT_BATCHES
    assert _pack_steps_in(host_a / "few" / "config_check_pack.zip")["weights"] == list(range(FINGERPRINT_BATCHES))

    for name, packed in (("bundle", first), ("old", every)):
        cwd = tmp_path / f"host_b_{name}"
        shutil.copytree(host_a / "bundle", cwd / "bundle")
        if name == "old":  # a bundle recorded before the key: msprobe's every-forward packs on this side
            path = cwd / "bundle" / "manifest.json"
            data = json.loads(path.read_text())
            del data["pack_steps"]
            path.write_text(json.dumps(data))
        proc = run_cli("validate", "--baseline", "bundle", str(CASES / "train_npu.py"), "-q", "--out", "out", cwd=cwd)
        assert proc.returncode == 0, proc.stdout.decode()[-3000:] + proc.stderr.decode()[-3000:]
        assert _pack_steps_in(cwd / "out" / "migrated" / "config_check_pack.zip") == {"dataset": packed, "weights": packed}
        assert "weights pass" in proc.stdout.decode()


def test_an_original_that_trains_on_the_cpu_without_its_own_switch_is_said_so_on_both_hosts(tmp_path):
    """pytorch/examples' mnist_rnn uses the accelerator only with `--accel`: recorded without it on an H200, the bundle
    said "on NVIDIA H200" and nothing else while the model trained on the CPU, and the migrated run then failed
    "not on the NPU" as if the rewrite had lost the device. The recording says where the parameters were, and the
    comparison says the original did the same; with the switch, nothing is said."""
    script = ROOT / "tests" / "cudatwin_cases" / "accel_switch.py"
    host_a = tmp_path / "host_a"
    host_a.mkdir()
    proc = run_cli("baseline", str(script), "--out", "bundle", "--archive", "--steps", "3", "--dump-steps", "0", "-q", cwd=host_a)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert "note: the original's run: 4 of 4 optimized parameters are not on the GPU: 4 on cpu" in proc.stdout.decode()
    cwd, env = _host_b(tmp_path, host_a)
    # the script has nothing to rewrite: apply would give it unchanged, so it is its own migrated script
    proc = run_cli("validate", "--baseline", "bundle.tar.gz", str(script), "-q", "--out", "out", "--no-dump", cwd=cwd, env=env)
    assert proc.returncode == 1, proc.stdout.decode() + proc.stderr.decode()[-3000:]
    failed = [r for r in json.loads((cwd / "out" / "validate.json").read_text())["reasons"]
              if r.startswith("the migrated script failed its smoke run")]
    assert failed and "4 of 4 optimized parameters are not on the NPU: 4 on cpu" in failed[0], failed
    assert "(the original did not train on the GPU either: its parameters were 4 on cpu in the baseline run;" in failed[0]
    proc = run_cli("baseline", str(script), "--out", "with_switch", "--steps", "3", "--dump-steps", "0", "-q", "--", "--accel",
                   cwd=host_a)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert "not on the GPU" not in proc.stdout.decode()
