"""Fuzz: hypothesis-generated hostile trees beside a real GPU training script, through analyze,
check and apply in-process (issue 12).

Each example builds a tree holding fixtures/gpu_scripts/mnist_basic/train.py and a random mix of
hostile entries (the classes of issue 12, plus random manifests, notebooks and bytes), with a cache
directory that may be corrupt, and asserts:
- no exception escapes `scan`, and `analyze`/`check` exit 0/1/2 by their contract, never with a crash;
- the script's findings are exactly those it has when scanned alone;
- apply rewrites the script, and every Python file that parsed before still parses in the output;
- the input tree's bytes (and its links, FIFOs and sockets) are unchanged.
Runs in well under a minute (the static side only, no torch).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from migrate.cli import cli
from migrate.engine import scan
from tests.conftest import FIXTURES

SCRIPT = (FIXTURES / "mnist_basic" / "train.py").read_bytes()


def _script_findings(result, root: Path) -> list[tuple]:
    return sorted((f.code, f.line, f.column, f.message) for f in result.findings
                  if os.path.relpath(f.path, root) == os.path.join("src", "train.py"))


with tempfile.TemporaryDirectory() as _tmp:
    (Path(_tmp) / "src").mkdir()
    (Path(_tmp) / "src" / "train.py").write_bytes(SCRIPT)
    BASELINE = _script_findings(scan([_tmp], use_cache=False, jobs=1), Path(_tmp))
assert BASELINE, "the fixture script must have findings for this test to mean anything"

# ---- random values rendered as TOML / YAML (JSON) -----------------------------------------------------------
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items() if v is not None) + "}"
    return '""'


def _pyproject(draw) -> str:
    keys = draw(st.lists(st.sampled_from(["project", "tool", "build-system"]), unique=True, max_size=3))
    lines = []
    for key in keys:
        sub = draw(st.sampled_from(["", "dependencies", "optional-dependencies", "poetry", "group"]))
        value = draw(values)
        if value is None:
            continue
        lines.append(f"{key} = {_toml({sub: value} if sub else value)}")
    return "\n".join(lines) + "\n"


# ---- the hostile entries ---------------------------------------------------------------------------------
def _deep_notebook(root: Path, draw) -> None:
    depth = draw(st.integers(150, 3000))
    (root / "deep.ipynb").write_text('{"cells": [' + "[" * depth + "]" * depth + "]}")


def _random_notebook(root: Path, draw) -> None:
    (root / "nb.ipynb").write_text(json.dumps({"cells": draw(values), "nbformat": draw(values)}))


def _deep_yaml(root: Path, draw) -> None:
    depth = draw(st.integers(150, 6000))
    if draw(st.booleans()):
        text = "dependencies: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "dependencies:\n" + "".join(" " * (i + 1) + "- k:\n" for i in range(min(depth, 2500)))
    (root / "environment.yml").write_text(text)


def _random_environment(root: Path, draw) -> None:
    (root / "env").mkdir(exist_ok=True)
    (root / "env" / "environment.yml").write_text(json.dumps({"dependencies": draw(values), "name": draw(values)}))


def _setup_chain(root: Path, draw) -> None:
    terms = draw(st.integers(500, 4000))
    (root / "setup.py").write_text("from setuptools import setup\nsetup(install_requires=" + "+".join(['["apex"]'] * terms) + ")\n")


def _random_pyproject(root: Path, draw) -> None:
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "pyproject.toml").write_text(_pyproject(draw))


def _gitignore(root: Path, draw) -> None:
    lines = draw(st.lists(st.sampled_from(["!", "\\", "[", "!/", "*.pyc", "build/", "#x", "a/**/b"]), max_size=5))
    if os.path.lexists(root / ".gitignore") and not (root / ".gitignore").is_file():
        return  # _fifo put a FIFO there: writing into it would block the test itself
    (root / ".gitignore").write_text("\n".join(lines) + "\n")


def _fifo(root: Path, draw) -> None:
    path = root / draw(st.sampled_from(["pipe.py", "requirements.txt", "run.sh", "pyproject.toml", ".gitignore"]))
    if not os.path.lexists(path):  # another builder may have written a real file there
        os.mkfifo(path)


def _socket(root: Path, draw) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "agent.sh"))
    sock.close()  # the socket file stays


def _links(root: Path, draw) -> None:
    chosen = draw(st.lists(st.sampled_from(["usr", "fd", "zero", "loop", "abs_loop", "broken", "self"]), unique=True, min_size=1))
    targets = {"usr": ("/usr", "usr"), "fd": ("/proc/self/fd", "fds"), "zero": ("/dev/zero", "zero.py"),
               "loop": ("..", "sub/back"), "abs_loop": (str(root), "sub/abs"), "broken": ("nowhere.py", "broken.py"),
               "self": ("selfloop.py", "selfloop.py")}
    for key in chosen:
        target, name = targets[key]
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / name)


def _deepspeed_links(root: Path, draw) -> None:
    (root / "accelerator").mkdir(exist_ok=True)
    (root / "accelerator" / "real_accelerator.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    (root / "deepspeed").mkdir(exist_ok=True)
    os.symlink("../accelerator", root / "deepspeed" / "accelerator")


def _wide_text(root: Path, draw) -> None:
    encoding = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "utf-16-be"]))
    (root / "wide.py").write_bytes("import torch\nx = torch.ones(1).cuda()\n".encode(encoding))


def _odd_name(root: Path, draw) -> None:
    name = draw(st.binary(min_size=1, max_size=6).filter(lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..")))
    with open(os.path.join(os.fsencode(root), name + b".py"), "wb") as handle:
        handle.write(b"import torch\ntorch.cuda.init()\n")


def _random_bytes(root: Path, draw) -> None:
    name = draw(st.sampled_from(["junk.py", "requirements.txt", "Dockerfile", "kernel.cu", "job.yaml", "x.ipynb", "setup.cfg"]))
    (root / name).write_bytes(draw(st.binary(max_size=300)))


HOSTILE = {f.__name__.lstrip("_"): f for f in (
    _deep_notebook, _random_notebook, _deep_yaml, _random_environment, _setup_chain, _random_pyproject, _gitignore,
    _fifo, _socket, _links, _deepspeed_links, _wide_text, _odd_name, _random_bytes)}

CACHE_CONTENT = st.sampled_from([None, b"", b"[1, 2]", b'{"k": 5}', b"{not json", b'{"a": [1, {"findings": 3}]}'])


def _parses(data: bytes) -> bool:
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _snapshot(root: Path) -> dict:
    """Every entry under root (links not followed): its type and its bytes or link target."""
    out = {}
    for directory, dirnames, filenames in os.walk(os.fsencode(root)):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                out[path] = ("link", os.readlink(path))
            elif stat.S_ISREG(mode):
                with open(path, "rb") as handle:
                    out[path] = ("file", handle.read())
            else:
                out[path] = (stat.S_IFMT(mode), None)
    return out


def _corrupt_cache(cache: Path, content: bytes | None) -> None:
    if content is None:
        return
    for path in cache.glob("analyze-*.json"):
        path.write_bytes(content)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kinds=st.lists(st.sampled_from(sorted(HOSTILE)), min_size=1, max_size=6, unique=True),
       cache_content=CACHE_CONTENT, data=st.data())
def test_hostile_trees_never_crash_hide_the_script_or_touch_the_input(kinds, cache_content, data):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        (root / "src").mkdir(parents=True)
        (root / "src" / "train.py").write_bytes(SCRIPT)
        for kind in kinds:
            HOSTILE[kind](root, data.draw)
        cache = Path(tmp) / "cache"
        before = _snapshot(root)

        first = scan([str(root)], use_cache=True, cache_dir=cache, jobs=1)
        assert _script_findings(first, root) == BASELINE
        _corrupt_cache(cache, cache_content)
        again = scan([str(root)], use_cache=True, cache_dir=cache, jobs=1)
        assert _script_findings(again, root) == BASELINE
        assert {f.path for f in again.findings} == {f.path for f in first.findings}

        runner = CliRunner()
        for command in ("analyze", "check"):
            fmt = data.draw(st.sampled_from(["text", "json", "sarif", "github", "csv"]))
            result = runner.invoke(cli, [command, "--no-progress", "--format", fmt, "--cache-dir", str(cache), str(root)])
            assert result.exit_code == 1, (command, fmt, result.output[-2000:], result.exception)
            assert isinstance(result.exception, SystemExit), repr(result.exception)
            assert "train.py" in result.output
        out = Path(tmp) / "out"
        result = runner.invoke(cli, ["apply", str(root), "-o", str(out)])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 1), (result.output[-2000:], result.exception)
        migrated = (out / "src" / "train.py").read_bytes()
        assert migrated != SCRIPT and b".cuda()" not in migrated  # the script was rewritten
        for path in out.rglob("*.py"):  # every Python output parses (those that were Python to start with)
            if path.is_file() and not path.is_symlink():
                original = root / path.relative_to(out)
                if original.is_file() and _parses(original.read_bytes()):
                    assert _parses(path.read_bytes()), path
        assert _snapshot(root) == before
