"""The speed-ups of msprobe inside the smoke child (checks/child/msprobe_speedups.py) give what msprobe's own
functions give: every YAML file msprobe ships, read by the libyaml reader, and the pip item of the pack.
No torch: msprobe's config_check modules import without it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("msprobe") is None, reason="needs msprobe")


def test_yaml_reader_gives_what_msprobe_reads():
    yaml = pytest.importorskip("yaml")
    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("PyYAML without libyaml: msprobe's reader is kept")
    from msprobe.core.common import file_utils

    from checks.child.msprobe_speedups import _patch_file_utils

    original = file_utils.load_yaml
    patched = SimpleNamespace(**vars(file_utils))  # the module's names, patched apart from the module itself
    _patch_file_utils(patched)
    assert patched.load_yaml is not original
    files = sorted(Path(file_utils.__file__).resolve().parents[2].rglob("*.yaml"))
    assert len(files) >= 5, files  # the API lists of the dump, the risk levels, the config check resources
    for path in files:
        assert patched.load_yaml(str(path)) == original(str(path)), path


def test_pip_item_gives_what_msprobe_collects():
    from msprobe.core.config_check.checkers import pip_checker

    from checks.child.msprobe_speedups import fast_collect_pip_data

    if pip_checker.collect_pip_data is fast_collect_pip_data:
        pytest.skip("patched in this process")
    expected = pip_checker.collect_pip_data()
    assert expected.count("\n") > 10 and "\npytest=" in expected
    assert fast_collect_pip_data() == expected


def test_matplotlib_is_deferred_until_msprobe_draws():
    """msprobe's megatron_utils imports pyplot at module level for a chart never drawn in a run: with the
    speed-ups it imports without matplotlib, and its names still work when used (then imported for real)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import checks.child.msprobe_speedups as m\n"
        "m.install()\n"
        "import msprobe.core.common.megatron_utils as mu\n"
        "print('before', 'matplotlib' in sys.modules, 'torch' in sys.modules)\n"
        "print('cmap', mu.plt.get_cmap('viridis').name, 'width', mu.Rectangle((0, 0), 2, 1).get_width())\n"
        "import matplotlib.pyplot as plt\n"
        "print('after', type(plt).__name__, plt is sys.modules['matplotlib.pyplot'])\n"
    )
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "before False False", lines  # neither matplotlib nor torch imported
    assert lines[1] == "cmap viridis width 2" and lines[2] == "after module True", lines
