"""Shell variables set before the `pip install` that reads them (migrate/shell_variables.py): a Dockerfile's RUN
command, a shell script (label rulings (L41)/(L106); EasyR1's Dockerfile installs the flash-attn wheel its URL names)."""

from __future__ import annotations

from migrate.shell_variables import assignments, expand, values_before


def test_assignments_are_read_at_a_command_of_their_own():
    text = ('RUN ABI=$(python -c "import torch; print(1)") && URL="https://h/x-${ABI}.whl" && export A=1 B=$A/b; '
            "C=2 python run.py && D='lit $A'")
    assert assignments(text) == {"URL": "https://h/x-${ABI}.whl", "A": "1", "B": "1/b", "D": "lit 1"}
    # a command's output is unknown: the earlier value is forgotten
    assert assignments("X=$(uname -m)", {"X": "old"}) == {}


def test_basename_reads_the_last_path_component():
    values = {"URL": "https://h/dl/flash_attn-2.8.3+cu12torch2.8cxx11abi${ABI}-cp312-cp312-linux_x86_64.whl"}
    assert expand('/opt/$(basename ${URL})', values) == "/opt/flash_attn-2.8.3+cu12torch2.8cxx11abi${ABI}-cp312-cp312-linux_x86_64.whl"
    assert expand("$(basename $UNSET)", {}) == "$UNSET"  # no requirement: NPU502 reads nothing there


def test_a_dockerfile_variable_lives_in_its_run_command_a_script_variable_in_the_script():
    docker = ["FROM base\n", "ARG IDX=https://h/cu121\n", "RUN URL=a.whl && \\\n", "    pip install $URL -i $IDX\n",
              "RUN pip install $URL\n"]
    assert values_before(docker, 4, 4, True) == {"IDX": "https://h/cu121", "URL": "a.whl"}
    assert values_before(docker, 5, 4, True) == {"IDX": "https://h/cu121"}
    script = ["#!/bin/bash\n", "# W=commented.whl\n", "W=a.whl\n", "if [ -f x ]; then\n", "  pip install $W\n", "fi\n"]
    assert values_before(script, 5, 2, False) == {"W": "a.whl"}
