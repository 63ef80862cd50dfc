"""Rules NPU6xx ops: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import pytest

from migrate import knowledge
from tests.rule_helpers import VERSION, analyze
from tests.rule_helpers import of_code as codes

# ---- NPU601 -----------------------------------------------------------------------------------------
ORDINARY = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "loss = F.cross_entropy(logits, target)\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "pool = nn.MaxPool2d(2)\n"
    "y = torch.matmul(a, b).softmax(-1)\n"
    "z = x.sum(dim=1).mean()\n"
    "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
    "h = F.gelu(F.layer_norm(x, (8,)))\n"
)


@pytest.mark.parametrize("version", knowledge.known_versions())
def test_unsupported_op_never_reports_ordinary_ops(version):
    apis = knowledge.load(version).unsupported_apis()
    for ordinary in ("torch.nn.functional.cross_entropy", "torch.nn.utils.clip_grad_norm_", "torch.nn.MaxPool2d"):
        assert ordinary not in apis
    assert codes(analyze(ORDINARY, version=version), "NPU601") == []


def test_unsupported_op_every_api_in_data_is_found():
    apis = knowledge.load(VERSION).unsupported_apis()
    assert apis
    for api, ops in sorted(apis.items()):
        if api.startswith("Tensor."):
            code = f"import torch\ny = torch.Tensor.{api[7:]}(x)\n"
        else:
            module, name = api.rsplit(".", 1)
            code = f"import {module} as m\ny = m.{name}(x)\n"
        found = codes(analyze(code), "NPU601")
        assert len(found) == 1, api
        assert all(op in found[0].message for op in ops) and VERSION in found[0].message


def test_unsupported_op_follows_the_version():
    """A Tensor method unsupported in one version and supported in another is only reported for
    the first (picked from the data, not assumed)."""
    versions = knowledge.known_versions()
    per_version = {v: set(knowledge.load(v).unsupported_apis()) for v in versions}
    candidates = sorted(
        api
        for v in versions
        for api in per_version[v]
        if api.startswith("Tensor.") and api[7:] != "mode" and any(api not in per_version[w] for w in versions)
    )
    if not candidates:
        pytest.skip("no API differs between the known versions")
    api = candidates[0]
    code = f"y = x.{api[7:]}()\n"
    for version in versions:
        found = codes(analyze(code, version=version), "NPU601")
        assert bool(found) == (api in per_version[version]), (api, version)


def test_unsupported_op_aliases_and_shared_method_names():
    apis = knowledge.load(VERSION).unsupported_apis()
    linalg = sorted(a for a in apis if a.startswith("torch.linalg."))
    assert linalg
    name = linalg[0].rsplit(".", 1)[1]
    assert codes(analyze(f"import torch.linalg as LA\nr = LA.{name}(a)"), "NPU601")
    assert codes(analyze(f"from torch.linalg import {name}\nr = {name}(a)"), "NPU601")
    assert codes(analyze(f"import numpy as np\nr = np.linalg.{name}(a)"), "NPU601") == []
    # `mode` is also pandas' DataFrame.mode: the bare method form is not enough evidence
    assert codes(analyze("m = df.mode()"), "NPU601") == []


# ---- NPU602 - NPU607 --------------------------------------------------------------------------------
def test_dtype_and_compile_rules():
    code = (
        "import torch as T\n"
        "from torch import jit\n"
        "a = T.zeros(2, dtype=T.float64)\n"
        "b = a.double()\n"
        "c = T.view_as_complex(x)\n"
        "m = T.compile(model)\n"
        "n = T.compile(model, backend='npu')\n"
        "s = jit.script(model)\n"
        "w = x.to(T.float8_e4m3fn)\n"
        "'''T.float64 and T.compile(model) in a docstring'''\n"
    )
    found = analyze(code)
    assert [f.line for f in codes(found, "NPU602")] == [3, 4]
    assert [f.line for f in codes(found, "NPU603")] == [5]
    assert [f.line for f in codes(found, "NPU604")] == [6]
    assert [f.line for f in codes(found, "NPU605")] == [8]
    assert [f.line for f in codes(found, "NPU607")] == [9]


def test_torch_compile_names_backends_from_data():
    from migrate.rules.npu604_torch_compile import dynamo_backends

    backends = dynamo_backends(VERSION)
    found = codes(analyze("import torch\nm = torch.compile(model)"), "NPU604")
    assert len(found) == 1
    for backend in backends:
        assert f'"{backend}"' in found[0].message
