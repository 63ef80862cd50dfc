"""sources.is_unnamed_conda_env: a conda environment file whose name the manifest patterns miss (`Windows/env.yml`,
an exported environment), read as a manifest by its top-level `channels:` and `dependencies:` keys; other YAML
files (a CI workflow, a config naming `dependencies:` alone) are not."""

from migrate.engine import scan

EXPORTED_ENV = """name: det
channels:
  - pytorch
  - defaults
dependencies:
  - blas=1.0=mkl
  - cudatoolkit=11.3.1=h59b6b97_2
  - numpy=1.21.5=py37h7a0a035_3
  - pytorch=1.10.1=py3.7_cuda11.3_cudnn8_0
  - pytorch-mutex=1.0=cuda
  - torchvision=0.11.2=py37_cu113
"""


def _found(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line, f.code) for r in result.files
                  for f in r.findings)


def test_an_exported_env_under_another_name_is_a_manifest(tmp_path):
    (tmp_path / "Windows").mkdir()
    (tmp_path / "Windows" / "env.yml").write_text(EXPORTED_ENV)
    found = [(line, code) for path, line, code in _found(tmp_path) if path == "Windows/env.yml"]
    assert found == [(7, "NPU502"), (9, "NPU502"), (10, "NPU502"), (11, "NPU502")]


def test_other_yaml_files_are_not_conda_envs(tmp_path):
    # a config listing `dependencies:` without `channels:` (a task graph), and the keys indented under another key
    (tmp_path / "tasks.yml").write_text("dependencies:\n  - cudatoolkit\n")
    (tmp_path / "ci.yml").write_text("jobs:\n  build:\n    channels:\n      - x\n    dependencies:\n      - cudatoolkit=11.3\n")
    assert [f for f in _found(tmp_path) if f[2] == "NPU502"] == []
