"""CANN toolkit: its environment (set_env.sh sourced), the libraries torch_npu links against,
and the installed version.

torch_npu reads $ASCEND_HOME_PATH (libtorch_npu.so: "[PTA]:ASCEND_HOME_PATH/lib64 does not exist");
libtorch_npu.so's NEEDED entries include libascendcl.so and libhccl.so, and its RPATH only names
its own folders (readelf -d on the 2.14.0 wheel), so the loader must find them on LD_LIBRARY_PATH
or in the ld.so cache; the version is read as torch_npu's own collect_env.py does (the `version` line of the first
`ascend_*_install.info` under $ASCEND_HOME_PATH).
"""
from __future__ import annotations

import os
from pathlib import Path

from migrate.doctor import stack
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "cann"
TITLE = "CANN toolkit"
LIBRARIES = ("libascendcl.so", "libhccl.so")


def installed_toolkits(host: Host) -> list[Path]:
    """set_env.sh scripts under the default install roots (not sourced yet, maybe)."""
    return [root / "set_env.sh" for root in host.install_roots if (root / "set_env.sh").is_file()]


def set_env_near(home: Path) -> Path | None:
    """The set_env.sh that belongs to $ASCEND_HOME_PATH (.../ascend-toolkit/latest -> its parent)."""
    for candidate in (home / "set_env.sh", home.parent / "set_env.sh"):
        if candidate.is_file():
            return candidate
    return None


def loader_dirs(host: Host) -> list[Path]:
    return [Path(p) for p in host.env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]


def resolve_library(name: str, dirs: list[Path]) -> Path | None:
    for d in dirs:
        if (d / name).exists():
            return d / name
    return None


def ld_cache(host: Host) -> dict[str, str]:
    """Libraries in the system loader cache (`ldconfig -p`), name -> path."""
    ldconfig = host.which("ldconfig") or next(
        (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if Path(p).exists()), None)
    if ldconfig is None:
        return {}
    out = host.run([ldconfig, "-p"], timeout=20)
    cache = {}
    for line in out.stdout.splitlines():
        name, _, path = line.strip().partition(" => ")
        if path:
            cache.setdefault(name.split(" (")[0], path)
    return cache


def locate(host: Host, lib: str, home: Path, cache: dict) -> tuple[str | None, str]:
    """(where the loader finds it or None, evidence). libtorch_npu.so's RPATH names only its own
    folders, so CANN's libraries must come from LD_LIBRARY_PATH (set_env.sh) or the ld.so cache."""
    where = resolve_library(lib, loader_dirs(host))
    if where is not None:
        return str(where), f"{lib}: {where} (LD_LIBRARY_PATH)"
    if lib in cache:
        return cache[lib], f"{lib}: {cache[lib]} (ld.so cache)"
    beside = resolve_library(lib, [home / "lib64"])
    if beside is not None:
        return None, f"{lib}: {beside} exists but is not on LD_LIBRARY_PATH or in the ld.so cache"
    return None, f"{lib}: not found (LD_LIBRARY_PATH, ld.so cache, $ASCEND_HOME_PATH/lib64)"


def toolkit_version(home: Path, max_depth: int = 3) -> tuple[str, Path] | None:
    return stack.toolkit_info(home, max_depth)


def run(host: Host, done: dict) -> CheckResult:
    home_text = host.env.get("ASCEND_HOME_PATH") or host.env.get("ASCEND_TOOLKIT_HOME")
    evidence = [f"ASCEND_HOME_PATH={host.env.get('ASCEND_HOME_PATH', '(unset)')}",
                f"ASCEND_TOOLKIT_HOME={host.env.get('ASCEND_TOOLKIT_HOME', '(unset)')}"]
    found = installed_toolkits(host)
    source_fix = (f"source {found[0]}" if found else
                  "install the CANN toolkit (and kernels) for your torch_npu release, then "
                  "source /usr/local/Ascend/ascend-toolkit/set_env.sh")
    if not home_text:
        evidence.append("set_env.sh found: " + (", ".join(map(str, found)) or "none under "
                        + ", ".join(map(str, host.install_roots))))
        summary = ("CANN installed but set_env.sh not sourced" if found
                   else "no CANN toolkit found")
        return CheckResult(ID, TITLE, Status.FAIL, summary, tuple(evidence), fix=source_fix,
                           facts={"installed": bool(found), "sourced": False})
    home = Path(home_text)
    if not home.is_dir():
        return CheckResult(ID, TITLE, Status.FAIL, f"ASCEND_HOME_PATH {home} is not a directory",
                           tuple(evidence), fix=source_fix,
                           facts={"installed": bool(found), "sourced": False})
    cache = ld_cache(host)
    missing = []
    for lib in LIBRARIES:
        where, line = locate(host, lib, home, cache)
        evidence.append(line)
        if where is None:
            missing.append(lib)
    version = toolkit_version(home)
    evidence.append(f"toolkit version: {version[0]} ({version[1]})" if version
                    else "toolkit version: no ascend_*_install.info under $ASCEND_HOME_PATH")
    facts = {"installed": True, "sourced": True, "version": version[0] if version else None}
    if missing:
        return CheckResult(ID, TITLE, Status.FAIL,
                           f"{', '.join(missing)} not resolvable by the loader: the toolkit is "
                           f"incomplete, or LD_LIBRARY_PATH lacks its lib64 (set_env.sh not "
                           f"sourced in this shell, or overwritten after)",
                           tuple(evidence),
                           fix=f"source {set_env_near(home) or 'the toolkit set_env.sh'} again "
                               f"(or reinstall the toolkit if {home / 'lib64'} lacks "
                               f"{', '.join(missing)})", facts=facts)
    summary = f"CANN {version[0]} at {home}" if version else f"CANN at {home}"
    return CheckResult(ID, TITLE, Status.PASS, summary, tuple(evidence), facts=facts)
