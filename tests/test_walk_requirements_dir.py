"""A `.txt` file in a folder named `requirements/` (`requirements/vllm.txt`, one file per extra) is a manifest when a
directory walk finds it, as when it is named on the command line: the walk classifies by path, not by the bare name."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan


def test_a_requirements_folder_file_found_by_the_walk_is_read_as_a_manifest(tmp_path: Path):
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "quant.txt").write_text("bitsandbytes>=0.39.0\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "quant.txt").write_text("bitsandbytes>=0.39.0\n")  # not a requirements folder: prose
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    found = sorted((Path(f.path).parent.name, f.line) for f in result.findings if f.code == "NPU502")
    assert found == [("requirements", 1)]
