"""Which torch_npu release the checks measure against (shared by python_version and packages)."""
from __future__ import annotations

from migrate.doctor import releases
from migrate.doctor.host import Host


def target_release(host: Host) -> tuple[releases.Release | None, str]:
    """(release, why): --torch-npu-version, else the installed torch_npu, else the newest release
    that accepts the installed torch, else the newest release."""
    if host.target_torch_npu:
        return releases.find(host.target_torch_npu), "--torch-npu-version"
    installed = host.version_of("torch_npu")
    if installed:
        return releases.find(installed), f"installed torch_npu {installed}"
    torch = host.version_of("torch")
    if torch:
        paired = releases.for_torch(torch, host.machine)
        if paired:
            return paired[0], f"the newest torch_npu for the installed torch {torch}"
    newest = releases.releases()[0]
    return newest, "the newest torch_npu release"
