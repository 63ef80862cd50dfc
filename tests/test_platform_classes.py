"""Label rulings (L50)/(L56): a platform class hierarchy with an NPU member makes the modules that only its other
members name (and wrappers only those modules import) no findings (migrate/platform_classes.py). The snippets are
written for these tests, in the shape of vLLM-style `platforms/` packages."""

from migrate.engine import scan
from tests.helpers import write_files

_SLA = (
    "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _compress(x, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i) * 2)\n\n\n"
    "class SLABackend:\n    @staticmethod\n    def forward(x):\n        _compress[(1,)](x, x.numel(), BLOCK=1024)\n"
    "        return x\n")

_REPO = {
    "proj/__init__.py": "",
    "proj/platforms/__init__.py": "",
    "proj/platforms/interface.py": (
        "class Platform:\n    @classmethod\n    def get_attn_backend_cls(cls, selected):\n        return ''\n"),
    "proj/platforms/cuda.py": (
        "from proj.platforms.interface import Platform\n\n\nclass CudaPlatformBase(Platform):\n    @classmethod\n"
        "    def get_attn_backend_cls(cls, selected):\n        if selected == 'SLA':\n"
        "            return 'proj.attention.backends.sla.SLABackend'\n        if selected == 'TORCH_SDPA':\n"
        "            return 'proj.attention.backends.sdpa.SDPABackend'\n"
        "        return 'proj.attention.backends.flash.FlashBackend'\n"),
    "proj/platforms/npu.py": (
        "from proj.platforms.interface import Platform\n\n\nclass NPUPlatform(Platform):\n    @classmethod\n"
        "    def get_attn_backend_cls(cls, selected):\n        return 'proj.attention.backends.sdpa.SDPABackend'\n"),
    "proj/attention/__init__.py": "",
    "proj/attention/selector.py": (
        "from proj.platforms import current_platform\nfrom proj.utils import resolve_obj_by_qualname\n\n\n"
        "def get_attn_backend(selected):\n"
        "    return resolve_obj_by_qualname(current_platform.get_attn_backend_cls(selected))\n"),
    "proj/attention/backends/__init__.py": "",
    "proj/attention/backends/sdpa.py": (
        "import torch\n\n\nclass SDPABackend:\n    @staticmethod\n    def forward(q, k, v):\n"
        "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"),
    "proj/attention/backends/sla.py": _SLA,
    "proj/attention/backends/flash.py": (
        "class FlashBackend:\n    @staticmethod\n    def forward(q, k, v):\n"
        "        from proj.attention.utils.no_pad import flash_no_pad\n        return flash_no_pad(q, k, v)\n"),
    "proj/attention/utils/__init__.py": "",
    "proj/attention/utils/no_pad.py": (
        "from flash_attn_interface import flash_attn_varlen_func\n\n\ndef flash_no_pad(q, k, v):\n"
        "    return flash_attn_varlen_func(q, k, v)\n"),
    "tests/test_no_pad.py": "from proj.attention.utils.no_pad import flash_no_pad\n",  # a kernel's own test: no product path
}


def _found(root):
    return sorted((f.path.replace("\\", "/").split(str(root).replace("\\", "/"))[-1].lstrip("/"), f.code)
                  for f in scan([str(root)], use_cache=False).findings)


def test_modules_only_the_cuda_member_names_are_no_findings(tmp_path):
    write_files(tmp_path, _REPO)
    paths = {p for p, _ in _found(tmp_path)}
    assert not paths & {"proj/attention/backends/sla.py", "proj/attention/backends/flash.py",
                        "proj/attention/utils/no_pad.py"}, paths


def test_a_module_imported_without_the_choice_stays(tmp_path):
    extra = {"proj/pipeline.py": "from proj.attention.backends.sla import SLABackend\n\n\n"
                                 "def run(x):\n    return SLABackend.forward(x)\n"}
    write_files(tmp_path, {**_REPO, **extra})
    paths = {p for p, _ in _found(tmp_path)}
    assert "proj/attention/backends/sla.py" in paths, paths
    assert "proj/attention/utils/no_pad.py" not in paths, paths


def test_a_hierarchy_without_an_npu_member_is_no_npu_route(tmp_path):
    write_files(tmp_path, {k: v for k, v in _REPO.items() if k != "proj/platforms/npu.py"})
    paths = {p for p, _ in _found(tmp_path)}
    assert {"proj/attention/backends/sla.py", "proj/attention/utils/no_pad.py"} <= paths, paths


def test_a_wrapper_of_another_distribution_stays(tmp_path):
    # the kernels ship as their own package (`kernels/pyproject.toml`): installed and imported apart from the choice
    files = {**_REPO, "pyproject.toml": "[project]\nname = 'proj'\n",
             "kernels/pyproject.toml": "[project]\nname = 'proj-kernels'\n",
             "kernels/python/proj_kernels/__init__.py": "",
             "kernels/python/proj_kernels/no_pad.py": _REPO["proj/attention/utils/no_pad.py"]}
    files["proj/attention/backends/flash.py"] = files["proj/attention/backends/flash.py"].replace(
        "proj.attention.utils.no_pad", "proj_kernels.no_pad")
    del files["proj/attention/utils/no_pad.py"], files["tests/test_no_pad.py"]
    write_files(tmp_path, files)
    paths = {p for p, _ in _found(tmp_path)}
    assert "kernels/python/proj_kernels/no_pad.py" in paths, paths
    assert "proj/attention/backends/flash.py" not in paths, paths
