"""Rules NPU1xx device: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import pytest

from migrate.knowledge import known_versions, load, newest_version, torch_cuda_names
from tests.rule_helpers import ALIASES, fix, spanned
from tests.rule_helpers import analyze_api as analyze
from tests.rule_helpers import api_codes as codes


def test_import_rewrite_refused_when_one_imported_name_has_no_counterpart():
    source = "from torch.cuda import synchronize, nvtx\nsynchronize()\nnvtx.range_push('a')"
    findings = analyze(source)
    assert sorted(f.code for f in findings) == ["NPU102", "NPU103"]
    assert all(not f.fixable for f in findings)
    assert fix(source) == source


def test_import_rewrite_refused_for_capability_names():
    # torch.npu.get_device_capability exists, but moving the import would hide the SM gate (NPU204)
    source = "from torch.cuda import get_device_capability, synchronize\nsynchronize()\nc = get_device_capability()"
    findings = analyze(source)
    assert sorted(f.code for f in findings) == ["NPU102", "NPU204"]
    assert fix(source) == source


def test_each_chain_reported_once_at_the_longest_known_name():
    source = "import torch\nn = torch.cuda.memory.memory_allocated(0)\ns = torch.cuda.current_stream().synchronize()"
    findings = analyze(source)
    assert [(f.code, f.line, f.column, spanned(source, f)) for f in findings] == [
        ("NPU102", 2, 5, "torch.cuda.memory.memory_allocated"),
        ("NPU102", 3, 5, "torch.cuda.current_stream"),
    ]


def test_import_statements_alone_are_not_reported():
    assert codes("import torch.cuda\nimport torch.cuda.amp\nfrom torch.cuda import amp\nfrom torch.backends import cudnn") == []


# ---- data-driven decisions ---------------------------------------------------------------------------
def _name_added_after_oldest():
    oldest, newest = load(known_versions()[0]), load(newest_version())
    for module, names in sorted(torch_cuda_names().items()):
        if module != "torch.cuda":
            continue
        for name in sorted(names):
            qual = f"{module}.{name}"
            old, new = oldest.cuda_api(qual), newest.cuda_api(qual)
            if new is not None and new.npu == f"torch.npu.{name}" and old is not None and old.npu is None:
                return name
    return None


def test_counterpart_decided_by_target_version():
    name = _name_added_after_oldest()
    if name is None:
        pytest.skip("no torch.cuda name gained a counterpart between the oldest and newest data")
    source = f"import torch\nv = torch.cuda.{name}"
    assert codes(source, newest_version()) == ["NPU102"]
    assert codes(source, known_versions()[0]) == ["NPU103"]


def test_nvtx_is_never_mapped_to_a_missing_npu_nvtx():
    for version in (known_versions()[0], newest_version()):
        kb = load(version)
        findings = analyze("import torch\ntorch.cuda.nvtx.range_push('fwd')", version)
        assert [f.code for f in findings] == ["NPU103"]
        assert findings[0].edits == ()
        if kb.has_api("torch.npu.mstx"):
            assert "torch.npu.mstx" in findings[0].message


# ---- spans and minimal edits ---------------------------------------------------------------------------
def test_device_literal_edit_touches_only_cuda_and_keeps_quotes_and_fields():
    source = "x = t.to(f'cuda:{rank % 8}')  # é\n"
    (finding,) = analyze(source)
    assert (finding.code, finding.line, finding.column) == ("NPU104", 1, 10)
    assert spanned(source, finding) == "f'cuda:{rank % 8}'"
    assert fix(source) == "x = t.to(f'npu:{rank % 8}')  # é\n"


def test_columns_are_characters_on_non_ascii_lines():
    source = 's = "é"; d = torch.device("cuda")\n'
    source = "import torch\n" + source
    (finding,) = analyze(source)
    assert (finding.line, finding.column) == (2, 27)
    assert spanned(source, finding) == '"cuda"'
    assert fix(source) == 'import torch\ns = "é"; d = torch.device("npu")\n'


def test_attribute_rename_keeps_spacing():
    source = "import torch\ntorch . cuda . synchronize ()\n"
    assert fix(source) == "import torch\ntorch . npu . synchronize ()\n"


def test_implicitly_concatenated_literal_is_reported_but_not_rewritten():
    source = 'import torch  # runs on cuda\nd = torch.device("cu" "da")\n'
    (finding,) = analyze(source)
    assert finding.code == "NPU104" and not finding.fixable


def test_map_location_dict_rewrites_values_not_keys():
    source = 'import torch\nsd = torch.load(p, map_location={"cuda:0": "cuda:1"})\n'
    assert fix(source) == 'import torch\nsd = torch.load(p, map_location={"cuda:0": "npu:1"})\n'


def test_device_variable_used_later_is_followed():
    source = 'target = "cuda:%d" % rank\nmodel.to(target)\nlabel = "cuda"\n'
    assert fix(source) == 'target = "npu:%d" % rank\nmodel.to(target)\nlabel = "cuda"\n'


@pytest.mark.parametrize("code,source,expected", [a for a in ALIASES if a[0].startswith("NPU1")],
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ALIASES) if c.startswith("NPU1")])
def test_alias(code, source, expected):
    mine = [f for f in analyze(source) if f.code == code]
    assert len(mine) == 1, [(f.code, f.message) for f in analyze(source)]
    if expected is None:
        assert not mine[0].fixable and mine[0].edits == ()
    else:
        assert mine[0].fixable
        assert fix(source, (code,)) == expected
