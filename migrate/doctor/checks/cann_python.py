"""CANN's own Python dependencies (its install guide's list: numpy, decorator, sympy, cffi,
protobuf, attrs, cython, pyyaml, pathlib2, scipy, requests, psutil, absl-py), read from installed
metadata in the training Python, never imported. Missing ones break CANN's Python parts (op
compilation, `te`/`tbe`), not `import torch_npu` itself."""
from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from migrate.doctor import stack
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "cann_python"
TITLE = "CANN's Python dependencies"


def _requirement(dep: dict) -> str:
    return f"'{dep['dist']}{dep['spec']}'" if dep["spec"] else dep["dist"]


def run(host: Host, done: dict) -> CheckResult:
    cann = done.get("cann")
    if cann is not None and not cann.facts.get("installed"):
        return CheckResult(ID, TITLE, Status.SKIP, "no CANN toolkit: its Python dependencies are "
                           "not needed here")
    deps, source = stack.python_deps()
    missing, off = [], []
    evidence = []
    for dep in deps:
        version = host.version_of(dep["dist"])
        if version is None:
            missing.append(dep)
            evidence.append(f"{dep['dist']}: not installed")
            continue
        try:
            ok = not dep["spec"] or SpecifierSet(dep["spec"]).contains(version, prereleases=True)
        except InvalidSpecifier:
            ok = True
        evidence.append(f"{dep['dist']} {version}" + ("" if ok else f" (CANN wants {dep['spec']})"))
        if not ok:
            off.append(dep)
    evidence.append(f"list: {source}")
    if missing:
        wrong = f"; {len(off)} at a version CANN does not list" if off else ""
        return CheckResult(ID, TITLE, Status.FAIL,
                           f"{len(missing)} missing: {', '.join(d['dist'] for d in missing)}{wrong}",
                           tuple(evidence), fix="pip install " + " ".join(
                               _requirement(d) for d in missing + off),
                           facts={"missing": [d["dist"] for d in missing]})
    if off:
        return CheckResult(ID, TITLE, Status.WARN,
                           ", ".join(f"{d['dist']} {host.version_of(d['dist'])} (CANN wants "
                                     f"{d['spec']})" for d in off), tuple(evidence),
                           fix="pip install " + " ".join(_requirement(d) for d in off),
                           facts={"missing": []})
    return CheckResult(ID, TITLE, Status.PASS, f"all {len(deps)} installed", tuple(evidence),
                       facts={"missing": []})
