"""Knowledge base generated from real torch_npu wheels (see docs/knowledge.md).

Stdlib only: never imports torch or torch_npu. Data lives next to this file and is read from there
(`_read_text`); everything is cached.
"""
from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field

try:  # Python >= 3.11
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as _toml  # type: ignore[no-redef]

__all__ = [
    "CudaApi", "DeviceNeutral", "EnvVar", "KnowledgeBase", "ThirdParty", "device_neutral", "env_vars",
    "known_versions", "load", "newest_version", "resolve_version", "third_party", "torch_cuda_names",
]

_PKG = __name__


_HERE = os.path.dirname(os.path.abspath(__file__))


def _read_text(*parts: str) -> str:
    """A data file of this package: read from the package's folder (importing importlib.resources, and the tempfile
    and shutil it pulls in, was ~3% of a warm analyze run), through importlib.resources only where the package is
    not a folder of files (a zip import)."""
    try:
        with open(os.path.join(_HERE, *parts), encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        from importlib import resources

        return resources.files(_PKG).joinpath(*parts).read_text(encoding="utf-8")


@functools.cache
def read_json(*parts: str):
    return json.loads(_read_text(*parts))


_PARSED_DIR: str | None = None  # where parsed TOML files are kept as JSON (`keep_parsed`); None: parsed each run


def keep_parsed(directory) -> None:
    """Keep each knowledge TOML file, once parsed, as JSON in `directory` (the analyze cache's folder, set when a scan
    uses the cache): decoding that JSON is ~15x cheaper than tomllib, whose parse of the package catalogue and the
    device-neutral list was ~30 ms of every warm analyze run."""
    global _PARSED_DIR
    _PARSED_DIR = os.fspath(directory)


@functools.cache
def read_toml(name: str) -> dict:
    text = _read_text(name)
    return _toml.loads(text) if _PARSED_DIR is None else _parsed_toml(name, text, _PARSED_DIR)


def _parsed_toml(name: str, text: str, directory: str) -> dict:
    """`tomllib.loads(text)`, read back from `directory` when it was kept there for this very text (its digest); a
    kept file that is damaged, of another text or not a regular file is parsed again and replaced. A file holding a
    value JSON cannot (a TOML date) is not kept."""
    import hashlib

    from migrate import fileio
    from migrate.cache import ResultCache

    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    path = os.path.join(directory, "knowledge-" + name.replace("/", "-") + ".json")
    kept = ResultCache._load(path)  # {} for anything but a regular file holding a JSON object, never blocking
    if kept.get("digest") == digest and isinstance(kept.get("data"), dict):
        return kept["data"]
    data = _toml.loads(text)
    try:
        fileio.atomic_write(path, json.dumps({"digest": digest, "data": data}, separators=(",", ":")), make_parents=True)
    except (OSError, TypeError, ValueError):  # not writable, or a value JSON cannot hold: parsed again next time
        pass
    return data


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


# ------------------------------------------------------------------------------------ versions
@functools.lru_cache(maxsize=1)
def _index() -> dict:
    return read_json("data", "index.json")


def known_versions() -> list[str]:
    """Release-line keys, oldest -> newest (e.g. ['2.1.0', ..., '2.14.0'])."""
    return sorted(_index()["lines"], key=_vkey)


def newest_version() -> str:
    return known_versions()[-1]


_VER_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.\-+].*)?\s*$")


def _match_line(text: str) -> str | None:
    m = _VER_RE.match(text)
    if not m:
        return None
    major, minor, micro = m.group(1), m.group(2), m.group(3)
    known = known_versions()
    if micro is not None and f"{major}.{minor}.{micro}" in known:
        return f"{major}.{minor}.{micro}"
    same_line = [k for k in known if k.split(".")[:2] == [major, minor]]
    return same_line[-1] if same_line else None


# the start of a torch_npu distribution's metadata folder as importlib.metadata finds it (`torch_npu-2.14.0.dist-info`,
# any case, `-` `_` `.` between the two words); anything else so named only sends the look-up to importlib.metadata
_TORCH_NPU_DIST = re.compile(r"torch[-_.]+npu", re.I)


def _may_be_installed() -> bool:
    """False only where importlib.metadata could find no torch_npu: no folder of sys.path holds an entry named like its
    metadata, sys.path holds no archive or egg (read inside by importlib.metadata) and no finder of sys.meta_path but
    the path finder looks for distributions. Importing importlib.metadata (email, zipfile, csv) costs a warm analyze
    run more than the rest of its start-up does, on every machine without torch_npu (a GPU host)."""
    import sys
    from importlib.machinery import PathFinder

    if any(getattr(finder, "find_distributions", None) is not None and finder is not PathFinder for finder in sys.meta_path):
        return True
    for entry in sys.path:
        if not isinstance(entry, str) or entry.endswith(".egg"):
            return True
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:  # a zip archive on the path
            return True
        except OSError:  # not there, not readable: importlib.metadata finds nothing in it either
            continue
        if any(_TORCH_NPU_DIST.match(name) for name in names):
            return True
    return False


def _installed_torch_npu() -> str | None:
    if not _may_be_installed():
        return None
    from importlib import metadata
    for dist in ("torch-npu", "torch_npu"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # pragma: no cover - broken metadata
            return None
    return None


def resolve_version(text: str | None = None) -> str:
    """Map a version text ('2.13', '2.13.0', '2.1.0.post12') to a release-line key.

    None -> the installed torch_npu's line (read from package metadata, never imported), else the
    newest known line. Unknown -> ValueError listing the known versions.
    """
    if text is None:
        installed = _installed_torch_npu()
        if installed:
            line = _match_line(installed)
            if line:
                return line
        return newest_version()
    line = _match_line(str(text))
    if line is None:
        raise ValueError(f"unknown torch_npu version {text!r}; known versions: "
                         + ", ".join(known_versions()))
    return line


def version_note(text: str | None = None, installed: str | None = None) -> str | None:
    """One sentence when the line `resolve_version(text)` picks is not the installed torch_npu's
    own: no --torch-npu-version and the installed release has no line of its own in the data
    (`installed`: the installed version; None reads it from package metadata)."""
    if text is not None:
        return None
    installed = installed or _installed_torch_npu()
    if not installed:
        return None
    line = _match_line(installed)
    known = known_versions()
    if line is None:
        return (f"the installed torch_npu {installed} has no knowledge line (the data has lines "
                f"{known[0]} to {known[-1]}, read from those wheels); using {known[-1]}, the "
                f"newest, as for a machine without torch_npu, so API and op findings describe "
                f"torch_npu {known[-1]}: an API or op added after {installed} may be reported as "
                f"available. Choose a line with --torch-npu-version.")
    m = _VER_RE.match(installed)
    if m and m.group(3) is not None and line != ".".join(m.group(1, 2, 3)):
        return (f"the installed torch_npu {installed} has no line of its own; using {line}, the "
                f"knowledge line of the same {m.group(1)}.{m.group(2)} series.")
    return None


# ------------------------------------------------------------------------------------ records
@dataclass(frozen=True)
class CudaApi:
    cuda: str
    npu: str | None
    alternative: str | None = None
    note: str = ""
    # device-neutral torch name to write instead of `npu` when the target wheel deprecates `npu`
    # (torch.npu.amp.custom_fwd -> torch.amp.custom_fwd(device_type="npu") in 2.14.0)
    neutral: str | None = None
    # set when the torch.cuda name is an alias of a device-neutral torch name that works unchanged
    works_as: str | None = None


@dataclass(frozen=True)
class ThirdParty:
    name: str
    pip_names: tuple[str, ...]
    status: str
    severity: str
    alternative: str | None
    alternative_api: str | None
    note: str
    source: str
    # the version line of an UNRELATED PyPI project that shares the pip name (PyPI `apex` 0.9.x is a
    # Pyramid toolkit; NVIDIA apex is not on PyPI): a manifest pin inside it names that project
    pypi_namesake: str | None = None
    # string values that select the package's GPU-only kernels where it also ships native ones (a `partial`
    # package: mlstm_kernels' "chunkwise--triton_limit_chunk"), read by NPU503 at kernel/impl/backend keys
    selectors: tuple[str, ...] = ()
    # the short name projects give the package in their own helpers' names (`is_bnb_available()`, `@require_bnb`),
    # the package's documented import alias (`import bitsandbytes as bnb`): read by migrate/skip_decorators.py
    aliases: tuple[str, ...] = ()
    # an Ascend backend plugin that runs the package's own API once installed (vllm-ascend registers an NPU platform
    # through vLLM's `vllm.platform_plugins` entry point): the imports and requirements are where the port happens,
    # the package's calls stay as written (label ruling (L25): vllm's imports are labels, its uses are not; 25b-14)
    npu_plugin: str | None = None
    # modules only that plugin provides under the package's own name (triton-ascend installs its backend's language
    # folder as `triton.language.extra.cann` / `.ascend`; community Triton has none): a repository whose Python code
    # uses one, and that runs on the NPU (imports or requires torch_npu), writes its code for the plugin: it names the
    # plugin as a requirement would (migrate/npu_plugins.py, label rulings (L40)/(L56))
    plugin_modules: tuple[str, ...] = ()
    # the names of the package's public API that plugin runs as written (vllm's root `__all__`)
    plugin_api: frozenset[str] = frozenset()
    # the package's own extras that install its NPU build (`sglang[srt_npu]`): a requirement selecting one names the
    # NPU build as a requirement of the plugin does (migrate/npu_plugins.py, label note 60a)
    npu_extras: tuple[str, ...] = ()
    # dotted names inside the package (a module, or a function of one) that are plain Python / PyTorch, read in the
    # package's own source (gsplat's `cuda_legacy._torch_impl`, "Pure PyTorch implementations"): their calls run as
    # written once the package is installed, so NPU507 leaves them; their imports stay NPU501's (label rule 34c-8)
    pure_api: tuple[str, ...] = ()
    # the names of the package's repository that a local checkout folder carries and that are no pip name of it
    # (`third_party/flash-attention`: PyPI `flash-attention` is another project), read by NPU502 for local installs only
    folder_names: tuple[str, ...] = ()
    # the kernel language this package is a renamed copy of (`triton_pre_mlir`, the pre-MLIR Triton 2.0 fork MPT's
    # vendored flash_attn_triton.py imports `as triton`): names bound by its imports are read as that language's
    # (`@triton.jit` decorators, launches, the kernel bodies left unreported), migrate/context.py collect_imports
    fork_of: str | None = None
    # names a module of the package binds to another package's module, read in the package's own source (vLLM's
    # `vllm.triton_utils` imports `triton` and `triton.language as tl` and re-exports them): a name imported from
    # there is that module (`from vllm.triton_utils import tl, triton`: `@triton.jit` reads as Triton's decorator, the
    # kernel bodies left unreported, the launches reported), migrate/context.py collect_imports. The import statement
    # keeps its own module name (NPU501 names the package that re-exports)
    reexports: tuple[tuple[str, str], ...] = ()
    # a class or function of a package that imports on any host, whose own code fails off CUDA (a fork's
    # `MinkowskiEngine.MinkowskiDepthwiseConvolution`, its forward raising 'Not implemented on the CPU'): importing
    # the name runs nothing, so NPU501 leaves `from pkg import Name`; its construction or call is NPU507's (label note
    # 48d d-1)
    use_only: bool = False
    # a loader function of the package that imports and returns its compiled module (svox's `_get_c_extension()`
    # returns `svox.csrc`, None where it is not built): a name bound to its call is that module, and each call of an
    # attribute of the name is read as that module's (migrate/loaded_modules.py, NPU507)
    loads_module: str | None = None
    # `pip install` of the package works on a host without CUDA (its CUDA extension is optional at build time, a
    # `partial` package with a PyTorch path): a manifest line naming it installs as written on an Ascend host and is
    # not reported (label ruling (L55)); its imports are, where its severity asks
    installs_without_cuda: bool = False
    # the package's own install that selects its NPU build on an Ascend host (Liger-Kernel's setup.py: `npu-smi` found
    # -> torch_npu + triton-ascend), read in its source: a `partial` package's requirement line installs the NPU side
    # there, so NPU502 leaves its manifest and `pip install` lines (label rulings (L11)/(L40)/(L55): a package with an
    # NPU install is partial, its manifest lines are no labels); its imports stay NPU501's (the parts to check)
    npu_install: str | None = None
    # where the package's own code picks its Ascend kernels by the device at run time (Liger-Kernel's `_ascend` backend
    # registered as the default for 'npu'; fla's TritonAscendBackend, available when the device platform is 'npu'),
    # read in its source: in a repository that runs on the NPU (it imports torch_npu) the package's imports and uses
    # are its NPU path, as a plugin the repository names (migrate/npu_plugins.py, label rulings (L38)/(L99))
    npu_backend: str | None = None
    # the package's own setting whose value selects its device backend, as `Class.keyword` (LMDeploy's
    # `PytorchEngineConfig.device_type`), with the values that select the Ascend backend (`npu_device_values`,
    # "ascend") and the parts that stay CUDA-only whatever the value (`device_cuda_only`: TurboMind, the CUDA kernel
    # set imported directly), all read in the package's source: a repository that passes that keyword an NPU value,
    # or a value it computes in a repository running on the NPU, takes the package's NPU route (migrate/npu_plugins.py,
    # label ruling (L99))
    npu_device_keyword: str | None = None
    npu_device_values: tuple[str, ...] = ()
    device_cuda_only: tuple[str, ...] = ()
    # the package's own programs as a launcher runs them, a console script with its subcommand, read in the package's
    # source (vLLM's `vllm serve`: pyproject `[project.scripts] vllm = "vllm.entrypoints.cli.main:main"`): a launcher
    # line running one runs the package (NPU507, migrate/package_commands.py), as `python -m <its module>` does
    commands: tuple[str, ...] = ()
    # another program's option that selects this package as its backend, as `program flag value`, read in that
    # program's source (lm-evaluation-harness registers its vLLM model class as "vllm": `lm_eval --model vllm` runs
    # vllm.LLM): a launcher line passing it is the option that changes (NPU503, migrate/package_commands.py)
    selected_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvVar:
    name: str
    npu: str | None
    note: str
    source: str
    # the counterpart for torch_npu releases whose wheel does not carry `npu` (read per version)
    npu_older: str | None = None

    def counterpart(self, kb) -> str | None:
        if self.npu and self.npu_older and kb is not None and self.npu not in kb.env_vars_seen:
            return self.npu_older
        return self.npu


def _norm_op(op: str) -> str:
    if "::" in op:
        ns, op = op.split("::", 1)
        if ns != "aten":
            return f"{ns}::{op}"
    return op.split(".", 1)[0]


@functools.lru_cache(maxsize=1)
def _torch_ops() -> tuple[frozenset, frozenset, str]:
    d = read_json("data", "torch_ops.json")
    return frozenset(d["needs_backend_kernel"]), frozenset(d["cpu_only"]), d["torch_version"]


@functools.lru_cache(maxsize=1)
def cpu_only_ops() -> frozenset[str]:
    """aten ops that exist only as CPU implementation details (e.g. `mkldnn_rnn_layer`,
    `_scaled_dot_product_flash_attention_for_cpu`): a CPU run executes them where an NPU run
    dispatches the same Python API to its own kernels, so they say nothing about NPU support."""
    return _torch_ops()[1]


@functools.lru_cache(maxsize=1)
def aten_op_names() -> frozenset[str]:
    """Every aten op of torch's native_functions.yaml (torch_ops.json `all_ops`): the tensor methods and
    functions torch itself implements (`detach`, `reshape`, `contiguous`)."""
    return frozenset(read_json("data", "torch_ops.json")["all_ops"])


def torch_cuda_names() -> dict[str, frozenset[str]]:
    """Public names of torch.cuda and its public submodules (static parse of installed torch)."""
    d = read_json("data", "torch_cuda.json")
    return {k: frozenset(v) for k, v in d["modules"].items()}


@functools.lru_cache(maxsize=1)
def _renames() -> dict[str, dict]:
    return read_toml("cuda_renames.toml").get("api", {})


@functools.lru_cache(maxsize=1)
def _api_ops() -> dict[str, tuple[str, ...]]:
    d = read_json("data", "api_ops.json")
    return {api: tuple(sorted(set(v.get("fwd", ())) | set(v.get("bwd", ())) | set(v.get("inner", ()))))
            for api, v in d["apis"].items()}


@dataclass(frozen=True)
class KnowledgeBase:
    version: str
    provenance: dict = field(compare=False, hash=False)
    npu_ops: frozenset[str]
    custom_ops: frozenset[str] = frozenset()
    modules: dict = field(default_factory=dict, repr=False, compare=False)
    env_vars_seen: frozenset[str] = frozenset()
    transfer_to_npu: dict = field(default_factory=dict, repr=False, compare=False)
    tensor_npu_methods: bool = True
    # names a module defines outside its __all__ (generator >= 2; empty for data read before)
    definitions: dict = field(default_factory=dict, repr=False, compare=False)
    # dotted torch_npu name -> the wheel's own deprecation message (generator >= 2)
    deprecated: dict = field(default_factory=dict, repr=False, compare=False)

    # -- ops
    def op_supported(self, aten_op: str) -> bool | None:
        """True: NPU kernel; False: needs a backend kernel and has none; None: composite/unknown."""
        op = _norm_op(aten_op)
        if op in self.npu_ops or op in self.custom_ops:
            return True
        needs, _cpu_only, _ = _torch_ops()
        if op in needs and not self._inplace_sibling_supported(op):
            return False
        return None

    def _inplace_sibling_supported(self, op: str) -> bool:
        """`foo_` (in-place) whose functional `foo` has an NPU kernel: not reported (heuristic,
        see docs/knowledge.md: the wheel lists fewer in-place overloads than it handles)."""
        return op.endswith("_") and not op.endswith("__") and op[:-1] in self.npu_ops

    # -- names
    def module_names(self, module: str) -> frozenset[str] | None:
        if module == "torch.npu" or module.startswith("torch.npu."):
            module = "torch_npu.npu" + module[len("torch.npu"):]
        names = self.modules.get(module)
        return frozenset(names) if names is not None else None

    def has_api(self, dotted: str) -> bool:
        """`torch.npu.X[.Y]` (alias of torch_npu.npu) or `torch_npu.X[.Y]`.

        Checked against the longest recorded module prefix; attributes below a class or object
        (e.g. `torch.npu.amp.GradScaler.scale`) are accepted once the first name is found.
        """
        if dotted == "torch.npu" or dotted.startswith("torch.npu."):
            dotted = "torch_npu.npu" + dotted[len("torch.npu"):]
        if not dotted.startswith("torch_npu"):
            return False
        if dotted in self.modules:
            return True
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:i])
            if mod in self.modules:
                return parts[i] in self.modules[mod] or parts[i] in self.definitions.get(mod, ())
        return False

    def is_module(self, dotted: str) -> bool:
        if dotted == "torch.npu" or dotted.startswith("torch.npu."):
            dotted = "torch_npu.npu" + dotted[len("torch.npu"):]
        return dotted in self.modules

    def deprecation(self, dotted: str) -> str | None:
        """The wheel's deprecation message for `torch.npu.X` / `torch_npu.X` (also when the name
        is re-exported from the submodule that defines it), or None."""
        if dotted == "torch.npu" or dotted.startswith("torch.npu."):
            dotted = "torch_npu.npu" + dotted[len("torch.npu"):]
        if dotted in self.deprecated:
            return self.deprecated[dotted]
        module, _, name = dotted.rpartition(".")
        for key, message in self.deprecated.items():
            if key.startswith(module + ".") and key.endswith("." + name) and key.count(".") == dotted.count(".") + 1:
                return message
        return None

    def cuda_api(self, name: str) -> CudaApi | None:
        """What `torch.cuda.X[.Y]` maps to in this version (npu None = no counterpart).

        Returns None when `name` is not a public torch.cuda name and has no same-named torch.npu
        counterpart (nothing known about it)."""
        if not (name == "torch.cuda" or name.startswith("torch.cuda.")):
            return None
        if name == "torch.cuda":
            return CudaApi(name, "torch.npu", None, "")
        renames = _renames()
        parts = name.split(".")
        for i in range(len(parts), 2, -1):
            key = ".".join(parts[:i])
            entry = renames.get(key)
            if entry is None:
                continue
            target = entry.get("npu")
            if target is not None and i < len(parts):
                target = target + "." + ".".join(parts[i:])
            if target is not None and not self.has_api(target):
                target = None
            alt = entry.get("alternative")
            alt_api = entry.get("alternative_api")
            if alt_api and i < len(parts) and self.is_module(alt_api):
                # a suffix only makes sense below a module (torch_npu.profiler.profile is a class)
                cand = alt_api + "." + ".".join(parts[i:])
                if self.has_api(cand):
                    alt = cand
            note = entry.get("note", "")
            if target is None and entry.get("npu") is not None:
                note = (note + " " if note else "") + \
                    f"({entry['npu']} does not exist in torch_npu {self.version})"
            neutral = entry.get("neutral") if i == len(parts) else None
            return CudaApi(name, target, alt, note, neutral=neutral, works_as=entry.get("works_as") if i == len(parts) else None)
        same = "torch.npu." + ".".join(parts[2:])
        if self.has_api(same):
            return CudaApi(name, same, None, "")
        if len(parts) == 4 and parts[2] in ("memory", "random", "streams", "graphs"):
            top = "torch.npu." + parts[3]  # torch.cuda.memory.X is re-exported as torch.cuda.X
            if self.has_api(top):
                return CudaApi(name, top, None, f"torch.npu.{parts[2]} lacks it; torch.npu has it")
        cuda = torch_cuda_names()
        mod = ".".join(parts[:-1])
        public = (name in cuda) or (mod in cuda and parts[-1] in cuda[mod]) or \
            (len(parts) > 3 and parts[2] in cuda.get("torch.cuda", ()))
        if not public:
            return None
        return CudaApi(name, None, None,
                       f"{same} does not exist in torch_npu {self.version}")

    # -- unsupported python APIs
    def unsupported_apis(self) -> dict[str, tuple[str, ...]]:
        return dict(_unsupported(self.version))

    def api_ops(self, api: str) -> tuple[str, ...] | None:
        """aten ops recorded for a python API (torch 2.14.1 CPU trace), or None if not traced."""
        return _api_ops().get(api)


@functools.cache
def _unsupported(version: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    kb = load(version)
    needs, cpu_only, _ = _torch_ops()
    out = []
    for api, ops in _api_ops().items():
        missing = tuple(op for op in ops if "::" not in op and op not in cpu_only
                        and kb.op_supported(op) is False)
        if missing:
            out.append((api, missing))
    return tuple(out)


@functools.cache
def _load(version: str) -> KnowledgeBase:
    d = read_json("data", "versions", f"{version}.json")
    return KnowledgeBase(
        version=version,
        provenance=dict(d["provenance"]),
        npu_ops=frozenset(d["npu_ops"]),
        custom_ops=frozenset(d["custom_ops"]),
        modules={k: frozenset(v) for k, v in d["modules"].items()},
        env_vars_seen=frozenset(d["env_vars_seen"]),
        transfer_to_npu=d.get("transfer_to_npu", {}),
        tensor_npu_methods=bool(d.get("tensor_npu_methods", True)),
        definitions={k: frozenset(v) for k, v in d.get("module_definitions", {}).items()},
        deprecated=dict(d.get("deprecated", {})),
    )


@functools.cache
def load(version: str | None = None) -> KnowledgeBase:
    """KnowledgeBase for a torch_npu release line (None -> resolve_version(None)). Cached."""
    return _load(resolve_version(version))


@functools.lru_cache(maxsize=1)
def third_party() -> dict[str, ThirdParty]:
    out = {}
    for root, e in read_toml("third_party.toml").get("package", {}).items():
        out[root] = ThirdParty(
            name=e.get("name", root), pip_names=tuple(e.get("pip_names", ())),
            status=e["status"], severity=e["severity"], alternative=e.get("alternative"),
            alternative_api=e.get("alternative_api"), note=e.get("note", ""),
            source=e["source"], pypi_namesake=e.get("pypi_namesake"), selectors=tuple(e.get("selectors", ())),
            aliases=tuple(e.get("aliases", ())), npu_plugin=e.get("npu_plugin"),
            plugin_modules=tuple(e.get("plugin_modules", ())),
            npu_extras=tuple(e.get("npu_extras", ())),
            plugin_api=frozenset(e.get("plugin_api", ())), folder_names=tuple(e.get("folder_names", ())),
            fork_of=e.get("fork_of"), reexports=tuple(sorted(e.get("reexports", {}).items())),
            pure_api=tuple(e.get("pure_api", ())), use_only=bool(e.get("use_only", False)),
            loads_module=e.get("loads_module"), installs_without_cuda=bool(e.get("installs_without_cuda", False)),
            npu_install=e.get("npu_install"), npu_backend=e.get("npu_backend"),
            npu_device_keyword=e.get("npu_device_keyword"), npu_device_values=tuple(e.get("npu_device_values", ())),
            device_cuda_only=tuple(e.get("device_cuda_only", ())),
            commands=tuple(e.get("commands", ())), selected_by=tuple(e.get("selected_by", ())))
    return out


@functools.lru_cache(maxsize=1)
def forked_roots() -> dict[str, str]:
    """Import root of a renamed copy of a kernel language -> that language's root (`triton_pre_mlir` -> `triton`)."""
    return {root: entry.fork_of for root, entry in third_party().items() if entry.fork_of}


@functools.lru_cache(maxsize=1)
def reexported_modules() -> dict[str, str]:
    """Dotted name a package re-exports -> the module it is (`vllm.triton_utils.tl` -> `triton.language`)."""
    return {name: target for entry in third_party().values() for name, target in entry.reexports}


@dataclass(frozen=True)
class DeviceNeutral:
    """A package verified from its own PyPI file to run without CUDA (data/device_neutral.toml)."""
    imports: tuple[str, ...]
    pip_names: tuple[str, ...]
    source: str
    note: str = ""


@functools.lru_cache(maxsize=1)
def device_neutral() -> dict[str, DeviceNeutral]:
    return {key: DeviceNeutral(imports=tuple(e["imports"]), pip_names=tuple(e["pip_names"]), source=e["source"],
                               note=e.get("note", ""))
            for key, e in read_toml("data/device_neutral.toml").get("package", {}).items()}


@functools.lru_cache(maxsize=1)
def env_vars() -> dict[str, EnvVar]:
    out = {}
    for name, e in read_toml("env_vars.toml").get("var", {}).items():
        npu = e.get("npu") or None
        out[name] = EnvVar(name=name, npu=npu, note=e.get("note", ""), source=e["source"], npu_older=e.get("npu_older"))
    return out
