"""What the checks may look at, gathered in one injectable object (tests build fake hosts).

Package versions are read from installed metadata (`importlib.metadata` over the search path the
training Python would use: PYTHONPATH entries, then this interpreter's sys.path), never by import.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

# Where CANN toolkits are installed by default (root install, then a user's home install);
# the vendor guide's `source /usr/local/Ascend/ascend-toolkit/set_env.sh`.
DEFAULT_INSTALL_ROOTS = (
    Path("/usr/local/Ascend/ascend-toolkit"),
    Path("/usr/local/Ascend/cann"),
    Path.home() / "Ascend" / "ascend-toolkit",
)


@dataclass(frozen=True)
class ProbeOutput:
    returncode: int | None  # None: timed out
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Host:
    env: dict = field(default_factory=lambda: dict(os.environ))
    python: str = sys.executable
    python_version: tuple[int, int] = sys.version_info[:2]
    machine: str = platform.machine()
    dev_dir: Path = Path("/dev")
    install_roots: tuple[Path, ...] = DEFAULT_INSTALL_ROOTS
    # where the driver and firmware install (their version.info files); tests point it at a fake
    ascend_root: Path = Path("/usr/local/Ascend")
    probe_timeout: float = 180.0
    allreduce_timeout: float = 120.0
    target_torch_npu: str | None = None  # --torch-npu-version
    # the interpreter's own search path after PYTHONPATH (None: this process's sys.path)
    sys_path: tuple[str, ...] | None = None

    # ------------------------------------------------------------------ packages (no import)
    def search_path(self) -> list[str]:
        extra = [p for p in self.env.get("PYTHONPATH", "").split(os.pathsep) if p]
        base = sys.path if self.sys_path is None else self.sys_path
        return extra + [p for p in base if p not in extra]

    def distribution(self, name: str) -> metadata.Distribution | None:
        """The first installed distribution called `name` (- and _ equivalent) on the path."""
        wanted = name.replace("-", "_").lower()
        for dist in metadata.distributions(path=self.search_path()):
            dist_name = (dist.metadata.get("Name") or "").replace("-", "_").lower()
            if dist_name == wanted:
                return dist
        return None

    def version_of(self, name: str) -> str | None:
        dist = self.distribution(name)
        return dist.version if dist is not None else None

    # ------------------------------------------------------------------ programs and files
    def which(self, program: str) -> str | None:
        return shutil.which(program, path=self.env.get("PATH", ""))

    def run(self, argv: list[str], timeout: float) -> ProbeOutput:
        """Run a program with this host's environment; never raises for a failing program."""
        try:
            proc = subprocess.run(argv, env=self.env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            return ProbeOutput(None, _text(exc.stdout), _text(exc.stderr))
        except OSError as exc:
            return ProbeOutput(127, "", str(exc))
        return ProbeOutput(proc.returncode, proc.stdout, proc.stderr)

    def probe_env(self) -> dict:
        """The environment for `python -m checks.child.doctor_probe`: this project importable."""
        env = dict(self.env)
        root = str(Path(__file__).resolve().parents[2])
        parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(parts + [root])  # user's path first: their packages win
        return env

    def run_probe(self, *args: str, timeout: float | None = None) -> ProbeOutput:
        argv = [self.python, "-m", "checks.child.doctor_probe", *args]
        try:
            proc = subprocess.run(argv, env=self.probe_env(), capture_output=True, text=True,
                                  timeout=timeout or self.probe_timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            return ProbeOutput(None, _text(exc.stdout), _text(exc.stderr))
        return ProbeOutput(proc.returncode, proc.stdout, proc.stderr)


def _text(data) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data
