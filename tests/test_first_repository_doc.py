"""docs/first-repository.md stays runnable: every `$ npu-migrate ...` command it shows parses with
today's options (the walkthrough itself ran on a third-party script that is not in this repository,
so its outputs cannot be re-run here; the options and the shown exit codes can drift, and this fails
when they do), and every link in it points at a file that exists."""
from __future__ import annotations

import re
import shlex

import click
import pytest

from migrate.cli import cli
from tests.helpers import ROOT

DOC = ROOT / "docs" / "first-repository.md"


def _commands():
    return [line[2:] for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("$ npu-migrate ")]


def test_the_walkthrough_shows_every_stage():
    names = [shlex.split(c)[1] for c in _commands()]
    for stage in ("doctor", "analyze", "apply", "smoke", "validate", "profile", "check"):
        assert stage in names, stage


@pytest.mark.parametrize("command", _commands())
def test_each_command_parses(command):
    words = shlex.split(command)[1:]
    ctx = click.Context(cli)
    sub = cli.get_command(ctx, words[0])
    assert sub is not None, words[0]
    sub.make_context(words[0], words[1:], parent=ctx)  # raises click.UsageError on an unknown option


def test_links_point_at_files_that_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", DOC.read_text(encoding="utf-8")):
        if not target.startswith("http"):
            assert (DOC.parent / target).exists(), target
    assert "docs/first-repository.md" in (ROOT / "README.md").read_text(encoding="utf-8")
