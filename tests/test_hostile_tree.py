"""Hostile input for analyze/check (issue 12): every case gets one clear per-file result, the scan goes
on, nothing escapes, and the walk never leaves the tree or opens what is not a regular file.

Static side only: in-process through the engine (`scan`) or the CLI's `main`, no torch.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest

from migrate.cli import main
from migrate.config import Config
from migrate.engine import Target, _read_target, scan
from tests.helpers import run_cli

GOOD = "import torch\nx = torch.ones(1).cuda()\n"


def _scan(*paths, config: Config | None = None, **kw):
    kw.setdefault("use_cache", False)
    kw.setdefault("jobs", 1)
    return scan([str(p) for p in paths], config, **kw)


def _tree(tmp_path: Path, name: str, content: bytes | str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    (tmp_path / "good.py").write_text(GOOD)
    return path


def _errors_for(result, name: str):
    return [e for e in result.errors if e.path.endswith(name)]


def _good_found(result) -> bool:
    return any(f.code == "NPU101" and f.path.endswith("good.py") for f in result.findings)


def _run_with_timeout(fn, seconds: float = 20.0):
    """Run fn in a thread; fail (instead of hanging the suite) when it blocks."""
    out: dict = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"blocked for more than {seconds}s"
    if "error" in out:
        raise out["error"]
    return out["value"]


# ---- readers: depth, shape, recursion ------------------------------------------------------------------
def _yaml_block(levels: int) -> str:
    return "dependencies:\n" + "".join(" " * (i + 1) + "- k:\n" for i in range(levels))


HOSTILE_FILES = {
    # name: (content, expected code or None, words in the message)
    "deep.ipynb": ('{"cells": [' + "[" * 1000 + "]" * 1000 + "]}", "NPU904", "nested"),
    "deep_ok_strings.ipynb": ('{"cells": [], "metadata": {"x": "' + "[" * 5000 + '"}}', None, ""),
    "flow/environment.yml": ("dependencies: " + "[" * 5000 + "]" * 5000 + "\n", "NPU904", "nested"),
    "block/environment.yml": (_yaml_block(3000), "NPU904", "nested"),
    "int/environment.yml": ("dependencies: 5\n", "NPU904", "dependencies is a number"),
    "pipint/environment.yml": ("dependencies:\n  - pip: 5\n", "NPU904", "dependencies.pip is a number"),
    "toplist/environment.yml": ("- a\n- b\n", "NPU904", "not a mapping"),
    "chain/setup.py": ("from setuptools import setup\nsetup(install_requires=" + "+".join(['["a"]'] * 3000) + ")\n",
                       "NPU901", "nested too deeply"),
    "p1/pyproject.toml": ('project = "x"\n', "NPU904", "project is a string"),
    "p2/pyproject.toml": ("[project]\ndependencies = 5\n", "NPU904", "project.dependencies is a number"),
    "p3/pyproject.toml": ('[project]\noptional-dependencies = ["a"]\n', "NPU904", "optional-dependencies is a list"),
    "p4/pyproject.toml": ("tool = 1\n", "NPU904", "tool is a number"),
    "p5/pyproject.toml": ("[project]\ndependencies = [1, {a = 2}]\n", "NPU904", "dependencies[0] is a number"),
    "p6/pyproject.toml": ("[tool.poetry]\ngroup = 3\n", "NPU904", "tool.poetry.group is a number"),
    "p7/pyproject.toml": ("[tool.poetry.group.dev]\ndependencies = []\n", "NPU904", "dependencies is a list"),
    "tdeep/pyproject.toml": ("[project]\ndependencies = " + "[" * 5000 + "]" * 5000 + "\n", "NPU904", "nested too deeply"),
    "cfg/setup.cfg": ("[options]\ninstall_requires =\n  apex\n[options\n", "NPU904", "setup.cfg"),
    "nb_cells_str.ipynb": ('{"cells": "x"}', "NPU904", "cells"),
    "nb_source_num.ipynb": ('{"cells": [{"cell_type": "code", "source": 5}]}', "NPU904", "source"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_hostile_file_gets_one_clear_error_and_the_scan_goes_on(tmp_path: Path, name: str):
    content, code, words = HOSTILE_FILES[name]
    _tree(tmp_path, name, content)
    result = _scan(tmp_path)
    errors = _errors_for(result, name.rsplit("/", 1)[-1])
    if code is None:
        assert errors == []
    else:
        assert [e.code for e in errors] == [code], errors
        assert words in errors[0].message
    assert _good_found(result)


def test_shape_problems_do_not_hide_the_good_parts_of_a_manifest(tmp_path: Path):
    _tree(tmp_path, "pyproject.toml", '[project]\ndependencies = ["apex"]\noptional-dependencies = ["x"]\n')
    result = _scan(tmp_path)
    assert [e.code for e in _errors_for(result, "pyproject.toml")] == ["NPU904"]
    assert any(f.code == "NPU502" and f.path.endswith("pyproject.toml") for f in result.findings)


def test_a_rule_that_raises_is_that_files_error_only(tmp_path: Path, monkeypatch):
    """The per-file boundary: an exception from any reader or rule stays with its file."""
    from migrate import engine

    real = engine._run_rules

    def exploding(rules, ctx):
        if ctx.path.endswith("boom.py"):
            raise KeyError("surprise")
        return real(rules, ctx)

    monkeypatch.setattr(engine, "_run_rules", exploding)
    _tree(tmp_path, "boom.py", GOOD)
    result = _scan(tmp_path)
    [error] = _errors_for(result, "boom.py")
    assert error.code == "NPU901" and "KeyError" in error.message and "report" in error.message
    assert _good_found(result)


# ---- encodings ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_bom_are_read(tmp_path: Path, encoding: str):
    data = GOOD.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    (tmp_path / "wide.py").write_bytes(data)
    result = _scan(tmp_path / "wide.py")
    assert list(result.errors) == []
    [finding] = result.findings
    (tmp_path / "plain.py").write_text(GOOD)
    [plain] = _scan(tmp_path / "plain.py").findings  # same place as in the UTF-8 file
    assert (finding.code, finding.line, finding.column) == (plain.code, plain.line, plain.column) == ("NPU101", 2, plain.column)


def test_utf16_without_a_bom_is_named_as_utf16_not_binary(tmp_path: Path):
    (tmp_path / "wide.py").write_bytes(GOOD.encode("utf-16-le"))
    [error] = _scan(tmp_path / "wide.py").errors
    assert error.code == "NPU902" and "UTF-16-LE" in error.message and "binary" not in error.message


def test_real_binary_is_still_binary(tmp_path: Path):
    (tmp_path / "blob.py").write_bytes(b"\x7fELF\x00\x00\x01\x02" * 100)
    [error] = _scan(tmp_path / "blob.py").errors
    assert "binary" in error.message


# ---- .gitignore -----------------------------------------------------------------------------------------
def test_gitignore_line_pathspec_rejects_does_not_abort_and_the_rest_still_applies(tmp_path: Path):
    (tmp_path / ".git").mkdir()  # .gitignore applies inside a work tree only
    _tree(tmp_path, ".gitignore", "!\nbuild/\n")
    _tree(tmp_path, "build/gen.py", GOOD)
    result = _scan(tmp_path)
    assert _good_found(result)
    assert not any("build" in f.path for f in result.findings)


# ---- configuration schema -------------------------------------------------------------------------------
@pytest.mark.parametrize("line,key", [
    ('max-file-size = "big"', "max-file-size"),
    ("max-file-size = -3", "max-file-size"),
    ("max-file-size = true", "max-file-size"),
    ("exclude = 5", "exclude"),
    ('exclude = ["a", 1]', "exclude"),
    ("extend-exclude = {a = 1}", "extend-exclude"),
    ('respect-gitignore = "false"', "respect-gitignore"),
    ("fail-on = 3", "fail-on"),
    ('fail-on = "fatal"', "fail-on"),
    ("select = 5", "select"),
    ("torch-npu-version = 2.6", "torch-npu-version"),
    ('per-file-ignores = ["x"]', "per-file-ignores"),
    ("per-file-ignores = {a = 5}", "per-file-ignores"),
])
def test_config_value_of_the_wrong_type_is_exit_2_naming_the_key(tmp_path: Path, capsys, line: str, key: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.npu-migrate]\n{line}\n")
    (tmp_path / "good.py").write_text(GOOD)
    rc = main(["analyze", "--no-cache", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"[tool.npu-migrate] {key} must be" in err and "Traceback" not in err


def test_config_with_tool_not_a_table_is_not_a_crash(tmp_path: Path, capsys):
    (tmp_path / "pyproject.toml").write_text("tool = 1\n")
    (tmp_path / "good.py").write_text(GOOD)
    assert main(["check", "--no-cache", str(tmp_path)]) == 1
    assert "NPU101" in capsys.readouterr().out


# ---- cache ----------------------------------------------------------------------------------------------
def _cache_file(cache: Path) -> Path:
    [path] = [p for p in cache.iterdir() if p.name.startswith("analyze-")]
    return path


BAD_CACHES = {
    "list": lambda key, entry: [1, 2],
    "entry_not_list": lambda key, entry: {key: 5},
    "short_entry": lambda key, entry: {key: [entry[0]]},
    "result_not_dict": lambda key, entry: {key: [entry[0], 7, entry[2]]},
    "missing_keys": lambda key, entry: {key: [entry[0], {"kind": "python"}, entry[2]]},
    "wrong_types": lambda key, entry: {key: [entry[0], {**entry[1], "lines": "many", "findings": [
        ["2", *entry[1]["findings"][0][1:]]]}, entry[2]]},
    # a finding is stored as a row of its fields (cache._row): a row of another shape or with a field of the wrong type
    "finding_not_a_row": lambda key, entry: {key: [entry[0], {**entry[1], "findings": [3]}, entry[2]]},
    "short_row": lambda key, entry: {key: [entry[0], {**entry[1], "findings": [entry[1]["findings"][0][:-1]]}, entry[2]]},
    "message_not_text": lambda key, entry: {key: [entry[0], {**entry[1], "findings": [
        [*entry[1]["findings"][0][:7], 12, *entry[1]["findings"][0][8:]]]}, entry[2]]},
    "edit_of_another_shape": lambda key, entry: {key: [entry[0], {**entry[1], "findings": [
        [*entry[1]["findings"][0][:9], [[1, 2, 3, 4, 5]], *entry[1]["findings"][0][10:]]]}, entry[2]]},
    "bad_severity": lambda key, entry: {key: [entry[0], {**entry[1], "findings": [
        [*entry[1]["findings"][0][:5], "fatal", *entry[1]["findings"][0][6:]]]}, entry[2]]},
}


@pytest.mark.parametrize("name", sorted(BAD_CACHES) + ["truncated"])
def test_bad_cache_entry_is_a_miss_not_a_crash(tmp_path: Path, name: str):
    src = tmp_path / "src"
    _tree(src, "other.py", "x = 1\n")
    cache = tmp_path / "cache"
    first = _scan(src, use_cache=True, cache_dir=cache)
    path = _cache_file(cache)
    if name == "truncated":
        path.write_bytes(path.read_bytes()[:-7])
    else:
        entries = json.loads(path.read_text())
        key = next(k for k in entries if k.split("|")[0].endswith("good.py"))
        path.write_text(json.dumps(BAD_CACHES[name](key, entries[key])))
    for _ in range(2):  # the second run reads what the first one wrote back
        again = _scan(src, use_cache=True, cache_dir=cache)
        assert again.findings == first.findings and list(again.errors) == []


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
def test_cache_file_that_is_not_a_regular_file_is_ignored_without_opening_it(tmp_path: Path, kind: str):
    src = tmp_path / "src"
    _tree(src, "other.py", "x = 1\n")
    cache = tmp_path / "cache"
    first = _scan(src, use_cache=True, cache_dir=cache)
    path = _cache_file(cache)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", path)
    else:
        path.mkdir()
    again = _run_with_timeout(lambda: _scan(src, use_cache=True, cache_dir=cache))
    assert again.findings == first.findings


# ---- the walk -------------------------------------------------------------------------------------------
def test_deepspeed_style_relative_links_are_not_loops_and_files_are_read_once(tmp_path: Path):
    _tree(tmp_path, "accelerator/real_accelerator.py", GOOD)
    _tree(tmp_path, "deepspeed/engine.py", GOOD)
    os.symlink("../accelerator", tmp_path / "deepspeed" / "accelerator")
    os.symlink("../accelerator/real_accelerator.py", tmp_path / "deepspeed" / "acc.py")
    result = _scan(tmp_path)
    assert list(result.errors) == []
    paths = sorted(os.path.relpath(f.path, tmp_path) for f in result.findings)
    assert paths == ["accelerator/real_accelerator.py", "deepspeed/engine.py", "good.py"]


def test_links_out_of_the_tree_are_not_followed_unless_asked(tmp_path: Path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    _tree(outside, "lib/vendored.py", GOOD)
    _tree(root, "main.py", GOOD)
    os.symlink(outside / "lib", root / "lib")
    os.symlink(outside / "lib", root / "lib_again")
    os.symlink(outside / "lib" / "vendored.py", root / "one.py")
    os.symlink("/usr", root / "usr")
    result = _scan(root)
    assert not any("vendored" in f.path or "/usr/" in f.path for f in result.findings)
    notes = {Path(e.path).name: e.message for e in result.errors}
    assert set(notes) == {"lib", "lib_again", "one.py", "usr"}
    assert all("outside the tree" in m and "--follow-links" in m for m in notes.values())
    followed = _scan(root, config=Config(follow_links=True, exclude=("usr",)))
    vendored = [f.path for f in followed.findings if "vendored" in f.path]
    assert vendored == [str(root / "lib" / "vendored.py")]  # once, under the first link
    assert list(followed.errors) == []


def test_links_to_proc_self_fd_and_devices_are_safe(tmp_path: Path):
    (tmp_path / "good.py").write_text(GOOD)
    os.symlink("/proc/self/fd", tmp_path / "fds")
    os.symlink("/proc/self/fd/0", tmp_path / "stdin.py")
    os.symlink("/dev/zero", tmp_path / "zero.py")
    os.symlink("/dev/urandom", tmp_path / "Dockerfile")
    result = _run_with_timeout(lambda: _scan(tmp_path))
    assert _good_found(result)
    notes = {Path(e.path).name: e.message for e in result.errors}
    assert "not followed" in notes["fds"]
    assert "character device" in notes["zero.py"] and "character device" in notes["Dockerfile"]
    followed = _run_with_timeout(lambda: _scan(tmp_path, config=Config(follow_links=True)))
    assert _good_found(followed) and len(followed.findings) == 1


def test_fifos_and_sockets_in_the_tree_are_skipped_and_reported(tmp_path: Path):
    (tmp_path / "good.py").write_text(GOOD)
    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / "requirements.txt")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "run.sh"))
    try:
        result = _run_with_timeout(lambda: _scan(tmp_path))
    finally:
        sock.close()
    notes = {Path(e.path).name: e.message for e in result.errors}
    assert "FIFO" in notes["pipe.py"] and "FIFO" in notes["requirements.txt"] and "socket" in notes["run.sh"]
    assert _good_found(result)


def test_a_fifo_named_on_the_command_line_or_swapped_in_is_not_opened(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.py")
    [error] = _run_with_timeout(lambda: _scan(tmp_path / "pipe.py")).errors
    assert "FIFO" in error.message
    # swapped in after discovery: the read itself refuses it without blocking
    error = _run_with_timeout(lambda: _read_target(Target(str(tmp_path / "pipe.py"), ("python",)), 1000))
    assert "FIFO" in error.message


def test_real_loops_are_reported_and_deep_folders_do_not_crash(tmp_path: Path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "sub").mkdir()
    os.symlink("..", tmp_path / "sub" / "back")
    os.symlink(tmp_path, tmp_path / "sub" / "abs_back")
    deep = tmp_path / "deep"
    deep.mkdir()
    cwd = os.getcwd()
    os.chdir(deep)
    try:
        for _ in range(1200):  # deeper than the recursive walk could go
            os.mkdir("d")
            os.chdir("d")
        Path("x.py").write_text(GOOD)
    finally:
        os.chdir(cwd)
    try:
        result = _scan(tmp_path)
    finally:
        _remove_deep(deep, 1200)  # shutil.rmtree (pytest's cleanup) recurses per level
    notes = {Path(e.path).name: e.message for e in result.errors}
    assert "loop" in notes["back"] and "loop" in notes["abs_back"]
    assert any("nested more than" in m for m in notes.values())
    assert _good_found(result)


def _remove_deep(top: Path, levels: int) -> None:
    cwd = os.getcwd()
    os.chdir(top)
    try:
        for _ in range(levels):
            os.chdir("d")
        Path("x.py").unlink()
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(cwd)


FORMATS = ["text", "json", "sarif", "github", "csv"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_non_utf8_file_names_in_every_format(tmp_path: Path, fmt: str):
    name = os.fsencode(str(tmp_path)) + b"/caf\xe9_\xff.py"
    with open(name, "wb") as handle:
        handle.write(GOOD.encode())
    (tmp_path / "good.py").write_text(GOOD)
    proc = run_cli("analyze", "--no-cache", "--format", fmt, str(tmp_path))
    assert proc.returncode == 1, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    out = proc.stdout.decode("utf-8")  # valid UTF-8 whatever the file names
    if fmt == "sarif":  # a URI: the real bytes, percent-encoded
        assert "caf%E9_%FF.py" in out
    else:  # shown as `ls -b` does (JSON doubles the backslash)
        assert "caf\\xe9_\\xff.py" in (out.replace("\\\\", "\\") if fmt == "json" else out)
    if fmt in ("json", "sarif"):
        json.loads(out)


def test_a_newline_in_a_file_name_cannot_forge_a_report_line(tmp_path: Path, capsys):
    (tmp_path / "x.py\ngood.py:1:1: NPU999 forged.py").write_text(GOOD)
    assert main(["analyze", "--no-cache", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert not any(line.startswith("good.py") for line in out.splitlines())
    assert "x.py\\ngood.py:1:1: NPU999 forged.py:2:" in out
    from migrate.report.sarif import _uri

    assert _uri("a b/x.py\\ngood#1\\xff.py") == "a%20b/x.py%0Agood%231%FF.py"


# ---- the top-level guard --------------------------------------------------------------------------------
def test_an_escaping_exception_is_exit_2_with_one_line_and_a_debug_hint(tmp_path: Path, capsys, monkeypatch):
    from migrate import engine

    def broken_scan(*args, **kwargs):
        raise RuntimeError("engine fell over")

    monkeypatch.setattr(engine, "scan", broken_scan)
    (tmp_path / "good.py").write_text(GOOD)
    assert main(["analyze", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: engine fell over" in err and "--debug" in err
    assert "Traceback" not in err
    assert main(["analyze", "--debug", str(tmp_path)]) == 2  # accepted after the subcommand too
    err = capsys.readouterr().err
    assert "Traceback" in err and "engine fell over" in err


def test_debug_after_double_dash_belongs_to_the_script(tmp_path: Path):
    from migrate.guard import split_debug

    assert split_debug(["smoke", "x.py", "--", "--debug"]) == (["smoke", "x.py", "--", "--debug"], False)
    assert split_debug(["--debug", "smoke", "x.py"])[1] is True


def test_a_worker_that_dies_costs_only_its_own_file(tmp_path: Path, monkeypatch):
    """A file that kills its worker process (out-of-memory kill, a crash in native code) gets its own
    error; every other file of the batch is still analysed."""
    from migrate import engine

    real = engine.analyze_file

    def dying(target, data, version):
        if target.path.endswith("killer.py"):
            os._exit(9)  # as a SIGKILLed or crashed worker would
        return real(target, data, version)

    monkeypatch.setattr(engine, "analyze_file", dying)  # workers are forked: they see the patch
    padding = "# padding\n" * 2500
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text(GOOD + padding)
    (tmp_path / "killer.py").write_text(GOOD + padding)
    result = _scan(tmp_path, jobs=2)
    [error] = result.errors
    assert error.path.endswith("killer.py") and error.code == "NPU900" and "died" in error.message
    assert len({f.path for f in result.findings}) == 20


@pytest.mark.parametrize("where", ["missing/report.json", "file_as_dir/report.json", "a_dir"])
def test_report_that_cannot_be_written_is_exit_2_with_the_cause(tmp_path: Path, capsys, where: str):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "file_as_dir").write_text("")
    (tmp_path / "a_dir").mkdir()
    rc = main(["analyze", "--no-cache", "--format", "json", "-o", str(tmp_path / where), str(tmp_path / "good.py")])
    err = capsys.readouterr().err
    assert rc == 2 and "internal error" not in err and "Traceback" not in err
    assert ("is a directory" if where == "a_dir" else "cannot write the report to") in err


def test_a_deeply_nested_pyproject_at_the_root_is_not_a_crash_of_the_config_loader(tmp_path: Path, capsys):
    (tmp_path / "pyproject.toml").write_text("[project]\ndependencies = " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "good.py").write_text(GOOD)
    assert main(["analyze", "--no-cache", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "NPU101" in out and "NPU904" in out


def test_a_report_to_a_device_or_fifo_writes_into_it_and_never_replaces_it(tmp_path: Path, capsys):
    (tmp_path / "good.py").write_text(GOOD)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    assert main(["analyze", "--no-cache", "--format", "json", "-o", str(fifo), str(tmp_path / "good.py")]) == 1
    reader.join(20)
    assert json.loads(received[0])["findings"][0]["code"] == "NPU101"
    assert not fifo.is_file() and os.path.exists(fifo)  # still the FIFO


@pytest.mark.parametrize("update", [False, True])
def test_a_baseline_that_is_not_a_regular_file_is_refused_not_read_or_replaced(tmp_path: Path, capsys, update: bool):
    (tmp_path / "good.py").write_text(GOOD)
    link = tmp_path / "baseline.json"
    os.symlink("/dev/zero", link)
    args = ["check", "--no-cache", "--baseline", str(link), str(tmp_path / "good.py")]
    rc = _run_with_timeout(lambda: main(args + (["--update-baseline"] if update else [])))
    assert rc == 2 and "not a regular file" in capsys.readouterr().err
    assert os.readlink(link) == "/dev/zero"
