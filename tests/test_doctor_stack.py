"""The CANN <-> torch_npu <-> driver pairing and CANN's Python dependencies, on fake installs laid
out as the vendor's version files are (tests/doctor_fakes.py quotes their source)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import tests.doctor_fakes as fk
from migrate.doctor import stack
from migrate.doctor.checks import cann, cann_python, cann_stack, packages
from migrate.doctor.result import CheckResult, Status

# a git directory of Ascend/pytorch (the search tool's `fetch` puts one here); absent: that half skips
MIRROR = Path(os.environ.get("ASCEND_PYTORCH_GIT_DIR", "/work/.mirror/Ascend+pytorch/repo"))


def _packages(torch: str, npu: str) -> dict:
    return {"packages": CheckResult("packages", "", Status.PASS, "",
                                    facts={"torch": torch, "torch_npu": npu})}


def _host(tmp_path, cann_version="8.5.0", driver="25.2.0", site=None):
    latest = fk.cann_tree(tmp_path / "Ascend" / "ascend-toolkit", cann_version)
    if driver:
        fk.driver_tree(tmp_path / "Ascend", driver)
    return fk.host(tmp_path, env=fk.sourced_env(latest), site=site)


# ------------------------------------------------------------------------- version files
def test_toolkit_version_is_the_version_key_not_innerversion(tmp_path):
    latest = fk.cann_tree(tmp_path / "tk", "8.5.0")
    assert stack.toolkit_info(latest)[0] == "8.5.0"
    result = cann.run(fk.host(tmp_path, env=fk.sourced_env(latest)), {})
    assert result.facts["version"] == "8.5.0"


def test_driver_version_read_from_version_info(tmp_path):
    host = _host(tmp_path, driver="24.1.rc1")
    assert cann_stack.installed_driver(host)[0] == "24.1.rc1"


# ------------------------------------------------------------------------- torch_npu vs CANN
def test_matching_torch_npu_cann_and_driver_pass(tmp_path):
    result = cann_stack.run(_host(tmp_path, "8.5.0", "25.2.0"), _packages("2.9.0", "2.9.0"))
    assert result.status is Status.PASS, result
    assert any("published for CANN 8.5.0" in e for e in result.evidence)
    assert any("25.2.X" in e for e in result.evidence)


def test_torch_npu_newer_than_installed_cann_fails_with_both_fixes(tmp_path):
    # torch_npu 2.9.0 is published for CANN 8.5.0; 2.9.0.post2 for CANN 9.0.0 -> older CANN 8.5.0
    result = cann_stack.run(_host(tmp_path, "8.5.0", "25.2.0"), _packages("2.9.0", "2.9.0.post2"))
    assert result.status is Status.FAIL
    assert "needs CANN 9.0.0, CANN 8.5.0 is installed" in result.summary
    assert "install CANN 9.0.0" in result.fix
    assert "pip install torch-npu==2.9.0 " in result.fix  # the release for CANN 8.5.0 + torch 2.9.0


def test_cann_rc_versions_order_before_the_final(tmp_path):
    # 2.8.0 is published for CANN 8.3.RC1; an 8.2.RC1 toolkit is older, 8.5.0 newer
    older = cann_stack.run(_host(tmp_path / "a", "8.2.RC1", None), _packages("2.8.0", "2.8.0"))
    newer = cann_stack.run(_host(tmp_path / "b", "8.5.0", None), _packages("2.8.0", "2.8.0"))
    assert older.status is Status.FAIL
    assert newer.status is Status.WARN and "newer" in newer.summary


def test_torch_npu_not_in_the_vendor_table_says_so(tmp_path):
    result = cann_stack.run(_host(tmp_path, "9.1.0", "26.1.1"), _packages("2.14.0", "2.14.0"))
    assert result.status is Status.PASS
    assert any("2.14.0 is not in the vendor's table" in e and "newest listed 2.12.0" in e
               for e in result.evidence)


# ------------------------------------------------------------------------- CANN vs driver
def test_driver_not_listed_for_the_cann_warns(tmp_path):
    result = cann_stack.run(_host(tmp_path, "9.1.0", "25.0.3"), _packages("2.12.0", "2.12.0"))
    assert result.status is Status.WARN
    assert "driver 25.0.3 is not among the Ascend HDK versions listed for CANN 9.1.0" in \
        result.summary


def test_cann_without_driver_data_is_not_judged(tmp_path):
    result = cann_stack.run(_host(tmp_path, "8.3.RC1", "24.1.rc2"), _packages("2.8.0", "2.8.0"))
    assert result.status is Status.PASS
    assert any("no vendor CANN/driver table recorded for CANN 8.3.RC1" in e
               for e in result.evidence)


def test_nothing_installed_skips(tmp_path):
    assert cann_stack.run(fk.host(tmp_path), {}).status is Status.SKIP


@pytest.mark.parametrize("driver,hdk,listed", [
    ("25.2.0", ["25.2.X"], True), ("26.0.rc1", ["26.0.RC1"], True),
    ("26.0.rc1.1", ["26.0.RC1"], True), ("25.20.0", ["25.2.X"], False),
    ("24.1.rc2", ["25.0.X"], False)])
def test_driver_listed(driver, hdk, listed):
    assert stack.driver_listed(driver, hdk) is listed


# ------------------------------------------------------------------------- CANN's Python deps
def _all_deps(site: Path, skip=(), versions=None):
    fk.cann_python_deps(site, skip, versions)


def test_fake_deps_cover_the_data():
    assert {d["dist"] for d in stack.python_deps()[0]} == set(fk.CANN_PYTHON_VERSIONS)


def test_cann_python_deps_all_present_pass(tmp_path):
    site = tmp_path / "site"
    _all_deps(site)
    result = cann_python.run(_host(tmp_path, site=site), {})
    assert result.status is Status.PASS, result


def test_cann_python_deps_missing_fail_with_pip_command(tmp_path):
    site = tmp_path / "site"
    _all_deps(site, skip=("decorator", "absl-py", "PyYAML"))
    result = cann_python.run(_host(tmp_path, site=site), {})
    assert result.status is Status.FAIL
    assert result.facts["missing"] == ["decorator", "PyYAML", "absl-py"]
    assert result.fix == "pip install 'decorator>=4.4.0' PyYAML absl-py"


def test_cann_python_dep_at_an_unlisted_version_warns(tmp_path):
    site = tmp_path / "site"
    _all_deps(site, versions={"protobuf": "5.29.3"})
    result = cann_python.run(_host(tmp_path, site=site), {})
    assert result.status is Status.WARN
    assert "protobuf 5.29.3 (CANN wants ==3.20.*)" in result.summary
    assert result.fix == "pip install 'protobuf==3.20.*'"


def test_cann_python_skipped_without_cann(tmp_path):
    done = {"cann": CheckResult("cann", "", Status.FAIL, "", facts={"installed": False})}
    assert cann_python.run(fk.host(tmp_path), done).status is Status.SKIP


# ------------------------------------------------------------------------- data provenance
def test_matrix_rows_come_from_the_vendor_table():
    data = stack.matrix()
    assert data["source"]["repo"] == "Ascend/pytorch" and len(data["source"]["commit"]) == 40
    assert {"torch_npu": "2.9.0", "branch": "v2.9.0-7.3.0", "torch": "2.9.0",
            "cann": "8.5.0"} in data["rows"]
    if not MIRROR.is_dir():
        pytest.skip("Ascend/pytorch mirror not on this machine")
    text = subprocess.run(["git", "--git-dir", str(MIRROR), "show",
                           f"{data['source']['commit']}:{data['source']['path']}"],
                          capture_output=True, text=True, check=True).stdout
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "build_cann_matrix", Path(__file__).parents[1] / "scripts" / "build_cann_matrix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.parse(text) == data["rows"]


def test_every_stack_entry_has_a_vendor_source():
    for entry in stack._stack()["driver"]:
        assert entry["source"].startswith("https://www.hiascend.com/")
    assert stack.python_deps()[1].startswith("https://www.hiascend.com/")


def test_packages_check_still_reads_torch_npu_for_the_pairing(tmp_path):
    site = tmp_path / "site"
    fk.dist_info(site, "torch", "2.9.0")
    fk.dist_info(site, "torch_npu", "2.9.0.post2", ["torch==2.9.0"])
    host = _host(tmp_path, "8.5.0", "25.2.0", site=site)
    done = {"packages": packages.run(host, {})}
    assert cann_stack.run(host, done).status is Status.FAIL


def test_packages_evidence_names_the_knowledge_line_for_an_unknown_release(tmp_path):
    site = tmp_path / "site"
    fk.dist_info(site, "torch", "2.2.0")
    fk.dist_info(site, "torch_npu", "2.2.0", ["torch==2.2.0"])
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert any(e.startswith("analyze / apply knowledge: the installed torch_npu 2.2.0 has no "
                            "knowledge line") for e in result.evidence), result.evidence
