"""flake8-compatible lines `path:line:col: CODE message`, then a summary and the verdict."""

from __future__ import annotations

from migrate.report import location
from migrate.verdict import summary


def report(result, stream, *, verdict, rules, show_summary: bool = True) -> None:
    for error in result.errors:
        stream.write(f"{error.path}:{error.line}:{error.column}: {error.code} {error.message}\n")
    for f in result.findings:
        fix = " [fixable]" if f.fixable else ""
        stream.write(f"{location(f)}: {f.code} {f.message}{fix}\n")
    if not show_summary:
        return
    s = summary(result)
    stream.write("\n")
    stream.write(
        f"Scanned {s['files_scanned']} files ({s['lines']:,} lines) in {s['duration_s']:.2f}s"
        f" against torch_npu {s['torch_npu_version']}"
        + (f", {s['files_from_cache']} from cache" if s["files_from_cache"] else "")
        + "\n"
    )
    if s["errors"]:
        stream.write(f"Files that could not be scanned: {s['errors']}\n")
    if s["findings"]:
        sev = ", ".join(f"{n} {k}" for k, n in s["by_severity"].items())
        cat = ", ".join(f"{k} {n}" for k, n in s["by_category"].items())
        stream.write(f"Findings: {s['findings']} ({sev}); by category: {cat}; {verdict.fixable} fixable by `apply`\n")
    else:
        stream.write("Findings: none\n")
    if s["suppressed"]:
        stream.write(f"Suppressed by noqa: {s['suppressed']}\n")
    stream.write(f"Verdict: {verdict.status}\n")
    for f in verdict.blockers[:20]:
        stream.write(f"  blocker {location(f)}: {f.code} {f.message}\n")
    if len(verdict.blockers) > 20:
        stream.write(f"  ... and {len(verdict.blockers) - 20} more blockers\n")
