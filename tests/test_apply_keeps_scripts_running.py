"""apply may never turn a running script into a crashing one (issue 10, item 5).

Every fixture script runs before apply (the original, on the plain CPU with CUDA hidden) and after a
default apply (ConfigChecker hooks included, on the emulated NPU), both with `--fake-data`. When the
original runs without an exception, the migrated script must too; the only accepted exception is a
torch_npu API that apply itself reported as missing (a manual NPU103 item). Where apply added the
ConfigChecker hook, the run must have written the rank-0 pack.
"""
from __future__ import annotations

import os

import pytest

from checks.smoke.run import run_smoke
from tests.test_smoke_fixtures import FIXTURES, _scripts

pytestmark = [pytest.mark.runtime, pytest.mark.slow]


@pytest.fixture(scope="module")
def default_apply(tmp_path_factory):
    from migrate import rewrite as apply

    out = str(tmp_path_factory.mktemp("migrated_default"))
    result = apply.plan_tree(FIXTURES, apply.ApplyOptions())
    apply.write_tree(result, FIXTURES, out)
    return out, {os.path.relpath(f.path, FIXTURES): f for f in result.files}


def _crashed(r) -> bool:
    return r.traceback is not None or any("without a report" in x or "died" in x for x in r.reasons)


@pytest.mark.parametrize("rel", _scripts())
def test_apply_never_turns_a_running_script_into_a_crashing_one(rel, default_apply):
    out, rewrites = default_apply
    original = os.path.join(FIXTURES, rel)
    before = run_smoke(original, steps=2, backend="cpu", fake_data=True, timeout=240, cwd=os.path.dirname(original))
    if _crashed(before):
        pytest.skip(f"the original does not run on this host: {before.reasons}")
    migrated = os.path.join(out, rel)
    after = run_smoke(migrated, steps=2, backend="emulated", fake_data=True, timeout=240, cwd=os.path.dirname(migrated))
    rewrite = rewrites[rel]
    if _crashed(after):
        assert any(m.code == "NPU103" for m in rewrite.manual), (after.reasons, after.stderr[-3000:])
        return
    hooked = any("ConfigChecker hooks" in a for a in rewrite.structural)
    if hooked and after.steps:
        assert os.path.isfile(os.path.join(os.path.dirname(migrated), "npu_config_check", "npu_config_pack_rank0.zip"))
