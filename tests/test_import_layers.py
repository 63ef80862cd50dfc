"""checks/ has no import loop and no private name crossing modules (static: the imports parsed with ast).

Every import counts, also the ones inside functions (a lazy import still ties the two modules
together). The torch_npu stand-in (checks/standin) is a package of its own and is left out.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

CHECKS = ROOT / "checks"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(CHECKS.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        if "standin" in rel.parts:
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The checks module that `name` (a module or a module's attribute) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported checks module, imported name or "", line) of every import in the file."""
    out = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(owner, "", node.lineno) for a in node.names if (owner := _owner(a.name))]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in MODULES:  # `from checks import smoke`: the module itself
                    out.append((full, "", node.lineno))
                elif owner := _owner(base):
                    out.append((owner, a.name, node.lineno))
    return out


GRAPH = {m: {dep for dep, _, _ in _imports(m, p) if dep != m} for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_finder_sees_a_loop():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert GRAPH["checks.smoke"], "the parser found no import in checks/smoke.py"


def test_no_import_loop_inside_checks():
    loops = _cycles(GRAPH)
    detail = [{m: sorted(GRAPH[m] & set(loop)) for m in loop} for loop in loops]
    assert not loops, f"import loops in checks/: {detail}"


def test_no_private_name_crosses_modules():
    crossing = [f"{path.relative_to(ROOT)}:{line} imports {name} from {dep}"
                for module, path in MODULES.items() for dep, name, line in _imports(module, path)
                if dep != module and name.startswith("_") and not name.startswith("__")]
    assert not crossing, "\n".join(crossing)
