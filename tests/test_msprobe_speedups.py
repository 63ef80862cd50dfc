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


def test_pack_files_are_appended_as_msprobe_appends_them(tmp_path):
    """The config_check pack's files (2 a forward): the zip kept open between calls gives msprobe's bytes, is a whole
    zip after every call, and reads the file again when another writer (a rank sharing the pack) appended to it
    or it was replaced."""
    import zipfile

    from msprobe.core.common import file_utils

    from checks.child.msprobe_speedups import zip_appender

    fast = zip_appender(file_utils)
    assert fast is not file_utils.create_file_in_zip
    ours, theirs = str(tmp_path / "ours.zip"), str(tmp_path / "theirs.zip")
    for i in range(40):
        content = '{"fc1.weight": {"max": %d.5, "min": -1.25}}' % i
        writer = file_utils.create_file_in_zip if i in (7, 8, 21) else fast  # another rank's writes between ours
        writer(ours, f"weights/step{i}/rank0/weight.json", content)
        file_utils.create_file_in_zip(theirs, f"weights/step{i}/rank0/weight.json", content)
        with zipfile.ZipFile(ours) as archive:
            assert len(archive.namelist()) == i + 1 and archive.testzip() is None
    assert Path(ours).read_bytes() == Path(theirs).read_bytes()
    Path(ours).unlink()  # replaced: a new pack from its first file
    fast(ours, "env", "A=1")
    file_utils.create_file_in_zip(str(tmp_path / "new.zip"), "env", "A=1")
    assert Path(ours).read_bytes() == (tmp_path / "new.zip").read_bytes()


def test_pack_files_central_records_are_made_once(tmp_path, monkeypatch):
    """The central directory written after every file keeps the records of the files before it: a file's record is
    made once (zipfile rebuilt them all every call: 2,000 files, 6.8 s), the bytes are msprobe's, ZIP64 records
    included (a file past 4 GiB: its offset in a ZIP64 extra)."""
    import zipfile

    from msprobe.core.common import file_utils

    from checks.child.msprobe_speedups import _CentralDirectory, zip_appender

    made = []
    encode = zipfile.ZipInfo._encodeFilenameFlags
    monkeypatch.setattr(zipfile.ZipInfo, "_encodeFilenameFlags", lambda self: made.append(self.filename) or encode(self))
    fast, path = zip_appender(file_utils), str(tmp_path / "pack.zip")
    for i in range(60):
        fast(path, f"dataset/step{i}/rank0/dataset.json", "{}")
    assert len(made) == 3 * 60  # its local header (written, then again with its sizes), its central record once
    monkeypatch.undo()
    theirs = str(tmp_path / "theirs.zip")
    for i in range(60):
        file_utils.create_file_in_zip(theirs, f"dataset/step{i}/rank0/dataset.json", "{}")
    assert Path(path).read_bytes() == Path(theirs).read_bytes()

    import io

    for offset in (12, zipfile.ZIP64_LIMIT + 12):  # the second file's local header past 4 GiB: a ZIP64 extra
        archive = zipfile.ZipFile(io.BytesIO(), "w")
        archive.writestr("a", "x")
        archive.writestr("b", "y")
        archive.filelist[1].header_offset = offset
        archive.start_dir, real = 0, archive.fp
        archive.fp = theirs_bytes = io.BytesIO()
        zipfile.ZipFile._write_end_record(archive)
        archive.fp = ours_bytes = io.BytesIO()
        directory, both = _CentralDirectory(zipfile), archive.filelist
        archive.filelist = both[:1]
        directory.write_end_record(archive)  # the first file's record kept...
        archive.filelist = both
        ours_bytes.seek(0)
        directory.write_end_record(archive)  # ...and the second's added after it
        assert ours_bytes.getvalue() == theirs_bytes.getvalue(), offset
        archive.fp = real


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


def test_pandas_is_deferred_until_msprobe_makes_a_table(tmp_path):
    """msprobe's file helpers and config_check modules import pandas at module level, for a comparison's tables
    only: with the speed-ups a recording imports them without pandas; the first use after imports pandas for
    real and re-points every such module's `pd` at it (isinstance checks against pd.DataFrame hold)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import checks.child.msprobe_speedups as m\n"
        "m.install()\n"
        "from msprobe.core.config_check import ConfigChecker\n"
        "from msprobe.core.common import file_utils\n"
        "from msprobe.core.config_check.checkers import weights_checker\n"
        "print('before', 'pandas' in sys.modules, 'torch' in sys.modules)\n"
        "import pandas\n"
        "df = pandas.DataFrame({'weight_name': ['w'], 'equal': [True]})\n"
        f"file_utils.save_excel({str(tmp_path / 'r.xlsx')!r}, [(df, 'weights')])\n"
        f"back = file_utils.read_xlsx({str(tmp_path / 'r.xlsx')!r}, sheet_name='weights')\n"
        "print('table', back.to_dict('list'))\n"
        "print('after', file_utils.pd is pandas, weights_checker.pd is pandas)\n"
    )
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "before False False", lines  # neither pandas nor torch imported by msprobe's modules
    assert lines[1] == "table {'weight_name': ['w'], 'equal': [True]}" and lines[2] == "after True True", lines


@pytest.mark.runtime
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_tensorflow_stub_and_monitor_load_at_first_use():
    """msprobe's __init__ imports tensorboard's TensorFlow stub (protobuf) and msprobe.pytorch its monitor (pytz,
    torch.utils.tensorboard), which a recording never uses: with the speed-ups neither runs at import; the stub is
    the same module registered as `tensorflow` (msprobe's placeholders kept once it runs), and TrainerMon is the
    monitor's own class when used."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import checks.child.msprobe_speedups as m\n"
        "m.install()\n"
        "import torch\n"
        "import msprobe.pytorch\n"
        "from msprobe.pytorch import PrecisionDebugger\n"
        "stub = sys.modules['tensorboard.compat.tensorflow_stub']\n"
        "print('before', 'google.protobuf' in sys.modules, 'pytz' in sys.modules, sys.modules['tensorflow'] is stub)\n"
        "import inspect\n"
        "print('module', inspect.ismodule(stub), stub.__name__, 'google.protobuf' in sys.modules)\n"
        "import tensorflow\n"
        "print('stub', tensorflow.Tensor.__name__, tensorflow.Variable.__name__, tensorflow.dtypes.float32.name,\n"
        "      'google.protobuf' in sys.modules)\n"
        "from msprobe.pytorch import TrainerMon\n"
        "from msprobe.pytorch.monitor.module_hook import TrainerMon as real\n"
        "print('monitor', TrainerMon is real, msprobe.pytorch.TrainerMon is real, 'pytz' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "before False False True", lines
    assert lines[1] == "module True tensorboard.compat.tensorflow_stub False", lines  # metadata read: not run
    assert lines[2] == "stub _PlaceholderTensor _PlaceholderVariable float32 True", lines
    assert lines[3] == "monitor True True True", lines


@pytest.mark.runtime
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_dump_statistics_take_max_and_min_from_one_pass_with_msprobes_values():
    """The statistics dump's get_stat_info, its module's torch given _PairedMinMax (one aminmax pass for the
    max and the min), gives the values and dtypes msprobe's own gives, NaN and integers included; a tensor
    written between its max and its min, or a min of another tensor, is torch's own min. A sparse tensor gets
    no statistics instead of raising (msprobe's own asks it for data_ptr(): tkipf/pygcn's adjacency)."""
    import subprocess
    import sys

    code = (
        "import math, types, torch\n"
        "import checks.child.msprobe_speedups as m\n"
        "m.install()\n"
        "from msprobe.core.dump.data_dump.data_processor import pytorch_processor as pp\n"
        "print('patched', type(pp.torch).__name__)\n"
        "proc = object.__new__(pp.StatisticsDataProcessor)\n"
        "proc.config = types.SimpleNamespace(summary_mode='statistics')\n"
        "proc.tensor_handler = pp.TensorHandler(proc.config)\n"
        "torch.manual_seed(0)\n"
        "cases = [torch.randn(64, 32), torch.tensor([1.0, math.nan, -2.0]), torch.randint(-9, 9, (50,)),\n"
        "         torch.randn(40).half(), torch.randn(40).bfloat16(), torch.randn(30).double(), torch.tensor(3.5),\n"
        "         torch.tensor([True, False]), torch.randn(8, 8).t()]\n"
        "def stats(t):\n"
        "    s = proc.get_stat_info(t)\n"
        "    return [(str(v.dtype), v.item()) if isinstance(v, torch.Tensor) else v for v in (s.max, s.min, s.mean, s.norm)]\n"
        "paired = [stats(t) for t in cases]\n"
        "pp.torch = torch\n"
        "own = [stats(t) for t in cases]\n"
        "print('same', repr(paired) == repr(own), len(own))\n"
        "p = m._PairedMinMax(torch)\n"
        "t, u = torch.tensor([1.0, 5.0]), torch.tensor([-3.0, 0.0])\n"
        "p.max(t); t[0] = -7.0\n"
        "written = p.min(t).item()\n"
        "p.max(t)\n"
        "other = p.min(u).item()\n"
        "print('fallback', written, other, p.max(torch.tensor([[1.0, 2.0]]), dim=1).values.tolist())\n"
        "adj = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))\n"
        "s = proc.get_stat_info(adj)\n"  # msprobe's own asks a sparse tensor for data_ptr() and raises
        "print('sparse', [s.max, s.min, s.mean, s.norm], stats(torch.tensor([2.0, -1.0])))\n"
    )
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("patched", "same", "fallback", "sparse"))]
    assert lines == ["patched _PairedMinMax", "same True 9", "fallback -7.0 -3.0 [2.0]",
                     "sparse [None, None, None, None] [('torch.float32', 2.0), ('torch.float32', -1.0), "
                     "('torch.float32', 0.5), ('torch.float32', 2.2360680103302)]"], proc.stdout[-3000:]


def test_triton_is_wrapped_when_imported_not_at_the_dumps_start(tmp_path, monkeypatch):
    """msprobe's dump start imports triton to wrap its kernels' launches (`patch_triton_jitfunction_run`); the
    speed-up runs that wrapping when triton is imported instead, right after its top level (its runtime classes
    loaded, as msprobe's wrapping imports them), and at once when triton is imported already. A fake triton package
    stands in for it (the real one may be imported in this process already)."""
    import sys

    from checks.child import msprobe_speedups

    name = "npu_migrate_fake_triton"
    package = tmp_path / name
    (package / "runtime").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import runtime\n")
    (package / "runtime" / "__init__.py").write_text("class JITFunction:\n    def run(self):\n        return 'run'\n")
    monkeypatch.setattr(msprobe_speedups, "TRITON", name)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the import hook the speed-up leaves goes with the test

    calls = []

    def patch_triton_jitfunction_run():  # msprobe's: it imports triton and wraps its classes' run
        triton = importlib.import_module(name)
        calls.append("runtime" in vars(triton))
        triton.runtime.JITFunction.run = lambda self: "wrapped"

    script_wrapper = SimpleNamespace(patch_triton_jitfunction_run=patch_triton_jitfunction_run)
    msprobe_speedups._patch_script_wrapper(script_wrapper)
    script_wrapper.patch_triton_jitfunction_run()  # what msprobe's wrap_script_func calls at the dump's start
    assert calls == [] and name not in sys.modules
    triton = importlib.import_module(name)  # the script (torch.compile) imports triton later
    try:
        assert calls == [True] and triton.runtime.JITFunction().run() == "wrapped"
        script_wrapper.patch_triton_jitfunction_run()  # a second start with triton imported: wrapped at once
        assert calls == [True, True]
    finally:
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]


@pytest.mark.runtime
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_pack_statistics_from_one_pass_are_msprobes(monkeypatch):
    """The pack's weights and dataset statistics (get_tensor_features, every parameter every forward) from one float
    copy and one aminmax pass: the same dict, key order and floats as msprobe's own, NaN, infinities, integers,
    half precision and float64 included; an empty tensor raises as msprobe's does; a schema-1 bundle's comparing run
    (the pack's statistics dumped as the script's Tensor.max/min calls) keeps msprobe's own function."""
    import json
    import math

    import torch
    from msprobe.core.config_check.checkers import dataset_checker, weights_checker

    from checks.child.msprobe_speedups import PACK_STATS_DUMPED, _patch_pack_features

    monkeypatch.delenv(PACK_STATS_DUMPED, raising=False)
    torch.manual_seed(0)
    cases = [torch.randn(300, 200), torch.tensor([1.0, math.nan, -2.0]), torch.tensor([math.inf, -math.inf, 0.5]),
             torch.randint(-9, 9, (50,)), torch.randn(40).half(), torch.randn(40).bfloat16(), torch.randn(30).double(),
             torch.tensor(3.5), torch.tensor([True, False]), torch.randn(8, 8).t(), torch.randn(70000) * 1e3]
    for checker in (weights_checker, dataset_checker):
        own = checker.get_tensor_features
        patched = SimpleNamespace(**vars(checker))
        _patch_pack_features(patched)
        assert patched.get_tensor_features is not own
        for tensor in cases:
            assert json.dumps(patched.get_tensor_features(tensor)) == json.dumps(own(tensor)), tensor
        with pytest.raises(RuntimeError):
            own(torch.tensor([]))
        with pytest.raises(RuntimeError):
            patched.get_tensor_features(torch.tensor([]))
    calls = []
    patched = SimpleNamespace(get_tensor_features=lambda t: calls.append(t) or "msprobe's", FmkAdp=weights_checker.FmkAdp)
    _patch_pack_features(patched)
    assert patched.get_tensor_features(cases[0]) != "msprobe's" and calls == []
    monkeypatch.setenv(PACK_STATS_DUMPED, "1")
    assert patched.get_tensor_features(cases[0]) == "msprobe's"


def test_api_names_listed_once_are_msprobes(tmp_path, monkeypatch):
    """ApiWrapper's names of the API list that the modules have (each module's dir() listed once a call): the same
    names as msprobe's own method, dotted names and the blacklist included; the module's `dir` is its own after."""
    import math
    import os

    from msprobe.core.dump.api_dump import api_registry

    from checks.child.msprobe_speedups import _patch_api_registry

    listed = tmp_path / "ops.yaml"
    listed.write_text("torch:\n  - sqrt\n  - path.join\n  - path.nothing\n  - floor\n  - nothing\n"
                      "tensor:\n  - getcwd\n  - sep\n", encoding="utf-8")
    api_types = {"pytorch": {"torch": ((math, os), (math,)), "tensor": ((os,), (os,))}}
    theirs = api_registry.ApiWrapper(api_types, str(listed), ["torch.floor"]).api_names
    monkeypatch.setattr(api_registry.ApiWrapper, "_get_api_names", api_registry.ApiWrapper._get_api_names)
    _patch_api_registry(api_registry)
    assert getattr(api_registry.ApiWrapper._get_api_names, "__npu_migrate__", False)
    assert api_registry.ApiWrapper(api_types, str(listed), ["torch.floor"]).api_names == theirs
    assert theirs == {"pytorch": {"torch": {"sqrt", "path.join"}, "tensor": {"getcwd", "sep"}}}
    assert "dir" not in vars(api_registry)


def test_yaml_read_again_is_an_equal_copy(tmp_path):
    yaml = pytest.importorskip("yaml")
    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("PyYAML without libyaml: msprobe's reader is kept")
    from msprobe.core.common import file_utils

    from checks.child.msprobe_speedups import _patch_file_utils

    patched = SimpleNamespace(**vars(file_utils))
    _patch_file_utils(patched)
    path = tmp_path / "ops.yaml"
    path.write_text("torch:\n  - sqrt\n", encoding="utf-8")
    first = patched.load_yaml(str(path))
    first["torch"].append("changed by its caller")
    assert patched.load_yaml(str(path)) == {"torch": ["sqrt"]}
    path.write_text("torch:\n  - sqrt\n  - floor\n", encoding="utf-8")  # changed on disk: read again
    assert patched.load_yaml(str(path)) == {"torch": ["sqrt", "floor"]}


def test_what_msprobes_start_makes_goes_to_the_oldest_generation(monkeypatch):
    """The dump's start (checks/validate/child.py, before the script's first line) runs with the cyclic collector
    off, and what it made moves straight to the oldest generation when the collector is back on: counted as new
    there, it triggered a full collection a few dozen steps into the run (350k objects walked, 0.16-0.3 s of the
    MLP recording's CPU at 100 steps; none in the smoke). Here msprobe's debugger is a stand-in that makes objects."""
    import gc
    import runpy
    import sys
    import types

    for name in ("NPU_VALIDATE_DUMP_CONFIG", "NPU_VALIDATE_CONFIG_COMPARE", "NPU_MIGRATE_PRECISION_FLAGS",
                 "NPU_MIGRATE_NO_DROPOUT", "NPU_MIGRATE_STRICT_FP32"):
        monkeypatch.delenv(name, raising=False)
    from checks.validate import child

    start = runpy.run_path(child.__file__)["_import_msprobe_as_on_cpu"]
    made: list = []

    class Debugger:  # msprobe.pytorch.PrecisionDebugger: its start makes objects that stay alive
        def __init__(self, config_path):
            self.collecting = gc.isenabled()
            made.extend([config_path] for _ in range(2000))

    msprobe = types.ModuleType("msprobe")
    msprobe.pytorch = types.ModuleType("msprobe.pytorch")
    msprobe.pytorch.PrecisionDebugger = Debugger
    monkeypatch.setitem(sys.modules, "msprobe", msprobe)
    monkeypatch.setitem(sys.modules, "msprobe.pytorch", msprobe.pytorch)
    monkeypatch.setitem(start.__globals__, "_compat", lambda: types.SimpleNamespace(import_msprobe_dump_modules=lambda: None))
    collecting = gc.isenabled()
    gc.enable()
    try:
        debugger = start("dump_config.json")
        young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation=generation)}
        oldest = {id(o) for o in gc.get_objects(generation=2)}
        assert gc.isenabled()  # back on
    finally:
        if not collecting:
            gc.disable()
    assert not debugger.collecting  # made with the collector off
    assert not any(id(o) in young for o in made)
    assert all(id(o) in oldest for o in (debugger, *made))
