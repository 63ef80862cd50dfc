"""A scan keeps no file's tree alive: the cyclic garbage collector is off for the whole command (migrate/cli.py,
fileio.no_cycle_collection), so one reference cycle reaching a file's context or tree keeps it to the end of the scan.
Recursive closures did (a nested function calling itself holds its own cell): every file of the torch corpus kept its
context, 2.6 GB peak for a one-process scan of it, 0.46 GB once they were module functions or broken after use.

Each file is analysed with the collector off, then the collector runs with DEBUG_SAVEALL: no garbage object may be a
syntax-tree node or a PythonContext (the stdlib's ast.dump leaves a few cells and functions of its own: not ours)."""

from __future__ import annotations

import ast
import gc
import importlib.util
from pathlib import Path

import pytest

from migrate import engine
from migrate.context import PythonContext

ROOT = Path(__file__).resolve().parent.parent

# torch's own files that made such cycles (NPU501's kernels launched behind checks, availability predicates, loader
# functions, compiled-object calls): real code nobody here wrote, on every machine that has torch
TORCH_SAMPLE = ("sparse/_triton_ops.py", "_native/ops/sum/__init__.py", "backends/openmp/__init__.py",
                "distributed/nn/__init__.py", "_lazy/ts_backend.py", "distributed/tensor/device_mesh.py",
                "cuda/__init__.py", "_inductor/runtime/compile_tasks.py", "utils/cpp_extension.py")


def _torch_files() -> list[Path]:
    spec = importlib.util.find_spec("torch")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return []
    base = Path(list(spec.submodule_search_locations)[0])
    return [base / rel for rel in TORCH_SAMPLE if (base / rel).is_file()]


def _leaked(path: Path) -> list[str]:
    data = path.read_bytes()
    target = engine.Target(str(path), ("python",))
    engine.analyze_file(target, data, "2.1")  # caches and knowledge loaded once, outside the measure
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        engine.analyze_file(target, data, "2.1")
        gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage if isinstance(o, (ast.AST, PythonContext))})
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        if was_enabled:
            gc.enable()
    return kinds


def test_fixture_scripts_leave_no_tree_in_a_cycle():
    scripts = sorted(ROOT.glob("fixtures/gpu_scripts/**/*.py"))
    assert scripts
    leaks = {str(p.relative_to(ROOT)): kinds for p in scripts if (kinds := _leaked(p))}
    assert leaks == {}


@pytest.mark.skipif(not _torch_files(), reason="torch is not installed here")
def test_torch_files_leave_no_tree_in_a_cycle():
    leaks = {p.name if p.name != "__init__.py" else str(p.parent.name) + "/__init__.py": kinds
             for p in _torch_files() if (kinds := _leaked(p))}
    assert leaks == {}
