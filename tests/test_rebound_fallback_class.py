"""A module's own class or function rebound to a GPU-only package's callable inside a try whose import may fail
(migrate/callable_aliases.py: the `def`/`class` is another binding of the name, so the name is no alias and its
calls are not NPU507 lines). Snippet written here in the shape of a vision model that swaps its own RMSNorm for a
fused one when the package imports."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

MODEL = (
    "import torch\n"                                                                         # 1
    "class RMSNorm(torch.nn.Module):\n"                                                      # 2
    "    def __init__(self, dim, eps=1e-6):\n"                                               # 3
    "        super().__init__()\n"                                                           # 4
    "        self.weight = torch.nn.Parameter(torch.ones(dim))\n"                            # 5
    "try:\n"                                                                                 # 6
    "    from apex.normalization import FusedRMSNorm\n"                                      # 7
    "    RMSNorm = FusedRMSNorm  # noqa\n"                                                   # 8
    "except ImportError:\n"                                                                  # 9
    "    pass\n"                                                                             # 10
    "class Block(torch.nn.Module):\n"                                                        # 11
    "    def __init__(self, dim):\n"                                                         # 12
    "        super().__init__()\n"                                                           # 13
    "        self.norm1 = RMSNorm(dim, eps=1e-6)\n"                                          # 14
    "        self.norm2 = RMSNorm(dim)\n"                                                    # 15
)


def test_calls_of_a_class_rebound_to_the_package_in_a_try_are_not_lines(tmp_path):
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": MODEL})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    lines = finding_lines(result, "NPU507", "model.py")
    assert 14 not in lines and 15 not in lines


def test_a_name_bound_only_to_the_package_stays_an_alias(tmp_path):
    source = MODEL.replace("class RMSNorm(torch.nn.Module):\n", "class _Unused(torch.nn.Module):\n")
    source = source.replace("except ImportError:\n    pass\n", "except ImportError:\n    raise\n")
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": source})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert {14, 15} <= set(finding_lines(result, "NPU507", "model.py"))
