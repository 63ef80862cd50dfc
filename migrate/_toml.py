"""`tomllib` on Python 3.11+, the `tomli` backport before (a dependency only there)."""

try:
    import tomllib as toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as toml  # type: ignore[no-redef]

__all__ = ["toml"]
