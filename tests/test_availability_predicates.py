"""A function answering from an availability flag is an availability check (migrate/availability_predicates.py). The
fixture is a small repository written here, shaped like ComfyUI-style model management modules (a flag set by an
import attempt with a bare `except:`, asked through functions by other modules)."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

MANAGEMENT = """import torch

XFORMERS_ENABLED_VAE = True
try:
    import xformers
    XFORMERS_IS_AVAILABLE = True
except:
    XFORMERS_IS_AVAILABLE = False

cpu_state = "gpu"


def xformers_enabled():
    if cpu_state != "gpu":
        return False
    return XFORMERS_IS_AVAILABLE


def xformers_enabled_vae():
    enabled = xformers_enabled()
    if not enabled:
        return False
    return XFORMERS_ENABLED_VAE


def wants_xformers(force):
    if force:
        return True
    return XFORMERS_IS_AVAILABLE


if xformers_enabled():
    import xformers.ops
"""

REPO = {
    "app/__init__.py": "",
    "app/modules/__init__.py": "",
    "app/modules/management.py": MANAGEMENT,
    "app/ldm/__init__.py": "",
    "app/ldm/attention.py": "from app.modules import management\n\nif management.xformers_enabled():\n    import xformers\n"
                            "    import xformers.ops\n\n\ndef attention(q, k, v):\n"
                            "    return xformers.ops.memory_efficient_attention(q, k, v)\n\n\n"
                            "if management.xformers_enabled():\n    optimized_attention = attention\n",
    "app/ldm/vae.py": "from app.modules import management\n\nif management.xformers_enabled_vae():\n    import xformers.ops\n",
    "app/ldm/named.py": "from app.modules.management import xformers_enabled\n\nif xformers_enabled():\n    import xformers.ops\n",
    # answers True without the package (`if force: return True`): no availability check
    "app/ldm/forced.py": "from app.modules.management import wants_xformers\n\nif wants_xformers(True):\n    import xformers.ops\n",
}


def test_a_function_answering_from_an_import_attempt_flag_guards_like_the_flag(tmp_path: Path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "app/modules/management.py") == []  # the predicate of its own module
    assert finding_lines(result, "NPU501", "app/ldm/attention.py") == []  # through the module, its uses too
    assert finding_lines(result, "NPU507", "app/ldm/attention.py") == []
    assert finding_lines(result, "NPU501", "app/ldm/vae.py") == []  # a predicate asking another predicate first
    assert finding_lines(result, "NPU501", "app/ldm/named.py") == []  # imported by name
    assert finding_lines(result, "NPU501", "app/ldm/forced.py") == [4]


def testown_returns_reads_every_statement_list_and_skips_nested_scopes():
    # own_returns walks statement lists only: the returns of if/for/while/with/try (handlers, else, finally) and
    # match cases, in the order of a walk of every node, none of a nested def, class or lambda
    import ast

    from migrate.availability_predicates import own_returns

    source = """
def f(x):
    if x:
        return 1
    elif x > 1:
        return 2
    else:
        for i in x:
            return 3
        else:
            return 4
    while x:
        return 5
    with x:
        return 6
    try:
        return 7
    except E:
        return 8
    else:
        return 9
    finally:
        return 10
    match x:
        case 1:
            return 11
    def g():
        return 12
    class C:
        def h(self):
            return 13
    y = lambda: 14
    return 15
"""
    function = ast.parse(source).body[0]
    assert [r.value.value for r in own_returns(function)] == [15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]


def test_a_function_returning_a_find_spec_probe_is_a_predicate(tmp_path: Path):
    # set 62 (FlagGems modules_tests/module_test_util.py): `def has_vllm() -> bool: return
    # importlib.util.find_spec("vllm") is not None`, asked by the tests (`if has_vllm(): from vllm... import SiluAndMul`)
    write_files(tmp_path, {
        "mt/__init__.py": "",
        "mt/util.py": "import importlib\n\n\ndef has_vllm() -> bool:\n    return importlib.util.find_spec(\"vllm\") is not None\n\n\n"
                      "def lacks_vllm() -> bool:\n    return importlib.util.find_spec(\"vllm\") is None\n",
        "mt/test_act.py": "from .util import has_vllm, lacks_vllm\n\n\ndef test_act(x):\n    if has_vllm():\n"
                          "        from vllm.model_executor.layers.activation import SiluAndMul\n\n        return SiluAndMul()(x)\n"
                          "    if lacks_vllm():\n        from vllm.model_executor.layers.layernorm import RMSNorm\n"
                          "        return RMSNorm(4)(x)\n",
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "mt/test_act.py") == [10]
