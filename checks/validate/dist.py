"""validate with --nproc-per-node: both sides run as N ranks; the losses are compared rank by rank.

The single-run pipeline of checks/validate/run.py keeps working on the first rank (config_check packs,
loss plot); this module adds one loss alignment per rank and the job verdicts of both sides. The
msprobe API dump is not run for distributed jobs (one dump per rank and step is not wired yet).
"""
from __future__ import annotations

from dataclasses import dataclass

from checks.validate import loss_compare


@dataclass(frozen=True)
class RankComparison:
    rank: int
    alignment: loss_compare.LossAlignment


def smoke_ranks(script, *, launch: dict, **options):
    from checks.distributed.run import run_distributed_smoke
    from checks.verdict.dist_result import LaunchSpec

    return run_distributed_smoke(script, launch=LaunchSpec(**launch), **options)


def compare_ranks(baseline, migrated, *, rtol: float, atol: float, note: str = "") -> tuple[tuple[RankComparison, ...], list[str]]:
    """Align each rank's losses; (comparisons, reasons for the ranks that diverge or are missing)."""
    reasons: list[str] = []
    comparisons = []
    base_ranks = dict(zip(baseline.rank_ids, baseline.ranks))
    mig_ranks = dict(zip(migrated.rank_ids, migrated.ranks))
    for rank in sorted(set(base_ranks) | set(mig_ranks)):
        if rank not in base_ranks or rank not in mig_ranks:
            side = "baseline" if rank not in base_ranks else "migrated"
            reasons.append(f"rank {rank}: no {side} run")
            continue
        alignment = loss_compare.align_losses(list(base_ranks[rank].losses), list(mig_ranks[rank].losses),
                                              rtol=rtol, atol=atol, note=note)
        comparisons.append(RankComparison(rank, alignment))
        if alignment.first_divergence is not None:
            row = alignment.rows[alignment.first_divergence]
            if row.baseline is None or row.migrated is None:
                reasons.append(f"rank {rank}: different step counts ({len(base_ranks[rank].losses)} baseline, "
                               f"{len(mig_ranks[rank].losses)} migrated)")
            else:
                reasons.append(f"rank {rank}: loss diverges at step {row.step}: baseline {row.baseline:.8g}, "
                               f"migrated {row.migrated:.8g} (rtol {alignment.rtol:g}, atol {alignment.atol:g})")
    diverged = [(c.alignment.first_divergence_step, c.rank) for c in comparisons if c.alignment.first_divergence is not None]
    if len(diverged) > 1:
        step = min(diverged)[0]
        first = [rank for s, rank in diverged if s == step]
        later = [rank for s, rank in diverged if s != step]
        if later:  # with DDP one rank's difference reaches the others through the all-reduced gradients
            reasons.insert(0, f"rank {', '.join(map(str, first))} diverges first (step {step}); rank "
                              f"{', '.join(map(str, later))} follows later (gradients are shared between ranks)")
    for side, job in (("baseline", baseline), ("migrated", migrated)):
        reasons += [f"{side} job: {r}" for r in job.reasons if not r.startswith("rank ")]
    return tuple(comparisons), reasons
