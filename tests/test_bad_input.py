"""The bad-input matrix: one clear per-file error, the scan goes on, no traceback, exit 2 only
when nothing could be scanned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import analyze_json, invoke_cli

GOOD = "import torch\nx = torch.ones(1).cuda()\n"


def _make(tmp_path: Path, name: str, content: bytes | None = None) -> Path:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    return path


BAD_FILES = {
    "py2.py": (b"print 'hello'\nexcept Exception, e:\n", "NPU901", "Python 2"),
    "syntax.py": (b"def f(:\n    pass\n", "NPU901", "syntax error"),
    "undecodable.py": (b"x = '\xff\xfe\xfa'\n", "NPU902", "decode"),
    "binary.py": (b"\x7fELF\x00\x00\x01\x02" * 100, "NPU902", "binary"),
    "bad.ipynb": (b"{not json", "NPU904", "notebook"),
    "nocells.ipynb": (b'{"metadata": {}}', "NPU904", "cells"),
    "pyproject.toml": (b"[project\nname=", "NPU904", "TOML"),
    "environment.yml": (b"dependencies: [a, b\n", "NPU904", "YAML"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_each_bad_file_gets_one_clear_error_and_the_scan_goes_on(tmp_path: Path, name: str):
    content, code, words = BAD_FILES[name]
    _make(tmp_path, name, content)
    _make(tmp_path, "good.py", GOOD.encode())
    rc, report = analyze_json(str(tmp_path))
    errors = [e for e in report["errors"] if e["path"].endswith(name)]
    assert len(errors) == 1, report["errors"]
    assert errors[0]["code"] == code
    assert words.lower() in errors[0]["message"].lower()
    assert any(f["code"] == "NPU101" and f["path"].endswith("good.py") for f in report["findings"])
    assert rc == 1


def test_good_encodings_are_read(tmp_path: Path):
    _make(tmp_path, "bom.py", b"\xef\xbb\xbf" + GOOD.encode())
    _make(tmp_path, "crlf.py", GOOD.replace("\n", "\r\n").encode())
    _make(tmp_path, "latin.py", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + GOOD.encode())
    _make(tmp_path, "empty.py", b"")
    _make(tmp_path, "nofinalnewline.py", GOOD.rstrip("\n").encode())
    rc, report = analyze_json(str(tmp_path))
    assert report["errors"] == []
    found = {Path(f["path"]).name: f for f in report["findings"] if f["code"] == "NPU101"}
    assert set(found) == {"bom.py", "crlf.py", "latin.py", "nofinalnewline.py"}
    assert found["latin.py"]["line"] == 4
    # `.cuda()` itself (issue 11); a BOM or CRLF line ends do not shift it
    assert found["bom.py"]["column"] == 18 and found["crlf.py"]["column"] == 18


def test_links_missing_paths_and_unreadable_files(tmp_path: Path):
    _make(tmp_path, "good.py", GOOD.encode())
    os.symlink(tmp_path / "nowhere.py", tmp_path / "broken.py")
    os.symlink(tmp_path / "loop_b.py", tmp_path / "loop_a.py")
    os.symlink(tmp_path / "loop_a.py", tmp_path / "loop_b.py")
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path, tmp_path / "sub" / "back")  # directory loop
    rc, report = analyze_json(str(tmp_path), str(tmp_path / "does_not_exist.py"))
    messages = {Path(e["path"]).name: e["message"] for e in report["errors"]}
    assert "broken" in messages["broken.py"]
    assert "loop" in messages["loop_a.py"] and "loop" in messages["loop_b.py"]
    assert "no such file" in messages["does_not_exist.py"]
    assert "loop" in messages["back"]
    assert rc == 1 and any(f["code"] == "NPU101" for f in report["findings"])


def test_unreadable_file(tmp_path: Path, monkeypatch):
    # CI runs as root, which ignores permission bits, so make the read itself fail
    import builtins

    from migrate.engine import scan

    secret = _make(tmp_path, "secret.py", GOOD.encode())
    _make(tmp_path, "good.py", GOOD.encode())
    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if str(file) == str(secret):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def guarded_os_open(file, *args, **kwargs):
        if str(file) == str(secret):
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    [error] = result.errors
    assert error.code == "NPU903" and "Permission denied" in error.message
    assert any(f.path.endswith("good.py") for f in result.findings)


def test_very_large_file_is_skipped_with_a_warning(tmp_path: Path):
    _make(tmp_path, "big.py", GOOD.encode() + b"# x\n" * 3_000_000)
    _make(tmp_path, "pyproject.toml", b"[tool.npu-migrate]\nmax-file-size = 1000000\n")
    _make(tmp_path, "good.py", GOOD.encode())
    _, report = analyze_json(str(tmp_path))
    [error] = [e for e in report["errors"] if e["path"].endswith("big.py")]
    assert error["code"] == "NPU905" and "limit" in error["message"]


def test_exit_2_only_when_nothing_could_be_scanned(tmp_path: Path):
    _make(tmp_path, "syntax.py", b"def f(:\n")
    proc = invoke_cli("analyze", str(tmp_path / "syntax.py"))
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr + proc.stdout
    assert b"NPU901" in proc.stdout
    proc = invoke_cli("analyze", str(tmp_path / "missing.py"))
    assert proc.returncode == 2 and b"no such file" in proc.stdout
    _make(tmp_path, "clean.py", b"import torch\nx = torch.ones(1)\n")
    assert invoke_cli("analyze", str(tmp_path / "clean.py")).returncode == 0


def test_deeply_nested_code_does_not_crash(tmp_path: Path):
    _make(tmp_path, "deep.py", b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n")
    proc = invoke_cli("analyze", str(tmp_path / "deep.py"))
    assert b"Traceback" not in proc.stderr
    assert proc.returncode in (0, 2)
