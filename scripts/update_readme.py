"""Regenerate the rule table from the rules themselves: docs/rules.md, the one table of the finding
codes (the README and docs/CONTRACT.md link to it)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


DOCS_HEAD = """# Finding codes

Generated from the rules by `scripts/update_readme.py` (do not edit by hand). Codes are stable forever,
grouped by hundreds: 1xx devices, 2xx identity checks, 3xx distributed, 4xx AMP, 5xx GPU-only
third-party code, 6xx ops and features, 7xx environment variables, 8xx the training loop (loss scaling,
clipping, gradient accumulation, checkpoints), 9xx files that could not be read.
`npu-migrate rules` prints the same list in a terminal.

"""


def render_docs() -> str:
    from migrate.rules._docs import markdown_table

    return DOCS_HEAD + markdown_table()


def main() -> int:
    docs = ROOT / "docs" / "rules.md"
    full = render_docs()
    if not docs.exists() or docs.read_text(encoding="utf-8") != full:
        docs.write_text(full, encoding="utf-8")
        print("docs/rules.md updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
