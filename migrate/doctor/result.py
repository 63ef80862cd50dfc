"""Frozen results of the doctor's checks; the runner returns them, reporters print them."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Status(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict. `fix` is the exact thing to do (a command where there is one)."""

    id: str
    title: str
    status: Status
    summary: str
    evidence: tuple[str, ...] = ()
    fix: str | None = None
    # facts later checks may use (e.g. the torch_npu version found); not printed as text
    facts: dict = field(default_factory=dict, compare=False)

    @property
    def blocking(self) -> bool:
        return self.status is Status.FAIL

    def to_dict(self) -> dict:
        data = asdict(self)
        data["status"] = self.status.value
        data["evidence"] = list(self.evidence)
        return data


@dataclass(frozen=True)
class DoctorReport:
    results: tuple[CheckResult, ...]
    # one plain sentence when nothing of the Ascend stack is present (CI, a laptop)
    headline: str | None = None

    @property
    def ready(self) -> bool:
        return not any(r.blocking for r in self.results)

    @property
    def exit_code(self) -> int:
        return 0 if self.ready else 1

    def get(self, check_id: str) -> CheckResult | None:
        return next((r for r in self.results if r.id == check_id), None)

    def to_dict(self) -> dict:
        from migrate import __version__

        return {"tool": f"npu-migrate {__version__} doctor", "ready": self.ready,
                "exit_code": self.exit_code, "headline": self.headline,
                "checks": [r.to_dict() for r in self.results],
                "blocking": [{"id": r.id, "fix": r.fix} for r in self.results if r.blocking]}
