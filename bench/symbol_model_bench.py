"""The repository symbol model's cost (issue 24): time and peak memory at 1/4, 1/2 and all of a large
repository's files (the installed torch package), one core.

Measured per fraction, in this process:
- `scan -j1` cold (the whole analyze, which builds the per-file facts and links across files);
- the symbol model's own steps on that scan's results: the per-file import/reference facts read again
  from each file's text (`repo_index.python_refs`, `deps.import_roots`), the index over all facts
  (`repo_index.build_index`), the open-world list and the kernels to port (`deps`); peak memory of
  those steps by tracemalloc.
The fractions take every 4th / 2nd / every file of the sorted list, so each holds the same mix.
Linear means the per-line cost stays flat from 1/4 to all.
"""

from __future__ import annotations

import time
import tracemalloc


def bench_symbol_model(files, rows, results, quick: bool = False) -> None:
    from migrate import deps, repo_index
    from migrate.engine import scan

    out = {}
    for fraction in (4, 2, 1):
        subset = files[::fraction]
        lines = sum(p.read_bytes().count(b"\n") for p in subset)
        start = time.perf_counter()
        result = scan([str(p) for p in subset], use_cache=False, jobs=1, torch_npu_version=None)
        scan_s = time.perf_counter() - start
        texts = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in subset]
        tracemalloc.start()
        start = time.perf_counter()
        for path, text in texts:
            repo_index.python_refs(path, text)
            deps.import_roots(text)
        index = repo_index.build_index(result.files)
        unknown = deps.unknown_dependencies(result.files)
        kernels = deps.kernels_to_port(result.files, result.findings)
        model_s = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        label = {4: "1/4", 2: "1/2", 1: "all"}[fraction]
        out[label] = {"files": len(subset), "lines": lines, "scan_j1_s": round(scan_s, 2), "symbol_model_s": round(model_s, 3),
                      "symbol_model_peak_mib": round(peak / 2**20, 1), "scan_us_per_line": round(scan_s / lines * 1e6, 2),
                      "model_us_per_line": round(model_s / lines * 1e6, 3), "modules": len(index.modules),
                      "unknown_dependencies": len(unknown), "kernels": len(kernels)}
        rows.append((f"symbol model, {label} of torch ({len(subset)} files)", f"{out[label]['model_us_per_line']} us/line",
                     f"{model_s:.2f} s, peak {out[label]['symbol_model_peak_mib']} MiB",
                     f"scan -j1 {scan_s:.1f} s ({out[label]['scan_us_per_line']} us/line)"))
    results["symbol_model"] = out
