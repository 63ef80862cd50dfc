"""The ConfigChecker hooks of a script, kept on disk: the same script is instrumented once per code version.

`validate` and `npu-migrate baseline` run the original through an instrumented copy (checks/validate/copies.py),
and the hooks come from `migrate.rewrite.instrument_source`, a libcst codemod. libcst's import alone is a
quarter of a second of CPU or more (the codemod itself a few hundredths), paid in every recording and in every
same-host validate of the same, unchanged original (bench/two_hosts_bench.py: most of what a recording adds
at start-up). Its result depends only on the script's text, the pack path and the code that writes the hooks,
so it is stored under the analyze cache folder (`migrate.cache.default_cache_dir()`, `NPU_MIGRATE_CACHE_DIR`):

    instrumented/<key>.json   {"text": ..., "model_found": ..., "message": ...}

key = blake2b of the script's text, npu-migrate's version, libcst's version and the bytes of every module
of migrate/codemods/ and migrate/rewrite/instrument.py (a change to the codemod is a miss, never a stale copy).
The pack path varies with each run's output folder: the text is stored as instrumented with PLACEHOLDER as
the path, and the placeholder's JSON literal (how the codemod writes the path) replaced by the real one's.
A script that contains the placeholder itself is never stored. An entry that cannot be read, or is not of
this shape, is a miss (instrumented again and rewritten). Writes are atomic (`migrate.fileio.atomic_write`);
the folder keeps its newest MAX_ENTRIES entries.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

PLACEHOLDER = "@@npu-migrate-config-check-pack@@"
FOLDER = "instrumented"
MAX_ENTRIES = 256


@lru_cache(maxsize=1)
def _code_key() -> bytes:
    """What decides the instrumented text besides the script: the codemod's code and the versions."""
    from importlib import metadata

    import migrate

    root = Path(migrate.__file__).parent
    digest = hashlib.blake2b(migrate.__version__.encode(), digest_size=16)
    try:
        digest.update(metadata.version("libcst").encode())
    except metadata.PackageNotFoundError:
        digest.update(b"no libcst")
    for path in [*sorted((root / "codemods").glob("*.py")), root / "rewrite" / "instrument.py"]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


def _entry(source: str) -> Path:
    from migrate.cache import default_cache_dir

    digest = hashlib.blake2b(_code_key(), digest_size=20)
    digest.update(source.encode("utf-8", "surrogatepass"))
    return default_cache_dir() / FOLDER / f"{digest.hexdigest()}.json"


def _read(path: Path) -> tuple[str, bool, str] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        text, model_found, message = data["text"], data["model_found"], data["message"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not (isinstance(text, str) and isinstance(model_found, bool) and isinstance(message, str)):
        return None
    return text, model_found, message


def _write(path: Path, value: tuple[str, bool, str]) -> None:
    from migrate.fileio import atomic_write

    text, model_found, message = value
    try:
        atomic_write(str(path), json.dumps({"text": text, "model_found": model_found, "message": message}),
                     make_parents=True)
        entries = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[MAX_ENTRIES:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written is only slower


def instrumented(source: str, zip_path: str) -> tuple[str, bool, str]:
    """(text, model found, message) of `migrate.rewrite.instrument_source(source, zip_path=zip_path)`, from the
    cache when this script was instrumented before by the same code."""
    if PLACEHOLDER in source:
        return _instrument(source, zip_path)
    path = _entry(source)
    stored = _read(path)
    if stored is None:
        stored = _instrument(source, PLACEHOLDER)
        _write(path, stored)
    text, model_found, message = stored
    return text.replace(json.dumps(PLACEHOLDER), json.dumps(zip_path)), model_found, message


def _instrument(source: str, zip_path: str) -> tuple[str, bool, str]:
    from migrate.rewrite import instrument_source

    result = instrument_source(source, zip_path=zip_path)
    return result.text, bool(result.model_found), str(getattr(result, "message", "") or "")
