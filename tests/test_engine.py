"""The engine on real files: discovery, notebooks, manifests, launchers, noqa, select/ignore, cache."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from migrate.config import Config
from migrate.engine import scan

CUDA_SCRIPT = "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n"


def codes(result):
    return sorted(f.code for f in result.findings)


def test_directory_scan_honours_gitignore_and_exclude(tmp_path: Path):
    (tmp_path / "a.py").write_text(CUDA_SCRIPT)
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "b.py").write_text(CUDA_SCRIPT)
    (tmp_path / "skipme").mkdir()
    (tmp_path / "skipme" / "c.py").write_text(CUDA_SCRIPT)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "d.py").write_text(CUDA_SCRIPT)
    # outside a git work tree .gitignore means nothing (an exported tree holds committed files only)
    result = scan([str(tmp_path)], Config(exclude=("skipme",)), use_cache=False)
    assert sorted(Path(r.path).name for r in result.files) == ["a.py", "b.py"]
    (tmp_path / ".git").mkdir()  # a work tree (its index unreadable: the patterns apply to every file)
    result = scan([str(tmp_path)], Config(exclude=("skipme",)), use_cache=False)
    assert [Path(r.path).name for r in result.files] == ["a.py"]
    result = scan([str(tmp_path)], Config(respect_gitignore=False), use_cache=False)
    assert sorted(Path(r.path).name for r in result.files) == ["a.py", "b.py", "c.py"]


def test_setuptools_build_output_is_not_read(tmp_path: Path):
    # a committed `setup.py build` output: copies of the package under build/lib.<platform>-<python>/ and the
    # generated C under build/temp.<platform>-<python>/ (label rule 46b-1); a source folder named build/ is read
    ops = tmp_path / "ops"
    for folder in ("pkg", "build/lib.linux-x86_64-2.7/pkg", "build/temp.linux-x86_64-cpython-310/pkg", "build/tools"):
        (ops / folder).mkdir(parents=True)
        (ops / folder / "use.py").write_text(CUDA_SCRIPT)
    result = scan([str(tmp_path)], Config(), use_cache=False)
    assert sorted(Path(r.path).relative_to(tmp_path).as_posix() for r in result.files) == [
        "ops/build/tools/use.py", "ops/pkg/use.py"]


def test_cmake_generated_build_tree_is_not_read(tmp_path: Path):
    # a committed in-source CMake build (set 72d): CMakeFiles/ holds cmake's generated files, its CUDA compiler
    # probe CMakeCUDACompilerId.cu and configure log among them; the CMakeLists.txt and .cu sources beside it are read
    ext = tmp_path / "ext"
    (ext / "CMakeFiles" / "3.26.4" / "CompilerIdCUDA").mkdir(parents=True)
    (ext / "CMakeFiles" / "3.26.4" / "CompilerIdCUDA" / "CMakeCUDACompilerId.cu").write_text("__global__ void k() {}\n")
    (ext / "CMakeFiles" / "3.26.4" / "CMakeCUDACompiler.cmake").write_text('set(CMAKE_CUDA_COMPILER "/usr/bin/nvcc")\n')
    (ext / "CMakeCache.txt").write_text("CMAKE_CUDA_COMPILER:FILEPATH=/usr/bin/nvcc\n")
    (ext / "CMakeLists.txt").write_text("project(R LANGUAGES CUDA CXX)\nadd_library(R k.cu)\n")
    (ext / "k.cu").write_text("__global__ void k() {}\n")
    result = scan([str(tmp_path)], Config(), use_cache=False)
    read = sorted(Path(r.path).relative_to(tmp_path).as_posix() for r in result.files)
    assert "ext/CMakeLists.txt" in read and "ext/k.cu" in read
    assert not [p for p in read if "CMakeFiles" in p]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command to make a real index")
@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_gitignore_skips_untracked_files_only_inside_a_work_tree(tmp_path: Path, version: str):
    # Open-Sora-Plan: `*curope*` in .gitignore while opensora/models/diffusion/curope/ is committed (git add -f)
    (tmp_path / ".gitignore").write_text("*curope*\nbuild/\n")
    (tmp_path / "a.py").write_text(CUDA_SCRIPT)
    for rel in ("pkg/curope/curope3d.py", "pkg/curope/setup.py", "pkg/curope_tmp.py", "build/b.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(CUDA_SCRIPT)
    outside = sorted(Path(r.path).relative_to(tmp_path).as_posix() for r in scan([str(tmp_path)], use_cache=False).files)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.fsmonitor=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-f", ".gitignore", "a.py", "pkg/curope/curope3d.py", "pkg/curope/setup.py"], check=True)
    subprocess.run([*git, "update-index", "--index-version", version], check=True)
    inside = sorted(Path(r.path).relative_to(tmp_path).as_posix() for r in scan([str(tmp_path)], use_cache=False).files)
    # without a work tree .gitignore means nothing (every file is read); in one, the committed files are read
    # and the untracked ones the patterns match (an untracked curope_tmp.py, build/) stay skipped
    assert outside == ["a.py", "build/b.py", "pkg/curope/curope3d.py", "pkg/curope/setup.py", "pkg/curope_tmp.py"]
    assert inside == ["a.py", "pkg/curope/curope3d.py", "pkg/curope/setup.py"]


def test_explicit_file_and_findings_have_exact_spans(tmp_path: Path):
    path = tmp_path / "t.py"
    path.write_text("import torch\n\nx = torch.ones(2)\ny = x.cuda()\n")
    result = scan([str(path)], use_cache=False)
    [finding] = [f for f in result.findings if f.code == "NPU101"]
    # at `.cuda()` itself (issue 11), not at the start of the expression it is called on
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (4, 6, 4, 13)


def test_non_ascii_columns_are_characters(tmp_path: Path):
    path = tmp_path / "t.py"
    path.write_text("import torch\nx = {'模型': torch.ones(1)}['模型'].cuda()\n", encoding="utf-8")
    [finding] = [f for f in scan([str(path)], use_cache=False).findings if f.code == "NPU101"]
    line = path.read_text(encoding="utf-8").splitlines()[1]
    assert line[finding.column - 1 : finding.end_column - 1].endswith(".cuda()")


def test_noqa_on_any_line_of_a_statement_and_file_level(tmp_path: Path):
    path = tmp_path / "t.py"
    path.write_text(
        "import torch\n"
        "a = torch.ones(1).cuda()  # noqa: NPU101\n"
        "b = (torch.ones(1)\n"
        "     .cuda())  # noqa: NPU\n"
        "c = torch.ones(1).cuda()  # noqa: NPU2\n"
        "d = torch.ones(1).cuda()  # noqa\n"
        "e = torch.ones(1).cuda()  # noqa: F401\n"
    )
    result = scan([str(path)], use_cache=False)
    # a bare noqa comment and another linter's codes are not ours (ruling (L86)): lines 6 and 7 stay reported
    assert [f.line for f in result.findings if f.code == "NPU101"] == [5, 6, 7]
    assert result.files[0].suppressed == 2
    path.write_text("# npu-migrate: noqa\n" + path.read_text())
    assert scan([str(path)], use_cache=False).findings == []


def test_noqa_in_a_string_does_not_suppress_and_uppercase_noqa_does(tmp_path: Path):
    """Comments are told from strings by the tokenizer, which runs only when a line mentioning noqa
    lies inside a finding's statement (suppress.needs_comments)."""
    path = tmp_path / "t.py"
    path.write_text(
        "import torch\n"
        "a = torch.ones(1).cuda(); s = '# noqa'\n"
        "b = torch.ones(1).cuda()  # NOQA: NPU101\n"
        "c = torch.ones(1).cuda()\n"
        "note = 'mentions noqa far away'\n"
    )
    result = scan([str(path)], use_cache=False)
    assert [f.line for f in result.findings if f.code == "NPU101"] == [2, 4]
    assert result.files[0].suppressed == 1


def test_select_ignore_longest_prefix_wins(tmp_path: Path):
    path = tmp_path / "t.py"
    path.write_text(CUDA_SCRIPT)
    assert codes(scan([str(path)], Config(ignore=("NPU1",)), use_cache=False)) == []
    assert codes(scan([str(path)], Config(ignore=("NPU1",), select=("NPU101",)), use_cache=False)) == ["NPU101"]
    assert codes(scan([str(path)], Config(select=("NPU2",)), use_cache=False)) == []
    assert codes(scan([str(path)], Config(per_file_ignores=(("t.py", ("NPU101",)),)), use_cache=False)) == []


def test_notebook_findings_point_at_cell_and_line(tmp_path: Path):
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["use model.cuda() here"], "metadata": {}},
            {"cell_type": "code", "source": ["%matplotlib inline\n", "import torch\n", "m = torch.nn.Linear(1, 1).cuda()\n"],
             "metadata": {}, "outputs": [], "execution_count": None},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    [finding] = [f for f in scan([str(path)], use_cache=False).findings if f.code == "NPU101"]
    assert (finding.cell, finding.line) == (1, 3)


def test_cache_reuses_unchanged_files_and_notices_changes(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        (src / f"m{i}.py").write_text(CUDA_SCRIPT)
    cache = tmp_path / "cache"
    first = scan([str(src)], cache_dir=cache)
    second = scan([str(src)], cache_dir=cache)
    assert first.cached_files == 0 and second.cached_files == 3
    assert [f.to_dict() for f in first.findings] == [f.to_dict() for f in second.findings]
    (src / "m1.py").write_text("import torch\n")
    third = scan([str(src)], cache_dir=cache)
    assert third.cached_files == 2
    assert len([f for f in third.findings if f.code == "NPU101"]) == 2


def test_a_cache_filled_naming_files_relatively_gives_an_absolute_run_the_same_findings(tmp_path: Path, monkeypatch):
    """The installed torch package's inductor kernels (a real tree whose findings depend on cross-file passes):
    a run naming the folder relatively, then one naming it absolutely with the same cache, finds what a fresh
    absolute run finds. The cached results' facts hold the paths as the first run named them; before the cache
    key held that name, the second run mixed both styles: 767 findings became 1,169 here (torch 2.14.1)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")  # locates the package without importing it
    if not (spec and spec.submodule_search_locations):
        pytest.skip("torch is not installed")
    torch_dir = Path(list(spec.submodule_search_locations)[0])
    folder = torch_dir / "_inductor" / "kernel"
    if not folder.is_dir():
        pytest.skip("this torch has no _inductor/kernel folder")
    monkeypatch.chdir(torch_dir.parent)
    relative = str(folder.relative_to(torch_dir.parent))

    def found(result):
        return sorted((Path(f.path).resolve().as_posix(), f.line, f.code) for f in result.findings)

    cache = tmp_path / "cache"
    first = scan([relative], cache_dir=cache)
    second = scan([str(folder)], cache_dir=cache)
    fresh = scan([str(folder)], use_cache=False)
    assert found(first) == found(fresh) and len(fresh.findings) > 100
    assert found(second) == found(fresh)


def test_parallel_and_serial_scans_agree(tmp_path: Path):
    for i in range(40):
        (tmp_path / f"m{i}.py").write_text(CUDA_SCRIPT + "\n# padding\n" * 2000)
    serial = scan([str(tmp_path)], jobs=1, use_cache=False)
    parallel = scan([str(tmp_path)], jobs=2, use_cache=False)
    assert [f.to_dict() for f in serial.findings] == [f.to_dict() for f in parallel.findings]
    assert len(serial.findings) >= 40


def test_stdin(tmp_path: Path):
    result = scan(["-"], stdin_data=CUDA_SCRIPT.encode(), use_cache=False)
    assert [f.path for f in result.findings if f.code == "NPU101"] == ["<stdin>"]


def test_notebook_cells_see_imports_of_other_cells(tmp_path: Path):
    nb = {
        "cells": [
            {"cell_type": "code", "source": "import torch as th\n", "metadata": {}, "outputs": [], "execution_count": None},
            {"cell_type": "code", "source": "th.cuda.empty_cache()\nok = th.cuda.is_available()\n", "metadata": {},
             "outputs": [], "execution_count": None},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    found = {(f.cell, f.line, f.code) for f in scan([str(path)], use_cache=False).findings}
    assert (1, 1, "NPU102") in found and (1, 2, "NPU203") in found


def test_a_file_analysed_again_after_the_scan_may_be_gone(tmp_path: Path):
    """The passes after the scan (linking, imported flags and kernels, optional modules) read a file again when the
    scan did not keep its bytes: one removed, replaced by a folder or undecodable since the walk is skipped (None),
    where two of them passed the read error on to the decoder and stopped analyze."""
    from migrate import engine

    kept = tmp_path / "kept.py"
    kept.write_text("import torch\n")
    assert engine.text_again(str(kept), None, 1 << 20) == "import torch\n"
    assert engine.text_again(str(kept), b"x = 1\n", 1 << 20) == "x = 1\n"  # the scan's bytes win
    assert engine.text_again(str(tmp_path / "gone.py"), None, 1 << 20) is None
    (tmp_path / "dir.py").mkdir()
    assert engine.text_again(str(tmp_path / "dir.py"), None, 1 << 20) is None
    assert engine.text_again(str(kept), None, 4) is None  # over the size limit now
