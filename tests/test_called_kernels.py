"""Compiled ops and classes reached under a project name of their own (migrate/called_kernels.py), custom classes of a
registered namespace (`torch.classes.<ns>`), and tests pytest de-collects where the extension does not load
(migrate/decollected_tests.py). Small multi-file repositories written here, shaped like the layouts read in set 24
(a lazy op accessor in a `_wrapper` module, class aliases in a `types` module, a conftest that de-collects its
folder behind an import probe), not copies of them.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

_EXT_CPP = (
    "#include <torch/library.h>\n"
    "struct Proj : torch::CustomClassHolder { Proj(double f) {} };\n"
    "TORCH_LIBRARY(myext, m) {\n"
    "  m.def(\"rasterize(Tensor x) -> Tensor\");\n"
    "  m.class_<Proj>(\"Proj\").def(torch::init<double>());\n"
    "}\n"
    "TORCH_LIBRARY_IMPL(myext, CUDA, m) { }\n"
)

REPO = {
    "pkg/__init__.py": "",
    "pkg/csrc/ext.cu": _EXT_CPP,
    "pkg/_wrapper.py": (
        "import torch\n"
        "def _lazy_op(name):\n"
        "    def call(*args):\n"
        "        return getattr(torch.ops.myext, name)(*args)\n"
        "    return call\n"
        "def rasterize(x):\n"
        "    return _lazy_op('rasterize')(x)\n"
    ),
    "pkg/render.py": (
        "from ._wrapper import _lazy_op\n"
        "def render(x):\n"
        "    y = _lazy_op('rasterize')(\n"
        "        x)\n"
        "    return y\n"
    ),
    "pkg/types.py": (
        "import torch\n"
        "Proj = torch.classes.myext.Proj\n"
        "Wide = (\n"
        "    torch.classes.myext.Proj\n"
        ")\n"
    ),
    "pkg/camera.py": (
        "from .types import Proj\n"
        "def make(f):\n"
        "    if isinstance(f, Proj):\n"
        "        return f\n"
        "    return Proj(f)\n"
    ),
}


def test_an_op_accessor_is_reported_at_each_call_not_at_its_import(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "_wrapper.py") == [4, 7]  # the lookup in the accessor, and its call in the file
    assert finding_lines(result, "NPU508", "render.py") == [3]  # the callee's line of a multi-line call; the import is no line


def test_a_class_alias_of_torch_classes_is_reported_where_written_and_at_each_construction(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "types.py") == [2, 4]  # where `torch.classes...` is written
    assert finding_lines(result, "NPU508", "camera.py") == [5]  # `Proj(f)`; not the import, not `isinstance(f, Proj)`


def test_a_plain_getattr_by_literal_is_no_accessor(tmp_path):
    files = dict(REPO)
    files["pkg/_wrapper.py"] = "import torch\ndef version(name):\n    return getattr(torch.ops.myext, 'version')\n"
    files["pkg/render.py"] = "from ._wrapper import version\nv = version('x')\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "render.py") == []


DECOLLECTED = {
    "tests/conftest.py": "",
    "tests/kernels/conftest.py": (
        "import importlib\n"
        "from tests.helpers import ignore_unless\n"
        "collect_ignore_glob = ignore_unless(probe=lambda: importlib.import_module('pkg.types'))\n"
    ),
    "tests/kernels/test_proj.py": "import torch\ndef test_proj():\n    p = torch.classes.myext.Proj(1.0)\n",
    "tests/test_device_only.py": "import torch\ndef test_proj():\n    p = torch.classes.myext.Proj(1.0)\n",
}


def test_tests_a_conftest_decollects_behind_an_import_probe_are_no_work_item(tmp_path):
    write_files(tmp_path, {**REPO, **DECOLLECTED})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "kernels/test_proj.py") == []
    assert finding_lines(result, "NPU508", "tests/test_device_only.py") == [3]  # not under the de-collecting conftest


def test_a_fixed_collect_ignore_list_decollects_nothing(tmp_path):
    files = {**REPO, **DECOLLECTED}
    files["tests/kernels/conftest.py"] = "collect_ignore = ['test_old.py']\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "kernels/test_proj.py") == [3]


def test_a_test_module_skipping_itself_when_the_extension_name_is_none_is_no_work_item(tmp_path):
    files = dict(REPO)
    files["pkg/_backend.py"] = "try:\n    from pkg import _cext as _C\nexcept ImportError:\n    _C = None\n"
    files["setup.py"] = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                         "setup(ext_modules=[CUDAExtension('pkg._cext', ['pkg/csrc/ext.cu'])])\n")
    files["tests/test_skipped.py"] = ("import pytest\nfrom pkg._backend import _C\nif _C is None:\n"
                                      "    pytest.skip('no extension', allow_module_level=True)\ndef test_v():\n    _C.version()\n")
    files["tests/test_run.py"] = "from pkg._backend import _C\ndef test_v():\n    _C.version()\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "tests/test_skipped.py") == []
    # `from pkg import _cext as _C` re-exports the compiled module under the `as` name (kernel_values.module_aliases)
    assert finding_lines(result, "NPU508", "tests/test_run.py") == [1, 3]


def test_a_simple_namespace_holding_build_parameters_is_no_build(tmp_path):
    write_files(tmp_path, {"pkg/build.py": (
        "from types import SimpleNamespace\nimport torch.utils.cpp_extension as jit\n"
        "def params():\n    flags = ['-O3']\n"
        "    return SimpleNamespace(name='m', sources=['k.cu'], extra_cuda_cflags=flags)\n"
        "def build():\n    p = params()\n"
        "    return jit.load(name=p.name, sources=p.sources, extra_cuda_cflags=p.extra_cuda_cflags)\n")})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    builds = sorted(f.line for f in result.findings if f.code == "NPU505" and "JIT build" in f.message)
    assert builds == []  # the holder (line 5) is no build; the jit.load (line 8) is reported as an nvcc flags build line
    assert 8 in finding_lines(result, "NPU505", "build.py")


def test_an_always_skipped_test_is_no_work_item(tmp_path):
    files = dict(REPO)
    files["tests/test_proj.py"] = (
        "import pytest\nimport torch\n"
        "@pytest.mark.skip(reason='needs the experimental build')\n"
        "def test_skipped():\n    import flash_attn\n    p = torch.classes.myext.Proj(1.0)\n"
        "@pytest.mark.skipif(not torch.cuda.is_available(), reason='CUDA')\n"
        "def test_device_only():\n    import flash_attn\n    p = torch.classes.myext.Proj(1.0)\n"
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "tests/test_proj.py") == [10]  # a device gate is no skip without the extension
    assert finding_lines(result, "NPU501", "tests/test_proj.py") == [9]


def test_callable_of_an_op_is_a_probe_not_a_use(tmp_path):
    files = dict(REPO)
    files["tests/test_ops.py"] = (
        "import torch\n"
        "def test_op():\n    assert callable(torch.ops.myext.rasterize)\n    torch.ops.myext.rasterize(torch.ones(1))\n"
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "tests/test_ops.py") == [4]


CPP_ONLY_CUDA_BUILD = {
    "pkg/__init__.py": "",
    "pkg/scene/__init__.py": "",
    "pkg/scene/build.py": (
        "import os\nimport torch\nimport torch.utils.cpp_extension as jit\nfrom types import SimpleNamespace\n"
        "def params():\n"
        "    cpu = set(jit.include_paths('cpu'))\n"
        "    includes = [p for p in jit.include_paths('cuda') if p not in cpu]\n"
        "    if torch.version.hip:\n        libs = ['c10_hip', 'torch_hip']\n"
        "    else:\n        libs = ['c10_cuda', 'torch_cuda']\n"
        "    ldflags = [os.path.join(jit.TORCH_LIB_PATH, f'lib{lib}.so') for lib in libs]\n"
        "    return SimpleNamespace(name='scene_ext', sources=['ext.cpp'], includes=includes, ldflags=ldflags)\n"
        "def build_scene():\n"
        "    p = params()\n"
        "    return jit.load(name=p.name, sources=p.sources,\n"
        "                    extra_include_paths=p.includes, extra_ldflags=p.ldflags)\n"
    ),
    "pkg/scene/ops.py": "from .build import build_scene\n_EXT = build_scene()\ndef pack(x):\n    return _EXT.pack(x)\n",
    "pkg/cpu/build.py": (
        "import torch.utils.cpp_extension as jit\n"
        "def build_cpu():\n    return jit.load(name='cpu_ext', sources=['ext.cpp'], extra_include_paths=jit.include_paths('cpu'))\n"
    ),
}


def test_a_cpp_only_jit_build_with_cuda_headers_and_libraries_is_a_cuda_build(tmp_path):
    write_files(tmp_path, CPP_ONLY_CUDA_BUILD)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the CUDA headers and torch's CUDA libraries are the build's CUDA lines (not the hip ones, not the load call)
    assert finding_lines(result, "NPU505", "scene/build.py") == [7, 11]
    assert finding_lines(result, "NPU508", "scene/ops.py") == [2, 4]
    assert finding_lines(result, "NPU505", "cpu/build.py") == []


def test_a_class_alias_imported_in_a_parenthesised_relative_import_is_followed(tmp_path):
    files = dict(REPO)
    files["pkg/models/__init__.py"] = ""
    files["pkg/models/cameras/__init__.py"] = ""
    files["pkg/models/cameras/model.py"] = (
        "from ...types import (\n    Proj,  # the compiled class\n    Wide,\n)\ndef make(f):\n    return Proj(f)\n")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "cameras/model.py") == [6]


def test_calls_through_a_name_bound_to_a_class_accessor_result_are_reported(tmp_path):
    files = dict(REPO)
    files["pkg/params.py"] = (
        "import torch\n"
        "def _lazy_cls(name):\n    return getattr(torch.classes.myext, name)\n"
        "class Params:\n    _cuda_cls = None\n"
        "    @classmethod\n    def _ensure(cls):\n        if cls._cuda_cls is None:\n"
        "            cls._cuda_cls = _lazy_cls('Proj')\n"          # 9
        "            cls.MAX = cls._cuda_cls.get_max()\n"           # 10
        "    def __new__(cls):\n        cls._ensure()\n"
        "        return cls._cuda_cls()\n"                           # 13
        "def make(f):\n    ProjCUDA = _lazy_cls('Proj')\n"          # 15
        "    return ProjCUDA.create(f)\n"                           # 16
        "def other(ProjCUDA):\n    return ProjCUDA(1.0)\n"          # another function's parameter
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "pkg/params.py") == [3, 9, 10, 13, 15, 16]


def test_a_call_through_a_local_alias_of_an_op_is_reported(tmp_path):
    files = {
        "setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                     "setup(ext_modules=[CUDAExtension('pkg.backend', ['pkg/k.cu'])])\n"),
        "pkg/__init__.py": "",
        "pkg/k.cu": "__global__ void k() {}\n",
        "pkg/ops.py": (
            "import pkg.backend\n"
            "def run(x, subm):\n"
            "    if subm:\n        func = pkg.backend.build_subm\n"      # 4
            "    else:\n        func = pkg.backend.build_down\n"        # 6
            "    out = func(\n        x)\n"                               # 7
            "    return out\n"
        ),
    }
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the bindings (4, 6) only name the ops; the call through the name runs them (label ruling (L52))
    assert finding_lines(result, "NPU508", "pkg/ops.py") == [1, 7]


LAZY_ALIASES = {
    "pkg/__init__.py": "",
    "pkg/csrc/ext.cu": "__global__ void k() {}\n",
    "pkg/ops/__init__.py": (
        "def _lazy(name):\n"
        "    def call(*args):\n"
        "        from ._build import _C\n"
        "        return getattr(_C, name)(*args)\n"
        "    return call\n"
        "blur = _lazy('blur')\n"
        "sharpen = _lazy(\n"
        "    'sharpen')\n"
        "def both(x):\n"
        "    y = blur(x)\n"
        "    return sharpen(y)\n"
    ),
    "pkg/ops/_build.py": (
        "from torch.utils.cpp_extension import load\n"
        "_C = load(name='pkg_ops', sources=['pkg/csrc/ext.cu'])\n"
    ),
    "pkg/filters.py": "import pkg.ops as _K\ndef run(x):\n    y = _K.blur(x)\n    return _K.sharpen(y)\n",
    "pkg/named.py": "from pkg.ops import blur\ndef run(x):\n    return blur(x)\n",
    "pkg/probe.py": "import pkg.ops as _K\nNAMES = ['blur']\n",
}


def test_a_lazy_op_alias_is_reported_at_its_calls_not_at_its_binding(tmp_path):
    write_files(tmp_path, LAZY_ALIASES)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the accessor's import and lookup, the calls in the file; not the bindings `blur = _lazy('blur')` (L46)
    assert finding_lines(result, "NPU508", "ops/__init__.py") == [3, 4, 10, 11]
    # the package stands for the compiled module: its import, each call through it
    assert finding_lines(result, "NPU508", "filters.py") == [1, 3, 4]
    assert finding_lines(result, "NPU508", "named.py") == [3]  # a name imported from it: its call only
    assert finding_lines(result, "NPU508", "probe.py") == []  # imported, never called through


def test_an_accessor_looking_the_op_up_when_called_keeps_its_binding(tmp_path):
    files = dict(LAZY_ALIASES)
    files["pkg/ops/__init__.py"] = (
        "def _lazy(name):\n"
        "    from ._build import _C\n"
        "    return getattr(_C, name)\n"
        "blur = _lazy('blur')\n"
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "ops/__init__.py") == [2, 3, 4]  # the binding loads the extension


def test_a_test_module_marked_skipped_whole_is_no_work_item_unless_it_runs_as_a_script(tmp_path):
    # label ruling (L27), note 58a (modelscope/twinkle tests/transformers/test_sequence_parallel_and_cp.py): a module-level
    # `pytestmark = pytest.mark.skip(...)` skips every test of the module on every host; a module that also runs as a
    # script (`if __name__ == "__main__":`) runs there unskipped
    body = ("import pytest\n"
            "pytestmark = pytest.mark.skip(reason='heavy, run manually')\n"
            "def build(attn_implementation='flash_attention_2'):\n    import flash_attn\n    return flash_attn\n"
            "def test_build():\n    build()\n")
    write_files(tmp_path, {"tests/test_heavy.py": body,
                           "tests/test_listed.py": body.replace("pytestmark = pytest.mark.skip(", "pytestmark = [pytest.mark.skip(")
                           .replace("manually')", "manually'), pytest.mark.slow]"),
                           "tests/test_script.py": body + "if __name__ == '__main__':\n    build()\n"})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    for name in ("tests/test_heavy.py", "tests/test_listed.py"):
        assert finding_lines(result, "NPU501", name) == [] and finding_lines(result, "NPU503", name) == []
    assert finding_lines(result, "NPU501", "tests/test_script.py") == [4]
    assert finding_lines(result, "NPU503", "tests/test_script.py") == [3]
