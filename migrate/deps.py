"""The scan's open-world inventory: dependencies npu-migrate does not know, and kernels to port.

The knowledge base is a closed list (migrate/knowledge/third_party.toml): a package missing from it
is not "fine", it is *unknown*. Every top-level name a Python file imports that is not the standard
library, not torch / torch_npu, not one of the scanned repository's own modules or directories and
not in the knowledge base (the GPU catalogue, or the device-neutral packages of
knowledge/data/device_neutral.toml, each verified from its own wheel to run without CUDA) is listed with where it is imported, so a porting engineer checks it
runs on Ascend instead of trusting silence.

Import facts ("imp", root, line) are read in the per-file pass with the same cheap line pattern the
repository index uses (migrate/repo_index.py), literal `importlib.import_module("pkg")` included, and
manifests add the distributions they declare ("req", name, line: requirements*.txt, pyproject,
setup.py install_requires, setup.cfg, environment.yml); both are cached with the file. The
repository's own names and the grouping are computed after the scan on every run.

"Kernels to port" groups NPU508 findings by the custom extension they use, with where it is built
and the CUDA sources (NPU506 files) under the directory that builds it (or under the directory its
dotted name points to, `basicsr.ops.dcn.deform_conv_ext` -> `basicsr/ops/dcn/`). The imports and
calls of the repository's own `Function.apply` wrapper of a kernel (`sort_v = SortVertices.apply`)
are not findings: the wrapper's body is the line to change, its callers run once it is ported. They
are the kernel's call sites (`split_wrapper_calls`), listed in its row beside the lines NPU508 reports.
"""

from __future__ import annotations

import functools
import os
import re
from collections import defaultdict

from migrate.repo_index import STDLIB, import_facts, module_parts
from migrate.sources import PIXI_MANIFEST, is_conda_env, normalise

_STDLIB = STDLIB | {"__future__", "__main__"}
# torch itself and its Ascend adapter: the knowledge base's own subject (API maps, op support)
_TORCH = frozenset({"torch", "torch_npu"})
# the Python packaging tools a setup.py imports: pure Python, part of every install, never a device question
_PACKAGING = frozenset({"setuptools", "pkg_resources", "pip", "wheel"})


def import_roots(text: str) -> list[tuple[str, int]]:
    """(top-level name, line) of each absolute import statement of a Python file, first line per name."""
    return import_facts("", text)[1]


def lists_python_packages(path: str) -> bool:
    """A manifest whose entries are Python distributions (requirements*.txt, pyproject.toml,
    setup.py, setup.cfg); a conda environment file lists system libraries too (zlib, vc, libcurl),
    which are no question for an Ascend port, so its entries stay out of the open-world list; so does a pixi.toml
    (conda packages beside PyPI ones)."""
    return not is_conda_env(path) and path.replace("\\", "/").rsplit("/", 1)[-1] != PIXI_MANIFEST


@functools.lru_cache(maxsize=1)
def known_roots() -> frozenset[str]:
    """The import names the knowledge base knows: the catalogue's (third_party.toml) and the device-neutral
    packages' (data/device_neutral.toml: verified to run without CUDA, so no question for an Ascend port)."""
    from migrate import knowledge

    return frozenset(key.split(".", 1)[0] for key in knowledge.third_party()) | frozenset(
        name for entry in knowledge.device_neutral().values() for name in entry.imports) | frozenset(
        plugin.replace("-", "_") for plugin in _npu_plugins())


def _npu_plugins() -> frozenset[str]:
    """The Ascend plugins the catalogue names (`npu_plugin`: vllm-ascend, triton-ascend, mindspeed, dlinfer-ascend),
    normalised: the NPU side of a package the knowledge base knows, so no dependency to verify on Ascend (imported
    as `vllm_ascend` / `mindspeed`, declared as `vllm-ascend`)."""
    from migrate import knowledge

    return frozenset(normalise(entry.npu_plugin) for entry in knowledge.third_party().values() if entry.npu_plugin)


def _python2_stdlib() -> frozenset[str]:
    """The Python 2.7 standard library's modules Python 3 no longer has (data/python2_stdlib.toml: `StringIO`,
    `cPickle`, `urllib2` ...): imports of partly-Python-2 code, known, not unknown dependencies."""
    from migrate import knowledge

    return frozenset(knowledge.read_toml("data/python2_stdlib.toml")["modules"])


def own_names(paths) -> frozenset[str]:
    """Every directory name and module name of the scanned files: an import of one of them is the
    repository's own code (scripts put their directories on sys.path, so any level counts)."""
    names: set[str] = set()
    for path in paths:
        parts = module_parts(path)
        names.update(parts)
        if os.path.basename(path).endswith((".so", ".pyd")):
            names.add(os.path.basename(path).split(".", 1)[0])
    return frozenset(names)


def broken_link(result) -> bool:
    """A scanned path that is a symbolic link to nothing (NPU903): no code of the repository's. A committed link
    into an absent git submodule (`fla -> 3rdparty/flash-linear-attention/fla`) names an external package, so
    an import of that name is a dependency, not the repository's own module."""
    return any(e.code == "NPU903" and e.message.startswith("broken symbolic link") for e in getattr(result, "errors", ()))


def unknown_dependencies(files, index=None) -> dict[str, list[str]]:
    """{import name: ["path:line", ...]} for every import npu-migrate has no knowledge of (and every
    distribution a manifest declares that it does not know, under its import name when the code
    imports it by the same name), most widely used first. `index`: the scan's repo_index.build_index(files), when the caller has it."""
    from migrate import repo_index

    known = known_roots() | _TORCH | _STDLIB | _python2_stdlib() | _PACKAGING
    if index is None:  # extensions the repository builds itself are its own
        index = repo_index.build_index(files)
    own = own_names([r.path for r in files if not broken_link(r)]) | {name.split(".", 1)[0] for name in index.modules}
    where: dict[str, list[str]] = defaultdict(list)
    declared: list[tuple[str, str]] = []
    for result in files:
        reported = None  # what a rule reports on a manifest's line, by name, is known (NPU502's `nvidia-*-cu12` pins)
        for fact in getattr(result, "facts", ()):
            if fact[0] == "imp" and fact[1] not in known and fact[1] not in own and not _beside(result.path, fact[1]):
                where[fact[1]].append(f"{result.path}:{fact[2]}")
            elif fact[0] == "req" and lists_python_packages(result.path):
                if reported is None:
                    reported = {(f.line, name) for f in getattr(result, "findings", ())
                                for name in re.findall(r"`([^`\s]+)`", normalise(f.message))}
                if (fact[2], fact[1]) not in reported:
                    declared.append((fact[1], f"{result.path}:{fact[2]}"))
    if declared:  # requirements*.txt, pyproject, setup.py install_requires, setup.cfg, environment.yml
        known_dists = {normalise(name) for name in known | own} | _catalogue_distributions()
        imported = {normalise(name): name for name in where}
        for dist, place in declared:
            if dist not in known_dists:
                where[imported.get(dist, dist)].append(place)  # `numpy` declared and imported: one entry
    return {name: sorted(where[name]) for name in sorted(where, key=lambda n: (-len(where[n]), n))}


def _beside(path: str, name: str) -> bool:
    """`name` is a module or package next to the importing file (its folder is sys.path[0] when it runs):
    `analyze main.py` of a repository whose main.py imports its own `models/` and `utils.py`, which were not
    scanned. Looked up only for names nothing else knows; nothing is imported."""
    folder = os.path.dirname(path)
    if not path or path.startswith("<"):  # stdin
        return False
    return os.path.isfile(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name))


def _catalogue_distributions() -> frozenset[str]:
    """The distribution names the knowledge base knows (the catalogue's and the device-neutral entries'
    `pip_names`, and a catalogued package's repository names, `folder_names`: a VCS URL
    `git+https://.../diff-gaussian-rasterization-w-depth.git` stands for its package by that name), normalised."""
    from migrate import knowledge

    entries = [*knowledge.third_party().values(), *knowledge.device_neutral().values()]
    return frozenset(normalise(name) for entry in entries
                     for name in (*entry.pip_names, *getattr(entry, "folder_names", ()))) | _npu_plugins()


def split_wrapper_calls(results) -> tuple[list, tuple]:
    """(results without them, the wrapper calls): NPU508 reports the imports and calls of a
    `Function.apply` alias of a kernel at severity info, the one thing it reports that way (its
    `_finding`, `kernel_values.WRAPPER`)."""
    from migrate.findings import FileResult, Severity

    calls, out = [], []
    for r in results:
        kept = tuple(f for f in r.findings if not (f.code == "NPU508" and f.severity is Severity.INFO))
        if len(kept) == len(r.findings):
            out.append(r)
            continue
        calls += [f for f in r.findings if f.code == "NPU508" and f.severity is Severity.INFO]
        out.append(FileResult(r.path, r.kind, r.lines, kept, r.errors, r.suppressed, r.facts))
    return out, tuple(sorted(calls, key=lambda f: f.sort_key))


def kernels_to_port(files, findings, index=None, wrapper_calls=()) -> list[dict]:
    """One row per custom CUDA extension / op namespace the repository builds and uses: where it is
    built, its CUDA sources, how many lines import or call it (NPU508) and where (`call_sites`), and
    the call sites of its `Function.apply` wrappers (`wrapper_calls`, see `split_wrapper_calls`).
    `index` as above."""
    from migrate import repo_index

    if index is None:
        index = repo_index.build_index(files)
    numba_rows = _numba_cuda_kernels(files, findings)
    if not index.modules and not index.namespaces:
        return numba_rows
    uses: dict[str, int] = defaultdict(int)
    sites: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        if f.code == "NPU508" and f.package:
            uses[f.package] += 1
            sites[f.package].append(f"{f.path}:{f.line}")
    wrapped: dict[str, list[str]] = defaultdict(list)
    for f in wrapper_calls:
        if f.package:
            wrapped[f.package].append(f"{f.path}:{f.line}")
    cuda_files = sorted(f.path for f in findings if f.code == "NPU506")
    directories = {os.path.dirname(os.path.normpath(r.path)).replace(os.sep, "/") for r in files}
    rows: dict[str, dict] = {}
    for definition in list(index.modules.values()) + list(index.namespaces.values()):
        if not definition.cuda:
            continue
        name = extension_key(definition)
        if name in rows:
            continue
        home = _source_directory(definition, directories, cuda_files)
        sources = _listed(definition, index, cuda_files, home) or [p for p in cuda_files if _under(p, home)]
        rows[name] = {"extension": name, "built_at": f"{definition.path}:{definition.line}", "sources": sources, "uses": uses.get(name, 0),
                      "call_sites": list(dict.fromkeys(sites.get(name, ()))), "wrapper_calls": list(dict.fromkeys(wrapped.get(name, ())))}
    # one kernel built twice (a JIT `load(name="_grid_encoder")` and setup.py's `CUDAExtension("_gridencoder")`
    # over the same .cu files) is one kernel to port: rows with the same sources are merged
    merged: dict[tuple, dict] = {}
    for row in sorted(rows.values(), key=lambda r: (-r["uses"], r["extension"])):
        key = tuple(row["sources"]) or (row["extension"],)
        if key in merged:
            first = merged[key]
            first["extension"] += " / " + row["extension"]
            first["built_at"] += ", " + row["built_at"]
            first["uses"] += row["uses"]
            first["call_sites"] += row["call_sites"]
            first["wrapper_calls"] += row["wrapper_calls"]
        else:
            merged[key] = dict(row)
    return sorted([*merged.values(), *numba_rows], key=lambda r: (-r["uses"], r["extension"]))


_NUMBA_LAUNCH = re.compile(r"launch of the numba\.cuda kernel `([^`\[]+)\[")  # NPU507's launch message


def _numba_cuda_kernels(files, findings) -> list[dict]:
    """One row per numba.cuda kernel (`@cuda.jit` at a module's top level: migrate/imported_kernels.py's facts) that the
    scan launches (`kernel[grid, block](...)`, NPU507): the kernel is the op, its .py file the source, the launches
    its call sites. A launch names the kernel as the launching file spells it: the kernel of that file, else the one
    of a module the file imports, else the only kernel so named; a name no kernel has is the one kernel the file imports
    by name (under another). Device functions (called inside kernels, ported with them) and kernels launched nowhere
    in the scan get no row."""
    from migrate import imported_kernels

    kernels = [(f[2], r.path, f[3]) for r in files for f in (r.facts or ())
               if f[0] == "def" and f[1] == imported_kernels.KIND and len(f) > 5 and f[5] == imported_kernels.NUMBA_CUDA]
    if not kernels:
        return []
    named: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for kernel in kernels:
        named[kernel[0].rpartition(".")[2]].append(kernel)
    refs = {r.path: [f[1] for f in (r.facts or ()) if f[0] == "ref"] for r in files}
    sites: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        match = _NUMBA_LAUNCH.search(f.message) if f.code == imported_kernels.CODE else None
        if match is None:
            continue
        same = imported_kernels._same_module
        imported = [k for k in kernels if any(same(ref, k[0]) or same(ref, k[0].rpartition(".")[0]) for ref in refs.get(f.path, ()))]
        candidates = named.get(match.group(1).rpartition(".")[2], [])
        chosen = ([k for k in candidates if k[1] == f.path] or [k for k in candidates if k in imported]
                  or (candidates if len(candidates) == 1 else []))
        if not candidates:  # imported under another name (`from .kernels import alphas_kernel as k`): the one it imports by name
            by_name = [k for k in imported if any(same(ref, k[0]) for ref in refs.get(f.path, ()))]
            chosen = by_name if len(by_name) == 1 else []
        if chosen:
            sites[chosen[0][0]].append(f"{f.path}:{f.line}")
    return [{"extension": f"{'.'.join(name.split('.')[-2:])} (numba.cuda)", "built_at": f"{path}:{line}", "sources": [path], "uses": len(sites[name]),
             "call_sites": list(dict.fromkeys(sites[name])), "wrapper_calls": []}
            for name, path, line in kernels if sites.get(name)]


def extension_key(definition) -> str:
    """The name a kernel row and an NPU508 finding share: the extension module (a variable bound to
    a build counts as its extension), or `torch.ops.<ns>`."""
    if definition.kind == "value":
        return definition.why
    if definition.kind == "namespace":
        return f"torch.ops.{definition.name}"
    return definition.name


def _listed(definition, index, cuda_files, home) -> list[str]:
    """The CUDA files of the scan that the build's own source list names (`repo_index.cuda_sources`;
    a JIT variable's from its build): a listed `src/k.cu` is the file whose path ends with it, the one
    under the build's directory when several do. Empty when the list names none of them (sources
    computed at run time): the caller falls back to the directory."""
    listed = definition.why.split() if definition.kind == "module" else []
    if definition.kind == "value" and definition.why in index.modules:
        listed = index.modules[definition.why].why.split()
    out = []
    for item in listed:
        tail = "/" + os.path.normpath(item).replace(os.sep, "/").lstrip("./")
        matches = [p for p in cuda_files if ("/" + os.path.normpath(p).replace(os.sep, "/")).endswith(tail)]
        near = [p for p in matches if _under(p, home)]
        out += (near or matches)[:1]
    return sorted(dict.fromkeys(out))


def _source_directory(definition, directories, cuda_files=()) -> str:
    """Where the CUDA files of a build whose source list is computed at run time lie: the folder of the
    module's package (`pkg/ops` for `pkg.ops.x_ext`) when it holds CUDA files, the deepest of several
    folders so named (a checkout whose own folder is named like its package: `inplace_abn/inplace_abn`);
    else the folder of the file that builds it (its `src/*.cu`). Chosen in a fixed order, whatever the
    order of `directories` (a set: the choice once changed with the hash seed)."""
    here = os.path.dirname(os.path.normpath(definition.path)).replace(os.sep, "/")
    if definition.kind == "module" and "." in definition.name:
        package = "/".join(definition.name.split(".")[:-1])
        named = sorted((d for d in directories if d == package or d.endswith("/" + package)), key=lambda d: (-len(d), d))
        holding = [d for d in named if any(_under(p, d) for p in cuda_files)]
        if holding:
            return holding[0]
    return here


def _under(path: str, directory: str) -> bool:
    path = os.path.normpath(path).replace(os.sep, "/")
    return not directory or path.startswith(directory.rstrip("/") + "/")
