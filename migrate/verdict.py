"""Feasibility verdict from a scan: automatic / automatic with warnings / manual work needed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from migrate import deps, repo_index
from migrate.findings import Finding, ScanResult, Severity

AUTOMATIC = "automatic"
AUTOMATIC_WITH_WARNINGS = "automatic with warnings"
MANUAL = "manual work needed"
NOT_JUDGED = "none: no file could be scanned"


@dataclass(frozen=True)
class Verdict:
    status: str
    blockers: tuple[Finding, ...]  # error findings that `apply` cannot rewrite
    fixable: int
    manual: int

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "fixable": self.fixable,
            "manual": self.manual,
            "blockers": [
                {"path": f.path, "line": f.line, "cell": f.cell, "code": f.code, "message": f.message} for f in self.blockers
            ],
        }


def judge(findings: list[Finding], *, scanned: bool = True) -> Verdict:
    """The verdict over the findings of the scanned files; `scanned=False` (nothing could be read) judges nothing."""
    if not scanned:
        return Verdict(NOT_JUDGED, (), 0, 0)
    blockers = tuple(f for f in findings if f.severity is Severity.ERROR and not f.fixable)
    warnings = [f for f in findings if f.severity is Severity.WARNING and not f.fixable]
    fixable = sum(1 for f in findings if f.fixable)
    if blockers:
        status = MANUAL
    elif warnings:
        status = AUTOMATIC_WITH_WARNINGS
    else:
        status = AUTOMATIC
    return Verdict(status, blockers, fixable, len(findings) - fixable)


# use-site codes: the summary groups them per package (`Finding.package`)
USE_SITE_CODES = ("NPU507",)


def use_sites(findings: list[Finding]) -> dict[str, dict[str, int]]:
    """{"apex": {"uses": 14, "files": 3}, ...}: the per-package inventory of NPU507 use sites."""
    uses: Counter = Counter()
    files: dict[str, set] = {}
    for f in findings:
        if f.code in USE_SITE_CODES and f.package:
            package = f.package
            uses[package] += 1
            files.setdefault(package, set()).add(f.path)
    return {p: {"uses": uses[p], "files": len(files[p])} for p in sorted(uses, key=lambda p: (-uses[p], p))}


def coverage(findings: list[Finding]) -> dict:
    """Constructs found, how many `apply` rewrites, how many need a person (a conversion rate)."""
    fixable = sum(1 for f in findings if f.fixable)
    total = len(findings)
    return {
        "constructs": total,
        "rewritten_by_apply": fixable,
        "manual": total - fixable,
        "automatic_share": round(fixable / total, 3) if total else 1.0,
    }


def summary(result: ScanResult) -> dict:
    findings = result.findings
    index = repo_index.build_index(result.files)  # one index for the two repository-wide lists below
    return {
        "files": len(result.files),
        "files_scanned": result.scanned_files,
        "files_with_errors": sum(1 for r in result.files if r.errors),
        "files_from_cache": result.cached_files,
        "lines": result.lines,
        "findings": len(findings),
        "suppressed": sum(r.suppressed for r in result.files),
        "by_severity": dict(sorted(Counter(str(f.severity) for f in findings).items())),
        "by_category": dict(sorted(Counter(str(f.category) for f in findings).items())),
        "by_code": dict(sorted(Counter(f.code for f in findings).items())),
        "use_sites": use_sites(findings),
        "kernels_to_port": deps.kernels_to_port(result.files, findings, index, result.wrapper_calls),
        "unknown_dependencies": deps.unknown_dependencies(result.files, index),
        "coverage": coverage(findings),
        "errors": len(result.errors),
        "duration_s": round(result.duration_s, 3),
        "torch_npu_version": result.torch_npu_version,
    }
