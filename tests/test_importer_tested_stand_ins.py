"""A helper module's untested None stand-in is optional where every importer tests its own stand-in of the same
import (migrate/importer_tested_stand_ins.py, label note 49b b-9, (L60)). The fixture is a small training project
written here: a script asserting apex's amp before use, and the checkpoint helper it imports."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

ATTEMPT = "try:\n    from apex import amp\nexcept ImportError:\n    amp = None\n"

HELPER = ATTEMPT + """

def save_checkpoint(level, state):
    if level != "O0":
        state["amp"] = amp.state_dict()
    return state
"""

MAIN = ATTEMPT + """from helpers import save_checkpoint


def main(level):
    return save_checkpoint(level, {})


if __name__ == "__main__":
    assert amp is not None, "amp not installed!"
    main("O1")
"""

# an importer that uses the helper without testing its own stand-in keeps the helper's import required
PLAIN = """from helpers import save_checkpoint

save_checkpoint("O1", {})
"""


def test_a_stand_in_every_importer_tests_is_optional(tmp_path: Path):
    write_files(tmp_path, {"train/main.py": MAIN, "train/helpers.py": HELPER})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "train/helpers.py") == []
    assert finding_lines(result, "NPU501", "train/main.py") == []


def test_an_importer_without_the_check_keeps_it(tmp_path: Path):
    write_files(tmp_path, {"train/main.py": MAIN, "train/helpers.py": HELPER, "train/export.py": PLAIN})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "train/helpers.py") == [2]
