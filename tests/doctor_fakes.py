"""Fake Ascend environments for the doctor tests: package metadata on a temp path, an npu-smi on
PATH, a CANN tree, /dev/davinci* files, torch / torch_npu packages whose import fails the way a
real host's does. Nothing here is a real Ascend component."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from migrate.doctor.host import Host

# Layout of `npu-smi info` as printed by the driver (two rows per device, then the process table);
# values are made up. Real samples with this layout: gpustack/gpustack@ddf8e581
# tests/detectors/npu_smi/data/ai-server_atlas-800-training-server_model-9010_version-24.1.RC2.txt
NPU_SMI_TABLE = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | {h0:<14}| 93.1        40                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3339 / 65536         |
+===========================+===============+====================================================+
| 1     910B3               | {h1:<14}| 90.6        41                0    / 0             |
| 0                         | 0000:01:00.0  | 0           0    / 0          3338 / 65536         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 0       0                 | 4242          | python3                  | 512                     |
+===========================+===============+====================================================+
"""

# The inference-card layout (`Chip Device` in the second header row, no HBM column)
NPU_SMI_310P = """\
+--------------------------------------------------------------------------------------------------------+
| npu-smi 23.0.0                                   Version: 23.0.0                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 3       310P3                 | OK              | 15.0         45                0     / 0             |
| 0       0                     | 0000:82:00.0    | 0            1100 / 21534                            |
+===============================+=================+======================================================+
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Chip                  | Process id      | Process name             | Process memory(MB)        |
+===============================+=================+======================================================+
| No running processes found in NPU 3                                                                    |
+===============================+=================+======================================================+
"""


# The vendor's version files as printed in Ascend/mind-cluster@22bb3d987bc0
# docs/en/faultdiag/user_guide/03_collecting_logs.md (the
# FaultDiag guide's "Query the driver/firmware/CANN version" outputs); versions are parameters.
TOOLKIT_INFO = """\
package_name=Ascend-cann-toolkit
version={version}
innerversion=V100R001C25SPC001B212
compatible_version=[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23]
arch=x86_64
os=linux
path={root}/x86_64-linux
"""
DRIVER_INFO = """\
Version={version}
ascendhal_version=7.35.19
aicpu_version=1.0
tdt_version=1.0
log_version=1.0
prof_version=2.0
dvppkernels_version=1.1
tsfw_version=1.0
Innerversion=V100R001C15SPC006B220
compatible_version=[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17]
compatible_version_fw=[7.0.0,7.2.99]
"""
FIRMWARE_INFO = """\
Version={version}
firmware_version=1.0
package_version=23.0.7
compatible_version_drv=[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]
"""


def driver_tree(ascend_root: Path, version: str = "25.2.0",
                firmware: str | None = "7.7.0.1.231") -> Path:
    """<ascend_root>/driver/version.info (and firmware/version.info) as the driver installs them."""
    (ascend_root / "driver").mkdir(parents=True, exist_ok=True)
    (ascend_root / "driver" / "version.info").write_text(DRIVER_INFO.format(version=version))
    if firmware:
        (ascend_root / "firmware").mkdir(parents=True, exist_ok=True)
        (ascend_root / "firmware" / "version.info").write_text(
            FIRMWARE_INFO.format(version=firmware))
    return ascend_root


def write_exe(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_npu_smi(bin_dir: Path, stdout: str, code: int = 0, stderr: str = "") -> Path:
    (bin_dir / "npu-smi.out").parent.mkdir(parents=True, exist_ok=True)
    (bin_dir / "npu-smi.out").write_text(stdout)
    (bin_dir / "npu-smi.err").write_text(stderr)
    return write_exe(bin_dir / "npu-smi",
                     f'#!/bin/sh\n[ "$1" = info ] || exit 2\ncat "{bin_dir}/npu-smi.out"\n'
                     f'cat "{bin_dir}/npu-smi.err" >&2\nexit {code}\n')


def dist_info(site: Path, name: str, version: str, requires: list[str] = ()) -> Path:
    d = site / f"{name.replace('-', '_')}-{version}.dist-info"
    d.mkdir(parents=True, exist_ok=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (d / "METADATA").write_text("\n".join(lines) + "\n")
    return d


# versions inside each requirement of CANN's list (migrate/knowledge/cann_stack.toml)
CANN_PYTHON_VERSIONS = {"numpy": "1.26.4", "decorator": "5.1.1", "sympy": "1.13.1",
                        "cffi": "1.17.1", "protobuf": "3.20.3", "attrs": "24.2.0",
                        "Cython": "3.0.11", "PyYAML": "6.0.2", "pathlib2": "2.3.7.post1",
                        "scipy": "1.14.1", "requests": "2.32.3", "psutil": "6.1.0",
                        "absl-py": "2.1.0"}


def cann_python_deps(site: Path, skip=(), versions: dict | None = None) -> None:
    """dist-info for CANN's Python dependencies (all, less `skip`, `versions` overriding)."""
    for name, version in {**CANN_PYTHON_VERSIONS, **(versions or {})}.items():
        if name not in skip:
            dist_info(site, name, version)


def package(site: Path, name: str, init: str) -> Path:
    p = site / name
    p.mkdir(parents=True, exist_ok=True)
    (p / "__init__.py").write_text(init)
    return p


def cann_tree(root: Path, version: str = "8.5.0", libs=("libascendcl.so", "libhccl.so")) -> Path:
    """<root>/set_env.sh and <root>/latest/{lib64/..., <arch>-linux/ascend_toolkit_install.info}
    (the info file is what torch_npu's collect_env.py reads)."""
    latest = root / "latest"
    (latest / "lib64").mkdir(parents=True, exist_ok=True)
    for lib in libs:
        (latest / "lib64" / lib).write_bytes(b"\x7fELF")
    info = latest / "x86_64-linux" / "ascend_toolkit_install.info"
    info.parent.mkdir(parents=True, exist_ok=True)
    info.write_text(TOOLKIT_INFO.format(version=version, root=root))
    (root / "set_env.sh").write_text(f"export ASCEND_HOME_PATH={latest}\n")
    return latest


def sourced_env(latest: Path) -> dict:
    return {"ASCEND_HOME_PATH": str(latest), "ASCEND_TOOLKIT_HOME": str(latest),
            "LD_LIBRARY_PATH": str(latest / "lib64")}


def dev_dir(root: Path, n: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / f"davinci{i}").write_text("")
    (root / "davinci_manager").write_text("")
    return root


def host(tmp: Path, *, env: dict | None = None, site: Path | None = None, **kw) -> Host:
    """A host that sees only what the test built: PATH, PYTHONPATH and /dev under tmp, no
    interpreter site-packages for metadata (sys_path=()), no default CANN roots."""
    base = {"PATH": str(tmp / "bin") + os.pathsep + "/usr/bin:/bin"}
    if site is not None:
        base["PYTHONPATH"] = str(site)
    base.update(env or {})
    kw.setdefault("dev_dir", tmp / "dev")
    kw.setdefault("install_roots", ())
    kw.setdefault("ascend_root", tmp / "Ascend")
    kw.setdefault("sys_path", ())
    kw.setdefault("machine", "x86_64")
    kw.setdefault("python_version", (3, 11))
    kw.setdefault("python", sys.executable)
    return Host(env=base, **kw)
