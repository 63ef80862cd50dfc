"""`smoke -q` shows its progress on a terminal, and only there (issue 16).

The real CLI in a subprocess, stderr on a pseudo-terminal: the status line names the steps reached
("smoke: step 2/3, 4.1 s"); the same run with stderr on a pipe writes no progress at all.
tests/smoke_cases/slow_steps.py takes about a second per step, so the line has steps to show.
"""
from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.runtime
SCRIPT = ROOT / "tests" / "smoke_cases" / "slow_steps.py"
CMD = [sys.executable, "-m", "migrate", "smoke", str(SCRIPT), "--steps", "3", "--backend", "emulated", "-q"]


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS="120")
    env.pop("NO_COLOR", None)
    return env


def _read_all(fd) -> bytes:
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the other side of the pty is closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def test_progress_on_a_terminal():
    master, slave = pty.openpty()
    proc = subprocess.Popen(CMD, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=_env(), cwd=ROOT)
    os.close(slave)
    err = _read_all(master).decode("utf-8", "replace")
    out = proc.stdout.read().decode()
    proc.wait(timeout=300)
    os.close(master)
    assert proc.returncode == 0, out + err
    shown = [int(k) for k in re.findall(r"smoke: step (\d)/3, \d+\.\d s", err)]
    assert shown and shown == sorted(shown), err
    assert {1, 2} <= set(shown), err
    assert "smoke: PASS" in out  # the verdict still goes to stdout


def test_no_progress_without_a_terminal():
    proc = subprocess.run(CMD, stdin=subprocess.DEVNULL, capture_output=True, env=_env(), cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert "smoke: step" not in proc.stderr.decode()
    assert "starting (0/3 steps)" not in proc.stderr.decode()
    assert "\x1b[" not in proc.stderr.decode()
    assert "smoke: PASS" in proc.stdout.decode()
