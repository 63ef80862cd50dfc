"""NPU driver and devices: `npu-smi info` parsed (devices, health) and the /dev/davinci* files.

The table layout parsed here is npu-smi's own (two rows per device: `| NPU Name | Health |
Power(W) Temp(C) Hugepages-Usage(page) |` then `| Chip [Device] | Bus-Id | AICore(%)
Memory-Usage(MB) [HBM-Usage(MB)] |`); public samples: gpustack/gpustack
tests/detectors/npu_smi/data/*.txt (Atlas 800 9010, npu-smi 24.1.RC2) and the 310P output
in public Ascend model READMEs (same layout, `Chip Device` columns).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status
from migrate.report import plural

ID = "driver"
TITLE = "NPU driver and devices"
_DEVICE_ROW = re.compile(r"^\s*(\d+)\s+(\S.*?)\s*$")
_CHIP_ROW = re.compile(r"^\s*(\d+)(?:\s+(\d+))?\s*$")
_BUS_ID = re.compile(r"^\s*[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\s*$")
_VERSION = re.compile(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")


@dataclass(frozen=True)
class NpuDevice:
    npu: int
    name: str
    health: str
    chip: int | None = None
    bus_id: str | None = None


def parse_npu_smi(text: str) -> tuple[str | None, list[NpuDevice]]:
    """(npu-smi version, devices) from `npu-smi info` output; the process table is ignored."""
    version = None
    match = _VERSION.search(text)
    if match:
        version = match.group(2)
    devices: list[NpuDevice] = []
    pending: NpuDevice | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        first, second = cells[0], cells[1].strip()
        dev = _DEVICE_ROW.match(first)
        if dev and not _CHIP_ROW.match(first) and second and not second[0].isdigit():
            pending = NpuDevice(int(dev.group(1)), dev.group(2), second)
            continue
        chip = _CHIP_ROW.match(first)
        if pending is not None and chip and _BUS_ID.match(cells[1]):
            devices.append(NpuDevice(pending.npu, pending.name, pending.health,
                                     int(chip.group(1)), second))
            pending = None
    return version, devices


def run(host: Host, done: dict) -> CheckResult:
    davinci = sorted(p.name for p in host.dev_dir.glob("davinci*"))
    numbered = [name for name in davinci if re.fullmatch(r"davinci\d+", name)]
    evidence = [f"{host.dev_dir}/davinci*: {', '.join(davinci) or 'none'}"]
    smi = host.which("npu-smi")
    facts = {"devices": 0, "device_files": len(numbered)}
    if smi is None:
        evidence.append("npu-smi: not on PATH")
        if numbered:
            return CheckResult(ID, TITLE, Status.WARN,
                               f"{plural(len(numbered), 'device file')} but npu-smi is not on PATH",
                               tuple(evidence), fix="add the driver's tools to PATH "
                               "(npu-smi ships with the Ascend driver)", facts=facts)
        return CheckResult(ID, TITLE, Status.FAIL, "no NPU driver: npu-smi missing and no "
                           "/dev/davinci* device", tuple(evidence),
                           fix="install the Ascend NPU driver and firmware, or run on the Ascend "
                               "host (in a container: pass the /dev/davinci* devices through)",
                           facts=facts)
    out = host.run([smi, "info"], timeout=60)
    if out.returncode != 0:
        evidence.append(f"npu-smi info: exit {out.returncode}: "
                        f"{(out.stderr or out.stdout).strip()[-300:]}")
        return CheckResult(ID, TITLE, Status.FAIL, "npu-smi info failed", tuple(evidence),
                           fix="reinstall/reload the Ascend driver (npu-smi info must list the "
                               "devices); check dmesg for driver errors", facts=facts)
    version, devices = parse_npu_smi(out.stdout)
    facts["devices"] = len(devices)
    evidence.append(f"npu-smi {version or '?'} ({smi}): {plural(len(devices), 'device')}")
    evidence.extend(f"NPU {d.npu} {d.name} chip {d.chip} {d.bus_id}: {d.health}" for d in devices)
    if not devices:
        return CheckResult(ID, TITLE, Status.FAIL, "npu-smi info lists no device",
                           tuple(evidence), fix="check the driver installation and that the "
                           "devices are visible in this container", facts=facts)
    unhealthy = [d for d in devices if d.health != "OK"]
    if not numbered:
        return CheckResult(ID, TITLE, Status.FAIL,
                           f"npu-smi lists {plural(len(devices), 'device')} but no /dev/davinciN file",
                           tuple(evidence), fix="pass the device files into the container "
                           "(/dev/davinciN and the driver's manager devices)", facts=facts)
    if len(unhealthy) == len(devices):
        return CheckResult(ID, TITLE, Status.FAIL, "no device reports Health OK", tuple(evidence),
                           fix="npu-smi info -t health -i <id> shows the alarm; fix or reset the "
                               "device (admin)", facts=facts)
    if unhealthy:
        return CheckResult(ID, TITLE, Status.WARN,
                           f"{len(unhealthy)} of {plural(len(devices), 'device')} not OK: "
                           + ", ".join(f"NPU {d.npu} {d.health}" for d in unhealthy),
                           tuple(evidence), fix="avoid those devices (ASCEND_RT_VISIBLE_DEVICES) "
                           "or check npu-smi info -t health -i <id>", facts=facts)
    return CheckResult(ID, TITLE, Status.PASS,
                       f"{plural(len(devices), 'NPU')}, all Health OK ({devices[0].name})",
                       tuple(evidence), facts=facts)
