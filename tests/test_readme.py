"""The README is a front door: it opens with the two commands, stays short, and links to the one
generated table of the finding codes (docs/rules.md) instead of carrying a copy."""

from __future__ import annotations

import re

from migrate.rules import all_rules
from migrate.rules._docs import FILE_CODES
from tests.helpers import ROOT

README = ROOT / "README.md"


def _update_readme():
    import importlib.util

    spec = importlib.util.spec_from_file_location("update_readme", ROOT / "scripts" / "update_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rule_table_is_current_and_generated_once():
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert _update_readme().render_docs() == docs, "run: .venv/bin/python scripts/update_readme.py"
    for code in [r.CODE for r in all_rules()] + list(FILE_CODES):
        assert f"| {code} |" in docs
    # one table: the README and the contract link to it and carry no rows of their own
    for path in (README, ROOT / "docs" / "CONTRACT.md"):
        text = path.read_text(encoding="utf-8")
        assert "rules.md" in text, path
        assert not re.search(r"^\| NPU\d{3} \|", text, re.M), f"{path.name} carries a copy of the rule table"


def test_readme_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert "scripts/demo.sh" in blocks[0] and "scripts/test.sh" in blocks[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci


def test_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 13_000, f"README.md is {len(text.encode())} bytes: details go to docs/"
    for heading in ("## Workflow", "## Commands", "## Design"):
        assert heading in text
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", text)
    missing = sorted({link for link in links if not (ROOT / link).exists()})
    assert links and not missing, f"README links to missing files: {missing}"
