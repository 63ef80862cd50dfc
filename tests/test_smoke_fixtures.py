"""Every fixture script, after `apply`, runs under `smoke --backend emulated --fake-data`.

The expected verdict is derived from what apply itself reports, never listed by hand:
- apply changed nothing (a CPU-only script) -> the run trains, but not on the NPU: fail "not on the NPU";
- apply left a manual item for an API missing from torch_npu (NPU103) on a line that the training runs
  -> fail with the script's own file and that line;
- otherwise -> pass (finite losses, parameters and loss on the emulated NPU).
"""
from __future__ import annotations

import os

import pytest

from checks.smoke.run import run_smoke

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures", "gpu_scripts")
pytestmark = [pytest.mark.runtime, pytest.mark.e2e]  # real scripts end to end


def _scripts():
    out = []
    for case in sorted(os.listdir(FIXTURES)):
        folder = os.path.join(FIXTURES, case)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py") or name == "setup.py":
                continue
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                if "__main__" in f.read():
                    out.append(f"{case}/{name}")
    return out


@pytest.fixture(scope="module")
def migrated_tree(tmp_path_factory):
    from migrate import rewrite as apply

    out = str(tmp_path_factory.mktemp("migrated"))
    result = apply.plan_tree(FIXTURES, apply.ApplyOptions(config_check=False))
    apply.write_tree(result, FIXTURES, out)
    by_path = {os.path.relpath(f.path, FIXTURES): f for f in result.files}
    return out, by_path


@pytest.mark.parametrize("rel", _scripts())
def test_fixture_after_apply_passes_smoke(rel, migrated_tree):
    out, rewrites = migrated_tree
    rewrite = rewrites[rel]
    script = os.path.join(out, rel)
    r = run_smoke(script, steps=2, backend="emulated", fake_data=True, timeout=240, cwd=os.path.dirname(script))
    detail = (r.reasons, r.stderr[-3000:])
    missing_api = [m for m in rewrite.manual if m.code == "NPU103"]
    if not rewrite.changed:
        assert r.verdict == "fail" and r.losses, detail
        assert any("not on the NPU" in x for x in r.reasons), detail
    elif missing_api and r.error_location:
        assert r.verdict == "fail", detail
        assert r.error_location.startswith(script + ":"), detail
        # manual items carry input line numbers (apply's added imports shift the output): compare code
        bad_line = int(r.error_location.rsplit(":", 1)[1])
        with open(script, encoding="utf-8") as f:
            failing_code = f.read().splitlines()[bad_line - 1].strip()
        original = rewrite.original.decode("utf-8").splitlines()
        assert failing_code in {original[m.line - 1].strip() for m in missing_api}, (failing_code, missing_api)
    else:
        assert (r.verdict, r.exit_code) == ("pass", 0), detail
        assert r.steps >= 1 and r.param_device and set(r.param_device) == {"npu"}, r.param_device
        assert r.loss_device == "npu"
        assert r.note == "emulated: no Ascend NPU found; computed on CPU"
