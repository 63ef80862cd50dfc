"""Shared helpers for the static-side tests (no torch import here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, cwd: Path | None = None, stdin: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real console entry point in a subprocess (exit codes and streams as a user sees them)."""
    import os

    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "migrate", *args], cwd=cwd, input=stdin, capture_output=True,
                          env=full_env, timeout=300)


_worker_template = None


def worker_template_address() -> str:
    """The address of this test worker's warm template (started at the first call and waited for, then
    pinned): the worker's environment as smoke gives it to an emulated child, torch and torchvision
    preloaded. Runtime tests hand it to what they start (tests/conftest.py, python_command)."""
    import os

    import checks.launch.warmstart

    global _worker_template
    if _worker_template is None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "CUDA_VISIBLE_DEVICES": ""}  # as smoke sets them
        _worker_template = checks.launch.warmstart.shared_template(env, ("torch", "torchvision"), pinned=True)
        # waited for once: a client that finds no template listening starts cold, and cold starts beside
        # the template's own `import torch` would only slow each other down
        _worker_template.ready()
    return _worker_template.address


def hang_timeout(seconds: float) -> float:
    """The timeout of a test whose script hangs on purpose: `seconds` past the start of a warm run (the
    suite's default, forked from a template that has imported torch), a minute more when the suite runs
    with NPU_MIGRATE_WARM_START=0 (each child then imports torch itself, 10-40 s on this 2-core machine).
    The wait is the test's cost: it needs to exceed only the start and the steps before the hang."""
    import checks.launch.warmstart

    return seconds if checks.launch.warmstart.enabled() else seconds + 60


def python_command(*args: str, env: dict | None = None) -> tuple[list[str], dict]:
    """The command line and environment for a test's own `python ARGS` (`-c CODE`, `-m MODULE` or
    `SCRIPT.py ...`), for runtime tests (module fixtures included). Unless NPU_MIGRATE_WARM_START=0,
    it goes through checks/launch/warm_client.py to this worker's template (worker_template_address):
    forked from a process that has imported torch, with the sys.path a cold start would have and
    none of this project's modules already imported (see checks/child/warm_template.py); a run the
    template refuses starts cold. CUDA_VISIBLE_DEVICES is "" as in the template (these hosts have
    no GPU the tests could use)."""
    import os

    import checks.launch.warmstart
    from checks.launch import warm_wire

    full = dict(os.environ if env is None else env)
    if not checks.launch.warmstart.enabled():
        return [sys.executable, *args], full
    full.setdefault(warm_wire.ADDRESS_ENV, worker_template_address())
    full.setdefault("CUDA_VISIBLE_DEVICES", "")
    return [sys.executable, checks.launch.warmstart.CLIENT, "--raw", *args], full


def run_python(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run of `python ARGS` (python_command), capture_output unless told otherwise."""
    cmd, full = python_command(*args, env=env)
    kwargs.setdefault("capture_output", True)
    return subprocess.run(cmd, env=full, **kwargs)


def analyze_json(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> tuple[int, dict]:
    proc = invoke_cli("analyze", "--format", "json", "--no-progress", *args, cwd=cwd, stdin=stdin)
    assert proc.returncode in (0, 1, 2), proc.stderr.decode()
    return proc.returncode, json.loads(proc.stdout.decode() or "{}")


def invoke_cli(*args: str, cwd: Path | None = None, stdin: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The same command in-process through click's CliRunner (no interpreter start-up): exit code
    and streams as `run_cli` gives them. Use `run_cli` only where a real process matters."""
    import os

    from click.testing import CliRunner

    from migrate.cli import cli

    previous = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args), input=stdin, env=env, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(["npu-migrate", *args], result.exit_code, result.stdout_bytes, result.stderr_bytes)


def wheel_cache_module():
    """scripts/fetch_wheels.py, the one place that says where the wheel cache is and what it holds."""
    import importlib.util

    module = sys.modules.get("fetch_wheels")
    if module is None:
        spec = importlib.util.spec_from_file_location("fetch_wheels", ROOT / "scripts" / "fetch_wheels.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["fetch_wheels"] = module  # its dataclass needs its module registered
        spec.loader.exec_module(module)
    return module


def cached_wheel(name: str) -> Path:
    """The cached wheel `name` ("torch_npu", "msprof_analyze": scripts/fetch_wheels.py, which set-up runs):
    its path in $NPU_WHEEL_CACHE, else in the repository's .cache/wheels/. Skips the calling test, naming the
    command that downloads it, when it is not there."""
    import pytest

    path = wheel_cache_module().path(name)
    if not path.is_file():
        pytest.skip(f"{path.name} not in the wheel cache {path.parent}: run `python scripts/fetch_wheels.py` "
                    f"(scripts/setup_env.sh does)")
    return path


def write_files(root: Path, files: dict[str, str]) -> None:
    """A small repository: each relative path of `files` written under `root` with its text, folders made."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def finding_lines(result, code: str, name: str) -> list[int]:
    """The sorted lines of a scan's findings of `code` in files whose path ends with `name`."""
    return sorted(f.line for f in result.findings if f.code == code and f.path.endswith(name))


def process_alive(pid: int) -> bool:
    """Whether PID is a live process (a zombie or a reaped one is not; reaping can land between open and read)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # FileNotFoundError, or ProcessLookupError when reaped between open and read
        return False
