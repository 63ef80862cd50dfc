"""Configuration from `[tool.npu-migrate]` in pyproject.toml plus command-line overrides."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path

from migrate.findings import Severity

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules",
    ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints",
    # setuptools' build output, `build/lib.linux-x86_64-2.7/` / `build/temp.linux-x86_64-cpython-310/` (a platform and
    # Python tag after `lib.` / `temp.`): copies of the package `setup.py build` writes again from the sources, which
    # are read; committed by mistake, they are deleted or rebuilt, never edited (label rule 46b-1)
    "build/lib.*-*", "build/temp.*-*",
    # CMake's generated build tree: `cmake` writes CMakeFiles/ in its binary directory (CMakeConfigureLog.yaml,
    # CMakeCUDACompiler.cmake, CompilerIdCUDA/CMakeCUDACompilerId.cu, the compiler-identification probe, <target>.dir/
    # build.make); nobody edits it and no build of the repository reads it, the CMakeLists.txt it came from is read
    # (set 72d: a committed in-source build beside the sources). CMakeCache.txt marks the binary directory but not a
    # generated one: in an in-source build it sits beside the real CMakeLists.txt and sources, so only CMakeFiles/ goes
    "CMakeFiles",
)


class ConfigError(ValueError):
    """Bad configuration: the command exits 2 with this message."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("NPU",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fail_on: Severity = Severity.ERROR
    torch_npu_version: str | None = None
    respect_gitignore: bool = True
    max_file_size: int = 10 * 1024 * 1024
    follow_links: bool = False  # follow symbolic links that leave the scanned tree
    source: str | None = None  # the pyproject.toml it came from
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def is_selected(self, code: str, path: str | None = None) -> bool:
        """Longest matching prefix wins between select and ignore (ruff/flake8 semantics)."""
        ignore = list(self.ignore)
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if _path_matches(path, pattern):
                    ignore.extend(codes)
        best_select = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in ignore if code.startswith(p)), default=-1)
        if best_select < 0:
            return False
        return best_select > best_ignore

    def with_overrides(self, **changes) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _path_matches(path: str, pattern: str) -> bool:
    posix = Path(path).as_posix()
    return fnmatch(posix, pattern) or fnmatch(Path(path).name, pattern) or fnmatch(posix, f"*/{pattern}")


def _codes(value, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.npu-migrate] {key} must be a list of code prefixes")
    for code in value:
        if not code.upper().startswith("NPU") and code.upper() != "ALL":
            raise ConfigError(f"[tool.npu-migrate] {key}: {code!r} is not an NPU code prefix (e.g. NPU1, NPU101)")
    return tuple("NPU" if v.upper() == "ALL" else v.upper() for v in value)


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(paths: list[str], explicit: str | None = None) -> Config:
    from migrate._toml import toml as tomllib

    if explicit:
        pyproject = Path(explicit)
        if not pyproject.is_file():
            raise ConfigError(f"config file not found: {explicit}")
    else:
        first = next((p for p in paths if p != "-"), os.getcwd())
        pyproject = find_pyproject(Path(first)) if Path(first).exists() else None
    if pyproject is None:
        return Config()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        if explicit:
            raise ConfigError(f"cannot read {pyproject}: {exc}") from None
        return Config()  # a broken pyproject of the scanned project is reported by the manifest reader
    tool = data.get("tool")
    section = tool.get("npu-migrate") if isinstance(tool, dict) else None
    if section is None:
        return Config()
    if not isinstance(section, dict):
        raise ConfigError(f"{pyproject}: [tool.npu-migrate] must be a table")
    known = set(SCHEMA)
    unknown = sorted(set(section) - known)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.npu-migrate] keys: {', '.join(unknown)}")
    try:
        validate_section(section)
    except ConfigError as exc:
        raise ConfigError(f"{pyproject}: {exc}") from None
    config = Config(source=str(pyproject))
    changes: dict = {}
    if "select" in section:
        changes["select"] = _codes(section["select"], "select")
    if "ignore" in section:
        changes["ignore"] = _codes(section["ignore"], "ignore")
    excludes = list(section.get("exclude", [])) + list(section.get("extend-exclude", []))
    if excludes:
        changes["exclude"] = tuple(str(e) for e in excludes)
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError("[tool.npu-migrate] per-file-ignores must be a table of pattern = [codes]")
    if pfi:
        changes["per_file_ignores"] = tuple((str(k), _codes(v, f"per-file-ignores.{k}")) for k, v in pfi.items())
    if "fail-on" in section:
        try:
            changes["fail_on"] = Severity.parse(str(section["fail-on"]))
        except ValueError as exc:
            raise ConfigError(f"[tool.npu-migrate] fail-on: {exc}") from None
    if "torch-npu-version" in section:
        changes["torch_npu_version"] = str(section["torch-npu-version"])
    if "respect-gitignore" in section:
        changes["respect_gitignore"] = section["respect-gitignore"]
    if "follow-links" in section:
        changes["follow_links"] = section["follow-links"]
    if "max-file-size" in section:
        changes["max_file_size"] = section["max-file-size"]
    return replace(config, **changes)


def _is_glob_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_code_list(value) -> bool:
    return isinstance(value, str) or _is_glob_list(value)


# key -> (check, what the value must be); checked before any value is used
SCHEMA = {
    "select": (_is_code_list, "a list of code prefixes (e.g. [\"NPU1\", \"NPU301\"])"),
    "ignore": (_is_code_list, "a list of code prefixes (e.g. [\"NPU206\"])"),
    "exclude": (_is_glob_list, "a list of glob strings (e.g. [\"third_party\", \"legacy/*.py\"])"),
    "extend-exclude": (_is_glob_list, "a list of glob strings"),
    "per-file-ignores": (lambda v: isinstance(v, dict) and all(_is_code_list(c) for c in v.values()),
                         "a table of \"glob\" = [code prefixes]"),
    "fail-on": (lambda v: isinstance(v, str) and v.lower() in ("info", "warning", "error"), "one of \"info\", \"warning\", \"error\""),
    "torch-npu-version": (lambda v: isinstance(v, str), "a version string (e.g. \"2.6.0\")"),
    "respect-gitignore": (lambda v: isinstance(v, bool), "true or false"),
    "follow-links": (lambda v: isinstance(v, bool), "true or false"),
    "max-file-size": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0, "a positive number of bytes (e.g. 10485760)"),
}


def validate_section(section: dict) -> None:
    """Raise ConfigError naming the first key whose value has the wrong type or range."""
    for key, value in section.items():
        check, expected = SCHEMA[key]
        if not check(value):
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise ConfigError(f"[tool.npu-migrate] {key} must be {expected}, got {shown}")
