"""The wheel cache (scripts/fetch_wheels.py, run by scripts/setup_env.sh): where the tests that read the
torch_npu and msprof-analyze wheels as zips find them, what a download must be to stay, and what set-up
says when one fails. `pip` is a stand-in python here (no network in the static lane)."""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, cached_wheel, wheel_cache_module

# a stand-in for `python -m pip download ... -d DIR REQ`: writes PAYLOAD as the file the request names
FAKE_PIP = """
import sys
argv = sys.argv
folder = argv[argv.index("-d") + 1]
name = {name!r}
if name is None:
    sys.stderr.write("ERROR: Could not find a version that satisfies the requirement " + argv[-1] + "\\n")
    sys.exit(1)
with open(folder + "/" + name, "wb") as handle:
    handle.write({payload!r})
"""


def _python(tmp_path: Path, name: str | None, payload: bytes = b"") -> str:
    script = tmp_path / "python"
    script.write_text(f"#!{sys.executable}\n" + FAKE_PIP.format(name=name, payload=payload))
    script.chmod(0o755)
    return str(script)


def test_the_cache_is_the_variables_folder_else_an_ignored_folder_of_the_repository(monkeypatch, tmp_path):
    fetch_wheels = wheel_cache_module()
    monkeypatch.delenv("NPU_WHEEL_CACHE", raising=False)
    assert fetch_wheels.path("torch_npu") == ROOT / ".cache" / "wheels" / "torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert "/.cache/" in (ROOT / ".gitignore").read_text().splitlines()  # never committed
    monkeypatch.setenv("NPU_WHEEL_CACHE", str(tmp_path))
    assert fetch_wheels.path("msprof_analyze") == tmp_path / "msprof_analyze-26.2.0-py3-none-any.whl"
    with pytest.raises(pytest.skip.Exception, match="run `python scripts/fetch_wheels.py`"):
        cached_wheel("torch_npu")


def test_a_download_is_kept_only_with_pypis_digest(monkeypatch, tmp_path):
    fetch_wheels = wheel_cache_module()
    cache = tmp_path / "cache"
    monkeypatch.setenv("NPU_WHEEL_CACHE", str(cache))
    name = "tiny-1.0-py3-none-any.whl"
    monkeypatch.setitem(fetch_wheels.WHEELS, "tiny", fetch_wheels.Wheel("tiny==1.0", name,
                                                                         hashlib.sha256(b"the real one").hexdigest(), "a test"))
    problem = fetch_wheels.fetch("tiny", python=_python(tmp_path, name, b"another file"))
    assert problem is not None and "SHA-256" in problem and not (cache / name).exists()
    assert fetch_wheels.fetch("tiny", python=_python(tmp_path, name, b"the real one")) is None
    assert (cache / name).read_bytes() == b"the real one"
    # cached: pip is not asked again (this one would fail)
    assert fetch_wheels.fetch("tiny", python=_python(tmp_path, None)) is None


def test_a_failed_download_is_said_and_set_up_goes_on(monkeypatch, tmp_path, capsys):
    fetch_wheels = wheel_cache_module()
    monkeypatch.setenv("NPU_WHEEL_CACHE", str(tmp_path / "cache"))
    real_fetch, failing = fetch_wheels.fetch, _python(tmp_path, None)
    monkeypatch.setattr(fetch_wheels, "fetch", lambda name: real_fetch(name, python=failing))
    assert fetch_wheels.main([]) == 1
    err = capsys.readouterr().err
    for wheel in fetch_wheels.WHEELS.values():
        assert f"downloading {wheel.filename}" in err
        assert f"WARNING: pip download {wheel.requirement} failed: ERROR: Could not find a version" in err
    assert "the tests that read it will skip" in err
