"""A function of the repository that raises when a package is missing is a check: the code after its call is optional.

A library that wraps an optional GPU package often keeps the "is it there?" question in one helper module and asks it
from the modules that use the package:

    # render/context.py
    try:
        import nvdiffrast.torch as nvdiff
        _has_nvdiffrast = True
    except ImportError:
        nvdiff = None

    def nvdiffrast_is_available():
        return _has_nvdiffrast

    def default_context(device, raise_error=False):
        if not nvdiffrast_is_available():
            if raise_error:
                raise ValueError("nvdiffrast must be installed to be used as backend")
            return None
        ...

    # render/rasterize.py
    try:
        import nvdiffrast.torch as nvdiff
    except ImportError:
        nvdiff = None

    def _nvdiff_rasterize(...):
        glctx = default_context(device, raise_error=True)
        rast = nvdiff.rasterize(glctx, pos, tri, ...)

On a host without the package the call stops with the repository's own clear error before any use runs: the uses
after it in its function are an optional path (label ruling (L34), as `if not is_x_available(): raise` in the same
function, NPU501's `early_exit_guard`; label note 46b b-8), and the bare None stand-in of the import is not what fails
(migrate/none_stand_ins.py).

A check here is a module-level function with a top-level `if not <availability test>:` (no `else:`) whose body ends in
`raise` (it always raises), or holds `if <parameter>: raise ...` on one of the function's parameters (it raises when
the caller passes that parameter as True). A call counts as a statement of its own or the value of an assignment, and,
for the second form, only with `<parameter>=True` spelled at the call. Same module: read directly. Another module:
recorded as "flag" definitions of mode "raises" / "raises:<parameter>" (migrate/imported_flags.py) and read on the
importer's second analysis. The availability test is NPU501's (`_availability_test`: a flag set by an import attempt,
an `is_<pkg>_available()` call, a predicate of migrate/availability_predicates.py).
"""

from __future__ import annotations

import ast

_KEY = "_npu_raising_checks"
RAISES = "raises"  # the mode of such a function's "flag" definition; "raises:<parameter>" for the second form


def _raise_parameter(body: list, parameters: frozenset[str]) -> str | None:
    """'' when `body` ends in a raise; the parameter when it holds `if <parameter>: raise ...`; else None."""
    if body and isinstance(body[-1], ast.Raise):
        return ""
    for statement in body:
        if isinstance(statement, ast.If) and isinstance(statement.test, ast.Name) and statement.test.id in parameters \
                and statement.body and isinstance(statement.body[-1], ast.Raise):
            return statement.test.id
    return None


def _check_parameter(ctx, function) -> str | None:
    from migrate.rules.npu501_gpu_only_import import _availability_test

    args = function.args
    parameters = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
    for statement in function.body:
        if isinstance(statement, ast.If) and not statement.orelse and isinstance(statement.test, ast.UnaryOp) \
                and isinstance(statement.test.op, ast.Not) and _availability_test(ctx, statement.test.operand):
            found = _raise_parameter(statement.body, parameters)
            if found is not None:
                return found
    return None


def raising_checks(ctx) -> dict[str, str]:
    """Module-level functions of this file that raise when a package is missing -> the parameter the caller must pass
    as True for it ('' when it always raises)."""
    cached = ctx.__dict__.get(_KEY)
    if cached is not None:
        return cached
    found: dict[str, str] = {}
    ctx.__dict__[_KEY] = found
    if "raise" not in ctx.source:
        return found
    for statement in ctx.tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parameter = _check_parameter(ctx, statement)
            if parameter is not None:
                found[statement.name] = parameter
    return found


def _raises_with(call: ast.Call, parameter: str) -> bool:
    return not parameter or any(k.arg == parameter and isinstance(k.value, ast.Constant) and k.value.value is True
                                for k in call.keywords)


def raising_call(ctx, statement) -> bool:
    """`statement` is a call of a check (see the module doc), alone or as an assignment's value, that raises here."""
    value = statement.value if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name) and func.id in raising_checks(ctx):
        return _raises_with(value, raising_checks(ctx)[func.id])
    known = ctx.__dict__.get("_npu_known_flags")
    if not known:
        return False
    from migrate.kernel_values import _imported_names as imported_dotted

    imported = imported_dotted(ctx)
    if isinstance(func, ast.Name):
        full = imported.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in imported:
        full = f"{imported[func.value.id]}.{func.attr}"
    else:
        return False
    if full is None:
        return False
    for flag in known:
        name, bang, parameter = flag.partition("(!")
        if bang and (full == name or name.endswith("." + full) or full.endswith("." + name)) \
                and _raises_with(value, parameter.rstrip(")")):
            return True
    return False
