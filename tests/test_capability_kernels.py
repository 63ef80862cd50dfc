"""Label rulings (L90)/45e-2 and (L103) for Triton: kernels reached only through a two-way selection on the CUDA
device's capability or name, with plain PyTorch on the other way, are the CUDA side (migrate/capability_kernels.py).
The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_KERNELS = (
    "import torch\nimport triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\ndef _gemm_kernel(q, k, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(q + i, tl.load(k + i))\n\n\n"
    "def gemm(q, k):\n    _gemm_kernel[(1,)](q, k, q.numel(), BLOCK=1024)\n    return q\n\n\n"
    "@triton.jit\ndef _sum_kernel(x, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i))\n\n\n"
    "def block_sum(x):\n    _sum_kernel[(1,)](x, x.numel(), BLOCK=1024)\n    return x\n\n\n"
    "@triton.jit\ndef _unused_kernel(x, n, BLOCK: tl.constexpr):\n"
    "    i = tl.arange(0, BLOCK)\n    tl.store(x + i, tl.load(x + i))\n\n\n"
    "def unused(x):\n    _unused_kernel[(1,)](x, x.numel(), BLOCK=1024)\n    return x\n")

_TRITON_USES = [6, 13, 17, 24, 28, 35]  # three decorators, three launches

_ESTIMATE = (
    "import torch\n\nfrom proj.kernels import gemm, block_sum, unused\n\n\n"
    "def estimate(q, k, use_triton=True):\n"
    "    if use_triton and '100' not in torch.cuda.get_device_properties(torch.cuda.current_device()).name:\n"
    "        use_triton = False\n"
    "    if use_triton:\n        attn = gemm(q, k)\n        out = block_sum(attn)\n"
    "    else:\n        out = torch.matmul(q, k.transpose(-1, -2)).sum(-1)\n    return out\n")


def _repo(estimate=_ESTIMATE, **extra):
    return {"proj/__init__.py": "", "proj/kernels.py": _KERNELS, "proj/estimate.py": estimate, **extra}


def test_kernels_behind_a_device_name_selection_go(tmp_path):
    write_files(tmp_path, _repo())
    result = scan([str(tmp_path)])
    # gemm and block_sum are called only on the branch the device-name test picks; `unused` is imported with them
    assert finding_lines(result, "NPU507", "kernels.py") == []
    assert finding_lines(result, "NPU501", "kernels.py") == [2, 3]  # the module loads on every platform


def test_a_capability_flag_and_the_test_itself_select(tmp_path):
    estimate = (
        "import torch\n\nfrom proj.kernels import gemm, block_sum\n\n\n"
        "def estimate(q, k):\n    fast = torch.cuda.get_device_capability()[0] >= 9\n"
        "    if not fast:\n        return torch.matmul(q, k)\n    else:\n        return gemm(q, k)\n\n\n"
        "def total(x):\n    if torch.cuda.get_device_capability() >= (8, 0):\n        return block_sum(x)\n"
        "    else:\n        return x.sum()\n")
    write_files(tmp_path, _repo(estimate))
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "kernels.py") == [28, 35]  # `unused`: imported nowhere


def test_a_user_switch_or_a_one_way_test_keeps_the_kernels(tmp_path):
    # (L74): `use_triton` that no capability test sets is a user switch; an `if` with no else has no other way
    estimate = (
        "import torch\n\nfrom proj.kernels import gemm, block_sum\n\n\n"
        "def estimate(q, k, use_triton=True):\n"
        "    if use_triton:\n        return gemm(q, k)\n    else:\n        return torch.matmul(q, k)\n\n\n"
        "def total(x):\n    if torch.cuda.get_device_capability()[0] >= 8:\n        x = block_sum(x)\n    return x\n")
    write_files(tmp_path, _repo(estimate))
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "kernels.py") == _TRITON_USES


def test_a_direct_call_elsewhere_keeps_the_kernel(tmp_path):
    other = "from proj.kernels import gemm\n\n\ndef run(q, k):\n    return gemm(q, k)\n"
    write_files(tmp_path, _repo(**{"proj/other.py": other}))
    assert finding_lines(scan([str(tmp_path)]), "NPU507", "kernels.py") == [6, 13]


def test_a_warm_rerun_gives_the_cold_result(tmp_path, monkeypatch):
    from migrate import capability_kernels

    write_files(tmp_path / "repo", _repo())
    cold = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")
    assert finding_lines(cold, "NPU507", "kernels.py") == []  # the selection held on the cold run

    def parsed_again(*_args):
        raise AssertionError("a warm re-run summarised a file again")

    monkeypatch.setattr(capability_kernels, "_summary", parsed_again)  # each file's summary is kept under its content
    warm = scan([str(tmp_path / "repo")], cache_dir=tmp_path / "cache")
    assert warm.cached_files == 3 and cold.cached_files == 0
    assert warm.findings == cold.findings
