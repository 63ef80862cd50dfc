"""A project function that gives a mode back only after checking its package, falling back to another mode otherwise,
makes the caller's branches on the returned mode availability checks (migrate/availability_predicates.py
`fallback_selectors`, label ruling (L42)). Shaped after Tencent-Hunyuan/HunyuanVideo-1.5 hyvideo/commons/__init__.py
`maybe_fallback_attn_mode(attn_mode)` and its callers in modules/attention.py."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

COMMONS = """def is_flash2_available():
    try:
        from flash_attn import flash_attn_varlen_qkvpacked_func  # noqa: F401
        return True
    except Exception:
        return False


def maybe_fallback_attn_mode(attn_mode):
    if attn_mode == "sageattn":
        try:
            from sageattention import sageattn  # noqa: F401
        except Exception:
            attn_mode = "flash"
    if attn_mode == "flash":
        if is_flash2_available():
            attn_mode = "flash2"
        else:
            attn_mode = "torch"
    elif attn_mode == "flash2":
        if not is_flash2_available():
            attn_mode = "torch"
    return attn_mode


def keep_mode(attn_mode):
    return attn_mode
"""

CALLER = """import torch.nn.functional as F

from pkg.commons import {selector}


def attention(q, k, v, attn_mode="flash"):
    attn_mode = {selector}(attn_mode)
    if attn_mode == "sageattn":
        from sageattention import sageattn
        return sageattn(q, k, v)
    elif attn_mode == "torch":
        return F.scaled_dot_product_attention(q, k, v)
    else:
        from flash_attn import flash_attn_func
        return flash_attn_func(q, k, v)
"""

SAME_MODULE = COMMONS + CALLER.split("\n\n\n", 1)[1].format(selector="maybe_fallback_attn_mode")


def _scan(tmp_path: Path, files: dict[str, str]):
    write_files(tmp_path, files)
    return scan([tmp_path], jobs=1, use_cache=False)


def test_branches_on_a_mode_given_back_by_a_fallback_selector_of_another_module_are_checked(tmp_path: Path):
    result = _scan(tmp_path, {"pkg/__init__.py": "", "pkg/commons.py": COMMONS,
                              "pkg/attention.py": CALLER.format(selector="maybe_fallback_attn_mode")})
    assert finding_lines(result, "NPU501", "attention.py") == []
    assert finding_lines(result, "NPU507", "attention.py") == []


def test_branches_on_a_mode_given_back_by_a_fallback_selector_of_the_same_module_are_checked(tmp_path: Path):
    result = _scan(tmp_path, {"pkg/__init__.py": "", "pkg/same.py": SAME_MODULE})
    assert [line for line in finding_lines(result, "NPU501", "same.py") if line > 30] == []
    assert [line for line in finding_lines(result, "NPU507", "same.py") if line > 30] == []


def test_a_function_giving_the_mode_back_unchecked_is_no_selector(tmp_path: Path):
    result = _scan(tmp_path, {"pkg/__init__.py": "", "pkg/commons.py": COMMONS,
                              "pkg/attention.py": CALLER.format(selector="keep_mode")})
    assert finding_lines(result, "NPU501", "attention.py") == [9, 14]
    assert finding_lines(result, "NPU507", "attention.py") == [10, 15]
