"""The smoke child/parent protocol: the shared report type, private torch/msprobe names behind
checks.emulation.compat, torch imported only once the child's sys.path is final, and the steps the harness
counts beyond plain optimizer loops (manual updates, forked workers)."""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from checks import module_file
from checks.launch.report import ChildReport, ExceptionInfo, OpTraceSummary, merge_process_reports
from checks.smoke.run import run_smoke

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "smoke_cases"
pytestmark = pytest.mark.runtime  # most tests here run smoke children (torch)


def smoke(name, **kw):
    kw.setdefault("steps", 3)
    kw.setdefault("backend", "emulated")
    kw.setdefault("timeout", 120)
    return run_smoke(str(CASES / name), **kw)


# ---------------------------------------------------------------- the report type
def test_child_report_round_trips_through_json():
    report = ChildReport(
        status="stopped", losses=(1.5, float("nan")), step_times=(0.1, 0.2), step_source="backward", child_steps=4,
        loss_dtype="float32", loss_device="npu", param_device={"npu": 2}, peak_memory=10, warnings=("w",),
        exception=ExceptionInfo("ValueError", "bad", "x.py", 3, "f", "raise", "tb"), exit_code=None,
        op_trace=OpTraceSummary({"aten::add.Tensor": 2}, ("aten::mode",), (), 2))
    import json

    back = ChildReport.from_json(json.loads(json.dumps(report.to_json())))
    assert back.losses[0] == 1.5 and back.losses[1] != back.losses[1]  # nan survives as nan
    assert dataclasses.replace(back, losses=report.losses[:1]) == dataclasses.replace(report, losses=report.losses[:1])


def test_child_report_json_is_what_asdict_gives():
    """The report the child writes every half second: to_json copies only its dataclasses, json.dumps writes it in one
    pass; the bytes are those of dataclasses.asdict + json.dump (validate's per-sample digests in `loop` included)."""
    import io
    import json

    loop = {"scaler_steps": [{"step": 1, "scale": 65536.0}], "skipped_steps": 0, "clips": [], "checkpoints": [],
            "steps": 2, "samples": [[f"{i:016x}" for i in range(j, j + 256)] for j in range(16)]}
    report = ChildReport(
        status="running", losses=(1.5, float("inf")), step_times=(0.1, 0.2), loss_dtype="float32", loss_device="npu",
        param_device={"npu": 2}, peak_memory=10, warnings=("w",), exception=ExceptionInfo("ValueError", "bad", "x.py", 3, "f", "raise", "tb"),
        op_trace=OpTraceSummary({"aten::add.Tensor": 2}, ("aten::mode",), (), 2), autocast={"policy": "p", "requested": {"float16": 1}},
        loop=loop)
    for each in (report, ChildReport(status="finished", losses=(0.5,))):
        reference = dataclasses.asdict(each)
        reference["losses"] = [x if x == x and abs(x) != float("inf") else repr(x) for x in each.losses]
        written = io.StringIO()
        json.dump(reference, written)
        assert json.dumps(each.to_json()) == written.getvalue()


def test_child_report_rejects_what_the_child_does_not_write():
    with pytest.raises(ValueError):
        ChildReport.from_json({"status": "stopped", "pid": 12})
    with pytest.raises(ValueError):
        ChildReport.from_json({"status": "sleeping"})


def test_every_report_field_is_read_by_the_parent():
    """A field the child writes and the parent never reads is dead protocol (the parent: the run, and
    the verdict of checks/verdict/smoke.py)."""
    parent = "".join(Path(module_file(name)).read_text() for name in ("checks.smoke.run", "checks.verdict.smoke"))
    for f in dataclasses.fields(ChildReport):
        assert re.search(rf"report\.{f.name}\b", parent), f"ChildReport.{f.name} is never read by the parent"


def test_worker_reports_merge_when_the_main_process_took_no_step():
    main = ChildReport(status="finished", loss_device="npu")
    w1 = ChildReport(status="stopped", losses=(1.0, 0.9), step_times=(0.1, 0.1), param_device={"npu": 4})
    w2 = ChildReport(status="running", losses=(1.0,), step_times=(0.1,))
    merged = merge_process_reports(main, [w2, w1])
    assert merged.losses == (1.0, 0.9) and merged.child_steps == 3 and merged.param_device == {"npu": 4}
    assert merge_process_reports(main, []) is main


# ---------------------------------------------------------------- private names behind compat
def test_compat_names_the_torch_version_when_a_private_name_moved(monkeypatch):
    import torch.optim.optimizer as optimizer_module

    from checks.emulation import compat

    monkeypatch.delattr(optimizer_module, "_global_optimizer_post_hooks")
    with pytest.raises(compat.CompatError) as err:
        compat.run_optimizer_hook_first(type("Handle", (), {"id": 1})())
    import torch

    assert "_global_optimizer_post_hooks" in str(err.value) and torch.__version__ in str(err.value)


def test_compat_names_the_msprobe_version_when_pt_compare_moved(monkeypatch):
    from importlib import metadata

    from checks.emulation import compat

    monkeypatch.setitem(sys.modules, "msprobe.pytorch.compare.pt_compare", None)
    with pytest.raises(compat.CompatError) as err:
        compat.msprobe_pt_compare()
    assert "pt_compare" in str(err.value) and metadata.version("mindstudio-probe") in str(err.value)


def test_compat_missing_grad_scaler_internal(monkeypatch):
    import torch

    from checks.emulation import compat

    monkeypatch.delattr(torch.amp.GradScaler, "_unscale_grads_")
    with pytest.raises(compat.CompatError, match=r"GradScaler\._unscale_grads_ .*torch 2\."):
        compat.grad_scaler_internals()


def test_no_private_torch_or_msprobe_name_outside_compat():
    private = re.compile(r"_python_dispatch|_unscale_grads_|_global_optimizer_post_hooks|_register_device_module"
                         r"|utils\._device\b|pt_compare import|msprobe\.core\.dump|msprobe\.pytorch\.dump"
                         r"|_get_accelerator|_fsdp_param|_init_sharded_param|init_unsharded_param|spawn\._wrap"
                         r"|_ExcludeDispatchKeyGuard|utils\._triton|_passing_sync_batchnorm_handle|jit\._builtins")
    offenders = []
    for path in (ROOT / "checks").rglob("*.py"):
        if path.name == "compat.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if private.search(line) and not line.lstrip().startswith("#"):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, offenders


# ---------------------------------------------------------------- torch only after sys.path is final
def _broken_torch_npu(tmp_path: Path) -> Path:
    """A torch_npu as installed on a host without CANN: importing it raises, and its `torch.backends`
    entry point makes torch >= 2.5 import it at `import torch`."""
    site = tmp_path / "site"
    (site / "torch_npu").mkdir(parents=True)
    (site / "torch_npu" / "__init__.py").write_text(
        'raise ImportError("libhccl.so: cannot open shared object file: No such file or directory")\n')
    info = site / "torch_npu-2.14.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.14.0\n")
    (info / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    return site


def test_broken_torch_npu_really_breaks_import_torch(tmp_path):
    """The fixture reproduces the host the next test guards against."""
    env = {**os.environ, "PYTHONPATH": str(_broken_torch_npu(tmp_path))}
    proc = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True, text=True, env=env)
    assert proc.returncode != 0 and "Failed to load the backend extension: torch_npu" in proc.stderr


def test_stand_in_loads_although_a_broken_torch_npu_is_installed(tmp_path):
    site = _broken_torch_npu(tmp_path)
    r = smoke("migrated_ok.py", env={"PYTHONPATH": f"{site}{os.pathsep}{ROOT}"})
    assert (r.verdict, r.backend) == ("pass", "emulated"), (r.reasons, r.stderr[-2000:])
    assert r.param_device == {"npu": 4} and r.loss_device == "npu"


# ---------------------------------------------------------------- steps beyond optimizer loops
def test_loop_without_optimizer_counts_a_step_per_backward():
    r = smoke("manual_sgd.py")
    assert (r.verdict, r.steps, r.step_source) == ("pass", 3, "backward"), r.reasons
    assert r.param_device == {"npu": 4}
    assert any("no optimizer step ever ran" in w for w in r.warnings)


def test_unstepped_optimizer_is_still_a_failure():
    r = smoke("no_step.py")
    assert (r.verdict, r.steps, r.step_source) == ("fail", 0, "optimizer")


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_steps_in_hogwild_workers_count(start_method):
    """The model is placed on the NPU in the main process and shared with the workers: with spawn it
    is pickled through torch.multiprocessing's reductions, and is still on the NPU there."""
    r = smoke("hogwild.py", script_args=[start_method])
    assert (r.verdict, r.steps) == ("pass", 3), (r.reasons, r.stderr[-2000:])
    assert r.child_steps == 6  # two workers, each stopped after the 3 requested steps
    assert r.param_device == {"npu": 4} and len(r.losses) == 3


def test_steps_in_spawned_processes_count():
    """torch.multiprocessing.spawn starts fresh interpreters: the hooks reach them through
    checks/child/spawn_main.py, which multiprocessing runs as their __mp_main__."""
    r = smoke("spawn_train.py")
    assert (r.verdict, r.steps, r.child_steps) == ("pass", 3, 6), (r.reasons, r.stderr[-2000:])
    assert r.param_device == {"npu": 4} and r.loss_device == "npu"


def test_fake_data_reaches_spawned_dataloader_workers():
    r = smoke("spawn_loader.py", fake_data=True)
    assert (r.verdict, r.steps) == ("pass", 3), (r.reasons, r.stderr[-2000:])
    assert r.param_device == {"npu": 2}


def test_bare_int_device_is_the_emulated_npu():
    """torch reads `.to(0)` as the accelerator's device 0 (npu:0 once torch_npu is imported): on the
    stand-in that is the emulated NPU, not torch's empty "npu" backend (NotImplementedError)."""
    r = smoke("int_device.py")
    assert (r.verdict, r.steps) == ("pass", 3), (r.reasons, r.stderr[-2000:])
    assert r.param_device == {"npu": 4} and r.loss_device == "npu"


def test_the_seed_reaches_spawned_processes():
    """Two runs with the same seed: a spawned worker (fresh interpreter) builds the same batches in
    both, as a forked one does, so validate can compare runs whose training happens in mp.spawn."""
    runs = [smoke("spawn_unseeded.py", seed=7, timeout=180) for _ in range(2)]
    for r in runs:
        assert (r.verdict, r.child_steps) == ("pass", 3), (r.reasons, r.stderr[-2000:])
    assert runs[0].losses == runs[1].losses


def test_an_emulation_artifact_is_named_as_what_the_stand_in_cannot_emulate():
    """torch's own "Could not run ... from the 'npu' backend" reads like a missing NPU kernel; under the
    stand-in it means a call the emulation did not map, and the reason says so (not on other backends)."""
    from checks.smoke.run import judge

    message = "Could not run 'aten::empty.memory_format' with arguments from the 'npu' backend."
    report = ChildReport(
        status="exception", losses=(), step_times=(), step_source="optimizer", child_steps=0, loss_dtype=None,
        loss_device=None, param_device={}, peak_memory=0, warnings=(), exit_code=None, op_trace=None,
        exception=ExceptionInfo("NotImplementedError", message, "x.py", 3, "<module>", "dist.barrier()", "tb"))
    kw = dict(returncode=1, timed_out=False, timeout=10, steps=2, strict_ops=False)
    emulated = judge("x.py", "emulated", report, **kw)
    assert emulated.verdict == "fail" and message in emulated.reasons[0]
    assert "the torch_npu stand-in cannot emulate this call" in emulated.reasons[0]
    assert not any("cannot emulate" in r for r in judge("x.py", "npu", report, **kw).reasons)


def test_a_spawned_rank_failure_shows_the_rank_cause_first():
    """mp.spawn re-raises a rank's error as ProcessRaisedException carrying the rank's traceback text:
    the reason starts with the rank's own error at the user's line, not with the spawn call."""
    r = run_smoke(os.path.join(CASES, "spawn_raises.py"), backend="cpu", steps=1, timeout=120, op_trace=False)
    assert r.verdict == "fail", r.reasons
    assert r.reasons[0].startswith("rank 0 failed with RuntimeError: mat1 and mat2 shapes cannot be multiplied"), r.reasons[0]
    assert "spawn_raises.py:10 in worker" in r.reasons[0].split(";")[0]


def test_an_exception_hydra_catches_is_reported_at_the_user_line(tmp_path):
    """Hydra prints a task's exception and exits 1 ("exited with status 1" would be all smoke could say);
    smoke runs it with HYDRA_FULL_ERROR=1, so the real exception and the user's frame are reported.
    Runs where hydra-core is installed (not in the development venv: checked with hydra-core 1.3.8)."""
    pytest.importorskip("hydra")
    r = run_smoke(os.path.join(CASES, "hydra_app", "train.py"), backend="cpu", steps=1, timeout=120, op_trace=False,
                  cwd=str(tmp_path))  # Hydra writes its outputs/ folder in the working directory
    assert r.reasons and r.reasons[0].startswith("RuntimeError: mat1 and mat2 shapes cannot be multiplied"), r.reasons
    assert "train.py:11 in main" in r.reasons[0]
