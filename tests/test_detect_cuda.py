"""`--baseline-backend auto` on a host with NVIDIA driver files: torch's version.py and the driver's own calls
answer where that is certain, without importing torch (a probe cost ~5 s wall, 7 s CPU of every recording on an
H200 host); anything uncertain still goes to the torch probe. No GPU here: the driver is a stand-in object that
answers libcuda's three calls the way the real library does (values written through the pointers)."""

from __future__ import annotations

import ctypes
import stat
import subprocess

import pytest

from checks.launch import backend


class _Driver:
    """libcuda.so.1 as ctypes sees it: cuDriverGetVersion / cuInit / cuDeviceGetCount return a CUresult and write
    through their pointer arguments."""

    def __init__(self, version=13000, init=0, count=1):
        self.version, self.init, self.count, self.calls = version, init, count, []

    def cuDriverGetVersion(self, pointer):
        self.calls.append("version")
        pointer._obj.value = self.version
        return 0

    def cuInit(self, flags):
        self.calls.append("init")
        return self.init

    def cuDeviceGetCount(self, pointer):
        self.calls.append("count")
        pointer._obj.value = self.count
        return 0


def _torch(tmp_path, line: str):
    folder = tmp_path / "torch"
    folder.mkdir()
    (folder / "version.py").write_text("from typing import Optional\n__version__ = '2.5.1'\n" + line + "\nhip = None\n")
    return str(folder)


@pytest.mark.parametrize("line, expected", [
    ("cuda: Optional[str] = '12.4'", "12.4"),
    ("cuda = '11.8'", "11.8"),
    ('cuda: Optional[str] = "13.0"', "13.0"),
    ("cuda: Optional[str] = None", None),
    ("cudnn = '9'", False),  # no cuda line: the probe decides
])
def test_torch_cuda_version_is_read_from_version_py(tmp_path, line, expected):
    assert backend._torch_cuda_version(_torch(tmp_path, line)) == expected


def test_torch_cuda_version_of_a_folder_without_version_py_is_unknown(tmp_path):
    assert backend._torch_cuda_version(str(tmp_path)) is False


def test_driver_devices_reads_count_and_version_through_the_pointers():
    driver = _Driver(version=12080, count=2)
    assert backend._driver_devices(lambda name: driver) == (2, 12080)
    assert driver.calls == ["version", "init", "count"]


def test_driver_devices_no_device_and_failures():
    assert backend._driver_devices(lambda name: _Driver(init=100)) == (0, 13000)  # CUDA_ERROR_NO_DEVICE
    assert backend._driver_devices(lambda name: _Driver(init=999)) is None  # another error: uncertain

    def missing(name):
        raise OSError("libcuda.so.1: cannot open shared object file")
    assert backend._driver_devices(missing) is None


def test_cuda_without_torch_answers_only_where_certain(tmp_path):
    gpu_build = _torch(tmp_path, "cuda: Optional[str] = '13.0'")
    found = backend._cuda_without_torch(lambda name: _Driver(version=13000, count=1), gpu_build)
    assert found is not None and found.backend == "cuda" and "1 device" in found.reason
    assert backend._cuda_without_torch(lambda name: _Driver(count=0), gpu_build).backend == "cuda-emulated"
    assert backend._cuda_without_torch(lambda name: _Driver(init=100), gpu_build).backend == "cuda-emulated"
    # a driver older than torch's CUDA major version: torch itself decides (minor-version compatibility, errors)
    assert backend._cuda_without_torch(lambda name: _Driver(version=12080, count=1), gpu_build) is None
    cpu_build = tmp_path / "cpu"
    cpu_build.mkdir()
    answer = backend._cuda_without_torch(lambda name: _Driver(count=4), _torch(cpu_build, "cuda = None"))
    assert answer.backend == "cuda-emulated" and "CPU build" in answer.reason


def test_detect_cuda_takes_the_certain_answer_without_a_probe(monkeypatch):
    monkeypatch.setattr(backend, "_nvidia_device_files", lambda: True)
    monkeypatch.setattr(backend, "_cuda_without_torch", lambda: backend.Detection("cuda", "driver"))

    def no_probe(*args, **kwargs):
        raise AssertionError("the torch probe ran")
    monkeypatch.setattr(subprocess, "run", no_probe)
    assert backend.detect_cuda() == backend.Detection("cuda", "driver")


def test_detect_cuda_probes_another_interpreter_and_the_uncertain_case(monkeypatch, tmp_path):
    """Another interpreter's torch is not this one's: the probe runs it (here a stand-in interpreter that answers
    as torch would); so does this interpreter when the quick answer is uncertain."""
    monkeypatch.setattr(backend, "_nvidia_device_files", lambda: True)
    monkeypatch.setattr(backend, "_cuda_without_torch", lambda: pytest.fail("asked for another interpreter"))
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho CUDA_PROBE True\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    assert backend.detect_cuda(str(python)).backend == "cuda"
    python.write_text("#!/bin/sh\necho CUDA_PROBE False\n")
    assert backend.detect_cuda(str(python)).reason == "torch.cuda.is_available() is False"
    seen = []
    monkeypatch.setattr(backend, "_cuda_without_torch", lambda: seen.append(1))
    monkeypatch.setattr(backend.sys, "executable", str(python))
    assert backend.detect_cuda().reason == "torch.cuda.is_available() is False" and seen == [1]


def test_no_driver_files_no_question(monkeypatch):
    monkeypatch.setattr(backend, "_nvidia_device_files", lambda: False)
    monkeypatch.setattr(backend, "_cuda_without_torch", lambda: pytest.fail("asked without a driver"))
    assert backend.detect_cuda().backend == "cuda-emulated"


def test_pointer_object_is_what_byref_exposes():
    """The stand-in writes through `pointer._obj`: what ctypes.byref hands a foreign function wraps the c_int."""
    value = ctypes.c_int(0)
    ref = ctypes.byref(value)
    ref._obj.value = 7
    assert value.value == 7
