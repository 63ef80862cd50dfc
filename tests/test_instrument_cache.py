"""checks/validate/instrument_cache.py: a script instrumented before by the same code gets its ConfigChecker hooks
from the cache, without libcst, and the same text `migrate.rewrite.instrument_source` writes for its pack path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from migrate.rewrite import instrument_source
from tests.helpers import ROOT

SCRIPT = ROOT / "fixtures" / "gpu_scripts" / "cnn_cifar" / "train.py"

PROBE = """
import json, sys
from pathlib import Path
from checks.validate.instrument_cache import instrumented
text, found, message = instrumented(Path(sys.argv[1]).read_text(encoding="utf-8"), sys.argv[2])
print(json.dumps({"text": text, "found": found, "message": message, "libcst": "libcst" in sys.modules}))
"""


def _probe(script, zip_path, cache):
    env = dict(os.environ, NPU_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", PROBE, str(script), zip_path], env=env, capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_second_process_gets_the_hooks_without_libcst_and_its_own_pack_path(tmp_path):
    cache = tmp_path / "cache"
    first = _probe(SCRIPT, "/runs/a/config_check_pack.zip", cache)
    second = _probe(SCRIPT, "/runs/b/config_check_pack.zip", cache)
    assert first["libcst"] and not second["libcst"]
    source = SCRIPT.read_text(encoding="utf-8")
    for got, zip_path in ((first, "/runs/a/config_check_pack.zip"), (second, "/runs/b/config_check_pack.zip")):
        direct = instrument_source(source, zip_path=zip_path)
        assert got["text"] == direct.text and got["found"] == bool(direct.model_found)
        assert json.dumps(zip_path) in got["text"]
    assert second["text"] != source and "ConfigChecker" in second["text"]


def test_a_changed_script_is_instrumented_again(tmp_path):
    cache = tmp_path / "cache"
    _probe(SCRIPT, "/p.zip", cache)
    changed = tmp_path / "train.py"
    changed.write_text(SCRIPT.read_text(encoding="utf-8").replace("lr=", "lr=0.5 * "), encoding="utf-8")
    got = _probe(changed, "/p.zip", cache)
    assert got["libcst"] and "lr=0.5 * " in got["text"]
    assert got["text"] == instrument_source(changed.read_text(encoding="utf-8"), zip_path="/p.zip").text
    assert len(list((cache / "instrumented").glob("*.json"))) == 2


def test_a_damaged_entry_is_a_miss_and_is_written_again(tmp_path):
    cache = tmp_path / "cache"
    _probe(SCRIPT, "/p.zip", cache)
    (entry,) = (cache / "instrumented").glob("*.json")
    entry.write_text('{"text": 3}', encoding="utf-8")
    got = _probe(SCRIPT, "/p.zip", cache)
    assert got["libcst"] and got["text"] == instrument_source(SCRIPT.read_text(encoding="utf-8"), zip_path="/p.zip").text
    assert _probe(SCRIPT, "/p.zip", cache)["libcst"] is False  # written again, whole


def test_a_script_holding_the_placeholder_is_never_stored(tmp_path):
    from checks.validate.instrument_cache import PLACEHOLDER

    script = tmp_path / "train.py"
    script.write_text(SCRIPT.read_text(encoding="utf-8") + f"\nNOTE = {PLACEHOLDER!r}\n", encoding="utf-8")
    got = _probe(script, "/p.zip", tmp_path / "cache")
    assert PLACEHOLDER in got["text"] and json.dumps("/p.zip") in got["text"]
    assert not list((tmp_path / "cache").rglob("*.json"))
