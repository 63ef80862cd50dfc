"""A package the repository checks with a raising requirement check under an option (`if args.use_unsloth:
check_version("unsloth", mandatory=True)`) makes that package's imports and uses inside functions of other modules an
optional path (migrate/requirement_checks.py, label ruling (L34)). The fixture is a small repository written here,
shaped like trainers that check their extras in the argument parser."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

REPO = {
    "pkg/parser.py": "def check_extras(args):\n    if args.use_unsloth:\n        check_version('unsloth', mandatory=True)\n"
                     "    if args.use_liger:\n        check_version('liger-kernel>=0.5', mandatory=True)\n"
                     "    check_version('flash-attn', mandatory=True)\n",  # unconditional: not an option's check
    "pkg/fast.py": "def load(name):\n    from unsloth import FastLanguageModel\n"
                   "    model, _ = FastLanguageModel.from_pretrained(name)\n    return model\n",
    "pkg/kernels.py": "def patch(model):\n    from liger_kernel.transformers import apply_liger_kernel_to_llama\n"
                      "    apply_liger_kernel_to_llama(model)\n",
    "pkg/toplevel.py": "import unsloth\n",  # runs at import, whatever the option: stays
    "pkg/attn.py": "def attn(q, k, v):\n    from flash_attn import flash_attn_func\n    return flash_attn_func(q, k, v)\n",
}


def test_a_package_checked_under_an_option_is_optional_inside_functions_elsewhere(tmp_path: Path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "pkg/fast.py") == []
    assert finding_lines(result, "NPU507", "pkg/fast.py") == []
    assert finding_lines(result, "NPU501", "pkg/kernels.py") == []
    # module level: the import runs whatever the option says
    assert finding_lines(result, "NPU501", "pkg/toplevel.py") == [1]
    # a check under no option is not a feature's check: the package stays required where it is used
    assert finding_lines(result, "NPU501", "pkg/attn.py") == [2]


AVAILABILITY_REPO = {
    # an argument class asserting its extra under the option that turns it on (label ruling (L34))
    "pkg/args.py": "class TrainArgs:\n    def init_extras(self):\n        if self.use_liger_kernel:\n"
                   "            assert is_liger_available(), 'pip install liger-kernel'\n"
                   "        if self.optim == 'adamw_8bit':\n            assert is_bnb_available(), 'pip install bitsandbytes'\n",
    # a library raising inside the feature it implements: a guard of that function only
    "pkg/fp8.py": "def prepare(model, backend):\n    if backend == 'te':\n        if not is_transformer_engine_available():\n"
                  "            raise ImportError('pip install transformer-engine')\n"
                  "        import transformer_engine.pytorch as te\n        return te.Linear(4, 4)\n",
    "bench/te.py": "def run():\n    import transformer_engine.pytorch as te\n    return te.Linear(4, 4)\n",
    "pkg/patch.py": "def patch(model):\n    from liger_kernel.transformers import apply_liger_kernel_to_llama\n"
                    "    apply_liger_kernel_to_llama(model)\n",
    "pkg/optim.py": "def make(params):\n    import bitsandbytes as bnb\n    return bnb.optim.AdamW8bit(params)\n",
    # a check opening a function with no option around it guards that function only
    "pkg/fast.py": "def load_fast(args):\n    assert is_unsloth_available(), 'pip install unsloth'\n"
                   "    from unsloth import FastLanguageModel\n    return FastLanguageModel.from_pretrained(args.model)\n",
    "pkg/cli.py": "def init(args):\n    if args.backend == 'unsloth':\n        import unsloth\n",
}


def test_a_raising_availability_check_under_an_option_is_optional_inside_functions_elsewhere(tmp_path: Path):
    write_files(tmp_path, AVAILABILITY_REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "pkg/patch.py") == []  # `is_liger_available` -> liger_kernel (catalogued alias)
    assert finding_lines(result, "NPU501", "pkg/optim.py") == []
    assert finding_lines(result, "NPU507", "pkg/optim.py") == []
    assert finding_lines(result, "NPU501", "pkg/fast.py") == []  # after the assert in its own function (NPU501's early exit)
    assert finding_lines(result, "NPU507", "pkg/fast.py") == []
    assert finding_lines(result, "NPU501", "pkg/cli.py") == [3]  # the assert in load_fast guards no other module
    assert finding_lines(result, "NPU501", "pkg/fp8.py") == []  # after the raise in its own function
    assert finding_lines(result, "NPU501", "bench/te.py") == [2]  # another module's import stays


CHECK_FUNCTION_REPO = {
    # the project's own check function: it tries the import and stops the program without the package
    "moe/sparse_utils.py": "import sys\n\ntry:\n    import stk\nexcept ImportError:\n    pass\n\n\n"
                           "def sparse_mm(x, w, topo):\n    return stk.ops.sdd(x, w, topo)\n\n\n"
                           "def check_stk_installed():\n    try:\n        import stk  # noqa\n"
                           "    except ModuleNotFoundError:\n        print('stk not found')\n        sys.exit()\n",
    # called under the option that selects the sparse MoE, in the launcher
    "launch.py": "from moe.sparse_utils import check_stk_installed\n\n\ndef check_config(cfg):\n"
                 "    if cfg.moe_type == 'sparse':\n        check_stk_installed()\n",
    # a module whose check function no one calls under an option: its uses stay
    "other/dense_utils.py": "import sys\nimport megablocks.ops as ops\n\n\ndef gather(x, idx):\n    return ops.gather(x, idx)\n\n\n"
                            "def check_megablocks_installed():\n    try:\n        import megablocks\n"
                            "    except ImportError:\n        sys.exit(1)\n",
    # a run-time check that raises (not a launcher's exit): the feature's uses stay (set 30d's labels)
    "attn/sparse.py": "def ensure_xformers_available():\n    try:\n        import xformers\n"
                      "    except Exception as exc:\n        raise RuntimeError('need xformers') from exc\n\n\n"
                      "def attend(q, k, v):\n    import xformers.ops as xops\n    return xops.memory_efficient_attention(q, k, v)\n\n\n"
                      "def build(cfg):\n    if cfg.sparse:\n        ensure_xformers_available()\n",
}


def test_a_project_check_function_called_under_an_option_makes_the_package_optional(tmp_path: Path):
    write_files(tmp_path, CHECK_FUNCTION_REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    # the uses inside functions, and the module-level import attempt that cannot stop the module loading
    assert finding_lines(result, "NPU507", "moe/sparse_utils.py") == []
    assert finding_lines(result, "NPU501", "moe/sparse_utils.py") == []
    # never called: no check of the feature
    assert 2 in finding_lines(result, "NPU501", "other/dense_utils.py")
    assert finding_lines(result, "NPU507", "other/dense_utils.py") == [6]
    assert finding_lines(result, "NPU507", "attn/sparse.py") == [10]
