"""The Ascend stack's version pairings, from data: which CANN each torch_npu release is published
for (data/cann_matrix.json, generated from Ascend/pytorch COMPATIBILITY.en.md), which Ascend HDK
drivers each CANN lists, and CANN's own Python dependencies (cann_stack.toml, vendor pages); and
the installed versions as the vendor's own version files print them.

Version files (layouts quoted in tests/doctor_fakes.py, from Ascend/mind-cluster@22bb3d987bc0
docs/en/faultdiag/user_guide/03_collecting_logs.md):
  <toolkit>/<arch>-linux/ascend_toolkit_install.info   `version=8.5.0` (also innerversion=...)
  /usr/local/Ascend/driver/version.info                `Version=24.1.rc1`
  /usr/local/Ascend/firmware/version.info              `Version=7.1.0.11.220`
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from migrate import knowledge

_INSTALL_INFO = re.compile(r"ascend_.*_install\.info")


def matrix() -> dict:
    return knowledge.read_json("data", "cann_matrix.json")


def _stack() -> dict:
    return knowledge.read_toml("cann_stack.toml")


def matrix_source() -> str:
    src = matrix()["source"]
    return f"{src['repo']}@{src['commit'][:12]} {src['path']}"


def python_deps() -> tuple[list[dict], str]:
    section = _stack()["python_deps"]
    return list(section["packages"]), section["source"]


def _public(version: str) -> str:
    """'2.7.1.post8+git1a2b' -> '2.7.1.post8'; '2.1.0.post8.dev20241009' -> '2.1.0.post8'."""
    return re.sub(r"(\.dev\d+)?(\+.*)?$", "", version.strip())


def row_for(torch_npu: str) -> dict | None:
    """The vendor table's row for an installed torch_npu (exact release, dev/local labels dropped)."""
    wanted = _public(torch_npu)
    return next((r for r in matrix()["rows"] if r["torch_npu"] == wanted), None)


def rows_for_cann(cann: str) -> list[dict]:
    return [r for r in matrix()["rows"] if cann_key(r["cann"]) == cann_key(cann)]


def cann_key(version: str) -> tuple[int, int, int, int]:
    """Vendor order: 8.0.RC1 < 8.0.RC3 < 8.0.0 < 8.1.RC1 < 8.5.0 < 8.5.2 (suffixes after the third
    part, like .beta1 or .alpha002, ignored)."""
    parts = version.strip().split(".")
    try:
        major, minor = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0, 0, 0)
    third = parts[2] if len(parts) > 2 else "0"
    rc = re.fullmatch(r"(?i)rc(\d+)", third)
    if rc:
        return (major, minor, 0, int(rc.group(1)))
    return (major, minor, 1, int(third) if third.isdigit() else 0)


def drivers_for(cann: str) -> dict | None:
    """The [[driver]] entry for a CANN version: exact ('8.5.0') or its line ('9.0' for 9.0.1)."""
    entries = _stack()["driver"]
    exact = next((e for e in entries if cann_key(e["cann"]) == cann_key(cann)
                  and e["cann"].count(".") == 2), None)
    if exact:
        return exact
    line = ".".join(cann.split(".")[:2])
    return next((e for e in entries if e["cann"] == line), None)


def driver_listed(driver: str, hdk: list[str]) -> bool:
    """'25.2.0' in ['25.2.X'] -> True; '26.0.rc1.1' in ['26.0.RC1'] -> True (a patch of it)."""
    have = driver.strip().upper()
    for want in hdk:
        want = want.upper()
        if want.endswith(".X"):
            if have.startswith(want[:-1]):
                return True
        elif have == want or have.startswith(want + "."):
            return True
    return False


def read_key(path: Path, key: str) -> str | None:
    """`key=value` from a vendor version file (the key compared case-sensitively, as written)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        name, sep, value = line.partition("=")
        if sep and name.strip() == key:
            return value.strip()
    return None


def toolkit_info(home: Path, max_depth: int = 3) -> tuple[str, Path] | None:
    """(version, file) of the CANN toolkit under `home` ($ASCEND_HOME_PATH or an install root):
    ascend_toolkit_install.info first, then any other ascend_*_install.info (the file torch_npu's
    collect_env.py reads)."""
    found: list[Path] = []
    base = len(home.parts)
    for dirpath, dirnames, filenames in os.walk(home):
        if len(Path(dirpath).parts) - base >= max_depth:
            dirnames[:] = []  # a toolkit holds tens of thousands of files: stay near the top
        found.extend(Path(dirpath) / n for n in filenames if _INSTALL_INFO.fullmatch(n))
    found.sort(key=lambda p: (p.name != "ascend_toolkit_install.info", str(p)))
    for path in found:
        version = read_key(path, "version")
        if version:
            return version, path
    return None
