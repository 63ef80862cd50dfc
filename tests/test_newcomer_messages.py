"""What a newcomer reads: no verdict over nothing, no feasibility verdict in the CI gate, counts in English,
one option name for the target release everywhere (issue 16)."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from migrate.cli import cli

GPU = "import torch\nx = torch.zeros(1).cuda()\n"


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_analyze_of_nothing_readable_gives_no_verdict(tmp_path):
    bad = tmp_path / "bad_syntax.py"
    bad.write_text("def f(:\n")
    for target in (str(bad), str(tmp_path / "nope.py")):
        result = run("analyze", "--no-cache", target)
        assert result.exit_code == 2
        assert "Verdict: automatic" not in result.output
        assert "Verdict: none: no file could be scanned" in result.output


def test_analyze_says_which_files_the_verdict_does_not_cover(tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n")
    (tmp_path / "train.py").write_text(GPU)
    result = run("analyze", "--no-cache", str(tmp_path))
    assert result.exit_code == 1
    assert re.search(r"^Verdict: automatic \(1 file could not be scanned and is not judged\)$", result.output, re.M)
    assert "Scanned 1 file (" in result.output and "1 files" not in result.output


def test_analyze_says_a_file_that_is_python_2_code_is_python_2(tmp_path):
    # set 22 (MVIG-SJTU/AlphaPose, vid2vid): files with `print "..."` statements do not parse as Python 3
    (tmp_path / "old.py").write_text("import os\nprint 'hello'\n")
    (tmp_path / "bad.py").write_text("def f(:\n")
    (tmp_path / "train.py").write_text(GPU)
    result = run("analyze", "--no-cache", str(tmp_path))
    assert re.search(r"^Verdict: automatic \(1 file is Python 2 code and is not judged; 1 file could not be scanned "
                     r"and is not judged\)$", result.output, re.M)


def test_analyze_counts_notebook_cells_it_could_not_parse_as_cells(tmp_path):
    # OpenGVLab/OmniQuant (set 21b): 5 cells of 3 notebooks that did not parse made the verdict say "5 files could not be
    # scanned"; the rest of each notebook is scanned
    cell = {"cell_type": "code", "source": "    indented = (\n"}
    (tmp_path / "a.ipynb").write_text(json.dumps({"nbformat": 4, "cells": [cell, cell]}))
    (tmp_path / "train.py").write_text(GPU)
    result = run("analyze", "--no-cache", str(tmp_path))
    assert re.search(r"^Verdict: automatic \(2 notebook cells in 1 file could not be parsed and are not judged\)$", result.output, re.M)
    assert "Notebook cells that could not be parsed: 2 (in 1 file)" in result.output
    assert "Files that could not be scanned" not in result.output


def test_check_text_ends_with_its_gate_not_a_feasibility_verdict(tmp_path):
    (tmp_path / "train.py").write_text(GPU)
    result = run("check", "--no-cache", str(tmp_path / "train.py"))
    assert result.exit_code == 1
    assert "Verdict:" not in result.output
    assert "check: 1 finding at or above error -> FAIL" in result.output


def test_check_json_keeps_the_verdict(tmp_path):
    import json

    (tmp_path / "train.py").write_text(GPU)
    result = run("check", "--no-cache", "--format", "json", str(tmp_path / "train.py"))
    data = json.loads(result.stdout)
    assert data["verdict"]["status"] == "automatic"


def test_every_command_names_the_target_release_the_same_way():
    for command in ("analyze", "check", "apply", "smoke", "validate", ("kb", "ops"), ("kb", "api")):
        args = list(command) if isinstance(command, tuple) else [command]
        result = run(*args, "--help")
        assert "--torch-npu-version" in result.output, args
        assert "the installed one, else the newest known" in " ".join(result.output.split()), args


def test_apply_names_the_file_it_wrote_into_a_folder(tmp_path):
    (tmp_path / "train.py").write_text(GPU)
    out = tmp_path / "out"
    out.mkdir()
    result = run("apply", str(tmp_path / "train.py"), "-o", str(out))
    assert result.exit_code == 0
    assert f"apply: wrote {out / 'train.py'}" in result.output
    assert "1 of 1 file changed, 1 rewrite " in result.output and "1 files" not in result.output


def test_apply_writes_nothing_for_a_file_that_does_not_parse(tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n")
    result = run("apply", str(tmp_path / "bad.py"), "-o", str(tmp_path / "bad_npu.py"))
    assert result.exit_code == 2
    assert not (tmp_path / "bad_npu.py").exists()
    assert "not written" in result.output and "NPU901" in result.output
    assert "1 manual item left" in result.output


MANUAL = '''import torch
import torch.nn as nn


def main():
    model = nn.Linear(4, 2).cuda()
    model = nn.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(8, 4).cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
'''


def _manual_lines(output):
    return re.findall(r"^  (\S+?):(\d+): NPU303 .*\(input (\S+?):(\d+)\)$", output, re.M)


def test_apply_names_manual_items_in_the_file_it_wrote_at_their_line_there(tmp_path):
    """The codemods add lines above the manual item; the message points at the output the user edits."""
    src, out = tmp_path / "train.py", tmp_path / "npu_train.py"
    src.write_text(MANUAL)
    result = run("apply", str(src), "-o", str(out))
    (path, line, in_path, in_line), = _manual_lines(result.output)
    assert path == str(out) and in_path == str(src)
    assert int(line) > int(in_line)  # imports (and hooks) were added above it
    assert "nn.DataParallel(model)" in out.read_text().splitlines()[int(line) - 1]
    assert "nn.DataParallel(model)" in MANUAL.splitlines()[int(in_line) - 1]
    assert f"{out}: added import torch_npu" in result.output


def test_apply_of_a_folder_names_manual_items_in_the_output_folder(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(MANUAL)
    result = run("apply", str(tmp_path / "src"), "-o", str(tmp_path / "out"))
    (path, line, _, _), = _manual_lines(result.output)
    assert path == str(tmp_path / "out" / "train.py")
    assert "nn.DataParallel(model)" in (tmp_path / "out" / "train.py").read_text().splitlines()[int(line) - 1]


def test_check_on_migrated_code_has_no_migration_coverage_line(tmp_path):
    """'0 rewritten by apply (0%)' over code apply already migrated reads as a failure; analyze keeps it."""
    (tmp_path / "t.py").write_text("import torch\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    checked = run("check", "--no-cache", str(tmp_path / "t.py"))
    assert "NPU303" in checked.output and "Migration coverage" not in checked.output
    analyzed = run("analyze", "--no-cache", str(tmp_path / "t.py"))
    assert "Migration coverage: 1 construct, 0 rewritten" in analyzed.output
