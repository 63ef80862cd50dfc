"""msprobe's ConfigChecker at training speed (inside the smoke child only).

`ConfigChecker.apply_patches()` wraps the random functions (`torch.rand`, `random.random`,
`np.random.rand`, ...) to record each call's stack, and builds every frame with
`inspect.getframeinfo`, which looks the frame's module up by scanning all of `sys.modules` (torch
has thousands): milliseconds per frame, per random call. A script that draws random numbers in a
loop (pytorch/examples' DDP tutorial builds its dataset from 4096 `torch.rand` calls) then spends
minutes before its first step in both validate runs. `fast_call_stack` returns the same strings
(`File <abspath>, line N, in <function>, <code line>`, outermost first) from the frame objects and
`linecache`, and replaces msprobe's helper as soon as its module is imported.

Two more costs of a validate run or a `npu-migrate baseline` recording, measured with cProfile on a
recording (loader_gpu.py, ConfigChecker + the statistics dump of 2 steps): msprobe reads its YAML
files (the API lists of the dump, its risk levels, the config checks; 21 reads) with PyYAML's
pure-Python `safe_load`: `load_yaml` parses them with libyaml's `CSafeLoader` when PyYAML has it (the
same safe constructors, the same data). And the `pip` item of ConfigChecker's pack parses the whole
METADATA of every installed distribution (email parser) for two header fields: `collect_pip_data`
reads `Name` and `Version` from the header lines only, the same `name=version` lines.
Last, `msprobe.core` imports its Megatron helpers (`megatron_utils`), which import matplotlib's pyplot
at module level for a parallelism chart nobody draws here (about a second of every instrumented run),
and the dump imports its monitor's heatmap `visualizer`, which does the same: those modules are
executed with matplotlib deferred (`_Deferred`), imported for real only when one of their functions
uses it. A script that imports matplotlib itself gets the real package, as before.
pandas likewise: msprobe's file helpers and every config_check module import it at module level, for the
DataFrames of a comparison only; a recording (the pack, the dump) never uses it, so those modules run with
pandas deferred (about half a second of a run). After their import, the first use of the deferred name
imports pandas for real and re-points their global at it, so `isinstance(x, pd.DataFrame)` sees pandas itself.
Two more imports a recording never uses (`WRAPPED`): msprobe's `__init__` imports tensorboard's TensorFlow stub
(protobuf, absl) to register it as `tensorflow` for its monitor's TensorBoard writer: the stub is the same module,
loaded lazily (`_exec_with_lazy_stub`); and `msprobe.pytorch` imports its monitor (`TrainerMon`: pytz,
torch.utils.tensorboard): the name is the real class, imported at its first use (`_exec_with_lazy_attrs`).

The pack's files (`create_file_in_zip`, 2 a forward) are appended to a zip kept open between calls (`zip_appender`):
msprobe opens it in append mode for each, reading its whole central directory again (quadratic in the steps); the
same bytes, a whole zip after every call, read again when another writer changed it.

And the statistics dump (`npu-migrate baseline --dump-steps`, validate's API dump) takes the max and
then the min of every tensor every API reads or writes (`PytorchDataProcessor.get_stat_info`: two
passes over the data): its module's `torch` is given `_PairedMinMax`, which answers `torch.max(t)` and
the `torch.min(t)` of the same, unchanged tensor right after it from one `torch.aminmax(t)` pass, the
same values (NaN included) and dtypes; every other use goes to torch itself. A tensor without strided storage
(sparse) gets no statistics there instead of raising (`_strided_only`).
"""
from __future__ import annotations

import copy
import linecache
import os
import sys
import weakref

from checks.emulation.compat import MSPROBE_API_REGISTRY, MSPROBE_SCRIPT_WRAPPER, MSPROBE_STAT_PROCESSOR

RANDOM_CHECKER = "msprobe.core.config_check.checkers.random_checker"
FILE_UTILS = "msprobe.core.common.file_utils"
PIP_CHECKER = "msprobe.core.config_check.checkers.pip_checker"
MEGATRON_UTILS = "msprobe.core.common.megatron_utils"
VISUALIZER = "msprobe.pytorch.monitor.visualizer"  # imported with the dump (its monitor's heatmaps)
MATPLOTLIB = ("matplotlib", "matplotlib.pyplot", "matplotlib.patches")  # what they import at module level
CONFIG_CHECK = "msprobe.core.config_check"
# the modules of a recording that import pandas at module level (msprobe.core's __init__ imports single_comparator,
# msprobe.pytorch's its monitor's module_hook): found with a finder that prints who imports pandas
PANDAS_IN = (FILE_UTILS, "msprobe.core.single_save.single_comparator", f"{CONFIG_CHECK}.config_checker",
             *(f"{CONFIG_CHECK}.checkers.{name}" for name in ("dataset_checker", "env_args_checker", "hyperparameter_checker",
                                                              "pip_checker", "random_checker", "weights_checker")),
             "msprobe.pytorch.monitor.module_hook")
# the modules run with names deferred, and those names
DEFER = {MEGATRON_UTILS: MATPLOTLIB, VISUALIZER: MATPLOTLIB, **{name: ("pandas",) for name in PANDAS_IN}}
DEFERRED = (*MATPLOTLIB, "pandas")
_importing = [0]  # deferred modules running their top level now (their module-level uses stay deferred)
STAT_PROCESSOR = MSPROBE_STAT_PROCESSOR  # get_stat_info's module (a private msprobe name: compat holds it)


def fast_call_stack(frame) -> list[str]:
    stack = []
    current = frame.f_back  # skip the wrapper's own frame, as msprobe does
    while current is not None:
        code = current.f_code
        filename = os.path.abspath(code.co_filename)
        line = linecache.getline(code.co_filename, current.f_lineno, current.f_globals).strip()
        stack.append(f"File {filename}, line {current.f_lineno}, in {code.co_name}, {line}")
        current = current.f_back
    return stack[::-1]


def distribution_versions() -> list[tuple[str, str]]:
    """(Name, Version) of every installed distribution with metadata, in `importlib.metadata`'s order,
    read from the header of its METADATA (PKG-INFO) file: what `dist.metadata.get("Name")` and
    `dist.version` give, without parsing each whole file."""
    from importlib import metadata

    out = []
    for dist in metadata.distributions():
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        fields = {}
        for line in text.splitlines():
            if not line.strip():
                break  # the end of the header: the description follows
            key, sep, value = line.partition(":")
            if sep and key in ("Name", "Version") and key not in fields:
                fields[key] = value.strip()
        if fields:
            out.append((fields.get("Name"), fields.get("Version")))
    return out


def fast_collect_pip_data() -> str:
    """msprobe's pip_checker.collect_pip_data, the same `Name=Version` lines (distribution_versions)."""
    return "".join(f"{name}={version}\n" for name, version in distribution_versions())


def _patch(module) -> None:
    if hasattr(module, "get_call_stack"):
        module.get_call_stack = fast_call_stack


def _patch_file_utils(module) -> None:
    current = getattr(module, "create_file_in_zip", None)
    if callable(current) and not getattr(current, "__npu_migrate__", False):
        module.create_file_in_zip = zip_appender(module)
    import yaml

    loader = getattr(yaml, "CSafeLoader", None)
    original = getattr(module, "load_yaml", None)
    if loader is None or original is None or getattr(original, "__npu_migrate__", False):
        return

    parsed: dict = {}  # (path, mtime, size) -> the data: a file read again is a copy of its first parse

    def load_yaml(yaml_path):
        # msprobe's own checks of the path, then libyaml's parser instead of the pure-Python one
        checked = module.FileChecker(yaml_path, module.FileCheckConst.FILE, module.FileCheckConst.READ_ABLE,
                                     module.FileCheckConst.YAML_SUFFIX).common_check()
        try:
            state = os.stat(checked)
            key = (checked, state.st_mtime_ns, state.st_size)
            if key not in parsed:
                with module.FileOpen(checked, "r") as handle:
                    parsed[key] = yaml.load(handle, Loader=loader)  # noqa: S506 - CSafeLoader is the safe loader
            return copy.deepcopy(parsed[key])  # the caller's own copy, as a parse gives
        except Exception:  # noqa: BLE001 - msprobe's own reader says what went wrong
            return original(yaml_path)

    load_yaml.__npu_migrate__ = True
    module.load_yaml = load_yaml


class _Names(list):
    """dir()'s list of names, asked `name in` through a set."""

    def __init__(self, names):
        super().__init__(names)
        self._names = frozenset(self)

    def __contains__(self, name) -> bool:
        return name in self._names


def _patch_api_registry(module) -> None:
    """msprobe's `ApiWrapper._get_api_names` keeps the names of its YAML list that the API modules have, asking
    `name in dir(module)` for each name and module: ~1,160 calls of dir() over torch, torch.Tensor and
    torch.nn.functional (thousands of names each, listed and sorted every time), ~0.08 s of each dumped run's
    start. Here each module's dir() is listed once a call, the same names in the same order."""
    wrapper = getattr(module, "ApiWrapper", None)
    original = getattr(wrapper, "_get_api_names", None)
    if not callable(original) or getattr(original, "__npu_migrate__", False) or "dir" in vars(module):
        return

    def _get_api_names(self):
        listed: dict[int, tuple[object, _Names]] = {}  # id -> (the object, kept alive while its id is a key; its names)

        def listed_dir(obj):
            if id(obj) not in listed:
                listed[id(obj)] = (obj, _Names(dir(obj)))
            return listed[id(obj)][1]

        module.dir = listed_dir  # the module's global `dir` while it runs: this method is its only caller
        try:
            return original(self)
        finally:
            del module.dir

    _get_api_names.__npu_migrate__ = True
    wrapper._get_api_names = _get_api_names


def zip_appender(module):
    """msprobe's `create_file_in_zip` (file_utils `module`), the same bytes in the same file, without reading the
    pack's whole central directory again for every file: msprobe opens the zip in append mode for each of the 2
    files a forward adds (quadratic in the steps: 2,000 files, 17 s). Here the zip stays open between calls and,
    as zipfile's own close() does, its central directory and end record are written after every file (a whole
    zip after each call), under msprobe's lock. A file another writer changed since (a rank sharing the pack),
    or replaced, is read again; anything unexpected goes to msprobe's own function. The central directory written
    after every file is kept (`_CentralDirectory`): each file's record is made once, not again for every later
    file (zipfile's `_write_end_record` rebuilds them all: linear a call, quadratic in the steps)."""
    import fcntl
    import zipfile

    original = module.create_file_in_zip
    held: dict[str, tuple] = {}  # realpath -> (file object, ZipFile, (inode, size) after our last write, its directory)

    def create_file_in_zip(zip_file_path, file_name, content):
        module.check_file_suffix(zip_file_path, module.FileCheckConst.ZIP_SUFFIX)
        module.check_file_whether_exist_or_not(zip_file_path)
        zip_size = os.path.getsize(zip_file_path) if os.path.exists(zip_file_path) else 0
        if zip_size + sys.getsizeof(content) > module.FileCheckConst.MAX_ZIP_SIZE:
            return original(zip_file_path, file_name, content)  # msprobe's own error
        key = os.path.realpath(zip_file_path)
        handle, archive, state, directory = held.pop(key, (None, None, None, None))
        try:
            with open(zip_file_path, "ab"):  # created when missing, as msprobe's 'ab+' does
                pass
            if handle is None or _file_state(zip_file_path)[0] != state[0]:  # first file, or the file was replaced
                if handle is not None:
                    handle.close()
                handle, archive = open(zip_file_path, "r+b"), None
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                if archive is None or _file_state(handle) != state:
                    if archive is not None:  # another writer appended: its directory again, from a new file object
                        fcntl.flock(handle, fcntl.LOCK_UN)  # (the old one's read buffer may hold the old bytes)
                        handle.close()
                        handle = open(zip_file_path, "r+b")
                        fcntl.flock(handle, fcntl.LOCK_EX)
                    archive = zipfile.ZipFile(handle, "a")
                    directory = _CentralDirectory(zipfile)
                info = zipfile.ZipInfo(file_name)
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, content)
                handle.seek(archive.start_dir)
                directory.write_end_record(archive)  # what ZipFile.close() writes (and truncates, in append mode)
                archive._didModify = False  # written: its close() (at exit, or when dropped) must not write it again
                handle.flush()
                state = _file_state(handle)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        except Exception as exc:
            if handle is not None:
                handle.close()
            module.logger.error(f'Save content to file "{os.path.basename(zip_file_path)}" failed.')
            raise RuntimeError(f"Save content to file {os.path.basename(zip_file_path)} failed.") from exc
        held[key] = (handle, archive, state, directory)

    if not (hasattr(zipfile.ZipFile, "_write_end_record") and callable(original)):
        return original
    create_file_in_zip.__npu_migrate__ = True
    return create_file_in_zip


class _CentralDirectory:
    """A ZipFile's central directory and end record as its `_write_end_record` writes them (called by ZipFile.close()),
    with each file's central record made once: zipfile's own function makes the records of the files not yet kept
    (into memory, then cut off before its end record) and then the end record after the kept ones (on a view of the
    archive that lists no file but counts them all). The same bytes, ZIP64 records included."""

    def __init__(self, zipfile):
        self._write = zipfile.ZipFile._write_end_record
        self._kept = bytearray()  # the central records of the first `_count` files of the archive's filelist
        self._count = 0

    def write_end_record(self, archive) -> None:
        import io
        import struct
        from types import SimpleNamespace

        new = archive.filelist[self._count:]
        if new:
            memory = io.BytesIO()
            self._write(SimpleNamespace(filelist=new, fp=memory, start_dir=0, _allowZip64=True, _comment=b"", mode="w"))
            records = memory.getvalue()
            # the end record it wrote last (22 bytes, no comment) holds the records' size (start_dir 0: from 0)
            size = struct.unpack("<4s4H2LH", records[-22:])[5]
            self._kept += records[:size]
            self._count += len(new)
        archive.fp.write(self._kept)
        self._write(SimpleNamespace(filelist=_Counted(self._count), fp=archive.fp, start_dir=archive.start_dir,
                                    _allowZip64=archive._allowZip64, _comment=archive._comment, mode=archive.mode))


class _Counted:
    """A file list of `count` files to `len()` and none to iterate over: their central records are written already."""

    def __init__(self, count: int):
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        return iter(())


def _file_state(file) -> tuple[int, int]:
    """(inode, size) of a path or an open file."""
    info = os.stat(file) if isinstance(file, (str, os.PathLike)) else os.fstat(file.fileno())
    return info.st_ino, info.st_size


def _patch_pip_checker(module) -> None:
    if callable(getattr(module, "collect_pip_data", None)):
        module.collect_pip_data = fast_collect_pip_data


class _PairedMinMax:
    """`torch` as get_stat_info's module sees it: `max(t)` of one tensor computes `aminmax(t)` and keeps the
    min for a `min(t)` of the same tensor object at the same version (not written to since) that follows;
    anything else (other arguments, another tensor, a dtype aminmax refuses) is torch's own call."""

    def __init__(self, torch):
        self._torch = torch
        self._pending = None  # (weak reference to the tensor, its version, its min)

    def __getattr__(self, name):
        return getattr(self._torch, name)

    def max(self, *args, **kwargs):
        self._pending = None
        if len(args) == 1 and not kwargs and isinstance(args[0], self._torch.Tensor):
            tensor = args[0]
            try:
                low, high = self._torch.aminmax(tensor)
            except (RuntimeError, TypeError, NotImplementedError):
                return self._torch.max(tensor)
            self._pending = (weakref.ref(tensor), tensor._version, low)
            return high
        return self._torch.max(*args, **kwargs)

    def min(self, *args, **kwargs):
        pending, self._pending = self._pending, None
        if pending is not None and len(args) == 1 and not kwargs and pending[0]() is args[0] and args[0]._version == pending[1]:
            return pending[2]
        return self._torch.min(*args, **kwargs)


def _patch_stat_processor(module) -> None:
    torch = getattr(module, "torch", None)
    if torch is not None and not isinstance(torch, _PairedMinMax) and hasattr(torch, "aminmax"):
        module.torch = _PairedMinMax(torch)
    processor, no_stats = getattr(module, "PytorchDataProcessor", None), getattr(module, "TensorStatInfo", None)
    if torch is not None and processor is not None and no_stats is not None and not hasattr(processor.get_stat_info, "strided_only"):
        processor.get_stat_info = _strided_only(processor.get_stat_info, torch.strided, no_stats)


def _strided_only(get_stat_info, strided, no_stats):
    """msprobe's get_stat_info asks every tensor for its `data_ptr()`, which raises on a tensor without strided
    storage (a sparse adjacency matrix), killing a run that trains without the dump (tkipf/pygcn). Such a tensor
    gets no statistics, as msprobe gives none to an empty tensor or an NPU-private format."""
    def strided_only(self, data, *args, **kwargs):
        if getattr(data, "layout", strided) != strided:
            return no_stats()
        return get_stat_info(self, data, *args, **kwargs)
    strided_only.strided_only = True
    return strided_only


PACK_FEATURES_IN = (f"{CONFIG_CHECK}.checkers.weights_checker", f"{CONFIG_CHECK}.checkers.dataset_checker")
PACK_STATS_DUMPED = "NPU_VALIDATE_PACK_STATS_DUMPED"  # checks.validate.hosts.PACK_STATS_DUMPED_ENV


def _patch_pack_features(module) -> None:
    """The pack's weights (every parameter, every forward) and dataset items take max, min, mean and norm of each
    tensor (`get_tensor_features`), each through `FmkAdp.process_tensor`: a float copy of a non-float or float64
    tensor four times, and two passes for the max and the min. `get_tensor_features` here: one copy and one aminmax
    pass, the same floats (NaN included: aminmax propagates it as max() and min() do); msprobe's own function for
    anything else (not torch's tensor, an empty tensor aminmax refuses as max() does) and where the pack's statistics
    are dumped as the script's APIs (a schema-1 bundle's comparing run: its dump numbers Tensor.max and Tensor.min)."""
    original, adapter = getattr(module, "get_tensor_features", None), getattr(module, "FmkAdp", None)
    if not callable(original) or getattr(original, "__npu_migrate__", False) or adapter is None:
        return

    def get_tensor_features(tensor):
        torch = sys.modules.get("torch")
        if (torch is None or getattr(adapter, "fmk", None) != "pytorch" or not isinstance(tensor, torch.Tensor)
                or os.environ.get(PACK_STATS_DUMPED) == "1"):
            return original(tensor)
        if not tensor.is_floating_point() or tensor.dtype == torch.float64:  # process_tensor's conversion
            tensor = tensor.float()
        try:
            low, high = torch.aminmax(tensor)
        except (RuntimeError, TypeError, NotImplementedError):
            return original(tensor)
        return {"max": float(high), "min": float(low), "mean": float(tensor.mean()), "norm": float(tensor.norm())}

    get_tensor_features.__npu_migrate__ = True
    module.get_tensor_features = get_tensor_features


SCRIPT_WRAPPER = MSPROBE_SCRIPT_WRAPPER  # the dump's start patches Triton's kernel launches there
TRITON = "triton"


def _patch_script_wrapper(module) -> None:
    """msprobe's dump start (`wrap_script_func`) imports triton to wrap its kernels' `run` (~0.2 s CPU) whether or not
    the script ever uses triton (a CPU run never does; torch imports it only to compile): the same wrapping happens
    when triton is imported, right after its top level ran (the classes it wraps are loaded by then), before any
    kernel can run; at once when triton is imported already."""
    original = getattr(module, "patch_triton_jitfunction_run", None)
    if not callable(original) or getattr(original, "__npu_migrate__", False):
        return

    def patch_triton_jitfunction_run():
        if TRITON in sys.modules:
            return original()
        from checks.emulation.fakedata import patch_modules

        patch_modules({TRITON: lambda _triton: original()})
        return None

    patch_triton_jitfunction_run.__npu_migrate__ = True
    module.patch_triton_jitfunction_run = patch_triton_jitfunction_run


API_REGISTRY = MSPROBE_API_REGISTRY  # ApiWrapper's module (a private msprobe name: compat holds it)
PATCHES = {RANDOM_CHECKER: _patch, FILE_UTILS: _patch_file_utils, PIP_CHECKER: _patch_pip_checker, API_REGISTRY: _patch_api_registry,
           STAT_PROCESSOR: _patch_stat_processor, SCRIPT_WRAPPER: _patch_script_wrapper,
           **{name: _patch_pack_features for name in PACK_FEATURES_IN}}


class _Deferred:
    """A name of a module not imported yet (`module`, then `.attr`...): imported for real, and the name
    looked up, when it is called or one of its attributes is used."""

    def __init__(self, module: str, path: tuple[str, ...] = ()):
        self._module, self._path = module, path
        self._holders: list = []  # the modules whose global is this stand-in (a module's, not an attribute's)

    def _resolve(self):
        import importlib

        value = importlib.import_module(self._module)
        if isinstance(value, _Deferred):  # used while its importer still runs: import it for real instead
            raise ImportError(f"{self._module} is deferred")
        for holder in self._holders:  # from now on their global is the module itself
            for name, held in list(vars(holder).items()):
                if held is self:
                    setattr(holder, name, value)
        for attr in self._path:
            value = getattr(value, attr)
        return value

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if not self._path and f"{self._module}.{attr}" in DEFERRED:
            return _Deferred(f"{self._module}.{attr}")
        if not self._path and not _importing[0]:  # a use after the import: the real attribute (isinstance too)
            return getattr(self._resolve(), attr)
        return _Deferred(self._module, (*self._path, attr))

    def __call__(self, *args, **kwargs):
        return self._resolve()(*args, **kwargs)


class _DeferImports:
    """Finder for msprobe's modules that import at module level what a run never uses (DEFER: pyplot for
    charts never drawn, pandas for a comparison's tables): each runs with those modules standing in as
    `_Deferred` names (only while it runs, and only when the script has not imported them itself)."""

    def __init__(self):
        self.pending = (set(DEFER) | set(WRAPPED)) - set(sys.modules)

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.pending:
            return None
        self.pending.discard(fullname)
        sys.meta_path.remove(self)
        import importlib.util

        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            if self.pending:
                sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        if fullname in WRAPPED:
            exec_module, wrap = spec.loader.exec_module, WRAPPED[fullname]
            spec.loader.exec_module = lambda module: wrap(exec_module, module)
            return spec
        names = DEFER[fullname]
        if any(name in sys.modules for name in names):
            return spec
        exec_module = spec.loader.exec_module

        def exec_deferred(module):
            stand_ins = {name: _STAND_INS.setdefault(name, _Deferred(name)) for name in names}
            sys.modules.update(stand_ins)
            _importing[0] += 1
            try:
                exec_module(module)
            except Exception:  # noqa: BLE001 - it wanted more of them at import: run it as it is
                _remove(stand_ins)
                exec_module(module)
            finally:
                _importing[0] -= 1
                _remove(stand_ins)
            for stand_in in stand_ins.values():
                stand_in._holders.append(module)

        spec.loader.exec_module = exec_deferred
        return spec


TENSORFLOW_STUB = "tensorboard.compat.tensorflow_stub"  # what msprobe's __init__ imports and names `tensorflow`
MONITOR = "msprobe.pytorch.monitor.module_hook"  # msprobe.pytorch's __init__: `from ...module_hook import TrainerMon`
LAZY_ATTRS = {"msprobe.pytorch": {"TrainerMon": MONITOR}}  # a package's names from a module imported at first use


def _exec_with_lazy_stub(exec_module, module) -> None:
    """msprobe's __init__ imports tensorboard's TensorFlow stub (protobuf and ~50 modules: ~65 ms CPU) to set two
    placeholder classes on it and register it as `tensorflow` in sys.modules, for its monitor's TensorBoard writer,
    which a recording never uses: the stub is loaded lazily (importlib's LazyLoader: the same module object,
    executed at the first use of one of its attributes; the placeholders set before are kept)."""
    if TENSORFLOW_STUB not in sys.modules:
        import importlib.util

        try:
            spec = importlib.util.find_spec(TENSORFLOW_STUB)
        except (ImportError, ValueError):
            spec = None
        lazy_module = getattr(importlib.util, "_LazyModule", None)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module") and lazy_module is not None:
            spec.loader = importlib.util.LazyLoader(spec.loader)
            stub = importlib.util.module_from_spec(spec)
            sys.modules[TENSORFLOW_STUB] = stub
            spec.loader.exec_module(stub)
            if type(stub) is lazy_module:  # an `import` of it (msprobe's) reads its __spec__ only: not a use
                stub.__class__ = _lazy_spec_kept(lazy_module)
            setattr(sys.modules[TENSORFLOW_STUB.rpartition(".")[0]], TENSORFLOW_STUB.rpartition(".")[2], stub)
    exec_module(module)


IMPORT_SET = frozenset({"__spec__", "__name__", "__file__", "__loader__", "__package__", "__path__", "__cached__"})


def _lazy_spec_kept(lazy_module):
    """importlib's lazy module class, but reading what the import system set before the module runs (`__spec__`,
    which `import` reads of a module in sys.modules; `__file__`, which inspect.getmodule reads of every module) does
    not execute the module: the same values it would give after."""
    class LazyModule(lazy_module):
        def __getattribute__(self, attr):
            if attr == "__class__":  # isinstance() (inspect.ismodule): a module either way
                return object.__getattribute__(self, attr)
            if attr in IMPORT_SET:
                known = object.__getattribute__(self, "__dict__")
                if attr in known:
                    return known[attr]
            return super().__getattribute__(attr)

    return LazyModule


class _Placeholder:
    """A module's stand-in while its importer runs: `from <module> import name` gives a marker for each name."""

    def __init__(self, names):
        self._names = names

    def __getattr__(self, attr):
        if attr in self._names:
            return (_Placeholder, attr)
        raise AttributeError(attr)


def _exec_with_lazy_attrs(exec_module, module) -> None:
    """msprobe.pytorch's __init__ imports its monitor (TrainerMon: pytz, torch.utils.tensorboard, ~30 modules,
    ~30 ms CPU) that a recording never uses: the package runs with the monitor's module standing in, and
    `msprobe.pytorch.TrainerMon` is the real class, the monitor imported at its first use (a module
    `__getattr__`, PEP 562). Nothing in the package's own code uses the name."""
    lazy = LAZY_ATTRS[module.__name__]
    holders = {}
    for attr, source in lazy.items():
        holders.setdefault(source, []).append(attr)
    placed = {source: _Placeholder(set(attrs)) for source, attrs in holders.items() if source not in sys.modules}
    sys.modules.update(placed)
    try:
        exec_module(module)
    except Exception:  # noqa: BLE001 - it wanted more of the monitor: run it as it is
        _remove(placed)
        exec_module(module)
        return
    finally:
        _remove(placed)
    waiting = {attr: lazy[attr] for attr in lazy if vars(module).get(attr) == (_Placeholder, attr)}
    if not waiting:
        return
    for attr in waiting:
        delattr(module, attr)

    def __getattr__(attr):
        source = waiting.get(attr)
        if source is None:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
        import importlib

        value = getattr(importlib.import_module(source), attr)
        setattr(module, attr, value)
        return value

    module.__getattr__ = __getattr__


WRAPPED = {"msprobe": _exec_with_lazy_stub, **{name: _exec_with_lazy_attrs for name in LAZY_ATTRS}}
_STAND_INS: dict[str, _Deferred] = {}  # one stand-in a deferred module, shared by the modules that import it


def _remove(stand_ins: dict) -> None:
    for name, stand_in in stand_ins.items():
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


def install() -> None:
    from checks.emulation.fakedata import patch_modules

    patch_modules(PATCHES)
    finder = _DeferImports()
    if finder.pending:
        sys.meta_path.insert(0, finder)
