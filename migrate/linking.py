"""The cross-file step of a scan: uses of the custom extensions and op namespaces that files of the
same scan define (NPU508) and of project names standing for a CUDA API (NPU510), linked after every file has been analysed once (see migrate/repo_index.py).
"""

from __future__ import annotations

import gc
import os

from migrate import fileio, own_package, repo_index
from migrate.cache import ResultCache, finding_from_dict
from migrate.config import Config
from migrate.findings import FileResult


def link_extensions(results: list[FileResult], version: str, fresh: dict[str, bytes],
                     cache: ResultCache | None = None, digests: dict | None = None, jobs: int | None = None,
                     max_file_size: int = Config.max_file_size) -> list[FileResult]:
    """NPU508: uses of the extensions and op namespaces that files of this scan define (see
    migrate/repo_index.py). Only files whose facts reference a defined name are looked at; their
    linked findings are cached under (file content, whole index) so neither change goes unseen.
    A file not in `fresh` (its result came from the cache) is read again, up to `max_file_size`."""
    index = repo_index.build_index(results)
    exporters = {d.path for definitions in index.exports.values() for d in definitions}
    own = own_package.own_packages([r.path for r in results], exporters) if exporters else {}
    for name, definitions in list(index.exports.items()):  # a package's own modules do not export it
        kept = [d for d in definitions if d.why.split(".", 1)[0] not in own.get(d.path, ())]
        if kept:
            index.exports[name] = kept
        else:
            del index.exports[name]
    if not index:
        return results
    results = _own_extension_requirements(results, index)
    index_digest = repo_index.digest(index)
    digests = digests or {}
    linked = {id(r) for r in repo_index.files_to_link(results, index)}
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
        result = out[position]
        findings = tuple(sorted(result.findings + tuple(extra), key=lambda f: f.sort_key))
        out[position] = FileResult(result.path, result.kind, result.lines, findings, result.errors,
                                   result.suppressed + suppressed, result.facts)
    return out


def _link_batch(items, version: str, index, max_file_size: int = Config.max_file_size) -> list[tuple[list, int] | None]:
    """The linked findings (and the count suppressed by noqa) of each (path, kind, data, known
    finding keys); None where the file cannot be read or parsed now."""
    from migrate.rules.npu508_custom_extension_use import CustomExtensionUse
    from migrate.rules.npu510_reexported_cuda_name import ReexportedCudaName

    rules = (CustomExtensionUse(), ReexportedCudaName())
    collecting = gc.isenabled()
    # No cyclic collection while files are parsed again: a parse allocates a node object per node, all alive
    # until the file is done, and each full collection they trigger walks the whole scan's results, so the
    # cost per parsed line grew with the repository (torch: 12 us at 1/4 of its files, 17 us at all; 8-10
    # with the collector off). A file's tree and context hold no reference cycles: reference counting frees them.
    gc.disable()
    try:
        return _link_each(items, version, index, max_file_size, rules)
    finally:
        if collecting:
            gc.enable()


def _link_each(items, version: str, index, max_file_size: int, rules) -> list[tuple[list, int] | None]:
    from migrate import engine
    from migrate.context import PythonContext

    out: list[tuple[list, int] | None] = []
    for path, kind, data, known in items:
        if data is None:
            data = engine._read_target(engine.Target(path, (kind,)), max_file_size)  # not 1 << 62: read() allocates its size
        try:
            text = fileio.decode(data, python=True).body if isinstance(data, bytes) else None
        except fileio.ReadError:
            text = None
        tree = fileio.parse_python(text) if text is not None else None
        if tree is None:
            out.append(None)
            continue
        ctx = PythonContext(path, text, tree, engine._kb(version))
        extra = [f for rule in rules for f in rule.uses(ctx, index) if (f.code, f.line, f.column) not in known]
        out.append(engine._line_suppressed(text, engine._dedupe(extra)))
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
        if extra:
            result = FileResult(result.path, result.kind, result.lines, tuple(sorted(result.findings + tuple(extra), key=lambda f: f.sort_key)),
                                result.errors, result.suppressed, result.facts)
        out.append(result)
    return out
