"""Calls of a compiled extension's ops through an object the project fills with the module's members (NPU508).

A repository may hand its compiled module to the rest of its code as a plain object whose attributes it copies from
the module at run time, so that callers write `backend.funcs.op(...)` for every backend alike:

    class Funcs:
        def __init__(self, funcs):
            for func in funcs:
                self.__dict__[func.__name__] = func

    class CUDABackend:
        def __init__(self):
            self.funcs = Funcs([f for _, f in getmembers(__import__("_ext_cuda"))])

and elsewhere `self.backend.funcs.grid_forward(x, y)`. No chain of names reaches the extension (the object comes from a
class registry, the attributes from `getmembers`); what ties the call to it is the holder and the op's name. So a call
`<...>.<holder>.<op>(...)` is reported where
- `<holder>` is a name or attribute bound to a construction of a class of the same file whose methods set attributes
  of `self` under computed names (`self.__dict__[f.__name__] = f`, `setattr(self, name, f)`) in a file that reads a
  module's members (`getmembers(...)`, `vars(...)`, `dir(...)`) and whose import of the compiled extension NPU508
  reports (the value flows from the compiled module into the object);
- `<op>` is a name that a pybind11 module of the scan registers (`m.def("grid_forward", ...)` in a `PYBIND11_MODULE`
  block) in a source that is CUDA (a `.cu`, or a C++ source naming CUDA): an op that only another backend's module
  registers (a DPC++ `m.def("cast_rays_dpcpp", ...)`) is not reported, nor a method the holder's class defines.
A line NPU508 already reports is not reported twice.

Facts are recorded per file (the holders, the pybind op names); the call sites are found after the scan in the
files whose text names `.<holder>.`, parsed again only then (a repository without such a holder reads nothing).
"""

from __future__ import annotations

import ast
import re

from migrate.findings import Category, FileResult, Finding, Severity

CODE = "NPU508"
HOLDER = "reflholder"  # fact kind: name: the holder; why: the filling class
OP = "reflop"  # fact kind: name: an op a pybind module registers; cuda: the source is CUDA

_PYBIND = re.compile(r"\bPYBIND11_MODULE\s*\(")
_DEF = re.compile(r"\.\s*def\s*\(\s*\"([A-Za-z_]\w*)\"")
_CUDA = re.compile(r"cuda|__global__", re.IGNORECASE)
_MEMBERS = ("getmembers", "vars", "dir")
_ERROR = "does not exist on an NPU host until its kernels are ported to Ascend C (registered with torch_npu) or " \
         "replaced by torch / torch_npu ops"


def cpp_facts(path: str, text: str) -> list:
    """The op names a pybind11 module registers in this source (`m.def("op", ...)`), cuda when the source is CUDA."""
    from migrate.repo_index import Definition

    match = _PYBIND.search(text)
    if match is None:
        return []
    cuda = path.endswith((".cu", ".cuh")) or bool(_CUDA.search(text))
    return [Definition(OP, m.group(1), path, text.count("\n", 0, m.start()) + 1, cuda)
            for m in _DEF.finditer(text, match.end())]


def wants(text: str) -> bool:
    return ("__dict__[" in text or "setattr(self" in text) and any(f"{name}(" in text for name in _MEMBERS)


def python_facts(ctx) -> list:
    """The holders of this file: names bound to a construction of a class of the file that fills `self` under
    computed names, in a file that reads a module's members (see the module docstring)."""
    from migrate.repo_index import Definition

    if not any(_called_name(call) in _MEMBERS for call in ctx.nodes.get(ast.Call, ())):
        return []
    filled = _classes_filling_self(ctx)
    filling = {node.name: node for node in ctx.nodes.get(ast.ClassDef, ()) if id(node) in filled}
    if not filling:
        return []
    out = []
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in filling):
            continue
        for target in statement.targets:
            name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else None
            if name:
                out.append(Definition(HOLDER, name, ctx.path, statement.lineno, False, value.func.id))
    return out


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _classes_filling_self(ctx) -> set[int]:
    """id() of each class a method of which sets an attribute of `self` under a computed name (`_fills_self`): the
    file's assignments and calls read once, each such statement marking the classes around it (walking each class,
    nested ones again, was ~1% of a cold run on torch's package)."""
    out: set[int] = set()
    for inner in (*ctx.nodes.get(ast.Assign, ()), *ctx.nodes.get(ast.Call, ())):
        if _fills_self(inner):
            current = ctx.parent(inner)
            while current is not None:
                if isinstance(current, ast.ClassDef):
                    out.add(id(current))
                current = ctx.parent(current)
    return out


def _fills_self(inner: ast.AST) -> bool:
    """`inner` sets an attribute of `self` under a computed name (`self.__dict__[name] = ...`, `setattr(self, name, ...)`)."""
    if isinstance(inner, ast.Assign):
        for target in inner.targets:
            if isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Constant) \
                    and isinstance(target.value, ast.Attribute) and target.value.attr == "__dict__" \
                    and isinstance(target.value.value, ast.Name) and target.value.value.id == "self":
                return True
    elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "setattr" \
            and len(inner.args) == 3 and isinstance(inner.args[0], ast.Name) and inner.args[0].id == "self" \
            and not isinstance(inner.args[1], ast.Constant):
        return True
    return False


def report(results: list[FileResult], fresh: dict, max_file_size: int) -> list[FileResult]:
    """NPU508 on each call of a CUDA pybind op through a holder (see the module docstring)."""
    holders: dict[str, tuple[str, int, str]] = {}  # holder -> (path, line, class)
    ops: dict[str, tuple[str, int]] = {}  # CUDA op name -> where registered
    for result in results:
        for fact in result.facts or ():
            if fact[0] != "def":
                continue
            if fact[1] == OP and fact[4]:
                ops.setdefault(fact[2], (result.path, fact[3]))
            elif fact[1] == HOLDER and any(f.code == CODE for f in result.findings):
                holders.setdefault(fact[2], (result.path, fact[3], fact[5] if len(fact) > 5 else ""))
    if not (holders and ops):
        return results
    from migrate import engine

    methods = _class_methods(results, holders, fresh, max_file_size)
    out = []
    for result in results:
        data = fresh.get(result.path)
        if result.kind != "python" or not result.path.endswith(".py") or \
                (data is not None and not any(f".{h}.".encode() in data for h in holders)):
            out.append(result)
            continue
        text = engine.text_again(result.path, data, max_file_size)
        if text is None or not any(f".{h}." in text for h in holders):
            out.append(result)
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            out.append(result)
            continue
        reported = {f.line for f in result.findings if f.code == CODE}
        added = []
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            op, receiver = call.func.attr, call.func.value
            holder = receiver.attr if isinstance(receiver, ast.Attribute) else receiver.id if isinstance(receiver, ast.Name) else None
            if holder not in holders or op not in ops or op in methods.get(holder, ()) or call.lineno in reported:
                continue
            reported.add(call.lineno)
            path, line, cls = holders[holder]
            where = ops[op]
            message = f"`{op}` is called through `{holder}`, an object the project fills with the members of its " \
                      f"compiled extension (`{cls}` at {path}:{line}): the op of a custom CUDA extension, registered at " \
                      f"{where[0]}:{where[1]}, {_ERROR}"
            added.append(Finding(result.path, call.lineno, call.col_offset + 1, call.lineno, call.col_offset + 1, CODE,
                                 Severity.ERROR, Category.THIRD_PARTY, message))
        out.append(result.adding(added))
    return out


def _class_methods(results, holders, fresh, max_file_size) -> dict[str, set[str]]:
    """holder -> the names its filling class defines itself (a method of the class is no op of the module)."""
    from migrate import engine

    out: dict[str, set[str]] = {}
    paths = {path for path, _, _ in holders.values()}
    for result in results:
        if result.path not in paths:
            continue
        text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
        try:
            tree = ast.parse(text or "")
        except (SyntaxError, ValueError):
            continue
        classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        for holder, (path, _, cls) in holders.items():
            if path == result.path and cls in classes:
                out[holder] = {n.name for n in classes[cls].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return out
