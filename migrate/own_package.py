"""A package's own files are not users of it (NPU501 / NPU507 / NPU510).

Scanning Liger-Kernel's repository itself, `src/liger_kernel/ops/swiglu.py` imports
`liger_kernel.ops.utils`: that is the package's own code, not training code that depends on a
GPU-first package. A file is inside package R when one of its ancestor directories is named R and
holds an `__init__.py` *that is part of the same scan* while its parent holds none (a top-level package:
`pkg/ops/triton/` is the subpackage `pkg.ops.triton`, and `import triton` in it is still Triton), or sits directly under a `src/` directory
(the src layout, `src/liger_kernel/`, when only some files are scanned); a package one folder below a checkout's
own `setup.py` / `pyproject.toml` (`package_dir={"": "python"}`: EETQ's `python/eetq/`) is beside that checkout's
tests and examples as in the src layout. Decided after the per-file pass from the
list of scanned paths on every run (never cached), so adding or removing an `__init__.py` is seen
at once; `apex/examples/...` in NVIDIA's apex repository stays a user of apex because `apex/` there
is the checkout, not the package (`apex/apex/__init__.py` is). The checkout's `tests/`, `test/` and
`benchmarks/` directories (and their other spellings: `_OWN_TEST_DIRS`) beside the package (`causal-conv1d/tests/` next to
`causal-conv1d/causal_conv1d/__init__.py`) are the package's own too, and so are test and benchmark files
beside it (`marlin/test.py`, `marlin/bench.py` next to `marlin/marlin/__init__.py`), and so is its `setup.py`
(KNN_CUDA's reads the version from `knn_cuda`); other scripts there
(`marlin/gptq/llama2.py`) stay users, like examples. A checkout VENDORED below the scan's root (its own
`setup.py` / `pyproject.toml` beside the package: openai/jukebox's `apex/`) is the package's own as a whole,
examples and docs included (label ruling (L24)). A namespace folder named R (no `__init__.py`) holding module files
`R/m.py` is the repository's own for the imports of those modules (`from gsplat.gau_io import *` beside gsplat/gau_io.py).
"""

from __future__ import annotations

import os
import re

from migrate import default_kernels
from migrate.findings import FileResult

CODES = ("NPU501", "NPU507", "NPU510")
# a checkout's test and benchmark directories exercise the package beside them (Dao-AILab/causal-conv1d's
# tests/ call causal_conv1d_fn): its own code, not a user's. So do its examples/ (label precedent: set 7's EETQ
# examples calling `eetq`, set 15's hqq examples importing `hqq`, set 23's lightning-attention examples importing
# `lightning_attn` (rule S23B-(s23b-6)) were never labels; what they import from another package still is)
# The same words' other spellings are the same folders (microsoft/BitBLAS: benchmark/, testing/, tutorials/ beside bitblas/,
# every file importing bitblas; set 37d labelled none of them): a checkout's `scripts/` or `tools/` stay users.
# Its `integration/` folder (adapters of the package into other frameworks: BitBLAS's integration/pytorch/,
# integration/BitNet/, integration/mlc_llm/, 202 lines of bitblas imports and calls, none labelled in set 37d) is
# example code of the same kind; what it imports from OTHER GPU-only packages (vllm, auto_gptq) is still reported
_OWN_TEST_DIRS = frozenset({"tests", "test", "testing", "benchmarks", "benchmark", "bench", "examples", "example",
                            "tutorials", "tutorial", "demos", "demo", "integration", "integrations"})
# the same as single files beside the package (IST-DASLab/marlin's test.py and bench.py next to marlin/), and the
# checkout's setup.py (unlimblue/KNN_CUDA's setup.py reads `from knn_cuda import __version__` to build knn_cuda itself)
_OWN_TEST_FILES = re.compile(r"^(?:tests?|test_\w+|\w+_test|bench(?:mark)?s?|bench(?:mark)?_\w+|setup)\.py$")


def _roots() -> frozenset[str]:
    from migrate import knowledge

    return frozenset(key.split(".", 1)[0] for key in knowledge.third_party())


def own_packages(paths, candidates=None, used=None) -> dict[str, frozenset[str]]:
    """path -> names of the third-party packages (knowledge roots) the file is part of, for each of
    `candidates` (default: every path); `paths` is the whole scan (its `__init__.py` files count). `used`: the top-level names the
    scan's files import absolutely (their "imp" facts; None: not known). A package directory named R inside another
    package is the subpackage `P....R`, not R, where the top package P of its chain is imported by that name
    (`lightning_attn/ops/triton/`: `lightning_attn` is imported, so its `import triton` is Triton's); a chain whose
    top no file imports is no package on sys.path (EETQ's python/ holds a stray `__init__.py` beside
    `package_dir={"": "python"}`: python/eetq/ is `eetq`); nor is a chain whose top sits in a namespace folder (no
    `__init__.py`) that the scan imports by name (`train/ops/triton/` where files import `train.utils`)."""
    roots = _roots()
    paths = list(paths)
    package_dirs = _checkout_root_aside(paths, {os.path.dirname(os.path.normpath(p)) for p in paths
                                                if os.path.basename(p) == "__init__.py"})

    def top_level(directory: str, name: str) -> bool:
        if os.path.dirname(directory) not in package_dirs or used is None:
            return True
        top = os.path.dirname(directory)
        while os.path.dirname(top) in package_dirs and os.path.dirname(top) != top:
            top = os.path.dirname(top)
        # the chain's top may itself sit in a namespace package (PEP 420: a folder with no `__init__.py`) that the
        # scan imports by name: HazyResearch/based's train/ops/triton/ below train/ops/__init__.py, where train/ holds
        # none and its files import `train.utils...`: the folder is `train.ops.triton`, not Triton
        namespace = os.path.basename(os.path.dirname(top))
        return os.path.basename(top) not in used and not (namespace and namespace in used)
    vendored = _vendored_checkouts(paths, package_dirs, roots)

    layouts = _package_dir_layouts(paths, package_dirs, roots)

    modules = _module_files(paths, roots)

    def script_folder(directory: str) -> bool:
        """`directory` is no package the scan imports by its name: a script run there (or a test collected there)
        has it on sys.path, so an absolute `import R` finds the `R.py` beside it (Python 3 never resolves it to a
        sibling module of a package imported as `pkg.R`)."""
        if directory not in package_dirs:
            # a folder without `__init__.py` inside a package is a namespace subpackage of it (Megatron's
            # megatron/core/transformer/custom_layers/, imported as `megatron.core....custom_layers.transformer_engine`):
            # judged by its parent's chain; a folder outside any package is a script folder
            parent = os.path.dirname(directory)
            if parent not in package_dirs or parent == directory:
                # ... unless the scan imports the folder itself by name (a namespace package on sys.path:
                # Zefan-Cai/KVCache-Factory's pyramidkv/, imported as `pyramidkv.monkeypatch`, whose minference.py is
                # `pyramidkv.minference`; its own `from minference.modules... import` is microsoft's MInference)
                return used is None or os.path.basename(directory) not in used
            directory = parent
        top = directory
        while os.path.dirname(top) in package_dirs and os.path.dirname(top) != top:
            top = os.path.dirname(top)
        name = os.path.basename(top)
        return not name or (used is not None and name not in used)

    def own_modules(directory: str) -> set[str]:  # knowledge roots written as module files `R.py` in `directory`
        found = modules.get(directory)
        return set(found) if found and script_folder(directory) else set()

    def beside(directory: str) -> set[str]:  # packages directly in `directory` (or in its src/ or package_dir folder)
        return {r for r in roots if os.path.join(directory, r) in package_dirs or os.path.join(directory, "src", r) in package_dirs} \
            | layouts.get(directory, set()) | own_modules(directory)

    memo: dict[str, frozenset[str]] = {}

    def upward(directory: str) -> frozenset[str]:
        """What `directory` and its ancestors make a file below them part of; once per directory (a
        scan's files share most of their ancestors: torch's 2,352 files have 180 directories)."""
        found = memo.get(directory)
        if found is None:
            names = set()
            name = os.path.basename(directory)
            # a package directory named like R inside another package (`pkg/ops/triton/__init__.py`) is the
            # subpackage `pkg.ops.triton`: Python 3 resolves an absolute `import triton` to the top-level package,
            # never to a sibling subpackage, so only a top-level directory (its parent no package) is R itself
            if name in roots and ((directory in package_dirs and top_level(directory, name)) or _src_layout(directory)):
                names.add(name)
            if name in _OWN_TEST_DIRS:  # the package's own tests, beside it in its checkout
                names |= beside(os.path.dirname(directory))
            names |= vendored.get(directory, set())
            parent = os.path.dirname(directory)
            if parent and parent != directory:
                names |= upward(parent)
            found = memo[directory] = frozenset(names)
        return found

    out: dict[str, frozenset[str]] = {}
    for path in paths if candidates is None else candidates:
        current = os.path.dirname(os.path.normpath(path))
        names = upward(current) if current else frozenset()
        if _OWN_TEST_FILES.match(os.path.basename(path)):  # a test or benchmark file beside the package
            # ... or beside the module file `R.py`, even in a package folder: a test or benchmark script is run, never
            # imported as `pkg.test_x`, so its folder is sys.path[0] and `import R` is that file (JonasSchult/Mask3D's
            # utils/pointops2/functions/test_*.py scripts beside pointops.py, the wrapper of its own pointops2_cuda;
            # label note 63d: `import pointops` there is a Python module, its calls wrapper calls)
            names = names | beside(current) | modules.get(current, set())
        else:  # a script beside the repository's own module `R.py` (jinfagang/DCNv2_latest's testcuda.py by dcn_v2.py)
            names = names | own_modules(current)
        if names:
            out[path] = frozenset(names)
    return out


def _checkout_root_aside(paths, package_dirs: set[str]) -> set[str]:
    """`package_dirs` without the scanned checkout's own root where that root holds an `__init__.py` beside its
    `setup.py` / `pyproject.toml`: a ComfyUI custom-node entry (hao-ai-lab/FastVideo's root `__init__.py` registers
    its nodes) makes the checkout importable as a node, but its packages (`fastvideo/`) are still imported by their own
    names from the checkout root on sys.path. Counted as a package, the root would end every package chain at a folder
    with no name, so `fastvideo/attention/backends/` read as a script folder and its `flash_attn.py` (the repository's
    own backend module) as flash_attn itself, dropping every flash_attn use of the repository."""
    names = {os.path.normpath(p) for p in paths}
    directories = [os.path.dirname(p) for p in names]
    try:
        root = os.path.commonpath(directories) if directories else None
    except ValueError:  # absolute and relative paths mixed
        return package_dirs
    if root is None or root not in package_dirs or not any(
            os.path.join(root, f) in names for f in ("setup.py", "pyproject.toml")):
        return package_dirs
    return package_dirs - {root}


def _module_files(paths, roots) -> dict[str, set[str]]:
    """Directory -> the knowledge roots the scan holds there as a module FILE (`dcn_v2.py`): a repository that is
    itself a single-module package (CharlesShang/DCNv2's forks keep dcn_v2.py at the checkout's root beside the
    `_ext` extension it builds) defines that name; its scripts and tests that `import dcn_v2` run its own wrapper
    (label rulings (L81)/(L85)/(L93): an import of the repository's own package is Python), while what the module
    calls of its compiled extension stays reported where it is (NPU508)."""
    out: dict[str, set[str]] = {}
    for path in paths:
        path = os.path.normpath(path)
        base = os.path.basename(path)
        if base.endswith(".py") and base[:-3] in roots:
            out.setdefault(os.path.dirname(path), set()).add(base[:-3])
    return out


def _package_dir_layouts(paths, package_dirs, roots) -> dict[str, set[str]]:
    """Checkout -> the catalogued packages it holds one folder down, beside its own `setup.py` / `pyproject.toml`:
    `package_dir={"": "python"}` puts `python/eetq/` (NetEase-FuXi/EETQ) where the src layout puts `src/eetq/`, so the
    checkout's examples/ and tests/ beside that folder exercise the package as they do beside `src/`."""
    names = {os.path.normpath(p) for p in paths}
    out: dict[str, set[str]] = {}
    for package in package_dirs:
        folder, name = os.path.split(package)
        checkout = os.path.dirname(folder)
        if name in roots and folder and os.path.basename(folder) != "src" and any(
                os.path.join(checkout, f) in names for f in ("setup.py", "pyproject.toml")):
            out.setdefault(checkout, set()).add(name)
    return out


def _vendored_checkouts(paths, package_dirs, roots) -> dict[str, set[str]]:
    """See _find_vendored_checkouts; one scan asks up to four times for the same list of paths (the own-package
    filters, the vendored-kernel check, the side folders): answered once per list (a tuple of a whole
    scan's paths, torch's 2,449 files: 0.16 s for the four before)."""
    key = (tuple(paths), frozenset(package_dirs), roots)
    if _LAST_CHECKOUTS[0] != key:
        _LAST_CHECKOUTS[:] = [key, _find_vendored_checkouts(key[0], package_dirs, roots)]
    return {name: set(found) for name, found in _LAST_CHECKOUTS[1].items()}


_LAST_CHECKOUTS: list = [None, {}]  # [key, answer] of the latest _vendored_checkouts


def _find_vendored_checkouts(paths, package_dirs, roots) -> dict[str, set[str]]:
    """Checkouts of a catalogued package copied into the scanned repository: a directory below the scan's root
    holding the package and its own `setup.py` / `pyproject.toml` (openai/jukebox vendors NVIDIA apex as
    `apex/setup.py` + `apex/apex/__init__.py`). Every file of such a copy, its examples and docs too, is the
    package's own (label ruling (L24), set 22's (v7)); the scanned checkout itself keeps its docs as users."""
    names = {os.path.normpath(p) for p in paths}
    directories = [os.path.dirname(p) for p in names]
    try:
        root = os.path.commonpath(directories) if directories else ""
    except ValueError:  # absolute and relative paths mixed
        return {}
    out: dict[str, set[str]] = {}
    for package in package_dirs:
        checkout, name = os.path.split(package)
        if name in roots and checkout and checkout != root and (
                os.path.join(checkout, "setup.py") in names or os.path.join(checkout, "pyproject.toml") in names):
            out.setdefault(checkout, set()).add(name)
    return out


# a file that builds or is built: what a vendored checkout's folder holds when it is part of the copy's build
_BUILD_FILES = frozenset({"setup.py", "CMakeLists.txt"})
_KERNEL_SOURCES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")
# the GPU-only dependency family: what such a folder exercises is the upstream's own package and its own test stack
_DEPENDENCY_FAMILY = "NPU5"


def vendored_side_folders(paths) -> frozenset[str]:
    """The folders of a vendored checkout (see _vendored_checkouts) beside its package that neither build nor hold
    kernel sources: its tests/, benchmarks/, its own example trainer (flash-attention's training/), docs. They are
    the upstream's own exercise of the package it ships (label ruling (L24)): the repository that copied the
    checkout runs the package and its build, not these folders, so what they import from OTHER GPU-only packages
    (apex.transformer in flash-attention's parallel tests, gpustat in its trainer's Dockerfile) is no work item of
    the port either. A folder below the checkout holding a setup.py, a CMakeLists.txt or a C/C++/CUDA source
    (flash-attention's csrc/) stays: it is part of the copy's build.
    Only a checkout of a GPU-only package counts (one whose import the knowledge reports: not `works`, not a
    `partial` package noted `info`): a vendored DeepSpeed runs on an NPU, so its op_builder/, requirements/ and
    scripts are code the repository ships like its own, and what they build or use is reported (label rule 36d-3)."""
    paths = [os.path.normpath(p) for p in paths]
    package_dirs = {os.path.dirname(p) for p in paths if os.path.basename(p) == "__init__.py"}
    checkouts = {checkout: packages for checkout, packages in _vendored_checkouts(paths, package_dirs, _roots()).items()
                 if any(_gpu_only(name) for name in packages)}
    if not checkouts:
        return frozenset()
    folders: dict[str, bool] = {}  # checkout/<top folder> -> holds a build or kernel source
    for path in paths:
        for checkout, packages in checkouts.items():
            if not path.startswith(checkout + os.sep):
                continue
            rest = path[len(checkout) + 1:].split(os.sep)
            if len(rest) < 2 or rest[0] in packages:
                continue
            folder = os.path.join(checkout, rest[0])
            base = rest[-1]
            builds = base in _BUILD_FILES or base.endswith(_KERNEL_SOURCES)
            folders[folder] = folders.get(folder, False) or builds
    return frozenset(folder for folder, builds in folders.items() if not builds)


def _gpu_only(root: str) -> bool:
    """The knowledge's top-level entry `root` is a GPU-only package (its import is reported)."""
    from migrate import knowledge
    from migrate.rules.npu501_gpu_only_import import needs_a_look

    entry = knowledge.third_party().get(root)
    return entry is not None and needs_a_look(entry)


def drop_vendored_side_folders(results: list[FileResult]) -> list[FileResult]:
    """No GPU-only dependency finding (NPU5xx) in a vendored checkout's tests, benchmarks or example trainer."""
    if not any(f.code.startswith(_DEPENDENCY_FAMILY) for r in results for f in r.findings):
        return results
    folders = vendored_side_folders([r.path for r in results])
    if not folders:
        return results
    out = []
    for result in results:
        path = os.path.normpath(result.path)
        if not any(path.startswith(folder + os.sep) for folder in folders):
            out.append(result)
            continue
        kept = tuple(f for f in result.findings if not f.code.startswith(_DEPENDENCY_FAMILY))
        out.append(result if len(kept) == len(result.findings) else
                   FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts))
    return out


def _src_layout(directory: str) -> bool:
    """`<checkout>/src/<package>/`: the src layout names the package directory itself."""
    return os.path.basename(os.path.dirname(directory)) == "src"


def used_root(finding) -> str | None:
    """The top-level import name of the package a NPU501 / NPU507 / NPU510 finding is about
    (`liger_kernel` for `liger_kernel.ops.utils`; NPU510 the API the project name stands for)."""
    return finding.package.split(".", 1)[0] if finding.package else None


def _built_here(result: FileResult) -> FileResult:
    """A catalogue finding (NPU501 / NPU507) on a line where NPU508 reports the same name as an extension the
    repository builds itself (exllama's `from exllama_ext import q4_matmul` after its own `load(name="exllama_ext")`,
    a name the catalogue also knows from the exllama wheel): the repository's own kernel, reported once, by NPU508.
    Also on the lines of the file where NPU508 leaves a use of that build unreported (an op called in a wrapper named
    for the CPU, migrate/cpu_fallbacks.py): the name is the repository's build throughout the file."""
    built = {f.package.split(".", 1)[0] for f in result.findings if f.code == "NPU508" and f.package}
    if not built:
        return result
    kept = tuple(f for f in result.findings if not (f.code in ("NPU501", "NPU507") and used_root(f) in built))
    if len(kept) == len(result.findings):
        return result
    return FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts)


def _absolute_imports(results: list[FileResult]) -> frozenset[str]:
    """The top-level names the scan's files import absolutely (their "imp" facts)."""
    return frozenset(fact[1] for r in results for fact in getattr(r, "facts", ()) or ()
                     if fact and fact[0] == "imp" and isinstance(fact[1], str))


def vendored_with_kernels(results: list[FileResult]) -> frozenset[str]:
    """Catalogued packages whose source is part of the scan and builds its kernels here: a file inside
    package R (an `R/__init__.py` of the scan) uses an extension the repository builds under R's name
    (NPU508 on `R._C`: mip-splatting vendors `diff_gaussian_rasterization/` and builds
    `diff_gaussian_rasterization._C` from its own setup.py), whatever the extension's own name (turboderp/exllamav2's
    `exllamav2/ext.py` loads the `exllamav2_ext` it builds: the checkout of the catalogued `exllamav2`, whose root
    scripts and eval/ folder import the package). Its kernels are reported there (NPU505/506/508);
    the repository's other files that import R call the repository's own wrapper, as for any
    `Function.apply` alias of a kernel it builds, so the catalogue's NPU501/NPU507 do not apply to them, nor
    NPU510 to a name re-exported from R through another module (SnowflakeNet's models/utils.py re-exports its
    vendored pointnet2_ops' `grouping_operation` to its other files).
    A vendored package that builds nothing in the scan stays a third-party package. A package whose files register a
    torch.library namespace served by a Python default kernel (migrate/default_kernels.py: its `torch.ops.<ns>` uses are
    no NPU508 findings then) is the package too: bitsandbytes' own checkout, whose benchmarks import `bitsandbytes`.
    A folder named like R below a package the scan imports by name is that package's subpackage, not R (vipshop/cache-dit's
    src/cache_dit/kernels/triton/ registers its Triton ops with torch.library: `cache_dit.kernels.triton`, whose
    `import triton` is Triton's): judged with the scan's absolute imports (`used`), as `drop_own_uses` does."""
    holders = [r.path for r in results if any(f.code == "NPU508" for f in r.findings)
               or any(fact[0] == "def" and fact[1] == default_kernels.KIND for fact in getattr(r, "facts", ()) or ())]
    if not holders:
        return frozenset()
    inside = own_packages([r.path for r in results], holders, _absolute_imports(results))
    return frozenset(name for path in holders for name in inside.get(path, frozenset()))


def _namespace_folders(paths, roots) -> dict[str, frozenset[str]]:
    """Folder `D/R` -> the module files it holds (`m` for `D/R/m.py`), for each folder of the scan named
    like a knowledge root R that is a namespace package (PEP 420: no `__init__.py`) outside any package: the
    repository's own modules, imported as `R.m` by scripts run from `D` or below it (scomup/EasyGaussianSplatting's
    gsplat/gau_io.py, sh_coef.py, ... beside train.py's `from gsplat.gau_io import *`: not nerfstudio's gsplat, which
    holds no such module). Only an import naming one of those modules is the folder's: a bare `import R`, or `R.x` for
    a module the folder lacks, is still the installed package (a regular package anywhere on sys.path wins over a
    namespace portion, so the folder can only be what the installed package does not hold)."""
    present = [os.path.normpath(p) for p in paths]
    package_dirs = {os.path.dirname(p) for p in present if os.path.basename(p) == "__init__.py"}
    out: dict[str, set[str]] = {}
    for path in present:
        if not path.endswith(".py"):
            continue
        folder = os.path.dirname(path)
        if os.path.basename(folder) not in roots or folder in package_dirs or os.path.dirname(folder) in package_dirs:
            continue
        out.setdefault(folder, set()).add(os.path.basename(path)[:-3])
    return {folder: frozenset(modules) for folder, modules in out.items()}


_DOTTED = re.compile(r"`(\w+(?:\.\w+)+)")


def _from_namespace_folder(finding, folders: dict[str, frozenset[str]]) -> bool:
    """The finding's dotted name (the first `R.m...` its message quotes) is a module of a namespace folder `D/R` of
    the scan, with `D` the file's folder or one of its ancestors (a script run from the checkout's root)."""
    root = used_root(finding)
    match = _DOTTED.search(finding.message)
    if not root or match is None or not match.group(1).startswith(root + "."):
        return False
    module = match.group(1).split(".")[1]
    directory = os.path.dirname(os.path.normpath(finding.path))
    while True:
        if module in folders.get(os.path.join(directory, root) if directory else root, ()):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def drop_own_uses(results: list[FileResult]) -> list[FileResult]:
    results = [_built_here(r) for r in results]
    candidates = [r.path for r in results if any(f.code in CODES for f in r.findings)]
    if not candidates:
        return results
    used = _absolute_imports(results)
    own = own_packages([r.path for r in results], candidates, used)
    vendored = vendored_with_kernels(results)
    roots = _roots()
    folders = _namespace_folders([r.path for r in results], used & roots)
    if not own and not vendored and not folders:
        return results
    out = []
    for result in results:
        names = own.get(result.path, frozenset())
        if not names and not vendored and not folders:
            out.append(result)
            continue
        kept = tuple(f for f in result.findings if not (
            (f.code in CODES and used_root(f) in names)
            or (f.code in CODES and used_root(f) in vendored)
            or (f.code in CODES and folders and _from_namespace_folder(f, folders))))
        if len(kept) == len(result.findings):
            out.append(result)
        else:
            out.append(FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts))
    return out


def _installable_packages(paths) -> frozenset[str]:
    """Knowledge roots the checkout itself holds as an installable package: `<...>/src/<root>/__init__.py` (the src
    layout), or `<dir>/<root>/__init__.py` with a setup.py / pyproject.toml / setup.cfg in `<dir>`."""
    roots = _roots()
    present = {os.path.normpath(p) for p in paths}
    out = set()
    for path in present:
        if os.path.basename(path) != "__init__.py":
            continue
        package = os.path.dirname(path)
        name, parent = os.path.basename(package), os.path.dirname(package)
        if name in roots and (os.path.basename(parent) == "src" or any(
                os.path.join(parent, f) in present for f in ("setup.py", "pyproject.toml", "setup.cfg"))):
            out.add(name)
    return frozenset(out)


def drop_self_installs(results: list[FileResult]) -> list[FileResult]:
    """NPU502 on a requirement naming the package this checkout holds (AQLM's notebooks: `!pip install aqlm[gpu]`
    beside inference_lib/src/aqlm/): the repository installs itself, whose kernels are reported where they are
    (label rule (R3)); the line names no third-party dependency to replace. Matched by the requirement's
    normalised name, which each NPU502 message starts with."""
    if not any(f.code == "NPU502" for r in results for f in r.findings):
        return results
    own = _installable_packages([r.path for r in results])
    if not own:
        return results
    from migrate.sources import normalise

    prefixes = tuple("`" + normalise(name) for name in own)

    def installs_itself(finding) -> bool:
        message = finding.message
        return finding.code == "NPU502" and any(
            message.startswith(p) and message[len(p):len(p) + 1] in ("`", "[", "=", "<", ">", "~", "!", ";", " ")
            for p in prefixes)

    out = []
    for result in results:
        kept = tuple(f for f in result.findings if not installs_itself(f))
        out.append(result if len(kept) == len(result.findings) else
                   FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts))
    return out


def drop_self_selections(results: list[FileResult]) -> list[FileResult]:
    """NPU503 on an option or class that selects the package this checkout holds (bitsandbytes' own benchmarks and
    examples: `from_pretrained(name, load_in_4bit=True)`, `BitsAndBytesConfig(...)` beside its `bitsandbytes/` package
    and pyproject.toml): what the value selects is the repository's own package, whose GPU-only parts are reported
    where they are (its kernels, builds and compiled calls, label rule (R3) as for `pip install` of itself above,
    46d-2); the line names no third-party library to drop. Matched by the finding's package (the option table's
    `package`, gpu_only_options.toml), checkout-wide like drop_self_installs: every file of the checkout selects the
    same package."""
    if not any(f.code == "NPU503" and f.package for r in results for f in r.findings):
        return results
    own = _installable_packages([r.path for r in results])
    if not own:
        return results
    out = []
    for result in results:
        kept = tuple(f for f in result.findings if not (f.code == "NPU503" and used_root(f) in own))
        out.append(result if len(kept) == len(result.findings) else
                   FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts))
    return out
