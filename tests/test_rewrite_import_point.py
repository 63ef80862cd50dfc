"""One place for `import torch_npu`: apply's header-only libcst parse (library modules, and entry
scripts with --no-config-check) puts it where the codemod puts it on the whole module."""

from __future__ import annotations

import libcst as cst
import pytest

from migrate.codemods.inject_npu_imports import TORCH_NPU_IMPORT, inject_npu_imports
from migrate.rewrite import ApplyOptions, rewrite_source

USE = "x = torch.cuda.current_device()\n"
HEADERS = {
    "if-elif-else": 'import os\nif os.environ.get("A"):\n    import torch\nelif os.environ.get("B"):\n    import torch\n'
                    "else:\n    import torch\nimport numpy as np\n\n",
    "try-except": "try:\n    import torch\nexcept ImportError:\n    torch = None\nimport os\n\n",
    "docstring-future": '"""Doc."""\nfrom __future__ import annotations\n\nimport torch\nimport os\n\n',
    "relative-import-first": "from . import utils\nimport torch\n\n",
    "shared-line": "import os; import torch\nimport sys\n\n",
    "torch-far-below": "import os\n\nA = 1\n\n\ndef f():\n    return A\n\n\nimport torch\n\n",
    "no-torch-import": 'import os\n\nA = 1\n\ndevice = "cuda"\n',
    "comment-and-shebang": "#!/usr/bin/env python\n# licence\nimport torch  # main\n\n",
    "augassign-sharing-a-line": "import os\nN = 1\nN += 1; import torch\nimport sys\n\n",
    "assignment-between-imports": 'import os\nos.environ["X"] = "1"\nimport torch\n\n',
    "docstring-only-then-code": '"""Doc."""\nX = 1\nimport torch\n\n',
    "if-with-code": "import os\nif os.name == 'nt':\n    print('windows')\n    import torch\nimport torch.nn as nn\n\n",
}


def _without_added(output: str) -> str:
    lines = output.splitlines(keepends=True)
    lines.remove(TORCH_NPU_IMPORT + "\n")
    return "".join(lines)


@pytest.mark.parametrize("name", sorted(HEADERS))
def test_header_only_parse_places_the_import_like_the_codemod(name):
    source = HEADERS[name] + (USE if "torch" in HEADERS[name] else "")
    rewrite = rewrite_source(source, path="lib.py")  # a library module: the header-only path
    output = rewrite.output.decode()
    assert rewrite.structural == (TORCH_NPU_IMPORT,)
    whole = inject_npu_imports(cst.parse_module(_without_added(output)), torch_npu=True, transfer=False)
    assert whole.module.code == output


def test_if_elif_else_block_of_torch_imports_gets_the_import_after_it():
    source = HEADERS["if-elif-else"] + USE + 'if __name__ == "__main__":\n    pass\n'
    fast = rewrite_source(source, path="train.py", options=ApplyOptions(config_check=False, transfer=False)).output.decode()
    full = rewrite_source(source, path="train.py", options=ApplyOptions(transfer=False)).output.decode()
    assert fast.index("    import torch\nimport torch_npu\nimport numpy") > 0
    assert fast.splitlines()[:9] == full.splitlines()[:9]
