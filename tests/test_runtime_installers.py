"""A repository's own pip installer called with a GPU-only requirement (migrate/runtime_installers.py, NPU502).

The fixtures are small trees written here in the shape of a detector whose utilities install a missing requirement
at run time and whose exporter asks for the inference runtime it needs, not copies of any repository.
"""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import write_files

NEWEST = "2.14.0"

GENERAL = """\
from pathlib import Path
from subprocess import check_output

import pkg_resources as pkg

ROOT = Path(__file__).parent.parent


def check_requirements(requirements=ROOT / 'requirements.txt', exclude=(), install=True):
    if isinstance(requirements, (str, Path)):
        requirements = [requirements]
    else:
        requirements = [x for x in requirements if x not in exclude]
    for r in requirements:
        try:
            pkg.require(r)
        except Exception:
            if install:
                print(check_output(f"pip install '{r}'", shell=True).decode())


def check_version(requirements, exclude=()):
    for r in requirements:
        pkg.require(r)  # raises: installs nothing
"""

EXPORT = """\
import torch

from utils.general import check_requirements, check_version
from utils import general


def export_engine(model, cuda):
    check_requirements(('tensorrt',))
    check_requirements(('onnx', 'onnxruntime-gpu' if cuda else 'onnxruntime'))
    check_requirements(exclude=('tensorrt',))
    check_version(('tensorrt',))
    general.check_requirements(['tensorrt>=7.0.0'])
    import tensorrt as trt
    return trt.Builder(trt.Logger())
"""


def _npu502(tmp_path: Path) -> list[tuple[str, int]]:
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    return sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU502")


def test_a_literal_gpu_only_requirement_handed_to_the_repositorys_pip_installer_is_an_install(tmp_path):
    write_files(tmp_path, {"utils/__init__.py": "", "utils/general.py": GENERAL, "export.py": EXPORT})
    # the plain literal (also through the module); not the device choice, another parameter, nor a check installing nothing
    assert _npu502(tmp_path) == [("export.py", 8), ("export.py", 12)]
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    message = next(f.message for f in result.findings if f.code == "NPU502")
    assert "pip-installs `tensorrt` at run time" in message and "general.py:19" in message
    assert next(f.package for f in result.findings if f.code == "NPU502") == "tensorrt"


def test_a_local_installer_and_an_argument_list(tmp_path):
    write_files(tmp_path, {"setup_env.py": """\
import subprocess
import sys


def ensure(package):
    name = package.split('==')[0]
    subprocess.check_call([sys.executable, '-m', 'pip', 'install', package])
    return name


def check_requirements(requirements):  # named like an installer, installs nothing
    return all(r for r in requirements)


ensure('flash-attn==2.5.6')
ensure('numpy')
check_requirements(('tensorrt',))
"""})
    assert _npu502(tmp_path) == [("setup_env.py", 15)]


NESTED = """\
import subprocess


class Setup:
    def install_all(self, packages):
        def each():
            for package in packages:
                subprocess.check_call(['pip', 'install', package])
        each()

    def describe(self, packages):
        return ', '.join(packages)


async def fetch(name):
    subprocess.run(f"pip install {name}", shell=True)
"""


def _every_function_walked(ctx):
    """installer_defs as it was: each function's whole body walked for its pip install calls."""
    import ast

    from migrate import runtime_installers as ri

    out = []
    for function in (*ctx.nodes.get(ast.FunctionDef, ()), *ctx.nodes.get(ast.AsyncFunctionDef, ())):
        calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
        installs = [found for found in (ri._installed_names(ctx, c) for c in calls) if found is not None]
        if not installs:
            continue
        positional = ri._parameters(function)
        for index, parameter in enumerate([*positional, *(a.arg for a in function.args.kwonlyargs)]):
            tainted = ri._derived(function, parameter)
            line = next((line for names, line in installs if names & tainted), None)
            if line is not None:
                position = index if index < len(positional) else -1
                out.append((function.name, line, f"{position} {parameter}"))
    return out


def test_only_the_functions_holding_an_install_are_walked_with_the_same_definitions():
    """installer_defs reads the module's calls once and walks only the functions around an installing one
    (nested functions mark each enclosing one): the same definitions as walking every function."""
    import ast

    from migrate import knowledge
    from migrate.context import PythonContext
    from migrate.runtime_installers import installer_defs

    for source in (NESTED, GENERAL, EXPORT):
        ctx = PythonContext("m.py", source, ast.parse(source), knowledge.load(NEWEST))
        got = [(d.name, d.line, d.why) for d in installer_defs(ctx)]
        assert got == _every_function_walked(ctx)
    ctx = PythonContext("m.py", NESTED, ast.parse(NESTED), knowledge.load(NEWEST))
    assert {d.name for d in installer_defs(ctx)} == {"install_all", "fetch"}  # the install in `each` is of its parent's parameter
