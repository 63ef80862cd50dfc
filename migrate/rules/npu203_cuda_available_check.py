import ast

from migrate.findings import Category, Severity
from migrate.rules._device_helpers import rename_edits, uses
from migrate.rules._text import only_displayed
from migrate.rules.base import Invalid, Rule, Valid

_NAME = "torch.cuda.is_available"
# Probes of whether torch was built with CUDA: False on an Ascend host, whose torch is a CPU build (with
# torch_npu and transfer_to_npu too: tests/test_smoke.py::ascend_host_facts reads `is_built()` False on the
# emulated host). `torch.has_cuda` is the deprecated spelling of `torch.backends.cuda.is_built` (torch 2.14.1
# torch/__init__.py `_deprecated_attrs`: "has_cuda": torch.backends.cuda.is_built, which returns
# torch._C._has_cuda, torch/backends/cuda/__init__.py). No torch_npu counterpart of a build probe: report only.
_BUILD_PROBES = {"torch.has_cuda": False, "torch.backends.cuda.is_built": True}  # name -> called
_BUILD_MESSAGE = (
    "`{name}` (torch built with CUDA) is False on an Ascend host, whose torch is a CPU build: a gate on it "
    "silently takes the non-CUDA path (a setup.py builds no CUDA extension); gate the NPU path on "
    "`torch.npu.is_available()` (torch_npu) instead"
)


class CudaAvailableCheck(Rule):
    """`torch.cuda.is_available()` is False on an Ascend host, so scripts that gate on it fall back
    to the CPU and train hundreds of times slower without an error. torch_npu provides
    `torch.npu.is_available()`; the rewrite changes just `cuda` (alias-aware; a `from torch.cuda
    import is_available` is rewritten in the import when all of its names have counterparts). A
    value that is only printed or logged (`print(torch.cuda.is_available())`) gates nothing and is
    not reported. The build probes `torch.has_cuda` and `torch.backends.cuda.is_built()` are reported
    too (no rewrite: torch_npu has no build probe), e.g. inplace_abn's setup.py
    `if torch.has_cuda or getenv("IABN_FORCE_CUDA") == "1":` choosing the CUDA extension. Not inside a top-level function of a setup.py that nothing in
    the file calls (a dead build helper never runs; label rule 32c-2)."""

    CODE = "NPU203"
    NAME = "cuda-available-check"
    CATEGORY = Category.IDENTITY
    SEVERITY = Severity.WARNING
    FIXABLE = True
    MESSAGE = "`torch.cuda.is_available()` is False on an NPU host; use `torch.npu.is_available()`"
    TRIGGERS = ("is_available", "has_cuda", "is_built")
    VALID = [
        Valid("import torch\nfrom setuptools import setup\ndef make_cuda_ext(name):\n    if torch.cuda.is_available():\n"
              "        return name\nsetup(name='p', ext_modules=[])\n", filename="setup.py"),
        "import torch\nif torch.npu.is_available(): pass",
        "import torch\nok = torch.backends.cudnn.is_available()",
        "import torch\nok = torch.backends.mps.is_available()",
        "if cuda.is_available(): pass",  # not imported from torch
        "import torch\nprint(torch.cuda.is_available())",  # only shown (GroundingDINO docker_test.py)
        "import torch\nprint(torch.has_cuda, torch.backends.cuda.is_built())",  # only shown
    ]
    INVALID = [
        Invalid(
            'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"',
            expected='import torch\ndevice = "cuda" if torch.npu.is_available() else "cpu"',
            count=1,
        ),
        Invalid("import torch as th\nuse_gpu = th.cuda.is_available()", expected="import torch as th\nuse_gpu = th.npu.is_available()"),
        Invalid(
            "from torch.cuda import is_available\nok = is_available()",
            expected="from torch.npu import is_available\nok = is_available()",
        ),
        Invalid("from torch import cuda\nok = cuda.is_available()", count=1),
        Invalid("import torch\nif torch.has_cuda or force:\n    ext = 'cuda'", count=1),  # inplace_abn setup.py
        Invalid("import torch as th\nbuilt = th.backends.cuda.is_built()", count=1),
    ]

    def check(self, ctx):
        from migrate.rules.npu505_cuda_extension import _uncalled_function_lines

        dead = _uncalled_function_lines(ctx)  # a setup.py helper nothing calls never runs (label rule 32c-2)
        for finding in self._check(ctx):
            if finding.line not in dead:
                yield finding

    def _check(self, ctx):
        kb = ctx.kb
        target = "torch.npu.is_available"
        exists = kb is not None and kb.has_api(target)
        for node, qual in uses(ctx, _NAME):
            if qual != _NAME or only_displayed(ctx, node):
                continue
            edits = (rename_edits(ctx, node, qual, target) or []) if exists else []
            yield self.finding(ctx, node, edits=edits, replacement=target if exists else None)
        for name, called in _BUILD_PROBES.items():
            for node, qual in uses(ctx, name):
                if qual != name or only_displayed(ctx, node):
                    continue
                parent = ctx.parent(node)
                if called != (isinstance(parent, ast.Call) and parent.func is node):
                    continue
                yield self.finding(ctx, node, _BUILD_MESSAGE.format(name=name + ("()" if called else "")))
