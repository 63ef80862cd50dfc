"""`npu-migrate smoke --resume-check` (checks/smoke/resume_check.py) and the loop observations smoke reports
(checks/child/loop_observer.py wired into the smoke child): tests/resume_cases/loop.py, a correct CPU loop
that checkpoints and resumes, and the same loop with one planted defect each."""
from __future__ import annotations

import os

import pytest

LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resume_cases", "loop.py")


def test_compare_names_the_first_state_that_differs_and_when():
    """Pure: snapshots as the child writes them (no torch)."""
    from checks.smoke.resume_check import compare

    def snap(step, lr, rng, data=None):
        return {"step": step, "params": [1.0, 2.0], "optimizer": [3.0, 4.0], "lr": [lr], "scale": 8.0,
                "rng": {"torch": rng, "random": "r"}, "data": data}

    straight = [snap(1, 0.1, "a"), snap(2, 0.1, "b"), snap(3, 0.05, "c"), snap(4, 0.02, "d")]
    resumed = [snap(1, 0.05, "c"), snap(2, 0.05, "x")]  # saved after step 2: both differ one step after the restart
    diffs = compare(straight, resumed, 2)
    assert [(d.state, d.step) for d in diffs] == [("lr", 2), ("rng", 2)]  # in RESTART_STATE order
    assert diffs[1].straight == {"torch": "d"} and diffs[1].resumed == {"torch": "x"}  # only the generator that differs
    assert compare(straight, [snap(1, 0.05, "c"), snap(2, 0.02, "d")], 2) == []


@pytest.mark.runtime
@pytest.mark.parametrize("defect,lost", [
    ("none", ()),
    ("model-only", ("optimizer state", "learning rate", "loss scale", "RNG", "data position")),
    ("scaler-not-saved", ("loss scale",)),
    ("scheduler-not-restored", ("learning rate",)),
    ("rng-not-restored", ("RNG",)),
    ("data-reset", ("data position",)),
])
def test_resume_check_passes_a_correct_loop_and_names_each_lost_state(tmp_path, defect, lost):
    from checks.smoke.resume_check import run_resume_check

    r = run_resume_check(LOOP, resume_args="--resume {ckpt}", steps=3, backend="cpu", timeout=120, cwd=str(tmp_path),
                         script_args=("--ckpt", "ck.pt", "--defect", defect))
    assert r.saved_at == 4 and r.checkpoint == str(tmp_path / "ck.pt")  # saves every 2 steps: the first after 3
    assert len(r.straight_losses) == len(r.resumed_losses) == 3
    assert r.lost_at_restart == lost, r.reasons
    if defect == "none":
        assert (r.verdict, r.exit_code) == ("pass", 0), r.reasons
        assert r.straight_losses == r.resumed_losses and not r.differed
        assert r.holds == ("model", "optimizer", "scheduler", "scaler", "rng", "step") and r.lost == ()
        return
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert ", ".join(lost) in r.reasons[0]
    if defect == "model-only":
        assert r.holds == ("model",) and r.lost == ("optimizer", "scheduler", "scaler", "rng", "step")
    if defect == "scaler-not-saved":  # scaling by a power of two is exact: only the state tells
        assert r.straight_losses == r.resumed_losses and r.lost == ("scaler",)
    else:
        assert r.first_loss_difference is not None


@pytest.mark.runtime
def test_smoke_reports_loss_scale_clipping_on_scaled_gradients_and_checkpoints(tmp_path):
    from checks.smoke.run import run_smoke

    r = run_smoke(LOOP, steps=3, backend="cpu", timeout=120, cwd=str(tmp_path),
                  script_args=("--ckpt", "ck.pt", "--defect", "clip-scaled"))
    assert r.verdict == "pass", r.reasons
    loop = r.loop
    # init_scale 1024, growth every step; the run stops inside step 3's scaler.step, before its update
    assert [s["scale"] for s in loop["scaler_steps"]] == [2048.0, 4096.0] and loop["skipped_steps"] == []
    assert loop["clipped_scaled_gradients"] == [1, 2, 3]
    assert any(w.startswith("clip_grad_norm_ ran on loss-scaled gradients (3 of 3 calls") for w in r.warnings)
    [ckpt] = loop["checkpoints"]
    assert (ckpt["path"], ckpt["step"], ckpt["lost"]) == (str(tmp_path / "ck.pt"), 2, [])


def test_cli_resume_check_could_not_run_and_refuses_ranks(tmp_path):
    """No child starts: a missing script is exit 2 with the resume check's own verdict line, and the
    check runs one process only."""
    from tests.helpers import invoke_cli

    missing = str(tmp_path / "missing.py")
    r = invoke_cli("smoke", missing, "--resume-check", "--resume {ckpt}", "--json", str(tmp_path / "r.json"))
    assert r.returncode == 2
    import json

    data = json.loads((tmp_path / "r.json").read_text())
    assert data["verdict"] == "error" and "the first run could not train: script not found" in data["reasons"][0]
    (tmp_path / "s.py").write_text("print(1)\n")
    r = invoke_cli("smoke", str(tmp_path / "s.py"), "--resume-check", "", "--nproc-per-node", "2")
    assert r.returncode == 2 and b"not with --nproc-per-node" in r.stdout + r.stderr
