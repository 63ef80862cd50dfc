"""A function of the repository that pip-installs what it is given: each call naming a GPU-only package installs it
(NPU502, cross-file, label ruling (L73)).

YOLOv5-style projects keep a helper that installs a missing requirement at run time:

    def check_requirements(requirements=ROOT / 'requirements.txt', exclude=(), install=True):   # utils/general.py
        requirements = [x for x in requirements if x not in exclude]
        for r in requirements:
            try:
                pkg.require(r)
            except Exception:
                print(check_output(f"pip install '{r}'", shell=True).decode())

    check_requirements(('tensorrt',))                    # export.py: an install line of tensorrt

A function is an installer when its body runs a `pip install` command (through subprocess / os.system, as a string,
an f-string or an argument list) whose requirement is one of its parameters, or a name bound from it (an assignment
or a `for` loop over it, in turn). A call of it, in its own module or imported (`from utils.general import
check_requirements`, `import utils.general as g`; a relative import too), whose argument for that parameter is a
literal requirement or a tuple / list / set of them naming a GPU-only package of the catalogue (not a `partial` one)
is reported at the literal, as a requirements file's line would be. A function merely named like a check that installs
nothing, an argument chosen by an expression (`'onnxruntime-gpu' if cuda else 'onnxruntime'`: a device choice, label
rule 43b-5) and another parameter's literal (`exclude=('tensorrt',)`) are not read.

Per file (facts, kind "pipinstaller": the function, its pip command's line, the parameter's position and name; kind
"pipcall": the callee as resolved, the literal's columns, the argument's position or keyword, the catalogue key and
the requirement), matched after the scan.
"""

from __future__ import annotations

import ast
import functools
import os
import re

from migrate.findings import Category, FileResult, Finding, Severity
from migrate.repo_index import Definition, _resolve_relative

INSTALLER = "pipinstaller"
CALL = "pipcall"
_LOCAL = "<local>."  # a callee defined in the calling module (not imported)
_PIP_INSTALL = re.compile(r"(?:(?<=/)|(?<![\w./-]))(?:pip3?|python[\d.]*\s+-m\s+pip|\{\}\s+-m\s+pip)(?:\s+--?[a-z][\w-]*)*\s+install\b")


def facts(ctx, text: str) -> list[Definition]:
    """The module's installers (when it runs `install` at all) and its calls with a GPU-only literal requirement."""
    return (installer_defs(ctx) if "install" in text else []) + call_defs(ctx)


def _names(node: ast.AST) -> set[str]:
    """The names whose value flows into `node`'s value: not those only tested (a comprehension's `if x not in
    exclude`, an `if`-expression's test, a comparison)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        parts += [g.iter for g in node.generators]
    elif isinstance(node, ast.IfExp):
        parts = [node.body, node.orelse]
    elif isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        parts = []
    else:
        parts = list(ast.iter_child_nodes(node))
    return set().union(*(_names(p) for p in parts)) if parts else set()


def _derived(function: ast.AST, parameter: str) -> set[str]:
    """The names bound, in the function, from `parameter` (assignments and `for` targets over it, in turn)."""
    tainted = {parameter}
    statements = [n for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For))]
    for _ in range(4):  # a few rounds: `reqs = [...param...]`, then `for r in reqs`
        before = len(tainted)
        for statement in statements:
            source = statement.iter if isinstance(statement, ast.For) else statement.value
            if source is None or not (_names(source) & tainted):
                continue
            targets = [statement.target] if not isinstance(statement, ast.Assign) else statement.targets
            for target in targets:
                tainted |= _names(target)
        if len(tainted) == before:
            break
    return tainted


def _installed_names(ctx, call: ast.Call) -> tuple[set[str], int] | None:
    """(names whose value a `pip install` command run by `call` installs, the command's line), or None."""
    from migrate.rules._text import COMMAND_RUNNERS

    if not call.args or ctx.qualname(call.func) not in COMMAND_RUNNERS or ctx.qualname(call.func) == "shutil.which":
        return None
    command = call.args[0]
    if isinstance(command, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in command.values)
        match = _PIP_INSTALL.search(text)
        if match is None:
            return None
        fields, position = set(), 0
        for value in command.values:  # the fields after `install`
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                position += len(value.value)
            else:
                if position >= match.end():
                    fields |= _names(value.value)
                position += 2
        return (fields, command.lineno) if fields else None
    if isinstance(command, (ast.List, ast.Tuple)):
        words = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in command.elts]
        if "install" not in words or not ("pip" in words or any(w and re.search(r"(?:^|/)pip3?$", w) for w in words)):
            return None
        after = command.elts[words.index("install") + 1:]
        fields = set().union(*(_names(e) for e in after if not isinstance(e, ast.Constant))) if after else set()
        return (fields, command.lineno) if fields else None
    return None


def _parameters(function) -> list[str]:
    arguments = function.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args)]


def installer_defs(ctx) -> list[Definition]:
    """"pipinstaller" Definitions of the module's functions that pip-install one of their parameters.
    Only the functions holding a `pip install` call are walked: the module's calls are read once, and each one
    installing marks the functions around it (walking every function's body, nested ones again, was a tenth of
    a cold run on torch's package)."""
    out = []
    holding: set[int] = set()  # id() of each function with an installing call anywhere in its body
    for call in ctx.nodes.get(ast.Call, ()):
        if call.args and _installed_names(ctx, call) is not None:
            current = ctx.parent(call)
            while current is not None:
                if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    holding.add(id(current))
                current = ctx.parent(current)
    if not holding:
        return out
    for function in (*ctx.nodes.get(ast.FunctionDef, ()), *ctx.nodes.get(ast.AsyncFunctionDef, ())):
        if id(function) not in holding:
            continue
        calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
        installs = [found for found in (_installed_names(ctx, c) for c in calls) if found is not None]
        if not installs:
            continue
        positional = _parameters(function)
        for index, parameter in enumerate([*positional, *(a.arg for a in function.args.kwonlyargs)]):
            tainted = _derived(function, parameter)
            line = next((line for names, line in installs if names & tainted), None)
            if line is not None:
                position = index if index < len(positional) else -1
                out.append(Definition(INSTALLER, function.name, "", line, False, f"{position} {parameter}"))
    return out


def _literals(node: ast.AST) -> list[ast.Constant]:
    """The requirement strings an argument gives as written: a string, or a tuple / list / set of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _relative_names(ctx) -> dict[str, str]:
    """name -> dotted target of the module's relative `from .x import name` imports (the resolver leaves them out)."""
    out = {}
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if statement.level:
            base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "")
            for alias in statement.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return out


# a requirement as a literal: a name, extras, a version specifier (`tensorrt`, `onnx-simplifier>=0.3.6`)
_REQUIREMENT = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[\w,\s-]*\])?\s*(?:[<>=!~][^;]*)?$")


@functools.lru_cache(maxsize=4096)
def _catalogued(text: str):
    """(catalogue key, entry) of a GPU-only package a requirement string names, else None."""
    if len(text) > 100 or not _REQUIREMENT.match(text):
        return None
    from migrate import knowledge
    from migrate.rules.npu501_gpu_only_import import needs_a_look
    from migrate.rules.npu502_gpu_only_dependency import GpuOnlyDependency, _pip_table
    from migrate.sources import requirement

    dep = requirement(text, 1, 0)
    if dep is None:
        return None
    key = GpuOnlyDependency._lookup(dep.name, _pip_table())
    entry = knowledge.third_party().get(key) if key is not None else None
    if entry is None or not needs_a_look(entry) or entry.status == "partial":
        return None
    return key, entry


def call_defs(ctx) -> list[Definition]:
    """"pipcall" Definitions of the calls whose argument is a literal requirement naming a GPU-only package."""
    out = []
    relative = None
    defined = {f.name for f in (*ctx.nodes.get(ast.FunctionDef, ()), *ctx.nodes.get(ast.AsyncFunctionDef, ()))}
    literal_types = (ast.Constant, ast.Tuple, ast.List, ast.Set)  # the arguments `_literals` reads
    for call in ctx.nodes.get(ast.Call, ()):
        # most calls pass no literal at all: asked first, without building the argument list
        if not any(isinstance(a, literal_types) for a in call.args) \
                and not any(k.arg and isinstance(k.value, literal_types) for k in call.keywords):
            continue
        arguments = [(str(i), a) for i, a in enumerate(call.args)] + [(k.arg, k.value) for k in call.keywords if k.arg]
        found = [(where, c, hit) for where, a in arguments for c in _literals(a) if (hit := _catalogued(c.value))]
        if not found:
            continue
        callee = ctx.qualname(call.func)
        if callee is None and isinstance(call.func, ast.Name):
            if relative is None:
                relative = _relative_names(ctx)
            callee = relative.get(call.func.id) or (_LOCAL + call.func.id if call.func.id in defined else None)
        if callee is None:
            continue
        for where, constant, (key, _) in found:
            line, column, _, end = ctx.span(constant)
            out.append(Definition(CALL, callee, "", line, False, f"{column} {end} {where}", f"{key} {constant.value}"))
    return out


def _module(path: str) -> str:
    """The dotted module of a file path (`a/b/utils/general.py` -> `a.b.utils.general`; a package's `__init__`: its folder)."""
    parts = os.path.normpath(os.path.splitext(path)[0]).replace(os.sep, "/").split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(p for p in parts if p not in ("", ".", ".."))


def report(results: list[FileResult]) -> list[FileResult]:
    """Results with an NPU502 finding at each literal GPU-only requirement handed to a repository's pip installer."""
    installers: dict[str, list[tuple[str, str, int, int, str]]] = {}  # function name -> (module, path, line, position, parameter)
    for result in results:
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == INSTALLER and len(fact) > 5:
                position, parameter = fact[5].split(" ", 1)
                installers.setdefault(fact[2], []).append((_module(result.path), result.path, fact[3], int(position), parameter))
    if not installers:  # the usual case: no rule module is imported (a warm run imports none)
        return results
    from migrate import knowledge
    from migrate.rules.npu501_gpu_only_import import package_of

    table = knowledge.third_party()
    out = []
    for result in results:
        added: list[Finding] = []
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] != "def" or fact[1] != CALL or len(fact) < 7:
                continue
            callee, line = fact[2], fact[3]
            start, end, where = fact[5].split(" ")
            key, text = fact[6].split(" ", 1)
            name = callee.rsplit(".", 1)[-1]
            here = _module(result.path)
            for module, path, install_line, position, parameter in installers.get(name, ()):
                if callee.startswith(_LOCAL):
                    if module != here:
                        continue
                elif not ("." + module).endswith("." + callee.rsplit(".", 1)[0]):
                    continue
                if where not in (str(position), parameter):
                    continue
                if any(f.code == "NPU502" and f.line == line for f in (*result.findings, *added)):
                    break
                entry = table[key]
                message = (f"`{name}(...)` pip-installs `{text}` at run time (its body runs `pip install` of its "
                           f"`{parameter}`, {os.path.relpath(path, os.path.dirname(result.path) or '.')}:{install_line}): "
                           f"`{key}` targets NVIDIA GPUs ({entry.status} on Ascend NPU)")
                if entry.alternative:
                    message += f"; NPU alternative: {entry.alternative}"
                added.append(Finding(result.path, line, int(start) + 1, line, int(end) + 1, "NPU502",
                                     Severity.parse(entry.severity), Category.THIRD_PARTY, message,
                                     replacement=entry.alternative_api, package=package_of(key, table)))
                break
        out.append(result.adding(added) if added else result)
    return out
