"""The repository symbol model's cost (issue 24): time and peak memory at 1/4, 1/2 and all of a large
repository's files (the installed torch package), one core, ratios to the 1/4 run in the same run.

Each fraction runs in a fresh child process (`python bench/symbol_model_bench.py --child N`), so its
peak memory is its own (`ru_maxrss`: the whole `scan -j1`, analysis included) and no cache or memo
is shared. In the child, one `scan -j1 --no-cache` runs with the symbol model's own steps timed where
they run (CPU seconds of this process, which a loaded machine disturbs less than wall time):
- per-file facts from each file's single parse: definitions (`repo_index.python_defs`, with the kernel
  values of migrate/kernel_values.py), exports (`repo_index.export_defs`), import references
  (`repo_index.import_facts`), the names reached through imports (`repo_index.link_uses`);
- the cross-file step: `linking.link_extensions` (index, files to link, their linked findings), with
  the number of files it parses again and their lines. Its cost follows those lines (CPU per line of
  them in the row), and on a subset they grow with the square of the fraction: a file is parsed again
  only when it and the module it imports from are both in the subset;
- after the scan, the repository-wide lists: `repo_index.build_index`, `deps.unknown_dependencies`,
  `deps.kernels_to_port`.
The fractions take every 4th / 2nd / every file of the sorted list, so each holds the same mix.
Linear means the per-line cost stays flat: the ratio columns compare each fraction's per-line cost
and peak memory with the 1/4 run's (time per line 1.0 = linear; memory grows with the files kept).
Then the corpus cut into 4 and into 2 parts of whole top-level packages (`package_bins`), each part a
smaller repository with its own imports kept: the parts of one cut hold every line once, so linear
means the whole costs what its parts cost together.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRACTIONS = {4: "1/4", 2: "1/2", 1: "all"}


def package_bins(files: list[Path], bins: int) -> list[list[Path]]:
    """The corpus cut into `bins` parts of whole top-level packages (torch/_inductor, torch/nn, ...; the
    files directly in torch/ one more), each part about as many lines as the others: largest package
    first into the part with the fewest lines. A part keeps its imports between its own modules."""
    root = next(p for p in files[0].parents if p.name == "torch")
    groups: dict[str, list[Path]] = {}
    for path in files:
        rel = path.relative_to(root).parts
        groups.setdefault(rel[0] if len(rel) > 1 else "", []).append(path)
    sizes = {name: sum(p.read_bytes().count(b"\n") for p in group) for name, group in groups.items()}
    parts: list[list[Path]] = [[] for _ in range(bins)]
    filled = [0] * bins
    for name in sorted(groups, key=lambda n: (-sizes[n], n)):
        k = filled.index(min(filled))
        parts[k].extend(groups[name])
        filled[k] += sizes[name]
    return [sorted(part) for part in parts]


def _subset(spec: str) -> list[Path]:
    """`4` every 4th file of the sorted corpus; `packages:4:0` the first of 4 parts of whole packages."""
    from bench.run import torch_corpus

    files = torch_corpus()
    if spec.startswith("packages:"):
        _, bins, index = spec.split(":")
        return package_bins(files, int(bins))[int(index)]
    return files[:: int(spec)]


def _child(spec: str) -> dict:
    import resource

    sys.path.insert(0, str(ROOT))
    from migrate import deps, engine, linking, repo_index

    spent: dict[str, float] = {}

    def timed(module, name: str, label: str) -> None:
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - start

        setattr(module, name, wrapper)

    for name in ("python_defs", "export_defs", "import_facts", "link_uses", "link_sites"):
        timed(repo_index, name, "facts")
    timed(linking, "link_extensions", "link")
    parsed_again: list[tuple[str, int]] = []  # (path, lines)
    real_link_batch = linking._link_batch

    def link_batch(items, *args):
        parsed_again.extend((item[0], item[2].count(b"\n") if isinstance(item[2], bytes) else 0) for item in items)
        return real_link_batch(items, *args)

    linking._link_batch = link_batch  # jobs=1: the cross-file step runs in this process
    subset = _subset(spec)
    lines = sum(p.read_bytes().count(b"\n") for p in subset)
    cpu, wall = time.process_time(), time.perf_counter()
    result = engine.scan([str(p) for p in subset], use_cache=False, jobs=1, torch_npu_version=None)
    scan_cpu, scan_wall = time.process_time() - cpu, time.perf_counter() - wall
    cpu = time.process_time()
    index = repo_index.build_index(result.files)
    unknown = deps.unknown_dependencies(result.files, index)
    kernels = deps.kernels_to_port(result.files, result.findings, index)
    lists_cpu = time.process_time() - cpu
    model = spent.get("facts", 0.0) + spent.get("link", 0.0) + lists_cpu
    return {"files": len(subset), "lines": lines, "scan_cpu_s": round(scan_cpu, 2), "scan_wall_s": round(scan_wall, 2),
            "facts_cpu_s": round(spent.get("facts", 0.0), 3), "link_cpu_s": round(spent.get("link", 0.0), 3),
            "lists_cpu_s": round(lists_cpu, 3), "symbol_model_cpu_s": round(model, 3),
            "symbol_model_us_per_line": round(model / lines * 1e6, 3), "scan_us_per_line": round(scan_cpu / lines * 1e6, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "parsed_again": len(parsed_again), "parsed_again_lines": sum(n for _, n in parsed_again),
            "link_us_per_line_parsed_again": round(spent.get("link", 0.0) / max(sum(n for _, n in parsed_again), 1) * 1e6, 2),
            "modules": len(index.modules), "namespaces": len(index.namespaces), "exports": len(index.exports),
            "unknown_dependencies": len(unknown), "kernels": len(kernels)}


def bench_symbol_model(files, rows, results, quick: bool = False) -> None:
    del files, quick  # each child takes its own subset of the same sorted corpus
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out: dict[str, dict] = {}
    for fraction, label in FRACTIONS.items():
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(fraction)], env=env,
                              capture_output=True, text=True, check=True)
        out[label] = json.loads(done.stdout.strip().splitlines()[-1])
    first = out["1/4"]
    for label, row in out.items():
        row["model_per_line_vs_quarter"] = round(row["symbol_model_us_per_line"] / first["symbol_model_us_per_line"], 2)
        row["scan_per_line_vs_quarter"] = round(row["scan_us_per_line"] / first["scan_us_per_line"], 2)
        row["peak_rss_vs_quarter"] = round(row["peak_rss_mib"] / first["peak_rss_mib"], 2)
        row["lines_vs_quarter"] = round(row["lines"] / first["lines"], 2)
        rows.append((f"symbol model, {label} of torch ({row['files']} files, {row['lines']:,} lines)",
                     f"{row['symbol_model_us_per_line']} us/line",
                     f"{row['symbol_model_cpu_s']:.2f} s CPU (facts {row['facts_cpu_s']:.2f}, link {row['link_cpu_s']:.2f} "
                     f"with {row['parsed_again']} files ({row['parsed_again_lines']:,} lines) parsed again, "
                     f"{row['link_us_per_line_parsed_again']} us per line of them; "
                     f"lists {row['lists_cpu_s']:.2f}); peak RSS {row['peak_rss_mib']} MiB",
                     f"per line x{row['model_per_line_vs_quarter']} of 1/4 (linear 1.0); whole scan -j1 "
                     f"{row['scan_cpu_s']:.1f} s CPU, x{row['scan_per_line_vs_quarter']} per line; lines x{row['lines_vs_quarter']}, "
                     f"peak RSS x{row['peak_rss_vs_quarter']}"))
    # The same corpus cut into parts of whole packages (each part keeps the imports between its own modules,
    # as a smaller repository would): the parts of one cut together hold every line once, so linear means
    # the parts together cost what the whole does (every-k-th-file subsets above break the import pairs
    # linking follows, so there the lines parsed again grow with the square of the fraction).
    whole = out["all"]
    parts: dict[str, list[dict]] = {}
    for bins, label in ((4, "quarters"), (2, "halves")):
        parts[label] = []
        for index in range(bins):
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", f"packages:{bins}:{index}"],
                                  env=env, capture_output=True, text=True, check=True)
            parts[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
        model = sum(r["symbol_model_cpu_s"] for r in parts[label])
        again = sum(r["parsed_again_lines"] for r in parts[label])
        lines = sum(r["lines"] for r in parts[label])
        each = ", ".join(f"{r['symbol_model_cpu_s']:.2f}" for r in parts[label])
        rows.append((f"symbol model, torch in {bins} parts of whole packages, together ({lines:,} lines)",
                     f"{model / lines * 1e6:.3f} us/line",
                     f"{model:.2f} s CPU in all {bins} parts ({each}); "
                     f"{again:,} lines parsed again (the whole: {whole['parsed_again_lines']:,}); peak RSS at most "
                     f"{max(r['peak_rss_mib'] for r in parts[label])} MiB",
                     f"the whole costs x{whole['symbol_model_cpu_s'] / model:.2f} the {label} together (linear 1.0); "
                     f"x{(whole['symbol_model_cpu_s'] - whole['link_cpu_s']) / (model - sum(r['link_cpu_s'] for r in parts[label])):.2f} "
                     "without the cross-file step"))
    results["symbol_model"] = out
    results["symbol_model_package_parts"] = parts


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2])))
    else:
        raise SystemExit("run through bench/run.py --only symbol-model")
