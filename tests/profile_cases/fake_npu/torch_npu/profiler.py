"""Fake `torch_npu.profiler` with the public signatures of torch_npu 2.14.0 (torch_npu/profiler/profiler.py,
scheduler.py, experimental_config.py read from the wheel). Every call is appended as a JSON line to
$FAKE_NPU_LOG; `tensorboard_trace_handler` writes a `<host>_<pid>_<time>_ascend_pt` folder when the
active steps end, as the real one does. Keyword-only like the real `profile`, so an argument name the
real API lacks raises TypeError here too."""
import enum
import json
import os
import socket
import time


def _log(event, **data):
    with open(os.environ["FAKE_NPU_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, **data}, default=str) + "\n")


class ProfilerActivity(enum.Enum):
    CPU = 0
    NPU = 1


class ProfilerLevel:
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"
    Level_none = "Level_none"


class AiCMetrics:
    PipeUtilization = "ACL_AICORE_PIPE_UTILIZATION"
    AiCoreNone = "ACL_AICORE_NONE"


class ExportType:
    Db = "db"
    Text = "text"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class schedule:  # torch_npu.profiler.schedule is scheduler.Schedule
    def __init__(self, wait, active, warmup=0, repeat=0, skip_first=0, skip_first_wait=0):
        _log("schedule", wait=wait, active=active, warmup=warmup, repeat=repeat, skip_first=skip_first)
        self.wait, self.active, self.warmup, self.repeat, self.skip_first = wait, active, warmup, repeat, skip_first

    def __call__(self, step):
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat > 0 and step / cycle >= self.repeat:
            return ProfilerAction.NONE
        mod = step % cycle
        if mod < self.wait:
            return ProfilerAction.NONE
        if mod < self.wait + self.warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < cycle - 1 else ProfilerAction.RECORD_AND_SAVE


class _ExperimentalConfig:
    def __init__(self, profiler_level="Level0", aic_metrics="ACL_AICORE_PIPE_UTILIZATION", l2_cache=False,
                 msprof_tx=False, mstx=False, data_simplification=True, record_op_args=False, op_attr=False,
                 gc_detect_threshold=None, export_type="text", host_sys=None, mstx_domain_include=None,
                 mstx_domain_exclude=None, sys_io=False, sys_interconnection=False):
        _log("experimental_config", profiler_level=profiler_level, aic_metrics=aic_metrics, export_type=export_type,
             data_simplification=data_simplification)


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
    _log("tensorboard_trace_handler", dir_name=dir_name)

    def handler(prof):
        stamp = time.strftime("%Y%m%d%H%M%S") + "000"
        path = os.path.join(dir_name, f"{worker_name or socket.gethostname()}_{os.getpid()}_{stamp}_ascend_pt")
        os.makedirs(os.path.join(path, "ASCEND_PROFILER_OUTPUT"), exist_ok=True)
        with open(os.path.join(path, "ASCEND_PROFILER_OUTPUT", "trace_view.json"), "w") as f:
            json.dump({"recorded_steps": prof.recorded}, f)
        _log("trace_ready", path=path, recorded=prof.recorded)

    return handler


class profile:
    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, custom_trace_id_callback=None,
                 use_cuda=None):
        _log("profile", activities=[a.name for a in activities or ()], record_shapes=record_shapes,
             profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
             has_schedule=schedule is not None, has_handler=on_trace_ready is not None)
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.action = schedule(0)
        self.recorded = []

    def _transit(self, prev, current):
        if prev in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self.recorded.append(self.step_num - 1 if current is not None else self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE and current != ProfilerAction.RECORD_AND_SAVE:
            self.on_trace_ready(self)

    def start(self):
        _log("start")

    def step(self):
        prev = self.action
        self.step_num += 1
        self.action = self.schedule(self.step_num)
        _log("step", step_num=self.step_num, action=self.action.name)
        self._transit(prev, self.action)

    def stop(self):
        _log("stop", action=self.action.name)
        self._transit(self.action, None)
