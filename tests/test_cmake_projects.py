"""A Python project of the repository built by CMake (a pyproject.toml with a CMake backend beside a CUDA
CMakeLists.txt) installs a CUDA build wherever it is installed: by its folder (`pip install .` in it, a uv source
`path`) or by its distribution name from another manifest (hao-ai-lab/FastVideo's fastvideo-kernel/, labels 61a)."""
from __future__ import annotations

from pathlib import Path

from migrate.engine import scan

NEWEST = "2.14.0"
_CMAKE = "cmake_minimum_required(VERSION 3.26)\nproject(kern LANGUAGES CXX)\nenable_language(CUDA)\n" \
         "add_library(kern_ops MODULE csrc/ops.cu)\n"


def _tree(tmp_path, backend="scikit_build_core.build"):
    kern = tmp_path / "kern"
    (kern / "csrc").mkdir(parents=True)
    (kern / "csrc" / "ops.cu").write_text("__global__ void k() {}\n")
    (kern / "CMakeLists.txt").write_text(_CMAKE)
    (kern / "pyproject.toml").write_text(
        f"[build-system]\nrequires = [\"scikit-build-core\"]\nbuild-backend = \"{backend}\"\n\n"
        "[project]\nname = \"kern-kernels\"\nversion = \"0.1\"\ndependencies = [\"torch\"]\n")
    (kern / "build.sh").write_text("#!/bin/bash\nuv pip install . -v --no-build-isolation\n")
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = \"app\"\nversion = \"1.0\"\ndependencies = [\n    \"torch\",\n    \"kern_kernels==0.1\",\n]\n\n"
        "[tool.uv.sources]\nkern-kernels = [\n  { path = \"kern\", marker = \"platform_machine == 'aarch64'\" },\n]\n")
    (tmp_path / "requirements.txt").write_text("numpy\n")


def _installs(result, name):
    return sorted(f.line for f in result.findings if f.code == "NPU502" and Path(f.path).name == name
                  and "installs the repository's" in f.message)


def test_a_cmake_built_cuda_project_is_installed_by_name_by_folder_and_by_uv_source(tmp_path):
    _tree(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    root = (tmp_path / "pyproject.toml").resolve()
    assert sorted(f.line for f in result.findings if f.code == "NPU502" and Path(f.path).resolve() == root) == [6, 11]
    # (the requirement by name, the uv source's path)
    assert _installs(result, "build.sh") == [2]  # `uv pip install .` in the project's folder
    assert _installs(result, "requirements.txt") == []


def test_a_project_built_without_cmake_is_not_read_as_a_cuda_build(tmp_path):
    _tree(tmp_path, backend="setuptools.build_meta")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _installs(result, "pyproject.toml") == []
    assert _installs(result, "build.sh") == []
