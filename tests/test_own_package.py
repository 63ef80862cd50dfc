"""Issue 11: a package's own files are not users of it (Liger-Kernel's repository scanned itself),
and Liger-Kernel's Ascend backend in the knowledge.

Trees are written here in the layout of linkedin/Liger-Kernel and NVIDIA/apex checkouts.
"""
from __future__ import annotations

from pathlib import Path

from migrate import knowledge
from migrate.engine import scan

NEWEST = "2.14.0"


def _liger(tmp_path, top="src"):
    pkg = tmp_path / top / "liger_kernel"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "__init__.py").write_text("")
    (pkg / "ops" / "utils.py").write_text("import triton\ndef ensure_contiguous(fn):\n    return fn\n")
    (pkg / "ops" / "swiglu.py").write_text(
        "import triton\nfrom liger_kernel.ops.utils import ensure_contiguous\n"
        "@ensure_contiguous\ndef forward(a, b):\n    return a * b\n"
    )
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train.py").write_text(
        "from liger_kernel.transformers import apply_liger_kernel_to_llama\napply_liger_kernel_to_llama()\n"
    )


def _about(result, name, package):
    return sorted((f.code, f.line) for f in result.findings
                  if Path(f.path).name == name and f.code in ("NPU501", "NPU507") and package in f.message)


def test_the_package_own_files_do_not_use_it_but_its_users_do(tmp_path):
    _liger(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "swiglu.py", "liger_kernel") == []
    assert _about(result, "swiglu.py", "triton") != []  # its Triton use is still reported
    # a package that runs on an NPU in part: its import is noted once, uses are not (as DeepSpeed)
    assert _about(result, "train.py", "liger_kernel") == [("NPU501", 1)]


def test_removing_the_package_marker_is_seen_on_a_warm_run(tmp_path):
    _liger(tmp_path, top="flat")  # a flat layout: only the __init__.py says it is the package
    cache = tmp_path.parent / (tmp_path.name + "-cache")
    assert _about(scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST), "swiglu.py", "liger_kernel") == []
    (tmp_path / "flat" / "liger_kernel" / "__init__.py").unlink()  # swiglu.py itself is unchanged (a cache hit)
    second = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert second.cached_files >= 1
    assert ("NPU501", 2) in _about(second, "swiglu.py", "liger_kernel")


def test_a_checkout_named_like_the_package_is_not_the_package(tmp_path):
    # NVIDIA/apex: the checkout apex/ holds the package apex/apex/; a script in another folder of it is a user
    (tmp_path / "apex" / "apex").mkdir(parents=True)
    (tmp_path / "apex" / "apex" / "__init__.py").write_text("from apex import amp\n")
    (tmp_path / "apex" / "contrib").mkdir()
    (tmp_path / "apex" / "contrib" / "main.py").write_text("import apex\nfrom apex.optimizers import FusedAdam\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for code, line in _about(result, "main.py", "apex") if code == "NPU501"] == [1, 2]
    assert _about(result, "__init__.py", "apex") == []


def test_a_subpackage_named_like_a_package_does_not_hide_its_top_level_import(tmp_path):
    # OpenNLPLab/lightning-attention @d15c3852: lightning_attn/ops/triton/__init__.py holds the repository's
    # Triton kernels; inside it `import triton` is the top-level Triton (Python 3 has no implicit relative
    # imports), not the subpackage lightning_attn.ops.triton
    ops = tmp_path / "lightning_attn" / "ops"
    (ops / "triton").mkdir(parents=True)
    for folder in (tmp_path / "lightning_attn", ops, ops / "triton"):
        (folder / "__init__.py").write_text("")
    (ops / "triton" / "srmsnorm.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef _kernel(X):\n    pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_ops.py").write_text("from lightning_attn.ops import srmsnorm\n")  # the package is imported
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for code, line in _about(result, "srmsnorm.py", "triton") if code == "NPU501"] == [1, 2]
    assert ("NPU507", 3) in _about(result, "srmsnorm.py", "triton")


def test_a_subpackage_named_like_a_package_that_registers_ops_is_no_vendored_copy_of_it(tmp_path):
    # vipshop/cache-dit @f86744af: src/cache_dit/kernels/triton/_ops_registery.py imports triton, registers its Triton
    # launches as torch.library ops (a holder of kernels, as a vendored package building its own) and sibling modules
    # hold the @triton.jit kernels: the folder is the subpackage cache_dit.kernels.triton, not a vendored Triton, so
    # the repository's Triton code everywhere stays reported (label ruling (L42))
    pkg = tmp_path / "src" / "cache_dit"
    triton_dir = pkg / "kernels" / "triton"
    triton_dir.mkdir(parents=True)
    for folder in (pkg, pkg / "kernels", triton_dir):
        (folder / "__init__.py").write_text("")
    (triton_dir / "__init__.py").write_text("from ._ops_registery import quant\n")
    (triton_dir / "_kernels.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef _quant_kernel(X):\n    pass\n")
    (triton_dir / "_ops_registery.py").write_text(
        "import torch\nimport triton\nfrom ._kernels import _quant_kernel\n"
        'torch.library.define("own_triton_ops::quant", "(Tensor x) -> Tensor")\n'
        '@torch.library.impl("own_triton_ops::quant", "CUDA")\n'
        "def _quant(x):\n    _quant_kernel[(1,)](x)\n    return x\n"
        "def quant(x):\n    return torch.ops.own_triton_ops.quant(x)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_quant.py").write_text("import cache_dit\nfrom cache_dit.kernels.triton import quant\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for code, line in _about(result, "_kernels.py", "triton") if code == "NPU501"] == [1, 2]
    assert ("NPU507", 3) in _about(result, "_kernels.py", "triton")
    assert ("NPU501", 2) in _about(result, "_ops_registery.py", "triton")


def test_a_subpackage_chain_inside_an_imported_namespace_folder_is_no_top_level_package(tmp_path):
    # a training folder with no __init__.py (a namespace package) imported as `train.utils`; its ops/ package holds
    # Triton kernels in ops/triton/: that folder is `train.ops.triton`, and its `import triton` is Triton's
    train = tmp_path / "train"
    (train / "ops" / "triton").mkdir(parents=True)
    (train / "utils").mkdir()
    for folder in (train / "ops", train / "ops" / "triton", train / "utils"):
        (folder / "__init__.py").write_text("")
    (train / "ops" / "triton" / "k_act.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef relu(x):\n    return tl.maximum(x, 0)\n")
    (train / "utils" / "log.py").write_text("import logging\n")
    (train / "run.py").write_text("from train.utils.log import logging\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [line for code, line in _about(result, "k_act.py", "triton") if code == "NPU501"] == [1, 2]
    assert ("NPU507", 3) in _about(result, "k_act.py", "triton")


def test_a_package_below_a_folder_nobody_imports_is_still_the_package(tmp_path):
    # NetEase-FuXi/EETQ: python/__init__.py is a stray marker (setup.py maps package_dir={"": "python"}); python/eetq/
    # is `eetq` itself, its own files do not use it
    (tmp_path / "python" / "eetq" / "models").mkdir(parents=True)
    (tmp_path / "python" / "__init__.py").write_text("")
    (tmp_path / "python" / "eetq" / "__init__.py").write_text("from eetq.models.auto import AutoEETQ\n")
    (tmp_path / "python" / "eetq" / "models" / "__init__.py").write_text("")
    (tmp_path / "python" / "eetq" / "models" / "auto.py").write_text("from eetq.utils import replace\nclass AutoEETQ:\n    pass\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "auto.py", "eetq") == [] and _about(result, "__init__.py", "eetq") == []


def test_liger_kernel_runs_in_part_and_its_cuda_dsls_do_not():
    table = knowledge.third_party()
    assert table["liger_kernel"].status == "partial" and "_ascend" in table["liger_kernel"].source
    for dsl in ("cutile", "cute", "cutedsl"):
        assert table[f"liger_kernel.ops.{dsl}"].severity == "error"


def test_liger_cuda_dsl_is_an_error_and_an_ascend_covered_op_a_warning(tmp_path):
    (tmp_path / "m.py").write_text(
        "from liger_kernel.ops.cutile import ops as cu\nfrom liger_kernel.ops.rms_norm import LigerRMSNormFunction\n"
        "y = LigerRMSNormFunction.apply(x, w)\nz = cu.rms_norm(y)\n"
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    got = sorted((f.code, f.line, str(f.severity)) for f in result.findings if f.code in ("NPU501", "NPU507"))
    assert got == [("NPU501", 1, "error"), ("NPU501", 2, "warning"), ("NPU507", 4, "error")]


def test_a_src_layout_names_the_package_even_when_only_one_file_is_scanned(tmp_path):
    ops = tmp_path / "src" / "liger_kernel" / "ops"
    ops.mkdir(parents=True)
    (ops / "swiglu.py").write_text("import triton\nfrom liger_kernel.ops.utils import ensure_contiguous\n")
    (tmp_path / "lib" / "liger_kernel").mkdir(parents=True)  # not a src layout, no __init__.py: a user
    (tmp_path / "lib" / "liger_kernel" / "use.py").write_text("from liger_kernel.ops.utils import ensure_contiguous\n")
    result = scan([str(ops / "swiglu.py"), str(tmp_path / "lib")], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "swiglu.py", "liger_kernel") == []
    assert _about(result, "use.py", "liger_kernel") == [("NPU501", 1)]


# ---- code that already handles the NPU beside CUDA (timm @ aa4b585) -------------------------------------
def _codes(tmp_path, text):
    (tmp_path / "t.py").write_text(text)
    result = scan([str(tmp_path / "t.py")], use_cache=False, torch_npu_version=NEWEST)
    return sorted((f.line, f.code) for f in result.findings)


def test_a_cuda_branch_beside_an_npu_branch_is_not_reported(tmp_path):
    text = (
        "import torch\n"
        "def sync(device):\n"
        "    if device.type == 'cuda':\n"
        "        torch.cuda.synchronize()\n"
        "    elif device.type == 'npu':\n"
        "        torch.npu.synchronize()\n"
        "def check(device_type):\n"
        "    if device_type == 'cuda':\n"
        "        assert torch.cuda.is_available()\n"
        "    if device_type == 'npu':\n"
        "        assert torch.npu.is_available()\n"
        "BACKENDS = {'cuda': 'nccl', 'npu': 'hccl'}\n"
    )
    assert [(line, code) for line, code in _codes(tmp_path, text) if line > 1] == []


def test_a_cuda_branch_without_an_npu_sibling_is_still_reported(tmp_path):
    text = (
        "import torch\n"
        "def sync(device):\n"
        "    if device.type == 'cuda':\n"
        "        torch.cuda.synchronize()\n"  # line 4
        "    elif device.type == 'xpu':\n"
        "        torch.xpu.synchronize()\n"
        "BACKENDS = {'cuda': 'nccl', 'xpu': 'ccl'}\n"
        "def init(device_type, device):\n"
        "    if device_type == 'cuda':\n"
        "        assert torch.cuda.is_available()\n"
        "    if device_type == 'npu':\n"
        "        assert torch.npu.is_available()\n"
        "    if device.startswith('cuda:'):\n"  # line 13: set_device has no NPU counterpart
        "        torch.cuda.set_device(device)\n"
    )
    lines = {line for line, _ in _codes(tmp_path, text)}
    assert {3, 4, 7, 14} <= lines and not {9, 10} & lines


def test_every_package_finding_names_its_package_in_a_field(tmp_path):
    """The own-package filter and the per-package summary read `Finding.package`, not the message
    text, so a reworded message cannot silently change which findings are dropped or grouped."""
    (tmp_path / "requirements.txt").write_text("apex\nbitsandbytes>=0.41\n")
    (tmp_path / "train.py").write_text(
        "import apex\nfrom flash_attn import flash_attn_func\nimport triton\n"
        "@triton.jit\ndef k(x):\n    pass\n"
        "apex.parallel.convert_syncbn_model(None)\nflash_attn_func(1, 2, 3)\n"
    )
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    got = {(f.code, f.line): f.package for f in result.findings if f.code in ("NPU501", "NPU502", "NPU507")}
    assert got[("NPU501", 1)] == "apex" and got[("NPU507", 7)] == "apex"
    assert got[("NPU501", 2)] == "flash_attn" and got[("NPU507", 8)] == "flash_attn"
    assert got[("NPU501", 3)] == "triton" and got[("NPU507", 4)] == "triton"
    assert {got[("NPU502", 1)], got[("NPU502", 2)]} == {"apex", "bitsandbytes"}
    # the same facts come back from the cache and into the JSON report
    cache = tmp_path.parent / (tmp_path.name + "-c")
    scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    warm = scan([str(tmp_path)], cache_dir=cache, torch_npu_version=NEWEST)
    assert warm.cached_files == 2
    assert [(f.code, f.line, f.package) for f in warm.findings] == [(f.code, f.line, f.package) for f in result.findings]
    assert all("package" in f.to_dict() for f in warm.findings)


def test_the_own_package_filter_does_not_read_the_message(tmp_path):
    from dataclasses import replace

    from migrate.findings import FileResult
    from migrate.own_package import drop_own_uses

    _liger(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    swiglu = str(tmp_path / "src" / "liger_kernel" / "ops" / "swiglu.py")
    probe = replace(next(f for f in result.findings if f.code == "NPU501"), path=swiglu, line=2)
    reworded = replace(probe, message="imports something", package="liger_kernel.ops")
    other = replace(probe, message="`liger_kernel.ops.utils` targets ...", package="triton", line=1)
    files = [FileResult(r.path, r.kind, r.lines) for r in result.files if r.path != swiglu]
    files.append(FileResult(swiglu, "python", 5, findings=(reworded, other)))
    kept = {f.line for r in drop_own_uses(files) for f in r.findings}
    assert kept == {1}  # the reworded own use goes, the triton import (whose text names liger) stays


def test_the_package_checkouts_own_tests_and_examples_do_not_use_it_and_other_scripts_do(tmp_path):
    # Dao-AILab/causal-conv1d: the package causal_conv1d/ with tests/ and benchmarks/ beside it; examples/ too (label
    # precedent: set 7's EETQ, set 15's hqq and set 23's lightning-attention examples of their own package: no labels)
    (tmp_path / "causal_conv1d").mkdir()
    (tmp_path / "causal_conv1d" / "__init__.py").write_text("from causal_conv1d.interface import causal_conv1d_fn\n")
    use = "from causal_conv1d import causal_conv1d_fn\ny = causal_conv1d_fn(x, w)\n"
    for folder in ("tests", "benchmarks", "examples", "scripts"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{folder}_conv.py").write_text(use)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "tests_conv.py", "causal_conv1d") == []
    assert _about(result, "benchmarks_conv.py", "causal_conv1d") == []
    assert _about(result, "examples_conv.py", "causal_conv1d") == []
    assert _about(result, "scripts_conv.py", "causal_conv1d") == [("NPU501", 1), ("NPU507", 2)]


def test_the_other_spellings_of_a_checkouts_test_and_benchmark_folders_are_its_own_too(tmp_path):
    # microsoft/BitBLAS: bitblas/ beside benchmark/, testing/ and tutorials/ (not benchmarks/, tests/, examples/), and
    # integration/ (its adapters into other frameworks); tools/ stays a user, as scripts/ does
    (tmp_path / "kpkg").mkdir()
    (tmp_path / "kpkg" / "__init__.py").write_text("from causal_conv1d import causal_conv1d_fn\n")
    use = "from causal_conv1d import causal_conv1d_fn\ny = causal_conv1d_fn(x, w)\n"
    (tmp_path / "causal_conv1d").mkdir()
    (tmp_path / "causal_conv1d" / "__init__.py").write_text("")
    for folder in ("benchmark", "testing", "tutorials", "demo", "integration", "tools"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{folder}_conv.py").write_text(use)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    for folder in ("benchmark", "testing", "tutorials", "demo", "integration"):
        assert _about(result, f"{folder}_conv.py", "causal_conv1d") == []
    assert _about(result, "tools_conv.py", "causal_conv1d") == [("NPU501", 1), ("NPU507", 2)]


def test_a_package_dir_layout_names_the_package_like_src_does(tmp_path):
    # `setup(package_dir={"": "python"}, packages=find_packages("python"))` beside python/eetq/ (with a stray
    # python/__init__.py): the checkout's examples/ exercise its own package as they do beside src/
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(package_dir={'': 'python'})\n")
    (tmp_path / "python" / "eetq").mkdir(parents=True)
    (tmp_path / "python" / "__init__.py").write_text("")
    (tmp_path / "python" / "eetq" / "__init__.py").write_text("")
    use = "from eetq.utils import eet_accelerator\neet_accelerator(model)\n"
    for folder in ("examples", "scripts"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{folder}_run.py").write_text(use)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "examples_run.py", "eetq") == []
    assert _about(result, "scripts_run.py", "eetq") == [("NPU501", 1), ("NPU507", 2)]  # a user, as beside src/


def test_a_vendored_checkouts_examples_and_docs_are_its_own_and_the_repositorys_code_uses_it(tmp_path):
    # openai/jukebox vendors NVIDIA apex as apex/ (its setup.py beside apex/apex/); ruling (L24): the copy's own
    # examples, tests and docs are not users; jukebox's own code importing apex is; scanned alone, the apex
    # checkout's examples are its own too (a checkout's examples/, label precedent sets 7, 15, 23), its docs users
    checkout = tmp_path / "apex"
    (checkout / "apex").mkdir(parents=True)
    (checkout / "apex" / "__init__.py").write_text("")
    (checkout / "setup.py").write_text("from setuptools import setup\nsetup(name='apex')\n")
    use = "from apex.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)\n"
    for folder in ("examples/imagenet", "tests/L1/common", "docs/source"):
        (checkout / folder).mkdir(parents=True)
        (checkout / folder / "main_amp.py").write_text(use)
    (tmp_path / "jukebox").mkdir()
    (tmp_path / "jukebox" / "ops.py").write_text(use)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    for folder in ("examples/imagenet", "tests/L1/common", "docs/source"):
        assert [f for f in result.findings if f.path == str(checkout / folder / "main_amp.py")
                and f.code in ("NPU501", "NPU507")] == []
    ours = sorted((f.code, f.line) for f in result.findings if f.path == str(tmp_path / "jukebox" / "ops.py")
                  and f.code in ("NPU501", "NPU507"))
    assert ours == [("NPU501", 1), ("NPU507", 2)]
    alone = scan([str(checkout)], use_cache=False, torch_npu_version=NEWEST)
    example = sorted((f.code, f.line) for f in alone.findings if f.path == str(checkout / "examples/imagenet/main_amp.py")
                     and f.code in ("NPU501", "NPU507"))
    assert example == []
    docs = sorted((f.code, f.line) for f in alone.findings if f.path == str(checkout / "docs/source/main_amp.py")
                  and f.code in ("NPU501", "NPU507"))
    assert docs == [("NPU501", 1), ("NPU507", 2)]


def test_test_and_benchmark_files_beside_the_package_are_its_own_and_other_scripts_use_it(tmp_path):
    # IST-DASLab/marlin: test.py and bench.py sit beside marlin/ at the checkout's root; gptq/llama2.py is a user
    (tmp_path / "marlin").mkdir()
    (tmp_path / "marlin" / "__init__.py").write_text("def mul(a, b):\n    return a\n")
    use = "import marlin\ny = marlin.mul(a, b)\n"
    for name in ("test.py", "bench.py", "test_layer.py", "llama2.py"):
        (tmp_path / name).write_text(use)
    # unlimblue/KNN_CUDA: setup.py beside knn_cuda/ reads `from knn_cuda import __version__` to build the package itself
    (tmp_path / "setup.py").write_text("from marlin import mul\nsetup(version=mul(1, 2))\n")
    (tmp_path / "gptq").mkdir()
    (tmp_path / "gptq" / "test.py").write_text(use)  # a test file of another folder: not beside the package
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    for own in ("test.py", "bench.py", "test_layer.py", "setup.py"):
        assert [f for f in result.findings if f.path == str(tmp_path / own) and f.code in ("NPU501", "NPU507")] == []
    assert _about(result, "llama2.py", "marlin") == [("NPU501", 1), ("NPU507", 2)]
    gptq_test = [(f.code, f.line) for f in result.findings if f.path == str(tmp_path / "gptq" / "test.py") and f.code in ("NPU501", "NPU507")]
    assert gptq_test == [("NPU501", 1), ("NPU507", 2)]


def test_the_else_of_an_npu_test_and_the_handler_of_a_torch_npu_import_are_not_reported(tmp_path):
    # Ruyi-Feng/TrTr @96d2353 (branch shengteng): adapter/device.py and pretrain/exp.py
    text = (
        "import torch\n"
        "try:\n"
        "    import torch_npu\n"
        "    backend_label = 'hccl'\n"
        "except ImportError:\n"
        "    torch_npu = None\n"
        "    backend_label = 'nccl'\n"  # line 7
        "def setup(rank):\n"
        "    if torch_npu is not None:\n"
        "        torch_npu.npu.set_device(rank)\n"
        "    else:\n"
        "        torch.cuda.set_device(rank)\n"  # line 12
        "    if torch_npu is None:\n"
        "        torch.cuda.synchronize()\n"  # line 14
        "    else:\n"
        "        torch.npu.synchronize()\n"
        "    if rank == 0:\n"
        "        pass\n"
        "    else:\n"
        "        torch.cuda.empty_cache()\n"  # line 20: no NPU test in that chain
        "try:\n"
        "    import apex\n"
        "except ImportError:\n"
        "    torch.cuda.set_device(0)\n"  # line 24: the try does not import torch_npu
    )
    lines = {line for line, _ in _codes(tmp_path, text)}
    assert not {7, 12, 14} & lines
    assert {20, 24} <= lines


def _vendored_rasterizer(tmp_path, build: bool):
    """mip-splatting's layout: the rasterizer package vendored under submodules/, its setup.py beside it."""
    checkout = tmp_path / "submodules" / "diff-gaussian-rasterization"
    pkg = checkout / "diff_gaussian_rasterization"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import torch\nfrom . import _C\n"
        "class GaussianRasterizer(torch.nn.Module):\n"
        "    def forward(self, x):\n        return _C.rasterize_gaussians(x)\n")
    if build:
        (checkout / "setup.py").write_text(
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(ext_modules=[CUDAExtension(name='diff_gaussian_rasterization._C',\n"
            "                                 sources=['rasterize_points.cu', 'ext.cpp'])])\n")
        (checkout / "rasterize_points.cu").write_text("__global__ void k(float* x) {}\n")
    (tmp_path / "render.py").write_text(
        "from diff_gaussian_rasterization import GaussianRasterizer\nr = GaussianRasterizer()\n")


def test_a_vendored_package_that_builds_its_kernels_here_is_the_repositorys_own_wrapper(tmp_path):
    _vendored_rasterizer(tmp_path, build=True)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the kernels are reported where the vendored package calls them ...
    assert sorted(f.line for f in result.findings if f.code == "NPU508" and Path(f.path).name == "__init__.py") == [2, 5]
    # ... and the repository's renderer calls its own wrapper: not a user of a third-party GPU-only package
    assert _about(result, "render.py", "diff_gaussian_rasterization") == []


def test_a_vendored_package_that_builds_nothing_here_stays_third_party(tmp_path):
    _vendored_rasterizer(tmp_path, build=False)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "render.py", "diff_gaussian_rasterization") == [("NPU501", 1), ("NPU507", 2)]


def test_a_re_export_of_a_vendored_package_that_builds_here_is_no_cuda_alias(tmp_path):
    """AllenXiangX/SnowflakeNet's shape: models/utils.py imports the repository's own vendored pointnet2_ops (built
    by its setup.py) and other files import the name from models.utils: the cross-file alias check (NPU510) takes
    the same own-package decision as the direct import (NPU501 / NPU507), so neither file is a user of it."""
    _vendored_rasterizer(tmp_path, build=True)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "utils.py").write_text("from diff_gaussian_rasterization import GaussianRasterizer\n")
    (tmp_path / "train.py").write_text("from models.utils import GaussianRasterizer\nr = GaussianRasterizer()\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    about = [(Path(f.path).name, f.code, f.line) for f in result.findings
             if f.code in ("NPU501", "NPU507", "NPU510") and "diff_gaussian_rasterization" in f.message]
    assert about == []


def test_a_notebook_installing_the_checkout_s_own_package_is_no_dependency_but_a_user_s_is(tmp_path):
    # Vahe1994/AQLM: notebooks run `!pip install aqlm[gpu]` beside inference_lib/src/aqlm/ (the repository installs
    # itself, label rule (R3)); the same line in another checkout is a GPU-only dependency (the `gpu` extra -> triton)
    import json

    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": ["!pip install aqlm[gpu]==1.1.7\n", "!pip install bitsandbytes\n"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    pkg = tmp_path / "own" / "inference_lib" / "src" / "aqlm"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (tmp_path / "own" / "notebooks").mkdir()
    (tmp_path / "own" / "notebooks" / "demo.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "demo.ipynb").write_text(json.dumps(notebook))
    for checkout, lines in (("own", [2]), ("user", [1, 2])):
        result = scan([str(tmp_path / checkout)], use_cache=False, torch_npu_version=NEWEST)
        assert sorted(f.line for f in result.findings if f.code == "NPU502") == lines, checkout


def test_a_vendored_checkouts_tests_and_trainer_report_no_gpu_only_dependency_but_its_build_does(tmp_path):
    # a repository vendoring a flash-attention-like checkout (setup.py + the package + csrc/ with CUDA sources and its
    # own setup.py, tests/ and an example trainer training/): ruling (L24), the copy's tests and trainer are the
    # upstream's own exercise of it, so what they import from another GPU-only package (apex) is no work item; the
    # package's own use of apex and the repository's own code still report it
    checkout = tmp_path / "examples" / "attn"
    (checkout / "flash_attn").mkdir(parents=True)
    (checkout / "flash_attn" / "__init__.py").write_text("")
    use = "from apex.transformer import parallel_state\nparallel_state.initialize_model_parallel(2)\n"
    (checkout / "flash_attn" / "fused.py").write_text(use)
    (checkout / "setup.py").write_text("from setuptools import setup\nsetup(name='flash_attn')\n")
    (checkout / "csrc" / "rotary").mkdir(parents=True)
    (checkout / "csrc" / "rotary" / "rotary.cu").write_text("__global__ void k(float* x) { x[0] = 1.f; }\n")
    (checkout / "csrc" / "rotary" / "helper.py").write_text(use)
    for folder in ("tests/modules", "training/src"):
        (checkout / folder).mkdir(parents=True)
        (checkout / folder / "test_parallel.py").write_text(use)
    (tmp_path / "train.py").write_text(use)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)

    def apex_lines(path):
        return sorted((f.code, f.line) for f in result.findings if f.path == str(path) and f.code in ("NPU501", "NPU507"))
    for folder in ("tests/modules", "training/src"):
        assert apex_lines(checkout / folder / "test_parallel.py") == []
    assert apex_lines(checkout / "flash_attn" / "fused.py") == [("NPU501", 1), ("NPU507", 2)]
    assert apex_lines(checkout / "csrc" / "rotary" / "helper.py") == [("NPU501", 1), ("NPU507", 2)]
    assert apex_lines(tmp_path / "train.py") == [("NPU501", 1), ("NPU507", 2)]


def test_a_checkout_whose_package_builds_a_differently_named_extension_is_its_own_scripts_wrapper(tmp_path):
    """turboderp/exllamav2's shape: the checkout of the catalogued `exllamav2` JIT-builds `exllamav2_ext` in
    exllamav2/ext.py; its root scripts and eval/ folder import `exllamav2`, the repository's own wrapper of the
    kernels it builds: reported in ext.py (NPU508), not as users of a third-party package. Without the build the
    same scripts stay users (the marlin test above)."""
    pkg = tmp_path / "exllamav2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from exllamav2.model import ExLlamaV2\n")
    (pkg / "model.py").write_text("from exllamav2.ext import exllamav2_ext as ext_c\n"
                                  "class ExLlamaV2:\n    def forward(self, x):\n        return ext_c.q_gemm(x)\n")
    (pkg / "ext.py").write_text(
        "from torch.utils.cpp_extension import load\n"
        "exllamav2_ext = load(name='exllamav2_ext', sources=['ext.cpp', 'q_gemm.cu'], verbose=False)\n")
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='exllamav2', packages=['exllamav2'])\n")
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "humaneval.py").write_text("from exllamav2 import ExLlamaV2\nm = ExLlamaV2()\n")
    (tmp_path / "model_diff.py").write_text("import exllamav2\nm = exllamav2.ExLlamaV2()\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [f.line for f in result.findings if f.code == "NPU508" and Path(f.path).name == "model.py"] == [1, 4]  # import, kernel call
    assert _about(result, "humaneval.py", "exllamav2") == []
    assert _about(result, "model_diff.py", "exllamav2") == []


def test_a_vendored_checkout_of_a_package_that_runs_on_the_npu_keeps_its_side_folders(tmp_path):
    # ruling (L24) is about GPU-only packages (label rule 36d-3): a vendored DeepSpeed-like checkout (`deepspeed` is
    # catalogued `partial` / `info`: it runs on an NPU) ships its op_builder/ and scripts as the repository's code, so
    # the CUDA build its op_builder/ defines stays reported, as it is where the checkout is the scan's root
    checkout = tmp_path / "third_party" / "DeepSpeed"
    (checkout / "deepspeed").mkdir(parents=True)
    (checkout / "deepspeed" / "__init__.py").write_text("")
    (checkout / "setup.py").write_text("from setuptools import setup\nsetup(name='deepspeed')\n")
    (checkout / "op_builder").mkdir()
    (checkout / "op_builder" / "__init__.py").write_text("")
    (checkout / "op_builder" / "builder.py").write_text(
        "from torch.utils.cpp_extension import CUDAExtension\n\n\ndef build(name, sources):\n"
        "    return CUDAExtension(name=name, sources=sources, extra_compile_args={'nvcc': ['-O3']})\n")
    (tmp_path / "other" / "pkg").mkdir(parents=True)
    (tmp_path / "other" / "pkg" / "__init__.py").write_text("")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert any(f.code == "NPU505" for f in result.findings if f.path == str(checkout / "op_builder" / "builder.py"))


def test_the_checkout_of_a_quantization_package_does_not_select_itself_but_a_user_does(tmp_path):
    # bitsandbytes' own benchmarks and examples load models with `load_in_4bit=True` / `BitsAndBytesConfig(...)`:
    # the option selects the package this checkout holds (bitsandbytes/ beside pyproject.toml), whose GPU-only parts
    # are reported where they are (label rule (R3), 46d-2). A project that only uses the package still selects it.
    (tmp_path / "bitsandbytes").mkdir()
    (tmp_path / "bitsandbytes" / "__init__.py").write_text("")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'bitsandbytes'\n")
    (tmp_path / "benchmarking").mkdir()
    (tmp_path / "benchmarking" / "bench.py").write_text(
        "from transformers import AutoModelForCausalLM, BitsAndBytesConfig\n"
        "q = BitsAndBytesConfig(load_in_4bit=True)\n"
        "m = AutoModelForCausalLM.from_pretrained('m', load_in_8bit=True)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [f.line for f in result.findings if f.code == "NPU503"] == []
    user = tmp_path.parent / "user"
    (user / "app").mkdir(parents=True)
    (user / "app" / "__init__.py").write_text("")
    (user / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (user / "app" / "load.py").write_text((tmp_path / "benchmarking" / "bench.py").read_text())
    result = scan([str(user)], use_cache=False, torch_npu_version=NEWEST)
    assert sorted(f.line for f in result.findings if f.code == "NPU503") == [1, 2, 3]


def _single_module_checkout(tmp_path):
    """A repository that IS a catalogued single-module package: `dcn_v2.py` at the checkout's root wraps the `_ext`
    extension its own setup.py builds; scripts and tests beside it import `dcn_v2` (written here in that shape)."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
        "setup(name='deform', ext_modules=[CUDAExtension('_ext', ['src/deform.cpp', 'src/cuda/deform_cuda.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "dcn_v2.py").write_text(
        "import torch\nimport _ext as _backend\n\n\n"
        "class DCN(torch.nn.Module):\n    def forward(self, x, offset, mask, weight):\n"
        "        return _backend.dcn_v2_forward(x, weight, offset, mask)\n")
    (tmp_path / "check_grad.py").write_text("import dcn_v2\nfrom dcn_v2 import DCN\nlayer = dcn_v2.DCN()\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_layer.py").write_text("from dcn_v2 import DCN\nlayer = DCN()\n")


def test_a_module_file_of_the_checkout_named_like_a_package_is_its_own_code(tmp_path):
    # label rulings (L81)/(L85)/(L93): importing the repository's own module is Python; its compiled calls stay
    _single_module_checkout(tmp_path)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "check_grad.py", "dcn_v2") == []
    assert _about(result, "test_layer.py", "dcn_v2") == []  # the checkout's tests/ beside the module
    assert sorted(f.line for f in result.findings if f.code == "NPU508" and Path(f.path).name == "dcn_v2.py") == [2, 7]


def test_a_module_file_inside_a_package_imported_by_name_does_not_hide_the_third_party_package(tmp_path):
    # `models/dcn_v2.py` in a package the scan imports as `models.net`: Python 3 resolves `from dcn_v2 import DCN`
    # in models/net.py through sys.path, to the installed package, not to the sibling module
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "dcn_v2.py").write_text("def offsets(x):\n    return x\n")
    (tmp_path / "models" / "net.py").write_text("from dcn_v2 import DCN\nlayer = DCN(64, 64, 3)\n")
    (tmp_path / "train.py").write_text("from models.net import layer\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert ("NPU501", 1) in _about(result, "net.py", "dcn_v2")


def test_a_test_script_beside_a_module_file_in_a_package_imports_that_module(tmp_path):
    # JonasSchult/Mask3D's utils/pointops2/functions/: test_*.py scripts beside pointops.py (the wrapper of the
    # pointops2_cuda the folder builds) in a package the scan imports by name (`utils.x`): a test script is run from its
    # folder, never imported as a package module, so `import pointops` is the file beside it (label note 63d); a
    # module of the package beside the same file (net.py) still imports the third-party package
    ops = tmp_path / "utils" / "ops"
    ops.mkdir(parents=True)
    (tmp_path / "utils" / "__init__.py").write_text("")
    (ops / "__init__.py").write_text("")
    (ops / "pointops.py").write_text("def knnquery(k, x):\n    return x\n")
    (ops / "test_knn.py").write_text("import torch\nimport pointops\nidx = pointops.knnquery(16, torch.rand(8, 3))\n")
    (ops / "net.py").write_text("import pointops\nidx = pointops.knnquery(16, None)\n")
    (tmp_path / "train.py").write_text("from utils.ops.net import idx\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "test_knn.py", "pointops") == []
    assert ("NPU501", 1) in _about(result, "net.py", "pointops")


def test_a_module_file_in_a_namespace_folder_of_a_package_does_not_hide_the_third_party_package(tmp_path):
    # Megatron's megatron/core/transformer/custom_layers/transformer_engine.py: the folder has no `__init__.py` (a
    # namespace subpackage of megatron.core.transformer, imported as `megatron.core....custom_layers.transformer_engine`),
    # and the file's own `import transformer_engine as te` is the third-party package (label set 40d)
    layers = tmp_path / "megatron" / "core" / "custom_layers"
    layers.mkdir(parents=True)
    (tmp_path / "megatron" / "__init__.py").write_text("")
    (tmp_path / "megatron" / "core" / "__init__.py").write_text("")
    (layers / "transformer_engine.py").write_text(
        "import transformer_engine as te\n\n\nclass TELinear(te.pytorch.Linear):\n    pass\n")
    (tmp_path / "megatron" / "core" / "mlp.py").write_text(
        "from megatron.core.custom_layers.transformer_engine import TELinear\n")
    (tmp_path / "pretrain.py").write_text("from megatron.core.mlp import TELinear\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert ("NPU501", 1) in _about(result, "transformer_engine.py", "transformer_engine")


def test_a_checkout_root_init_beside_its_pyproject_does_not_make_its_packages_script_folders(tmp_path):
    # hao-ai-lab/FastVideo: a ComfyUI node entry `__init__.py` at the checkout's root beside pyproject.toml; its
    # package `fastvideo/` is still imported by name, so `fastvideo/backends/flash_attn.py` (the repository's own
    # backend module) is no flash_attn, and its import of the real flash_attn stays reported (labels 61a/61b)
    (tmp_path / "__init__.py").write_text("NODE_CLASS_MAPPINGS = {}\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"fastvideo\"\ndependencies = [\"torch\"]\n")
    backends = tmp_path / "fastvideo" / "backends"
    backends.mkdir(parents=True)
    (tmp_path / "fastvideo" / "__init__.py").write_text("")
    (backends / "__init__.py").write_text("")
    (backends / "flash_attn.py").write_text(
        "from flash_attn import flash_attn_func\n\n\ndef attend(q, k, v):\n    return flash_attn_func(q, k, v)\n")
    (tmp_path / "generate.py").write_text("from fastvideo.backends.flash_attn import attend\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert ("NPU501", 1) in _about(result, "flash_attn.py", "flash_attn")
    # without the pyproject the root `__init__.py` is a package of its own, read as before
    (tmp_path / "pyproject.toml").unlink()
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "flash_attn.py", "flash_attn") == []


def test_a_namespace_folder_named_like_a_package_holds_the_repository_s_own_modules(tmp_path):
    # scomup/EasyGaussianSplatting: gsplat/ (no `__init__.py`) holds gau_io.py and sh_coef.py, imported as
    # `gsplat.gau_io` by the scripts at the checkout's root and by each other: the repository's own code, not
    # nerfstudio's gsplat (label set 64e); an import of a module the folder lacks is still the installed package
    (tmp_path / "gsplat").mkdir()
    (tmp_path / "gsplat" / "sh_coef.py").write_text("C0 = 0.28209479177387814\n")
    (tmp_path / "gsplat" / "gau_io.py").write_text("from gsplat.sh_coef import *\n")
    (tmp_path / "train.py").write_text("from gsplat.gau_io import *\nfrom gsplat.sh_coef import C0\n")
    (tmp_path / "render.py").write_text("from gsplat.rendering import rasterization\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert _about(result, "train.py", "gsplat") == []
    assert _about(result, "gau_io.py", "gsplat") == []
    assert ("NPU501", 1) in _about(result, "render.py", "gsplat")


def test_a_module_file_in_a_namespace_folder_imported_by_name_does_not_hide_the_package(tmp_path):
    # Zefan-Cai/KVCache-Factory: pyramidkv/ (no `__init__.py`) is imported as `pyramidkv.monkeypatch` from the root, so
    # its minference.py is `pyramidkv.minference`, and the `from minference.modules... import` in it is microsoft's
    # MInference (label set 64f), also where another file of the folder uses an extension the repository builds
    kv = tmp_path / "pyramidkv"
    kv.mkdir()
    (kv / "minference.py").write_text("from minference.modules.minference_forward import minference_prefill_forward\n")
    (kv / "monkeypatch.py").write_text("def replace(method):\n    if method == 'minference':\n"
                                       "        from .minference import minference_prefill_forward\n")
    (kv / "utils.py").write_text("from tiny_api_cuda import update_flatten_view\nupdate_flatten_view(1, 2)\n")
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "build.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
        "setup(name='tiny_api_cuda', ext_modules=[CUDAExtension('tiny_api_cuda', ['cuda_api.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "run.py").write_text("from pyramidkv.monkeypatch import replace\nreplace('minference')\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert ("NPU501", 1) in _about(result, "minference.py", "minference")
