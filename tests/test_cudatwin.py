"""The CUDA twin (checks/emulation/cudatwin.py) and what validate builds on it: an unmigrated GPU-only script
runs on this CPU with its CUDA code paths, the same autocast policy on both sides, errors at the
user's own file and line, msprobe's chatter in a log file (tests/cudatwin_cases/)."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checks.smoke.run import run_smoke
from checks.validate.copies import InstrumentedCopy, user_text
from checks.validate.log import SplitLog
from checks.validate.report import files_written
from checks.validate.run import RunInfo, precision_notes, swapped_hint
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "cudatwin_cases"
_runtime = pytest.mark.skipif(any(importlib.util.find_spec(n) is None for n in ("torch", "msprobe")),
                              reason="needs torch, msprobe")


# ---------------------------------------------------------------------------------------- the twin
@_runtime
@pytest.mark.runtime
def test_gpu_only_script_runs_on_the_twin_and_not_on_the_plain_cpu():
    twin = run_smoke(CASES / "gpu_only.py", backend="cuda-emulated", steps=3, timeout=180, seed=1)
    assert (twin.verdict, twin.exit_code) == ("pass", 0), (twin.reasons, twin.stderr[-2000:])
    assert twin.steps == 3 and twin.loss_device == "cuda" and twin.param_device == {"cuda": 4}
    assert "CUDA twin" in twin.note
    assert twin.autocast == {"policy": "off", "requested": {"float16": 3}}  # AMP regions entered, policy off
    plain = run_smoke(CASES / "gpu_only.py", backend="cpu", steps=3, timeout=180, op_trace=False)
    assert plain.exit_code == 1 and "No GPU found" in plain.stderr


@_runtime
@pytest.mark.runtime
@pytest.mark.parametrize("policy", ["off", "native"])
def test_ops_autocast_runs_in_float32_on_the_device_give_float32_on_the_emulations(tmp_path, policy):
    """Seen on an H200 (Pytorch-UNet --amp): F.softmax of float16 logits in an autocast region is float32 on CUDA
    (autocast's fp32_set_opt_dtype list; torch_npu registers the same for the NPU) and was float16 on the twin and
    the stand-in. Both emulations now give the device's dtypes: float32 for the float32 lists, the named dtype
    where the call names one, the input's for ops on no list."""
    npu_script = tmp_path / "autocast_float32_ops_npu.py"
    npu_script.write_text((CASES / "autocast_float32_ops.py").read_text()
                          .replace("import torch\n", "import torch\nimport torch_npu\n", 1)
                          .replace("torch.cuda", "torch.npu").replace('"cuda" if', '"npu" if'))
    expected = {"logits": "float16", "softmax": "float32", "softmax_named": "float16", "log_softmax": "float32",
                "exp": "float32", "sum": "float32", "cumsum": "float32", "pow": "float32", "layer_norm": "float32",
                "relu": "float16", "mse_loss": "float32"}
    for name, script, backend in (("twin", CASES / "autocast_float32_ops.py", "cuda-emulated"),
                                  ("stand-in", npu_script, "emulated")):
        facts = tmp_path / f"{name}.json"
        result = run_smoke(script, backend=backend, steps=2, timeout=180, autocast=policy, script_args=[str(facts)])
        assert result.exit_code == 0, (name, result.reasons, result.stderr[-2000:])
        assert json.loads(facts.read_text()) == expected, name


@_runtime
@pytest.mark.runtime
def test_draws_on_the_emulated_device_leave_the_cpu_generator_alone(tmp_path):
    """Seen on an H200 against the stand-in (pytorch/examples dcgan: noise drawn on the device): a real device
    draws from a generator of its own, so the DataLoader shuffles the same order whatever the device drew; the
    emulated devices (the twin, the torch_npu stand-in) now do the same, and the old shared stream stays behind
    NPU_MIGRATE_SHARED_DEVICE_GENERATOR=1 (validate against a plain-CPU original)."""
    npu_script = tmp_path / "device_random_npu.py"
    text = (CASES / "device_random.py").read_text()
    npu_script.write_text(text.replace("import torch\n", "import torch\nimport torch_npu\n", 1)
                          .replace("torch.cuda", "torch.npu").replace('"cuda" if', '"npu" if'))
    seen = {}
    for name, script, backend, env in (("twin", CASES / "device_random.py", "cuda-emulated", {}),
                                       ("stand-in", npu_script, "emulated", {}),
                                       ("shared", CASES / "device_random.py", "cuda-emulated",
                                        {"NPU_MIGRATE_SHARED_DEVICE_GENERATOR": "1"})):
        facts = tmp_path / f"{name}.json"
        result = run_smoke(script, backend=backend, steps=2, timeout=180, script_args=[str(facts)], env=env)
        assert result.exit_code == 0, (name, result.reasons, result.stderr[-2000:])
        seen[name] = json.loads(facts.read_text())
    for name in ("twin", "stand-in"):
        assert seen[name]["order"] == seen[name]["expected"], (name, seen[name])  # the CPU stream untouched
        assert seen[name]["device_replays"] and seen[name]["seeded_like_torch"], (name, seen[name])
    assert seen["shared"]["order"] != seen["shared"]["expected"]  # the old emulation: device draws shift the CPU stream


@_runtime
@pytest.mark.runtime
@pytest.mark.parametrize("policy, dtype", [("off", "torch.float16"), ("native", "torch.float16")])
def test_twin_answers_configured_device_and_autocast_policy(tmp_path, policy, dtype):
    facts_path = tmp_path / "facts.json"
    result = run_smoke(CASES / "twin_facts.py", backend="cuda-emulated", steps=1, timeout=180, autocast=policy,
                       script_args=[str(facts_path)], env={"NPU_MIGRATE_CUDA_SM": "9.0", "NPU_MIGRATE_DEVICE_COUNT": "4"})
    assert result.exit_code == 0, (result.reasons, result.stderr[-2000:])
    facts = json.loads(facts_path.read_text())
    assert facts["available"] and facts["count"] == 4
    assert facts["capability"] == [9, 0] and facts["major"] == 9 and facts["bf16"]
    assert isinstance(facts["version"], str) and facts["version"]
    assert facts["is_cuda"] and facts["param_is_cuda"] and facts["memory"] and facts["nccl"]
    assert facts["accelerator"] == "cuda"
    assert facts["triton"] is False  # inductor compiles CPU code, never asks libcuda (checks/emulation/cudatwin.hide_triton)
    assert facts["autocast"] == dtype and facts["cuda_amp"] == dtype


@_runtime
@pytest.mark.runtime
def test_smoke_says_could_not_run_for_a_script_that_does_not_parse_or_import(tmp_path):
    bad = tmp_path / "train.py"
    bad.write_text("import torch\n\nmodel = torch.nn.Linear(2, 2\n")
    r = run_smoke(bad, backend="cuda-emulated", steps=1, timeout=120)
    assert (r.verdict, r.exit_code) == ("error", 2)
    assert r.error_location == f"{bad}:3" and r.reasons[0].startswith("could not run: SyntaxError")
    bad.write_text("import torch\nimport a_module_nobody_installed\n")
    r = run_smoke(bad, backend="cuda-emulated", steps=1, timeout=120)
    assert r.exit_code == 2 and "a_module_nobody_installed" in r.reasons[0] and r.error_location == f"{bad}:2"


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3") or subprocess.run(
    ["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0, reason="needs a python without torch")
def test_no_torch_is_could_not_run_with_the_install_command(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    r = run_smoke(script, backend="cpu", steps=1, timeout=60, python="/usr/bin/python3", op_trace=False)
    assert r.exit_code == 2, (r.reasons, r.stderr)
    assert "/usr/bin/python3 -m pip install torch" in r.reasons[0]


# ---------------------------------------------------------------------------------------- validate
@_runtime
@pytest.mark.runtime
def test_validate_gpu_only_script_against_its_apply_output(tmp_path):
    """The issue's canonical failure: a GPU-only original could not even start as the baseline."""
    from checks.validate.run import run_validate

    migrated = tmp_path / "migrated" / "gpu_only.py"
    migrated.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "migrate", "apply", str(CASES / "gpu_only.py"), "-o", str(migrated)],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert migrated.is_file(), proc.stdout + proc.stderr
    terminal = io.StringIO()
    result = run_validate(CASES / "gpu_only.py", migrated, steps=3, out_dir=tmp_path / "out", timeout=300, dump=False,
                          stream=terminal)
    assert (result.verdict, result.exit_code) == ("pass", 0), result.reasons
    base, mig = result.run("baseline"), result.run("migrated")
    assert (base.backend, mig.backend) == ("cuda-emulated", "emulated") and result.equivalence
    assert base.losses == mig.losses and len(base.losses) == 3
    assert base.autocast == mig.autocast == "policy off; float16 x3"
    # msprobe's lines: in a log only (the hook's own pack .log or validate.log), never the terminal
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*.log"))
    assert "[INFO]" in logs and "[INFO]" not in terminal.getvalue()
    assert str(tmp_path / "out" / "validate.log") in terminal.getvalue()  # ... and its path is printed
    assert "validate.log" in result.files and "summary.md" in result.files and "losses.csv" in result.files
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "CUDA twin" in summary and "## Files written" in summary


# ---------------------------------------------------------------------------------------- units (no torch)
def test_split_log_keeps_msprobe_lines_and_warnings_off_the_terminal(tmp_path):
    terminal = io.StringIO()
    log = SplitLog(tmp_path / "v.log", terminal)
    log.write("2026-01-01 10:00:00 (123) [INFO] [config checking log] add weights info to zip\n")
    for _ in range(3):
        log.write("/x/y.py:16: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated.\n")
        log.write("  scaler = torch.cuda.amp.GradScaler()\n")
    log.write("epoch 1 loss 0.5\n")
    log.say("validate: running")
    log.close()
    assert terminal.getvalue() == "epoch 1 loss 0.5\nvalidate: running\n"
    text = (tmp_path / "v.log").read_text()
    assert text.count("FutureWarning") == 2  # once where it happened, once in the closing tally
    assert "    3x FutureWarning" in text and "[INFO]" in text and "epoch 1 loss 0.5" in text


def test_files_written_names_files_and_counts_deep_folders(tmp_path):
    for rel in ("losses.csv", "baseline/smoke.json", "config_check/bench/a/x.json", "config_check/bench/b/y.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert files_written(tmp_path, ("summary.md",)) == (
        "baseline/smoke.json", "losses.csv", "summary.md", "config_check/bench/ (2 files)")


def test_swapped_arguments_get_a_hint(tmp_path):
    gpu, npu = tmp_path / "train.py", tmp_path / "train_npu.py"
    gpu.write_text("import torch\nmodel.cuda()\n")
    npu.write_text("import torch\nimport torch_npu\nmodel.npu()\n")
    assert swapped_hint(gpu, npu) is None
    hint = swapped_hint(npu, gpu)
    assert "swapped" in hint and f"validate {gpu} {npu}" in hint


def test_error_text_points_at_the_users_file_and_line(tmp_path):
    copy = InstrumentedCopy(Path("/user/my_train.py"), Path("/tmp/npu-validate-1/run/migrated/train.py"),
                            Path("/x.zip"), (1, 1, 2, 3, 4), True, "")
    text = 'ValueError: boom (at /tmp/npu-validate-1/run/migrated/train.py:5 in main: f())\n' \
           '  File "/tmp/npu-validate-1/run/migrated/train.py", line 3, in <module>'
    assert user_text(text, copy) == ('ValueError: boom (at /user/my_train.py:4 in main: f())\n'
                                     '  File "/user/my_train.py", line 2, in <module>')


def test_dtype_difference_is_named_as_precision_not_the_rewrite():
    def run(side, dtype, autocast):
        return RunInfo(side, Path(f"{side}.py"), "emulated", 0, "pass", 1, (1.0,), dtype, (), True, "", autocast)

    notes = precision_notes((run("baseline", "float32", "policy off; float16 x2"),
                             run("migrated", "float16", "policy native; float16 x2")))
    assert any("float32 in the baseline and float16 in the migrated" in n and "not the rewrite" in n for n in notes)
    assert any("autocast differs" in n for n in notes)
    assert precision_notes((run("baseline", "float32", "p"), run("migrated", "float32", "p"))) == []


@_runtime
def test_fast_call_stack_matches_msprobes_and_is_installed_on_import():
    """validate's ConfigChecker records a stack per random call; ours must give msprobe's exact strings."""
    code = (
        "import inspect, sys\n"
        "import checks.child.msprobe_speedups as s\n"
        "s.install()\n"
        "from msprobe.core.config_check.checkers import random_checker as rc\n"
        "assert rc.get_call_stack is s.fast_call_stack\n"
        "import importlib; orig = importlib.reload(rc).get_call_stack\n"
        "def inner():\n"
        "    frame = inspect.currentframe()\n"
        "    return orig(frame), s.fast_call_stack(frame)\n"
        "def outer():\n"
        "    return inner()\n"
        "a, b = outer()\n"
        "assert a == b and len(a) >= 2, (a, b)\n"
    )
    proc = run_python("-c", code, cwd=ROOT, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_first_api_whose_dtype_differs_is_named():
    from checks.validate.msprobe_bridge import first_dtype_difference

    def row(name, bench, npu):
        return {"NPU Name": name, "Bench Name": name, "NPU Dtype": npu, "Bench Dtype": bench}

    rows = [row("Functional.linear.0.forward.input.0", "torch.float32", "torch.float32"),
            row("Functional.linear.0.forward.output.0", "torch.float32", "torch.float16"),
            row("Functional.relu.0.forward.output.0", "torch.float32", "torch.float16")]
    diff = first_dtype_difference(rows, 3)
    assert (diff.api, diff.kind, diff.step) == ("Functional.linear.0.forward", "dtype", 3)
    assert "float32 in the baseline and float16 in the migrated" in diff.message
    assert first_dtype_difference(rows[:1], 3) is None


@_runtime
@pytest.mark.runtime
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_twin_keeps_the_gpu_mark_through_multiprocessing_pickling(start_method):
    """Hogwild on the twin: parameters placed with .cuda() are still `is_cuda` in workers; with
    spawn they were pickled by torch.multiprocessing's reductions, which drop Python attributes."""
    r = run_smoke(CASES / "hogwild_cuda.py", backend="cuda-emulated", steps=3, timeout=240, script_args=[start_method],
                  op_trace=False)
    assert (r.verdict, r.exit_code, r.steps) == ("pass", 0, 3), (r.reasons, r.stderr[-2000:])
    assert r.child_steps == 6 and r.param_device == {"cuda": 4}
