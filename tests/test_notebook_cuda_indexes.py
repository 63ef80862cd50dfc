"""A notebook's pip index chosen by torch's CUDA version through a Python variable (migrate/notebook_cuda_indexes.py).

The notebook is written here in the shape of a library tutorial's install cell, not copied from any repository.
"""

from __future__ import annotations

import json

from migrate.engine import scan
from tests.helpers import write_files

NEWEST = "2.14.0"

INSTALL = [
    "import sys\n", "import torch\n", "need_lib = False\n", "try:\n", "    import mylib\n",
    "except ModuleNotFoundError:\n", "    need_lib = True\n", "if need_lib:\n",
    "    pyt = torch.__version__.split('+')[0].replace('.', '')\n",
    "    version_str = ''.join([\n", "        f'py3{sys.version_info.minor}_cu',\n",
    "        torch.version.cuda.replace('.', ''),\n", "        f'_pyt{pyt}'\n", "    ])\n",
    "    !pip install iopath\n",
    "    !pip install --no-index mylib -f https://example.org/wheels/{version_str}/download.html\n",
    "    pip_list = !pip freeze\n",
    "    !pip install mylib -f https://example.org/wheels/{pyt}/download.html\n",
]


def _notebook(*cells) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": list(c), "outputs": [],
                                  "execution_count": None} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _npu502(tmp_path, text: str) -> list[tuple[int, int]]:
    write_files(tmp_path, {"tutorial.ipynb": text})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    return sorted((f.cell, f.line) for f in result.findings if f.code == "NPU502")


def test_an_index_expanding_a_cuda_version_variable_is_a_cuda_wheel_index(tmp_path):
    # `{version_str}` is built from torch.version.cuda: the CUDA build's wheel folder; `{pyt}` (torch's own version) is not
    assert _npu502(tmp_path, _notebook(INSTALL)) == [(0, 16)]


def test_the_cuda_version_may_come_through_another_variable_of_an_earlier_cell(tmp_path):
    first = ["import torch\n", "cuda = torch.version.cuda\n"]
    second = ["tag = 'cu' + cuda.replace('.', '')\n", "!pip install mylib --extra-index-url https://example.org/$tag\n",
              "!pip install mylib -f https://example.org/{cuda_ok}/index.html\n"]
    assert _npu502(tmp_path, _notebook(first, second)) == [(1, 2)]


def test_no_cuda_version_no_finding(tmp_path):
    cell = ["import torch\n", "ok = torch.cuda.is_available()\n", "tag = 'cpu'\n",
            "!pip install mylib -f https://example.org/wheels/{tag}/download.html\n"]
    assert _npu502(tmp_path, _notebook(cell)) == []
