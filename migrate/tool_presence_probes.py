"""Functions that only ask whether a CUDA tool is installed, by running it with nothing to do (NPU504, NPU505; label
rule 48c c-1, read like a shell launcher's `command -v nvcc`, label ruling (L64)):

    @lru_cache(None)
    def cuda_toolkit_available():
        try:
            call(["nvcc"], stdout=DEVNULL, stderr=DEVNULL)    # runs nvcc bare, output thrown away: is it there?
            return True
        except FileNotFoundError:
            return False

    def ext_modules():
        if not cuda_toolkit_available():                       # the CUDA gate of the build (label ruling (L21))
            return []
        return [CUDAExtension("pkg_cuda", sources=["k.cu"])]

The run compiles nothing and prints nothing: the tool's string there is no use of it (neither NPU504 nor NPU505).
What the answer decides is: an `if` asking it that skips or stops a reported build (`if not probe(): return []`
before it, or `if probe():` around it) is the build's CUDA gate, False on an Ascend host (NPU505).
A presence probe is a function of the file whose body holds a `try:` that runs a list or tuple holding only the
tool's name (a path ending in it too) and returns True, and whose handlers (`FileNotFoundError`, `OSError`,
`subprocess.CalledProcessError`, `Exception`, bare) return False. A run given arguments (`["nvcc", "--version"]`, a
source to compile) is not one: it is read by the version-probe and build readers.
"""

from __future__ import annotations

import ast
import re

from migrate.context import walk_nodes

_TOOL = re.compile(r"^(?:\S*/)?(nvcc|nvidia-smi)$")
_MISSING = frozenset({"FileNotFoundError", "OSError", "CalledProcessError", "Exception", "EnvironmentError"})


def _returns(body: list, value: bool) -> bool:
    return any(isinstance(s, ast.Return) and isinstance(s.value, ast.Constant) and s.value.value is value for s in body)


def _bare_run(node) -> ast.Constant | None:
    """The tool string of a call whose first argument is a list or tuple holding only the tool's name."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))):
        return None
    elts = node.args[0].elts
    if len(elts) == 1 and isinstance(elts[0], ast.Constant) and isinstance(elts[0].value, str) \
            and _TOOL.match(elts[0].value.strip()):
        return elts[0]
    return None


def _catches_missing(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "") in _MISSING
               for t in types)


def presence_probes(ctx) -> dict[str, str]:
    """Function name -> the tool it probes for, for the file's presence probes."""
    cached = ctx.__dict__.get("_npu_presence_probes")
    if cached is not None:
        return cached
    out: dict[str, str] = {}
    if "nvcc" in ctx.source or "nvidia-smi" in ctx.source:
        for function in ctx.nodes.get(ast.FunctionDef, ()):
            for node in walk_nodes(function):
                if not isinstance(node, ast.Try) or not node.handlers:
                    continue
                runs = [tool for s in node.body for n in walk_nodes(s) if (tool := _bare_run(n)) is not None]
                if len(runs) == 1 and _returns(node.body, True) \
                        and all(_catches_missing(h) and _returns(h.body, False) for h in node.handlers):
                    out[function.name] = _TOOL.match(runs[0].value.strip()).group(1)
                    break
    ctx.__dict__["_npu_presence_probes"] = out
    return out


def probed_tool_string(ctx, node) -> bool:
    """`node` is the tool's name in a presence probe's bare run (not a use of the tool)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    probes = presence_probes(ctx)
    if not probes:
        return False
    function = ctx.enclosing(node, (ast.FunctionDef,))
    if function is None or function.name not in probes:
        return False
    holder = ctx.parent(ctx.parent(node))
    return _bare_run(holder) is node


def asks_for(ctx, test, tool: str) -> bool:
    """`test` is a call of a presence probe of `tool` of this file (`cuda_toolkit_available()`)."""
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and not test.args \
        and presence_probes(ctx).get(test.func.id) == tool and ctx.qualname(test.func) is None
