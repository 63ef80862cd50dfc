"""A backend class that answers its own availability is an optional path of its module (migrate/probed_packages.py).
The fixture is a small serving framework written here: an engine registry in one module asks each backend class's
`check_lib()` before it offers the class; the vLLM backend imports vllm only inside its methods."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

REGISTRY = """from .backends.fast import FastModel
from .backends.plain import PlainModel

ENGINES = [FastModel, PlainModel]


def pick(spec):
    for cls in ENGINES:
        if cls.check_lib() is True and cls.match(spec):
            return cls
"""

FAST = """import importlib

try:
    import vllm  # noqa: F401
    VLLM_INSTALLED = True
except ImportError:
    VLLM_INSTALLED = False


class FastModel:
    @classmethod
    def check_lib(cls):
        try:
            importlib.import_module("vllm")
        except ImportError as exc:
            return False, f"vllm missing: {exc}"
        return True

    @classmethod
    def match(cls, spec):
        return spec.device == "cuda"

    def load(self):
        from vllm import LLM
        from vllm.engine.arg_utils import AsyncEngineArgs
        self.args = AsyncEngineArgs(model=self.path)
        self.llm = LLM(model=self.path)
"""

HELPER = """from ..utils import check_dependency_available


class FastRerank:
    @classmethod
    def check_lib(cls):
        dep = check_dependency_available("vllm", "vLLM")
        if dep is not True:
            return dep
        return True

    def load(self):
        from vllm import LLM
        self.llm = LLM(model=self.path)
"""

# the same backend with no probe of its own: the registry offers it whatever is installed
UNPROBED = """class FastModel:
    def load(self):
        from vllm import LLM
        self.llm = LLM(model=self.path)
"""

# a probe, but the module needs the package at import anyway
IMPORTED_AT_TOP = """import importlib
from vllm import LLM


class FastModel:
    @staticmethod
    def check_lib():
        try:
            importlib.import_module("vllm")
        except ImportError:
            return False
        return True

    def load(self):
        self.llm = LLM(model=self.path)
"""


def _scan(tmp_path: Path, fast: str):
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/registry.py": REGISTRY, "pkg/backends/__init__.py": "",
                           "pkg/backends/fast.py": fast, "pkg/backends/plain.py": "class PlainModel:\n    pass\n"})
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_backend_class_probing_itself_is_optional(tmp_path):
    result = _scan(tmp_path, FAST)
    assert finding_lines(result, "NPU501", "fast.py") == []
    assert finding_lines(result, "NPU507", "fast.py") == []


def test_probe_through_a_helper_given_the_package(tmp_path):
    result = _scan(tmp_path, HELPER)
    assert finding_lines(result, "NPU501", "fast.py") == []
    assert finding_lines(result, "NPU507", "fast.py") == []


def test_backend_without_a_probe_stays(tmp_path):
    result = _scan(tmp_path, UNPROBED)
    assert finding_lines(result, "NPU501", "fast.py") == [3]


def test_module_importing_the_package_at_its_top_stays(tmp_path):
    result = _scan(tmp_path, IMPORTED_AT_TOP)
    assert finding_lines(result, "NPU501", "fast.py") == [2]
