"""Calls of a repository's compiled op fetched by its registered name through a project accessor (NPU508).

A repository that JIT-builds its kernels behind a registry of its own hands them to its Python code by name:

    def awq_gemm_forward(x, qweight, scales, zeros, split_k, fp32):
        return _extension_api().op("awq", "gemm_forward")(x, qweight, scales, zeros, split_k, fp32)

    def hadamard_transform(x, scale):
        op = hadamard_op("fast_hadamard_transform")
        return op(x, scale)

where `_extension_api()` returns the registry module, whose `op(name, op_name)` loads the build and returns
`getattr(torch.ops.<ns>, op_name)`. No chain of names there reaches the extension (a registry module, an object
built by a loader class, a method returning `getattr(namespace, name)`); the op's own name does: the C++/CUDA
sources register it (`TORCH_LIBRARY(ns, m) { m.def("gemm_forward(Tensor x, ...) -> Tensor"); }`, also
`STABLE_TORCH_LIBRARY_FRAGMENT(ns, ops) { ops.def(...) }` and `m.impl("op", ...)`). So a call of a call given the
registered name as a string (`F(..., "gemm_forward")(...)`), and a local bound to such a call and then called
(`op = F(op_name="gptq_marlin_repack")` ... `op(...)`, both lines, as for the accessors of label ruling (L31)), call
that op. The name may be a local of the function bound only to string literals (`op_name = "gemm_bf16"` /
`else: op_name = "gemm_fp16"`). Reported where the op's namespace has a CUDA build in the scan (a
`TORCH_LIBRARY_IMPL(ns, CUDA, m)`, or a registration in a `.cu` source); an op of a CPU-only namespace is not. A
line NPU508 already reports (`_make_lazy_cuda_func("op")(...)`, migrate/called_kernels.py) is not reported twice.

Facts are recorded per file (the Python call sites with the string names they pass, the C++ op registrations),
cached with it; the match is made after the scan from the facts alone: nothing is parsed again.
"""

from __future__ import annotations

import ast
import re

from migrate.context import walk_nodes
from migrate.findings import Category, FileResult, Finding, Severity

CODE = "NPU508"
SITE = "namedop"  # fact kind: a Python call site passing string names (name: the names; why: the column)
OP = "cppop"  # fact kind: a C++ op registration (name: `ns::op`; cuda: the namespace is built for CUDA in this file)

_LIBRARY = re.compile(r"\b(?:STABLE_)?TORCH_LIBRARY(?:_FRAGMENT)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_IMPL = re.compile(r"\b(?:STABLE_)?TORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)")
_OP_NAME = re.compile(r"^[A-Za-z_]\w*$")
_ERROR = "does not exist on an NPU host until its kernels are ported to Ascend C (registered with torch_npu) or " \
         "replaced by torch / torch_npu ops"


def cpp_facts(path: str, text: str):
    """The ops a C++ / CUDA source registers (`m.def("name(...)")`, `m.impl("name", ...)` inside a
    `TORCH_LIBRARY[_IMPL|_FRAGMENT]` block), as `cppop` definitions `ns::op`; cuda when the file is a `.cu` / `.cuh`
    source or the block is a CUDA implementation."""
    from migrate.repo_index import Definition

    out = []
    cuda_file = path.endswith((".cu", ".cuh"))
    blocks = [(m.end(), m.group(1), m.group(2), False) for m in _LIBRARY.finditer(text)]
    blocks += [(m.end(), m.group(1), m.group(3), m.group(2) == "CUDA") for m in _IMPL.finditer(text)]
    for start, namespace, handle, cuda in blocks:
        body = _block(text, start)
        if body is None:
            continue
        pattern = re.compile(r"\b" + re.escape(handle) + r"\s*\.\s*(?:def|impl)\s*\(\s*(?:TORCH_SELECTIVE_SCHEMA\s*\(\s*)?\"(\w+)")
        for match in pattern.finditer(text, body[0], body[1]):
            line = text.count("\n", 0, match.start(1)) + 1
            out.append(Definition(OP, f"{namespace}::{match.group(1)}", path, line, cuda_file or cuda))
    return out


def _block(text: str, start: int) -> tuple[int, int] | None:
    """The span of the `{ ... }` block opening after `start` (braces counted; None when there is none)."""
    opening = text.find("{", start)
    if opening < 0 or text[start:opening].strip():
        return None
    depth = 0
    for position in range(opening, len(text)):
        char = text[position]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return opening, position
    return opening, len(text)


def python_facts(ctx) -> list:
    """This file's call sites passing string names to a call whose result is called: `F(..., "op")(...)`, and
    `v = F(..., "op")` in a function whose later `v(...)` calls it (the assignment and each call)."""
    from migrate.repo_index import Definition

    out = []
    functions: dict[int, dict[str, str]] = {}  # id(function) -> its locals bound only to string literals
    # the names any assignment of the file binds to an op-name literal: a name outside it is no function's string
    # local, and its function is not walked (most calls pass names; few files bind op names to them)
    string_bound = {target.id for statement in ctx.nodes.get(ast.Assign, ())
                    if isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
                    and _OP_NAME.match(statement.value.value)
                    for target in statement.targets if isinstance(target, ast.Name)}

    def names(call: ast.Call) -> list[str]:
        function, looked = None, False  # looked up at the first string-bound name passed: most calls pass none
        found = []
        for value in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and _OP_NAME.match(value.value):
                found.append(value.value)
            elif isinstance(value, ast.Name) and value.id in string_bound:
                if not looked:
                    function, looked = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)), True
                if function is not None:
                    found += _string_locals(function, functions).get(value.id, [])
        return found

    def add(node: ast.AST, found: list[str]) -> None:
        out.append(Definition(SITE, " ".join(sorted(set(found))), ctx.path, node.lineno, False, str(node.col_offset)))

    for call in ctx.nodes.get(ast.Call, ()):
        if isinstance(call.func, ast.Call) and not _builtin(call.func):
            found = names(call.func)
            if found:
                add(call, found)
    called: dict[tuple[int, str], list[ast.Call]] | None = None
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if not (isinstance(value, ast.Call) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and not _builtin(value)):
            continue
        found = names(value)  # first: most assigned calls pass no op name, and then where they stand does not matter
        if not found:
            continue
        function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        if function is None:
            continue
        if called is None:  # the calls of plain names, by their function: once per file
            called = {}
            for call in ctx.nodes.get(ast.Call, ()):
                if isinstance(call.func, ast.Name):
                    scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
                    called.setdefault((id(scope), call.func.id), []).append(call)
        uses = [c for c in called.get((id(function), statement.targets[0].id), ()) if c.lineno > statement.lineno]
        if uses:
            add(statement, found)
            for use in uses:
                add(use, found)
    return out


# the standard library's type factories: the string they are given names the type they create (`Max_out =
# namedtuple("max", ["values", "indices"])` then `Max_out(values=v, indices=i)`, FlagGems' ops/max.py), no op
_TYPE_FACTORIES = frozenset({"namedtuple", "NamedTuple", "TypedDict", "NewType", "TypeVar", "make_dataclass"})


def _builtin(call: ast.Call) -> bool:
    """`getattr(...)` / `hasattr(...)`: an op looked up on a named object (migrate/called_kernels.py reads those);
    a type factory (`collections.namedtuple("max", ...)`): the string is the new type's name."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr in _TYPE_FACTORIES
    return isinstance(func, ast.Name) and (func.id in ("getattr", "hasattr", "partial", "cast") or func.id in _TYPE_FACTORIES)


def _string_locals(function, memo: dict) -> dict[str, list[str]]:
    """The function's local names every assignment of which binds a string literal (`op_name = "gemm_bf16"`)."""
    found = memo.get(id(function))
    if found is None:
        values: dict[str, list[str]] = {}
        other: set[str] = set()
        for node in walk_nodes(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if not isinstance(target, ast.Name):
                        continue
                    value = node.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str) and _OP_NAME.match(value.value):
                        values.setdefault(target.id, []).append(value.value)
                    else:
                        other.add(target.id)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
                target = getattr(node, "target", None)
                if isinstance(target, ast.Name):
                    other.add(target.id)
        arguments = {a.arg for a in function.args.args + function.args.kwonlyargs + function.args.posonlyargs}
        found = memo[id(function)] = {k: v for k, v in values.items() if k not in other and k not in arguments}
    return found


def report(results: list[FileResult]) -> list[FileResult]:
    """NPU508 on each recorded call site passing the registered name of an op whose namespace the scan builds for
    CUDA (see the module docstring), unless NPU508 already reports that line."""
    ops: dict[str, list] = {}  # op name -> [(namespace, path, line)]
    cuda: set[str] = set()
    sites = False
    for result in results:
        for fact in result.facts or ():
            if fact[0] != "def":
                continue
            if fact[1] == OP:
                namespace, op = fact[2].split("::", 1)
                ops.setdefault(op, []).append((namespace, result.path, fact[3]))
                if fact[4]:
                    cuda.add(namespace)
            elif fact[1] == "namespace" and fact[4]:
                cuda.add(fact[2])
            elif fact[1] == SITE:
                sites = True
    if not (sites and ops and cuda):
        return results
    out = []
    for result in results:
        facts = [f for f in result.facts or () if f[0] == "def" and f[1] == SITE]
        reported = {f.line for f in result.findings if f.code == CODE}
        added = []
        for fact in facts:
            line = fact[3]
            registered = [(name, where) for name in fact[2].split() for where in ops.get(name, ()) if where[0] in cuda]
            if not registered or line in reported:
                continue
            reported.add(line)
            name, (namespace, path, defined) = registered[0]
            column = int(fact[5]) if len(fact) > 5 and str(fact[5]).isdigit() else 0
            message = f"`{name}` is called through a project accessor that fetches the op `torch.ops.{namespace}.{name}` " \
                      f"by its registered name (the op of a custom CUDA extension, registered at {path}:{defined}): {_ERROR}"
            added.append(Finding(result.path, line, column + 1, line, column + 1, CODE, Severity.ERROR,
                                 Category.THIRD_PARTY, message, package=f"torch.ops.{namespace}"))
        out.append(result.adding(added))
    return out
