"""apply never writes into its input, never crashes on one bad file, and says why it could not write
(issue 12, apply side). Each case failed before the fix it guards."""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from migrate.rewrite import ApplyOptions, plan_tree, rewrite_file, rewrite_source, write_tree
from tests.helpers import ROOT, invoke_cli

LIB = b"import torch\n\n\ndef f(x):\n    return x.cuda()\n"
ENTRY_HEAD = "import torch\nmodel = torch.nn.Linear(1, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=1)\n"
ENTRY_TAIL = "if __name__ == '__main__':\n    opt.step()\n"


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "lib.py").write_bytes(LIB)
    (src / "train.py").write_bytes(LIB)
    return src


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


# ---- never into the input -------------------------------------------------------------------------------
def test_output_folder_with_a_link_into_the_input_is_refused_even_with_force(tmp_path: Path):
    src = _tree(tmp_path)
    before = _snapshot(src)
    out = tmp_path / "out"
    out.mkdir()
    (out / "pkg").symlink_to(src / "pkg")  # left from an earlier run, or planted
    proc = invoke_cli("apply", str(src), "-o", str(out), "--force")
    assert proc.returncode == 2, proc.stderr.decode()
    assert b"inside the input" in proc.stderr and b"Traceback" not in proc.stderr
    assert _snapshot(src) == before
    assert not (out / "train.py").exists()  # refused before anything was written


def test_output_folder_with_a_link_elsewhere_is_refused(tmp_path: Path):
    src = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "pkg").symlink_to(elsewhere)
    proc = invoke_cli("apply", str(src), "-o", str(out), "--force")
    assert proc.returncode == 2 and b"outside the output folder" in proc.stderr
    assert list(elsewhere.iterdir()) == []


def test_report_inside_the_input_folder_is_refused(tmp_path: Path):
    src = _tree(tmp_path)
    proc = invoke_cli("apply", str(src), "-o", str(tmp_path / "out"), "--report", str(src / "changes.json"))
    assert proc.returncode == 2 and not (src / "changes.json").exists()
    proc = invoke_cli("apply", str(src / "train.py"), "-o", str(tmp_path / "o.py"), "--report", str(src / "train.py"))
    assert proc.returncode == 2 and (src / "train.py").read_bytes() == LIB


def test_in_place_backup_force_never_overwrites_the_original_backup(tmp_path: Path):
    script = tmp_path / "lib.py"
    script.write_bytes(LIB)
    assert invoke_cli("apply", str(script), "--in-place", "--backup").returncode == 0
    assert (tmp_path / "lib.py.orig").read_bytes() == LIB
    script.write_bytes(LIB.replace(b"x.cuda()", b"x.cuda(0)"))  # edited again, still CUDA
    proc = invoke_cli("apply", str(script), "--in-place", "--backup", "--force")
    assert proc.returncode == 0, proc.stderr.decode()
    assert (tmp_path / "lib.py.orig").read_bytes() == LIB  # the pristine original is kept
    assert b"kept the existing" in proc.stderr and b"x.npu(0)" in script.read_bytes()


# ---- modes and write errors --------------------------------------------------------------------------------
def test_outputs_and_reports_get_ordinary_file_modes(tmp_path: Path):
    src = _tree(tmp_path)
    os.chmod(src / "train.py", 0o755)
    previous = os.umask(0o022)
    try:
        assert invoke_cli("apply", str(src), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "r.json")).returncode == 0
        assert invoke_cli("apply", str(src / "pkg" / "lib.py"), "--diff", "--report", str(tmp_path / "r.csv")).returncode == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(tmp_path / "r.json").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "r.csv").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "train.py").st_mode) == 0o755  # copies keep the input's mode
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "pkg" / "lib.py").st_mode) == stat.S_IMODE(os.stat(src / "pkg" / "lib.py").st_mode)


@pytest.mark.parametrize("where", ["output-file", "output-folder", "report"])
def test_a_parent_that_is_a_file_is_exit_2_with_the_path_and_the_cause(tmp_path: Path, where):
    src = _tree(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder\n")
    args = {
        "output-file": ["apply", str(src / "train.py"), "-o", str(blocker / "train.py")],
        "output-folder": ["apply", str(src), "-o", str(blocker / "out")],
        "report": ["apply", str(src / "train.py"), "--diff", "--report", str(blocker / "r.json")],
    }[where]
    proc = invoke_cli(*args)
    assert proc.returncode == 2, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "cannot write" in err and str(blocker) in err and "Not a directory" in err
    assert "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_output_folder_is_exit_2(tmp_path: Path):
    src = _tree(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    proc = invoke_cli("apply", str(src / "train.py"), "-o", str(locked / "t.py"))
    assert proc.returncode == 2 and b"Permission denied" in proc.stderr


# ---- what sits beside the code -------------------------------------------------------------------------------
def test_fifos_in_the_tree_are_never_opened(tmp_path: Path):
    src = _tree(tmp_path)
    os.mkfifo(src / "pipe")
    os.mkfifo(src / "pkg" / "fifo.py")
    out = tmp_path / "out"
    code = ("import sys\nfrom migrate.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code, "apply", str(src), "-o", str(out)], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"skipped pipe: FIFO, not copied" in proc.stderr
    assert (out / "train.py").read_bytes() != LIB and not (out / "pipe").exists() and not (out / "pkg" / "fifo.py").exists()
    # named on the command line: reported, not read (opening it would block)
    proc = subprocess.run([sys.executable, "-c", code, "apply", str(src / "pkg" / "fifo.py"), "--diff"], capture_output=True,
                          env=env, timeout=120)
    assert proc.returncode == 2 and b"FIFO, not read" in proc.stderr


def test_an_unreadable_file_is_not_copied_as_an_empty_file(tmp_path: Path, monkeypatch):
    src = _tree(tmp_path)
    blocked = os.path.join(str(src), "pkg", "lib.py")
    real_open = os.open

    def refusing_open(path, *args, **kwargs):
        if os.fspath(path) == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    result = plan_tree(str(src), ApplyOptions(config_check=False), jobs=1)
    monkeypatch.undo()
    write_tree(result, str(src), str(tmp_path / "out"))
    assert not (tmp_path / "out" / "pkg" / "lib.py").exists()
    assert (tmp_path / "out" / "train.py").exists()
    assert any("lib.py" in note and "Permission denied" in note for note in result.skipped)
    assert [m.code for m in result.manual if m.path == blocked] == ["NPU903"]


def test_the_size_limit_of_analyze_applies_to_apply(tmp_path: Path):
    src = _tree(tmp_path)
    big = LIB + b"# padding\n" * 200
    (src / "pkg" / "big.py").write_bytes(big)
    (src / "pyproject.toml").write_text("[tool.npu-migrate]\nmax-file-size = 1000\n")
    out = tmp_path / "out"
    proc = invoke_cli("apply", str(src), "-o", str(out), "--report", str(tmp_path / "r.json"))
    assert (out / "pkg" / "big.py").read_bytes() == big  # copied unchanged, not rewritten
    assert (out / "pkg" / "lib.py").read_bytes() != LIB
    manual = json.loads((tmp_path / "r.json").read_text())["manual"]
    assert any(m["code"] == "NPU905" and m["file"].endswith("big.py") for m in manual), proc.stderr.decode()


# ---- libcst limits and line endings -----------------------------------------------------------------------------
@pytest.mark.parametrize("middle", [
    "y = " + "+".join(["1"] * 340) + "\n",
    "x = 0\nif x == 0:\n    pass\n" + "".join(f"elif x == {i}:\n    pass\n" for i in range(1, 500)),
], ids=["340-term-sum", "500-branch-elif"])
def test_libcst_recursion_keeps_the_rule_edits_and_reports_the_file(middle):
    rewrite = rewrite_source(ENTRY_HEAD + middle + ENTRY_TAIL, path="train.py")
    output = rewrite.output.decode()
    assert rewrite.error is None and "torch.nn.Linear(1, 1).npu()" in output
    ast.parse(output)
    assert [m.code for m in rewrite.manual] == ["NPU905"] and "RecursionError" in rewrite.manual[0].message


def test_cr_only_line_endings_are_rewritten_not_refused():
    source = "import torch\r\r\rdef f(x):\r    return x.cuda()\r"
    rewrite = rewrite_file("lib.py", source.encode(), kinds=("python",))
    assert rewrite.error is None, rewrite.error
    out = rewrite.output.decode()
    assert out == "import torch\rimport torch_npu\r\r\rdef f(x):\r    return x.npu()\r"


def test_thousands_of_findings_on_one_line_are_reported_with_clipped_context():
    n = 3000
    source = "import torch\nx = torch.zeros(1)\n" + "; ".join(f"y{i} = x.cuda()" for i in range(n)) + "\n"
    rewrite = rewrite_source(source, path="one.py")
    assert rewrite.output.decode().count(".npu()") == n and ".cuda()" not in rewrite.output.decode()
    assert len(rewrite.changes) == n
    middle = rewrite.changes[n // 2]
    assert middle.before.startswith("…") and middle.before.endswith("…") and len(middle.before) < 300
    assert f"y{n // 2} = x.cuda()" in middle.before and f"y{n // 2} = x.npu()" in middle.after
    assert middle.after.replace("x.npu()", "x.cuda()", 1) == middle.before  # only its own edit applied
    last = rewrite.changes[-1]
    assert not last.before.endswith("…") and last.after.endswith(f"y{n - 1} = x.npu()")


def test_one_file_that_breaks_the_rewrite_does_not_stop_the_tree(tmp_path: Path, monkeypatch):
    import migrate.rewrite.tree as tree

    src = _tree(tmp_path)
    real = tree.rewrite_file

    def breaking(path, data, **kwargs):
        if path.endswith("lib.py"):
            raise ValueError("a bug in a rule")
        return real(path, data, **kwargs)

    monkeypatch.setattr(tree, "rewrite_file", breaking)
    result = plan_tree(str(src), ApplyOptions(config_check=False), jobs=1)
    broken = next(f for f in result.files if f.path.endswith("lib.py"))
    assert broken.error is not None and broken.error.code == "NPU900" and "ValueError: a bug in a rule" in broken.error.message
    assert broken.output == broken.original == LIB  # copied unchanged
    assert next(f for f in result.files if f.path.endswith("train.py")).changed
