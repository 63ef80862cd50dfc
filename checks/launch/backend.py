"""`--backend auto`: a real Ascend NPU when torch_npu imports and torch.npu.is_available(), else emulated.

The probe runs in a subprocess with a timeout (importing torch_npu can hang or abort on a broken CANN
install) and never sees our stand-in: it runs from a neutral directory with our folders removed from
PYTHONPATH.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass

STANDIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standin")
EMULATED_NOTE = "emulated: no Ascend NPU found; computed on CPU"
CUDA_EMULATED_NOTE = "emulated: no CUDA GPU found; the CUDA twin computed the original on CPU"
_CUDA_PROBE = "import torch\nprint('CUDA_PROBE', torch.cuda.is_available())\n"
_PROBE = ("import torch, torch_npu\n"
          "print('NPU_PROBE', torch.npu.is_available(), torch_npu.__version__)\n")


@dataclass(frozen=True)
class Detection:
    backend: str  # "npu" / "emulated", or for a GPU original "cuda" / "cuda-emulated"
    reason: str
    torch_npu_version: str | None = None


def _clean_env() -> dict:
    env = dict(os.environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
             if p and not os.path.abspath(p).startswith(os.path.abspath(STANDIN))]
    if parts:
        env["PYTHONPATH"] = os.pathsep.join(parts)
    else:
        env.pop("PYTHONPATH", None)
    return env


def detect(python: str | None = None, timeout: float = 60.0) -> Detection:
    python = python or sys.executable
    if python == sys.executable and importlib.util.find_spec("torch_npu") is None:
        return Detection("emulated", "torch_npu is not installed")
    try:
        proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=timeout,
                              env=_clean_env(), cwd=os.path.expanduser("~") if os.path.isdir(os.path.expanduser("~")) else "/")
    except subprocess.TimeoutExpired:
        return Detection("emulated", f"probing torch_npu timed out after {timeout:.0f}s")
    except OSError as exc:
        return Detection("emulated", f"could not probe torch_npu: {exc}")
    for line in proc.stdout.splitlines():
        if line.startswith("NPU_PROBE "):
            _, available, version = line.split(" ", 2)
            if available == "True":
                return Detection("npu", "torch_npu imports and torch.npu.is_available()", version)
            return Detection("emulated", "torch_npu imports but torch.npu.is_available() is False", version)
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return Detection("emulated", f"torch_npu does not import: {last}")


def _nvidia_device_files() -> bool:
    return any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl", "/proc/driver/nvidia/version"))


def detect_cuda(python: str | None = None, timeout: float = 60.0) -> Detection:
    """`--baseline-backend auto`: the real GPU ("cuda") when torch sees one, else the twin ("cuda-emulated").

    No NVIDIA driver files: no probe at all (importing torch costs seconds). Otherwise a subprocess
    asks torch, as for the NPU.
    """
    if not _nvidia_device_files():
        return Detection("cuda-emulated", "no NVIDIA driver on this host")
    try:
        proc = subprocess.run([python or sys.executable, "-c", _CUDA_PROBE], capture_output=True, text=True,
                              timeout=timeout, env=_clean_env(), cwd="/")
    except subprocess.TimeoutExpired:
        return Detection("cuda-emulated", f"probing CUDA timed out after {timeout:.0f}s")
    except OSError as exc:
        return Detection("cuda-emulated", f"could not probe CUDA: {exc}")
    if "CUDA_PROBE True" in proc.stdout:
        return Detection("cuda", "torch.cuda.is_available()")
    return Detection("cuda-emulated", "torch.cuda.is_available() is False")
