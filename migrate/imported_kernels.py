"""GPU kernels (Triton's, numba.cuda's) imported from another module of the repository, recognised by reading that module.

`from .triton_ops import dtw_kernel` then `dtw_kernel[(1,)](...)` (openai/whisper timing.py, the import local to the
function) launches a `@triton.jit` kernel of triton_ops.py exactly like a launch in the file that defines it, which
NPU507 reports. The per-file pass sees a subscripted call of an imported name only; it reports it as a launch when
the file imports Triton itself (and the name says `kernel`), which timing.py does not. numba.cuda kernels the same:
`from ...cuda_utils import gpu_rnnt_kernel` then `gpu_rnnt_kernel.compute_alphas_kernel[grid, block, stream, 0](...)`
(titu1994/warprnnt_numba gpu_rnnt.py and its tests launch the `@cuda.jit` kernels of gpu_rnnt_kernel.py).

Here each file records the kernels it defines at module level (a "triton" fact, in the same pass as its analysis;
a numba.cuda kernel's fact names its package in `why`), and after the scan a file that imports one of them by name (its import references, `ref` facts, name
the kernel) is analysed once more with those kernels known; the launches that second analysis gives are added.
Nothing else changes, and a file's cached result stays its own (the second analysis is not cached: it depends on
another file). Only the few files importing a kernel of another module are read again.
"""

from __future__ import annotations

import ast

from migrate.findings import FileResult

CODE = "NPU507"  # the rule that reports kernel launches
KIND = "triton"  # the kind of the definitions: a kernel, not an extension (repo_index.build_index skips them)
TRITON = "triton"
NUMBA_CUDA = "numba.cuda"
_NUMBA_CUDA_DECORATORS = frozenset({"numba.cuda.jit"})  # `@cuda.jit`, `@cuda.jit(...)`: a numba.cuda kernel


def wants_kernel_defs(text: str) -> bool:
    return "triton" in text or "numba" in text


def kernel_package(ctx, function) -> str | None:
    """TRITON or NUMBA_CUDA when a decorator makes `function` a kernel of that package."""
    from migrate.reexports import triton_kernel

    if triton_kernel(ctx, function):
        return TRITON
    for decorator in function.decorator_list:
        if ctx.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator) in _NUMBA_CUDA_DECORATORS:
            return NUMBA_CUDA
    return None


def kernel_defs(ctx) -> list:
    """The Triton and numba.cuda kernels this module defines at its top level, as "triton" definitions (a numba.cuda
    kernel's names its package in `why`)."""
    from migrate.repo_index import Definition, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    out = []
    for statement in ctx.tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.decorator_list:
            package = kernel_package(ctx, statement)
            if package is not None:
                out.append(Definition(KIND, f"{dotted}.{statement.name}", ctx.path, statement.lineno, True,
                                      "" if package == TRITON else package))
    return out


def _same_module(a: str, b: str) -> bool:
    """Two dotted names of one thing, one of them possibly spelled from a deeper root (`pkg.ops.k`, `repo.pkg.ops.k`)."""
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def imported_kernel_names(ctx, known: frozenset) -> dict[str, str]:
    """The names this file binds to a kernel of `known` ((dotted name, package) pairs) by a `from ... import` (relative
    or absolute, at any depth: a function-local import too), and the kernels' own names where it imports their module
    (`ops.k[grid](...)`): name -> package."""
    from migrate.repo_index import _resolve_relative

    names: dict[str, str] = {}
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level else statement.module or ""
        for alias in statement.names:
            full = f"{base}.{alias.name}" if base else alias.name
            named = [package for kernel, package in known if _same_module(full, kernel)]
            if named:
                names[alias.asname or alias.name] = named[0]
            else:  # `from pkg import triton_ops`: its kernels launched as attributes
                names.update((kernel.rsplit(".", 1)[1], package) for kernel, package in known
                             if _same_module(full, kernel.rsplit(".", 1)[0]))
    for statement in ctx.nodes.get(ast.Import, ()):
        for alias in statement.names:
            names.update((kernel.rsplit(".", 1)[1], package) for kernel, package in known
                         if _same_module(alias.name, kernel.rsplit(".", 1)[0]))
    return names


def add_imported_launches(results: list[FileResult], version: str, fresh: dict, max_file_size: int) -> list[FileResult]:
    kernels = [(f[2], r.path, f[5] if len(f) > 5 and f[5] else TRITON) for r in results for f in (r.facts or ())
               if f[0] == "def" and f[1] == KIND]
    if not kernels:
        return results
    from migrate import engine

    by_last: dict[str, list[tuple[str, str, str]]] = {}  # a reference can only name a kernel (or its module) by its last part
    for kernel, path, package in kernels:
        module, _, name = kernel.rpartition(".")
        by_last.setdefault(name, []).append((kernel, path, package))
        by_last.setdefault(module.rpartition(".")[2], []).append((kernel, path, package))
    out = []
    for result in results:
        if result.kind != "python" or not result.path.endswith(".py"):
            out.append(result)
            continue
        known = frozenset((kernel, package) for f in (result.facts or ()) if f[0] == "ref"
                          for kernel, path, package in by_last.get(f[1].rpartition(".")[2], ())
                          if path != result.path and (_same_module(f[1], kernel) or _same_module(f[1], kernel.rpartition(".")[0])))
        if not known:
            out.append(result)
            continue
        text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
        if text is None:
            out.append(result)
            continue
        if "[" not in text:  # no subscripted call, no launch
            out.append(result)
            continue
        again, errors, _ = engine.analyze_python_text(result.path, text, version, known_kernels=known)
        present = {(f.code, f.line, f.column) for f in result.findings}
        added = tuple(f for f in again if f.code == CODE and (f.code, f.line, f.column) not in present)
        out.append(result if errors or not added else
                   FileResult(result.path, result.kind, result.lines, result.findings + added, result.errors, result.suppressed,
                              result.facts))
    return out
