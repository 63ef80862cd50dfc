"""Issue 11: project names that stand for a CUDA-specific API, used in other files (NPU510).

The repositories are small trees written here in the shapes seen in real code (yolov5's
`utils/torch_utils.py` re-exporting ultralytics' `autocast`, whose device defaults to "cuda").
Expected lines are the call sites written below, not values read back from the tool.
"""
from __future__ import annotations

from pathlib import Path

from migrate import fileio
from migrate.engine import scan
from migrate.reexports import CUDA_DEFAULT_DEVICE

NEWEST = "2.14.0"


def _uses(result):
    return sorted(("/".join(Path(f.path).parts[-2:]), f.line) for f in result.findings if f.code == "NPU510")


def _yolo(tmp_path):
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "torch_utils.py").write_text(
        "import torch\n"
        "from ultralytics.utils.torch_utils import (  # noqa: F401\n"
        "    autocast as smart_amp_autocast,\n"
        ")\n"
        "def smart_inference_mode():\n"
        "    return torch.no_grad()\n"
    )
    (tmp_path / "train.py").write_text(
        "from utils.torch_utils import (\n"
        "    smart_inference_mode,\n"
        "    smart_amp_autocast,\n"
        ")\n"
        "def train(model, x, amp):\n"
        "    with smart_amp_autocast(amp):\n"  # line 6: device left out -> cuda
        "        y = model(x)\n"
        "    with smart_amp_autocast(amp, device='npu'):\n"  # passes the device: fine
        "        y = model(x)\n"
        "    with smart_inference_mode():\n"
        "        y = model(x)\n"
        "    return y\n"
    )
    (tmp_path / "utils" / "segment").mkdir()
    (tmp_path / "utils" / "segment" / "loss.py").write_text(
        "from ..torch_utils import smart_amp_autocast\n"
        "def f(on):\n"
        "    with smart_amp_autocast(on):\n"  # line 3, relative import
        "        pass\n"
    )


def test_reexport_of_a_cuda_default_callable_is_found_at_calls_without_a_device(tmp_path):
    _yolo(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert sorted(_uses(result)) == sorted([("segment/loss.py", 3), (f"{tmp_path.name}/train.py", 6)])
    message = next(f.message for f in result.findings if f.code == "NPU510")
    assert "torch_utils.py:3" in message and "device" in message


def test_the_table_of_cuda_default_callables_cites_a_source():
    for name, (index, keyword, source) in CUDA_DEFAULT_DEVICE.items():
        assert index >= 0 and keyword and name.split(".")[0] in source


def _functions(tmp_path, body="    return torch.cuda.amp.autocast(enabled=on)\n"):
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "amp.py").write_text("import torch\ndef amp_ctx(on):\n" + body)
    (tmp_path / "other").mkdir(exist_ok=True)
    (tmp_path / "other" / "amp.py").write_text("import torch\ndef amp_ctx(on):\n    return torch.autocast('npu', enabled=on)\n")
    (tmp_path / "main.py").write_text(
        "import lib.amp as la\n"
        "from lib.amp import amp_ctx\n"
        "from other.amp import amp_ctx as fine_ctx\n"
        "with amp_ctx(True):\n"  # line 4
        "    pass\n"
        "with la.amp_ctx(False):\n"  # line 6, through the module alias
        "    pass\n"
        "with fine_ctx(True):\n"  # same name in another module: not CUDA
        "    pass\n"
    )


def test_a_function_returning_a_cuda_object_is_reported_where_other_files_use_it(tmp_path):
    _functions(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for path, line in _uses(result) if path.endswith("main.py")] == [4, 6]


def test_changing_the_defining_file_changes_the_finding_in_the_unchanged_user(tmp_path):
    _functions(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    first = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert [line for path, line in _uses(first) if path.endswith("main.py")] == [4, 6]
    # only lib/amp.py changes: main.py is a cache hit, yet its cross-file findings go away
    (tmp_path / "lib" / "amp.py").write_text("import torch\ndef amp_ctx(on):\n    return torch.autocast('npu', enabled=on)\n")
    second = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert second.cached_files >= 2
    assert _uses(second) == []
    # and back: the finding returns, still without main.py changing
    (tmp_path / "lib" / "amp.py").write_text("import torch\ndef amp_ctx(on):\n    return torch.cuda.amp.autocast(enabled=on)\n")
    third = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert [line for path, line in _uses(third) if path.endswith("main.py")] == [4, 6]


def test_warm_run_does_not_parse_again(tmp_path, monkeypatch):
    _functions(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    first = _uses(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST))

    def must_not_parse(text):
        raise AssertionError("parsed again although nothing changed")

    monkeypatch.setattr(fileio, "parse_python", must_not_parse)
    assert _uses(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)) == first


def test_alias_of_a_gpu_only_package_is_an_error_at_each_use(tmp_path):
    (tmp_path / "kernels.py").write_text("from flash_attn import flash_attn_func as attention\n")
    (tmp_path / "model.py").write_text(
        "from kernels import attention\n"
        "def forward(q, k, v):\n"
        "    return attention(q, k, v)\n"  # line 3
        "def other(attention):\n"
        "    return attention(1)\n"  # a parameter, not the import
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    found = [(Path(f.path).name, f.line, str(f.severity)) for f in result.findings if f.code == "NPU510"]
    assert found == [("model.py", 3, "error")]


def test_names_that_are_not_cuda_specific_are_not_exported(tmp_path):
    (tmp_path / "helpers.py").write_text(
        "import torch\n"
        "def mem():\n    return torch.cuda.memory_allocated()\n"  # a number
        "def ctx(on):\n    return torch.autocast('cpu', enabled=on)\n"
        "from torch.nn import functional as F\n"
    )
    (tmp_path / "use.py").write_text("from helpers import mem, ctx, F\nprint(mem())\nwith ctx(True):\n    F.relu(1)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _uses(result) == []


def test_a_name_whose_uses_npu507_keeps_is_not_exported(tmp_path):
    # FlagEmbedding's agent/vllm.py re-exports vLLM's public API (`LLM`, `SamplingParams`: label ruling (L44)) and the
    # padding helpers of flash_attn.bert_padding are plain torch (L54): a project name for either is judged like the
    # name itself, so its uses elsewhere are no lines; the imports are NPU501's
    (tmp_path / "agent.py").write_text(
        "from vllm import LLM, SamplingParams\n"
        "from vllm.lora.request import LoRARequest\n"
        "from flash_attn.bert_padding import pad_input, unpad_input\n"
        "from flash_attn import flash_attn_varlen_func\n"
    )
    (tmp_path / "run.py").write_text(
        "from agent import LLM, SamplingParams, LoRARequest, pad_input, unpad_input, flash_attn_varlen_func\n"
        "def run(path, x, mask, b, s):\n"
        "    llm = LLM(model=path, enable_lora=True)\n"
        "    out = llm.generate(['hi'], SamplingParams(max_tokens=8), lora_request=LoRARequest('a', 1, path))\n"
        "    h, idx, cu, m = unpad_input(x, mask)\n"
        "    h = flash_attn_varlen_func(h, h, h, cu, cu, m, m)\n"  # line 6: the kernel stays a use
        "    return out, pad_input(h, idx, b, s)\n"
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [(Path(f.path).name, f.line) for f in result.findings if f.code == "NPU510"] == [("run.py", 6)]


def test_triton_helpers_and_uses_inside_kernels_are_left_to_npu507(tmp_path):
    # flash-linear-attention: `fla/ops/utils/op.py` defines `@triton.jit def exp(x): return tl.exp(...)`
    (tmp_path / "op.py").write_text(
        "import triton\nimport triton.language as tl\nfrom flash_attn import flash_attn_func as fa\n"
        "@triton.jit\ndef exp(x):\n    return tl.exp(x)\n"
    )
    (tmp_path / "kernel.py").write_text(
        "import triton\nfrom op import exp, fa\n"
        "@triton.jit\ndef k(x):\n    y = exp(x)\n    z = fa(x)\n"  # inside a kernel: NPU507 reports the kernel once
        "def host(q):\n    return fa(q, q, q)\n"  # line 8, on the host: a use
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for path, line in _uses(result) if path.endswith("kernel.py")] == [8]


def test_a_tilelang_jit_function_is_reported_where_another_file_calls_it(tmp_path, monkeypatch):
    # microsoft/MInference LeanK/eval: tilelang_flash_decoding.py defines `@tilelang.jit def flashattn(...)`,
    # kernel_benchmark.py imports it and compiles it with `kernel = flashattn(batch, heads, ...)`
    (tmp_path / "tilelang_flash_decoding.py").write_text(
        "import tilelang\nimport tilelang.language as T\n"
        "@tilelang.jit(out_idx=[1])\ndef flashattn(n, block):\n    @T.prim_func\n"
        "    def main(X: T.Tensor([n], 'float16')):\n        with T.Kernel(T.ceildiv(n, block), threads=128) as bx:\n"
        "            T.clear(X)\n    return main\n"
        "def helper(n):\n    return n * 2\n"
    )
    (tmp_path / "kernel_benchmark.py").write_text(
        "import tilelang\nfrom tilelang_flash_decoding import flashattn, helper\n"
        "def main(n):\n    kernel = flashattn(n, 64)\n"  # line 4: compiles the kernel
        "    run = flashattn\n    return kernel, helper(n), run\n"  # a reference and a plain function: no uses
    )
    # ByteDance-Seed/VeOmni tests/ops/test_deepseek_v4_kernels.py: the test first calls a helper that skips without
    # tilelang (and without an NVIDIA GPU), then compiles the kernel: it runs on no NPU host (label ruling (L27))
    (tmp_path / "test_kernels.py").write_text(
        "import pytest\nimport torch\n"
        "def _require_tilelang_cuda():\n    pytest.importorskip('tilelang')\n"
        "    if not torch.cuda.is_available():\n        pytest.skip('needs an NVIDIA GPU')\n"
        "def test_fwd():\n    _require_tilelang_cuda()\n"
        "    from tilelang_flash_decoding import flashattn\n    kernel = flashattn(128, 64)\n"  # line 10: skipped
        "def test_plain():\n    from tilelang_flash_decoding import flashattn\n    kernel = flashattn(128, 64)\n"  # line 13
    )
    from migrate import linking

    for facts in (True, False):  # linked from the use sites' facts (repo_index.link_sites) and from the trees
        if not facts:
            monkeypatch.setattr(linking, "from_facts", lambda index: False)
        result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
        assert [line for path, line in _uses(result) if path.endswith("kernel_benchmark.py")] == [4]
        assert [line for path, line in _uses(result) if path.endswith("test_kernels.py")] == [13]


def test_wrappers_with_a_fallback_or_of_a_gpu_only_package_are_not_exported(tmp_path):
    # timm's fast_norm.fast_layer_norm (apex with a torch fallback), axolotl's dequantize (bitsandbytes)
    (tmp_path / "fast.py").write_text(
        "import torch\nfrom apex.normalization.fused_layer_norm import fused_layer_norm_affine\n"
        "def fast_ln(x, w, b, s):\n    if HAS_APEX:\n        return fused_layer_norm_affine(x, w, b, s)\n"
        "    return torch.nn.functional.layer_norm(x, s, w, b)\n"
        "def dequant(w):\n    return fused_layer_norm_affine(w, w, w, 1)\n"
        "def amp_or_not(on):\n    if on:\n        return torch.cuda.amp.autocast()\n    return torch.autocast('cpu')\n"
    )
    (tmp_path / "use.py").write_text("from fast import fast_ln, dequant, amp_or_not\ny = fast_ln(1, 2, 3, 4)\nz = dequant(y)\nwith amp_or_not(True):\n    pass\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _uses(result) == []


def test_an_optional_import_with_a_fallback_is_not_exported(tmp_path):
    # hustvl/Vim: models_mamba.py imports Triton norms under `try:` with a None fallback, and
    # seg/backbone/vim.py re-imports them; the fallback path is what runs on an NPU host
    (tmp_path / "models_mamba.py").write_text(
        "try:\n    from mamba_ssm.ops.triton.layer_norm import RMSNorm, rms_norm_fn\n"
        "except ImportError:\n    RMSNorm, rms_norm_fn = None, None\n"
        "from flash_attn import flash_attn_func as attention\n"
    )
    (tmp_path / "vim.py").write_text(
        "from models_mamba import RMSNorm, rms_norm_fn, attention\n"
        "def f(norm, x):\n"
        "    fn = rms_norm_fn if isinstance(norm, RMSNorm) else None\n"
        "    return attention(x, x, x)\n"  # line 4: not optional
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _uses(result) == [(f"{tmp_path.name}/vim.py", 4)]


def test_many_linked_files_give_the_same_findings_in_the_worker_pool_as_in_one_process(tmp_path, monkeypatch):
    # torch's own tree links 137 files to Triton names re-exported by a sibling module; over 16 files
    # and 400 kB the cross-file step runs in the worker pool: same findings as one process
    (tmp_path / "kernels.py").write_text("from flash_attn import flash_attn_func as attention\n")
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(1200))  # ~30 kB per file
    for n in range(20):
        (tmp_path / f"user_{n:02d}.py").write_text(f"from kernels import attention\n{filler}def f(q):\n    return attention(q, q, q)\n")
    one = _uses(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1))
    pooled_work = []
    real_run_batched = fileio.run_batched

    def spy(work, *args, **kwargs):
        pooled_work.append(work.__name__)
        return real_run_batched(work, *args, **kwargs)

    monkeypatch.setattr(fileio, "run_batched", spy)
    pool = _uses(scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=2))
    assert "_link_batch" in pooled_work
    assert one == pool
    assert one == sorted((f"{tmp_path.name}/user_{n:02d}.py", 2403) for n in range(20))


def test_only_files_reaching_an_exported_name_are_linked(tmp_path, monkeypatch):
    # three files import the module that exports `amp_ctx`; only one uses that name (through the
    # module, so the import alone does not say so): the others are not linked
    from migrate import linking

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "amp.py").write_text(
        "from torch.cuda.amp import autocast as amp_ctx  # noqa: F401\ndef plain(x):\n    return x\n")
    (tmp_path / "user.py").write_text("from lib import amp\nwith amp.amp_ctx(True):\n    pass\n")
    (tmp_path / "other.py").write_text("from lib import amp\ny = amp.plain(1)\n")
    (tmp_path / "lib" / "sub.py").write_text("from . import amp\nz = amp.plain(2)\n")
    linked = []
    real_link_from_facts = linking.link_from_facts

    def spy(result, *args):
        linked.append(Path(result.path).name)
        return real_link_from_facts(result, *args)

    monkeypatch.setattr(linking, "link_from_facts", spy)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
    assert _uses(result) == [(f"{tmp_path.name}/user.py", 2)]
    assert linked == ["user.py"]


def test_files_are_parsed_again_without_the_cyclic_collector(tmp_path, monkeypatch):
    # each full collection a parse triggers walks every result of the scan, which made a parsed line
    # cost more in a larger repository; the collector is back on once linking is done
    import gc

    from migrate import fileio

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "amp.py").write_text(
        "from torch.cuda.amp import autocast as amp_ctx  # noqa: F401\ndef plain(x):\n    return x\n")
    (tmp_path / "user.py").write_text("from lib import amp\nwith amp.amp_ctx(True):\n    pass\nimport fused\n")
    # an extension module of the scan: its users are linked from their syntax trees (linking.from_facts)
    (tmp_path / "setup.py").write_text("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('fused', ['f.cu'])\n")
    collecting = []
    real_parse = fileio.parse_python

    def spy(text, *args, **kwargs):
        collecting.append(gc.isenabled())
        return real_parse(text, *args, **kwargs)

    monkeypatch.setattr(fileio, "parse_python", spy)
    assert gc.isenabled()
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
    assert _uses(result) == [(f"{tmp_path.name}/user.py", 2)]
    assert collecting == [False, False]  # setup.py and user.py, the files parsed again
    assert gc.isenabled()


def _linked_without_parsing(tmp_path):
    # an exported alias (NPU510), a CUDA-default callable re-exported (device mode), an op namespace (NPU508's
    # `torch.ops.<ns>`), used through a relative import, a module attribute, a probe, a message, a shadowing
    # parameter, a noqa comment: every shape the sites of the facts carry
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "amp.py").write_text("from torch.cuda.amp import autocast as amp_ctx  # noqa: F401\n")
    (tmp_path / "lib" / "tu.py").write_text("from ultralytics.utils.torch_utils import autocast as smart_amp  # noqa: F401\n")
    (tmp_path / "lib" / "ops.py").write_text("import torch\nlib = torch.library.Library('myops', 'DEF')\n")
    (tmp_path / "lib" / "user.py").write_text(
        "import torch\n"
        "from .amp import amp_ctx\n"
        "from lib import amp\n"
        "from .tu import smart_amp\n"
        "def f(x):\n"
        "    with amp_ctx(True):\n"  # 6: NPU510
        "        pass\n"
        "    if amp.amp_ctx is None:\n"  # a probe
        "        pass\n"
        "    print(f'{amp.amp_ctx}')\n"  # a message
        "    y = torch.ops.myops.fast(x)\n"  # 11: NPU508
        "    with smart_amp(True):\n"  # 12: NPU510, the device left out
        "        pass\n"
        "    with smart_amp(True, device='npu'):\n"  # passes the device
        "        pass\n"
        "    return amp.amp_ctx(True)  # noqa: NPU510\n")
    (tmp_path / "main.py").write_text(
        "from lib import amp\n"
        "def g(amp):\n"
        "    return amp.amp_ctx(True)\n"  # the parameter, not the module
        "def h():\n"
        "    return amp.amp_ctx(False)\n")  # 5: NPU510


def test_linking_parses_no_file_again(tmp_path, monkeypatch):
    # the cross-file step reads each linked file's use sites from its facts (repo_index.link_sites), cold and
    # from the cache after the definitions moved: fileio.parse_python, linking's parse, is never called
    _linked_without_parsing(tmp_path)
    parsed = []
    real_parse = fileio.parse_python

    def spy(text, *args, **kwargs):
        parsed.append(text)
        return real_parse(text, *args, **kwargs)

    monkeypatch.setattr(fileio, "parse_python", spy)
    name = tmp_path.name
    cache = tmp_path.parent / (name + "-cache")
    first = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST, jobs=1)
    linked = sorted(("/".join(Path(f.path).parts[-2:]), f.line, f.code) for f in first.findings if f.code in ("NPU508", "NPU510"))
    assert linked == [("lib/user.py", 6, "NPU510"), ("lib/user.py", 11, "NPU508"), ("lib/user.py", 12, "NPU510"),
                      (f"{name}/main.py", 5, "NPU510")]
    assert [f.suppressed for f in first.files if f.path.endswith("user.py")] == [1]  # line 16, its noqa comment
    (tmp_path / "lib" / "amp.py").write_text("# moved\n" + (tmp_path / "lib" / "amp.py").read_text())
    second = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST, jobs=1)
    assert second.cached_files >= 2
    moved = [f.message for f in second.findings if f.code == "NPU510" and f.path.endswith("main.py")]
    assert len(moved) == 1 and "amp.py:2)" in moved[0]
    assert parsed == []


def test_a_damaged_sites_file_is_parsed_around(tmp_path):
    # the use sites are cached beside the results (cache.ResultCache.get_sites); an edited entry makes linking
    # parse that file again, with the same findings as a scan without the cache
    import json

    _linked_without_parsing(tmp_path)
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST, jobs=1)
    (sites_file,) = cache.glob("*-sites.json")
    stored = json.loads(sites_file.read_text())
    sites_file.write_text(json.dumps({key: [entry[0], "amp amp_ctx 7,x"] for key, entry in stored.items()}))
    (tmp_path / "lib" / "amp.py").write_text("# moved\n" + (tmp_path / "lib" / "amp.py").read_text())
    warm = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST, jobs=1)
    cold = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
    assert warm.cached_files >= 2
    assert [(f.path, f.line, f.message) for f in warm.findings] == [(f.path, f.line, f.message) for f in cold.findings]
    assert len([f for f in cold.findings if f.code == "NPU510"]) == 3


LINKED_BOTH_WAYS = {
    "lib/__init__.py": "",
    "lib/amp.py": "from torch.cuda.amp import autocast as amp_ctx  # noqa: F401\n",
    "lib/ops.py": (  # a namespace of the scan, one op of it implemented by a Python function (NPU508's python_op)
        "import torch\nlib = torch.library.Library('myops', 'DEF')\n"
        "torch.library.define('myops::pyop', '(Tensor x) -> Tensor')\n"
        "@torch.library.impl('myops::pyop', 'cuda')\ndef pyop_cuda(x):\n    return x\n"),
    # a JIT build under a computed name: the index holds the module `{name}` (torch's own cpp_extension.py does this)
    "lib/build.py": "def _compile(**kw):\n    pass\ndef build(name, flags):\n    return _compile(name=name, sources=[], extra_cuda_cflags=flags)\n",
    "user.py": (
        "import torch\nfrom lib import amp\n"
        "if hasattr(torch.ops.myops, 'fast'):\n"  # 3: a probe, no use (NPU508's _hasattr_probe)
        "    y = torch.ops.myops.fast(1)\n"  # 4: NPU508
        "z = torch.ops.myops.pyop(2)\n"  # 5: a Python-implemented op, a wrapper call
        "with amp.amp_ctx(True):\n"  # 6: NPU510
        "    pass\n"),
    "loader.py": (  # a string holding a brace may name the `{name}` build (it does here): linked from its tree
        "import importlib\nimport torch\nm = importlib.import_module('{name}')\nw = torch.ops.myops.fast(3)\n"),
    "loader2.py": (  # an f-string pattern without a brace in its literal parts names no such build: from the facts
        "import importlib\nimport torch\ndef get(n):\n    return importlib.import_module(f'{n}_ops')\nw = torch.ops.myops.fast(3)\n"),
}


def test_linking_from_the_facts_gives_what_linking_from_the_trees_gives(tmp_path, monkeypatch):
    # the facts path (repo_index.link_sites, linking.link_from_facts) against NPU508 / NPU510 `uses` on the parsed trees
    # (linking.from_facts forced off): a `hasattr(torch.ops.ns, ...)` probe, an op a Python function implements, and a
    # module built under a computed name, which sends back to the parser only the files that may reach it
    from migrate import linking

    for name, text in LINKED_BOTH_WAYS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    parsed = []
    real_parse = fileio.parse_python

    def spy(text, *args, **kwargs):
        parsed.append(next(name for name, source in LINKED_BOTH_WAYS.items() if source == text))
        return real_parse(text, *args, **kwargs)

    def rows(result):
        return ([(f.path, f.line, f.column, f.code, f.severity, f.message) for f in result.findings],
                sorted((f.path, f.line) for f in result.wrapper_calls), [f.suppressed for f in result.files])

    monkeypatch.setattr(fileio, "parse_python", spy)
    from_facts = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
    assert sorted(parsed) == ["lib/build.py", "loader.py"]  # the build's own file, a loader given a brace
    monkeypatch.setattr(linking, "from_facts", lambda index: False)
    parsed.clear()
    from_trees = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST, jobs=1)
    assert "user.py" in parsed
    assert rows(from_facts) == rows(from_trees)
    user = sorted((f.line, f.code) for f in from_facts.findings if f.path.endswith("user.py") and f.code in ("NPU508", "NPU510"))
    assert user == [(4, "NPU508"), (6, "NPU510")]
    assert [f.line for f in from_facts.wrapper_calls if f.path.endswith("user.py")] == [5]
    assert sorted((f.line, f.code) for f in from_facts.findings if f.path.endswith("loader.py")) == [(3, "NPU508"), (4, "NPU508")]
