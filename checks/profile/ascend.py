"""On a real Ascend NPU: the Ascend PyTorch Profiler around the training steps (profile child).

Written against torch_npu 2.14.0's `torch_npu/profiler` (read from the wheel; the names used here are
checked against the knowledge data in tests/test_profile.py, and their keyword arguments against the
wheel's source when it is available):
- `torch_npu.profiler.profile(*, activities, schedule, on_trace_ready, record_shapes, profile_memory,
  with_stack, with_flops, with_modules, experimental_config)` (profiler.py, class `profile`);
- `torch_npu.profiler.schedule` (= scheduler.Schedule(wait, active, warmup, repeat, skip_first));
- `torch_npu.profiler.tensorboard_trace_handler(dir_name)`: writes `<host>_<pid>_<time>_ascend_pt`
  folders under `dir_name` and parses them when the active steps end;
- `torch_npu.profiler._ExperimentalConfig(profiler_level=ProfilerLevel.Level1,
  aic_metrics=AiCMetrics.PipeUtilization, export_type=ExportType.Text, data_simplification=False)`;
- `torch_npu.profiler.ProfilerActivity.CPU` / `.NPU`.
`profile.step()` is called after every optimizer step (the smoke step hook), `stop()` when the run
ends. This module has not run on Ascend hardware (see docs/profile.md).
"""
from __future__ import annotations

DEFAULT_SCHEDULE = {"wait": 1, "warmup": 1, "active": 2, "repeat": 1}


def steps_needed(schedule: dict) -> int:
    """Optimizer steps until the first active window has been recorded and saved."""
    return int(schedule.get("skip_first", 0)) + int(schedule["wait"]) + int(schedule["warmup"]) + int(schedule["active"])


class AscendProfiler:
    def __init__(self, trace_dir: str, schedule: dict | None = None):
        import torch_npu

        prof = torch_npu.profiler
        sched = dict(DEFAULT_SCHEDULE, **(schedule or {}))
        experimental = prof._ExperimentalConfig(
            profiler_level=prof.ProfilerLevel.Level1,
            aic_metrics=prof.AiCMetrics.PipeUtilization,
            export_type=prof.ExportType.Text,
            data_simplification=False,
        )
        self.trace_dir = trace_dir
        self.schedule = sched
        self.profiler = prof.profile(
            activities=[prof.ProfilerActivity.CPU, prof.ProfilerActivity.NPU],
            schedule=prof.schedule(wait=sched["wait"], warmup=sched["warmup"], active=sched["active"],
                                   repeat=sched["repeat"], skip_first=sched.get("skip_first", 0)),
            on_trace_ready=prof.tensorboard_trace_handler(trace_dir),
            record_shapes=True,
            profile_memory=True,
            with_stack=True,
            with_flops=False,
            with_modules=False,
            experimental_config=experimental,
        )
        self.steps = 0
        self.started = self.stopped = False

    def start(self) -> None:
        self.profiler.start()
        self.started = True

    def step(self) -> None:
        if self.started and not self.stopped:
            self.profiler.step()
            self.steps += 1

    def stop(self) -> None:
        if self.started and not self.stopped:
            self.stopped = True
            self.profiler.stop()

    def to_json(self) -> dict:
        return {"trace_dir": self.trace_dir, "schedule": self.schedule, "profiler_steps": self.steps,
                "stopped": self.stopped}
