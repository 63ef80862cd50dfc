"""Old import path of the rewrite engine, kept for `checks/` (which imports `instrument_source` from
here); the engine is `migrate.rewrite`."""

from migrate.rewrite import instrument_source

__all__ = ["instrument_source"]
