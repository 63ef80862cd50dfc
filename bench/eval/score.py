"""Score one analyze run against labels written by reading (bench/eval/LABELLING.md).

    python bench/eval/score.py LABELS RUNS_DIR [--out REPORT.md]

LABELS: `REPO<TAB>PATH:LINE<TAB>category<TAB>note` lines. RUNS_DIR holds one `<REPO with / as +>.json`
per repository: `python -m migrate analyze . --format json --no-cache -j 1 --no-progress` run from the
repository's root. Prints recall and precision per repository, per category and in all, then every false
negative and false positive (with the finding's code and message) for the fixers.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

RECALL_EXTRA = {
    "NPU404",  # apex amp uses are labels (L7) but their rule is in the amp family
    "NPU704",  # `nvidia-docker` / `docker run --gpus` launcher lines are `tool` labels (45b-2); their rule is in the 7xx family
}
BUILD_GATE = "NPU203"  # an availability check on a setup.py build gate's line finds a `build` label there ((L84))


def scored(finding: dict) -> bool:
    code = finding["code"]
    if not code.startswith("NPU5"):
        return False
    return not (code == "NPU510" and "torch.cuda" in finding["message"])


def key(finding: dict) -> str:
    path = finding["path"].removeprefix("./")
    if finding.get("cell") is not None:
        path = f"{path}@{finding['cell']}"
    return f"{path}:{finding['line']}"


def read_labels(path: Path) -> dict[str, dict[str, str]]:
    labels: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) < 3 or ":" not in parts[1]:
            sys.exit(f"{path}:{n}: not REPO<TAB>PATH:LINE<TAB>category: {raw!r}")
        labels[parts[0]][parts[1].removeprefix("./")] = parts[2]
    return labels


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", type=Path)
    ap.add_argument("runs", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    labels = read_labels(args.labels)
    lines: list[str] = []
    total = collections.Counter()
    per_cat = collections.defaultdict(collections.Counter)
    misses: list[str] = []
    extras: list[str] = []
    lines.append("| repository | labels | found | recall | scored lines | true | precision |")
    lines.append("|---|---|---|---|---|---|---|")
    # every repository run counts, one without labels too (its scored findings are all false: DeepLinkExt, the NPU port
    # itself, set 63); a labelled repository without a run is an error below
    for run in args.runs.glob("*.json"):
        labels.setdefault(run.stem.replace("+", "/", 1), {})
    for repo, repo_labels in sorted(labels.items()):
        run = args.runs / (repo.replace("/", "+") + ".json")
        if not run.is_file():
            sys.exit(f"no run for {repo}: {run}")
        findings = json.loads(run.read_text(encoding="utf-8"))["findings"]
        at: dict[str, list[dict]] = collections.defaultdict(list)
        for f in findings:
            at[key(f)].append(f)
        scored_lines = {k for k, fs in at.items() if any(scored(f) for f in fs)}
        recall_lines = scored_lines | {k for k, fs in at.items() if any(f["code"] in RECALL_EXTRA for f in fs)}
        recall_lines |= {k for k, cat in repo_labels.items()
                         if cat == "build" and any(f["code"] == BUILD_GATE for f in at.get(k, ()))}
        found = [k for k in repo_labels if k in recall_lines]
        true = [k for k in scored_lines if k in repo_labels]
        for k, cat in repo_labels.items():
            per_cat[cat]["labels"] += 1
            if k in recall_lines:
                per_cat[cat]["found"] += 1
            else:
                codes = ",".join(sorted({f["code"] for f in at.get(k, [])})) or "-"
                misses.append(f"FN {repo} {k} [{cat}] other codes here: {codes}")
        for k in sorted(scored_lines - set(repo_labels)):
            f = next(f for f in at[k] if scored(f))
            extras.append(f"FP {repo} {k} {f['code']} {f['message'][:160]}")
        total.update(labels=len(repo_labels), found=len(found), scored=len(scored_lines), true=len(true))
        lines.append(f"| {repo} | {len(repo_labels)} | {len(found)} | {_ratio(len(found), len(repo_labels))} | "
                     f"{len(scored_lines)} | {len(true)} | {_ratio(len(true), len(scored_lines))} |")
    lines.append(f"| **all** | {total['labels']} | {total['found']} | **{_ratio(total['found'], total['labels'])}** | "
                 f"{total['scored']} | {total['true']} | **{_ratio(total['true'], total['scored'])}** |")
    lines += ["", "| category | labels | found | recall |", "|---|---|---|---|"]
    for cat, c in sorted(per_cat.items()):
        lines.append(f"| {cat} | {c['labels']} | {c['found']} | {_ratio(c['found'], c['labels'])} |")
    lines += ["", *misses, *extras]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.3f}" if b else f"{a}/0"


if __name__ == "__main__":
    raise SystemExit(main())
