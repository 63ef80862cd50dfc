"""`--backend auto`: a real Ascend NPU when torch_npu imports and torch.npu.is_available(), else emulated.

The probe runs in a subprocess with a timeout (importing torch_npu can hang or abort on a broken CANN
install) and never sees our stand-in: it runs from a neutral directory with our folders removed from
PYTHONPATH.
"""
from __future__ import annotations

import ctypes
import importlib.util
import os
import re
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


def _torch_cuda_version(folder: str | None = None) -> str | None | bool:
    """The CUDA version torch was built for, read from its version.py without importing torch (seconds of a
    GPU host's time): a string, None for a CPU build, False where it cannot be read (the probe decides)."""
    if folder is None:
        try:
            spec = importlib.util.find_spec("torch")
        except (ImportError, ValueError):
            return False
        if spec is None or not spec.submodule_search_locations:
            return False
        folder = list(spec.submodule_search_locations)[0]
    try:
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return False
    match = re.search(r"""^cuda\s*(?::[^=\n]*)?=\s*(None|'([^'\n]*)'|"([^"\n]*)")\s*$""", text, re.M)
    if match is None:
        return False
    return None if match.group(1) == "None" else (match.group(2) or match.group(3) or False)


_CUDA_ERROR_NO_DEVICE = 100


def _driver_devices(load=ctypes.CDLL) -> tuple[int, int] | None:
    """(the devices the NVIDIA driver shows this process, the driver's CUDA version as 12040) from libcuda's
    own calls (cuInit honours CUDA_VISIBLE_DEVICES as torch's runtime does), or None where the driver cannot
    answer (the probe decides)."""
    try:
        lib = load("libcuda.so.1")
        version, count = ctypes.c_int(0), ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(version)) != 0:
            return None
        status = lib.cuInit(0)
        if status == _CUDA_ERROR_NO_DEVICE:
            return 0, version.value
        if status != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return None
        return count.value, version.value
    except (OSError, AttributeError):
        return None


def _cuda_without_torch(load=ctypes.CDLL, folder: str | None = None) -> Detection | None:
    """The answer of torch.cuda.is_available() where it is certain without importing torch: a CPU build of
    torch, or the driver showing no device, or devices and a driver at least as new as torch's CUDA major
    version. Anything else (an older driver, an unreadable torch or driver) is None: the probe asks torch."""
    cuda = _torch_cuda_version(folder)
    if cuda is None:
        return Detection("cuda-emulated", "torch here is a CPU build (its version.py: cuda = None)")
    if cuda is False:
        return None
    answer = _driver_devices(load)
    if answer is None:
        return None
    count, version = answer
    if count == 0:
        return Detection("cuda-emulated", "the NVIDIA driver shows this process no device")
    try:
        major = int(cuda.split(".")[0])
    except ValueError:
        return None
    if version // 1000 < major:
        return None
    return Detection("cuda", f"the NVIDIA driver shows {count} device(s) (CUDA {version // 1000}.{version % 1000 // 10}); "
                             f"torch is built for CUDA {cuda}")


def detect_cuda(python: str | None = None, timeout: float = 60.0) -> Detection:
    """`--baseline-backend auto`: the real GPU ("cuda") when torch sees one, else the twin ("cuda-emulated").

    No NVIDIA driver files: no probe at all. For this interpreter, torch's version.py and the driver's own
    calls answer where that is certain (importing torch and starting CUDA in a probe costs ~5 s of a GPU
    host's wall time, 7 s CPU, on an H200 host: more than the recording adds otherwise). Otherwise a
    subprocess asks torch, as for the NPU.
    """
    if not _nvidia_device_files():
        return Detection("cuda-emulated", "no NVIDIA driver on this host")
    if python in (None, sys.executable):
        quick = _cuda_without_torch()
        if quick is not None:
            return quick
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
