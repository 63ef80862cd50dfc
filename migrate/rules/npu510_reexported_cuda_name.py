import ast

from migrate import body_skips, repo_index, tilelang_kernels
from migrate.findings import Category, Severity
from migrate.reexports import inside_triton_kernel
from migrate.rules._device_helpers import availability_probe, chain_tops, report_node, shadowed
from migrate.rules._text import is_prose
from migrate.rules.base import Invalid, Rule


class ReexportedCudaName(Rule):
    """Uses of a project name that stands for a CUDA-specific API defined in another module of the
    repository: an import or assignment alias of a `torch.cuda` or GPU-only package name
    (`utils.py: from torch.cuda.amp import autocast as amp_ctx`), a function whose every return
    builds a torch CUDA object (`def amp_ctx(on): return torch.cuda.amp.autocast(on)`; not wrappers
    with a fallback, not wrappers of GPU-only packages, whose bodies are reported), or an alias of a third-party
    callable whose device argument defaults to CUDA (yolov5's `from ultralytics.utils.torch_utils
    import autocast as smart_amp_autocast`: only calls without `device=` are reported). Other files
    call the CUDA API under the project's name, so the per-file rules do not see it; each use is
    reported with where the name is defined. Fix the definition (or pass the NPU device) and the
    uses follow. The names are recorded per file in the same pass as the analysis
    (migrate/reexports.py) and linked by the repository index. In its own file a wrapper is not
    reported at its uses (the per-file rules report its body); a single file reports direct calls
    of a CUDA-default callable that leave the device out. `@triton.jit` helpers and uses inside
    Triton kernels are left to NPU507. A star import carries such names too, and a module's plain
    import of a GPU-only package with them: with `import nvdiffrast.torch as dr` in utils.py,
    `from utils import *` in est.py and `from est import *` in run.py, each `dr.RasterizeCudaContext()`
    of est.py and run.py is reported (a name the reading scope binds itself is not; only the modules
    some file star-imports are read so; migrate/star_imports.py). An alias bound on the CUDA side of a test asked
    of a pluggable accelerator with an NPU implementation (`if get_accelerator().device_name() == 'cuda': from
    apex.normalization import MixedFusedRMSNorm as RMSNorm`, the `else` binding a torch one) stands for nothing
    to port (migrate/accelerator_tests.py). A module-level `@tilelang.jit` function is such a name too: each call of it
    in another file compiles the TileLang kernel (`kernel = flashattn(batch, heads, ...)`; migrate/tilelang_kernels.py).
    No use is reported inside a test whose body first skips without a GPU-only package (`pytest.importorskip("tilelang")`,
    also in a helper of the file it calls first): it runs on no NPU host (label ruling (L27); migrate/body_skips.py)."""

    CODE = "NPU510"
    NAME = "reexported-cuda-name"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.WARNING
    MESSAGE = "uses a project name that stands for a CUDA-specific API"
    TRIGGERS = ("ultralytics",)  # check() sees direct calls of CUDA-default callables; uses() runs in the link step
    VALID = [
        "import torch\ndef amp_ctx(on):\n    return torch.autocast('npu', enabled=on)\nwith amp_ctx(True): pass",
        "import torch\ndef free():\n    return torch.cuda.memory_allocated()\nprint(free())",  # a number, not a CUDA object
        "import torch\ndef amp_ctx(on):\n    return torch.cuda.amp.autocast(on)\nwith amp_ctx(True): pass",  # same file: NPU401 at the body
        "from ultralytics.utils.torch_utils import autocast as amp\ndef ctx(on):\n    return amp(on, device='npu')\nwith ctx(True): pass",
        "from ultralytics.utils.torch_utils import autocast\nwith autocast(True, 'npu'): pass",
        "def autocast(on, device='cuda'): pass\nwith autocast(True): pass",  # not the third-party one
    ]
    INVALID = [
        Invalid("from ultralytics.utils.torch_utils import autocast\nwith autocast(amp):\n    pass\n", count=1),
        Invalid(
            "from ultralytics.utils.torch_utils import autocast\ndef smart_amp(on):\n    return autocast(on)\n"
            "def train(amp):\n    with smart_amp(amp):\n        pass\n",
            count=1,
        ),
        Invalid("import ultralytics.utils.torch_utils as tu\nwith tu.autocast(enabled=True):\n    pass\n", count=1),
    ]

    def check(self, ctx):
        """Direct calls of a third-party callable whose device argument defaults to CUDA (in the
        file that imports it; other files' uses of a project alias of it come from `uses`)."""
        from migrate.reexports import CUDA_DEFAULT_DEVICE

        for call in ctx.nodes.get(ast.Call, ()):
            name = ctx.qualname(call.func)
            if name in CUDA_DEFAULT_DEVICE and not shadowed(ctx, call.func):
                definition = repo_index.Definition("export", name.rsplit(".", 1)[1], "", 0, False, name, "device")
                yield from self._report(ctx, call.func, definition)

    def uses(self, ctx, index: "repo_index.Index"):
        """Findings for every use in `ctx` of a CUDA-specific name another file of the scan exports."""
        from migrate.star_imports import bind_star_imports

        def known(full):
            return index.export_for(full) is not None

        relative = repo_index.bind_relative_imports(ctx, known)
        if bind_star_imports(ctx, known) or relative:  # names a star import carries (migrate/star_imports.py)
            repo_index.forget_resolved_names(ctx)
        skipped = body_skips.skipped_spans(ctx)
        for node, qual in chain_tops(ctx):
            definition = index.export_in(qual)
            if definition is None or definition.path == ctx.path:
                continue
            if not isinstance(getattr(node, "ctx", None), ast.Load) or availability_probe(ctx, node) or is_prose(ctx, node) \
                    or shadowed(ctx, node) or inside_triton_kernel(ctx, node) \
                    or (skipped and body_skips.inside(skipped, node.lineno)):
                continue
            yield from self._report(ctx, node, definition)

    def _report(self, ctx, node, definition):
        if definition is None:
            return
        target = report_node(ctx, node)
        call = (len(target.args), frozenset(k.arg for k in target.keywords if k.arg)) if isinstance(target, ast.Call) else None
        found = self.site_finding(ctx, target, call, definition)
        if found is not None:
            yield found

    def site_finding(self, ctx, target, call, definition):
        """The finding at `target` (a node, or the span of one where linking reads the file's facts,
        migrate/linking.py) for a use of `definition`; `call`: (positional count, keyword names) where the
        use is called, else None. None where a CUDA-default callable gets its device here."""
        if definition.mode == "device":
            from migrate.reexports import CUDA_DEFAULT_DEVICE

            index, keyword, _ = CUDA_DEFAULT_DEVICE[definition.why]
            if call is None or call[0] > index or keyword in call[1]:
                return None  # passes the device itself, or is not called here
            what = f"an alias of `{definition.why}`, whose `{keyword}` defaults to \"cuda\": pass {keyword}=\"npu\""
        elif definition.mode == tilelang_kernels.EXPORT_MODE:
            if call is None:
                return None  # an import or a reference: only a call compiles the kernel
            what = "a `@tilelang.jit` TileLang kernel: this call compiles it for a CUDA GPU (port the kernel)"
        elif definition.mode == "function":
            what = f"a function returning `{definition.why}`: make it return the NPU counterpart"
        else:
            what = f"an alias of the CUDA-specific `{definition.why}`: point it at the NPU counterpart"
        where = f" (defined at {definition.path}:{definition.line})" if definition.path else ""
        message = f"`{definition.name}`{where} is {what}"
        return self.finding(ctx, target, message, severity=Severity.ERROR if definition.cuda else Severity.WARNING,
                            package=definition.why.split(".", 1)[0])


def _inside_own_definition(ctx, node) -> bool:
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.name == node.id:
            return True
        parent = ctx.parent(parent)
    return False
