"""Sweep `apply` over the .py files of the installed torch package: real code nobody here wrote.

No crash, every output parses, a second pass changes nothing. Slow (minutes): `pytest -m slow`.
The suite takes every 8th file in sorted order (294 of torch 2.14.1's 2,352; spread over all of its
packages; every 4th took 66 s of the e2e lane's one worker, the lane's longest test): the whole sweep was
14.5 minutes of one test worker on a slow CI-class machine. `NPU_MIGRATE_SWEEP=all` sweeps every file; bench/run.py times apply over all
of them.
"""

from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import pytest

from migrate.rewrite import ApplyOptions, plan_files, rewrite_file


def _torch_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")  # locates the package without importing it
    return Path(list(spec.submodule_search_locations)[0]) if spec and spec.submodule_search_locations else Path("/nonexistent")


TORCH = _torch_dir()


@pytest.mark.slow
@pytest.mark.skipif(not TORCH.is_dir(), reason="torch is not installed in .venv")
def test_apply_over_the_torch_package():
    every = sorted(str(p) for p in TORCH.rglob("*.py"))
    files = every if os.environ.get("NPU_MIGRATE_SWEEP") == "all" else every[::8]
    started = time.perf_counter()
    result = plan_files(files, ApplyOptions())
    elapsed = time.perf_counter() - started
    changed = result.changed
    assert len(result.files) == len(files) > 250
    assert changed, "torch has .cuda() calls: some files must change"
    internal = [f for f in result.files if f.error is not None and f.error.code == "NPU900"]
    assert not internal, [f.error.message for f in internal[:5]]
    for f in changed:
        ast.parse(f.output.decode("utf-8-sig"))
        assert rewrite_file(f.path, f.output, options=ApplyOptions()).output == f.output, f.path
    unchanged_untouched = [f for f in result.files if not f.changed and f.output != f.original]
    assert not unchanged_untouched
    print(f"\ntorch sweep: {len(files)} files, {len(changed)} changed, {len(result.changes)} rewrites, "
          f"{len(result.manual)} manual items, {elapsed:.1f}s")
