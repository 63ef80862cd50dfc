"""knowledge/third_party.toml `quip` / `quiptools_cuda`: QuIP#, a CUDA-kernel package vendored as a git submodule."""

from migrate.engine import scan

LORA = '''
from peft.tuners.lora import LoraLayer
from quip.lib.linear.quantized_linear import QuipQuantLinear


class QuipQuantLTLinear(QuipQuantLinear, LoraLayer):
    def __init__(self, adapter_name, in_features, out_features, **kwargs):
        QuipQuantLinear.__init__(self, in_features, out_features, **kwargs)
'''


def test_quip_imports_base_classes_and_init_calls(tmp_path):
    (tmp_path / "lora.py").write_text(LORA)
    (tmp_path / "modules.py").write_text("import quiptools_cuda\nfrom quip.lib import codebook\n")
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    found = sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for r in result.files for f in r.findings)
    assert found == [("lora.py", 3, "NPU501"), ("lora.py", 6, "NPU507"), ("lora.py", 8, "NPU507"),
                     ("modules.py", 1, "NPU501"), ("modules.py", 2, "NPU501")]
