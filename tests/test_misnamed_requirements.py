"""sources.is_misnamed_requirements: a pip requirements file whose name the manifest patterns miss
(`requirments_cu118.txt`, a misspelling), read as a manifest by its content; other `.txt` files are not."""

from migrate.engine import scan

CUDA_MANIFEST = """# CUDA 11.8 build: install torch first, then
#   python -m pip install -r requirments_cu118.txt
--index-url https://pypi.org/simple

numpy>=1.26,<2
librosa==0.10.2
onnxruntime-gpu==1.18.1; sys_platform != "darwin"
nvidia-cudnn-cu11==8.9.5.29
"""


def _found(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line, f.code) for r in result.files
                  for f in r.findings)


def test_a_misspelt_requirements_file_is_a_manifest(tmp_path):
    (tmp_path / "requirments_cu118.txt").write_text(CUDA_MANIFEST)
    found = _found(tmp_path)
    assert ("requirments_cu118.txt", 7, "NPU502") in found
    assert ("requirments_cu118.txt", 8, "NPU502") in found


def test_other_txt_files_are_not_read_as_manifests(tmp_path):
    # prose under a req* name fails the content test; a requirement list under another name is not opened
    (tmp_path / "request_notes.txt").write_text("Install onnxruntime-gpu first.\nonnxruntime-gpu\n")
    (tmp_path / "deps_gpu.txt").write_text(CUDA_MANIFEST)
    (tmp_path / "reqs_comments_only.txt").write_text("# nothing here\n\n")
    assert _found(tmp_path) == []
