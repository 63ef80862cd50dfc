"""Progress of a quiet run on a terminal: "smoke: step k/N, 12.3 s" on stderr, rewritten in place
("profile: ...", "validate migrated: ...", "baseline: ..." for the other run commands' `-q`).

`smoke -q` streams nothing of the script, so a long run would otherwise print nothing until its
verdict. The child rewrites its JSON report after steps (checks/child/recorder.py: the first step, then at
most every 0.5 s); a thread here reads it a few times a second and shows the step reached with a
rich status line, which is erased when the run ends. Nothing at all is written when stderr is not a
terminal (pipes, CI logs, files). Never imports torch.
"""
from __future__ import annotations

import threading
import time

POLL_S = 0.25


def _steps_done(report_path: str) -> int:
    from checks.launch.report import read_reports

    report = read_reports(report_path)
    return report.steps if report is not None else 0


class Progress:
    """`start()` after the child started, `stop()` once it ended (safe to call twice)."""

    def __init__(self, report_path: str, steps: int, console=None, label: str = "smoke"):
        from rich.console import Console

        self.report_path, self.steps, self.label = report_path, steps, label
        self.console = console or Console(stderr=True)
        self.done = threading.Event()
        self.thread: threading.Thread | None = None
        self.t0 = time.perf_counter()

    @property
    def enabled(self) -> bool:
        return self.console.is_terminal

    def text(self, done: int) -> str:
        what = f"step {done}/{self.steps}" if done else f"starting (0/{self.steps} steps)"
        return f"{self.label}: {what}, {time.perf_counter() - self.t0:.1f} s"

    def start(self) -> Progress:
        if self.enabled:
            self.thread = threading.Thread(target=self._run, daemon=True, name="smoke-progress")
            self.thread.start()
        return self

    def _run(self) -> None:
        with self.console.status(self.text(0), spinner="line") as status:
            while not self.done.wait(POLL_S):
                try:
                    status.update(self.text(_steps_done(self.report_path)))
                except Exception:  # a half-written report: try again at the next tick
                    pass

    def stop(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(2.0)
