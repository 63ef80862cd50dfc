"""CI workflows and cloud launcher YAMLs set up a machine: no GPU-only construct of the port is in them (NPU5xx).

A CI workflow (`.github/workflows/gpu_unit_tests.yml`: `pip install cupy-cuda12x`, `nvidia-smi`; `.gitlab-ci.yml`,
`.circleci/config.yml`, ...) provisions the project's test machines, and a SkyPilot task YAML
(`examples/skypilot/verl-ppo.yaml`: `resources: accelerators: H100:1`, `setup: | pip3 install flashinfer-python`)
provisions a cloud cluster and starts the program on it. Like a Dockerfile, they are infrastructure around the
program, not the program a porting engineer moves to the NPU (label rulings (L17), (L39)): the scored family's findings
(NPU5xx) are not reported in them. Other families (an `nccl` backend, `CUDA_VISIBLE_DEVICES`) are read as before.

A file counts by its path (anything under `.github/`, `.circleci/`, `.azure-pipelines/` or `.buildkite/`,
`.gitlab-ci.yml`, `.travis.yml`, `azure-pipelines.yml`) or, for a SkyPilot task, by its top-level keys: a `resources:`
mapping beside a `setup:` or `run:` block (the SkyPilot YAML spec, docs.skypilot.co/en/latest/reference/yaml-spec.html:
top-level `resources` with `accelerators`, `setup` and `run` commands). Hydra configs and other YAMLs have no such pair.
Inside a CI folder the pipeline's own scripts count too, whatever their kind: a job's shell step
(`.azure-pipelines/scripts/ut/run_ut_cuda.sh`: `pip install flash-attn`, `uv pip install torch --index-url
.../cu130`), a Python helper it runs (`.azure-pipelines/scripts/monitor_gpu.py`: `import nvitop`), a requirements
file it installs: the folder is named for the CI service, nothing outside CI runs them (label rule 28a-14).
"""

from __future__ import annotations

import re

_CI_FOLDERS = (".github/", ".circleci/", ".azure-pipelines/", ".buildkite/")
_CI_FILES = frozenset({".gitlab-ci.yml", ".gitlab-ci.yaml", ".travis.yml", ".travis.yaml", "azure-pipelines.yml",
                       "azure-pipelines.yaml"})
_TOP_KEY = re.compile(r"^(resources|setup|run)\s*:", re.M)


def is_ci_file(path: str) -> bool:
    """A CI configuration, by its path."""
    rel = path.replace("\\", "/").removeprefix("./")
    name = rel.rsplit("/", 1)[-1]
    return name in _CI_FILES or any(rel.startswith(f) or f"/{f}" in rel for f in _CI_FOLDERS)


def is_cloud_task(text: str) -> bool:
    """A SkyPilot task YAML: a top-level `resources:` beside a top-level `setup:` or `run:`."""
    keys = set(_TOP_KEY.findall(text))
    return "resources" in keys and bool(keys & {"setup", "run"})


def sets_up_a_machine(path: str, text: str) -> bool:
    """A CI workflow or one of its scripts, or a cloud launcher YAML (see above)."""
    if is_ci_file(path):
        return True
    return path.endswith((".yml", ".yaml")) and is_cloud_task(text)


def drop_scored_family(path: str, text: str, findings: list) -> list:
    """`findings` of a file less its NPU5xx ones, where the file sets up a machine."""
    if not any(f.code.startswith("NPU5") for f in findings) or not sets_up_a_machine(path, text):
        return findings
    return [f for f in findings if not f.code.startswith("NPU5")]
