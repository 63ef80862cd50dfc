"""What `npu-migrate profile` reports: frozen dataclasses shared by the engine and the reporters."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

KINDS = ("host_sync", "cpu_fallback", "dynamic_shape", "float64", "data_loading", "optimizer", "fusion")
SEVERITIES = ("low", "medium", "high")
EMULATION_CANNOT_SEE = (
    "kernel execution times on the NPU",
    "AI Core / AI CPU utilisation",
    "memory bandwidth and on-device memory use",
    "communication (HCCL) time and overlap",
    "operator compile times and host-device transfer times (estimated, not measured)",
)


@dataclass(frozen=True)
class PerfFinding:
    kind: str  # one of KINDS
    path: str
    line: int
    per_step: float  # occurrences per measured step (data_loading: batches per step)
    message: str
    advice: str
    cost_ms: float  # estimated milliseconds per step on the NPU (ranking; see checks/profile/cost.py)
    severity: str  # low | medium | high: cost_ms against the median measured step time
    what: str | None = None  # the call or op (".item()", "aten::nonzero", ...)
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ProfileResult:
    script: str
    backend: str  # "npu" | "emulated" | the requested one when it could not run
    exit_code: int  # 0 | 1 | 2
    steps: int = 0  # measured steps (step 1, with the set-up, is never measured)
    steps_run: int = 0
    traced_steps: int = 0
    findings: tuple[PerfFinding, ...] = ()
    step_time_ms: float | None = None  # median of the measured steps
    step_times_ms: tuple[float, ...] = ()  # each measured step (2..N), hooks included
    reasons: tuple[str, ...] = ()  # why it could not run (exit 2)
    warnings: tuple[str, ...] = ()
    fail_on: tuple[str, ...] = ()
    failing: int = 0  # findings at or above --fail-on
    note: str | None = None
    cannot_see: tuple[str, ...] = ()
    torch_npu_version: str | None = None
    out_dir: str | None = None
    summary_path: str | None = None
    trace: dict | None = None  # NPU: trace folder(s), schedule, advisor result
    smoke_verdict: str | None = None
    smoke_reasons: tuple[str, ...] = ()
    rank: int | None = None  # this rank's result, inside a distributed one
    ranks: tuple["ProfileResult", ...] = ()  # profile --nproc-per-node: one result per rank (findings merged above)
    job: dict | None = None  # profile --nproc-per-node: the distributed smoke verdict of the job

    @property
    def emulated(self) -> bool:
        return self.backend == "emulated"

    @property
    def verdict(self) -> str:
        """From the exit code: ok (0), findings (1: at or above --fail-on), error (2: could not run),
        interrupted (128 + N: a signal ended the run; the steps measured before it are ranked)."""
        return {0: "ok", 1: "findings", 2: "error"}.get(self.exit_code, "interrupted")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict
        d["emulated"] = self.emulated
        d["findings"] = [f.to_dict() for f in self.findings]
        d["ranks"] = [r.to_dict() for r in self.ranks]
        return d
