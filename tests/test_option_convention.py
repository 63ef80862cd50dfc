"""One option convention across commands (issue 27, ruff-like): `--format` + `-o/--output FILE` for
the run commands' reports with the older `--json FILE` kept one release (a deprecation line on stderr),
`npu-migrate rule CODE`, `--statistics` and `--exit-zero` for analyze/check, `apply --smoke -- ARGS`.
Static: CliRunner, the runners replaced by a recorded result where a run would be needed."""
from __future__ import annotations

import json
from collections import Counter

import checks.profile.run
import checks.smoke.run
from checks.profile.findings import ProfileResult
from checks.verdict.smoke import SmokeResult
from tests.helpers import ROOT, invoke_cli

CASE = ROOT / "fixtures" / "gpu_scripts" / "cnn_cifar"
DEPRECATED = "--json FILE is deprecated"


def test_rule_explains_one_code_from_the_rule_itself():
    from migrate.rules import rules_by_code

    rule = rules_by_code()["NPU101"]
    proc = invoke_cli("rule", "npu101")
    out = proc.stdout.decode()
    assert proc.returncode == 0
    assert out.startswith(f"NPU101 {rule.NAME} ({rule.CATEGORY}, {rule.SEVERITY}, fixed by `apply`)")
    assert rule.INVALID[0].code.strip() in out and "Flagged:" in out
    entry = json.loads(invoke_cli("rule", "NPU903", "--format", "json").stdout)
    assert entry["category"] == "file" and entry["docs"]
    missing = invoke_cli("rule", "NPU999")
    assert missing.returncode == 2 and "unknown code" in missing.stderr.decode()


def test_statistics_counts_the_findings_per_code_and_exit_zero_passes():
    report = json.loads(invoke_cli("analyze", str(CASE), "--format", "json", "--no-cache").stdout)
    expected = Counter(f["code"] for f in report["findings"])
    assert expected  # the fixture has findings: otherwise the test proves nothing
    proc = invoke_cli("analyze", str(CASE), "--statistics", "--no-cache")
    assert proc.returncode == 1
    rows = [line.split("\t") for line in proc.stdout.decode().splitlines()]
    assert {code: int(count) for count, code, _, _ in rows} == dict(expected)
    assert [int(r[0]) for r in rows] == sorted((int(r[0]) for r in rows), reverse=True)
    stats = json.loads(invoke_cli("check", str(CASE), "--statistics", "--format", "json", "--no-cache").stdout)
    assert {row["code"]: row["count"] for row in stats} == dict(expected)
    assert invoke_cli("check", str(CASE), "--no-cache").returncode == 1
    assert invoke_cli("check", str(CASE), "--no-cache", "--exit-zero").returncode == 0
    assert invoke_cli("analyze", str(CASE), "--no-cache", "--exit-zero").returncode == 0


def _smoke_result(script):
    return SmokeResult("pass", 0, "emulated", script, steps=2, requested_steps=2, losses=(0.5, 0.4))


def test_smoke_report_format_and_output_with_the_old_json_kept(monkeypatch, tmp_path):
    script = str(tmp_path / "train.py")
    monkeypatch.setattr(checks.smoke.run, "run_smoke", lambda script, **kw: _smoke_result(script))
    report = tmp_path / "r.json"
    proc = invoke_cli("smoke", script, "--format", "json", "-o", str(report))
    assert json.loads(report.read_text())["verdict"] == "pass"
    assert "smoke: PASS" in proc.stdout.decode() and DEPRECATED not in proc.stderr.decode()
    assert json.loads(invoke_cli("smoke", script, "--format", "json").stdout)["verdict"] == "pass"
    text = tmp_path / "r.txt"
    proc = invoke_cli("smoke", script, "-o", str(text))
    assert "smoke: PASS" in text.read_text() and not proc.stdout
    old = tmp_path / "old.json"
    proc = invoke_cli("smoke", script, "--json", str(old))
    assert json.loads(old.read_text()) == json.loads(report.read_text())
    assert DEPRECATED in proc.stderr.decode() and "--format json -o FILE" in proc.stderr.decode()
    assert invoke_cli("smoke", script, "--json", str(old), "--format", "json").returncode == 2


def test_profile_report_format_and_output(monkeypatch, tmp_path):
    script = str(tmp_path / "train.py")
    result = ProfileResult(script, "emulated", 0, steps=3, steps_run=4, findings=(), step_time_ms=10.0)
    monkeypatch.setattr(checks.profile.run, "run_profile", lambda script, **kw: result)
    report = tmp_path / "p.json"
    invoke_cli("profile", script, "--out", str(tmp_path / "o"), "--format", "json", "-o", str(report))
    assert json.loads(report.read_text())["script"] == script
    proc = invoke_cli("profile", script, "--out", str(tmp_path / "o"), "--json", "-")
    assert json.loads(proc.stdout)["script"] == script and DEPRECATED in proc.stderr.decode()


def test_apply_smoke_passes_the_arguments_after_the_double_dash(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(checks.smoke.run, "run_smoke", lambda script, **kw: seen.append(kw["script_args"]) or _smoke_result(script))
    out = tmp_path / "train_npu.py"
    proc = invoke_cli("apply", str(CASE / "train.py"), "-o", str(out), "--smoke", "--", "--epochs", "1", "-v")
    assert seen == [("--epochs", "1", "-v")], proc.stderr.decode()[-2000:]
    assert out.is_file()
    refused = invoke_cli("apply", str(CASE / "train.py"), "-o", str(tmp_path / "b.py"), "--", "--epochs", "1")
    assert refused.returncode == 2 and "add --smoke" in refused.stderr.decode()


def test_options_that_only_mean_something_for_ranks_are_refused_for_one_process(monkeypatch, tmp_path):
    """--progress-timeout and --rank-logs watch/keep torchrun's ranks: given to a one-process run they
    would do nothing, so the run is refused (exit 2, naming the option) instead of silently ignoring them."""
    script = str(tmp_path / "train.py")
    runs = []
    monkeypatch.setattr(checks.smoke.run, "run_smoke", lambda script, **kw: runs.append(kw) or _smoke_result(script))
    monkeypatch.setattr(checks.profile.run, "run_profile", lambda *a, **kw: runs.append(kw))
    for args, option in ((("smoke", script, "--progress-timeout", "30"), "--progress-timeout"),
                         (("smoke", script, "--rank-logs", str(tmp_path / "logs")), "--rank-logs"),
                         (("profile", script, "--progress-timeout", "30"), "--progress-timeout"),
                         (("validate", script, script, "--progress-timeout", "30"), "--progress-timeout")):
        proc = invoke_cli(*args)
        assert proc.returncode == 2 and option in proc.stderr.decode() and "--nproc-per-node" in proc.stderr.decode()
    assert runs == [] and not (tmp_path / "logs").exists()
    assert invoke_cli("smoke", script).returncode == 0 and len(runs) == 1  # without them it runs


def test_validate_report_format_and_output(monkeypatch, tmp_path):
    """validate follows the same --format/-o convention; the JSON is validate.json's content."""
    import checks.validate.run
    from checks.validate.report import terminal_text, to_json
    from checks.validate.run import ValidateResult

    result = ValidateResult("pass", 0, ("identical losses over 2 steps",), tmp_path / "out", True)
    monkeypatch.setattr(checks.validate.run, "run_validate", lambda *a, **kw: result)
    gpu, npu = str(tmp_path / "gpu.py"), str(tmp_path / "npu.py")
    proc = invoke_cli("validate", gpu, npu, "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == json.loads(json.dumps(to_json(result)))
    report = tmp_path / "v.json"
    proc = invoke_cli("validate", gpu, npu, "--format", "json", "-o", str(report))
    assert json.loads(report.read_text())["verdict"] == "pass" and terminal_text(result) in proc.stdout.decode()
    text = tmp_path / "v.txt"
    proc = invoke_cli("validate", gpu, npu, "-o", str(text))
    assert text.read_text().strip() == terminal_text(result).strip() and not proc.stdout


def _quiet_help(*command: str) -> str:
    text = invoke_cli(*command, "--help").stdout.decode()
    start = text.index("-q, --quiet")
    lines = [text[start:].splitlines()[0]]
    for line in text[start:].splitlines()[1:]:
        if line.lstrip().startswith("-"):
            break
        lines.append(line)
    return " ".join(" ".join(lines).split())


def test_quiet_means_only_the_result_for_every_run_command(monkeypatch, tmp_path):
    """-q of smoke, profile, validate and baseline: one help text, and each run gets no output stream and
    the terminal status line (its label names the command; validate's names the side)."""
    import checks.validate.baseline_record
    import checks.validate.run
    from checks.validate.bundle import BundleError
    from checks.validate.run import ValidateError, _for_side

    helps = {name: _quiet_help(name) for name in ("smoke", "profile", "validate", "baseline")}
    assert len(set(helps.values())) == 1, helps
    script = tmp_path / "train.py"
    script.write_text("print('hi')\n")
    runs = []
    monkeypatch.setattr(checks.smoke.run, "run_smoke", lambda script, **kw: runs.append(kw) or _smoke_result(script))
    for quiet in ((), ("-q",)):
        invoke_cli("smoke", str(script), *quiet)
        invoke_cli("profile", str(script), "--backend", "emulated", "--out", str(tmp_path / "p"), *quiet)
    assert [(kw["stream"] is None, kw["progress"]) for kw in runs] == [(False, False), (False, False),
                                                                        (True, True), (True, "profile")]
    seen = []

    def record(error):  # a runner that notes its options, then says it could not run (exit 2)
        def runner(*args, **kwargs):
            seen.append(kwargs)
            raise error("recorded")
        return runner

    monkeypatch.setattr(checks.validate.run, "run_validate", record(ValidateError))
    monkeypatch.setattr(checks.validate.baseline_record, "record_baseline", record(BundleError))
    for quiet in ((), ("-q",)):
        invoke_cli("validate", str(script), str(script), *quiet)
        invoke_cli("baseline", str(script), "--out", str(tmp_path / "b"), *quiet)
    assert [(kw["stream"] is None, kw["progress"]) for kw in seen] == [(False, False)] * 2 + [(True, True)] * 2
    common = {"script_args": {"baseline": (), "migrated": ()}}
    assert _for_side({**common, "progress": True}, "migrated")["progress"] == "validate migrated"
    assert _for_side({**common, "progress": "baseline"}, "baseline")["progress"] == "baseline"
    assert _for_side({**common, "progress": False}, "baseline")["progress"] is False


def test_quiet_analyze_and_check_print_the_findings_only(tmp_path):
    """As ruff's -q: the finding lines, no summary, nothing on stderr; the exit status unchanged."""
    loud, quiet = (invoke_cli("check", str(CASE), "--no-cache", *q) for q in ((), ("-q",)))
    assert loud.returncode == quiet.returncode == 1
    assert "check: " in loud.stderr.decode() and "Scanned" in loud.stdout.decode()
    lines = quiet.stdout.decode().splitlines()
    assert lines == [line for line in loud.stdout.decode().splitlines() if ": NPU" in line] and lines
    assert quiet.stderr.decode() == ""
    report = tmp_path / "a.json"
    loud = invoke_cli("analyze", str(CASE), "--no-cache", "--format", "json", "-o", str(report))
    quiet = invoke_cli("analyze", str(CASE), "--no-cache", "--format", "json", "-o", str(report), "-q")
    assert "report written to" in loud.stderr.decode() and quiet.stderr.decode() == ""
    assert quiet.returncode == 1 and json.loads(report.read_text())["findings"]
