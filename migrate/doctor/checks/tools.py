"""Optional tools (never blocking): msprobe (PyPI mindstudio-probe, `npu-migrate validate`) and
msprof-analyze (profiling advisor)."""
from __future__ import annotations

from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "tools"
TITLE = "optional tools"
# (what, distribution on PyPI, command on PATH)
TOOLS = (("msprobe", "mindstudio-probe", "msprobe"),
         ("msprof-analyze", "msprof-analyze", "msprof-analyze"))


def run(host: Host, done: dict) -> CheckResult:
    evidence, missing = [], []
    for what, dist, command in TOOLS:
        version = host.version_of(dist)
        where = host.which(command)
        if version or where:
            evidence.append(f"{what}: {dist} {version or '?'}" + (f" ({where})" if where else ""))
        else:
            evidence.append(f"{what}: not installed")
            missing.append(dist)
    if missing:
        return CheckResult(ID, TITLE, Status.WARN, f"not installed (optional): "
                           f"{', '.join(missing)}", tuple(evidence),
                           fix=f"pip install {' '.join(missing)}")
    return CheckResult(ID, TITLE, Status.PASS, "msprobe and msprof-analyze installed",
                       tuple(evidence))
