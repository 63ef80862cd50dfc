"""`npu-migrate profile`: planted performance pitfalls found at their lines, a clean loop with none, the
JSON contract and exit codes, and the Ascend-profiler orchestration against a fake torch_npu.profiler.

Scripts are in tests/profile_cases/; the expected (kind, line) pairs are read from their
`# PITFALL: kind` comments, so moving a line moves the expectation with it.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from checks import module_file
from checks.profile import cost
from checks.profile.findings import KINDS, PerfFinding
from checks.profile.fusedopt import fused_name
from checks.profile.result import fails
from checks.profile.run import parse_fail_on, run_profile

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile_cases")
FAKE_NPU = os.path.join(CASES, "fake_npu")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.runtime


def case(name: str) -> str:
    return os.path.join(CASES, name)


def planted(name: str) -> set[tuple[str, int]]:
    out = set()
    with open(case(name), encoding="utf-8") as f:
        for lineno, text in enumerate(f, 1):
            m = re.search(r"# PITFALL: ([\w, ]+)", text)
            if m:
                out |= {(kind.strip(), lineno) for kind in m.group(1).split(",")}
    return out


def profile(name, tmp_path, **kw):
    kw.setdefault("steps", 6)
    kw.setdefault("backend", "emulated")
    kw.setdefault("seed", 0)
    kw.setdefault("timeout", 300)
    return run_profile(case(name), out_dir=str(tmp_path / "out"), **kw)


@pytest.fixture(scope="module")
def pitfalls(tmp_path_factory):
    return profile("pitfalls.py", tmp_path_factory.mktemp("pitfalls"))


# ------------------------------------------------------------------------------ emulated measurement
def test_every_planted_pitfall_is_found_at_its_line_and_nothing_else(pitfalls):
    assert pitfalls.exit_code == 0, pitfalls.reasons
    expected = planted("pitfalls.py")
    assert {k for k, _ in expected} == set(KINDS)  # the script plants every kind
    found = {(f.kind, f.line) for f in pitfalls.findings}
    assert found == expected
    assert all(os.path.realpath(f.path) == os.path.realpath(case("pitfalls.py")) for f in pitfalls.findings)


def test_findings_carry_the_measured_details(pitfalls):
    by_kind: dict[str, list[PerfFinding]] = {}
    for f in pitfalls.findings:
        by_kind.setdefault(f.kind, []).append(f)
    # one host sync per step on each planted line (the harness's own loss.item() is not among them)
    assert sorted(f.what for f in by_kind["host_sync"]) == ["Tensor.__bool__", "Tensor.__repr__", "Tensor.item",
                                                          "boolean indexing"]
    assert all(f.per_step == 1 for f in by_kind["host_sync"])
    (dyn,) = by_kind["dynamic_shape"]
    assert dyn.what == "aten::randn" and dyn.detail["distinct_shapes"] == 3  # 4 + step % 3 rows
    (fallback,) = by_kind["cpu_fallback"]
    assert fallback.what == "aten::fmax" and fallback.per_step == 1
    (wide,) = by_kind["float64"]
    assert "aten::_to_copy (float64)" in wide.what and wide.per_step >= 3  # .double(), abs, mean
    (data,) = by_kind["data_loading"]
    assert data.detail["num_workers"] == 0 and data.detail["pin_memory"] is False
    assert data.detail["wait_ms_per_step"] >= 8 * 20 * 0.9  # 8 samples of 20 ms each
    (opt,) = by_kind["optimizer"]
    assert opt.detail["fused_alternative"] == "torch_npu.optim.NpuFusedAdamW" and opt.detail["tensors"] == 4
    # ranked by estimated cost, the DataLoader wait (measured, ~160 ms) first
    assert [f.cost_ms for f in pitfalls.findings] == sorted((f.cost_ms for f in pitfalls.findings), reverse=True)
    assert pitfalls.findings[0].kind == "data_loading"


def test_emulated_result_says_what_it_cannot_see(pitfalls):
    assert pitfalls.emulated and pitfalls.note.startswith("emulated")
    assert any("kernel" in x for x in pitfalls.cannot_see) and any("communication" in x for x in pitfalls.cannot_see)
    text = Path(pitfalls.summary_path).read_text(encoding="utf-8")
    assert "What emulation cannot see" in text and "memory bandwidth" in text
    for f in pitfalls.findings:
        assert f"`{f.path}:{f.line}`" in text


def test_clean_loop_gets_no_finding(tmp_path):
    result = profile("clean.py", tmp_path)
    assert result.exit_code == 0, result.reasons
    assert result.steps == 5 and result.findings == ()


def test_a_loop_without_optimizer_is_measured_per_backward_step(tmp_path):
    """Parameters updated by hand (no optimizer.step()): smoke counts one step per backward(), and profile
    measures those steps (it exited 2, "nothing measured", before)."""
    result = profile("hand_loop.py", tmp_path)
    assert result.exit_code == 0, result.reasons
    assert result.steps == 5 and len(result.step_times_ms) == 5
    assert {(f.kind, f.line) for f in result.findings} == planted("hand_loop.py")


# ------------------------------------------------------------------------------ CLI, JSON, exit codes
def test_cli_json_contract_and_fail_on(tmp_path):
    """Also --no-fusion: pitfalls.py plants a fusion chance (found by the fixture's run, which has the
    recorder on); switched off, no `fusion` finding."""
    from migrate.cli import cli

    report = tmp_path / "profile.json"
    runner = CliRunner()
    res = runner.invoke(cli, ["profile", case("pitfalls.py"), "--backend", "emulated", "--steps", "4", "-q",
                              "--json", str(report), "--out", str(tmp_path / "out"), "--fail-on", "host_sync|float64",
                              "--no-fusion"])
    assert res.exit_code == 1, res.output
    doc = json.loads(report.read_text())
    assert any(kind == "fusion" for kind, _ in planted("pitfalls.py"))
    assert [f for f in doc["findings"] if f["kind"] == "fusion"] == [] and doc["findings"]
    assert doc["backend"] == "emulated" and doc["emulated"] is True and doc["steps"] == 3
    assert doc["findings"] and all({"kind", "path", "line", "per_step", "message"} <= set(f) for f in doc["findings"])
    assert doc["failing"] == sum(1 for f in doc["findings"] if f["kind"] in ("host_sync", "float64"))
    assert (tmp_path / "out" / "summary.md").is_file()
    assert "host_sync" in res.output and "emulation cannot see" in res.output


@pytest.mark.parametrize("args, reason", [
    (["nope.py"], "script not found"),
    ([case("pitfalls.py"), "--steps", "2"], "at least 3"),
    ([case("pitfalls.py"), "--fail-on", "slow"], "unknown 'slow'"),
    ([case("raises_early.py"), "--steps", "4"], "nothing measured"),
])
def test_could_not_run_exits_2(tmp_path, args, reason):
    from migrate.cli import cli

    res = CliRunner().invoke(cli, ["profile", *args, "--backend", "emulated", "-q", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and reason in res.output, res.output


def test_fail_on_words():
    assert parse_fail_on(None) == () and parse_fail_on("none") == ()
    assert parse_fail_on("host_sync,medium") == ("host_sync", "medium")
    with pytest.raises(ValueError):
        parse_fail_on("hostsync")
    f = PerfFinding("float64", "x.py", 3, 1.0, "m", "a", cost_ms=0.5, severity="medium")
    assert fails(f, ("medium",)) and fails(f, ("low",)) and not fails(f, ("high",))
    assert fails(f, ("any",)) and fails(f, ("float64",)) and not fails(f, ("host_sync",)) and not fails(f, ())
    assert [cost.severity(ms) for ms in (cost.HIGH_MS, cost.MEDIUM_MS, cost.MEDIUM_MS / 2)] == ["high", "medium", "low"]


def test_parent_side_does_not_import_torch():
    code = "import sys, checks.profile.run, checks.profile.report, migrate.commands.profile; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------ knowledge data (wheel)
def test_fused_optimizer_names_come_from_the_knowledge_data():
    import torch

    from migrate import knowledge

    kb = knowledge.load("2.14.0")
    assert fused_name(kb, torch.optim.AdamW) == "torch_npu.optim.NpuFusedAdamW"
    assert fused_name(kb, torch.optim.SGD) == "torch_npu.optim.NpuFusedSGD"
    assert fused_name(kb, torch.optim.Adagrad) is None  # torch_npu has no NpuFusedAdagrad
    assert all(kb.has_api(n) for n in ("torch_npu.optim.NpuFusedAdamW", "torch_npu.optim.NpuFusedSGD"))


ASCEND_NAMES = ("profile", "schedule", "tensorboard_trace_handler", "_ExperimentalConfig", "ProfilerActivity",
                "ProfilerLevel", "AiCMetrics", "ExportType")


@pytest.mark.parametrize("version", __import__("migrate.knowledge", fromlist=["x"]).known_versions())
def test_ascend_profiler_names_exist_in_the_wheels(version):
    from migrate import knowledge

    names = knowledge.load(version).module_names("torch_npu.profiler")
    assert names is not None and set(ASCEND_NAMES) <= names


# ------------------------------------------------------------------------------ NPU orchestration (fake)
def test_ascend_profiler_orchestration_with_a_fake_torch_npu(tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", FAKE_NPU + os.pathsep + os.environ["PATH"])
    result = run_profile(case("npu_loop.py"), steps=5, backend="npu", out_dir=str(tmp_path / "out"), timeout=300,
                         env={"PYTHONPATH": FAKE_NPU, "FAKE_NPU_LOG": str(log)})
    assert result.exit_code == 0, (result.reasons, result.warnings)
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    events = [c["event"] for c in calls]
    assert events[:5] == ["experimental_config", "schedule", "tensorboard_trace_handler", "profile", "start"]
    assert events.count("step") == 5 and events[-1] == "stop"
    by = {c["event"]: c for c in calls}
    assert by["experimental_config"]["profiler_level"] == "Level1"
    assert {k: by["schedule"][k] for k in ("wait", "warmup", "active", "repeat")} == \
        {"wait": 1, "warmup": 1, "active": 2, "repeat": 1}
    assert by["profile"]["activities"] == ["CPU", "NPU"]
    assert by["profile"]["record_shapes"] and by["profile"]["profile_memory"] and by["profile"]["with_stack"]
    assert by["tensorboard_trace_handler"]["dir_name"] == str(tmp_path / "out" / "trace")
    # the active window (profiler steps 2 and 3) was saved after optimizer step 4
    assert by["trace_ready"]["recorded"] == [2, 3]
    (folder,) = result.trace["folders"]
    assert folder.endswith("_ascend_pt") and os.path.isdir(folder)
    (adv,) = result.trace["advisor"]
    assert adv["exit_code"] == 0 and adv["html"] and adv["xlsx"] and "AI CPU operator" in adv["tail"]
    summary = Path(result.summary_path).read_text(encoding="utf-8")
    assert os.path.basename(adv["html"][0]) in summary and os.path.basename(folder) in summary
    assert result.note is None and result.cannot_see == ()


def test_npu_backend_without_advisor_says_how_to_run_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin")
    monkeypatch.setattr("checks.profile.advisor.find_advisor", lambda: None)
    result = run_profile(case("npu_loop.py"), steps=4, backend="npu", out_dir=str(tmp_path / "out"), timeout=300,
                         env={"PYTHONPATH": FAKE_NPU, "FAKE_NPU_LOG": str(tmp_path / "log.jsonl")})
    assert result.exit_code == 0
    assert any("msprof-analyze advisor all -d" in w for w in result.warnings)


def test_npu_backend_whose_profiler_cannot_start_exits_2(tmp_path):
    """No torch_npu importable: the run itself works (the loop is plain CPU), the Ascend profiler does not."""
    result = run_profile(case("npu_loop.py"), steps=4, backend="npu", out_dir=str(tmp_path / "out"), timeout=300)
    assert result.exit_code == 2
    assert any("Ascend profiler failed" in r and "torch_npu" in r for r in result.reasons), result.reasons


def test_dynamic_shape_from_the_data_is_reported_where_it_enters(tmp_path):
    result = profile("dynamic_loader.py", tmp_path, steps=8)
    assert result.exit_code == 0, result.reasons
    # the DataLoader's share of a step is a timing on this CPU (its collate pads every batch): whether
    # it crosses the data_loading threshold depends on the machine's load, so only shapes are judged here
    shapes = [f for f in result.findings if f.kind != "data_loading"]
    assert {(f.kind, f.line) for f in shapes} == planted("dynamic_loader.py")
    (dyn,) = shapes
    assert dyn.detail["distinct_shapes"] == 2 and dyn.per_step > 10  # the model's ops follow the padded batch


def test_user_frames_are_the_scripts_folder_only(tmp_path):
    from checks.profile.frames import OTHER, USER, UserFrames

    script = tmp_path / "proj" / "train.py"
    frames = UserFrames(str(script))
    assert frames.kind(str(script)) == USER
    assert frames.kind(str(tmp_path / "proj" / "models" / "net.py")) == USER  # the user's own modules
    assert frames.kind(str(tmp_path / "proj" / ".venv" / "lib" / "site-packages" / "torch" / "nn.py")) == OTHER
    assert frames.kind(str(tmp_path / "elsewhere.py")) == OTHER
    assert frames.kind(module_file("checks.child.bootstrap")) == OTHER  # the harness is never the user
    assert frames.kind("<frozen runpy>") == OTHER


# ------------------------------------------------------------------------------ fusion chances
def planted_fused(name: str) -> dict[int, str]:
    """line -> the fused API a `FUSED: <api>` comment expects there."""
    out = {}
    with open(case(name), encoding="utf-8") as f:
        for lineno, text in enumerate(f, 1):
            m = re.search(r"FUSED: ([\w.]+)", text)
            if m and "PITFALL" in text:
                out[lineno] = m.group(1)
    return out


def test_fusion_chances_are_found_at_their_lines_with_the_fused_api(tmp_path):
    from migrate import knowledge

    result = profile("fused.py", tmp_path, fail_on="fusion")
    assert result.exit_code == 1 and result.failing == len(result.findings), result.reasons  # --fail-on fusion
    assert {f.line: f.what for f in result.findings} == planted_fused("fused.py")
    assert {f.kind for f in result.findings} == {"fusion"}
    kb = knowledge.load(result.torch_npu_version)
    by_api = {f.what: f for f in result.findings}
    for f in result.findings:
        assert kb.has_api(f.what) and f.detail["release"] == f"torch_npu {result.torch_npu_version}"
        assert f.detail["kernels_saved_per_step"] == (len(f.detail["ops"]) - 1) * f.per_step
    rms = by_api["torch_npu.npu_rms_norm"]  # two RMSNorm modules, each x.pow(2).mean ... * weight
    assert rms.per_step == 2 and rms.detail["ops"] == ["pow", "mean", "add", "rsqrt", "mul"]
    assert rms.advice.startswith("y = torch_npu.npu_rms_norm(x, weight, epsilon=eps)[0]")
    rotary = by_api["torch_npu.npu_rotary_mul"]  # q and k; the match spans rotate_half and its caller
    assert rotary.per_step == 2 and "lines 32, 33, 39" in rotary.detail["match"]
    assert by_api["torch_npu.npu_fusion_attention"].detail["ops"] == ["matmul", "mul", "masked_fill_", "softmax",
                                                                      "matmul"]


def test_a_rewritten_script_runs_on_the_stand_in_and_trains_like_the_original(tmp_path):
    """FUSED_REWRITE=1: npu_rms_norm, npu_rotary_mul, npu_fusion_attention, npu_swiglu and npu_group_norm_silu (the stand-in's
    reference math) in place of the hand-written ops; same losses, and no chance left where they were."""
    from checks.smoke.run import run_smoke

    kw = {"steps": 6, "backend": "emulated", "seed": 0, "timeout": 300}
    original = run_smoke(case("fused.py"), **kw)
    rewritten = run_smoke(case("fused.py"), env={"FUSED_REWRITE": "1"}, **kw)
    assert original.verdict == rewritten.verdict == "pass", (original.reasons, rewritten.reasons)
    assert len(original.losses) == len(rewritten.losses) == 6
    for a, b in zip(original.losses, rewritten.losses):
        assert abs(a - b) <= 1e-5 * abs(a)
    left = profile("fused.py", tmp_path, env={"FUSED_REWRITE": "1"})
    assert {f.what for f in left.findings} == {"torch_npu.npu_confusion_transpose"}  # the two not rewritten


STANDIN_FUSED_CHECK = r'''
import sys
sys.path.insert(0, sys.argv[1])
import torch
import torch_npu
from torch.nn import functional as F

torch.manual_seed(0)
close = lambda a, b: torch.allclose(a, b, rtol=1e-5, atol=1e-6)
x, w = torch.randn(2, 5, 16), torch.randn(16)
assert close(torch_npu.npu_rms_norm(x, w, epsilon=1e-5)[0], F.rms_norm(x, (16,), w, eps=1e-5)), "rms_norm"
assert close(torch_npu.npu_swiglu(x, dim=-1), F.silu(x[..., :8]) * x[..., 8:]), "swiglu"
# rotary, half mode and interleave against the complex rotation they implement
q, ang = torch.randn(2, 3, 5, 8), torch.randn(1, 1, 5, 4)
half_cos, half_sin = torch.cat((ang.cos(), ang.cos()), -1), torch.cat((ang.sin(), ang.sin()), -1)
rot = torch.view_as_real(torch.complex(q[..., :4], q[..., 4:]) * torch.polar(torch.ones_like(ang), ang))
assert close(torch_npu.npu_rotary_mul(q, half_cos, half_sin), torch.cat((rot[..., 0], rot[..., 1]), -1)), "rotary"
il_cos, il_sin = ang.cos().repeat_interleave(2, -1), ang.sin().repeat_interleave(2, -1)
rot = torch.view_as_real(torch.view_as_complex(q.reshape(2, 3, 5, 4, 2).contiguous()) * torch.polar(torch.ones_like(ang), ang))
assert close(torch_npu.npu_rotary_mul(q, il_cos, il_sin, rotary_mode="interleave"), rot.flatten(-2)), "interleave"
# attention: mask True = masked out (the opposite of scaled_dot_product_attention's boolean mask)
qh, kh, vh = torch.randn(3, 2, 4, 6, 8).unbind(0)
causal = torch.ones(6, 6, dtype=torch.bool).tril()
ref = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=causal, scale=0.3)
assert close(torch_npu.npu_fusion_attention(qh, kh, vh, 4, "BNSD", atten_mask=~causal, scale=0.3)[0], ref), "BNSD"
bsh = lambda t: t.transpose(1, 2).reshape(2, 6, 32)
out = torch_npu.npu_fusion_attention(bsh(qh), bsh(kh), bsh(vh), 4, "BSH", atten_mask=~causal, scale=0.3)[0]
assert close(out, bsh(ref)), "BSH"
m = torch.rand(5, 16) > 0.7
assert close(torch_npu.npu_scaled_masked_softmax(x, m, 0.5),
             torch.softmax((x * 0.5).masked_fill(m, float("-inf")), -1)), "scaled_masked_softmax"
g = torch.tensor([0.5991, 0.4094])
assert torch.allclose(torch_npu.fast_gelu(g), torch.tensor([0.4403, 0.2733]), atol=1e-4), "fast_gelu (docstring example)"
x2, b = torch.randn(2, 5, 16), torch.randn(16)
y, mean, rstd, s = torch_npu.npu_add_layer_norm(x, x2, w, b, 1e-5)
assert close(y, F.layer_norm(x + x2, (16,), w, b, 1e-5)) and close(s, x + x2), "add_layer_norm"
img, gw, gb = torch.randn(2, 8, 4, 4), torch.randn(8), torch.randn(8)
out, mean, rstd = torch_npu.npu_group_norm_silu(img, gw, gb, 4, 1e-5)
assert close(out, F.silu(F.group_norm(img, 4, gw, gb, 1e-5))) and mean.shape == (2, 4), "group_norm_silu"
assert close(torch_npu.npu_confusion_transpose(x, (0, 2, 1), (2, 16, 5), True), x.permute(0, 2, 1)), "confusion"
# the fused optimizers the optimizer finding suggests: the same updates as torch's (defaults included);
# reachable as torch_npu.optim.X after `import torch_npu` alone, as the real package imports it
assert torch_npu.optim.NpuFusedAdamW.__name__ == "NpuFusedAdamW", "torch_npu.optim without importing it"
from torch_npu.optim import NpuFusedAdam, NpuFusedAdamW
for fused, plain in ((NpuFusedAdamW, torch.optim.AdamW), (NpuFusedAdam, torch.optim.Adam)):
    nets = [torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)]
    nets[1].load_state_dict(nets[0].state_dict())
    opts = [plain(nets[0].parameters(), lr=0.1, weight_decay=0.01), fused(nets[1].parameters(), lr=0.1)]
    if fused is NpuFusedAdam:
        opts[1] = fused(nets[1].parameters(), lr=0.1, weight_decay=0.01)
    for _ in range(3):
        for net, opt in zip(nets, opts):
            opt.zero_grad()
            net(torch.ones(3, 4)).pow(2).sum().backward()
            opt.step()
    assert torch.equal(nets[0].weight, nets[1].weight), fused.__name__
from torch_npu.optim import NpuFusedSGD
for kw in ({"momentum": 0.9, "weight_decay": 0.01}, {"momentum": 0.9, "nesterov": True}, {"dampening": 0.1}):
    nets = [torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)]
    nets[1].load_state_dict(nets[0].state_dict())
    opts = [torch.optim.SGD(nets[0].parameters(), lr=0.1, **kw), NpuFusedSGD(nets[1].parameters(), lr=0.1, **kw)]
    for _ in range(3):
        for net, opt in zip(nets, opts):
            opt.zero_grad()
            net(torch.ones(3, 4)).pow(2).sum().backward()
            opt.step()
    assert torch.equal(nets[0].weight, nets[1].weight), f"NpuFusedSGD {kw}"
assert float(opts[1].clip_grad_norm_fused_(1e-3)) > 0 and float(nets[1].weight.grad.norm()) <= 1.01e-3, "clip"
print("ok")
'''


def test_stand_in_fused_apis_compute_their_documented_math():
    """Each fused API profile suggests, against torch's own op for the same math (F.rms_norm,
    scaled_dot_product_attention, layer_norm, group_norm, a complex rotation) or the docstring's example."""
    from tests.helpers import run_python

    proc = run_python("-c", STANDIN_FUSED_CHECK, os.path.join(ROOT, "checks", "standin"), text=True, cwd=ROOT,
                      timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-2000:]


def test_the_dataloaders_own_work_is_no_fusion_chance(tmp_path):
    """A Dataset's __getitem__ in the user's file computing an RMSNorm: host work inside the DataLoader,
    not the step's compute (the recorder skips it, as the tracer and host_sync do; recording it also
    inflated the measured data-loading wait)."""
    result = profile("loader_norm.py", tmp_path, fail_on="fusion")
    assert result.exit_code == 0 and result.steps >= 5, result.reasons
    assert [f for f in result.findings if f.kind == "fusion"] == []
