"""Ranks the script starts itself (torch.multiprocessing.spawn) judged as one job (parent side, no torch).

A plain `smoke` of an mp.spawn script runs the bootstrap in the script's process; the processes it
spawns run checks/child/spawn_main.py, count their own steps into `<report>.proc<PID>` and, once they
join a process group, write `<report>.ranks/rank{R}.dist.json` (checks.child.dist_child.attach_spawned:
rank, world size, the name of their report, and at their last step the fingerprint of their DDP /
DTensor parameters). `read` pairs each rank with its report; `judge_spawned` then adds to the
single-run verdict what a torchrun job gets (checks/verdict/dist.py): each rank judged on its own
(N steps, finite losses) with per-rank reasons, the rank that failed first, the replicated
parameters identical across ranks, the FSDP2 shards consistent, device indices per rank.
When the run times out, every live rank is asked for its stack (`ask_stacks`, SIGUSR1 ->
faulthandler, before the run is killed) and the rank that stopped making progress while others wait
in a collective is named, as for torchrun (only at the overall `--timeout`: plain smoke has no
`--progress-timeout`). Not available: one log per rank (the ranks share the script's stdout).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace

from checks.launch.child_config import RANKS_SUFFIX
from checks.launch.rank_files import alive, child_report, read_progress, read_reports, request_stacks
from checks.verdict import dist as dist_verdict
from checks.verdict.smoke import judge


def read(report_path: str) -> list[tuple[int, dict, dict | None]]:
    """(rank, rankN.dist.json, that rank's smoke report as JSON or None), ordered by rank."""
    folder = report_path + RANKS_SUFFIX
    if not os.path.isdir(folder):
        return []
    base = os.path.dirname(report_path)
    out = []
    for info in read_reports(folder, ".dist.json").values():
        if info.get("rank") is None:
            continue
        report = None
        if info.get("report"):
            try:
                with open(os.path.join(base, os.path.basename(info["report"])), encoding="utf-8") as f:
                    report = json.load(f)
            except (OSError, ValueError):
                report = None
        out.append((int(info["rank"]), info, report))
    return sorted(out, key=lambda x: x[0])


def ask_stacks(report_path: str) -> dict:
    """Before a timed-out run is killed: {"rankR": (pid, steps, stack text or None)} of the spawned ranks."""
    folder = report_path + RANKS_SUFFIX
    if not os.path.isdir(folder):
        return {}
    progress = read_progress(folder)
    stacks = request_stacks(folder, progress) if progress else {}
    return {name: (pid, steps, stacks.get(name), alive(pid)) for name, (pid, steps) in progress.items()}


def cleanup(report_path: str) -> None:
    shutil.rmtree(report_path + RANKS_SUFFIX, ignore_errors=True)


def judge_spawned(result, ranks, *, script, backend, steps, timeout, torch_npu_version=None, stacks=None):
    """The single-run SmokeResult with the spawned ranks' job verdict added (unchanged without ranks)."""
    if not ranks:
        return result
    per_rank = []
    for rank, info, report in ranks:
        parsed = child_report(report)
        ended_clean = parsed is not None and getattr(parsed, "status", None) in ("stopped", "finished")
        one = judge(script, backend, parsed, returncode=0 if ended_clean else 1, timed_out=result.timed_out,
                    timeout=timeout, steps=steps, strict_ops=False, torch_npu_version=torch_npu_version)
        per_rank.append((rank, rank, dict(info, report=parsed is not None), one))
    reasons: list[str] = []
    hang = _hang(per_rank, stacks or {}, script) if result.timed_out else None
    if hang:
        reasons.append(f"the run did not finish within the timeout ({timeout:g}s). {hang}")
    for rank, _, info, one in per_rank:
        rank_reasons = one.reasons if info["report"] else [f"wrote no report: {r}" for r in one.reasons] or ["wrote no report"]
        reasons += [f"rank {rank}: {r}" for r in rank_reasons]
    root = dist_verdict.root_cause(per_rank)
    if root:
        reasons.insert(0, root)
    rep_reasons, rep_warnings, replicas = dist_verdict.replica_check(per_rank, steps)
    reasons += rep_reasons
    world = next((info.get("world_size") for _, _, info, _ in per_rank if info.get("world_size")), None)
    warnings = list(result.warnings) + rep_warnings + dist_verdict.device_check(per_rank)
    if world and len(per_rank) < world:
        warnings.append(f"{len(per_rank)} of {world} ranks of the process group reported (the others never "
                        "reached init_process_group under the harness)")
    rows = tuple({"rank": rank, "verdict": one.verdict, "steps": one.steps, "losses": list(one.losses),
                  "reasons": list(one.reasons)} for rank, _, _, one in per_rank)
    own = result.reasons
    if any(one.steps for _, _, _, one in per_rank):  # the script's process waited in mp.spawn: its ranks trained
        own = tuple(r for r in own if not r.startswith("no optimizer step within the timeout"))
    all_reasons = tuple(dict.fromkeys((*own, *reasons)))
    verdict, code = result.verdict, result.exit_code
    if reasons and verdict == "pass":
        verdict, code = "fail", 1
    return replace(result, verdict=verdict, exit_code=code, reasons=all_reasons, warnings=tuple(dict.fromkeys(warnings)),
                   replicas=replicas, spawned_ranks=rows)


def _hang(per_rank, stacks: dict, script: str) -> str | None:
    """Name the spawned rank(s) that stopped making progress (checks.verdict.dist.name_hanging)."""
    positions = []
    for rank, _, info, one in per_rank:
        pid_steps = stacks.get(f"rank{rank}")
        steps_done = max(one.steps, pid_steps[1] if pid_steps else 0)
        alive = bool(pid_steps and pid_steps[3])
        positions.append(dist_verdict.position(rank, steps_done, pid_steps[2] if alive else None, ended=not alive,
                                               ddp=bool(info.get("ddp_modules")), script=script))
    if not positions:
        return None
    return dist_verdict.name_hanging(positions)[1]
