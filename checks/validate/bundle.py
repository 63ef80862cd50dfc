"""The baseline bundle: the original's run recorded on one host (`npu-migrate baseline`), read back on
another (`npu-migrate validate --baseline BUNDLE`). Format and I/O only; no torch import.

A bundle is a folder (or one `.tar.gz` holding that folder):

    manifest.json            schema_version, tool, script (path, sha256), args, steps, seed, backend,
                             device, versions, time, data fingerprint status, the float32 switches
                             as the run left them (`fp32_effective`: TF32/HF32, a script may set
                             them itself), and the sha256 of every other file (`files`)
    losses.csv               step (from 1), loss
    smoke.json               the original's smoke report (what validate writes as baseline/smoke.json),
                             with the top-level modules the run imported (`imported_modules`: an optional
                             field, no schema change; a bundle without it keeps every pip difference)
    config_check_pack.zip    msprobe's ConfigChecker pack of the run
    instrumented_<script>    the instrumented copy that ran
    data_fingerprint.json    statistics of the first batches the model saw (from the pack's dataset item)
                             and a digest of every sample of the first DataLoader batches (`samples`);
                             the inputs that were the model's own outputs of its previous forward (`carried`:
                             per pack step, msprobe's input keys; optional, no schema change: a bundle
                             without it reads every input as data)
    pip_list.txt, env.json   the installed distributions; the environment (secret-looking values redacted)
    record.log               msprobe's log lines and Python warnings of the run

Reading refuses (BundleError, exit 2) a newer schema, a missing or corrupted file (checksums), a
manifest that is not JSON, and an archive whose members would leave its folder (or are links).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

# 2: the API dump leaves out the config_check pack's own statistics (manifest `pack_statistics_in_dump`: false);
# a schema-1 bundle's dump holds them, and validate --baseline dumps them in the migrated run too (checks/validate/baseline.py)
SCHEMA_VERSION = 2
MANIFEST = "manifest.json"
PACK = "config_check_pack.zip"
SMOKE = "smoke.json"
LOSSES = "losses.csv"
FINGERPRINT = "data_fingerprint.json"
FINGERPRINT_BATCHES = 3  # msprobe pack steps (forward calls of the model) kept in the fingerprint
SAMPLE_BATCHES = 16  # DataLoader batches whose samples get a digest each (checks/child/loop_observer.py)
SAMPLES_WHAT = ("a digest (blake2b, 8 bytes) of every sample of the first DataLoader batches: the bytes of row i "
                "of each batch tensor, so the same samples in another order are recognised as such")
_SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|PRIVATE|AUTH|COOKIE|SESSION", re.I)


class BundleError(Exception):
    """The bundle cannot be written or read: one line, exit 2."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Bundle:
    folder: Path  # the unpacked folder
    manifest: dict
    source: Path  # what the user named (the folder or the archive)

    def path(self, name: str) -> Path:
        return self.folder / name

    @property
    def script_name(self) -> str:
        return str(self.manifest["script"]["name"])

    @property
    def losses(self) -> tuple[float, ...]:
        """The recorded losses (of the first rank, for a run of N ranks)."""
        return self.smoke(None).losses

    @property
    def nproc_per_node(self) -> int | None:
        """How many ranks the original ran as (`baseline --nproc-per-node`), None for one process."""
        launch = self.manifest.get("launch")
        return int(launch["nproc_per_node"]) if launch else None

    def smoke_report(self) -> dict:
        return json.loads(self.path(SMOKE).read_text(encoding="utf-8"))

    def smoke(self, steps: int | None) -> SimpleNamespace:
        """The recorded smoke result, cut to the first `steps` losses, shaped as validate reads a live one:
        a run of N ranks (checks.verdict.dist_result.DistributedSmokeResult.to_dict) with `ranks` and
        `rank_ids` (each rank's losses cut too) and the first rank's losses and loss dtype as its own."""
        data = self.smoke_report()
        extra = {}
        if isinstance(data.get("ranks"), list):
            ranks = tuple(_cut(r, steps) for r in data["ranks"])
            first = ranks[0] if ranks else SimpleNamespace(losses=(), loss_dtype=None)
            extra = {"ranks": ranks, "rank_ids": tuple(int(r.rank) for r in ranks), "loss_dtype": first.loss_dtype}
            data = {**data, "losses": first.losses}
        return _cut({**data, **extra}, steps)

    def fingerprint(self) -> dict:
        return json.loads(self.path(FINGERPRINT).read_text(encoding="utf-8"))


def _cut(data: dict, steps: int | None) -> SimpleNamespace:
    losses = tuple(float(x) for x in data.get("losses") or ())[:steps]
    return SimpleNamespace(**{"loss_dtype": None, **data, "losses": losses, "steps": len(losses),
                              "reasons": tuple(data.get("reasons") or ())})


def write_manifest(folder: Path, manifest: dict) -> dict:
    """manifest.json with the sha256 of every other file in the folder (sorted, relative paths)."""
    files = {}
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel != MANIFEST:
            files[rel] = sha256_file(path)
    manifest = {**manifest, "schema_version": SCHEMA_VERSION, "files": files}
    (Path(folder) / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    return manifest


def make_archive(folder: Path, target: Path) -> Path:
    """One .tar.gz holding the folder under the archive's own name (written beside, then renamed)."""
    name = target.name.removesuffix(".tar.gz")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        with tarfile.open(partial, "w:gz") as tar:
            tar.add(folder, arcname=name)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def open_bundle(source: str | Path, workdir: Path) -> Bundle:
    """Check and (for an archive) unpack a bundle into `workdir`. Raises BundleError with one line."""
    source = Path(source)
    if source.is_dir():
        folder = source
    elif source.is_file() and tarfile.is_tarfile(source):
        try:
            folder = _extract(source, Path(workdir))
        except (tarfile.TarError, EOFError, zlib.error) as exc:  # a truncated or damaged archive
            raise BundleError(f"baseline archive {source} is damaged ({type(exc).__name__}: {exc}); "
                              "copy it again from the GPU host") from None
    elif source.exists():
        raise BundleError(f"baseline bundle {source} is neither a bundle folder nor a .tar.gz archive")
    else:
        raise BundleError(f"no baseline bundle at {source}")
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"baseline bundle {source} has no {MANIFEST} (not a bundle written by `npu-migrate baseline`)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        schema = int(manifest["schema_version"])
        files = dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BundleError(f"baseline bundle {source}: {MANIFEST} is corrupted ({type(exc).__name__}: {exc})") from None
    if schema > SCHEMA_VERSION:
        raise BundleError(f"baseline bundle {source} has schema version {schema}, newer than this npu-migrate reads "
                          f"({SCHEMA_VERSION}): upgrade npu-migrate on this host")
    for rel, digest in sorted(files.items()):
        path = folder / rel
        if not _inside(path, folder):
            raise BundleError(f"baseline bundle {source}: manifest names {rel}, outside the bundle")
        if not path.is_file():
            raise BundleError(f"baseline bundle {source}: {rel} is missing (listed in {MANIFEST})")
        if sha256_file(path) != digest:
            raise BundleError(f"baseline bundle {source}: {rel} is corrupted (sha256 differs from {MANIFEST})")
    # no pack when the user turned the packs off (NPU_MIGRATE_CONFIG_CHECK=0) or the original's model could not be
    # hooked (its instrument_message): the manifest says so
    for required in (SMOKE, FINGERPRINT) + ((PACK,) if manifest.get("config_check_pack", True) else ()):
        if required not in files:
            raise BundleError(f"baseline bundle {source}: {MANIFEST} does not list {required}")
    return Bundle(folder, manifest, source)


def _inside(path: Path, folder: Path) -> bool:
    root = os.path.realpath(folder)
    return os.path.commonpath([root, os.path.realpath(path)]) == root


def _extract(archive: Path, workdir: Path) -> Path:
    """Unpack after checking every member: regular files and folders only, all under one top folder."""
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        tops = set()
        for member in members:
            name = member.name
            parts = Path(name).parts
            if name.startswith(("/", "\\")) or ".." in parts or not parts:
                raise BundleError(f"baseline archive {archive}: member {name!r} leaves the bundle folder; nothing unpacked")
            if not (member.isfile() or member.isdir()):
                raise BundleError(f"baseline archive {archive}: member {name!r} is a link or device, not a file; nothing unpacked")
            tops.add(parts[0])
        if len(tops) != 1:
            raise BundleError(f"baseline archive {archive} must hold one bundle folder (found {len(tops)} top-level entries)")
        dest = workdir / "bundle"
        dest.mkdir(parents=True, exist_ok=True)
        tar.extractall(dest, filter="data")
    return dest / tops.pop()


# --------------------------------------------------------------------------- what the bundle records


def data_fingerprint(pack_zip: Path, batches: int = FINGERPRINT_BATCHES, samples: list | None = None,
                     carried: dict | None = None) -> dict:
    """Statistics (max, min, mean, norm per input) of the first `batches` inputs of the model, read from
    msprobe's ConfigChecker pack (its `dataset` item: one entry per forward call of the model); with
    `samples` (the run's `loop.samples`: per DataLoader batch, one digest per sample), those too, so a
    comparison can tell the same samples in another order from other data; `carried` (the run's
    `loop.carried_inputs`, {} when it watched and found none, None when it did not watch): the inputs that
    were the model's own outputs of its previous forward, per pack step (a recurrent state: not data)."""
    extra = {"samples": samples, "samples_what": SAMPLES_WHAT} if samples else {}
    if carried is not None:
        extra["carried"] = {step: list(keys) for step, keys in carried.items()}
    if not Path(pack_zip).is_file():
        return {"observed": False, "batches": {}, **extra,
                "why": "no config_check pack (ConfigChecker was not hooked into the model, or its forward never ran)"}
    try:
        with zipfile.ZipFile(pack_zip) as pack:
            names = sorted((n for n in pack.namelist() if re.fullmatch(r"dataset/step\d+/rank0/dataset\.json", n)),
                           key=lambda n: int(n.split("/")[1][4:]))
            steps = {n.split("/")[1][4:]: json.loads(pack.read(n)) for n in names[:batches]}
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        return {"observed": False, "why": f"the config_check pack could not be read: {exc}", "batches": {}, **extra}
    if not steps:
        return {"observed": False, "batches": {}, "why": _no_dataset_item(Path(pack_zip)), **extra}
    return {"observed": True, "batches": steps,
            "what": "msprobe ConfigChecker dataset statistics (max, min, mean, norm) of the model's inputs per "
                    "forward call (msprobe pack step), not the bytes of the batches",
            "sha256": hashlib.sha256(json.dumps(steps, sort_keys=True).encode()).hexdigest(), **extra}


def _no_dataset_item(pack_zip: Path) -> str:
    """Why a pack has no dataset item: the helper's log beside the pack names an item msprobe could not collect
    (it raised on the model's inputs, e.g. a sparse adjacency matrix, and was dropped so the run goes on)."""
    try:
        log = pack_zip.with_suffix(".log").read_text(errors="replace")
    except OSError:
        log = ""
    dropped = re.search(r"^config_check: DatasetChecker\S* dropped, it raised (.*)$", log, re.M)
    if dropped:
        return (f"msprobe's dataset item could not measure the model's inputs (it raised {dropped.group(1)[:200]}) and was "
                "dropped so the run goes on")
    return ("the config_check pack has no dataset item (ConfigChecker hooked no model: none found, or one that takes no "
            "forward pre-hook, a TorchScript module)")


def run_carried(smoke) -> dict | None:
    """The inputs a smoke run found carried from the model's previous forward (its report's `loop.carried_inputs`,
    checks/child/loop_observer.py watch_carried_inputs): {} when it found none, None without a report's loop."""
    loop = smoke.get("loop") if isinstance(smoke, dict) else getattr(smoke, "loop", None)
    return None if loop is None else dict(loop.get("carried_inputs") or {})


def run_samples(smoke) -> list | None:
    """The per-sample digests a smoke run kept (its report's `loop.samples`), or None."""
    loop = smoke.get("loop") if isinstance(smoke, dict) else getattr(smoke, "loop", None)
    return (loop or {}).get("samples") or None


def pip_list() -> list[str]:
    """`name==version` of every distribution this interpreter sees (the run's interpreter), read from the
    metadata headers only (checks.child.msprobe_speedups.distribution_versions: no `pip list`, no full parse)."""
    from checks.child.msprobe_speedups import distribution_versions

    seen = {}
    for name, version in distribution_versions():
        if name:
            seen.setdefault(name.lower(), f"{name}=={version}")
    return [seen[k] for k in sorted(seen)]


def environment(env: dict[str, str]) -> dict[str, str]:
    """The run's environment, values of secret-looking names redacted (the bundle travels between hosts)."""
    return {k: ("<redacted>" if _SECRET.search(k) else v) for k, v in sorted(env.items())}


def versions() -> dict:
    """torch / CUDA / Python versions and the CPU, read without importing torch."""
    import platform
    from importlib import metadata
    from importlib.util import find_spec

    out = {"python": platform.python_version(), "platform": platform.platform(), "cpu": _cpu_model()}
    try:
        out["torch"] = metadata.version("torch")
    except metadata.PackageNotFoundError:
        out["torch"] = None
    spec = find_spec("torch")
    cuda = None
    if spec is not None and spec.origin:
        version_py = Path(spec.origin).parent / "version.py"
        match = re.search(r"^cuda(?::[^=]*)?=\s*['\"]?([\w.]+)", version_py.read_text() if version_py.is_file() else "", re.M)
        cuda = match.group(1) if match and match.group(1) != "None" else None
    out["torch_cuda"] = cuda
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def gpu_name() -> str | None:
    """The first GPU's name from nvidia-smi (no torch import); None without one."""
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return None
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [x.strip() for x in proc.stdout.splitlines() if x.strip()]
    return lines[0] if proc.returncode == 0 and lines else None
