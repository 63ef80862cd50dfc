#!/usr/bin/env python3
"""Generate migrate/knowledge/data/releases.json: which torch (and Python) each torch_npu release
needs, and which torch each torchvision release needs (developer-run, never in CI).

    /work/main/.venv/bin/python scripts/build_release_data.py

Sources, all read from the wheels' own metadata (never invented, torch_npu never installed):
  * release list: `pip index versions torch-npu` / `pip index versions torchvision`;
  * for the newest release of each torch_npu line and each Python (3.8 .. 3.14) and platform (x86_64, aarch64):
    `pip install --dry-run --no-deps --ignore-installed --only-binary=:all: --python-version P
    --platform ... --target TMP --report R torch-npu==V`. pip only resolves: it fetches the
    wheel to read its METADATA into the report and installs nothing (no files are written into TMP).
    A wheel exists for that Python when the resolve succeeds; the report gives the wheel's file
    name (its tags) and its METADATA `Requires-Dist` / `Requires-Python`. Older post releases of a
    line are probed for cp311 on each platform for their torch requirement (`python_probed: false`);
  * wheels already in the cache ($NPU_WHEEL_CACHE, default .cache/wheels/: scripts/fetch_wheels.py) are read directly (zip
    `*.dist-info/METADATA`) and their requirement is cross-checked against the report;
  * torch_npu's own error codes (`ERRxxyyy`): the enums of torch_npu/utils/_error_code.py in the
    2.14.0 wheel, read with ast (torch_npu_err_codes.json; `--only errors` rebuilds just that);
  * torchvision: the same dry-run for every torchvision release from 0.16 on (cp311, x86_64), whose
    METADATA pins `torch==X.Y.Z`.
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import json
import re
import subprocess
import sys
import tempfile
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor
from email.parser import Parser
from pathlib import Path

from fetch_wheels import cache_dir  # scripts/ is sys.path[0]: this runs as a script
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "migrate" / "knowledge" / "data" / "releases.json"
ERR_OUT = ROOT / "migrate" / "knowledge" / "data" / "torch_npu_err_codes.json"
ERR_WHEEL = "torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl"
ERR_FILE = "torch_npu/utils/_error_code.py"
CACHE = cache_dir()  # the wheel cache (scripts/fetch_wheels.py)
PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"]
PLATFORMS = {
    "x86_64": ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"],
    "aarch64": ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"],
}
TORCHVISION_FROM = (0, 16)  # torch 2.1, the oldest torch_npu line on PyPI


def pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                          timeout=600)


def index_versions(package: str) -> list[str]:
    out = pip("index", "versions", package).stdout
    match = re.search(r"Available versions:\s*(.+)", out)
    if not match:
        raise SystemExit(f"pip index versions {package} gave no versions:\n{out}")
    return [v.strip() for v in match.group(1).split(",")]


_PROBES = CACHE / "release_probe_cache.json"  # (package, version, python, arch) -> report entry
_LOCK = threading.Lock()


def resolve(package: str, version: str, python: str, arch: str) -> dict | None:
    """The dry-run report entry for one wheel, or None when PyPI has no wheel for that Python/arch.
    Answers are kept in the wheel cache folder so a rerun does not ask PyPI again."""
    key = f"{package}=={version} py{python} {arch}"
    with _LOCK:
        cache = json.loads(_PROBES.read_text()) if _PROBES.is_file() else {}
    if key in cache:
        return cache[key]
    found = _resolve(package, version, python, arch)
    with _LOCK:  # the pool's threads share one cache file
        cache = json.loads(_PROBES.read_text()) if _PROBES.is_file() else {}
        cache[key] = found
        tmp = _PROBES.with_suffix(".tmp")
        tmp.write_text(json.dumps(cache))
        tmp.replace(_PROBES)
    return found


def _resolve(package: str, version: str, python: str, arch: str) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        plat = [a for p in PLATFORMS[arch] for a in ("--platform", p)]
        proc = pip("install", "--dry-run", "--no-deps", "--ignore-installed", "--only-binary=:all:",
                   "--python-version", python, *plat, "--target", str(Path(tmp) / "t"),
                   "--report", str(report), "--quiet", f"{package}=={version}")
        if proc.returncode != 0 or not report.exists():
            return None
        entry = json.loads(report.read_text())["install"][0]
    url = entry["download_info"]["url"]
    meta = entry["metadata"]
    return {"wheel": url.rsplit("/", 1)[-1], "url": url,
            "sha256": entry["download_info"].get("archive_info", {}).get("hashes", {}).get("sha256"),
            "requires_dist": meta.get("requires_dist") or [],
            "requires_python": meta.get("requires_python")}


def cached_metadata(wheel_name: str) -> dict | None:
    path = CACHE / wheel_name
    if not path.is_file():
        return None
    with zipfile.ZipFile(path) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(zf.read(name).decode())
    return {"requires_dist": msg.get_all("Requires-Dist") or [], "path": str(path)}


def torch_requirement(requires: list[str]) -> str | None:
    """'torch (==2.1.0+cpu)' / 'torch ==2.11.0' / 'torch>=2.14.0' -> 'torch==2.1.0+cpu' ...
    (pip's report keeps each wheel's own spelling, old wheels use the parenthesised form)."""
    for text in requires:
        req = Requirement(text)
        if req.name.lower() == "torch" and (req.marker is None or "extra" not in str(req.marker)):
            return "torch" + ",".join(sorted(str(s) for s in req.specifier))
    return None


def line_of(version: str) -> str:
    return re.match(r"\d+\.\d+\.\d+", version).group(0)


def newest_of_each_line(versions: list[str]) -> set[str]:
    """`pip index versions` lists newest first: the first version seen of each line."""
    newest: dict[str, str] = {}
    for version in versions:
        newest.setdefault(line_of(version), version)
    return set(newest.values())


def build_torch_npu(versions: list[str]) -> dict:
    # every Python and platform for the newest release of each line; older post releases of a
    # line only for their torch requirement (cp311 x86_64), to keep the probe count down
    newest = newest_of_each_line(versions)
    jobs = [(v, py, arch) for v in versions
            for py, arch in ([(p, a) for p in PYTHONS for a in PLATFORMS] if v in newest
                             else [("3.11", a) for a in PLATFORMS])]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda j: (j, resolve("torch-npu", *j)), jobs))
    releases: dict[str, dict] = {}
    for (version, py, arch), found in results:
        v = version
        rel = releases.setdefault(version, {"line": line_of(version), "requires_torch": {},
                                            "requires_dist": {}, "requires_python": None,
                                            "python": {a: [] for a in PLATFORMS}, "wheels": [],
                                            "checked_against_cache": [],
                                            "python_probed": v in newest})
        if found is None:
            continue
        rel["python"][arch].append(py)
        rel["wheels"].append(found["wheel"])
        # the requirement can differ per platform (2.11.0.post3: torch==2.11.0+cpu on x86_64,
        # torch==2.11.0 on aarch64), never per Python within one platform
        if arch not in rel["requires_dist"]:
            rel["requires_dist"][arch] = found["requires_dist"]
            rel["requires_torch"][arch] = torch_requirement(found["requires_dist"])
            rel["requires_python"] = found["requires_python"]
        elif torch_requirement(found["requires_dist"]) != rel["requires_torch"][arch]:
            raise SystemExit(f"{version}: {arch} wheels disagree on torch: {found['wheel']}")
        cached = cached_metadata(found["wheel"])
        if cached:
            if torch_requirement(cached["requires_dist"]) != rel["requires_torch"][arch]:
                raise SystemExit(f"{found['wheel']}: cache and PyPI report disagree")
            rel["checked_against_cache"].append(cached["path"])
    for rel in releases.values():
        rel["wheels"].sort()
        for arch in PLATFORMS:
            rel["python"][arch].sort(key=lambda p: tuple(map(int, p.split("."))))
    return releases


def build_torchvision(versions: list[str]) -> dict:
    wanted = [v for v in versions
              if re.fullmatch(r"\d+\.\d+\.\d+", v)
              and tuple(map(int, v.split(".")[:2])) >= TORCHVISION_FROM]
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda v: (v, resolve("torchvision", v, "3.11", "x86_64")), wanted))
    out = {}
    for version, rep in found:
        if rep is None:
            continue
        out[version] = {"requires_torch": torch_requirement(rep["requires_dist"]),
                        "wheel": rep["wheel"]}
    return out


def enum_members(tree: ast.Module, class_name: str) -> dict[str, object]:
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    return {t.id: ast.literal_eval(stmt.value) for stmt in cls.body if isinstance(stmt, ast.Assign)
            for t in stmt.targets if isinstance(t, ast.Name)}


def build_err_codes() -> dict:
    """The `ERRxxyyy` codes torch_npu prints: xx = submodule, yyy = error (both enums in
    torch_npu/utils/_error_code.py, formatted "ERR{:0>2d}{:0>3d}")."""
    wheel = CACHE / ERR_WHEEL
    if not wheel.is_file():
        pip("download", "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
            "--platform", "manylinux_2_28_x86_64", "-d", str(CACHE), "torch-npu==2.14.0")
    with zipfile.ZipFile(wheel) as zf:
        source = zf.read(ERR_FILE).decode()
    tree = ast.parse(source)
    fmt = re.search(r'"ERR\{[^"]*\}\{[^"]*\}"', source)
    if fmt is None:
        raise SystemExit(f"{ERR_FILE}: the ERR code format string was not found")
    return {
        "generated": _dt.date.today().isoformat(),
        "generator": "scripts/build_release_data.py --only errors",
        "source": f"PyPI torch-npu==2.14.0 {ERR_WHEEL}: {ERR_FILE} (enums _SubModuleID, ErrCode; "
                  f"format {fmt.group(0)})",
        "submodules": {f"{v:02d}": k for k, v in enum_members(tree, "_SubModuleID").items()},
        "codes": {f"{v[0]:03d}": {"name": k, "message": v[1]}
                  for k, v in enum_members(tree, "ErrCode").items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["releases", "errors"], default=None)
    args = parser.parse_args()
    if args.only in (None, "errors"):
        ERR_OUT.write_text(json.dumps(build_err_codes(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {ERR_OUT}")
    if args.only == "errors":
        return 0
    npu_versions = index_versions("torch-npu")
    tv_versions = index_versions("torchvision")
    data = {
        "generated": _dt.date.today().isoformat(),
        "generator": "scripts/build_release_data.py",
        "source": {
            "torch_npu": "PyPI torch-npu: `pip index versions`, then each wheel's METADATA "
                         "(Requires-Dist, Requires-Python) and file name tags via "
                         "`pip install --dry-run --report` (nothing installed); cached wheels in "
                         f"{CACHE} read as zips and cross-checked",
            "torchvision": "PyPI torchvision: each cp311 x86_64 wheel's METADATA Requires-Dist "
                           "via `pip install --dry-run --report` (nothing installed)",
        },
        "pythons_probed": PYTHONS,
        "platforms_probed": PLATFORMS,
        "torch_npu": build_torch_npu(npu_versions),
        "torchvision": build_torchvision(tv_versions),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(data['torch_npu'])} torch_npu releases, "
          f"{len(data['torchvision'])} torchvision releases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
