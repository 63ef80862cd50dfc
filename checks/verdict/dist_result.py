"""What a distributed smoke job is and what it gives (parent side, never imports torch): the launch
options, where each rank was when the job stopped, the job's outcome and its result.

Data only: checks/distributed/run.py runs the job, checks/verdict/dist.py judges it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from checks.verdict.smoke import SmokeResult


@dataclass(frozen=True)
class LaunchSpec:
    """torchrun's launch options; `nnodes` is torchrun's text ("2" or "1:4")."""

    nproc_per_node: int
    nnodes: str = "1"
    node_rank: int = 0
    master_addr: str | None = None
    master_port: int | None = None

    @property
    def single_node(self) -> bool:
        return self.nnodes in ("1", "1:1")

    def local_ranks(self) -> range:
        return range(self.nproc_per_node)

    def global_rank(self, local_rank: int) -> int:
        return self.node_rank * self.nproc_per_node + local_rank

    def torchrun_args(self) -> list[str]:
        args = ["--nproc-per-node", str(self.nproc_per_node)]
        if self.single_node and self.master_addr is None and self.master_port is None:
            args.append("--standalone")  # torchrun picks a free port: parallel jobs do not collide
        else:
            args += ["--nnodes", self.nnodes, "--node-rank", str(self.node_rank)]
            if self.master_addr is not None:
                args += ["--master-addr", self.master_addr]
            if self.master_port is not None:
                args += ["--master-port", str(self.master_port)]
        return args


@dataclass(frozen=True)
class RankPosition:
    """Where one rank was when the job was stopped for not making progress."""

    rank: int
    steps: int
    state: str  # "waiting" (in a collective) | "running" (not in a collective) | "ended" | "absent"
    location: str | None = None  # user file:line
    code: str | None = None  # that line's text
    collective: str | None = None  # the torch.distributed call it waits in, if any

    def describe(self) -> str:
        where = f" at {self.location}" + (f" ({self.code})" if self.code else "") if self.location else ""
        what = {"waiting": f"waits in {self.collective or 'a collective'}", "running": "is not in a collective",
                "ended": "has ended", "absent": "never started the bootstrap"}[self.state]
        return f"rank {self.rank} {what} after step {self.steps}{where}"


@dataclass(frozen=True)
class DistributedSmokeResult:
    verdict: str  # "pass" | "fail" | "error"
    exit_code: int
    backend: str
    script: str
    launch: LaunchSpec
    world_size: int
    ranks: tuple[SmokeResult, ...] = ()  # one per local rank, ordered by rank
    rank_ids: tuple[int, ...] = ()
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    positions: tuple[RankPosition, ...] = ()  # filled when the job was stopped for a hang
    hanging: tuple[int, ...] = ()  # ranks named as the ones that stopped making progress
    replicas: str | None = None  # what the cross-rank parameter check found
    requested_steps: int = 0
    timed_out: bool = False
    stalled: bool = False
    launcher_output: str = ""
    log_dir: str | None = None
    duration_s: float = 0.0
    note: str | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    # The first rank's run, for code that reads one run (validate's single-run pipeline).
    @property
    def losses(self) -> tuple[float, ...]:
        return self.ranks[0].losses if self.ranks else ()

    @property
    def loss_dtype(self) -> str | None:
        return self.ranks[0].loss_dtype if self.ranks else None

    @property
    def steps(self) -> int:
        return min((r.steps for r in self.ranks), default=0)

    def rank(self, rank: int) -> SmokeResult | None:
        return dict(zip(self.rank_ids, self.ranks)).get(rank)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ranks"] = [dict(r.to_dict(), rank=i) for i, r in zip(self.rank_ids, self.ranks)]
        return d


@dataclass(frozen=True)
class JobOutcome:
    returncode: int | None
    timed_out: bool
    stalled: bool
    launcher_output: str
    stacks: dict = field(default_factory=dict)  # rank -> faulthandler text
    progress: dict = field(default_factory=dict)  # rank -> (pid, steps)
    memory: tuple[int, int] | None = None  # (limit, peak) in bytes when the job went over --memory-limit and was killed
