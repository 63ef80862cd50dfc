"""An import of the repository's own extension that sets an availability flag is an optional path (NPU508).

A module that imports a compiled extension of the repository inside `try:` and records whether it loaded,

    try:
        import DCNv3
        has_cuda_kernel = True
    except:  # or `except ImportError:`
        has_cuda_kernel = False

tells the program whether the kernel is there: the flag is what its users test to pick another implementation
(`if has_cuda_kernel: core = DCNv3 else: core = DCNv3_pytorch`). On an Ascend host the import fails, the flag is
False and the fallback runs, so neither the import nor the uses of the name it binds in that module are lines to
change (label rule 27d-9: Hugging Face modelling copies that fall back to a PyTorch implementation). The flag is
recognised as NPU501 recognises its own (`_set_by_import_attempt`: True in the `try:` body, False / None in a
handler that catches a failed import). A handler that binds the imported name itself to None and no flag
(`except: DCN = None`) is no such path: the name is then called unguarded (label ruling (L30)), and stays reported;
one that binds the flag False and the name None beside it (`except ImportError: ext_256 = None; ext_available =
False`, then `self.ext = ext_256` with the flag copied to `self.ext_available`, which the forward pass tests before
`self.ext.vecquant4matmul(...)`; vendored AutoGPTQ's qlinear_cuda.py, label note 40d-9) is that path: the None only
keeps the name defined.

An import attempt with an `else:` is the same path without a flag when the name is read nowhere else: in

    try:
        import pkg._C as _C
    except ImportError as e:
        data.append(("pkg._C", f"not built correctly: {e}"))
    else:
        data.append(("Compiler", _C.get_compiler_version()))

(an environment report) the `else:` runs only where the import succeeded, and the handler, which neither raises
nor binds the name, lets the program go on without it: the import and the uses inside that `else:` are not
reported, provided every read of the name in the file lies in the `try:` body or its `else:` (label note 30a-8).

An import attempt whose `try:` body defines a class or function over the extension and whose handler defines the same
name again without it is a fallback implementation:

    try:
        import rope_ext as _kernels
        class Rope(torch.nn.Module):
            def forward(self, x, pos):
                return RopeFunction.apply(x, pos)   # calls _kernels.rope(...) inside
    except Exception as e:
        print(f"CUDA rope unavailable ({e}), using the PyTorch one")
        class Rope(torch.nn.Module):
            ...

the program takes the handler's `Rope` where the extension is missing: neither the import nor the uses inside that
`try:` body are reported, provided every read of the imported name lies in that body (label note 34a-3).
"""

from __future__ import annotations

import ast


def _flags_set(attempt: ast.Try) -> set[str]:
    """Names the `try:` body binds True and a handler catching a failed import binds False / None."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    on = {t.id for s in attempt.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value is True
          for t in s.targets if isinstance(t, ast.Name)}
    off = {t.id for h in attempt.handlers if _catches_import_error(h) for s in h.body
           if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value in (False, None)
           for t in s.targets if isinstance(t, ast.Name)}
    return on & off


def flagged_lines(ctx) -> frozenset[int]:
    """The lines of this file that only run where an import attempt with an availability flag succeeded: the
    imports in such a `try:` body, and each line reading a name one of them binds (and nothing else binds)."""
    imports: list[ast.AST] = []
    stand_ins: set[int] = set()  # ids of the `name = None` targets a flag-setting handler binds for its imports
    for attempt in ctx.nodes.get(ast.Try, ()):
        if _flags_set(attempt):
            imported = [s for s in attempt.body if isinstance(s, (ast.Import, ast.ImportFrom))]
            imports.extend(imported)
            stand_ins.update(_none_stand_ins(attempt, {_bound_name(s, a) for s in imported for a in s.names}))
    imports += _probed_imports(ctx)
    imports += _fallback_defined_imports(ctx)
    if not imports:
        return frozenset()
    lines: set[int] = set()
    bound = {_bound_name(statement, alias) for statement in imports for alias in statement.names if alias.name != "*"}
    for statement in imports:
        lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    # a name the file also binds elsewhere (a fallback import, an assignment) may stand for something else
    guarded = {id(statement) for statement in imports}
    bound -= {node.id for node in ctx.nodes.get(ast.Name, ()) if isinstance(node.ctx, ast.Store) and id(node) not in stand_ins}
    bound -= {_bound_name(statement, alias) for kind in (ast.Import, ast.ImportFrom) for statement in ctx.nodes.get(kind, ())
              if id(statement) not in guarded for alias in statement.names}
    lines.update(node.lineno for node in ctx.nodes.get(ast.Name, ()) if node.id in bound and isinstance(node.ctx, ast.Load))
    return frozenset(lines)


def _none_stand_ins(attempt: ast.Try, names: set[str]) -> set[int]:
    """The targets of `name = None` (also `a = b = None`) by which a handler catching the failed import binds the names
    the `try:` body imports (`except ImportError: ext_256 = None; ext_available = False`): the same name, absent."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    return {id(t) for h in attempt.handlers if _catches_import_error(h) for s in h.body
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value is None
            for t in s.targets if isinstance(t, ast.Name) and t.id in names}


def _probed_imports(ctx) -> list[ast.AST]:
    """The imports of a `try:` with an `else:` whose handlers catch a failed import, never raise and never bind the
    imported names, where each name is read only inside that `try:` body or its `else:` (see the module docstring)."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    out: list[ast.AST] = []
    for attempt in ctx.nodes.get(ast.Try, ()):
        if not attempt.orelse or not attempt.handlers or not all(_catches_import_error(h) for h in attempt.handlers):
            continue
        if any(isinstance(n, ast.Raise) for h in attempt.handlers for n in ast.walk(h)):
            continue
        statements = [s for s in attempt.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        names = {_bound_name(s, a) for s in statements for a in s.names if a.name != "*"}
        if not names or any(isinstance(n, ast.Name) and n.id in names for h in attempt.handlers for n in ast.walk(h)):
            continue
        spans = [(attempt.body[0].lineno, attempt.body[-1].end_lineno or attempt.body[-1].lineno),
                 (attempt.orelse[0].lineno, attempt.orelse[-1].end_lineno or attempt.orelse[-1].lineno)]
        reads = [n.lineno for n in ctx.nodes.get(ast.Name, ()) if n.id in names and isinstance(n.ctx, ast.Load)]
        if all(any(a <= line <= b for a, b in spans) for line in reads):
            out.extend(statements)
    return out


def _defined_names(statements) -> set[str]:
    """The classes and functions these statements define at their own level."""
    return {s.name for s in statements if isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}


def _fallback_defined_imports(ctx) -> list[ast.AST]:
    """The imports of a `try:` that defines a class or function on top of them and whose handler, catching the failed
    import, defines that name again (a PyTorch implementation: `try: import ext / class Op(nn.Module): ... ext.op(...)
    / except Exception: class Op(nn.Module): ...torch...`), where each imported name is read only inside that `try:`
    body (see the module docstring)."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    out: list[ast.AST] = []
    for attempt in ctx.nodes.get(ast.Try, ()):
        statements = [s for s in attempt.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        if not statements or not attempt.handlers:
            continue
        defined = _defined_names(attempt.body)
        if not any(_catches_import_error(h) and defined & _defined_names(h.body) for h in attempt.handlers):
            continue
        names = {_bound_name(s, a) for s in statements for a in s.names if a.name != "*"}
        start, end = attempt.body[0].lineno, attempt.body[-1].end_lineno or attempt.body[-1].lineno
        reads = [n.lineno for n in ctx.nodes.get(ast.Name, ()) if n.id in names and isinstance(n.ctx, ast.Load)]
        if names and all(start <= line <= end for line in reads):
            out.extend(statements)
    return out


def _bound_name(statement, alias) -> str:
    """The name an import binds: `import a.b` binds `a`, `import a.b as c` and `from a import b as c` bind `c`."""
    if alias.asname:
        return alias.asname
    return alias.name.split(".", 1)[0] if isinstance(statement, ast.Import) else alias.name
