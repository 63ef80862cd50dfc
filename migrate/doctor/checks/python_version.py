"""Python version against the Python tags of the torch_npu release's wheels on PyPI."""
from __future__ import annotations

from migrate.doctor.checks._target import target_release
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "python"
TITLE = "Python version"


def run(host: Host, done: dict) -> CheckResult:
    ver = "%d.%d" % host.python_version
    release, why = target_release(host)
    evidence = [f"python {ver} ({host.python}), machine {host.machine}"]
    if release is None:
        return CheckResult(ID, TITLE, Status.WARN, f"torch_npu release unknown ({why})",
                           tuple(evidence), fix=None)
    pythons = release.python.get(host.machine)
    evidence.append(f"torch_npu {release.version} ({why}) wheels on PyPI for {host.machine}: "
                    f"{', '.join(pythons) if pythons else 'none'}")
    if pythons is None:
        return CheckResult(ID, TITLE, Status.WARN,
                           f"no wheel data for machine {host.machine} (only x86_64, aarch64)",
                           tuple(evidence))
    if not pythons:
        return CheckResult(ID, TITLE, Status.FAIL,
                           f"torch_npu {release.version} has no {host.machine} wheel on PyPI",
                           tuple(evidence), fix="pick a torch_npu release with a wheel for this "
                           "machine (npu-migrate doctor --torch-npu-version V)")
    if ver in pythons:
        return CheckResult(ID, TITLE, Status.PASS,
                           f"python {ver} is supported by torch_npu {release.version}",
                           tuple(evidence), facts={"release": release.version})
    return CheckResult(ID, TITLE, Status.FAIL,
                       f"torch_npu {release.version} has no wheel for python {ver}",
                       tuple(evidence),
                       fix=f"use Python {pythons[-1]} (any of {', '.join(pythons)}) for "
                           f"torch_npu {release.version}, e.g. a new venv: "
                           f"python{pythons[-1]} -m venv .venv",
                       facts={"release": release.version})
