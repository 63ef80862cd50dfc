"""The installed CANN against the CANN its torch_npu release is published for, and the installed
driver against the Ascend HDK versions that CANN lists (data: migrate.doctor.stack).

A torch_npu built for a newer CANN than the one installed fails at import or at the first op
(undefined symbols, 561003 kernel not found); the vendor publishes one CANN per torch_npu release
(Ascend/pytorch COMPATIBILITY.en.md) and the Ascend HDK drivers per CANN (release notes).
"""
from __future__ import annotations

from pathlib import Path

from migrate.doctor import stack
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "cann_stack"
TITLE = "CANN / torch_npu / driver versions"


def installed_cann(host: Host, done: dict) -> tuple[str, Path] | None:
    """CANN's version file: under $ASCEND_HOME_PATH when sourced, else under an install root."""
    homes = [host.env.get("ASCEND_HOME_PATH") or host.env.get("ASCEND_TOOLKIT_HOME")]
    homes += [str(root / "latest") for root in host.install_roots] + [str(r) for r in
                                                                      host.install_roots]
    for home in filter(None, homes):
        info = stack.toolkit_info(Path(home))
        if info:
            return info
    return None


def installed_driver(host: Host) -> tuple[str | None, Path]:
    path = host.ascend_root / "driver" / "version.info"
    return stack.read_key(path, "Version"), path


def run(host: Host, done: dict) -> CheckResult:
    packages = done.get("packages")
    npu = host.target_torch_npu or (packages.facts.get("torch_npu") if packages else None)
    cann = installed_cann(host, done)
    driver, driver_file = installed_driver(host)
    firmware = stack.read_key(host.ascend_root / "firmware" / "version.info", "Version")
    evidence = [f"CANN {cann[0]} ({cann[1]})" if cann else "CANN version: no ascend_*_install.info "
                "found ($ASCEND_HOME_PATH, install roots)",
                f"driver {driver} ({driver_file})" if driver else
                f"driver version: {driver_file} missing or without Version=",
                f"firmware {firmware}" if firmware else "firmware version: not found"]
    facts = {"cann": cann[0] if cann else None, "driver": driver, "firmware": firmware}
    if cann is None and driver is None:
        return CheckResult(ID, TITLE, Status.SKIP, "no CANN toolkit and no driver version file: "
                           "nothing to pair", tuple(evidence), facts=facts)
    problems: list[tuple[Status, str, str]] = []
    if npu and cann:
        problems += _torch_npu_vs_cann(npu, cann[0], packages, evidence)
    elif npu:
        evidence.append(f"torch_npu {npu}: CANN not found, pairing not checked")
    if cann and driver:
        problems += _cann_vs_driver(cann[0], driver, evidence)
    if not problems:
        parts = [f"torch_npu {npu}" if npu else None, f"CANN {cann[0]}" if cann else None,
                 f"driver {driver}" if driver else None]
        return CheckResult(ID, TITLE, Status.PASS, " + ".join(p for p in parts if p) +
                           " (pairs checked where the vendor publishes them)", tuple(evidence),
                           facts=facts)
    worst = Status.FAIL if any(s is Status.FAIL for s, _, _ in problems) else Status.WARN
    return CheckResult(ID, TITLE, worst, "; ".join(s for _, s, _ in problems), tuple(evidence),
                       fix="; ".join(f for _, _, f in problems), facts=facts)


def _torch_npu_vs_cann(npu: str, cann: str, packages, evidence: list) -> list:
    row = stack.row_for(npu)
    newest = stack.matrix()["rows"][0]["torch_npu"]
    if row is None:
        evidence.append(f"torch_npu {npu} is not in the vendor's table ({stack.matrix_source()}, "
                        f"newest listed {newest}): its CANN is not checked")
        return []
    evidence.append(f"torch_npu {npu} is published for CANN {row['cann']} (branch "
                    f"{row['branch']}; {stack.matrix_source()})")
    have, want = stack.cann_key(cann), stack.cann_key(row["cann"])
    if have == want:
        return []
    torch = packages.facts.get("torch") if packages else None
    same_torch = [r for r in stack.rows_for_cann(cann) if torch and r["torch"] ==
                  torch.split("+")[0]]
    alt = (f" or keep CANN {cann}: pip install torch-npu=={same_torch[0]['torch_npu']} (published "
           f"for CANN {cann} and torch {same_torch[0]['torch']})") if same_torch else ""
    if have < want:
        return [(Status.FAIL, f"torch_npu {npu} needs CANN {row['cann']}, CANN {cann} is installed",
                 f"install CANN {row['cann']} (toolkit and the ops/kernels package for your chip) "
                 f"and source its set_env.sh{alt}")]
    return [(Status.WARN, f"torch_npu {npu} is published for CANN {row['cann']}; CANN {cann} is "
             "newer, a pairing the vendor's table does not list",
             f"use the torch_npu release published for CANN {cann}{alt or ' (see the table)'}")]


def _cann_vs_driver(cann: str, driver: str, evidence: list) -> list:
    entry = stack.drivers_for(cann)
    if entry is None:
        evidence.append(f"no vendor CANN/driver table recorded for CANN {cann}: driver not checked")
        return []
    evidence.append(f"CANN {entry['cann']} lists Ascend HDK {', '.join(entry['hdk'])} "
                    f"({entry['source']})")
    if stack.driver_listed(driver, entry["hdk"]):
        return []
    return [(Status.WARN, f"driver {driver} is not among the Ascend HDK versions listed for CANN "
             f"{cann}", f"install an Ascend HDK driver and firmware listed for CANN {cann} "
             f"({', '.join(entry['hdk'])}) (admin), or a CANN that lists driver {driver}")]
