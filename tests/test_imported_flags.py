"""Issue 24: an availability flag imported from another module of the repository is recognised by
reading that module (migrate/imported_flags.py), not by its name only. The fixture is a small
repository written here, shaped like trainers that keep their import probes in a utils module."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan

REPO = {
    # the flag is set by an import attempt, under a name that says nothing (not HAS_x / x_AVAILABLE)
    "pkg/utils.py": "try:\n    import flash_attn\n    flash_ok = True\nexcept ImportError:\n    flash_ok = False\n",
    "pkg/probe.py": "import importlib.util\n\nfused = importlib.util.find_spec('apex') is not None\n",
    "pkg/config.py": "use_flash = True\n",  # a setting, not an availability flag
    "pkg/attn.py": "import torch\nfrom .utils import flash_ok\n\nif flash_ok:\n    from flash_attn import flash_attn_func\n\n\n"
                   "def attention(q, k, v):\n    if flash_ok:\n        return flash_attn_func(q, k, v)\n"
                   "    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n",
    "pkg/optim.py": "from pkg import probe\n\nif probe.fused:\n    from apex.optimizers import FusedAdam\n",
    "pkg/forced.py": "from .config import use_flash\n\nif use_flash:\n    from flash_attn import flash_attn_func\n",
}


def _lines(result, code, name):
    return sorted(f.line for f in result.findings if f.code == code and f.path.endswith(name))


def test_a_flag_imported_from_a_module_that_sets_it_by_an_import_attempt_is_an_availability_guard(tmp_path: Path):
    for name, body in REPO.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    # the import under `if flash_ok:` and the call under it are an optional path: not reported
    assert _lines(result, "NPU501", "pkg/attn.py") == []
    assert _lines(result, "NPU507", "pkg/attn.py") == []
    # a find_spec flag read as a module attribute
    assert _lines(result, "NPU501", "pkg/optim.py") == []
    # a flag that is a plain setting in its module stays a required import
    assert _lines(result, "NPU501", "pkg/forced.py") == [4]
