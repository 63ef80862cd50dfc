"""Every smoke option means the same for one process and under --nproc-per-node (torchrun ranks).

The two launch paths once built their child configuration apart and drifted: `--autocast bf16` computed
autocast regions in float16 under torchrun (its configuration carried an older on/off switch), and
`--memory-limit` was ignored there. Both now build one checks.launch.child_config.ChildConfig from one
options object (migrate/commands/smoke.py); these tests run each such option both ways through the CLI.
The audit of the other options is in docs/distributed.md.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from checks.launch.child_config import ChildConfig
from tests.helpers import invoke_cli

CASES = Path(__file__).resolve().parent / "smoke_cases"
BOTH_WAYS = pytest.mark.parametrize("nproc", [None, 2], ids=["one-process", "two-ranks"])


def _smoke(*args: str, nproc: int | None) -> tuple[int, dict]:
    launch = ("--nproc-per-node", str(nproc)) if nproc else ()
    proc = invoke_cli("smoke", *args, "--backend", "emulated", "--no-op-trace", "-q", "--json", "-", *launch)
    return proc.returncode, json.loads(proc.stdout.decode())


def _runs(data: dict) -> list[dict]:
    """The single run, or each rank's."""
    return data["ranks"] if "ranks" in data else [data]


@pytest.mark.runtime
@BOTH_WAYS
def test_autocast_bf16_computes_in_bfloat16_both_ways(nproc):
    code, data = _smoke(str(CASES / "autocast_loss.py"), "--steps", "2", "--autocast", "bf16", nproc=nproc)
    assert code == 0, data["reasons"]
    runs = _runs(data)
    assert len(runs) == (nproc or 1)
    assert [r["loss_dtype"] for r in runs] == ["bfloat16"] * len(runs)
    assert [r["autocast"]["policy"] for r in runs] == ["bf16"] * len(runs)


@pytest.mark.runtime
@BOTH_WAYS
def test_memory_limit_stops_the_run_both_ways(nproc):
    started = time.monotonic()
    code, data = _smoke(str(CASES / "memory_hog.py"), "--steps", "2", "--memory-limit", "50M", "--timeout", "120",
                        nproc=nproc)
    assert time.monotonic() - started < 60  # killed over the cap, not at the timeout
    assert code == 1 and data["verdict"] == "fail" and not data["timed_out"]
    [reason] = [r for r in data["reasons"] if "memory limit exceeded" in r]
    assert "--memory-limit 50 MiB" in reason and "killed" in reason


def test_the_child_refuses_a_configuration_it_does_not_know():
    # the torchrun path once wrote an `emulate_autocast` switch the child read in place of `autocast`
    with pytest.raises(ValueError, match="emulate_autocast"):
        ChildConfig.from_json({"report": "r.json", "steps": 1, "backend": "emulated", "emulate_autocast": True})
    with pytest.raises(ValueError, match="autocast policy"):
        ChildConfig.from_json({"report": "r.json", "steps": 1, "backend": "emulated", "autocast": "fp8"})
    config = ChildConfig.build(report="r.json", steps=2, backend="emulated", kb_version="2.5.1", autocast="bf16")
    env = config.child_env({"PATH": "/bin"}, {"X": "1"})
    assert ChildConfig.from_env(env) == config and "NPU_MIGRATE_SMOKE" not in env
    assert env["CUDA_VISIBLE_DEVICES"] == "" and env["X"] == "1" and config.autoload
    # Hydra re-raises a failed task's exception (the report then names it), unless the user chose otherwise
    assert env["HYDRA_FULL_ERROR"] == "1"
    assert config.child_env({"HYDRA_FULL_ERROR": "0"})["HYDRA_FULL_ERROR"] == "0"
