"""Stand-in surfaces: public names exactly as in the real torch_npu of the targeted version.

The names come from the knowledge data (migrate/knowledge): a name the real module lacks raises
AttributeError; a name it has either works on the CPU or raises NotEmulatedError when used.
"""
from __future__ import annotations

import os
import sys
import types

VERSION_ENV = "NPU_MIGRATE_TORCH_NPU_VERSION"


class NotEmulatedError(NotImplementedError):
    """A real torch_npu API that the CPU stand-in does not implement."""


# ------------------------------------------------------------------------------ knowledge
def _project_module(name: str):
    """A module of npu-migrate itself; a grandchild process may lack the bootstrap's preloaded modules."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        sys.path.append(root)
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(root)


def _knowledge():
    return _project_module("migrate.knowledge").load(os.environ.get(VERSION_ENV) or None)


compat = _project_module("checks.emulation.compat")
KB = _knowledge()
VERSION = KB.version


def _names(module: str) -> frozenset[str]:
    return KB.module_names(module) or frozenset()


# ------------------------------------------------------------------------------ surfaces
class _NotEmulated:
    """Placeholder for a public name of the real torch_npu that the stand-in does not implement."""

    def __init__(self, qualname: str):
        self._qualname = qualname

    def _fail(self):
        raise NotEmulatedError(
            f"{self._qualname} exists in torch_npu {VERSION} but is not emulated by the CPU stand-in "
            "(npu-migrate smoke --backend emulated); run on a real Ascend NPU to exercise it")

    def __call__(self, *args, **kwargs):
        self._fail()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._fail()

    def __enter__(self):
        self._fail()

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<not emulated: {self._qualname}>"


class SurfaceModule(types.ModuleType):
    """A module whose public names are exactly those of the real torch_npu module."""

    def __init__(self, name: str, real_name: str, allowed: frozenset[str], display: str | None = None):
        super().__init__(name)
        self.__dict__["_surface_allowed"] = allowed
        self.__dict__["_surface_real"] = real_name
        self.__dict__["_surface_display"] = display or name

    def _provide(self, **impls):
        for name, value in impls.items():
            if name in self._surface_allowed:
                self.__dict__[name] = value

    def __getattr__(self, name):
        if name in self.__dict__.get("_surface_allowed", ()):
            placeholder = _NotEmulated(f"{self._surface_display}.{name}")
            self.__dict__[name] = placeholder
            return placeholder
        raise AttributeError(
            f"module '{self._surface_display}' has no attribute '{name}' "
            f"(torch_npu {VERSION} has no {self._surface_display}.{name})")

    def __dir__(self):
        return sorted(set(self._surface_allowed) | {k for k in self.__dict__ if k.startswith("__")})
