"""Rule documentation generated from the rules themselves (the README table comes from here)."""

from __future__ import annotations

import re

from migrate.rules import all_rules

# File-level problems are not rules (nothing to match), but their codes are just as stable.
FILE_CODES = {
    "NPU900": ("internal-error", "error", "`apply` produced output that would not parse; the file is left as it was (a bug in npu-migrate: please report it)."),
    "NPU901": ("syntax-error", "error", "The file does not parse as Python 3 (Python 2 code is named as such)."),
    "NPU902": ("decode-error", "error", "Undecodable bytes or a binary file; the file is skipped."),
    "NPU903": ("unreadable", "error", "Unreadable file, broken symbolic link, symbolic link loop, nonexistent path; also a link out of the tree that is not followed, or a FIFO, socket or device (never opened)."),
    "NPU904": ("malformed", "error", "A notebook or dependency manifest that cannot be parsed."),
    "NPU905": ("too-large", "warning", "A file over the size limit (`max-file-size`, 10 MB by default); skipped."),
}


def first_sentence(text: str) -> str:
    """The first sentence of a rule's docs: what one line of the README's short table says."""
    flat = " ".join(text.split())
    match = re.search(r"(?<!e\.g)(?<!i\.e)\.(\s|$)", flat)
    return flat[: match.start() + 1] if match else flat


def markdown_table(short: bool = False) -> str:
    """The code table: one line per code (`short`, for the README) or with the full docs (docs/rules.md)."""
    lines = ["| code | name | category | severity | fixed by `apply` | what it means |", "|---|---|---|---|---|---|"]
    rows = [(r.CODE, r.NAME, str(r.CATEGORY), str(r.SEVERITY), "yes" if r.FIXABLE else "no", r.docs()) for r in all_rules()]
    rows += [(code, name, "file", severity, "no", doc) for code, (name, severity, doc) in FILE_CODES.items()]
    for code, name, category, severity, fixable, doc in rows:
        text = (first_sentence(doc) if short else doc).replace("|", "\\|")
        lines.append(f"| {code} | {name} | {category} | {severity} | {fixable} | {text} |")
    return "\n".join(lines) + "\n"


def text_table() -> str:
    lines = []
    for rule in all_rules():
        lines.append(f"{rule.CODE}  {rule.SEVERITY!s:<8} {rule.CATEGORY!s:<12} {'fix' if rule.FIXABLE else '   '}  {rule.NAME}: {rule.MESSAGE}")
    for code, (name, severity, doc) in FILE_CODES.items():
        lines.append(f"{code}  {severity:<8} {'file':<12}       {name}: {doc}")
    return "\n".join(lines) + "\n"


def explain(code: str) -> dict | None:
    """One code's documentation (`npu-migrate rule CODE`), or None for a code that does not exist."""
    code = code.strip().upper()
    for rule in all_rules():
        if rule.CODE == code:
            invalid = [example.code for example in rule.INVALID]
            valid = [example if isinstance(example, str) else example.code for example in rule.VALID]
            return {"code": rule.CODE, "name": rule.NAME, "category": str(rule.CATEGORY), "severity": str(rule.SEVERITY),
                    "fixable": rule.FIXABLE, "message": rule.MESSAGE, "docs": rule.docs(),
                    "flagged_example": invalid[0].strip("\n") if invalid else None,
                    "fine_example": valid[0].strip("\n") if valid else None}
    if code in FILE_CODES:
        name, severity, doc = FILE_CODES[code]
        return {"code": code, "name": name, "category": "file", "severity": severity, "fixable": False, "message": "",
                "docs": doc, "flagged_example": None, "fine_example": None}
    return None


def explain_text(entry: dict) -> str:
    import textwrap

    fixed = "fixed by `apply`" if entry["fixable"] else "not fixed by `apply` (a manual item)"
    lines = [f"{entry['code']} {entry['name']} ({entry['category']}, {entry['severity']}, {fixed})", "",
             *textwrap.wrap(entry["docs"], 100)]
    if entry["message"]:
        lines += ["", f"Message: {entry['message']}"]
    for title, key in (("Flagged", "flagged_example"), ("Not flagged", "fine_example")):
        if entry[key]:
            lines += ["", f"{title}:", textwrap.indent(textwrap.dedent(entry[key]), "    ")]
    return "\n".join(lines) + "\n"
