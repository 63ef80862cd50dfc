import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "gpu_scripts"
sys.path.insert(0, str(ROOT))


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers
def pytest_collection_modifyitems(config, items):
    """Every test in exactly one lane (pyproject.toml): e2e (marked so, or slow), else runtime, else static."""
    for item in items:
        if item.get_closest_marker("slow") is not None and item.get_closest_marker("e2e") is None:
            item.add_marker(pytest.mark.e2e)
        if item.get_closest_marker("e2e") is None and item.get_closest_marker("runtime") is None:
            item.add_marker(pytest.mark.static)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite the golden files under fixtures/ from the current output instead of comparing.")


@pytest.fixture
def update_golden(request) -> bool:
    return bool(request.config.getoption("--update-golden") or os.environ.get("NPU_MIGRATE_UPDATE_GOLDEN"))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    # every test gets its own analyze cache so results never leak between tests
    monkeypatch.setenv("NPU_MIGRATE_CACHE_DIR", str(tmp_path / "npu-migrate-cache"))


# Runtime tests start their smoke children warm (checks/launch/warmstart.py: forked from a process that has
# imported torch), unless NPU_MIGRATE_WARM_START=0 is set for the run; tests/test_warmstart.py compares
# the default cold start with it. A CLI that a runtime test starts as a subprocess is not warm itself,
# but finds this worker's template in NPU_MIGRATE_WARM_ADDR and hands its smoke children to it
# (checks/launch/warm_client.py); a child whose environment differs from the template's starts cold.
import checks.launch.warmstart  # noqa: E402  (torch-free)
from checks.launch import warm_wire  # noqa: E402
from tests.helpers import worker_template_address  # noqa: E402

checks.launch.warmstart.DEFAULT = True


@pytest.fixture(autouse=True)
def _warm_subprocess_runs(request, monkeypatch):
    if request.node.get_closest_marker("runtime") is None or not checks.launch.warmstart.enabled():
        return
    monkeypatch.setenv(warm_wire.ADDRESS_ENV, worker_template_address())
