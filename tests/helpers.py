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
