"""Issue 11: use sites of GPU-only packages, the repository index (extensions across files), import
lines and positions, and the knowledge facts read from the torch_npu 2.14.0 wheel.

Static tests: torch is never imported (torch's own sources are read as text where a fact is about
torch). Expected values come from the knowledge data or from the wheel's facts quoted in the data's
`source` fields, not from the code under test.
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from migrate import knowledge
from migrate.engine import Target, analyze_file, scan
from migrate.rewrite.edits import apply_findings

ROOT = Path(__file__).resolve().parent.parent
NEWEST = "2.14.0"


def findings(code: str, filename: str = "train.py", version: str = NEWEST, kinds=("python",)):
    result = analyze_file(Target(filename, kinds), code.encode("utf-8"), version)
    assert not result.errors, result.errors
    return result.findings


def of(found, code):
    return [f for f in found if f.code == code]


# ---- knowledge facts (torch_npu 2.14.0 wheel) ---------------------------------------------------------
def test_memory_history_is_defined_in_the_wheel_outside_all():
    kb = knowledge.load(NEWEST)
    for name in ("_record_memory_history", "_snapshot", "_dump_snapshot"):
        assert kb.has_api(f"torch.npu.memory.{name}"), name
        assert kb.cuda_api(f"torch.cuda.memory.{name}").npu == f"torch.npu.memory.{name}"
    # still outside the public names: the fact is the definition, not __all__
    assert "_record_memory_history" not in kb.module_names("torch.npu.memory")


def test_memory_history_is_rewritten_not_reported_missing():
    found = findings("import torch\ntorch.cuda.memory._record_memory_history(max_entries=100)\n")
    assert of(found, "NPU103") == []
    (f,) = of(found, "NPU102")
    assert f.fixable and f.replacement == "torch.npu.memory._record_memory_history"


def test_out_of_memory_error_is_public_torch_api():
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed here")
    cuda_init = Path(list(spec.submodule_search_locations)[0]) / "cuda" / "__init__.py"
    assert re.search(r"^OutOfMemoryError = torch\._C\.OutOfMemoryError", cuda_init.read_text(), re.M)
    api = knowledge.load(NEWEST).cuda_api("torch.cuda.OutOfMemoryError")
    assert api is not None and api.works_as == "torch.OutOfMemoryError"
    (f,) = of(findings("import torch\ntry:\n    pass\nexcept torch.cuda.OutOfMemoryError:\n    pass\n"), "NPU103")
    assert str(f.severity) == "info" and "not a public" not in f.message


def test_profiler_alternative_names_only_what_exists():
    kb = knowledge.load(NEWEST)
    api = kb.cuda_api("torch.cuda.profiler.profile")
    assert "profile.profile" not in api.alternative
    for name in re.findall(r"torch_npu(?:\.\w+)+", api.alternative):
        assert kb.has_api(name), name


def test_hccl_async_error_handling_follows_the_target_wheel():
    table = knowledge.env_vars()
    new = knowledge.load(NEWEST)
    assert "TORCH_HCCL_ASYNC_ERROR_HANDLING" in new.env_vars_seen
    # every release line's data is read from its wheel (generator 2); the older wheels (2.1.0.post17 ...
    # 2.6.0.post5) do not mention TORCH_HCCL_ASYNC_ERROR_HANDLING, so their counterpart stays the old name
    older = [v for v in knowledge.known_versions()
             if "TORCH_HCCL_ASYNC_ERROR_HANDLING" not in knowledge.load(v).env_vars_seen]
    assert older and all(knowledge.load(v).provenance.get("generator_version") == "2" for v in knowledge.known_versions())
    code = 'import os\nos.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"\n'
    for name in ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"):
        assert table[name].counterpart(new) == "TORCH_HCCL_ASYNC_ERROR_HANDLING"
        assert table[name].counterpart(knowledge.load(older[0])) == "HCCL_ASYNC_ERROR_HANDLING"
    (f,) = of(findings(code), "NPU702")
    assert f.replacement == "TORCH_HCCL_ASYNC_ERROR_HANDLING"
    (f,) = of(findings(code, version=older[0]), "NPU702")
    assert "`HCCL_ASYNC_ERROR_HANDLING`" in f.message


def test_custom_fwd_deprecation_comes_from_the_wheel_and_drives_the_rewrite():
    kb = knowledge.load(NEWEST)
    message = kb.deprecation("torch.npu.amp.custom_fwd")
    assert message and "torch.amp.custom_fwd" in message and "device_type='npu'" in message
    code = "import torch\n@torch.cuda.amp.custom_fwd\ndef f(ctx, x): return x\n@torch.cuda.amp.custom_bwd\ndef g(ctx, x): return x\n"
    mine = of(findings(code), "NPU401")
    fixed, _, _ = apply_findings(code, mine)
    assert '@torch.amp.custom_fwd(device_type="npu")' in fixed
    assert '@torch.amp.custom_bwd(device_type="npu")' in fixed
    # a release whose data records no deprecation keeps the torch.npu spelling
    older = [v for v in knowledge.known_versions() if not knowledge.load(v).deprecation("torch.npu.amp.custom_fwd")]
    if older and knowledge.load(older[-1]).has_api("torch.npu.amp.custom_fwd"):
        mine = of(findings(code, version=older[-1]), "NPU401")
        fixed, _, _ = apply_findings(code, mine)
        assert "@torch.npu.amp.custom_fwd\n" in fixed


def test_every_torch_npu_name_in_third_party_text_exists_in_the_wheel():
    kb = knowledge.load(NEWEST)
    for key, entry in knowledge.third_party().items():
        text = " ".join(filter(None, (entry.alternative, entry.alternative_api, entry.note)))
        for name in re.findall(r"torch_npu(?:\.\w+)+\*?", text):
            if not name.endswith("*"):  # `torch_npu.optim.NpuFused*` names a family
                assert kb.has_api(name), (key, name)


def test_build_knowledge_readers_on_small_sources():
    spec = importlib.util.spec_from_file_location("build_knowledge", ROOT / "scripts" / "build_knowledge.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_knowledge"] = module
    spec.loader.exec_module(module)
    source = (
        "__all__ = ['a']\nfrom typing_extensions import deprecated\n"
        "def a(): pass\ndef _b(): pass\n_C = 1\n__version__ = '1'\n"
        "@deprecated('`x.old` is deprecated. Please use `x.new` instead.', category=FutureWarning)\ndef old(): pass\n"
    )
    assert module.defined_names(source) == ["_C", "_b", "a", "old"]
    assert module.deprecated_names(source) == {"old": "`x.old` is deprecated. Please use `x.new` instead."}


def test_regenerated_data_records_its_generator():
    data = json.loads((ROOT / "migrate/knowledge/data/versions" / f"{NEWEST}.json").read_text())
    assert data["provenance"]["generator_version"] == "2"
    assert "torch_npu.npu.memory" in data["module_definitions"]


# ---- use sites (NPU507) ----------------------------------------------------------------------------------
def test_every_use_is_a_finding_with_the_entrys_severity():
    code = (
        "import apex\nimport bitsandbytes as bnb\n"
        "m = apex.parallel.convert_syncbn_model(m)\n"
        "opt = bnb.optim.AdamW8bit(p)\n"
        "layer = bnb.nn.Linear4bit(1, 2)\n"
    )
    table = knowledge.third_party()
    uses = of(findings(code), "NPU507")
    assert [f.line for f in uses] == [3, 4, 5]
    assert uses[0].message.startswith("apex: ") and table["apex.parallel.convert_syncbn_model"].alternative in uses[0].message
    assert "torch_npu.optim.NpuFusedAdamW" in uses[1].message  # bitsandbytes.optim, the most specific entry
    assert all(str(f.severity) == table["bitsandbytes"].severity for f in uses[1:])


def test_flash_attn_helpers_get_their_own_alternative():
    code = "from flash_attn.ops.activations import swiglu\nfrom flash_attn.layers.rotary import apply_rotary_emb\ny = swiglu(a, b)\nq = apply_rotary_emb(q, c, s)\n"
    found = findings(code)
    imports = {f.line: f for f in of(found, "NPU501")}
    uses = {f.line: f for f in of(found, "NPU507")}
    assert "torch_npu.npu_swiglu" in imports[1].message and "torch_npu.npu_swiglu" in uses[3].message
    assert "torch_npu.npu_rotary_mul" in imports[2].message and "torch_npu.npu_rotary_mul" in uses[4].message


def test_pynvml_is_an_error_at_import_and_at_each_use():
    found = findings("import pynvml\npynvml.nvmlInit()\ncount = pynvml.nvmlDeviceGetCount()\n")
    assert [str(f.severity) for f in of(found, "NPU501")] == ["error"]
    assert [(f.line, str(f.severity)) for f in of(found, "NPU507")] == [(2, "error"), (3, "error")]


def test_triton_kernel_body_is_not_reported_line_by_line():
    code = (
        "import triton\nimport triton.language as tl\n"
        "@triton.autotune(configs=[], key=['n'])\n@triton.jit\n"
        "def add_kernel(x_ptr, n: tl.constexpr):\n    i = tl.program_id(0)\n    tl.store(x_ptr + i, tl.load(x_ptr + i))\n"
        "def add(x):\n    add_kernel[(triton.cdiv(x.numel(), 4),)](x, x.numel())\n"
    )
    # the decorators and the launch; the grid's `triton.cdiv` is host-side Python that goes with the launch
    assert sorted(f.line for f in of(findings(code), "NPU507")) == [3, 4, 9]


def test_summary_groups_use_sites_per_package(tmp_path):
    from migrate.verdict import summary

    (tmp_path / "a.py").write_text("import apex\napex.parallel.convert_syncbn_model(m)\napex.parallel.convert_syncbn_model(n)\n")
    (tmp_path / "b.py").write_text("import triton\n@triton.jit\ndef k(x):\n    pass\nx = triton.cdiv(4, 2)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    s = summary(result)
    assert s["use_sites"]["apex"] == {"uses": 2, "files": 1}
    assert s["use_sites"]["triton"] == {"uses": 1, "files": 1}
    coverage = s["coverage"]
    assert coverage["constructs"] == s["findings"]
    assert coverage["rewritten_by_apply"] + coverage["manual"] == coverage["constructs"]


# ---- the repository index (NPU508) --------------------------------------------------------------------------
def _repo(tmp_path):
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='p', ext_modules=[CUDAExtension('pkg._C', ['csrc/a.cpp', 'csrc/k.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import _C\n\ndef run(x):\n    return _C.forward(x)\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "use.py").write_text(
        "import importlib\nimport torch\nimport pkg._C as ext\n"
        "y = ext.backward(1)\nm = importlib.import_module('pkg._C')\nz = torch.ops.myops.fused(y)\n"
    )
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "a.cpp").write_text("#include <torch/library.h>\nTORCH_LIBRARY(myops, m) {\n  m.def(\"fused(Tensor x) -> Tensor\");\n}\n")
    (tmp_path / "csrc" / "k.cu").write_text("TORCH_LIBRARY_IMPL(myops, CUDA, m) {\n  m.impl(\"fused\", &fused_cuda);\n}\n")


def _ext_findings(result):
    return sorted((Path(f.path).name, f.line, str(f.severity)) for f in result.findings if f.code == "NPU508")


def test_extension_uses_are_found_across_files_with_where_they_are_built(tmp_path):
    _repo(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _ext_findings(result) == [
        ("__init__.py", 1, "error"), ("__init__.py", 4, "error"),
        ("use.py", 3, "error"), ("use.py", 4, "error"), ("use.py", 5, "error"), ("use.py", 6, "error"),
    ]
    messages = [f.message for f in result.findings if f.code == "NPU508"]
    assert all("setup.py:3" in m for m in messages if "pkg._C" in m)
    assert any("torch.ops.myops" in m and "k.cu:1" in m for m in messages)
    assert [f.line for f in result.findings if f.code == "NPU509"] == [1]


def test_cached_findings_stay_correct_when_the_index_changes(tmp_path):
    _repo(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    first = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert len(_ext_findings(first)) == 6
    # the extension is renamed in setup.py only: use.py and __init__.py are unchanged (cache hits)
    setup = tmp_path / "setup.py"
    setup.write_text(setup.read_text().replace("'pkg._C'", "'other_ext'"))
    (tmp_path / "csrc" / "k.cu").write_text("// no registration any more\n")
    (tmp_path / "csrc" / "a.cpp").write_text("// none\n")
    second = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert second.cached_files >= 2
    assert _ext_findings(second) == []


def test_cached_files_are_linked_again_when_the_definition_moves(tmp_path):
    # the extension stays, its line moves: use.py and __init__.py come from the cache and are read again
    # to link them to the new index (this read asked for 2**62 bytes and ran out of memory: exit 2)
    _repo(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    setup = tmp_path / "setup.py"
    setup.write_text("# a comment line\n" + setup.read_text())
    second = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert second.cached_files >= 2
    assert len(_ext_findings(second)) == 6
    messages = [f.message for f in second.findings if f.code == "NPU508" and "pkg._C" in f.message]
    assert messages and all("setup.py:4" in m for m in messages)


def test_warm_run_reuses_linked_findings_without_parsing(tmp_path, monkeypatch):
    from migrate import fileio

    _repo(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    first = _ext_findings(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST))

    def must_not_parse(text):
        raise AssertionError("a file was parsed again although neither it nor the index changed")

    monkeypatch.setattr(fileio, "parse_python", must_not_parse)
    assert _ext_findings(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)) == first


def test_warm_run_imports_no_rule(tmp_path):
    # nothing is analysed again, so no rule module is needed: not by the cross-file step when every
    # linked file's findings come from the cache, not by the JSON report (only SARIF reads the rules)
    import os
    import subprocess

    (tmp_path / "repo").mkdir()
    _repo(tmp_path / "repo")
    out = tmp_path / "report.json"
    code = ("import sys\nfrom migrate import cli\ntry:\n    cli.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('migrate.rules.npu')))\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), NPU_MIGRATE_CACHE_DIR=str(tmp_path / "cache"))
    args = [sys.executable, "-c", code, "analyze", str(tmp_path / "repo"), "--format", "json", "-o", str(out), "--no-progress"]
    cold = subprocess.run(args, env=env, capture_output=True, text=True)
    assert "npu508" in cold.stdout  # the cold run analysed and linked
    first = json.loads(out.read_text())["findings"]
    warm = subprocess.run(args, env=env, capture_output=True, text=True)
    assert warm.stdout.strip().splitlines()[-1] == "[]", warm.stdout
    assert json.loads(out.read_text())["findings"] == first


def test_torch_internal_namespaces_and_impl_libraries_define_nothing(tmp_path):
    (tmp_path / "a.py").write_text(
        "import torch\nlib = torch.library.Library('aten', 'IMPL')\nlib2 = torch.library.Library('mylib', 'IMPL')\n"
        "@torch.library.impl('mylib::op', 'cpu')\ndef op(x): return x\n"
    )
    (tmp_path / "b.py").write_text("import torch\ny = torch.ops.aten.add(x, x)\nz = torch.ops.mylib.op(x)\n")
    assert _ext_findings(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)) == []


def test_an_op_registered_with_the_legacy_register_operators_api_is_a_namespace(tmp_path):
    # bevfusion's feature_decorator.cpp: `torch::RegisterOperators("ns::op", &fn)` defines torch.ops.ns.op
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "deco.cpp").write_text(
        "#include <torch/torch.h>\nat::Tensor deco_forward(const at::Tensor x) { return x; }\n"
        "static auto registry =\n    torch::RegisterOperators(\"deco_ext::deco_forward\", &deco_forward);\n")
    (tmp_path / "deco.py").write_text("import torch\ndef deco(x):\n    return torch.ops.deco_ext.deco_forward(x)\n")
    found = _ext_findings(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST))
    assert [(name, line) for name, line, _ in found] == [("deco.py", 3)]


def test_no_definition_no_extra_cost_and_no_finding(tmp_path):
    (tmp_path / "a.py").write_text("import numpy as np\nimport torch\ny = torch.ops.aten.add(x, x)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _ext_findings(result) == []


# ---- positions ----------------------------------------------------------------------------------------------
def test_import_lines_are_reported_where_apply_edits():
    code = "from torch.cuda.amp import GradScaler\nfrom torch.cuda import amp\nscaler = GradScaler()\nwith amp.autocast():\n    pass\n"
    mine = of(findings(code), "NPU401")
    assert sorted(f.line for f in mine) == [1, 2]
    assert all(e.line == f.line for f in mine for e in f.edits)
    found = findings("import torch.backends.cudnn as cudnn\ncudnn.benchmark = True\n")
    assert sorted(f.line for f in of(found, "NPU206")) == [1, 2]


def test_cuda_call_on_a_multi_line_chain_is_reported_at_the_attribute():
    code = "import torch\nx = (torch.zeros(3)\n     .float()\n     .cuda(non_blocking=True))\n"
    (f,) = of(findings(code), "NPU101")
    assert (f.line, f.column) == (4, 6)  # the `.` of `.cuda(` on the last line


# ---- second session: misses and false positives of a fresh held-out set (issue 11) ---------------------
def test_direct_aten_ops_without_npu_kernel_name_the_wheels_replacement():
    kb = knowledge.load(NEWEST)
    table = knowledge.read_toml("data/aten_alternatives.toml")["op"]
    assert table, "aten_alternatives.toml is empty"
    for op, entry in table.items():
        # the op needs a backend kernel the wheel does not have, and the replacement is in the wheel
        assert kb.op_supported(op) is False, op
        assert kb.has_api(entry["alternative_api"]), entry["alternative_api"]
    code = (
        "import torch\n"
        "def pack(q):\n    return torch.ops.aten._convert_weight_to_int4pack(q, 8)\n"
        "def mm(x, w, s):\n    return torch.ops.aten._weight_int4pack_mm.default(x, w, 128, s)\n"
        "def ok(x):\n    return torch.ops.aten.add(x, x)\n"
    )
    found = of(findings(code), "NPU601")
    assert [(f.line, f.replacement) for f in found] == [
        (3, table["_convert_weight_to_int4pack"]["alternative_api"]),
        (5, table["_weight_int4pack_mm"]["alternative_api"]),
    ]


def test_cudnn_ops_fetched_by_name_are_reported_once_per_call():
    code = (
        "import torch\n"
        "def grad_weight(transpose):\n"
        "    op = torch._C._jit_get_operation('aten::cudnn_convolution_backward_weight' if not transpose\n"
        "                                     else 'aten::cudnn_convolution_transpose_backward_weight')\n"
        "    return op\n"
        "g = torch._C._jit_get_operation('aten::grid_sampler_2d_backward')\n"
    )
    assert [f.line for f in of(findings(code), "NPU601")] == [3]


def test_deepspeed_zero_is_device_neutral_but_its_cuda_ops_are_not():
    table = knowledge.third_party()
    assert table["deepspeed.zero"].status == "works" and "4567" in table["deepspeed.zero"].source
    code = (
        "def gather(param):\n"
        "    from deepspeed import zero\n"
        "    from deepspeed.runtime.zero.partition_parameters import ZeroParamStatus\n"
        "    if param.ds_status == ZeroParamStatus.NOT_AVAILABLE:\n"
        "        with zero.GatheredParameters([param]):\n"
        "            return param.data.cpu()\n"
        "from deepspeed.ops.transformer import DeepSpeedTransformerLayer\n"
        "layer = DeepSpeedTransformerLayer(cfg)\n"
        "from deepspeed.ops.adam import FusedAdam, DeepSpeedCPUAdam\n"
        "opt = FusedAdam(params)\n"
        "import deepspeed\n"
        "x = deepspeed.checkpointing.checkpoint(block, x)\n"
        "print(deepspeed.__version__)\n"
    )
    found = findings(code)
    # the CUDA-only transformer kernels are reported; ZeRO, the NPU-built optimizers (DeepSpeed's
    # op_builder/npu), activation checkpointing, metadata and `import deepspeed` itself (DeepSpeed
    # runs on an NPU: severity info) are not
    assert table["deepspeed"].status == "partial" and table["deepspeed"].severity == "info"
    assert sorted({f.line for f in found if f.code in ("NPU501", "NPU507")}) == [7, 8]
    assert table["deepspeed.ops.adam"].status == "works" and "op_builder/npu" in table["deepspeed.ops.adam"].source
    assert [f for f in found if f.line == 11] == []


def test_plugin_built_by_a_helper_with_nvcc_flags_is_a_cuda_extension_used_through_its_variable():
    code = (
        "import os\n"
        "from .. import custom_ops\n"
        "_plugin = None\n"
        "def _init():\n"
        "    global _plugin\n"
        "    sources = [os.path.join(os.path.dirname(__file__), s) for s in ['op.cpp', 'op.cu']]\n"
        "    _plugin = custom_ops.get_plugin('op_plugin', sources=sources, extra_cuda_cflags=['--use_fast_math'])\n"
        "    return _plugin is not None\n"
        "class F:\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return _plugin.op(x, 0)\n"
        "def other(_plugin):\n"
        "    return _plugin.op(1)\n"  # a parameter of the same name: not the extension
    )
    found = findings(code, filename="pkg/ops/op.py")
    # the build call, and (since set 13: stylegan2-ada bias_act.py) the line naming its `.cu` source, held in a variable
    assert [f.line for f in of(found, "NPU505")] == [6, 7]
    uses = of(found, "NPU508")
    assert [f.line for f in uses] == [12]
    assert "op_plugin" in uses[0].message and "op.py:7" in uses[0].message


def test_keyword_dict_built_key_by_key_selects_gpu_only_options():
    code = (
        "def load(path, load_8bit=False, use_flash_attn=False):\n"
        "    kwargs = {'device_map': 'auto'}\n"
        "    if load_8bit:\n"
        "        kwargs['load_in_8bit'] = True\n"
        "    if use_flash_attn:\n"
        "        kwargs['attn_implementation'] = 'flash_attention_2'\n"
        "    kwargs['attn_implementation'] = 'sdpa'\n"
        "    return AutoModelForCausalLM.from_pretrained(path, **kwargs)\n"
    )
    assert [f.line for f in of(findings(code), "NPU503")] == [4, 6]


def test_device_ids_from_the_rank_are_not_reported_literal_indices_are():
    code = (
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "a = DDP(m, device_ids=[local_rank], output_device=local_rank)\n"
        "b = DDP(m, device_ids=[args.gpu])\n"
        "c = torch.nn.DataParallel(m, device_ids=[0, 1])\n"
    )
    assert [f.line for f in of(findings(code), "NPU105")] == [5]


def test_device_name_normalised_before_it_is_parsed_is_a_device_string():
    code = 'def select(device=""):\n    device = str(device).strip().lower().replace("cuda:", "").replace("none", "")\n    return device\n'
    (f,) = of(findings(code), "NPU104")
    assert f.line == 2 and f.fixable


def test_cublas_workspace_config_is_a_cuda_variable_without_counterpart():
    entry = knowledge.env_vars()["CUBLAS_WORKSPACE_CONFIG"]
    assert not entry.npu
    code = 'import os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\nos.environ["PYTHONHASHSEED"] = "0"\n'
    assert [f.line for f in of(findings(code), "NPU703")] == [2]


def test_jit_extension_named_by_an_f_string_is_linked_to_its_variable():
    code = (
        "import os\nfrom torch.utils.cpp_extension import load\nT_MAX = int(os.environ['T'])\n"
        "if os.environ['MODE'] == 'bf16':\n"
        "    wkv_cuda = load(name=f'wkv_{T_MAX}_bf16', sources=['op.cpp', 'op_bf16.cu'], extra_cuda_cflags=['-O3'])\n"
        "else:\n"
        "    wkv_cuda = load(name=f'wkv_{T_MAX}', sources=['op.cpp', 'op.cu'], extra_cuda_cflags=['-O3'])\n"
        "def fwd(B, T, C, w, y):\n    wkv_cuda.forward(B, T, C, w, y)\n    return y\n"
    )
    found = findings(code)
    assert [f.line for f in of(found, "NPU505")] == [5, 7]
    uses = of(found, "NPU508")
    assert [f.line for f in uses] == [9] and "wkv_{T_MAX}" in uses[0].message


def test_lightning_accelerator_gpu_default_is_a_device_choice_reported_only_in_lightning_files():
    # label ruling (L25): Lightning's `accelerator="gpu"` chooses the device (NPU108, as NPU107 reads it in a Trainer
    # YAML), it selects no GPU-only library (not NPU503)
    lightning = (
        "import argparse\nimport pytorch_lightning as pl\n"
        "p = argparse.ArgumentParser()\np.add_argument('--accelerator', default='gpu', type=str)\n"
        "p.add_argument('--devices', default=1, type=int)\n"
    )
    assert [f.line for f in of(findings(lightning), "NPU108")] == [4] and of(findings(lightning), "NPU503") == []
    assert of(findings(lightning), "NPU108")[0].severity.name.lower() == "warning"
    own_trainer = lightning.replace("import pytorch_lightning as pl\n", "")
    assert of(findings(own_trainer), "NPU108") == [] and of(findings(own_trainer), "NPU503") == []


def test_cuda_home_as_an_attribute_and_a_load_given_nvcc_flags_are_cuda_builds():
    code = (
        "from torch.utils import cpp_extension\n"
        "_, major, minor = bare_metal_version(cpp_extension.CUDA_HOME)\n"
        "def helper(name, sources, flags):\n"
        "    return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=['-O3'] + flags)\n"
        "def cpu_helper(name, sources):\n"
        "    return cpp_extension.load(name=name, sources=sources, extra_cflags=['-O3'])\n"
    )
    assert [f.line for f in of(findings(code), "NPU505")] == [2, 4]


def test_partial_package_import_is_not_called_gpu_only():
    assert knowledge.third_party()["liger_kernel"].status == "partial"
    (f,) = of(findings("from liger_kernel.transformers import apply_liger_kernel_to_llama\n"), "NPU501")
    assert "only in part" in f.message and "targets NVIDIA GPUs" not in f.message
    (g,) = of(findings("import flash_attn\n"), "NPU501")
    assert "targets NVIDIA GPUs" in g.message


def test_calls_through_a_module_level_alias_of_a_gpu_only_function_are_uses():
    code = (
        "import xformers\nimport xformers.ops.fmha\n"
        "xformers_attention = xformers.ops.fmha.memory_efficient_attention\n"
        "def forward(q, k, v, bias):\n"
        "    return xformers_attention(q, k, v, attn_bias=bias)\n"
        "def other(xformers_attention):\n"
        "    return xformers_attention(1)\n"
    )
    # the call through the alias is the use; the binding only names the function (label ruling (L52))
    assert [f.line for f in of(findings(code), "NPU507")] == [5]


def test_flash_attention_csrc_extensions_are_gpu_only_at_import_and_each_use():
    table = knowledge.third_party()
    for name in ("rotary_emb", "xentropy_cuda_lib", "dropout_layer_norm"):
        assert "flash-attention csrc/" in table[name].source, name
    code = (
        "import rotary_emb\nimport xentropy_cuda_lib\nimport dropout_layer_norm\n"
        "def f(x1, x2, cos, sin, o1, o2, logits, labels, x0, gamma):\n"
        "    rotary_emb.apply_rotary(x1, x2, cos, sin, o1, o2, False)\n"
        "    losses, lse = xentropy_cuda_lib.forward(logits, labels, 0.0)\n"
        "    return dropout_layer_norm.dropout_add_ln_fwd(x0, gamma)\n"
    )
    found = findings(code)
    assert [f.line for f in of(found, "NPU501")] == [1, 2, 3]
    assert [f.line for f in of(found, "NPU507")] == [5, 6, 7]
    assert of(found, "NPU507")[0].replacement == "torch_npu.npu_rotary_mul"


def test_mamba_ssm_and_its_extension_are_gpu_only_at_import_and_each_use():
    table = knowledge.third_party()
    assert "state-spaces/mamba" in table["mamba_ssm"].source and table["selective_scan_cuda"].status == "unsupported"
    code = (
        "class MambaWrapper:\n"
        "    def _create_model(self, name):\n"
        "        from mamba_ssm.models.mixer_seq_simple import MambaLMHeadModel\n"
        "        self.model = MambaLMHeadModel.from_pretrained(name, device=self.device)\n"
        "import selective_scan_cuda\n"
        "out, x, *rest = selective_scan_cuda.fwd(u, delta, A, B, C, D, z, bias, True)\n"
    )
    found = findings(code)
    assert [(f.line, f.package) for f in of(found, "NPU501")] == [(3, "mamba_ssm"), (5, "selective_scan_cuda")]
    assert [f.line for f in of(found, "NPU507")] == [4, 6]


def test_profiler_cuda_activity_points_at_torch_npus_profiler_which_the_wheel_has():
    kb = knowledge.load(NEWEST)
    assert kb.has_api("torch_npu.profiler.profile") and kb.has_api("torch_npu.profiler.ProfilerActivity")
    code = (
        "import torch\n"
        "prof = torch.profiler.profile(\n"
        "    activities=[torch.profiler.ProfilerActivity.CPU,\n"
        "                torch.profiler.ProfilerActivity.CUDA],\n"
        ")\n"
    )
    (f,) = of(findings(code), "NPU106")
    assert f.line == 4 and "torch_npu.profiler.ProfilerActivity.NPU" in f.message and not f.fixable


def test_float64_in_a_dtype_name_table_is_not_a_computation():
    code = (
        "import torch\n"
        "def to_torch_dtype(name):\n"
        "    return {'float64': torch.float64, 'fp16': torch.float16}[name]\n"
        "x = torch.zeros(2, dtype=torch.float64)\n"
    )
    assert [f.line for f in of(findings(code), "NPU602")] == [4]


def test_warm_run_reads_the_index_and_files_to_link_back_and_equals_the_cold_run(tmp_path, monkeypatch):
    # linking's plan (the index as built, the exports left after the own-package filter, the files to link) is
    # stored under the scan's paths and contents: an unchanged tree builds no index again, and a changed one does
    from migrate import repo_index, verdict

    _repo(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    cold = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    built = repo_index.build_index(cold.files)
    same = lambda summary: {k: v for k, v in summary.items() if k not in ("files_from_cache", "duration_s")}  # noqa: E731
    cold_summary = same(verdict.summary(cold))
    first = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    real_build = repo_index._build_index

    def must_not_build(results):
        raise AssertionError("the index was built again although no file changed")

    monkeypatch.setattr(repo_index, "_build_index", must_not_build)
    warm = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert warm.cached_files == len(warm.files)
    assert warm.findings == first.findings == cold.findings
    assert same(verdict.summary(warm)) == cold_summary
    read_back = repo_index.build_index(warm.files)
    assert read_back == built and list(read_back.modules) == list(built.modules)
    # a changed file: the plan is stale and the index is built afresh
    monkeypatch.setattr(repo_index, "_build_index", real_build)
    setup = tmp_path / "setup.py"
    setup.write_text("# a comment line\n" + setup.read_text())
    changed = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert changed.findings == scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST).findings
    assert any("setup.py:4" in f.message for f in changed.findings if f.code == "NPU508")


def test_cuda_kernels_given_to_torchs_own_ops_make_no_extension_namespace(tmp_path):
    # set 62 (FlagOpen/FlagGems csrc/aten_patch.cpp `TORCH_LIBRARY_IMPL(aten, CUDA, m)`): CUDA kernels registered for
    # ops torch itself defines do not make `torch.ops.aten` an extension's namespace: the calls stay torch's ops, which
    # torch_npu implements on the NPU. A namespace of the repository's own implemented on CUDA stays reported
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "patch.cpp").write_text(
        "#include <torch/library.h>\nTORCH_LIBRARY_IMPL(aten, CUDA, m) {\n  m.impl(\"add.Tensor\", &add_cuda);\n}\n"
        "TORCH_LIBRARY_IMPL(myops, CUDA, m) {\n  m.impl(\"fused\", &fused_cuda);\n}\n")
    (tmp_path / "test_ops.py").write_text(
        "import torch\nx = torch.ops.aten.gelu_backward(torch.ones(2), torch.ones(2))\ny = torch.ops.myops.fused(x)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _ext_findings(result) == [("test_ops.py", 3, "error")]
