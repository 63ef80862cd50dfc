"""The cross-file step of a scan: uses of the custom extensions and op namespaces that files of the
same scan define (NPU508) and of project names standing for a CUDA API (NPU510), linked after every file has been analysed once (see migrate/repo_index.py).
"""

from __future__ import annotations

import dataclasses
import os

from migrate import fileio, op_register_aliases, own_package, repo_index
from migrate.cache import ResultCache, finding_from_dict
from migrate.config import Config
from migrate.findings import FileResult, Finding


def link_extensions(results: list[FileResult], version: str, fresh: dict[str, bytes],
                     cache: ResultCache | None = None, digests: dict | None = None, jobs: int | None = None,
                     max_file_size: int = Config.max_file_size) -> list[FileResult]:
    """NPU508: uses of the extensions and op namespaces that files of this scan define (see
    migrate/repo_index.py). Only files whose facts reference a defined name are looked at; their
    linked findings are cached under (file content, whole index) so neither change goes unseen.
    A file not in `fresh` (its result came from the cache) is read again, up to `max_file_size`."""
    digests = digests or {}
    files, fingerprint = _inputs_fingerprint(results, digests) if cache else ("", None)
    plan = _read_plan(cache, results, files, fingerprint) if fingerprint else None
    if plan is None:
        built = repo_index.build_index(results)
        index = _filtered_exports(built, results)
    else:
        built, index, positions, index_digest = plan
    if not index:
        if plan is None and fingerprint:
            cache.put_plan(files, fingerprint, {"built": repo_index.index_to_json(built), "empty": True})
        return results
    results = _own_extension_requirements(results, index)
    results = _cmake_extension_builds(results, index)
    if plan is None:
        index_digest = repo_index.digest(index)
        linked = {id(r) for r in repo_index.files_to_link(results, index)}
        stored = repo_index.index_to_json(built) if fingerprint else None
        if stored is not None:
            cache.put_plan(files, fingerprint, {
                "built": stored, "empty": False, "exports": repo_index.index_to_json(index)["exports"],
                "linked": [position for position, r in enumerate(results) if id(r) in linked], "digest": index_digest})
    else:
        linked = {id(results[position]) for position in positions}
    out: list[FileResult] = []
    pending: list[tuple[int, FileResult, bytes | None]] = []  # (position in out, result, data) to link afresh
    extras: dict[int, tuple[list, int]] = {}
    for result in results:
        if id(result) not in linked or result.kind != "python":
            out.append(result)
            continue
        key, digest = digests.get(result.path, ("", ""))
        cached = cache.get_link(key, digest, index_digest) if (cache and key) else None
        if cached is not None:
            extras[len(out)] = ([finding_from_dict(dict(f, path=result.path)) for f in cached[0]], cached[1])
        else:
            pending.append((len(out), result, fresh.get(result.path)))
        out.append(result)
    if pending and from_facts(index):  # no second parse where the file's facts hold its use sites
        to_parse = []
        named = unspelled_modules(index)
        for entry in pending:
            key, digest = digests.get(entry[1].path, ("", ""))
            sites = next((f[1] for f in entry[1].facts if f[0] == "site"), None)
            if sites is None and cache and key:  # a result from the cache: its sites are stored beside it
                sites = cache.get_sites(key, digest)
            if named and _may_reach(entry[1], sites, named):  # a loader given a brace, the build's own file
                to_parse.append(entry)
                continue
            try:
                outcome = link_from_facts(entry[1], sites, index, version) if isinstance(sites, str) else None
            except (ValueError, IndexError, KeyError):  # an edited or truncated cache entry: parse the file instead
                outcome = None
            if outcome is None:
                to_parse.append(entry)
                continue
            extras[entry[0]] = outcome
            if cache and key:
                cache.put_link(key, digest, index_digest, *outcome)
        pending = to_parse
    items = [(result.path, result.kind, data, frozenset((f.code, f.line, f.column) for f in result.findings))
             for _, result, data in pending]
    workers = jobs if jobs else (os.cpu_count() or 1)
    sizes = [len(data) if data is not None else 0 for _, _, data in pending]
    if not items:  # a warm re-run: every linked file's findings came from the cache (nothing to import or parse)
        linked_now = []
    elif workers > 1 and len(items) >= 16 and sum(sizes) >= 400_000:
        # a big repository links many files (torch itself: 137 that import Triton names from a
        # sibling module): parse them in the worker pool, not one by one in this process
        from concurrent.futures.process import BrokenProcessPool

        try:
            linked_now = fileio.run_batched(_link_batch, items, sizes, workers=workers, args=(version, index, max_file_size),
                                            min_budget=50_000)
        except BrokenProcessPool:  # a worker died: these files parsed in the first pass, so here is safe
            linked_now = _link_batch(items, version, index, max_file_size)
    else:
        linked_now = _link_batch(items, version, index, max_file_size)
    for (position, result, _), outcome in zip(pending, linked_now):
        if outcome is None:
            continue
        extra, suppressed = outcome
        key, digest = digests.get(result.path, ("", ""))
        if cache and key:
            cache.put_link(key, digest, index_digest, extra, suppressed)
        extras[position] = (extra, suppressed)
    for position, (extra, suppressed) in extras.items():
        if not extra and not suppressed:
            continue
        out[position] = out[position].adding(extra, suppressed)
    return out


def _filtered_exports(index, results: list[FileResult]):
    """The index with the exports a package's own modules make of it left out (the summary reads the index as built)."""
    index = dataclasses.replace(index, exports=dict(index.exports))
    exporters = {d.path for definitions in index.exports.values() for d in definitions}
    own = own_package.own_packages([r.path for r in results], exporters) if exporters else {}
    for name, definitions in list(index.exports.items()):  # a package's own modules do not export it
        kept = [d for d in definitions if d.why.split(".", 1)[0] not in own.get(d.path, ())]
        if kept:
            index.exports[name] = kept
        else:
            del index.exports[name]
    return index


def _inputs_fingerprint(results: list[FileResult], digests: dict) -> tuple[str, str | None]:
    """(a digest of the scan's paths in order, a digest of what linking reads from the scan: each file's path, kind and
    content, which decide its facts; None where a file's facts come from elsewhere, as from standard input).
    The index, the own-package filter and the files to link are pure functions of these (and of the tool's code and
    knowledge, which the cache file is named by): a warm re-run of an unchanged tree reads them back (`_read_plan`)."""
    import hashlib

    paths = hashlib.blake2b(digest_size=16)
    contents = hashlib.blake2b(digest_size=16)
    for result in results:
        entry = digests.get(result.path)
        if entry is None and getattr(result, "facts", ()):
            return "", None
        paths.update(f"{result.path}\0".encode("utf-8", "surrogateescape"))
        contents.update(f"{result.path}\0{result.kind}\0{entry[0] if entry else ''}\0{entry[1] if entry else ''}\n".encode("utf-8", "surrogateescape"))
    return paths.hexdigest(), contents.hexdigest()


def _read_plan(cache: ResultCache, results: list[FileResult], files: str, fingerprint: str) -> tuple | None:
    """(the index as built, the index linking reads, positions of the files to link, the index's digest) stored by an
    earlier run over the same files and contents; None when none is stored or it is damaged."""
    plan = cache.get_plan(files, fingerprint)
    if plan is None:
        return None
    try:
        built = repo_index.index_from_json(plan["built"])
        if plan["empty"] is True:
            repo_index.remember(results, built)
            return built, repo_index.Index({}, {}), [], ""
        exports = repo_index.definition_lists_from_json(plan["exports"])
        positions = [int(p) for p in plan["linked"]]
        if not all(0 <= p < len(results) for p in positions) or not isinstance(plan["digest"], str):
            return None
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    repo_index.remember(results, built)
    return built, dataclasses.replace(built, exports=exports), positions, plan["digest"]


def _link_batch(items, version: str, index, max_file_size: int = Config.max_file_size) -> list[tuple[list, int] | None]:
    """The linked findings (and the count suppressed by noqa) of each (path, kind, data, known
    finding keys); None where the file cannot be read or parsed now."""
    from migrate.rules.npu505_cuda_extension import CudaExtension
    from migrate.rules.npu508_custom_extension_use import CustomExtensionUse
    from migrate.rules.npu510_reexported_cuda_name import ReexportedCudaName

    rules = (CustomExtensionUse(), ReexportedCudaName(), CudaExtension())
    # No cyclic collection while files are parsed again: each full collection a parse triggers walks the whole
    # scan's results, so the cost per parsed line grew with the repository (torch: 12 us at 1/4 of its files,
    # 17 us at all; 8-10 with the collector off)
    with fileio.no_cycle_collection():
        return _link_each(items, version, index, max_file_size, rules)


def _link_each(items, version: str, index, max_file_size: int, rules) -> list[tuple[list, int] | None]:
    from migrate import engine
    from migrate.context import PythonContext

    out: list[tuple[list, int] | None] = []
    for path, _kind, data, known in items:
        text = engine.text_again(path, data, max_file_size)  # not 1 << 62: read() allocates its size
        tree = fileio.parse_python(text) if text is not None else None
        if tree is None:
            out.append(None)
            continue
        ctx = PythonContext(path, text, tree, engine._kb(version))
        extra = [f for rule in rules for f in rule.uses(ctx, index) if (f.code, f.line, f.column) not in known]
        out.append(engine._line_suppressed(text, engine._dedupe(extra)))
    return out


def from_facts(index) -> bool:
    """Linking reads every use site from the files' facts (`repo_index.link_sites`), parsing none again,
    when the index holds only what those sites can reach: exported CUDA names (NPU510) and custom op
    namespaces (NPU508's `torch.ops.<ns>`). An extension module of the scan (NPU508's imports, loaders,
    accessors, wrappers, objects its ops build) still has each file linked from its syntax tree, and so
    has a namespace named like one of torch's own (sites under those are not recorded); a module built under a
    computed name (`_unspelled`) only has the files that may reach it linked from their trees (`_may_reach`)."""
    return (all(_unspelled(d) for d in index.modules.values()) and not index.helpers
            and not (index.namespaces.keys() & repo_index.BUILTIN_NAMESPACES))


def _unspelled(definition) -> bool:
    """A module built under a computed name, rendered with braces (`load(name=name, ...)` -> `{name}`,
    `f"wkv_{T_MAX}"` -> `wkv_{T_MAX}`: repo_index.extension_name, _computed_name), without a dot (a dotted one
    could be reached by its tail, `{pkg}.ops._C` by `ops._C`): no import, attribute chain or relative import spells
    a brace and no shared library's stem holds one, so only the file that builds it and an
    `importlib.import_module` call (a string, an f-string pattern) can reach it (torch's own cpp_extension.py
    builds `{name}`)."""
    return "{" in definition.name and "." not in definition.name and definition.kind == "module" and not definition.mode \
        and definition.path.endswith(".py")


def unspelled_modules(index) -> dict:
    return {name: d for name, d in index.modules.items() if _unspelled(d)}


def _may_reach(result: FileResult, sites, named: dict) -> bool:
    """Whether NPU508 on this file's tree could reach one of the `_unspelled` modules: the file builds one, a call of
    it is given a string holding a brace (the last part of its sites, `repo_index.link_sites`: an
    `importlib.import_module` string or f-string pattern could name one), or one of its references matches one;
    then the file is parsed and linked from its tree as before."""
    if any(d.path == result.path for d in named.values()):
        return True
    if not isinstance(sites, str):
        return True
    parts = sites.split("\n|\n")
    if len(parts) != 5 or parts[4]:  # a call given a brace, or sites of another shape
        return True
    modules_only = repo_index.Index(named, {})
    return any(modules_only.matches_kernel(f[1]) for f in result.facts if f[0] == "ref")


class _File:
    """What `Rule.finding` reads of a context when it is given a span: the path (a Python file has no cell)."""

    cell = None

    def __init__(self, path: str):
        self.path = path


def link_from_facts(result: FileResult, sites: str, index, version: str) -> tuple[list, int]:
    """The linked findings of one Python file (and the count its noqa comments suppress) from its use
    sites (`repo_index.link_sites`): the same findings as NPU508's and NPU510's `uses` on its parsed tree
    give under an index `from_facts` accepts, in the same order, without the tree."""
    from migrate import suppress
    from migrate.rules.npu508_custom_extension_use import CustomExtensionUse
    from migrate.rules.npu510_reexported_cuda_name import ReexportedCudaName

    del version  # the messages depend on the definitions only
    chains, bases, relative, noqa_rows, _ = (part.split("\n") if part else [] for part in sites.split("\n|\n"))
    base_of = dict(row.split(" ") for row in bases)
    rows = []  # (line, col, is a Name, root, rest, span, call, clean): the order of `chain_tops`
    for chain in chains:
        root, rest, *places = chain.split(" ")
        for place in places:
            probe = place.startswith("!")  # `hasattr(torch.ops.ns, "op")` (NPU508's `_hasattr_probe`)
            place = place.lstrip("!")
            clean = not place.startswith("~")
            fields = place.lstrip("~").split(",")
            line, col = int(fields[0]), int(fields[1])
            span = (line, col, line + int(fields[2]), int(fields[3]))
            rows.append((line, col, rest == "-", root, rest, span, fields[4] if len(fields) > 4 else None, clean, probe))
    rows.sort(key=lambda row: row[:3])
    ctx = _File(result.path)
    known = {(f.code, f.line, f.column) for f in result.findings}
    extra = []
    if index.namespaces:  # NPU508: every `torch.ops.<ns>...` chain of a namespace of the scan, in the file's order
        rule = CustomExtensionUse()
        for _, _, _, root, rest, span, _, _, probe in rows:
            base = base_of.get(root)
            if base is None or probe:
                continue
            qual = base if rest == "-" else f"{base}.{rest}"
            parts = qual.split(".")
            if len(parts) > 2 and parts[0] == "torch" and parts[1] in ("ops", "classes") and parts[2] in index.namespaces:
                python_op = parts[1] == "ops" and len(parts) > 3 and op_register_aliases.implemented_in_python(index.python_ops, f"{parts[2]}::{parts[3]}")  # as `uses`
                extra.append(rule._finding(ctx, span, qual, index.namespaces[parts[2]], python_op=parts[3] if python_op else ""))
    if index.exports or index.star_names:  # NPU510: the relative imports of an exported name bound first, as `bind_relative_imports` does
        bound = dict(base_of)
        for pair in relative:
            alias, full = pair.split(" ")
            if index.export_for(full) is not None:
                bound[alias] = full
        rule = ReexportedCudaName()
        for _, _, _, root, rest, span, call, clean, _ in rows:
            base = bound.get(root)
            if base is None or not clean:
                continue
            definition = index.export_in(base if rest == "-" else f"{base}.{rest}")
            if definition is None or definition.path == result.path:
                continue
            found = rule.site_finding(ctx, span, _call(call), definition)
            if found is not None:
                extra.append(found)
    extra = [f for f in extra if (f.code, f.line, f.column) not in known]
    from migrate import engine

    extra = engine._dedupe(extra)
    if not noqa_rows or not extra:
        return extra, 0
    if noqa_rows == ["file"]:
        return [], len(extra)
    noqa = {}
    for row in noqa_rows:
        line, codes = row.split(":", 1)
        noqa[int(line)] = frozenset(codes.split(","))
    kept = [f for f in extra if not suppress.is_suppressed(f.code, range(f.line, f.end_line + 1), noqa)]
    return kept, len(extra) - len(kept)


def _call(text: str) -> tuple[int, frozenset] | None:
    """(positional arguments, keyword names) of the call a site is, None for a site that is not called."""
    if text is None:
        return None
    count, _, names = text.partition(":")
    return int(count), frozenset(names.split(",")) if names else frozenset()


def _cmake_extension_builds(results: list[FileResult], index) -> list[FileResult]:
    """NPU505 at each call of a setup.py's CMake-driving extension class (`CMakeExtension("pkg.C")`, the "cmakeext"
    facts of repo_index) whose CMake target the index made a CUDA module: the project helper that builds the CUDA
    extension through CMake, the analogue of a `CUDAExtension(...)` line (label ruling (L10), note 49c c-1). Its
    `python setup.py install` / `pip install .` elsewhere is then the install of a CUDA build (local_installs.report)."""
    built = {(d.path, d.line) for d in index.modules.values()
             if d.kind == "module" and d.cuda and os.path.basename(d.path) == "setup.py"}
    if not built:
        return results
    out = []
    for result in results:
        lines = sorted({fact[3] for fact in result.facts if fact[0] == "def" and fact[1] == "cmakeext"
                        and (result.path, fact[3]) in built}) if os.path.basename(result.path) == "setup.py" else []
        if not lines:
            out.append(result)
            continue
        # the rule module only where there is one to report (a warm run imports no rule)
        from migrate.rules.npu505_cuda_extension import CudaExtension as rule

        extra = [Finding(result.path, line, 1, line, 1, rule.CODE, rule.SEVERITY, rule.CATEGORY,
                         "an extension that the file's `build_ext` builds through a CUDA CMake project (its CMake target "
                         "compiles CUDA): " + rule.MESSAGE)
                 for line in lines if not any(f.code == rule.CODE and f.line == line for f in result.findings)]
        out.append(result.adding(extra) if extra else result)
    return out


def _own_extension_requirements(results: list[FileResult], index) -> list[FileResult]:
    """NPU502: manifest entries that install a CUDA extension this scan builds (from each manifest's
    cached ("req", name, line) facts; nothing is read again)."""
    from migrate.sources import normalise

    own = {normalise(name.rsplit(".", 1)[-1]) for name, d in index.modules.items() if d.kind == "module" and d.cuda}
    if not own:
        return results
    rule = None  # the rule module is imported only when a manifest names one (a warm run imports no rule)
    out = []
    for result in results:
        extra = []
        if any(f[0] == "req" and f[1] in own for f in result.facts):
            if rule is None:
                from migrate.rules.npu502_gpu_only_dependency import GpuOnlyDependency

                rule = GpuOnlyDependency()
            extra = rule.own_extensions(result, index)
        out.append(result.adding(extra))
    return out
