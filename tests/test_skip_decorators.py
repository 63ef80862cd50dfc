"""A test that skips without a GPU-only package (migrate/skip_decorators.py): its imports and uses of that package
are an optional path, not work to port; those of another package, and the same code undecorated, stay."""

from __future__ import annotations

from migrate.engine import scan
from migrate.knowledge import newest_version

# huggingface/trl d708ec27 tests/test_peft_models.py's shape (set 23): `@require_bitsandbytes` over a test importing
# bitsandbytes.nn.Linear8bitLt and loading with `load_in_8bit=True`
TESTS = '''import unittest
import pytest
from .testing_utils import require_bitsandbytes, is_bitsandbytes_available, require_peft


class T(unittest.TestCase):
    @require_bitsandbytes
    def test_bnb(self):
        from bitsandbytes.nn import Linear8bitLt
        m = load(load_in_8bit=True)
        assert m.__class__ == Linear8bitLt

    @pytest.mark.skipif(not is_bitsandbytes_available(), reason="no bnb")
    def test_skipif(self):
        import bitsandbytes
        opt = bitsandbytes.optim.AdamW8bit

    @unittest.skipUnless(is_bitsandbytes_available(), "no bnb")
    def test_skip_unless(self):
        import bitsandbytes
        opt = bitsandbytes.optim.AdamW8bit

    @require_peft
    def test_other_package(self):
        import bitsandbytes
        opt = bitsandbytes.optim.AdamW8bit

    def test_plain(self):
        import bitsandbytes
        opt = bitsandbytes.optim.AdamW8bit
'''


def test_a_test_skipped_without_the_package_drops_its_gpu_only_findings(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_bnb.py").write_text(TESTS)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=newest_version())
    lines = sorted({f.line for f in result.findings if f.code in ("NPU501", "NPU503", "NPU507")})
    assert lines == [25, 26, 29, 30]  # the `@require_peft` test and the undecorated one only


def test_a_quantization_config_under_a_skip_for_its_kernel_package_is_dropped(tmp_path):
    # NPU503's GPTQConfig needs auto_gptq or gptqmodel (transformers' GptqHfQuantizer.required_packages): a test that
    # skips without gptqmodel (`pytest.mark.skipif(not is_gptqmodel_available())` behind a project helper) drops its
    # import and call; a test that skips without another package keeps them
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gptq.py").write_text(
        "from .utils import require_gptqmodel, require_peft\n\n\n"
        "@require_gptqmodel\n"
        "def test_gptq():\n"
        "    from transformers import GPTQConfig\n"
        "    cfg = GPTQConfig(bits=4)\n\n\n"
        "@require_peft\n"
        "def test_other():\n"
        "    from transformers import GPTQConfig\n"
        "    cfg = GPTQConfig(bits=4)\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=newest_version())
    assert sorted({f.line for f in result.findings if f.code == "NPU503"}) == [12, 13]


def test_a_skipif_whose_or_asks_for_the_package_drops_its_findings(tmp_path):
    # diffusers' pipeline tests: `@unittest.skipIf(torch_device != "cuda" or not is_xformers_available(), ...)` skips
    # wherever xformers is missing, whatever the other operand; an `and` in a skipif does not (it may run without it)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pipe.py").write_text(
        "import unittest\nfrom diffusers import StableDiffusionPipeline\n"
        "from diffusers.utils.import_utils import is_xformers_available\n\n\n"
        "class T(unittest.TestCase):\n"
        '    @unittest.skipIf(torch_device != "cuda" or not is_xformers_available(), reason="xformers")\n'
        "    def test_xformers(self):\n"
        "        pipe = StableDiffusionPipeline()\n"
        "        pipe.enable_xformers_memory_efficient_attention()\n\n"
        '    @unittest.skipIf(torch_device != "cuda" and not is_xformers_available(), reason="xformers")\n'
        "    def test_other(self):\n"
        "        pipe = StableDiffusionPipeline()\n"
        "        pipe.enable_xformers_memory_efficient_attention()\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=newest_version())
    assert sorted({f.line for f in result.findings if f.code == "NPU503"}) == [15]


def test_a_skipif_on_a_find_spec_flag_drops_the_test_and_its_helpers(tmp_path):
    # an RL parameter-server test: `_has_vllm = importlib.util.find_spec("vllm") is not None` at the top, the test class
    # under `skipif(not _has_ray or not _has_vllm)`, and a helper actor importing vllm that only that class builds; a
    # function that a plain test also calls keeps its import
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_ps.py").write_text(
        "import importlib\nimport pytest\n\n"
        '_has_ray = importlib.util.find_spec("ray") is not None\n'
        '_has_vllm = importlib.util.find_spec("vllm") is not None\n\n\n'
        "class Collector:\n"
        "    def __init__(self):\n"
        "        from vllm import LLM\n"
        "        self.llm = LLM('gpt2')\n\n\n"
        "def shared():\n"
        "    from vllm.utils import get_ip\n"
        "    return get_ip()\n\n\n"
        '@pytest.mark.skipif(not _has_ray or not _has_vllm, reason="requires ray and vllm")\n'
        "class TestPS:\n"
        "    def test_sync(self):\n"
        "        from vllm.utils import get_open_port\n"
        "        return Collector(), get_open_port(), shared()\n\n\n"
        "def test_plain():\n"
        "    assert shared()\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=newest_version())
    # shared()'s import stays (its get_ip call is vLLM pure_api: no finding of its own)
    assert sorted({f.line for f in result.findings if f.code in ("NPU501", "NPU507")}) == [15]


def test_a_skipif_on_a_lazily_imported_module_being_none_drops_the_test(tmp_path):
    # a serving framework's vLLM test: `vllm = lazy_import("vllm")` (xoscar's helper: None without the package), the
    # test under `skipif(vllm is None)`; one under a skip that asks something else keeps its imports, and so does one
    # whose lazy module has a placeholder (a stand-in object, never None)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_exec.py").write_text(
        "import sys\nimport pytest\nfrom xoscar.utils import lazy_import\n\n"
        'vllm = lazy_import("vllm")\n'
        'vllm_ph = lazy_import("vllm", placeholder=True)\n\n\n'
        '@pytest.mark.skipif(sys.platform != "linux", reason="linux only")\n'
        '@pytest.mark.skipif(vllm is None, reason="vllm need to be installed")\n'
        "async def test_executor():\n"
        "    from vllm.engine.arg_utils import AsyncEngineArgs\n"
        "    return AsyncEngineArgs\n\n\n"
        '@pytest.mark.skipif(sys.platform != "linux", reason="linux only")\n'
        "def test_other():\n"
        "    from vllm.engine.arg_utils import AsyncEngineArgs\n"
        "    return AsyncEngineArgs\n\n\n"
        '@pytest.mark.skipif(vllm_ph is None, reason="never")\n'
        "def test_placeholder():\n"
        "    from vllm.engine.arg_utils import AsyncEngineArgs\n"
        "    return AsyncEngineArgs\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=newest_version())
    assert sorted({f.line for f in result.findings if f.code == "NPU501"}) == [18, 24]
