"""Triton kernels imported from another module of the repository, recognised by reading that module.

`from .triton_ops import dtw_kernel` then `dtw_kernel[(1,)](...)` (openai/whisper timing.py, the import local to the
function) launches a `@triton.jit` kernel of triton_ops.py exactly like a launch in the file that defines it, which
NPU507 reports. The per-file pass sees a subscripted call of an imported name only; it reports it as a launch when
the file imports Triton itself (and the name says `kernel`), which timing.py does not.

Here each file records the Triton kernels it defines at module level (a "triton" fact, in the same pass as its
analysis), and after the scan a file that imports one of them by name (its import references, `ref` facts, name
the kernel) is analysed once more with those kernels known; the launches that second analysis gives are added.
Nothing else changes, and a file's cached result stays its own (the second analysis is not cached: it depends on
another file). Only the few files importing a kernel of another module are read again.
"""

from __future__ import annotations

import ast

from migrate.findings import FileResult

CODE = "NPU507"  # the rule that reports Triton kernel launches
KIND = "triton"  # the kind of the definitions: a kernel, not an extension (repo_index.build_index skips them)


def kernel_defs(ctx) -> list:
    """The Triton kernels this module defines at its top level, as "triton" definitions."""
    from migrate.reexports import triton_kernel
    from migrate.repo_index import Definition, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    return [Definition(KIND, f"{dotted}.{statement.name}", ctx.path, statement.lineno, True)
            for statement in ctx.tree.body
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.decorator_list
            and triton_kernel(ctx, statement)]


def _same_module(a: str, b: str) -> bool:
    """Two dotted names of one thing, one of them possibly spelled from a deeper root (`pkg.ops.k`, `repo.pkg.ops.k`)."""
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def imported_kernel_names(ctx, known: frozenset) -> set[str]:
    """The names this file binds to a kernel of `known` by a `from ... import` (relative or absolute, at any depth:
    a function-local import too), and the kernels' own names where it imports their module (`ops.k[grid](...)`)."""
    from migrate.repo_index import _resolve_relative

    names: set[str] = set()
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level else statement.module or ""
        for alias in statement.names:
            full = f"{base}.{alias.name}" if base else alias.name
            if any(_same_module(full, kernel) for kernel in known):
                names.add(alias.asname or alias.name)
            else:  # `from pkg import triton_ops`: its kernels launched as attributes
                names.update(kernel.rsplit(".", 1)[1] for kernel in known if _same_module(full, kernel.rsplit(".", 1)[0]))
    for statement in ctx.nodes.get(ast.Import, ()):
        for alias in statement.names:
            names.update(kernel.rsplit(".", 1)[1] for kernel in known if _same_module(alias.name, kernel.rsplit(".", 1)[0]))
    return names


def add_imported_launches(results: list[FileResult], version: str, fresh: dict, max_file_size: int) -> list[FileResult]:
    kernels = [(f[2], r.path) for r in results for f in (r.facts or ()) if f[0] == "def" and f[1] == KIND]
    if not kernels:
        return results
    from migrate import engine

    by_last: dict[str, list[tuple[str, str]]] = {}  # a reference can only name a kernel (or its module) by its last part
    for kernel, path in kernels:
        module, _, name = kernel.rpartition(".")
        by_last.setdefault(name, []).append((kernel, path))
        by_last.setdefault(module.rpartition(".")[2], []).append((kernel, path))
    out = []
    for result in results:
        if result.kind != "python" or not result.path.endswith(".py"):
            out.append(result)
            continue
        known = frozenset(kernel for f in (result.facts or ()) if f[0] == "ref"
                          for kernel, path in by_last.get(f[1].rpartition(".")[2], ())
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
