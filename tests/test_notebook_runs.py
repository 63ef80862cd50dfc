"""smoke, profile and validate refuse a notebook with exit 2 and the command that converts it (the
bootstrap runs a Python file; a notebook's JSON used to run as Python: `NameError: null`). The cells
are read with the reader analyze uses (migrate/sources.py): the message names the cells with shell lines."""
from __future__ import annotations

import json

import pytest

from tests.helpers import invoke_cli


def _notebook(path):
    code = [["import torch\n", "x = None\n"], ["!pip install timm\n", "print(x)\n"]]
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}]
    cells += [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in code]
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    return path


@pytest.mark.parametrize("command", [["smoke", "--backend", "emulated"], ["profile", "--backend", "emulated"],
                                     ["smoke", "--backend", "emulated", "--nproc-per-node", "2"]],
                         ids=["smoke", "profile", "smoke-2-ranks"])
def test_running_a_notebook_is_refused_with_the_conversion(tmp_path, command):
    nb = _notebook(tmp_path / "nb.ipynb")
    proc = invoke_cli(command[0], str(nb), *command[1:], "--out" if command[0] == "profile" else "-q",
                      *([str(tmp_path / "out")] if command[0] == "profile" else []))
    text = proc.stdout.decode() + proc.stderr.decode()
    assert proc.returncode == 2, text
    assert "is a Jupyter notebook (2 code cells; shell lines in cells 2)" in text
    assert f"jupyter nbconvert --to script {nb}" in text
    assert "NameError" not in text


def test_validate_refuses_a_notebook_before_copying_it(tmp_path):
    nb = _notebook(tmp_path / "nb.ipynb")
    proc = invoke_cli("validate", str(nb), str(nb), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "is a Jupyter notebook" in proc.stderr.decode()
    assert not (tmp_path / "out").exists()
