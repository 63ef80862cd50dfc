"""Issue 24: an availability flag imported from another module of the repository is recognised by
reading that module (migrate/imported_flags.py), not by its name only. The fixture is a small
repository written here, shaped like trainers that keep their import probes in a utils module."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

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


def test_a_flag_imported_from_a_module_that_sets_it_by_an_import_attempt_is_an_availability_guard(tmp_path: Path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    # the import under `if flash_ok:` and the call under it are an optional path: not reported
    assert finding_lines(result, "NPU501", "pkg/attn.py") == []
    assert finding_lines(result, "NPU507", "pkg/attn.py") == []
    # a find_spec flag read as a module attribute
    assert finding_lines(result, "NPU501", "pkg/optim.py") == []
    # a flag that is a plain setting in its module stays a required import
    assert finding_lines(result, "NPU501", "pkg/forced.py") == [4]


def test_a_warm_run_does_not_read_again_a_file_that_tests_none_of_the_flags_it_imports(tmp_path: Path, monkeypatch):
    # a file importing a flag it never tests (`print(flash_ok)`) is read after the scan only to find that out; the
    # answer is cached under its content and the flags, so a warm run reads only the files that do test one; a
    # damaged entry is read around; an edit that starts testing the flag is seen
    import json
    import os
    import time

    from migrate import engine

    repo, cache = tmp_path / "repo", tmp_path / "cache"
    files = dict(REPO, **{"pkg/plain.py": "from .utils import flash_ok\nimport flash_attn\nprint(flash_ok)\n"})
    old = time.time() - 60
    for name, body in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(body)
        os.utime(repo / name, (old, old))  # the stat shortcut of the cache applies
    reads = []
    real = engine._read_target
    monkeypatch.setattr(engine, "_read_target", lambda target, limit: reads.append(target.path.rsplit("/", 1)[-1]) or real(target, limit))

    def run():
        reads.clear()
        result = scan([str(repo)], cache_dir=cache, torch_npu_version="2.14.0")
        return finding_lines(result, "NPU501", "pkg/plain.py"), sorted(reads)

    # cold: every file read once by the scan itself
    assert run() == ([2], sorted(p.rsplit("/", 1)[-1] for p in files))
    assert run() == ([2], ["attn.py", "optim.py"])  # warm: those test a flag (read again); plain.py does not (not read)
    entries_file = next(p for p in cache.glob("analyze-*.json") if not p.name.endswith("-sites.json"))
    entries = json.loads(entries_file.read_text())
    damaged = {k: [v[0], "(?:"] if k.startswith("flags|") else v for k, v in entries.items()}
    assert damaged != entries
    entries_file.write_text(json.dumps(damaged))
    assert run() == ([2], ["attn.py", "optim.py", "plain.py"])  # damaged: read again, same findings
    (repo / "pkg/plain.py").write_text("from .utils import flash_ok\nif flash_ok:\n    import flash_attn\n")
    os.utime(repo / "pkg/plain.py", (old + 1, old + 1))
    assert run() == ([], ["attn.py", "optim.py", "plain.py"])  # now tests the flag (read by the scan, fresh): optional


def test_extension_ops_under_a_flag_imported_from_the_module_that_tries_the_extension_are_optional(tmp_path: Path):
    # label ruling (L102), note 62a (FlagGems: config.py tries `from flag_gems import c_operators` and sets
    # has_c_extension / use_c_extension; modules test `if use_c_extension: torch.ops.flag_gems.rms_norm(...)` with a
    # Triton else): the op calls under the imported flag are not reported (NPU508); a call outside it, under a plain
    # setting, or under a negated test stays
    write_files(tmp_path, {
        "csrc/ops.cpp": "#include <torch/library.h>\nTORCH_LIBRARY(gems, m) {\n  m.def(\"rms_norm(Tensor x) -> Tensor\");\n}\n"
                        "TORCH_LIBRARY_IMPL(gems, CUDA, m) {\n  m.impl(\"rms_norm\", &rms_norm_cuda);\n}\n",
        "gems/__init__.py": "",
        "gems/config.py": "has_ext = False\ntry:\n    from gems import c_ops\n    has_ext = True\nexcept ImportError:\n"
                          "    c_ops = None\n    has_ext = False\nforce = True\n",
        "gems/norm.py": "import torch\nfrom gems.config import has_ext\n\n\ndef rms(x):\n    if has_ext and x.is_cuda:\n"
                        "        return torch.ops.gems.rms_norm(x)\n    else:\n        return x / x.norm()\n",
        "gems/attr.py": "import torch\nimport gems.config as cfg\n\n\ndef rms(x):\n    if cfg.has_ext:\n"
                        "        return torch.ops.gems.rms_norm(x)\n    if not cfg.has_ext:\n"
                        "        return torch.ops.gems.rms_norm(x)\n    return x\n",
        "gems/forced.py": "import torch\nfrom gems.config import force\n\n\ndef rms(x):\n    if force:\n"
                          "        return torch.ops.gems.rms_norm(x)\n    return torch.ops.gems.rms_norm(x)\n",
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU508", "gems/norm.py") == []
    assert finding_lines(result, "NPU508", "gems/attr.py") == [9]
    assert finding_lines(result, "NPU508", "gems/forced.py") == [7, 8]
