"""Small pieces the Python and notebook rewrites share."""

from __future__ import annotations

from migrate import fileio
from migrate.findings import Finding
from migrate.rewrite.model import ApplyOptions, ManualItem

# Findings that mean "this file is GPU code being moved to the NPU" (ops and file errors alone do not).
NEEDS_NPU_PREFIXES = ("NPU1", "NPU2", "NPU3", "NPU4", "NPU5", "NPU7")
MAX_ROUNDS = 4


class RewriteBroke(Exception):
    """A rewrite produced text that does not parse: the file is left as it was (and reported)."""


def selected(findings, options: ApplyOptions) -> list[Finding]:
    config = options.config
    if config is None:
        return list(findings)
    return [f for f in findings if config.is_selected(f.code, f.path)]


def needs_npu(findings) -> bool:
    return any(f.code.startswith(NEEDS_NPU_PREFIXES) for f in findings)


parse = fileio.parse_python


def manual_items(findings, leftover) -> list[ManualItem]:
    items = [ManualItem(f.path, f.line, f.code, f.message, f.cell, str(f.severity), f.optional) for f in findings if not f.fixable]
    items += [ManualItem(f.path, f.line, f.code, f"not rewritten (overlaps another rewrite): {f.message}", f.cell,
                         str(f.severity)) for f in leftover]
    return items
