"""The cross-file step of a scan: uses of the custom extensions and op namespaces that files of the
same scan define (NPU508) and of project names standing for a CUDA API (NPU510), linked after every file has been analysed once (see migrate/repo_index.py).
"""

from __future__ import annotations

from migrate import io, own_package, repo_index
from migrate.cache import ResultCache, finding_from_dict
from migrate.findings import FileResult


def link_extensions(results: list[FileResult], version: str, fresh: dict[str, bytes],
                     cache: ResultCache | None = None, digests: dict | None = None) -> list[FileResult]:
    """NPU508: uses of the extensions and op namespaces that files of this scan define (see
    migrate/repo_index.py). Only files whose facts reference a defined name are looked at; their
    linked findings are cached under (file content, whole index) so neither change goes unseen."""
    index = repo_index.build_index(results)
    own = own_package.own_packages([r.path for r in results]) if index.exports else {}
    for name, definitions in list(index.exports.items()):  # a package's own modules do not export it
        kept = [d for d in definitions if d.why.split(".", 1)[0] not in own.get(d.path, ())]
        if kept:
            index.exports[name] = kept
        else:
            del index.exports[name]
    if not index:
        return results
    index_digest = repo_index.digest(index)
    digests = digests or {}
    from migrate import engine
    from migrate.context import PythonContext
    from migrate.rules.npu508_custom_extension_use import CustomExtensionUse
    from migrate.rules.npu510_reexported_cuda_name import ReexportedCudaName

    rules = (CustomExtensionUse(), ReexportedCudaName())
    linked = {id(r) for r in repo_index.files_to_link(results, index)}
    out = []
    for result in results:
        if id(result) not in linked or result.kind != "python":
            out.append(result)
            continue
        key, digest = digests.get(result.path, ("", ""))
        cached = cache.get_link(key, digest, index_digest) if (cache and key) else None
        if cached is not None:
            extra = [finding_from_dict(dict(f, path=result.path)) for f in cached[0]]
            suppressed = cached[1]
        else:
            data = fresh.get(result.path)
            if data is None:
                data = engine._read_target(engine.Target(result.path, (result.kind,)), 1 << 62)
            try:
                text = io.decode(data, python=True).body if isinstance(data, bytes) else None
            except io.ReadError:
                text = None
            tree = io.parse_python(text) if text is not None else None
            if tree is None:
                out.append(result)
                continue
            ctx = PythonContext(result.path, text, tree, engine._kb(version))
            known = {(f.code, f.line, f.column) for f in result.findings}
            extra = [f for rule in rules for f in rule.uses(ctx, index) if (f.code, f.line, f.column) not in known]
            extra, suppressed = engine._line_suppressed(text, engine._dedupe(extra))
            if cache and key:
                cache.put_link(key, digest, index_digest, extra, suppressed)
        if not extra and not suppressed:
            out.append(result)
            continue
        findings = tuple(sorted(result.findings + tuple(extra), key=lambda f: f.sort_key))
        out.append(FileResult(result.path, result.kind, result.lines, findings, result.errors, result.suppressed + suppressed, result.facts))
    return out
