"""checks/ has no import loop, no import from a lower floor back up and no private name crossing
modules (static: the imports parsed with ast).

Every import counts, also the ones inside functions (a lazy import still ties the two modules
together). The torch_npu stand-in (checks/standin) is a package of its own and is left out.

The floors of checks/, lowest first (see checks/__init__.py and docs/CONTRACT.md): a module imports
from its own floor's package or from a lower floor, never from a higher one, and never from another
package of its own floor (validate and profile know nothing of each other). The package itself
(`checks`, its __init__: the project root and `module_file`) is under every floor.
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


FLOORS = (
    ("launch",),  # the parent-child contract: ChildConfig, backend detection, the process guard, the child report, warm start
    ("emulation",),  # the CPU stand-in's helpers: device map and runtime, CUDA twin, fake data, autocast, compat
    ("child",),  # what runs inside the child: the bootstrap, the spawn main, the recorder, the op trace, probes
    ("verdict",),  # pure judging: one process, every rank, spawned ranks
    ("smoke",),  # the one-process smoke runner and its mp.spawn ranks
    ("distributed",),  # torchrun ranks
    ("validate", "profile"),  # the stages built on smoke and distributed runs
)
# The profile package's child side (imported by the bootstrap when profiling) stands on the child floor.
PROFILE_CHILD_SIDE = frozenset(f"checks.profile.{m}" for m in ("child", "tracer", "frames", "dataload", "fusedopt", "fusion",
                                                                 "hostsync", "ascend"))
FLOOR_OF = {package: level for level, packages in enumerate(FLOORS) for package in packages}


def _place(module: str) -> tuple[int, str] | None:
    """(floor, package) of a checks module; (-1, "checks") for the package's own __init__; None: on no floor."""
    if module == "checks":
        return -1, "checks"
    if module in PROFILE_CHILD_SIDE:
        return FLOOR_OF["child"], "child"
    package = module.split(".")[1]
    if package not in FLOOR_OF:  # a module straight in checks/ (checks/x.py), or an unknown folder
        return None
    return FLOOR_OF[package], package


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
    assert GRAPH["checks.smoke.run"], "the parser found no import in checks/smoke/run.py"


def test_no_import_loop_inside_checks():
    loops = _cycles(GRAPH)
    detail = [{m: sorted(GRAPH[m] & set(loop)) for m in loop} for loop in loops]
    assert not loops, f"import loops in checks/: {detail}"


def test_the_floor_check_sees_an_upward_import():
    assert _upward({"checks.launch.process": {"checks.smoke.run"}, "checks.smoke.run": {"checks.launch.process"}}) == [
        "checks.launch.process imports checks.smoke.run (a higher floor)"]
    assert _upward({"checks.validate.report": {"checks.profile.report"}}) == [
        "checks.validate.report imports checks.profile.report (a higher floor)"]
    assert _upward({"checks.profile.child": {"checks.profile.run"}}) == [
        "checks.profile.child imports checks.profile.run (a higher floor)"]
    assert _upward({"checks.child.bootstrap": {"checks.profile.child", "checks.emulation.compat", "checks"}}) == []


def _upward(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, deps in sorted(graph.items()):
        here = _place(module)
        for dep in sorted(deps):
            there = _place(dep)
            if here and there and there[1] != here[1] and there[0] >= here[0]:
                out.append(f"{module} imports {dep} (a higher floor)")
    return out


def test_every_module_stands_on_a_floor():
    """A new module goes into the floor it belongs to (a checks/*.py straight in checks/ has none)."""
    homeless = [m for m in MODULES if _place(m) is None]
    assert not homeless, f"modules on no floor of checks/ (see FLOORS): {homeless}"


def test_no_import_from_a_lower_floor_back_up():
    assert not (upward := _upward(GRAPH)), "\n".join(upward)


def test_no_private_name_crosses_modules():
    crossing = [f"{path.relative_to(ROOT)}:{line} imports {name} from {dep}"
                for module, path in MODULES.items() for dep, name, line in _imports(module, path)
                if dep != module and name.startswith("_") and not name.startswith("__")]
    assert not crossing, "\n".join(crossing)
