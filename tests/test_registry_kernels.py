"""Label ruling (L50) for an op registry: Triton kernels reached only through ops registered in a registry that also
holds NPU implementations are the CUDA side (migrate/registry_kernels.py). The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_KERNELS = (
    "import torch\nimport triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\ndef _rms_kernel(x, w, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i) * tl.load(w + i))\n\n\n"
    "def rms_norm_triton(x, w):\n    _rms_kernel[(1,)](x, w, x.numel(), BLOCK=1024)\n    return x\n\n\n"
    "@triton.jit\ndef _rope_kernel(q, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(q + i, tl.load(q + i))\n\n\n"
    "def rope_triton(q):\n    _rope_kernel[(1,)](q, q.numel(), BLOCK=1024)\n    return q\n")

_REPO = {
    "proj/__init__.py": "",
    "proj/registry.py": (
        "class Register(dict):\n    def __call__(self, key):\n        def add(cls):\n            self[key] = cls\n"
        "            return cls\n        return add\n\n\nRMS_REGISTER = Register()\nPLATFORM_RMS_REGISTER = Register()\n"
        "RMS_REGISTER.merge(PLATFORM_RMS_REGISTER)\n"),
    "proj/ops/__init__.py": "",
    "proj/ops/triton_ops.py": _KERNELS,
    "proj/ops/norm.py": (
        "import torch\n\nfrom proj.registry import RMS_REGISTER\n\nfrom .triton_ops import rms_norm_triton\n\n\n"
        "@RMS_REGISTER('torch')\nclass TorchRMS:\n    def apply(self, x, w):\n        return x * w\n\n\n"
        "@RMS_REGISTER('triton')\nclass TritonRMS:\n    def apply(self, x, w):\n        return rms_norm_triton(x, w)\n"),
    "proj/platform/__init__.py": "",
    "proj/platform/ascend_npu/__init__.py": "",
    "proj/platform/ascend_npu/norm.py": (
        "import torch_npu\n\nfrom proj.registry import PLATFORM_RMS_REGISTER\n\n\n"
        "@PLATFORM_RMS_REGISTER('npu_rms_norm')\nclass NpuRMS:\n    def apply(self, x, w):\n"
        "        return torch_npu.npu_rms_norm(x, w)[0]\n"),
    "proj/model.py": (
        "from proj.ops.triton_ops import rope_triton\nfrom proj.registry import RMS_REGISTER\n\n\n"
        "class Block:\n    def __init__(self, config):\n        self.norm = RMS_REGISTER[config['rms_norm_type']]()\n\n"
        "    def forward(self, q, w):\n        return rope_triton(self.norm.apply(q, w))\n"),
}

_TRITON_USES = [6, 13, 17, 24]  # two decorators, two launches


def test_kernels_behind_an_npu_sided_registry_go_and_a_direct_call_stays(tmp_path):
    write_files(tmp_path, _REPO)
    result = scan([str(tmp_path)])
    # the RMS kernel is reached only through the registered 'triton' op; the rope kernel is called by the model
    assert finding_lines(result, "NPU507", "triton_ops.py") == [17, 24]
    assert finding_lines(result, "NPU501", "triton_ops.py") == [2, 3]  # the module loads on every platform


def test_without_an_npu_registration_every_kernel_stays(tmp_path):
    repo = {k: v for k, v in _REPO.items() if "ascend_npu" not in k}
    write_files(tmp_path, repo)
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "triton_ops.py") == _TRITON_USES


def test_a_config_switch_binding_is_selected(tmp_path):
    repo = dict(_REPO)
    repo["proj/model.py"] = (
        "from proj.ops.triton_ops import rope_triton\n\n\ndef rope_torch(q):\n    return q\n\n\n"
        "class Block:\n    def __init__(self, config):\n"
        "        self.rope = rope_triton if config.get('rope_type') == 'triton' else rope_torch\n\n"
        "    def forward(self, q):\n        return self.rope(q)\n")
    write_files(tmp_path, repo)
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "triton_ops.py") == []


def test_a_warm_rerun_gives_the_cold_result(tmp_path):
    """The registry hint is a per-file fact cached with the file's result (`registry_kernels.hint_facts`): a re-run
    from the cache drops the same kernels as the scan that analysed every file."""
    write_files(tmp_path / "repo", _REPO)
    cold = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")
    warm = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")
    assert warm.cached_files == len(_REPO) and cold.cached_files == 0
    assert finding_lines(warm, "NPU507", "triton_ops.py") == finding_lines(cold, "NPU507", "triton_ops.py") == [17, 24]
    assert warm.findings == cold.findings


def test_no_registry_decorator_reads_no_file_again(tmp_path, monkeypatch):
    """Where no Python file records the hint, the pass reads no text again (a warm re-run's files come from the cache)."""
    from migrate import engine
    from migrate.registry_kernels import HINT_FACT, hint_facts

    assert hint_facts("@RMS_REGISTER('triton')\nclass A: ...\n") == (HINT_FACT,)
    assert hint_facts("@triton.jit\ndef k(): ...\n") == ()
    repo = {k: v for k, v in _REPO.items() if k in ("proj/__init__.py", "proj/ops/__init__.py", "proj/ops/triton_ops.py")}
    write_files(tmp_path / "repo", repo)
    cold = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")

    def unexpected(*args, **kwargs):
        raise AssertionError("read again")

    monkeypatch.setattr(engine, "text_again", unexpected)
    warm = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")
    assert finding_lines(warm, "NPU507", "triton_ops.py") == finding_lines(cold, "NPU507", "triton_ops.py") == _TRITON_USES


def test_only_the_hinted_files_are_read_when_none_is_an_npu_file(tmp_path, monkeypatch):
    """A registry decorator outside any NPU file (no NPU folder, no torch_npu) decides nothing: the pass reads the
    files holding the hint, and no other file, before giving up (torch's package: 2,352 files not read again)."""
    import sys

    from migrate import engine

    repo = {k: v for k, v in _REPO.items() if "ascend_npu" not in k}
    write_files(tmp_path / "repo", repo)
    read = []  # the files this pass reads again (other passes read some too)
    text_again = engine.text_again

    def recorded(path, *args):
        if sys._getframe(1).f_code.co_filename.endswith("registry_kernels.py"):
            read.append(path)
        return text_again(path, *args)

    monkeypatch.setattr(engine, "text_again", recorded)
    assert finding_lines(scan([str(tmp_path / "repo")]), "NPU507", "triton_ops.py") == _TRITON_USES
    assert sorted(p.replace("\\", "/").rsplit("/repo/", 1)[1] for p in read) == ["proj/ops/norm.py"]


def test_an_npu_file_by_its_torch_npu_import_alone_is_found(tmp_path):
    """An NPU registration outside any folder named for the NPU is found by its `import torch_npu` (read again)."""
    repo = {k: v for k, v in _REPO.items() if "ascend_npu" not in k}
    repo["proj/platform/ascendnorm.py"] = _REPO["proj/platform/ascend_npu/norm.py"]
    write_files(tmp_path, repo)
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "triton_ops.py") == [17, 24]
