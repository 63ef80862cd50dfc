"""One verdict for a distributed smoke job from its ranks' reports (parent side, never imports torch).

The job passes when every rank passed its own smoke verdict (N steps, finite losses, parameters on
the NPU), and, after the last step:
- the parameters of every DistributedDataParallel module hash the same on every rank (a rank whose
  gradients were not all-reduced, e.g. under `no_sync()`, or with its own data and no sync, differs);
- for DTensor parameters (FSDP2 `fully_shard`), all ranks agree on placements and global shape, the
  local shards of a 1-D mesh add up to the global size, and replicated DTensors hash the same.
A job stopped for a hang names the rank(s) that stopped making progress while others waited in a
collective: rank, steps done, last line of the user's code (from the rank's stack, dumped on request).
"""
from __future__ import annotations

import linecache
import math
import os
import re
from dataclasses import replace

from checks.launch.process import exit_reason
from checks.launch.rank_files import MAIN_THREAD_ROOTS
from checks.launch.report import verdict
from checks.verdict.dist_result import DistributedSmokeResult, JobOutcome, LaunchSpec, RankPosition

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')
_THREAD = re.compile(r"^(Current thread|Thread) 0x[0-9a-f]+")
_COLLECTIVE_FILES = (os.sep + os.path.join("torch", "distributed") + os.sep,)
_BACKWARD_FILES = (os.sep + os.path.join("torch", "autograd") + os.sep, os.sep + os.path.join("torch", "_tensor.py"))


def parse_stack(text: str) -> list[list[tuple[str, int, str]]]:
    """faulthandler's dump -> threads, each a list of (file, line, function), most recent call first."""
    threads: list[list[tuple[str, int, str]]] = []
    for line in text.splitlines():
        if _THREAD.match(line):
            threads.append([])
            continue
        m = _FRAME.match(line)
        if m and threads:
            threads[-1].append((m["file"], int(m["line"]), m["func"]))
    return threads


def main_thread(threads) -> list[tuple[str, int, str]]:
    """The thread running the bootstrap (its oldest frame is bootstrap.py, or multiprocessing's
    `python -c` in a spawned rank), else the last dumped."""
    for frames in threads:
        if frames and os.path.basename(frames[-1][0]) in MAIN_THREAD_ROOTS and frames[-1][2] == "<module>":
            return frames
    return threads[-1] if threads else []


def _is_user(path: str, script: str) -> bool:
    real = os.path.realpath(path)
    if real == os.path.realpath(script):
        return True
    folder = os.path.dirname(os.path.realpath(script)) + os.sep
    return real.startswith(folder) and os.sep + "checks" + os.sep not in real and "site-packages" not in real


def position(rank: int, steps: int, stack: str | None, ended: bool, ddp: bool, script: str) -> RankPosition:
    if stack is None:
        return RankPosition(rank, steps, "ended" if ended else "absent")
    frames = main_thread(parse_stack(stack))
    user = next(((f, n) for f, n, _ in frames if _is_user(f, script)), None)
    above_user = frames[: next((i for i, (f, _, _) in enumerate(frames) if _is_user(f, script)), len(frames))]
    # The torch.distributed call nearest to the user's line, past torch's logging decorators ("wrapper").
    collective = next((func for f, _, func in reversed(above_user) if any(s in f for s in _COLLECTIVE_FILES)
                       and func != "wrapper" and not func.startswith("_")), None)
    if collective is None and any(any(s in f for s in _COLLECTIVE_FILES) for f, _, _ in above_user):
        collective = "torch.distributed"
    if collective is None and ddp and any(any(s in f for s in _BACKWARD_FILES) for f, _, _ in above_user):
        collective = "backward (DDP gradient all-reduce)"
    location = code = None
    if user:
        location = f"{os.path.basename(user[0])}:{user[1]}"
        code = linecache.getline(user[0], user[1]).strip() or None
    return RankPosition(rank, steps, "waiting" if collective else "running", location, code, collective)


def name_hanging(positions: list[RankPosition]) -> tuple[tuple[int, ...], str]:
    """Which ranks stopped the job, and one sentence saying why."""
    waiting = [p for p in positions if p.state == "waiting"]
    others = [p for p in positions if p.state != "waiting"]
    if waiting and others:
        names = ", ".join(str(p.rank) for p in others)
        return tuple(p.rank for p in others), (
            f"rank {names} stopped making progress while rank {', '.join(str(p.rank) for p in waiting)} waited in a collective: "
            + "; ".join(p.describe() for p in positions))
    if waiting:
        places = {(p.location, p.collective) for p in waiting}
        if len(places) == 1:
            return (), ("every rank waits in the same collective (a peer outside this job, or a collective the ranks "
                        "called with different arguments): " + "; ".join(p.describe() for p in positions))
        # Different collectives: the ranks that are not where most are stopped following the others.
        counts: dict = {}
        for p in waiting:
            counts[(p.location, p.collective)] = counts.get((p.location, p.collective), 0) + 1
        top = max(counts.values())
        odd = [p for p in waiting if counts[(p.location, p.collective)] < top]
        return tuple(p.rank for p in odd), ("the ranks wait in different collectives (a rank skipped or added one): "
                                            + "; ".join(p.describe() for p in positions))
    return tuple(p.rank for p in positions if p.state == "running"), (
        "no rank is in a collective; the ranks stopped making progress in the script's own code: "
        + "; ".join(p.describe() for p in positions))


def replica_check(per_rank, steps: int) -> tuple[list[str], list[str], str | None]:
    """(reasons, warnings, summary) of the cross-rank parameter comparison after the last step.

    per_rank: (rank, local rank, info, SmokeResult); info is the rank's `rankN.dist.json`
    (checks/child/dist_child.py) plus "report": whether the rank wrote its smoke report."""
    fps = {}
    for rank, _, info, result in per_rank:
        if (info or {}).get("replicas") is not None and result.steps >= steps:
            fps[rank] = info["replicas"]
    if len(fps) < len(per_rank) or len(fps) < 2:
        return [], [], None
    reasons, warnings = [], []
    ranks = sorted(fps)
    names = [set(fps[r]["params"]) for r in ranks]
    if any(n != names[0] for n in names):
        reasons.append("the ranks hold different parameter sets after the last step: "
                       + "; ".join(f"rank {r}: {len(fps[r]['params'])} parameters" for r in ranks))
        return reasons, warnings, "parameter sets differ"
    replicated = [k for k, v in fps[ranks[0]]["params"].items() if v["kind"] == "replicated"]
    differing = [k for k in replicated if len({fps[r]["params"][k].get("hash") for r in ranks}) > 1]
    if differing:
        first = differing[0]
        hashes = ", ".join(f"rank {r} {fps[r]['params'][first]['hash']}" for r in ranks)
        reasons.append(f"replicated parameters differ across ranks after step {steps}: {len(differing)} of "
                       f"{len(replicated)} (first: {first}: {hashes}); the gradients were not all-reduced "
                       "(no_sync(), a model outside DDP, or per-rank parameter updates)")
    sharded = [k for k, v in fps[ranks[0]]["params"].items() if v["kind"] == "sharded"]
    bad_shards = []
    for k in sharded:
        entries = [fps[r]["params"][k] for r in ranks]
        if any(e["shape"] != entries[0]["shape"] or e["placements"] != entries[0]["placements"] for e in entries):
            bad_shards.append(f"{k}: ranks disagree on shape/placements")
        elif len(entries[0]["placements"]) == 1 and sum(e["local_numel"] for e in entries) != math.prod(entries[0]["shape"]):
            bad_shards.append(f"{k}: local shards hold {sum(e['local_numel'] for e in entries)} elements, "
                              f"the parameter has {math.prod(entries[0]['shape'])}")
    if bad_shards:
        reasons.append("sharded (FSDP2) state is inconsistent across ranks: " + "; ".join(bad_shards[:3]))
    fsdp1 = max(fps[r].get("fsdp1_modules", 0) for r in ranks)
    if fsdp1:
        warnings.append(f"{fsdp1} FullyShardedDataParallel (FSDP1) module(s): their flat-parameter shards are not "
                        "compared across ranks (only FSDP2 DTensor parameters and DDP replicas are)")
    if not replicated and not sharded:
        return reasons, warnings, "no DDP or DTensor parameters: replication not checked"
    parts = []
    if replicated:
        parts.append(f"{len(replicated) - len(differing)}/{len(replicated)} replicated parameters identical on {len(ranks)} ranks")
    if sharded:
        parts.append(f"{len(sharded) - len(bad_shards)}/{len(sharded)} sharded parameters consistent")
    return reasons, warnings, "; ".join(parts)


def device_check(per_rank) -> list[str]:
    """Local ranks of one node bound to the same NPU index (set_device(local_rank) missing?)."""
    by_index: dict[int, list[int]] = {}
    for rank, _, info, _ in per_rank:
        idx = (info or {}).get("device_index")
        if idx is not None:
            by_index.setdefault(idx, []).append(rank)
    return [f"ranks {', '.join(map(str, rs))} all have current device index {idx} at the last step "
            "(torch.npu.set_device(local_rank) not called?): on a real NPU host, work put on the current device "
            "would share one NPU" for idx, rs in sorted(by_index.items()) if len(rs) > 1]


_PEER_LOST = ("closed by peer", "reset by peer", "remote worker", "Connection refused")


def root_cause(per_rank) -> str | None:
    """When some ranks failed only because a peer went away, name the rank(s) that failed first."""
    failed = [(rank, result) for rank, _, _, result in per_rank if result.verdict != "pass" and result.reasons]
    raised = {rank for rank, r in failed if r.error_location}
    # a rank lost its peer when its error says so, or when it ended without a Python exception of its
    # own while another rank raised one (torchrun tears the group down once a rank fails)
    # (a rank that stopped on its own non-finite loss raised nothing, yet failed first: not lost)
    lost = [rank for rank, r in failed
            if any(p in " ".join(r.reasons) for p in _PEER_LOST)
            or (raised and rank not in raised and not any("not finite" in x for x in r.reasons))]
    first = [rank for rank, _ in failed if rank not in lost]
    if lost and first:
        return (f"rank {', '.join(map(str, first))} failed first; rank {', '.join(map(str, lost))} then lost "
                "its peer in a collective")
    return None


def judge_job(script, backend, launch: LaunchSpec, per_rank, outcome: JobOutcome, *, steps, timeout,
              progress_timeout, warnings, note, log_dir, duration_s, cwd=None) -> DistributedSmokeResult:
    reasons: list[str] = []
    warnings = list(warnings)
    positions: list[RankPosition] = []
    hanging: tuple[int, ...] = ()
    stopped = outcome.timed_out or outcome.stalled
    if stopped:
        why = (f"no rank made progress for {progress_timeout:g}s" if outcome.stalled
               else f"the job did not finish within the timeout ({timeout:g}s)")
        for rank, _, info, result in per_rank:
            steps_done = result.steps
            prog = outcome.progress.get(f"rank{rank}")
            if prog:
                steps_done = max(steps_done, prog[1])
            ddp = bool((info or {}).get("ddp_modules"))
            positions.append(position(rank, steps_done, outcome.stacks.get(f"rank{rank}"),
                                      ended=prog is not None, ddp=ddp, script=script))
        hanging, sentence = name_hanging(positions)
        reasons.append(f"{why}; the job was killed. {sentence}")
    if stopped:  # the reports are written at most every 0.5 s; the progress files at every step
        by_rank = {p.rank: p.steps for p in positions}
        per_rank = [(rank, local, info, replace(result, steps=max(result.steps, by_rank.get(rank, 0))))
                    for rank, local, info, result in per_rank]
    if outcome.memory:  # the whole job was killed over --memory-limit, as one process is (checks/launch/process.py)
        limit, peak = outcome.memory
        done = min((max(r.steps, (outcome.progress.get(f"rank{rank}") or (0, 0))[1]) for rank, _, _, r in per_rank), default=0)
        reasons.append(exit_reason(None, None, done, steps, memory_limit=limit, memory_exceeded=True, peak_rss=peak))
    for rank, _, info, result in per_rank:
        rank_reasons = [r for r in result.reasons if not (stopped and ("timed out" in r or "timeout" in r))]
        if outcome.memory and not (info or {}).get("report"):
            rank_reasons = []  # killed with the job: the memory reason above says why
        elif not (info or {}).get("report") and not stopped:
            rank_reasons = [f"wrote no report: {r}" for r in result.reasons] or ["wrote no report"]
        reasons += [f"rank {rank}: {r}" for r in rank_reasons]
        warnings += [f"rank {rank}: {w}" for w in result.warnings if not w.startswith("backend auto")]
    root = root_cause(per_rank)
    if root:
        reasons.insert(0, root)
    rep_reasons, rep_warnings, replicas = replica_check(per_rank, steps)
    reasons += rep_reasons
    warnings += rep_warnings + device_check(per_rank)
    world = next(((info or {}).get("world_size") for _, _, info, _ in per_rank
                  if (info or {}).get("world_size")), launch.nproc_per_node)
    if not stopped and outcome.returncode not in (0, None) and not reasons:
        last = (outcome.launcher_output.strip().splitlines() or ["no output"])[-1]
        reasons.append(f"torchrun exited with status {outcome.returncode}: {last}")
    results = [r for _, _, _, r in per_rank]
    return DistributedSmokeResult(
        *verdict(any(r.exit_code == 2 and r.verdict == "error" for r in results) and not stopped, reasons),
        backend, script, launch, int(world or launch.nproc_per_node), tuple(results),
        tuple(r for r, _, _, _ in per_rank), tuple(reasons), tuple(dict.fromkeys(warnings)), tuple(positions),
        hanging, replicas, steps, outcome.timed_out, outcome.stalled, outcome.launcher_output[-8000:], log_dir,
        round(duration_s, 3), note)


def render(result: DistributedSmokeResult, console=None) -> None:
    """Terminal summary: one line per rank, then the job's verdict."""
    from rich.table import Table

    from migrate.report.terminal import escape, make_console

    console = console or make_console()
    if result.note:
        console.print(f"[yellow]{result.note}[/yellow]")
    table = Table(title=f"smoke: {escape(result.script)} ({len(result.ranks)} ranks here, world size {result.world_size})")
    for col in ("rank", "verdict", "steps", "first loss", "last loss", "mean step (s)"):
        table.add_column(col, justify="right")
    for rank, r in zip(result.rank_ids, result.ranks):
        mean = sum(r.step_times) / len(r.step_times) if r.step_times else None
        table.add_row(str(rank), r.verdict, f"{r.steps}/{result.requested_steps}",
                      f"{r.losses[0]:.6g}" if r.losses else "-", f"{r.losses[-1]:.6g}" if r.losses else "-",
                      f"{mean:.4f}" if mean is not None else "-")
    console.print(table)
    if result.replicas:
        console.print(f"  {'replicas':20} {result.replicas}", highlight=False)
    if result.log_dir:
        console.print(f"  {'rank logs':20} {escape(result.log_dir)}", highlight=False)
    for w in result.warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}", highlight=False)
    for r in result.reasons:
        console.print(f"  [red]reason:[/red] {escape(r)}", highlight=False)
    for rank, r in zip(result.rank_ids, result.ranks):
        if r.verdict != "pass" and r.stderr.strip():
            console.print(f"  [dim]rank {rank} stderr (last lines):[/dim]", highlight=False)
            for line in r.stderr.strip().splitlines()[-5:]:
                console.print(f"    {line}", highlight=False, markup=False)
    colour = {"pass": "green", "fail": "red"}.get(result.verdict, "magenta")
    suffix = f" ({result.note})" if result.note else ""
    console.print(f"[bold {colour}]smoke: {result.verdict.upper()}[/bold {colour}] ({len(result.ranks)} ranks){suffix}",
                  highlight=False)
