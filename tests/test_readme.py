"""The README documents every code, generated from the rules, and opens with the two commands."""

from __future__ import annotations

import re

from migrate.rules import all_rules
from migrate.rules._docs import FILE_CODES
from tests.helpers import ROOT


def test_rule_table_is_current():
    import importlib.util

    spec = importlib.util.spec_from_file_location("update_readme", ROOT / "scripts" / "update_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert module.render(text) == text, "run: .venv/bin/python scripts/update_readme.py"
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert module.render_docs() == docs, "run: .venv/bin/python scripts/update_readme.py"
    for code in [r.CODE for r in all_rules()] + list(FILE_CODES):
        assert f"| {code} |" in text and f"| {code} |" in docs
    # the README keeps one line per code; the long texts live in docs/rules.md
    for rule in all_rules():
        row = next(line for line in text.splitlines() if line.startswith(f"| {rule.CODE} |"))
        assert len(row) < len(next(line for line in docs.splitlines() if line.startswith(f"| {rule.CODE} |"))) or len(rule.docs()) < 200


def test_readme_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert "scripts/demo.sh" in blocks[0] and "scripts/test.sh" in blocks[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci
