"""A GPU-only package's class handed in a list to a repository helper that only type-checks it is no use
(migrate/type_lists.py, label ruling (L35)). The fixture is a small repository written here, shaped like a calibration
tool's vLLM hooks: a sibling module's `_find_layers` matches layers by type, the hooks hand it vLLM's layer classes."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

COMMON = """import torch


def _find_layers(module, layers=None, name=""):
    from vllm.model_executor.layers.linear import LinearBase

    if not layers:
        layers = [torch.nn.Linear, LinearBase]
    if isinstance(module, tuple(layers)):
        return {name: module}
    res = {}
    for name1, child in module.named_children():
        res.update(_find_layers(child, layers=layers, name=name + "." + name1))
    return res


class Observer:
    def _find_layers(self, module, layers=None, name=""):
        if not layers:
            layers = self.classes
        if type(module) in layers:
            return {name: module}
        return {}
"""

HOOKS = """from vllm.attention.layer import Attention
from vllm.model_executor.layers.fused_moe.layer import FusedMoE

from ._common import _find_layers


def setup_hooks(model):
    kv_layers = _find_layers(model, layers=[Attention])
    moe_layers = _find_layers(model, layers=[FusedMoE])
    return kv_layers, moe_layers
"""

# a helper that builds what it is handed: the classes in its list are constructed, each a use
BUILD = """from vllm.attention.layer import Attention

from .builders import build_all


def make():
    return build_all(layers=[Attention])
"""

BUILDERS = """def build_all(layers=None):
    return [cls() for cls in layers]
"""


def test_classes_a_helper_only_type_checks_are_no_uses(tmp_path: Path):
    write_files(tmp_path, {"calib/__init__.py": "", "calib/_common.py": COMMON, "calib/hooks.py": HOOKS})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU507", "calib/hooks.py") == []
    assert finding_lines(result, "NPU507", "calib/_common.py") == []
    assert finding_lines(result, "NPU501", "calib/hooks.py") == [1, 2]  # the imports stay


def test_a_helper_that_builds_the_classes_keeps_them(tmp_path: Path):
    write_files(tmp_path, {"calib/__init__.py": "", "calib/builders.py": BUILDERS, "calib/build.py": BUILD})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU507", "calib/build.py") == [7]
