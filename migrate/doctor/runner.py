"""Runs the checks in order and returns a DoctorReport (never prints)."""
from __future__ import annotations

import importlib

from migrate.doctor.checks import ORDER
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, DoctorReport, Status

NO_STACK = ("No Ascend stack on this machine (no torch_npu, no CANN toolkit, no NPU driver): it "
            "cannot train on an NPU. Run `npu-migrate doctor` on the Ascend host; here, use "
            "`npu-migrate smoke` (CPU-backed stand-in) instead.")


def run_checks(host: Host, only: tuple[str, ...] | None = None) -> DoctorReport:
    done: dict[str, CheckResult] = {}
    results = []
    for name in ORDER:
        module = importlib.import_module(f"migrate.doctor.checks.{name}")
        if only is not None and module.ID not in only:
            continue
        try:
            result = module.run(host, done)
        except Exception as exc:  # noqa: BLE001 - one broken check must not hide the others
            result = CheckResult(module.ID, module.TITLE, Status.FAIL,
                                 f"the check itself failed: {type(exc).__name__}: {exc}", (),
                                 fix="report this as a doctor bug (with --json output)")
        done[result.id] = result
        results.append(result)
    return DoctorReport(tuple(results), headline=_headline(done))


def _headline(done: dict[str, CheckResult]) -> str | None:
    packages, cann, driver = done.get("packages"), done.get("cann"), done.get("driver")
    if packages is None or cann is None or driver is None:
        return None
    nothing = (not packages.facts.get("torch_npu") and not cann.facts.get("installed")
               and driver.status is Status.FAIL and not driver.facts.get("device_files"))
    return NO_STACK if nothing else None
