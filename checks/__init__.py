"""Runtime side of npu-migrate: smoke runs, the in-child bootstrap, the CPU-backed torch_npu stand-in.

Imports torch only lazily (inside the smoke child); the parent side (checks.smoke.run) never does.
One package per floor, lowest first: launch, emulation, child, verdict, smoke, distributed, then
validate and profile; a floor imports only the floors below it (tests/test_import_layers.py). The
stand-in (standin/) is a package of its own, put first on the child's sys.path.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the project root (holds checks/)


def module_file(name: str) -> str:
    """The file of the checks module `name` (dotted, e.g. "checks.child.bootstrap"), found without importing it:
    for the files a child runs by path (the bootstrap, the spawn main, the warm template and client)."""
    return os.path.join(ROOT, *name.split(".")) + ".py"
