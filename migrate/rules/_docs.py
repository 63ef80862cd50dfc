"""Rule documentation generated from the rules themselves (the README table comes from here)."""

from __future__ import annotations

from migrate.rules import all_rules

# File-level problems are not rules (nothing to match), but their codes are just as stable.
FILE_CODES = {
    "NPU900": ("internal-error", "error", "`apply` produced output that would not parse; the file is left as it was (a bug in npu-migrate: please report it)."),
    "NPU901": ("syntax-error", "error", "The file does not parse as Python 3 (Python 2 code is named as such)."),
    "NPU902": ("decode-error", "error", "Undecodable bytes or a binary file; the file is skipped."),
    "NPU903": ("unreadable", "error", "Unreadable file, broken symbolic link, symbolic link loop, or nonexistent path."),
    "NPU904": ("malformed", "error", "A notebook or dependency manifest that cannot be parsed."),
    "NPU905": ("too-large", "warning", "A file over the size limit (`max-file-size`, 10 MB by default); skipped."),
}


def markdown_table() -> str:
    lines = ["| code | name | category | severity | fixed by `apply` | what it means |", "|---|---|---|---|---|---|"]
    for rule in all_rules():
        doc = rule.docs().replace("|", "\\|")
        lines.append(f"| {rule.CODE} | {rule.NAME} | {rule.CATEGORY} | {rule.SEVERITY} | {'yes' if rule.FIXABLE else 'no'} | {doc} |")
    for code, (name, severity, doc) in FILE_CODES.items():
        lines.append(f"| {code} | {name} | file | {severity} | no | {doc} |")
    return "\n".join(lines) + "\n"


def text_table() -> str:
    lines = []
    for rule in all_rules():
        lines.append(f"{rule.CODE}  {rule.SEVERITY!s:<8} {rule.CATEGORY!s:<12} {'fix' if rule.FIXABLE else '   '}  {rule.NAME}: {rule.MESSAGE}")
    for code, (name, severity, doc) in FILE_CODES.items():
        lines.append(f"{code}  {severity:<8} {'file':<12}       {name}: {doc}")
    return "\n".join(lines) + "\n"
