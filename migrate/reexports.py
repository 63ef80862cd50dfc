"""Project names that stand for a CUDA-specific API (NPU510), recorded per file for the repository
index (migrate/repo_index.py) in the same pass as the analysis.

A module-level name is *exported as CUDA-specific* when it is
- an import or assignment alias of a `torch.cuda` name or of a GPU-only package's name
  (`from torch.cuda.amp import autocast as amp_ctx`, `Adam = apex.optimizers.FusedAdam`);
- a function every `return` of which builds a torch CUDA object (`def amp_ctx(on): return
  torch.cuda.amp.autocast(on)`, `return torch.autocast("cuda", ...)`, `return torch.cuda.Stream()`);
  not a wrapper with a fallback return, not a wrapper of a GPU-only package's function (its body
  is reported by NPU507; axolotl's `dequantize`, timm's `fast_layer_norm`), not `@triton.jit`
  helpers, whose uses sit in kernels reported once at their decorator;
- a module-level `@tilelang.jit` function (mode "tilelang-jit"): a call of it in another file compiles the TileLang
  kernel (`from tilelang_flash_decoding import flashattn`, `kernel = flashattn(batch, heads, ...)`), as a call in its
  own file does (NPU507, migrate/tilelang_kernels.py); only calls are uses;
- an alias of a third-party callable whose device argument defaults to CUDA (`from
  ultralytics.utils.torch_utils import autocast as smart_amp_autocast`, yolov5): only calls that
  leave the device out use CUDA.
Other files that import the name use the CUDA API under another spelling; NPU510 reports each use
with where the name is defined. Facts are derived from the file's own syntax, so the cached facts
change exactly when the defining file changes (the link step's cache key includes them).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from migrate import accelerator_tests, tilelang_kernels

# third-party callables whose device argument defaults to "cuda": qualified name ->
# (positional index of the device argument, its keyword, source)
CUDA_DEFAULT_DEVICE = {
    "ultralytics.utils.torch_utils.autocast": (
        1, "device",
        "ultralytics/ultralytics ultralytics/utils/torch_utils.py: `def autocast(enabled: bool, device: str = \"cuda\")` "
        "returns torch.amp.autocast(device, enabled=enabled)",
    ),
}

# torch.cuda names that a function may return: objects and context managers whose users are CUDA-bound
_RETURNED_TORCH_CUDA = ("torch.cuda.amp.", "torch.cuda.Stream", "torch.cuda.Event", "torch.cuda.graph",
                        "torch.cuda.CUDAGraph", "torch.cuda.stream", "torch.cuda.device")
_AUTOCAST = ("torch.autocast", "torch.amp.autocast")


@dataclass(frozen=True)
class Export:
    name: str  # the module-level name other files import
    line: int
    error: bool  # severity of the use: error for GPU-only packages marked so, else warning
    why: str  # what it stands for, e.g. "torch.cuda.amp.autocast"
    mode: str  # "alias", "function" or "device" (a CUDA-default device argument)


def _gpu_only(qual: str) -> tuple[str, bool] | None:
    from migrate import knowledge
    from migrate.rules.npu507_gpu_only_use import runs_as_written  # rules import this module

    table = knowledge.third_party()
    parts = qual.split(".")
    for end in range(len(parts), 0, -1):
        key = ".".join(parts[:end])
        entry = table.get(key)
        if entry is not None:
            if entry.status in ("works", "partial") or entry.severity == "info":
                return None  # as NPU507: uses of packages that run in part are not reported
            if runs_as_written(qual, key, table):
                return None  # as NPU507: `from vllm import LLM` re-exported (label ruling (L44)), a plain helper ((L54))
            return entry.name, entry.severity == "error"
    return None


def alias_target(qual: str | None) -> tuple[str, bool, str] | None:
    """(what, error, mode) when a name bound to `qual` stands for a CUDA-specific API."""
    if not qual:
        return None
    if qual in CUDA_DEFAULT_DEVICE:
        return qual, False, "device"
    if qual.startswith("torch.cuda.") or qual == "torch.cuda":
        return qual, False, "alias"
    hit = _gpu_only(qual)
    if hit is not None:
        return qual, hit[1], "alias"
    return None


def _returned_target(ctx, value: ast.AST) -> tuple[str, bool] | None:
    call = value
    while isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call) \
            and ctx.qualname(call.func) is None:
        call = call.func.value  # `make(...).cuda()` is not a returned API; `x(...).y()` reads the inner call
    if not isinstance(call, ast.Call):
        return None
    qual = ctx.qualname(call.func)
    if not qual:
        return None
    if qual.startswith(_RETURNED_TORCH_CUDA) or qual in _RETURNED_TORCH_CUDA:
        return qual, False
    if qual in _AUTOCAST:
        device = call.args[0] if call.args else ctx.keyword(call, "device_type")
        if isinstance(device, ast.Constant) and isinstance(device.value, str) and device.value.startswith("cuda"):
            return f'{qual}("cuda")', False
        return None
    if qual in CUDA_DEFAULT_DEVICE:
        index, keyword, _ = CUDA_DEFAULT_DEVICE[qual]
        if len(call.args) <= index and ctx.keyword(call, keyword) is None:
            return f"{qual} (device defaults to cuda)", False
        return None
    return None  # a wrapper of a GPU-only package's function: its body is reported (NPU507), not its callers


# what makes a function a Triton kernel: `triton.jit`, `triton.autotune`, `triton.heuristics`, also by their
# module paths (`triton.runtime.jit.jit`, `triton.runtime.autotuner.autotune`); Triton's host-side decorators
# (`triton.testing.perf_report`, a benchmark around a plain Python function) make none
_KERNEL_DECORATOR_NAMES = frozenset({"jit", "autotune", "heuristics"})


def triton_kernel_decorator(name: str | None) -> bool:
    """`name` (a decorator's resolved dotted name) turns the function into a Triton kernel."""
    return bool(name) and (name == "triton" or (name.startswith("triton.") and name.rsplit(".", 1)[1] in _KERNEL_DECORATOR_NAMES))


def triton_kernel(ctx, function) -> bool:
    """`@triton.jit` (autotune, heuristics) functions: their uses are inside other kernels, reported
    once at the kernel's decorator (NPU507)."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if triton_kernel_decorator(ctx.qualname(target)):
            return True
    return False


def inside_triton_kernel(ctx, node) -> bool:
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and triton_kernel(ctx, parent):
            return True
        parent = ctx.parent(parent)
    return False


def _module_statements(body):
    """Module-level statements, looking inside `if` / `try` / `with` blocks (guarded imports)."""
    for statement in body:
        if isinstance(statement, (ast.If, ast.Try, ast.With)) or type(statement).__name__ == "TryStar":
            yield from _module_statements(statement.body)
            for handler in getattr(statement, "handlers", ()):
                yield from _module_statements(handler.body)
            yield from _module_statements(getattr(statement, "orelse", ()))
            yield from _module_statements(getattr(statement, "finalbody", ()))
        else:
            yield statement


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _returns_by_function(ctx) -> dict[int, list[ast.Return]]:
    """id(function) -> the `return <value>` statements of its own body (not of a nested def, class or
    lambda), last in the source first; from the context's Return nodes, not a walk per function."""
    out: dict[int, list[ast.Return]] = {}
    for node in ctx.nodes.get(ast.Return, ()):
        if node.value is None:
            continue
        scope = ctx.parent(node)
        while scope is not None and not isinstance(scope, _SCOPES):
            scope = ctx.parent(scope)
        if scope is not None:
            out.setdefault(id(scope), []).append(node)
    for returns in out.values():
        returns.sort(key=lambda r: (r.lineno, r.col_offset), reverse=True)
    return out


def module_exports(ctx) -> list[Export]:
    from migrate.rules.npu501_gpu_only_import import fallback_guarded_names  # rules import this module

    out: list[Export] = []
    optional: frozenset[str] | None = None
    cuda_side: set[int] | None = None  # the CUDA side of a pluggable accelerator's test (migrate/accelerator_tests.py)
    returns: dict[int, list[ast.Return]] | None = None
    for statement in _module_statements(ctx.tree.body):
        if isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
            for alias in statement.names:
                hit = alias_target(f"{statement.module}.{alias.name}")
                if hit is not None and alias.name != "*":
                    if optional is None:
                        optional = fallback_guarded_names(ctx)
                    if (alias.asname or alias.name) in optional:
                        continue  # `try: from mamba_ssm... import RMSNorm except ImportError: RMSNorm = None`
                    if cuda_side is None:
                        cuda_side = accelerator_tests.cuda_side_lines(ctx.tree, ctx.source)
                    if statement.lineno in cuda_side:
                        continue  # `if get_accelerator().device_name() == 'cuda': from apex... import X as RMSNorm`
                    out.append(Export(alias.asname or alias.name, getattr(alias, "lineno", statement.lineno), hit[1], hit[0], hit[2]))
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, (ast.Name, ast.Attribute)):
            hit = alias_target(ctx.qualname(statement.value))
            if hit is not None:
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        out.append(Export(target.id, statement.lineno, hit[1], hit[0], hit[2]))
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and tilelang_kernels.jit_function(ctx, statement):
            hit = _gpu_only(tilelang_kernels.COMPILE)  # a `@tilelang.jit` kernel: another file's call compiles it
            if hit is not None:
                out.append(Export(statement.name, statement.lineno, hit[1], "tilelang.jit", tilelang_kernels.EXPORT_MODE))
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and not triton_kernel(ctx, statement):
            if returns is None:
                returns = _returns_by_function(ctx)
            hits = []
            for ret in returns.get(id(statement), ()):
                hits.append(_returned_target(ctx, ret.value))
                if hits[-1] is None:
                    break
            if hits and all(hit is not None for hit in hits):  # no other way out (no fallback)
                out.append(Export(statement.name, statement.lineno, hits[0][1], hits[0][0], "function"))
    return out


def wants_exports(text: str, searched: dict[str, bool] | None = None) -> bool:
    """Cheap pre-filter: a file can export a CUDA-specific name only if it mentions CUDA, a GPU-only
    package or a CUDA-default callable's package. `searched`: what the rules' trigger search already
    found of `text` (hint -> whether it holds it; `engine._applying`), not searched again."""
    if "cuda" in text:
        return True
    searched = searched or {}
    for hint in _minimal_hints():
        hit = searched.get(hint)
        if hit is None:
            hit = hint in text
        if hit:
            return True
    return False


@functools.lru_cache(maxsize=1)
def _minimal_hints() -> tuple[str, ...]:
    """The hints holding no other hint (`apex` for `apex_C` too): a text holds some hint exactly when it holds one of these."""
    hints = _hints()
    return tuple(h for h in hints if not any(o != h and o in h for o in hints))


@functools.lru_cache(maxsize=1)
def _hints() -> tuple[str, ...]:
    from migrate import knowledge

    roots = {key.split(".", 1)[0] for key in knowledge.third_party()}
    return tuple(sorted(roots | {name.split(".", 1)[0] for name in CUDA_DEFAULT_DEVICE}))
