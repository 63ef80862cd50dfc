"""apply's change report: every rewrite, every line the codemods added, every manual item left, as JSON
or CSV (by the file's suffix)."""

from __future__ import annotations

import csv
import io
import json

from migrate.rewrite.model import ApplyResult


def report_dict(result: ApplyResult) -> dict:
    from migrate import __version__

    return {
        "tool": "npu-migrate", "version": __version__, "torch_npu_version": result.torch_npu_version,
        "files": len(result.files), "files_changed": len(result.changed),
        "changed_files": [f.path for f in result.changed],
        "structural": [{"file": f.path, "added": list(f.structural)} for f in result.files if f.structural],
        "roles": [{"file": f.path, "role": f.role, "reason": f.role_reason} for f in result.files if f.role],
        "skipped": list(result.skipped),
        "counts": result.counts(),
        "changes": [c.to_dict() for c in result.changes],
        "manual": [m.to_dict() for m in result.manual],
    }


def render_csv(result: ApplyResult) -> str:
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(["kind", "file", "cell", "start_line", "end_line", "code", "before", "after", "message"])
    for c in result.changes:
        writer.writerow(["change", c.path, "" if c.cell is None else c.cell, c.line, c.end_line, c.code, c.before, c.after, ""])
    for f in result.files:
        for added in f.structural:
            writer.writerow(["added", f.path, "", "", "", "", "", added, ""])
    for f in result.files:
        if f.role:
            writer.writerow([f.role, f.path, "", "", "", "", "", "", f.role_reason])
    for m in result.manual:
        writer.writerow(["manual", m.path, "" if m.cell is None else m.cell, m.line, m.line, m.code, "", "", m.message])
    return stream.getvalue()


def render(result: ApplyResult, path: str) -> bytes:
    """The report's bytes for `path` (CSV for a .csv name, JSON otherwise)."""
    if path.lower().endswith(".csv"):
        return render_csv(result).encode("utf-8")
    return (json.dumps(report_dict(result), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
