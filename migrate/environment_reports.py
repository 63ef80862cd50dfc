"""Functions that report the environment: the CUDA toolkit's home recorded under a name for a printed summary (NPU505).

An environment-report helper reads `CUDA_HOME` to describe the host, not to build or check anything:

    def collect_env():
        env_info = {}
        if torch.cuda.is_available():
            CUDA_HOME = torch.utils.cpp_extension.CUDA_HOME
            env_info['CUDA_HOME'] = CUDA_HOME                    # recorded under its name
            if CUDA_HOME is not None and osp.isdir(CUDA_HOME):   # only picks what else to record
                nvcc = osp.join(CUDA_HOME, 'bin/nvcc')
                ...
        return env_info

    data.append(("CUDA_HOME", str(CUDA_HOME)))                    # a (name, value) row of a table

On a host without the toolkit the report shows None; nothing fails. `CUDA_HOME` outside a build file is no label
(label ruling (L37): it is one in a build file; set 48 notes b-5, d-5). A function is such a report when one of its
statements records a `CUDA_HOME` read under a string key: a subscript store with a constant key, a dict display's
value under a string key, or a tuple whose first item is a string constant (appended to a list of rows). Its other reads of `CUDA_HOME` go with it, except a
test whose branch raises or exits (a requirement, still reported). The tool a report runs (`nvcc -V`, `cuobjdump`
through `subprocess`) is another finding's (label ruling (L45)), untouched here.
"""

from __future__ import annotations

import ast


def _recorded(ctx, node) -> bool:
    """`info['CUDA_HOME'] = <node>` or `("CUDA_HOME", str(<node>))`: the read is stored under a string name."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Tuple) and parent.elts and child is not parent.elts[0] \
                and isinstance(parent.elts[0], ast.Constant) and isinstance(parent.elts[0].value, str):
            return True
        if isinstance(parent, ast.Dict) and any(value is child and isinstance(key, ast.Constant) and isinstance(key.value, str)
                                                for key, value in zip(parent.keys, parent.values)):
            return True  # `return {"CUDA_HOME": CUDA_HOME, ...}`
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Assign) and child is parent.value:
        return any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)
                   for t in parent.targets)
    return False


def _raising_test(ctx, node) -> bool:
    """The read is in the test of an `if` / `assert` that raises or exits (a requirement)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Assert):
        return True
    if isinstance(parent, ast.If) and child is parent.test:
        for statement in ast.walk(parent):
            if isinstance(statement, ast.Raise):
                return True
            if isinstance(statement, ast.Call) and ast.unparse(statement.func) in ("sys.exit", "exit", "quit", "os._exit"):
                return True
    return False


def _returned_to_reports(ctx, node) -> bool:
    """`return CUDA_HOME` of a module-level helper (`def _get_cuda_home(): from torch.utils.cpp_extension import
    CUDA_HOME; return CUDA_HOME`, mmcv's collect_env as vendored by HunyuanVideo, labeller note 70e) whose every call
    in the file is recorded under a string name, directly (`env_info['CUDA_HOME'] = _get_cuda_home()`) or through
    the name it is bound to (`CUDA_HOME = _get_cuda_home()` then `env_info['CUDA_HOME'] = CUDA_HOME`): the helper only
    feeds the report."""
    if not isinstance(ctx.parent(node), ast.Return):
        return False
    helper = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if helper is None or ctx.parent(helper) is not ctx.tree:
        return False
    calls = [c for c in ctx.nodes.get(ast.Call, ()) if isinstance(c.func, ast.Name) and c.func.id == helper.name]
    mentions = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == helper.name]
    if not calls or len(calls) != len(mentions):
        return False  # named otherwise too (handed on, re-exported): not read as a report's helper
    for call in calls:
        if _recorded(ctx, call):
            continue
        bound = ctx.parent(call)
        function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        if not (isinstance(bound, ast.Assign) and bound.value is call and len(bound.targets) == 1
                and isinstance(bound.targets[0], ast.Name) and function is not None):
            return False
        name = bound.targets[0].id
        if not any(n.id == name and isinstance(n.ctx, ast.Load) and _recorded(ctx, n)
                   and ctx.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef)) is function
                   for n in ctx.nodes.get(ast.Name, ())):
            return False
    return True


def report_reads(ctx, reads: list) -> set[int]:
    """id() of each read in `reads` (the `CUDA_HOME` loads of the file) that belongs to an environment report: in a
    function one of whose reads is recorded under a string name, and not the test of a raising check."""
    reporting = set()
    for node in reads:
        if _recorded(ctx, node) or _returned_to_reports(ctx, node):
            function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if function is not None:
                reporting.add(id(function))
    if not reporting:
        return set()
    return {id(node) for node in reads
            if id(ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))) in reporting and not _raising_test(ctx, node)}


def report_functions(ctx, home: str) -> frozenset[int]:
    """id() of each function of the file that records a read of `home` (the qualified name of `CUDA_HOME`) under a
    string name: an environment report."""
    cached = ctx.__dict__.get("_npu_environment_reports")
    if cached is None:
        reads = [node for node in list(ctx.nodes.get(ast.Name, ())) + list(ctx.nodes.get(ast.Attribute, ()))
                 if isinstance(node.ctx, ast.Load) and ctx.qualname(node) == home]
        cached = frozenset(id(function) for node in reads if _recorded(ctx, node)
                           and (function := ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))) is not None)
        ctx.__dict__["_npu_environment_reports"] = cached
    return cached


def tool_path(ctx, node, home: str) -> bool:
    """The string `node` is a part of a tool's path joined inside an environment report (`nvcc = osp.join(CUDA_HOME,
    'bin/nvcc')`): the path only names the tool; its run, where the report runs it, is the finding (label note b-5)."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, (ast.Attribute, ast.Name))
            and (parent.func.attr if isinstance(parent.func, ast.Attribute) else parent.func.id) == "join"):
        return False
    functions = report_functions(ctx, home)
    return bool(functions) and id(ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))) in functions
