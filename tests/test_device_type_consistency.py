"""apply rewrites a device-type variable's value and its comparisons together: the migrated script,
on the NPU stand-in, takes the branches the original takes on the CUDA twin (fused AdamW, pinned
memory, autocast) and trains to the same losses. Before the fix the condition `"cuda" in device`
and the compare `device_type == "cuda"` became "npu" but the assigned "cuda" did not, so the
migrated script silently took the CPU branches (found on a real char-level GPT training script)."""

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

ROOT = Path(__file__).resolve().parent.parent
CASE = Path(__file__).resolve().parent / "cudatwin_cases" / "device_type_branches.py"


def _apply(tmp_path: Path) -> Path:
    migrated = tmp_path / "migrated" / CASE.name
    migrated.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "migrate", "apply", str(CASE), "-o", str(migrated)],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert migrated.is_file(), proc.stdout + proc.stderr
    return migrated


def test_apply_rewrites_the_device_type_value_with_its_comparisons(tmp_path):
    text = _apply(tmp_path).read_text()
    assert 'device_type = "npu" if "npu" in device else "cpu"' in text
    assert 'fused = amp_device_type == "npu"' in text and 'pin = device_type == "npu"' in text
    assert 'parser.add_argument("--device", default="npu")' in text
    assert '"cuda"' not in text.split('"""', 2)[2]  # no CUDA device string left in the code


@pytest.mark.runtime
@pytest.mark.skipif(any(importlib.util.find_spec(n) is None for n in ("torch", "msprobe")), reason="needs torch, msprobe")
def test_migrated_script_takes_the_originals_branches(tmp_path):
    migrated = _apply(tmp_path)
    facts = {}
    for side, script, backend in (("original", CASE, "cuda-emulated"), ("migrated", migrated, "emulated")):
        path = tmp_path / f"{side}.json"
        result = run_smoke(script, backend=backend, steps=4, timeout=240, seed=0, script_args=[str(path)], op_trace=False,
                           cwd=tmp_path)
        assert result.exit_code == 0, (side, result.reasons, result.stderr[-2000:])
        facts[side] = (json.loads(path.read_text()), result.losses)
    assert facts["original"][0] == {"fused": True, "pin": True, "autocast": True}  # the CUDA branches
    assert facts["migrated"] == facts["original"]  # same branches, identical losses


def test_cuda_device_arguments_reach_the_migrated_run_as_npu():
    from checks.validate.args import migrated_args, note

    args = ["--device=cuda", "--gpu", "cuda:1", "--name=cuda_graphs", "cuda-like", "--backend", "nccl", "-d=cuda:0", "x"]
    new, changed = migrated_args(args)
    assert new == ("--device=npu", "--gpu", "npu:1", "--name=cuda_graphs", "cuda-like", "--backend", "nccl", "-d=npu:0", "x")
    assert changed == (("--device=cuda", "--device=npu"), ("cuda:1", "npu:1"), ("-d=cuda:0", "-d=npu:0"))
    assert "--device=cuda -> --device=npu" in note(changed) and note(()) is None
    assert migrated_args(["--lr=0.1", "cudaX"]) == (("--lr=0.1", "cudaX"), ())


@pytest.mark.runtime
@pytest.mark.skipif(any(importlib.util.find_spec(n) is None for n in ("torch", "msprobe")), reason="needs torch, msprobe")
def test_validate_with_a_cuda_device_argument_compares_the_same_branches(tmp_path):
    """`validate train.py migrated.py -- --device=cuda`: the migrated script given "cuda" again would
    compute device_type "cpu" (its test is now `"npu" in device`) and run unfused AdamW."""
    from checks.validate.run import run_validate

    migrated = _apply(tmp_path)
    result = run_validate(CASE, migrated, steps=3, out_dir=tmp_path / "out", timeout=300, dump=False,
                          script_args=["--device=cuda"], stream=io.StringIO())
    assert (result.verdict, result.exit_code) == ("pass", 0), result.reasons
    base, mig = result.run("baseline"), result.run("migrated")
    assert base.losses == mig.losses and len(base.losses) == 3
    assert base.autocast == mig.autocast  # both entered the autocast region
    assert any("--device=cuda -> --device=npu" in n for n in result.notes)
