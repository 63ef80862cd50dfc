"""Download the wheels that tests and data generators read as zip files into the wheel cache (never installed).

    python scripts/fetch_wheels.py          # what is missing; prints one line per wheel
    python scripts/fetch_wheels.py --check  # only say what is cached (exit 1 when something is missing)

The cache is `$NPU_WHEEL_CACHE`, else `.cache/wheels/` in the repository (git-ignored). scripts/setup_env.sh
runs this after building the venv; tests find the wheels through `cache_dir()` (tests/helpers.py) and skip,
naming this command, when one is missing. torch_npu is never installed (without Ascend CANN it breaks
`import torch`): `pip download --no-deps` of one file per wheel, checked against the SHA-256 PyPI lists for it
(https://pypi.org/pypi/<name>/<version>/json, "digests"); a file that does not match is removed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "NPU_WHEEL_CACHE"


@dataclass(frozen=True)
class Wheel:
    requirement: str  # what `pip download` asks for
    filename: str
    sha256: str  # PyPI's digest of this file
    readers: str  # who reads it (why it is here)


WHEELS = {
    "torch_npu": Wheel("torch-npu==2.14.0", "torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl",
                       "7736f7d82cf9f16c7dfc4537f7e7c638153da760273a193455e70857f912189e",
                       "doctor's error codes and messages, the release data, the profiler signatures, the fusion rules"),
    "msprof_analyze": Wheel("msprof-analyze==26.2.0", "msprof_analyze-26.2.0-py3-none-any.whl",
                            "a2153363939d918b9d6657f2deeb4846b31c05adc857775f3509c3b898d8a806",
                            "the fusion rules (msprof-analyze advisor's timeline_fusion_ops.yaml)"),
}
# torch_npu's wheel for this platform and Python, whatever machine downloads it
PLATFORM = ("--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "--implementation", "cp",
            "--abi", "cp311", "--only-binary=:all:")


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or ROOT / ".cache" / "wheels")


def path(name: str) -> Path:
    """Where wheel `name` (a key of WHEELS) is, or would be, in the cache."""
    return cache_dir() / WHEELS[name].filename


def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(name: str, python: str = sys.executable) -> str | None:
    """Download wheel `name` unless it is cached; None when it is there, else why it is not."""
    wheel, target = WHEELS[name], path(name)
    if target.is_file():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    cmd = [python, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet", *PLATFORM,
           "-d", str(target.parent), wheel.requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not target.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return f"pip download {wheel.requirement} failed: {tail[0]}"
    found = _sha256(target)
    if found != wheel.sha256:
        target.unlink()
        return f"{wheel.filename} has SHA-256 {found}, not PyPI's {wheel.sha256}: removed"
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    failed = 0
    for name, wheel in WHEELS.items():
        target = path(name)
        if target.is_file():
            print(f"wheel cache: {wheel.filename} cached in {target.parent}", file=sys.stderr)
            continue
        if check:
            print(f"wheel cache: {wheel.filename} missing from {target.parent}", file=sys.stderr)
            failed += 1
            continue
        print(f"wheel cache: downloading {wheel.filename} into {target.parent} (read as a zip by tests: "
              f"{wheel.readers}; never installed)", file=sys.stderr)
        problem = fetch(name)
        if problem:
            failed += 1
            print(f"wheel cache: WARNING: {problem}; the tests that read it will skip (run "
                  f"`python scripts/fetch_wheels.py` again, or set {CACHE_ENV} to a folder holding {wheel.filename})",
                  file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
