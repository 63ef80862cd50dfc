"""`npu-migrate smoke`: verdicts of small scripts run for real in child processes (tests/smoke_cases/).

The parent side never imports torch; every case runs the script through the bootstrap, mostly on the
emulated NPU (CPU-backed torch_npu stand-in), with 2-3 steps of a tiny model.
"""
from __future__ import annotations

import json
import os
import sys
import threading

import pytest

from checks.smoke.run import run_smoke

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smoke_cases")
pytestmark = pytest.mark.runtime


def case(name: str) -> str:
    return os.path.join(CASES, name)


def smoke(name, **kw):
    kw.setdefault("steps", 3)
    kw.setdefault("backend", "emulated")
    kw.setdefault("timeout", 120)
    return run_smoke(case(name), **kw)


def test_parent_side_does_not_import_torch():
    import subprocess

    code = "import sys, checks.smoke.run, migrate.commands.smoke; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(CASES) + "/..")
    assert out.stdout.strip() == "False"


def test_migrated_script_passes_with_losses_and_npu_placement():
    r = smoke("migrated_ok.py")
    assert (r.verdict, r.exit_code, r.backend) == ("pass", 0, "emulated"), r.reasons
    assert r.steps == 3 and len(r.losses) == 3 and len(r.step_times) == 3
    assert all(0.0 < x < 5.0 for x in r.losses)
    assert r.loss_dtype == "float32" and r.loss_device == "npu"
    assert r.param_device == {"npu": 4}
    assert r.note == "emulated: no Ascend NPU found; computed on CPU"
    assert r.peak_memory and r.peak_memory > 0
    assert r.ops_traced > 5 and not r.unsupported_ops


def test_stand_in_keeps_numerics_identical_to_the_cpu_baseline():
    """The GPU original on the CPU (backend cpu) and its migration on the stand-in: same seed, same losses, with
    the device's draws on the CPU stream (NPU_MIGRATE_SHARED_DEVICE_GENERATOR=1, what validate sets against a
    plain-CPU original). By default the stand-in's device draws come from a generator of its own, as a real NPU's
    do (checks/emulation/devicemap.device_generator): these cases draw their batches on the device, so they differ."""
    base = smoke("original_gpu.py", backend="cpu", seed=123)
    emu = smoke("migrated_ok.py", backend="emulated", seed=123, env={"NPU_MIGRATE_SHARED_DEVICE_GENERATOR": "1"})
    assert base.verdict == emu.verdict == "pass", (base.reasons, emu.reasons)
    assert base.backend == "cpu" and base.note is None and base.param_device == {"cpu": 4}
    assert base.losses == emu.losses
    own = smoke("migrated_ok.py", backend="emulated", seed=123, op_trace=False)
    assert own.verdict == "pass" and own.losses != emu.losses
    other = smoke("migrated_ok.py", backend="emulated", seed=124, op_trace=False)
    assert other.losses != emu.losses  # the seed is really applied


def test_a_real_devices_autocast_regions_are_counted_by_dtype(tmp_path):
    """On a real device (here the plain CPU, the one every host has) the run's report counts the autocast regions
    the script entered by the dtype they computed in (checks/child/autocast_regions.py), as the emulations do
    under their policy: validate judges an AMP run's float32 losses at that precision."""
    script = tmp_path / "cpu_amp.py"
    script.write_text("import torch\nmodel = torch.nn.Linear(4, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                      "for _ in range(5):\n    with torch.autocast('cpu', dtype=torch.bfloat16):\n"
                      "        out = model(torch.ones(3, 4))\n    with torch.autocast('cpu', enabled=False):\n"
                      "        pass\n    loss = out.float().pow(2).mean()\n    opt.zero_grad(); loss.backward(); opt.step()\n")
    r = run_smoke(script, backend="cpu", steps=3, timeout=120)
    assert r.verdict == "pass", (r.reasons, r.stderr[-2000:])
    assert r.autocast == {"policy": "device", "requested": {"bfloat16": 3}}, r.autocast
    plain = smoke("original_gpu.py", backend="cpu", steps=2)
    assert plain.verdict == "pass" and plain.autocast is None  # no region entered: nothing said


def test_script_that_raises_points_at_its_own_line():
    r = smoke("raises.py")
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert r.error_location == f"{case('raises.py')}:17"
    assert "ValueError: bad batch shape in step 2" in r.reasons[0]
    assert "raises.py:17" in r.reasons[0]
    assert r.steps == 2 and "Traceback" in r.traceback


def test_nan_loss_fails_and_stops_at_the_bad_step():
    r = smoke("nan_loss.py", steps=5)
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert r.steps == 2
    assert any("not finite at optimizer step 2" in x for x in r.reasons)


def test_npu_name_missing_in_real_torch_npu():
    r = smoke("missing_npu_api.py")
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert "AttributeError" in r.reasons[0] and "torch.npu" in r.reasons[0] and "nvtx" in r.reasons[0]
    assert r.error_location.endswith("missing_npu_api.py:10")


def test_npu_name_missing_depends_on_targeted_version():
    """A torch.npu name the newest release has and the oldest lacks: the stand-in follows the data."""
    from migrate import knowledge

    versions = knowledge.known_versions()
    old, new = versions[0], versions[-1]
    old_names = knowledge.load(old).module_names("torch_npu.npu") or frozenset()
    new_names = knowledge.load(new).module_names("torch_npu.npu") or frozenset()
    added = sorted(n for n in new_names - old_names if not n.startswith("_"))
    if not added:
        pytest.skip(f"torch.npu has no name added between {old} and {new}")
    script = case("npu_name_probe.py")
    r_old = run_smoke(script, steps=2, backend="emulated", torch_npu_version=old, timeout=120, script_args=[added[0]])
    r_new = run_smoke(script, steps=2, backend="emulated", torch_npu_version=new, timeout=120, script_args=[added[0]])
    assert r_new.verdict == "pass", r_new.reasons
    assert r_old.verdict == "fail" and "AttributeError" in r_old.reasons[0] and added[0] in r_old.reasons[0]
    assert (r_old.torch_npu_version, r_new.torch_npu_version) == (old, new)


def test_leftover_cuda_only_call_fails_as_on_an_ascend_host():
    r = smoke("cuda_leftover.py")
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert "torch.cuda.nvtx" in r.reasons[0] or "NVTX" in r.reasons[0]
    assert r.error_location.endswith("cuda_leftover.py:10")


def test_op_without_npu_kernel_fails_only_under_strict_ops():
    strict = smoke("unsupported_op.py", strict_ops=True)
    lenient = smoke("unsupported_op.py")
    assert (strict.verdict, strict.exit_code) == ("fail", 1)
    assert "aten::_linalg_eigh" in strict.unsupported_ops
    assert any("no NPU kernel" in x and "_linalg_eigh" in x for x in strict.reasons)
    assert lenient.verdict == "pass" and any("_linalg_eigh" in w for w in lenient.warnings)
    untraced = smoke("unsupported_op.py", strict_ops=True, op_trace=False)
    assert untraced.verdict == "pass" and untraced.ops_traced == 0


def test_script_that_never_steps_an_optimizer():
    r = smoke("no_step.py")
    assert (r.verdict, r.exit_code, r.steps) == ("fail", 1, 0)
    assert any("without a single optimizer step" in x for x in r.reasons)


def test_parameters_left_on_the_cpu_fail():
    r = smoke("params_on_cpu.py")
    assert (r.verdict, r.exit_code) == ("fail", 1)
    assert r.param_device == {"cpu": 4}
    assert any("not on the NPU" in x for x in r.reasons)


def test_amp_gradscaler_accumulation_records_unscaled_step_losses():
    plain = smoke("amp_accum.py", autocast="float32", op_trace=False, seed=5)  # regions disabled
    amp = smoke("amp_accum.py", autocast="native", seed=5)
    assert plain.verdict == "pass" and amp.verdict == "pass", (plain.reasons, amp.reasons)
    # Two micro-batches of loss/2 per optimizer step: the step loss is their sum, not scaled by 1024.
    assert all(0.3 < x < 1.5 for x in plain.losses), plain.losses
    assert amp.loss_dtype == "float32"  # cross_entropy autocasts to float32
    assert not amp.float64_ops  # GradScaler's own float64 bookkeeping is not the user's training
    assert amp.losses != plain.losses  # autocast really ran in float16 on the CPU
    assert all(abs(a - b) < 1e-2 for a, b in zip(amp.losses, plain.losses))


def test_bad_script_arguments_could_not_run():
    r = smoke("bad_args.py")
    assert (r.verdict, r.exit_code) == ("error", 2)


def test_could_not_run(tmp_path):
    missing = run_smoke(tmp_path / "nope.py", backend="emulated")
    assert (missing.verdict, missing.exit_code) == ("error", 2)
    assert "not found" in missing.reasons[0]
    bad_version = run_smoke(case("migrated_ok.py"), backend="emulated", torch_npu_version="0.1")
    assert bad_version.exit_code == 2 and "known versions" in bad_version.reasons[0]
    assert run_smoke(case("migrated_ok.py"), backend="gpu").exit_code == 2


def test_two_process_distributed_hccl_runs_on_gloo():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = {}

    def rank(r):
        env = {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2",
               "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
        results[r] = smoke("ddp_hccl.py", env=env, timeout=120)

    threads = [threading.Thread(target=rank, args=(r,)) for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in (0, 1):
        assert results[r].verdict == "pass", (r, results[r].reasons, results[r].stderr[-2000:])
        assert results[r].steps == 3 and results[r].param_device == {"npu": 6}  # with SyncBatchNorm's two
    assert results[0].losses != results[1].losses  # each rank saw its own data


def test_cli_json_report_and_exit_codes(tmp_path):
    import subprocess

    report = tmp_path / "r.json"
    root = os.path.dirname(CASES) + "/.."
    ok = subprocess.run([sys.executable, "-m", "migrate", "smoke", case("migrated_ok.py"), "--steps", "2",
                         "--backend", "emulated", "--json", str(report), "-q"], capture_output=True, text=True, cwd=root)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    data = json.loads(report.read_text())
    assert data["verdict"] == "pass" and data["steps"] == 2 and len(data["losses"]) == 2
    assert data["note"] == "emulated: no Ascend NPU found; computed on CPU"
    assert "emulated: no Ascend NPU found; computed on CPU" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "migrate", "smoke", case("bad_args.py"), "--steps", "2",
                          "--backend", "emulated", "-q", "--", "--epochs", "x"], capture_output=True, text=True, cwd=root)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    fail = subprocess.run([sys.executable, "-m", "migrate", "smoke", case("no_step.py"), "--backend", "emulated", "-q"],
                          capture_output=True, text=True, cwd=root)
    assert fail.returncode == 1 and "FAIL" in fail.stdout


def test_auto_backend_is_emulated_without_torch_npu():
    from checks.launch.backend import detect

    d = detect()
    try:
        import importlib.util

        has_npu = importlib.util.find_spec("torch_npu") is not None
    except ValueError:
        has_npu = False
    if has_npu:
        pytest.skip("torch_npu installed here")
    assert d.backend == "emulated"
    r = smoke("migrated_ok.py", backend="auto", steps=2)
    assert r.backend == "emulated" and r.note and any("auto -> emulated" in w for w in r.warnings)


def test_op_tracing_stops_once_the_op_set_is_stable_and_says_so():
    """Tracing costs a Python call per op; a training step repeats its ops, so it stops after two
    steps add nothing new. An op that first runs later is then missed: the report must say so."""
    early = smoke("unsupported_op.py", steps=8, strict_ops=True)
    assert "aten::_linalg_eigh" in early.unsupported_ops  # seen in step 1, before tracing stops
    assert any("op tracing stopped after step" in w for w in early.warnings)
    late = smoke("late_unsupported_op.py", steps=10)
    assert late.verdict == "pass" and not late.unsupported_ops
    [note] = [w for w in late.warnings if "op tracing stopped after step" in w]
    stopped = int(note.split("after step ")[1].split(":")[0])
    assert stopped < 8, note


def test_start_up_probes_answer_as_an_ascend_host(tmp_path):
    """What a script asks at start-up, answered as torch_npu 2.14.0 answers it on an Ascend host (a CPU
    build of torch; transfer_to_npu copies torch.npu onto torch.cuda and turns torch.jit.script off):
    no cudnn (this host's CUDA build would raise on the emulated capability), no capability unless
    TORCH_NPU_DEVICE_CAPABILITY names one, the device properties torch's inductor reads, TorchScript
    that compiles device-mapped factories, and a barrier on a device id."""
    facts_path = tmp_path / "facts.json"
    r = smoke("ascend_host_facts.py", steps=2, script_args=[str(facts_path)], op_trace=False,
              env={"TORCH_NPU_DEVICE_CAPABILITY": ""})
    assert (r.verdict, r.exit_code) == ("pass", 0), (r.reasons, r.stderr[-3000:])
    facts = json.loads(facts_path.read_text())
    assert facts["scripted_before"] == "[1.0, 1.0, 1.0]" and facts["scripted_after_is_function"]
    assert facts["cudnn_version"] is None and not facts["cudnn_available"] and not facts["cuda_built"]
    assert facts["version_cuda"] is None and facts["cuda_available"] and facts["capability"] is None
    assert "MISSING" not in facts["props"].values() and facts["props"]["total_memory"] > 0
    assert facts["triton"] is False  # torch.compile's inductor never asks the NPU CUDA-only triton probes
    assert facts["barrier"]
    assert facts["autocast_half_input"] == "torch.float16"  # autocast policy off (the default): device dtypes
