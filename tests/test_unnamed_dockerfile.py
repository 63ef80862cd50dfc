"""sources.is_unnamed_dockerfile: a Dockerfile named for its image alone (`docker/train`), read as a launcher."""

from migrate.engine import scan

IMAGE = """# syntax=docker/dockerfile:1
ARG BASE=nvcr.io/nvidia/pytorch:24.07-py3
FROM ${BASE}
RUN pip install --no-cache-dir -U transformers==4.51.3
RUN pip install flash_attn==2.4.2 --no-build-isolation
"""


def _found(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line, f.code) for r in result.files
                  for f in r.findings)


def test_an_extensionless_image_file_in_a_docker_folder_is_a_dockerfile(tmp_path):
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "train").write_text(IMAGE)
    assert ("docker/train", 5, "NPU502") in _found(tmp_path)


def test_other_extensionless_files_are_not_read(tmp_path):
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "NOTES").write_text("Build it with\nRUN pip install flash_attn\n")  # no FROM first
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train").write_text(IMAGE)  # not under a docker folder
    assert _found(tmp_path) == []
