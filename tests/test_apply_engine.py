"""`migrate.rewrite`: the rewrite engine on in-memory sources (no torch import here)."""

from __future__ import annotations

import ast
import codecs
import json

import pytest

from migrate.engine import Target, analyze_file
from migrate.rewrite import ApplyOptions, instrument_source, rewrite_file, rewrite_source

TRAIN = '''"""Tiny trainer."""
from __future__ import annotations

import argparse

import torch
import torch.nn as nn


def main():
    model = nn.Linear(4, 2)
    model = model.cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        loss = model(torch.randn(3, 4, device="cuda")).sum()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
'''

LIBRARY = '''import os

import torch


def to_gpu(x):
    return x.cuda()
'''


def text_of(source: str, **options) -> str:
    return rewrite_source(source, path="train.py", options=ApplyOptions(**options)).output.decode("utf-8")


def fixable_left(path: str, data: bytes, kinds=("python",)) -> list:
    from migrate.knowledge import resolve_version

    result = analyze_file(Target(path, kinds), data, resolve_version(None))
    return [f for f in result.findings if f.fixable]


# ---- imports ----------------------------------------------------------------------------------------
def test_entry_script_gets_imports_after_last_torch_import_and_hooks():
    out = text_of(TRAIN)
    lines = out.splitlines()
    assert lines.index("import torch.nn as nn") + 1 == lines.index("import torch_npu")
    assert lines.index("import torch_npu") + 1 == lines.index("from torch_npu.contrib import transfer_to_npu")
    assert lines[0] == '"""Tiny trainer."""' and lines[1] == "from __future__ import annotations"
    assert "model = model.npu()" in out and 'device="npu"' in out
    # the model hook sits after the placement and before the optimizer, inside main()
    hook = lines.index('        _npu_config_check(model, "npu_config_check/npu_config_pack_rank{rank}.zip")')
    assert lines.index("    model = model.npu()") < hook < lines.index("    opt = torch.optim.SGD(model.parameters(), lr=0.1)")
    assert out.count("ConfigChecker.apply_patches") == 1
    ast.parse(out)


def test_library_module_gets_only_import_torch_npu():
    out = text_of(LIBRARY)
    assert out == LIBRARY.replace("import torch\n", "import torch\nimport torch_npu\n").replace("x.cuda()", "x.npu()")


def test_no_transfer_and_no_config_check():
    out = text_of(TRAIN, transfer=False, config_check=False)
    assert "import torch_npu\n" in out
    assert "transfer_to_npu" not in out and "ConfigChecker" not in out


def test_entry_glob_makes_a_library_an_entry():
    out = rewrite_source(LIBRARY, path="pkg/run_me.py", options=ApplyOptions(entry_globs=("run_*.py",), config_check=False)).output.decode()
    assert "from torch_npu.contrib import transfer_to_npu" in out


@pytest.mark.parametrize("existing", [
    "import torch_npu\n",
    "try:\n    import torch_npu\nexcept ImportError:\n    pass\n",
])
def test_existing_torch_npu_import_is_not_added_twice(existing):
    source = LIBRARY.replace("import torch\n", "import torch\n" + existing)
    out = text_of(source)
    assert out.count("import torch_npu") == 1
    assert "x.npu()" in out


def test_existing_transfer_import_recognised():
    source = TRAIN.replace("import torch.nn as nn\n", "import torch.nn as nn\nfrom torch_npu.contrib import transfer_to_npu\n")
    out = text_of(source, config_check=False)
    assert out.count("transfer_to_npu") == 1
    assert "\nimport torch_npu\n" not in out  # the patcher imports torch_npu itself


def test_module_without_torch_imports_gets_import_after_its_imports_and_after_shebang():
    source = "#!/usr/bin/env python\n# licence header\nimport os\n\n\ndef f(x):\n    return x.cuda()\n"
    out = text_of(source)
    assert out.startswith("#!/usr/bin/env python\n# licence header\nimport os\nimport torch_npu\n")


def test_torch_import_inside_try_block_counts():
    source = "try:\n    import torch\nexcept ImportError:\n    torch = None\nimport os\n\n\ndef f(x):\n    return x.cuda()\n"
    out = text_of(source)
    assert out.startswith("try:\n    import torch\nexcept ImportError:\n    torch = None\nimport torch_npu\nimport os\n")


# ---- byte preservation ------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [
    b"import torch\r\nx = torch.zeros(3)\r\n",
    codecs.BOM_UTF8 + b"import os\nprint('hi')\n",
    b"def f():\n\treturn 1   \n\n\n",
    b"import torch\nx = 1",
    b"# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\n",
    b"",
], ids=["crlf", "bom", "tabs-trailing-ws", "no-final-newline", "latin-1", "empty"])
def test_file_without_findings_is_byte_identical(data):
    result = rewrite_file("x.py", data)
    assert not result.changes and result.output == data


def test_crlf_bom_and_missing_final_newline_survive_a_rewrite():
    data = codecs.BOM_UTF8 + b"import torch\r\n\r\ndef f(x):\r\n    return x.cuda()"
    out = rewrite_file("lib.py", data).output
    assert out.startswith(codecs.BOM_UTF8)
    assert out == codecs.BOM_UTF8 + b"import torch\r\nimport torch_npu\r\n\r\ndef f(x):\r\n    return x.npu()"


def test_non_ascii_columns_are_respected():
    source = "import torch\n# 训练\nx = torch.zeros(1, device='cuda')  # 中文注释 cuda\n"
    out = text_of(source)
    assert "x = torch.zeros(1, device='npu')  # 中文注释 cuda\n" in out


def test_syntax_error_file_is_left_alone_and_reported():
    data = b"print 'python 2'\nx.cuda()\n"
    result = rewrite_file("old.py", data)
    assert result.output == data and result.error is not None and result.error.code == "NPU901"


# ---- idempotence and check ---------------------------------------------------------------------------
@pytest.mark.parametrize("source", [TRAIN, LIBRARY], ids=["entry", "library"])
def test_idempotent_and_no_fixable_finding_left(source):
    first = rewrite_source(source, path="train.py").output
    second = rewrite_file("train.py", first).output
    assert second == first
    assert fixable_left("train.py", first) == []


def test_manual_items_are_reported_not_rewritten():
    source = "import torch\n\nv = torch.version.cuda\nx = torch.zeros(1).cuda()\n"
    result = rewrite_source(source, path="lib.py")
    assert [m.code for m in result.manual] == ["NPU205"]
    assert "torch.version.cuda" in result.output.decode()
    assert [c.code for c in result.changes] == ["NPU101"]
    change = result.changes[0]
    assert (change.line, change.before, change.after) == (4, "x = torch.zeros(1).cuda()", "x = torch.zeros(1).npu()")


# ---- ConfigChecker hooks -----------------------------------------------------------------------------
HOOK = '_npu_config_check({model}, "./gpu_config_pack.zip")'


def hooked_line(result, model="model") -> int:
    lines = result.text.splitlines()
    return next(i for i, line in enumerate(lines) if HOOK.format(model=model) in line)


@pytest.mark.parametrize("optimizer", [
    "torch.optim.AdamW(params=model.parameters(), lr=1e-3)",
    "optim.SGD(model.module.parameters(), lr=0.1)",
    'torch.optim.SGD([{"params": model.parameters(), "lr": 0.1}])',
    "torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()))",
])
def test_model_found_through_optimizer_forms(optimizer):
    source = (
        "import torch\nimport torch.optim as optim\n\n\ndef main():\n    model = build()\n    model.to('cpu')\n"
        f"    opt = {optimizer}\n    train(model, opt)\n"
    )
    result = instrument_source(source, zip_path="./gpu_config_pack.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    assert lines[hooked_line(result) - 1].strip() == "if ConfigChecker is not None:"
    assert lines.index("    model.to('cpu')") < hooked_line(result) < next(i for i, line in enumerate(lines) if "opt = " in line)


def test_param_group_variable_is_followed():
    source = (
        "import torch\n\nnet = Net()\nnet.cuda()\ngroups = [{'params': net.parameters()}]\n"
        "opt = torch.optim.SGD(groups, lr=0.1)\n"
    )
    result = instrument_source(source, zip_path="./gpu_config_pack.zip")
    lines = result.text.splitlines()
    assert result.model_found and lines.index("net.cuda()") + 2 == hooked_line(result, "net")


def test_placement_inside_a_branch_puts_hook_after_the_branch():
    source = (
        "import torch\n\n\ndef main(use_cuda):\n    model = Net()\n    if use_cuda:\n        model.cuda()\n"
        "    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)\n"
    )
    result = instrument_source(source, zip_path="./gpu_config_pack.zip")
    lines = result.text.splitlines()
    assert lines[hooked_line(result) - 1] == "    if ConfigChecker is not None:"
    assert lines[hooked_line(result) - 2] == "        model.cuda()"


def test_model_that_is_a_parameter_gets_hook_at_function_start():
    source = 'import torch\n\n\ndef fit(model, data):\n    """Fit."""\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n'
    result = instrument_source(source, zip_path="./gpu_config_pack.zip")
    lines = result.text.splitlines()
    assert result.model_found and lines[hooked_line(result) - 2] == '    """Fit."""'


@pytest.mark.parametrize("source", [
    "import torch\n\ntrainer = Trainer(model=get_model())\ntrainer.train()\n",
    "import torch\n\n\ndef main():\n    opt = torch.optim.SGD(get_model().parameters(), lr=0.1)\n",
    "import torch\n\nmodel = Net()\n\n\ndef main():\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
])
def test_model_not_found_is_reported_not_guessed(source):
    result = instrument_source(source, zip_path="./gpu_config_pack.zip")
    assert not result.model_found and result.text == source
    assert result.message


def test_hooks_are_not_inserted_twice():
    once = instrument_source(TRAIN, zip_path="./gpu_config_pack.zip")
    twice = instrument_source(once.text, zip_path="./gpu_config_pack.zip")
    assert once.model_found and twice.text == once.text


def test_entry_without_model_reports_a_manual_hook_item():
    source = "import torch\n\nx = torch.zeros(1).cuda()\n\nif __name__ == '__main__':\n    print(x)\n"
    result = rewrite_source(source, path="run.py")
    assert any(m.code == "HOOK" for m in result.manual)
    assert "ConfigChecker" not in result.output.decode()


# ---- notebooks and launchers -----------------------------------------------------------------------
def notebook(cells, indent=1) -> bytes:
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c} for c in cells],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(nb, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")


def test_notebook_rewrite_changes_only_the_cells_sources():
    data = notebook([["%matplotlib inline\n", "import torch\n", "x = torch.ones(1)"], ["y = x.cuda()  # é\n", "!CUDA_VISIBLE_DEVICES=0 nvidia-smi"]])
    result = rewrite_file("nb.ipynb", data)
    out = result.output.decode("utf-8")
    before = data.decode("utf-8").splitlines()
    after = out.splitlines()
    added = [line for line in after if line not in before]
    removed = [line for line in before if line not in after]
    assert removed == ['    "y = x.cuda()  # é\\n",', '    "!CUDA_VISIBLE_DEVICES=0 nvidia-smi"']
    assert added == ['    "import torch_npu\\n",', '    "from torch_npu.contrib import transfer_to_npu\\n",',
                     '    "y = x.npu()  # é\\n",', '    "!ASCEND_RT_VISIBLE_DEVICES=0 nvidia-smi"']
    assert rewrite_file("nb.ipynb", result.output).output == result.output
    assert fixable_left("nb.ipynb", result.output, ("notebook",)) == []


def test_notebook_with_string_sources_and_other_indent():
    data = notebook(["import torch\nx = torch.ones(1).cuda()\n"], indent=2)
    out = json.loads(rewrite_file("nb.ipynb", data).output)
    assert out["cells"][0]["source"] == "import torch\nimport torch_npu\nfrom torch_npu.contrib import transfer_to_npu\nx = torch.ones(1).npu()\n"


def test_launcher_rewrite():
    data = b"#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0,1  # two cards\ntorchrun train.py\n"
    result = rewrite_file("run.sh", data)
    assert result.output == data.replace(b"CUDA_VISIBLE_DEVICES", b"ASCEND_RT_VISIBLE_DEVICES")


def test_torch_npu_import_goes_after_the_opening_block_not_a_late_torch_import():
    from migrate.rewrite import ApplyOptions, rewrite_source

    source = (
        '"""Module."""\n'
        "import os\n"
        "import torch\n"
        "\n"
        "x = torch.ones(1).cuda()\n"
        "\n"
        "def late():\n"
        "    return 1\n"
        "\n"
        "import torch.nn as nn  # imported again far below\n"
    )
    out = rewrite_source(source, path="lib.py", options=ApplyOptions(config_check=False)).output.decode()
    lines = out.splitlines()
    assert lines[3] == "import torch_npu", out
    assert out.count("import torch_npu") == 1
    assert lines[-1] == "import torch.nn as nn  # imported again far below"
    again = rewrite_source(out, path="lib.py", options=ApplyOptions(config_check=False)).output.decode()
    assert again == out


def test_torch_npu_import_after_the_first_torch_import_when_the_opening_block_has_none():
    from migrate.rewrite import ApplyOptions, rewrite_source

    source = "import os\nimport sys\nsys.path.insert(0, '.')\nimport torch\nimport numpy\nx = torch.ones(1).cuda()\n"
    out = rewrite_source(source, path="lib.py", options=ApplyOptions(config_check=False)).output.decode()
    assert out.splitlines()[4] == "import torch_npu", out
