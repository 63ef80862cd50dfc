"""A requirement check that raises when a package is missing makes the code after it an optional path.

transformers' `require_version("bitsandbytes>=0.39.0")` (transformers.utils.versions) and the copies projects keep of it
(`check_version("bitsandbytes>=0.39.0", mandatory=True)`) raise with an install hint when the package is absent or too
old. A function that runs such a check before it builds `BitsAndBytesConfig(...)` or imports `liger_kernel` handles the
package's absence with its own clear error, like `if not is_bnb_available(): raise ImportError(...)` (label ruling (L34)):
on an NPU host without the package the feature stops there, nothing on that path is work to port.

A check is a statement that is only a call whose name says so (`require_version`, `require_version_core`,
`check_version`, `check_requirement(s)`, `ensure_package`, ...: `(require|check|ensure|assert)_` + `version`,
`requirement`, `package`, `installed`, `dependency`, in singular or plural) and whose first argument is a literal
requirement string (`"liger-kernel"`, `"bitsandbytes>=0.39.0"`, `"sglang[srt]"`); a keyword set to `False`
(`mandatory=False`, `raise_error=False`) makes it a warning, not a check. It names the package by the requirement's
project name, lower-cased with `-` and `.` read as `_` (`liger-kernel` -> `liger_kernel`, the import name).

Where it counts (as `early_exit_guard` in NPU501): inside a function, anywhere in the block of the guarded statement or
in an enclosing block of that function, and only for the package it names. Not at module level (an import-time raise
fails every importer, not one feature).
"""

from __future__ import annotations

import ast
import re

_CHECK = re.compile(r"^_?(?:require|check|ensure|assert)_(?:versions?|requirements?|packages?|installed|dependency|dependencies)"
                    r"(?:_core)?$")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_STOPS = (ast.Module, ast.ClassDef, ast.Lambda)


def _normalised(name: str) -> str:
    return re.sub(r"[-.]+", "_", name.lower())


def checked_package(statement: ast.AST) -> str | None:
    """`require_version("bitsandbytes>=0.39.0")` / `check_version("liger-kernel", mandatory=True)` as a statement ->
    the package it requires, by its import-style name (`bitsandbytes`, `liger_kernel`); else None."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if not _CHECK.match(name) or not call.args:
        return None
    first = call.args[0]
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return None
    if any(isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords):
        return None  # `check_version("x", mandatory=False)`: a warning the user may turn off, not a check
    match = _NAME.match(first.value)
    return _normalised(match.group(1)) if match else None


def _names(package: str, wanted) -> bool:
    """The checked `package` is `wanted` (a package's import name, or a callable on names: globs of an entry)."""
    if callable(wanted):
        return wanted(package)
    return package == _normalised(wanted)


def checked_before(ctx, node: ast.AST, wanted) -> bool:
    """`node` lies in a function, in a block (or below a block) that holds a requirement check of `wanted`: a package's
    import name (`"bitsandbytes"`), or a predicate on the checked package's name."""
    if not isinstance(node, ast.AST) or not hasattr(ctx, "parent"):
        return False
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, _STOPS):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is child for s in block):
                for statement in block:
                    package = checked_package(statement)
                    if package is not None and _names(package, wanted):
                        return True
        if isinstance(parent, _SCOPES):
            return False
        child, parent = parent, ctx.parent(parent)
    return False


# ---- across the repository: a check under a user option in one module, the feature's code in another ----------------
#
# LLaMA-Factory's argument parser: `if model_args.use_unsloth: check_version("unsloth", mandatory=True)`, and
# `if model_args.enable_liger_kernel: check_version("liger-kernel", mandatory=True)`; the functions that import unsloth
# and liger_kernel live in other modules and run only when that option is on, after the parse. A repository that checks
# a package this way, under an `if` (the option that turns the feature on), inside a function, handles the package's
# absence with its own error wherever the feature runs: the package's imports and uses inside functions anywhere in the
# repository are optional paths (NPU501, NPU507, NPU404), as those under an availability check are. Module-level imports
# and uses stay (they run at import, whatever the option), and so does the repository's own kernel language (a Triton
# kernel file is work to port, label rule (y5)). Recorded per file as "checked" facts, applied after the scan.
#
# An availability assert counts the same (label ruling (L34)): `if self.use_liger_kernel: assert is_liger_available(),
# "pip install liger-kernel"` in an argument class, `<pkg>` read as a catalogue package or one of its aliases
# (migrate/skip_decorators.py). Not `if not is_x_available(): raise ImportError(...)` under an `if`: libraries raise so
# inside the feature they implement (accelerate's fp8 paths: `if not is_transformer_engine_available(): raise`), while
# the repository's own scripts import the package without going through them (set 25a: 12 labels lost when read so);
# that form stays a guard of its own function (NPU501's `early_exit_guard`). A check
# opening a function with no `if` around it (`def load_fast(args): assert is_unsloth_available()`) guards that function
# only (NPU501's `early_exit_guard`): the other modules' uses may run before it (`if args.backend == "unsloth": import
# unsloth` at start-up), which only a call graph could tell.

CODES = frozenset({"NPU501", "NPU507", "NPU404"})
_KERNEL_LANGUAGES = frozenset({"triton", "numba"})
# what `wants` looks for, one pattern per leading word: a pattern starting with a literal is searched for by that word
# (one alternation at the front was tried at every position of the file: a second of torch's cold scan)
_WANTS = tuple(re.compile(p) for p in (*(rf"{word}_\w+\(\s*[\"')]" for word in ("require", "check", "ensure", "assert")),
                                       r"assert is_\w+_available\("))
# a project's own check function: `def check_stk_installed():` / `check_megablock_installed()` (see `install_checks`)
_CHECK_FUNCTION = re.compile(r"^_?(?:require|check|ensure|assert)_\w+$")
_EXITS = frozenset({"exit", "quit", "_exit"})


def wants(text: str) -> bool:
    """The text may hold a requirement check (a cheap look before the parse is used for it)."""
    return any(pattern.search(text) for pattern in _WANTS)


def _available_call(test: ast.AST) -> str | None:
    """The catalogue package of `is_<pkg>_available()` (an `and` of such calls: the first that names one)."""
    from migrate.skip_decorators import catalogue_package, catalogue_roots

    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next((p for p in map(_available_call, test.values) if p), None)
    if not isinstance(test, ast.Call) or test.args or test.keywords:
        return None
    func = test.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if not (name.startswith("is_") and name.endswith("_available")):
        return None
    return catalogue_package(name[3:-len("_available")], catalogue_roots())


def availability_assert(statement: ast.AST) -> str | None:
    """`assert is_<pkg>_available(), ...` -> the package."""
    return _available_call(statement.test) if isinstance(statement, ast.Assert) else None


def option_checks(ctx) -> list:
    """The packages this file checks under an `if` inside a function (a requirement check, or an availability
    assert), as "checked" definitions (name: the package)."""
    from migrate.repo_index import Definition

    out: dict[str, int] = {}
    found = [(s, availability_assert(s)) for s in ctx.nodes.get(ast.Assert, ())]
    found += [(s, checked_package(s)) for s in ctx.nodes.get(ast.Expr, ())]
    for statement, package in found:
        if package is None or package in out:
            continue
        if _conditional_in_function(ctx, statement):
            out[package] = statement.lineno
    return [Definition("checked", name, ctx.path, line, False) for name, line in sorted(out.items())] + install_checks(ctx)


def _exits(statement: ast.AST) -> bool:
    """A call of `sys.exit()` / `exit()` / `quit()` / `os._exit(1)` as a statement: the launcher stops the program. Not
    a `raise`: xtuner's `ensure_cudnn_dsa_runtime_available()` (`except Exception as exc: raise RuntimeError(...)`)
    is a run-time check of the feature whose own imports and the feature's uses stay labels (set 30d's labels)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) in _EXITS
    return False


def _check_function_package(function: ast.AST) -> str | None:
    """The package a project check function requires: a module-level `def check_stk_installed():` (named like a
    check, `_CHECK_FUNCTION`) whose body tries the import and stops the program when it fails (`try: import stk /
    except ModuleNotFoundError: print("STK not found: ..."); sys.exit()`), the handler's last statement an exit
    (`_exits`)."""
    from migrate.optional_modules import _catches_import_error

    if not _CHECK_FUNCTION.match(function.name):
        return None
    for statement in function.body:
        if not isinstance(statement, ast.Try):
            continue
        handlers = [h for h in statement.handlers if _catches_import_error(h)]
        if not handlers or not all(h.body and _exits(h.body[-1]) for h in handlers):
            continue
        for inner in statement.body:
            if isinstance(inner, ast.Import):
                return _normalised(inner.names[0].name.split(".", 1)[0])
            if isinstance(inner, ast.ImportFrom) and not inner.level and inner.module:
                return _normalised(inner.module.split(".", 1)[0])
    return None


def install_checks(ctx) -> list:
    """The file's project check functions (`_check_function_package`) as "installcheck" definitions (name:
    `function:package`), and the calls of a check-named function without arguments that it makes under an `if`
    inside a function (`if gpc.config.model.moe_type == "MegaBlock-D": check_stk_installed()`) as "checkcall"
    definitions (name: the function). `drop_checked_uses` joins them across the repository: a package whose check
    function some module calls under an option is checked like `check_version("stk", mandatory=True)` there."""
    from migrate.repo_index import Definition

    out = []
    for function in ctx.nodes.get(ast.FunctionDef, ()):
        if isinstance(ctx.parent(function), ast.Module) and (package := _check_function_package(function)):
            out.append(Definition("installcheck", f"{function.name}:{package}", ctx.path, function.lineno, False))
    called: dict[str, int] = {}
    for statement in ctx.nodes.get(ast.Expr, ()):
        call = statement.value
        if not isinstance(call, ast.Call) or call.args or call.keywords:
            continue
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in called or not _CHECK_FUNCTION.match(name) or not _conditional_in_function(ctx, statement):
            continue
        called[name] = statement.lineno
    out += [Definition("checkcall", name, ctx.path, line, False) for name, line in sorted(called.items())]
    return out


def _conditional_in_function(ctx, statement: ast.AST) -> bool:
    """`statement` lies under an `if` (not in its test) inside a function."""
    conditional = False
    child, parent = statement, ctx.parent(statement)
    while parent is not None and not isinstance(parent, _STOPS):
        if isinstance(parent, ast.If) and child is not parent.test:
            conditional = True
        if isinstance(parent, _SCOPES):
            return conditional
        child, parent = parent, ctx.parent(parent)
    return False


def _droppable(finding, checked: set[str]) -> bool:
    root = (finding.package or "").split(".", 1)[0]
    return finding.code in CODES and root not in _KERNEL_LANGUAGES and _normalised(root) in checked


def _function_lines(path: str, data, max_file_size: int) -> list[tuple[int, int]] | None:
    """(first, last) line of each function of the file, and of each module-level `try:` body that catches a failed
    import (`try: import stk / except ImportError: pass`: such an import cannot stop the module loading, the uses
    in its functions are what would run); None when it cannot be read or parsed now."""
    from migrate import engine, fileio
    from migrate.optional_modules import _catches_import_error

    text = engine.text_again(path, data, max_file_size)  # reads the file when the scan kept no bytes
    tree = fileio.parse_python(text) if text is not None else None
    if tree is None:
        return None
    tried = [(n.body[0].lineno - 1, n.body[-1].end_lineno or n.body[-1].lineno) for n in tree.body
             if isinstance(n, ast.Try) and any(_catches_import_error(h) for h in n.handlers)]
    return [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, _SCOPES)] + tried


def drop_checked_uses(results: list, fresh: dict, max_file_size: int) -> list:
    """`results` less the findings, inside functions, of the packages some module checks under an option (see above)."""
    from migrate.findings import FileResult

    facts = [f for r in results for f in (r.facts or ()) if f[0] == "def"]
    checked = {f[2] for f in facts if f[1] == "checked"}
    calls = {f[2] for f in facts if f[1] == "checkcall"}  # a project check function called under an option
    checked |= {package for f in facts if f[1] == "installcheck"
                for function, _, package in [f[2].partition(":")] if function in calls}
    if not checked:
        return results
    out = []
    for result in results:
        if result.path.endswith(".py") and any(_droppable(f, checked) for f in result.findings):
            functions = _function_lines(result.path, fresh.get(result.path), max_file_size)
            if functions:
                kept = tuple(f for f in result.findings if not (
                    _droppable(f, checked) and any(first < f.line <= last for first, last in functions)))
                result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed,
                                    result.facts)
        out.append(result)
    return out
