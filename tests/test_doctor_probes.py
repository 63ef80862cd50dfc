"""The doctor's torch probes: child processes (`python -m checks.child.doctor_probe`), run for real here
against fake torch / torch_npu packages that fail the way a host without CANN does, the CPU-backed
stand-in (checks/standin) for the matmul, and gloo on the CPU for the two-process all-reduce."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from migrate.doctor.checks import npu_usable, torch_npu_import
from migrate.doctor.result import CheckResult, Status
from migrate.doctor.runner import run_checks
from tests import doctor_fakes as fk

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = {"packages": CheckResult("packages", "", Status.PASS, "", (),
                                     facts={"torch_npu": "2.14.0"})}

FAKE_TORCH = "__version__ = '2.14.0'\n"
FAKE_TORCH_WITH_NPU = FAKE_TORCH + (
    "class npu:\n"
    "    @staticmethod\n"
    "    def is_available():\n"
    "        return {available}\n")
# The message torch's own _import_device_backends raises (torch/__init__.py), and the loader's
# message for a missing CANN library (see migrate/knowledge/explain.toml for both sources).
AUTOLOAD = ("raise RuntimeError('Failed to load the backend extension: torch_npu. You can disable "
            "extension auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.')\n")
NO_HCCL = ("raise ImportError('libhccl.so: cannot open shared object file: No such file or "
           "directory')\n")
SYMBOL = ("raise ImportError('/site/torch_npu/lib/libtorch_npu.so: undefined symbol: "
          "_ZN3c1017RegisterOperatorsD1Ev')\n")


def _site(tmp_path, torch_init, npu_init):
    site = tmp_path / "site"
    fk.package(site, "torch", torch_init)
    fk.package(site, "torch_npu", npu_init)
    return site


@pytest.mark.parametrize("torch_init, npu_init, known, fix_part", [
    (FAKE_TORCH, NO_HCCL, "libhccl-missing", "set_env.sh"),
    (AUTOLOAD, "", "backend-autoload", "TORCH_DEVICE_BACKEND_AUTOLOAD=0"),
    (FAKE_TORCH, SYMBOL, "torch-symbol-mismatch", "pip install torch=="),
], ids=["cann-not-sourced", "torch-npu-breaks-import-torch", "symbol-mismatch"])
def test_import_failure_decoded(tmp_path, torch_init, npu_init, known, fix_part):
    site = _site(tmp_path, torch_init, npu_init)
    result = torch_npu_import.run(fk.host(tmp_path, site=site), INSTALLED)
    assert result.status is Status.FAIL
    assert result.facts["known"][0] == known
    assert fix_part in result.fix


def test_import_ok_and_npu_available(tmp_path):
    site = _site(tmp_path, FAKE_TORCH_WITH_NPU.format(available=True), "__version__ = '2.14.0'\n")
    result = torch_npu_import.run(fk.host(tmp_path, site=site), INSTALLED)
    assert result.status is Status.PASS, result
    assert result.facts == {"ok": True, "available": True}


def test_import_ok_but_no_npu(tmp_path):
    site = _site(tmp_path, FAKE_TORCH_WITH_NPU.format(available=False), "")
    result = torch_npu_import.run(fk.host(tmp_path, site=site), INSTALLED)
    assert result.status is Status.FAIL
    assert "is_available() is False" in result.summary


def test_import_probe_crash_without_result(tmp_path):
    site = _site(tmp_path, "import os\nos._exit(3)\n", "")
    result = torch_npu_import.run(fk.host(tmp_path, site=site), INSTALLED)
    assert result.status is Status.FAIL
    assert "crashed without a result" in result.summary


def test_import_probe_timeout(tmp_path):
    site = _site(tmp_path, "import time\ntime.sleep(30)\n", "")
    host = fk.host(tmp_path, site=site, probe_timeout=1.0)
    result = torch_npu_import.run(host, INSTALLED)
    assert result.status is Status.FAIL
    assert "did not finish within 1 s" in result.summary


def test_import_skipped_without_torch_npu(tmp_path):
    none = {"packages": CheckResult("packages", "", Status.FAIL, "", (), facts={"torch_npu": None})}
    assert torch_npu_import.run(fk.host(tmp_path), none).status is Status.SKIP


def test_npu_usable_skipped_when_import_failed(tmp_path):
    failed = {"import": CheckResult("import", "", Status.FAIL, "", (), facts={"ok": False})}
    assert npu_usable.run(fk.host(tmp_path), failed).status is Status.SKIP


@pytest.mark.runtime
def test_npu_usable_matmul_on_standin(tmp_path):
    """Real torch + the CPU-backed torch_npu stand-in: device count 1, matmul on npu:0 checked
    against the CPU result."""
    host = fk.host(tmp_path, env={"PYTHONPATH": str(ROOT / "checks" / "standin")})
    ok = {"import": CheckResult("import", "", Status.PASS, "", (),
                                facts={"ok": True, "available": True})}
    result = npu_usable.run(host, ok)
    assert result.status is Status.PASS, result
    assert "torch.npu.device_count() = 1" in result.evidence


@pytest.mark.runtime
def test_allreduce_two_processes_gloo(tmp_path):
    host = fk.host(tmp_path)
    ranks = npu_usable.allreduce(host, world=2, backend="gloo", device="cpu", timeout=240)
    assert [d["got"] for _, d in ranks] == [3.0, 3.0], [o.stderr[-500:] for o, _ in ranks]


def test_allreduce_killed_at_timeout(tmp_path):
    """Ranks that cannot finish in time are killed and reported as timed out."""
    site = tmp_path / "site"
    fk.package(site, "torch", "import time\ntime.sleep(60)\n")
    host = fk.host(tmp_path, site=site)
    ranks = npu_usable.allreduce(host, world=2, backend="gloo", device="cpu", timeout=2)
    assert [o.returncode for o, _ in ranks] == [None, None]


@pytest.mark.runtime
def test_ready_end_to_end_on_a_fake_ascend_host(tmp_path):
    """Every check on one fake host that has it all: metadata for the pair, a sourced CANN tree,
    npu-smi and /dev/davinci0, the stand-in as torch_npu, clean env, both tools -> exit 0."""
    from migrate.doctor import releases

    rel = releases.find("2.14.0")
    site = tmp_path / "site"
    fk.dist_info(site, "torch", rel.torch_pin("x86_64"))
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    fk.dist_info(site, "mindstudio-probe", "26.2.0")
    fk.dist_info(site, "msprof-analyze", "26.2.0")
    fk.cann_python_deps(site)
    latest = fk.cann_tree(tmp_path / "Ascend" / "ascend-toolkit")
    fk.fake_npu_smi(tmp_path / "bin", fk.NPU_SMI_310P)
    fk.dev_dir(tmp_path / "dev", 1)
    env = dict(fk.sourced_env(latest),
               PYTHONPATH=f"{site}:{ROOT / 'checks' / 'standin'}")
    host = fk.host(tmp_path, env=env, python_version=tuple(
        map(int, rel.python["x86_64"][-1].split("."))))
    report = run_checks(host)
    assert [(r.id, r.status.value) for r in report.results] == [
        ("python", "pass"), ("packages", "pass"), ("cann", "pass"), ("driver", "pass"),
        ("cann_stack", "pass"), ("cann_python", "pass"), ("import", "pass"), ("npu", "pass"), ("env", "pass"), ("tools", "pass")], report
    assert report.exit_code == 0 and report.headline is None
    # the same host with CANN not sourced is not ready, and says what to source
    unsourced = dataclasses.replace(host, env={k: v for k, v in env.items()
                                              if not k.startswith(("ASCEND", "LD_"))},
                                    install_roots=(latest.parent,))
    report = run_checks(unsourced, only=("cann",))
    assert report.exit_code == 1
    assert report.results[0].fix == f"source {latest.parent / 'set_env.sh'}"


def test_matmul_failure_fix_comes_from_the_explain_table(tmp_path):
    """A device failing in the matmul child: the fix is the known error's (here 'No NPUs are
    available', a libtorch_npu.so message)."""
    site = tmp_path / "site"
    fk.package(site, "torch", FAKE_TORCH + (
        "class npu:\n"
        "    @staticmethod\n"
        "    def device_count():\n"
        "        raise RuntimeError('No NPUs are available')\n"))
    fk.package(site, "torch_npu", "")
    ok = {"import": CheckResult("import", "", Status.PASS, "", (),
                                facts={"ok": True, "available": True})}
    result = npu_usable.run(fk.host(tmp_path, site=site), ok)
    assert result.status is Status.FAIL
    assert result.summary == "torch.npu.device_count() failed"
    assert result.fix.startswith("no-npus: ")
