"""Every command in README.md is run (issue 16), as a newcomer would type it, and its exit code checked.

Commands are the lines of the README's ```bash blocks (comments stripped) and the `$ ` lines of its
output blocks (the README shows one command per workflow step; the e2e lane). Each one runs with `bash -c` in a fresh workspace, with `npu-migrate` on PATH (this
checkout's `python -m migrate`), where the README's placeholder files exist:
  train.py, gpu_train.py   the bundled GPU example (fixtures/gpu_scripts/cnn_cifar/train.py)
  npu_train.py             `apply`'s output of it (only for commands that read it; `apply -o
                           npu_train.py` gets a workspace without it, as on first use)
  repo/                    a clean git work tree with two bundled GPU examples
  train_ddp.py             `apply`'s output of a torchrun DDP GPU script (tests/dist_cases/gpu_ddp_nccl.py)
EXPECTED says, for every command, the exit code the README's own text promises for that input, and
a command in the README without an entry fails the test (so a new README command gets one).

The two set-up commands are not re-run here: `bash scripts/test.sh` is the whole suite itself and
both it and `scripts/demo.sh` reinstall `.venv`. Instead: both scripts and `scripts/setup_env.sh` pass
`bash -n`, every script they call exists, the extras they install exist in pyproject.toml, and (slow)
`scripts/demo.sh` runs for real in a copy of the checkout whose `setup_env.sh` is replaced by a
stand-in that only checks `.venv` (the real one installs); its smoke losses must fall.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.e2e  # the README's commands as a newcomer types them: the e2e lane
README = ROOT / "README.md"
EXAMPLE = ROOT / "fixtures" / "gpu_scripts" / "cnn_cifar" / "train.py"
DIST = ROOT / "tests" / "dist_cases"
SETUP = ("bash scripts/demo.sh", "bash scripts/test.sh")

# command -> (exit code, files it reads that `apply` makes, slow). The README shows one command per
# step of the workflow; the variants of each command live in docs/ and are tested where the mechanism
# is. Variants once run here, and where each mechanism is tested now:
#   analyze --format sarif / --format json --torch-npu-version: test_formats.py, test_knowledge.py
#   analyze - --stdin-filename: test_engine.py; apply DIR -o / --diff / --in-place / apply - / instrument:
#   test_apply_cli.py, test_apply_golden.py; apply --smoke: scripts/demo.sh (test_demo_runs_and_its_losses_fall)
#   smoke --strict-ops --json: test_smoke.py; doctor --explain: test_doctor_explain.py
#   profile --fail-on: test_profile.py; validate / profile --nproc-per-node 2: test_distributed.py
EXPECTED = {
    # doctor: this host has no NPU: 1 = not ready
    "npu-migrate doctor": (1, (), True),
    # analyze: 1 = findings (a GPU script has them)
    "npu-migrate analyze train.py": (1, (), False),
    # apply: 0 = everything rewritten (the one manual item left is info: cudnn flags)
    "npu-migrate apply train.py -o npu_train.py": (0, (), False),
    # smoke / validate / profile on the migrated example: pass
    "npu-migrate smoke npu_train.py --steps 5 --fake-data -- --batch-size 8": (0, ("npu_train.py",), True),
    "npu-migrate validate gpu_train.py npu_train.py --steps 5 --fake-data --out npu_validate_out":
        (0, ("npu_train.py",), True),
    # baseline: the original recorded as a bundle (two hosts; validate --baseline: test_validate_two_hosts.py)
    "npu-migrate baseline gpu_train.py --out gpu_baseline --steps 5 --fake-data": (0, (), True),
    # profile: findings below the default --fail-on pass
    "npu-migrate profile npu_train.py --steps 8 --fake-data --format json -o profile.json --out npu_profile_out -- "
    "--batch-size 8": (0, ("npu_train.py",), True),
    # check: the first run with --baseline writes the accepted findings and still gates on them: 1
    "npu-migrate check repo/ --fail-on warning --baseline .npu-baseline.json": (1, (), False),
    # distributed: 2 ranks of the migrated DDP script pass
    "npu-migrate smoke train_ddp.py --nproc-per-node 2 --progress-timeout 60": (0, (), True),
}


def readme_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    commands = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        for line in body.splitlines():
            if lang in ("bash", "sh"):
                line = re.sub(r"(^|\s+)#.*$", "", line).strip()  # no README command quotes a '#'
            elif line.startswith("$ "):
                line = line[2:].strip()
            else:
                continue
            if line:
                commands.append(" ".join(line.split()))
    return commands


def test_every_readme_command_is_known_here():
    commands = readme_commands()
    assert commands[:2] == list(SETUP)
    unknown = [c for c in commands if c not in EXPECTED and c not in SETUP]
    assert not unknown, f"README commands without an expected exit code in EXPECTED: {unknown}"
    stale = [c for c in EXPECTED if c not in commands]
    assert not stale, f"EXPECTED entries no longer in the README: {stale}"


# ------------------------------------------------------------------------------ workspace
def _npu_migrate(bin_dir: Path) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "npu-migrate"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -m migrate "$@"\n')
    wrapper.chmod(0o755)


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


def _apply(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "migrate", "apply", str(src), "-o", str(dst), "--force"],
                          capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode in (0, 1) and dst.is_file(), proc.stderr.decode()


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("readme-template")
    shutil.copy(EXAMPLE, ws / "train.py")
    shutil.copy(EXAMPLE, ws / "gpu_train.py")
    for name in ("cnn_cifar", "amp_gradscaler"):
        shutil.copytree(EXAMPLE.parent.parent / name, ws / "repo" / name, ignore=shutil.ignore_patterns("expected*"))
    _git("init", "-q", cwd=ws / "repo")
    _git("add", "-A", cwd=ws / "repo")
    _git("commit", "-qm", "gpu", cwd=ws / "repo")
    _npu_migrate(ws / ".bin")
    made = ws / ".made"
    _apply(EXAMPLE, made / "npu_train.py")
    _apply(DIST / "gpu_ddp_nccl.py", ws / "train_ddp.py")
    return ws


def _workspace(template: Path, tmp_path: Path, needs) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(template, ws, symlinks=True, ignore=shutil.ignore_patterns(".made"))
    for rel in needs:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(template / ".made" / rel, ws / rel)
    return ws


def _params():
    for command in readme_commands():
        if command in SETUP or command not in EXPECTED:
            continue
        code, needs, slow = EXPECTED[command]
        yield pytest.param(command, code, needs, marks=[pytest.mark.slow, pytest.mark.runtime] if slow else [],
                           id=command[:60])


@pytest.mark.parametrize("command, code, needs", list(_params()))
def test_readme_command(command, code, needs, template, tmp_path):
    ws = _workspace(template, tmp_path, needs)
    env = dict(os.environ, PATH=f"{ws / '.bin'}{os.pathsep}{os.environ['PATH']}", COLUMNS="120")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(["bash", "-c", command], cwd=ws, capture_output=True, env=env, timeout=900)
    output = proc.stdout.decode("utf-8", "replace")[-3000:] + proc.stderr.decode("utf-8", "replace")[-3000:]
    assert proc.returncode == code, f"{command}\nexit {proc.returncode}, expected {code}\n{output}"


# ------------------------------------------------------------------------------ set-up commands
SCRIPTS = ("scripts/demo.sh", "scripts/test.sh", "scripts/setup_env.sh")


@pytest.mark.parametrize("script", SCRIPTS)
def test_setup_scripts_parse_and_call_what_exists(script):
    """Not re-run (they reinstall .venv; test.sh is this suite): syntax, called scripts, extras."""
    subprocess.run(["bash", "-n", str(ROOT / script)], check=True)
    text = (ROOT / script).read_text()
    for called in re.findall(r"\bbash (scripts/\S+)", text):
        assert (ROOT / called).is_file(), f"{script} calls {called}, which does not exist"
    for extras in re.findall(r"setup_env\.sh (\w+)", text):
        assert f"\n{extras} = [" in (ROOT / "pyproject.toml").read_text(), f"{script}: no extra {extras!r}"
    if script == "scripts/test.sh":
        for module in ("ruff", "pytest", "xdist"):  # `-n auto` needs pytest-xdist
            assert subprocess.run([sys.executable, "-c", f"import {module}"]).returncode == 0, module


@pytest.mark.slow
@pytest.mark.runtime
def test_demo_runs_and_its_losses_fall(tmp_path):
    """scripts/demo.sh for real in a copy of the checkout (set-up replaced, see the module docstring)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    copy = tmp_path / "checkout"
    for rel in files:
        if (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    (copy / "scripts" / "setup_env.sh").write_text("#!/usr/bin/env bash\ntest -x .venv/bin/npu-migrate\n")
    _npu_migrate(copy / ".venv" / "bin")
    env = dict(os.environ, COLUMNS="120")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(["bash", "scripts/demo.sh"], cwd=copy, capture_output=True, env=env, timeout=900)
    out = proc.stdout.decode() + proc.stderr.decode()  # apply --smoke reports on stderr
    assert proc.returncode == 0, out[-6000:]
    assert "smoke: PASS" in out
    losses = [float(x) for x in re.findall(r"│\s*\d+\s*│\s*([0-9.e+-]+)\s*│\s*[0-9.]+\s*│", out)]
    assert len(losses) == 10, out[-3000:]
    # the demo's CNN learns the synthetic classes: 10 steps take the loss from ~2.5 to ~0.8 (eight runs, all
    # below 1.3 by the last three); a single step's loss is noisy (a 5-step run once ended above its start)
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3 - 0.3, losses
    assert "loss rose at every step" not in out
