"""`npu-migrate doctor` checks, each on fake environments built here (pass and fail paths).

Static: the checks never import torch; the torch probes run in child processes (tested in
test_doctor_probes.py).
"""
from __future__ import annotations

import json
import sys

import pytest

from migrate.doctor import releases
from migrate.doctor.checks import cann, driver, env_vars, packages, python_version, tools
from migrate.doctor.result import Status
from tests import doctor_fakes as fk


# ---------------------------------------------------------------------------------- python
def _data():
    from importlib import resources

    return json.loads(resources.files("migrate.knowledge").joinpath(
        "data", "releases.json").read_text())


def test_python_supported_by_target_release(tmp_path):
    data = _data()["torch_npu"]["2.14.0"]
    ok = data["python"]["x86_64"][0]
    host = fk.host(tmp_path, python_version=tuple(map(int, ok.split("."))),
                   target_torch_npu="2.14.0")
    result = python_version.run(host, {})
    assert result.status is Status.PASS, result
    assert f"python {ok}" in result.summary


def test_python_without_a_wheel_fails_and_names_a_supported_one(tmp_path):
    data = _data()["torch_npu"]["2.14.0"]["python"]["x86_64"]
    host = fk.host(tmp_path, python_version=(3, 7), target_torch_npu="2.14.0")
    result = python_version.run(host, {})
    assert result.status is Status.FAIL
    assert f"python{data[-1]} -m venv" in result.fix


def test_python_target_follows_installed_torch_npu(tmp_path):
    """Without --torch-npu-version, the installed torch_npu's release decides."""
    site = tmp_path / "site"
    fk.dist_info(site, "torch_npu", "2.1.0.post17", ["torch==2.1.0"])
    result = python_version.run(fk.host(tmp_path, site=site, python_version=(3, 11)), {})
    assert "torch_npu 2.1.0.post17" in " ".join(result.evidence)


# -------------------------------------------------------------------------------- packages
def _pair(arch="x86_64"):
    rel = releases.find("2.14.0")
    return rel, rel.torch_pin(arch)


def test_packages_pair_passes(tmp_path):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin)
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.PASS, result
    assert result.facts["torch_npu"] == rel.version


def test_packages_mismatch_names_the_pair(tmp_path):
    """torch 2.14.1 beside torch_npu 2.14.0, whose METADATA pins torch==2.14.0.*."""
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", "2.14.1")
    fk.dist_info(site, "torch_npu", "2.14.0", [rel.requirement("x86_64")])
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.FAIL
    assert "does not pair" in result.summary
    assert f"torch=={pin}" in result.fix


def test_packages_missing_torch_npu_fix_names_release_for_installed_torch(tmp_path):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin)
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.FAIL
    assert "torch_npu is not installed" in result.summary
    wanted = releases.for_torch(pin, "x86_64")[0].version
    assert f"torch-npu=={wanted}" in result.fix


def test_packages_torch_without_any_release_gets_the_newest_pair(tmp_path):
    site = tmp_path / "site"
    fk.dist_info(site, "torch", "1.0.0")
    result = packages.run(fk.host(tmp_path, site=site), {})
    newest = releases.releases()[0]
    assert result.status is Status.FAIL
    assert f"torch-npu=={newest.version}" in result.fix
    assert f"torch=={newest.torch_pin('x86_64')}" in result.fix


def test_packages_torchvision_mismatch(tmp_path):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin)
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    fk.dist_info(site, "torchvision", "0.1.0", ["torch==1.0.0"])
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.FAIL
    assert "torchvision 0.1.0 needs torch==1.0.0" in result.summary
    wanted = releases.torchvision_for_torch(pin)
    assert wanted and f"torchvision=={wanted[0]}" in result.fix


@pytest.mark.parametrize("version, requires", [
    ("+cu130", []), ("", ['nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"'])],
    ids=["local-label", "pypi-default-build"])
def test_packages_cuda_build_of_torch_beside_nvidia_warns(tmp_path, version, requires):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin + version, requires)
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    fk.dev_dir(tmp_path / "dev", 0)
    (tmp_path / "dev" / "nvidia0").write_text("")
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.WARN
    assert "download.pytorch.org/whl/cpu" in result.fix


def test_packages_cuda_build_without_nvidia_is_harmless(tmp_path):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin + "+cu130")
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    fk.dev_dir(tmp_path / "dev", 1)
    result = packages.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.PASS
    assert any("harmless here" in e for e in result.evidence)


def test_packages_target_version_differs_from_installed(tmp_path):
    rel, pin = _pair()
    site = tmp_path / "site"
    fk.dist_info(site, "torch", pin)
    fk.dist_info(site, "torch_npu", rel.version, [rel.requirement("x86_64")])
    older = releases.find("2.13.0")
    result = packages.run(fk.host(tmp_path, site=site, target_torch_npu="2.13.0"), {})
    assert result.status is Status.FAIL
    assert f"torch-npu=={older.version}" in result.fix


def test_release_data_pins_are_per_platform():
    """Found in the wheels: 2.11.0.post3 pins torch==2.11.0+cpu on x86_64, torch==2.11.0 on
    aarch64; PEP 440 matching must keep them apart."""
    rel = releases.find("2.11.0.post3")
    assert rel.accepts_torch("2.11.0+cpu", "x86_64")
    assert rel.accepts_torch("2.11.0", "aarch64")
    assert not rel.accepts_torch("2.11.0", "x86_64")


# ------------------------------------------------------------------------------------ cann
def test_cann_sourced_passes_with_version(tmp_path):
    latest = fk.cann_tree(tmp_path / "Ascend" / "ascend-toolkit", version="8.5.0")
    result = cann.run(fk.host(tmp_path, env=fk.sourced_env(latest)), {})
    assert result.status is Status.PASS, result
    assert "CANN 8.5.0" in result.summary


def test_cann_installed_not_sourced_fix_is_source_command(tmp_path):
    root = tmp_path / "Ascend" / "ascend-toolkit"
    fk.cann_tree(root)
    result = cann.run(fk.host(tmp_path, install_roots=(root,)), {})
    assert result.status is Status.FAIL
    assert result.fix == f"source {root / 'set_env.sh'}"


def test_cann_absent(tmp_path):
    result = cann.run(fk.host(tmp_path), {})
    assert result.status is Status.FAIL
    assert result.summary == "no CANN toolkit found"
    assert result.facts["installed"] is False


def test_cann_library_missing(tmp_path):
    latest = fk.cann_tree(tmp_path / "tk", libs=("libascendcl.so",))
    result = cann.run(fk.host(tmp_path, env=fk.sourced_env(latest)), {})
    assert result.status is Status.FAIL
    assert "libhccl.so" in result.summary
    assert f"source {tmp_path / 'tk' / 'set_env.sh'}" in result.fix


def test_cann_home_set_but_libraries_not_on_loader_path(tmp_path):
    """ASCEND_HOME_PATH alone is not enough: libtorch_npu.so's RPATH does not name CANN."""
    latest = fk.cann_tree(tmp_path / "tk")
    env = {"ASCEND_HOME_PATH": str(latest)}
    result = cann.run(fk.host(tmp_path, env=env), {})
    assert result.status is Status.FAIL
    assert "not resolvable by the loader" in result.summary
    assert any("exists but is not on LD_LIBRARY_PATH" in e for e in result.evidence)


def test_cann_home_path_points_nowhere(tmp_path):
    result = cann.run(fk.host(tmp_path, env={"ASCEND_HOME_PATH": str(tmp_path / "gone")}), {})
    assert result.status is Status.FAIL
    assert "is not a directory" in result.summary


# ---------------------------------------------------------------------------------- driver
def test_npu_smi_table_parsed():
    version, devices = driver.parse_npu_smi(fk.NPU_SMI_TABLE.format(h0="OK", h1="Warning"))
    assert version == "24.1.rc2"
    assert [(d.npu, d.name, d.health, d.chip, d.bus_id) for d in devices] == [
        (0, "910B3", "OK", 0, "0000:C1:00.0"), (1, "910B3", "Warning", 0, "0000:01:00.0")]


def test_npu_smi_310p_layout_parsed():
    version, devices = driver.parse_npu_smi(fk.NPU_SMI_310P)
    assert version == "23.0.0"
    assert [(d.npu, d.name, d.health, d.bus_id) for d in devices] == [
        (3, "310P3", "OK", "0000:82:00.0")]


def test_driver_healthy_passes(tmp_path):
    fk.fake_npu_smi(tmp_path / "bin", fk.NPU_SMI_TABLE.format(h0="OK", h1="OK"))
    fk.dev_dir(tmp_path / "dev", 2)
    result = driver.run(fk.host(tmp_path), {})
    assert result.status is Status.PASS, result
    assert result.facts["devices"] == 2


def test_driver_one_unhealthy_warns(tmp_path):
    fk.fake_npu_smi(tmp_path / "bin", fk.NPU_SMI_TABLE.format(h0="OK", h1="Alarm"))
    fk.dev_dir(tmp_path / "dev", 2)
    result = driver.run(fk.host(tmp_path), {})
    assert result.status is Status.WARN
    assert "NPU 1 Alarm" in result.summary


def test_driver_npu_smi_fails(tmp_path):
    fk.fake_npu_smi(tmp_path / "bin", "", code=1, stderr="fake driver failure text")
    fk.dev_dir(tmp_path / "dev", 1)
    result = driver.run(fk.host(tmp_path), {})
    assert result.status is Status.FAIL
    assert "fake driver failure text" in " ".join(result.evidence)


def test_driver_devices_listed_but_not_in_dev(tmp_path):
    fk.fake_npu_smi(tmp_path / "bin", fk.NPU_SMI_TABLE.format(h0="OK", h1="OK"))
    (tmp_path / "dev").mkdir()
    result = driver.run(fk.host(tmp_path), {})
    assert result.status is Status.FAIL
    assert "no /dev/davinciN" in result.summary


def test_driver_absent(tmp_path):
    (tmp_path / "dev").mkdir()
    result = driver.run(fk.host(tmp_path), {})
    assert result.status is Status.FAIL
    assert "no NPU driver" in result.summary


# ------------------------------------------------------------------------------------- env
@pytest.mark.parametrize("env, expected", [
    ({"CUDA_VISIBLE_DEVICES": "0,1"}, "export ASCEND_RT_VISIBLE_DEVICES=0,1"),
    ({"ASCEND_LAUNCH_BLOCKING": "1"}, "unset ASCEND_LAUNCH_BLOCKING"),
    ({"NCCL_SOCKET_IFNAME": "eth0"}, "export HCCL_SOCKET_IFNAME=eth0"),
    ({"HCCL_ASYNC_ERROR_HANDLING": "1"}, "TORCH_HCCL_ASYNC_ERROR_HANDLING"),
], ids=["cuda-visible", "launch-blocking", "nccl-ifname", "hccl-deprecated"])
def test_env_var_warnings(tmp_path, env, expected):
    result = env_vars.run(fk.host(tmp_path, env=env), {})
    assert result.status is Status.WARN
    assert expected in result.fix


@pytest.mark.parametrize("env", [
    {"CUDA_VISIBLE_DEVICES": "0", "ASCEND_RT_VISIBLE_DEVICES": "0"},
    {"ASCEND_LAUNCH_BLOCKING": "0"},
    {"NCCL_SOCKET_IFNAME": "eth0", "HCCL_SOCKET_IFNAME": "eth0"},
    {},
], ids=["both-visible", "blocking-off", "both-ifname", "none"])
def test_env_vars_clean(tmp_path, env):
    assert env_vars.run(fk.host(tmp_path, env=env), {}).status is Status.PASS


# ----------------------------------------------------------------------------------- tools
def test_tools_found_by_metadata_or_path(tmp_path):
    site = tmp_path / "site"
    fk.dist_info(site, "mindstudio-probe", "26.2.0")
    fk.write_exe(tmp_path / "bin" / "msprof-analyze", "#!/bin/sh\n")
    result = tools.run(fk.host(tmp_path, site=site), {})
    assert result.status is Status.PASS, result


def test_tools_missing_is_a_warning(tmp_path):
    result = tools.run(fk.host(tmp_path), {})
    assert result.status is Status.WARN
    assert result.fix == "pip install mindstudio-probe msprof-analyze"


def test_checks_never_import_torch():
    """The static checks run in a fresh interpreter and leave torch / torch_npu unimported."""
    import subprocess

    code = ("import sys; from migrate.doctor.runner import run_checks; "
            "from migrate.doctor.host import Host; import dataclasses; "
            "h = dataclasses.replace(Host(), probe_timeout=1); "
            "from migrate.doctor.checks import python_version, packages, cann, driver, env_vars, tools; "
            "[m.run(h, {}) for m in (python_version, packages, cann, driver, env_vars, tools)]; "
            "print('torch' in sys.modules, 'torch_npu' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_release_data_agrees_with_the_cached_wheel():
    """The generated data against a wheel read here as a zip: its METADATA torch pin and its
    Python tag."""
    import zipfile
    from email.parser import Parser

    from tests.helpers import cached_wheel

    wheel = cached_wheel("torch_npu")
    with zipfile.ZipFile(wheel) as zf:
        meta = Parser().parsestr(zf.read("torch_npu-2.14.0.dist-info/METADATA").decode())
    torch_pin = next(r for r in meta.get_all("Requires-Dist") if r.startswith("torch"))
    rel = releases.find("2.14.0")
    assert rel.requirement("x86_64") == torch_pin.replace(" ", "")
    assert "3.11" in rel.python["x86_64"] and wheel.name in rel.wheels
