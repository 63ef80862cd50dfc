"""A repository module that every importer imports inside `try: ... except ImportError / Exception:` is optional.

mobiusml/hqq: `hqq/backends/marlin.py` does `import marlin` at its top, and its only importers
(`hqq/models/base.py`, `hqq/utils/patching.py`) import it as `try: from ..backends.marlin import MarlinLinear /
except Exception: pass`: on a host without marlin (an NPU host) the program goes on without that backend. Like an
optional import of the package itself (NPU501's import-attempt fallbacks), the module's GPU-only imports and
uses (NPU501, NPU507, NPU404) are dropped. So are those of a module imported only under an availability check
(`if is_flashinfer_available():`, or the `else:` of an import attempt of such a package: `try: from megablocks import
ops / except ModuleNotFoundError: pass / else: from .megablock_moe import MegaBlockMoE`) or a CUDA-device branch (`if "cuda" in str(device):`, `if device.type == "cuda":`,
`if torch.cuda.is_available():`, the project's own probe `if is_fp8_supported_gpu():`: on an NPU host the other
branch runs; not an import in such a branch whose name the importer reads outside every such branch, nothing else
binding it: `return nms_gpu(dets, thresh) if force_cpu == False else nms_cpu(dets, thresh)` under a user switch fails
with a NameError on an NPU host, label ruling (L74), `_used_outside_cuda_branch`) or by a method of a backend class
answering for its own package (`probed_backends`: xinference's vLLM backend, whose `check_lib` the engine registry asks,
imports its xavier engine in `load`), and of a module whose other importers are
themselves optional modules (relaying it: ChatTTS model/cuda/__init__.py `from .te_llama import
TELlamaModel`, the package imported only in gpt.py's CUDA branch; an ordinary module too: xtuner's MoE Triton kernels
reach the CUDA branch of its device dispatch through ops/moe/cuda/group_gemm.py and cuda/__init__.py). An import attempt whose handler defines a substitute for a name it binds (croco's `except ImportError: class
RoPE2D(torch.nn.Module): ...` beside `RoPE2D = cuRoPE2D`) is such a check too: the program has its own path without the
module, whose compiled extension's uses go as well (label note 41a-1). A module inside a package importing that package
(`from . import ext`) is no importer of its `__init__`, which runs first anyway. A module no scanned file imports, or that one
importer imports outside such a guard, keeps them. A module's own unit test (a file under tests/, test_*.py) importing it
unguarded does not count where some file outside the tests imports it: it tests that side (label note 40d-3).

The repository's own Triton / numba.cuda kernels stay reported in a module imported only in a `try:` (label ruling
(L42), rule (y5): a stand-in that raises or is None fails the call on an NPU host). They are dropped where the module is
reached only through a selection that checks the package first: every import of it is under an availability check, a
CUDA-device branch, an import attempt that records an availability flag (`except ImportError: _TRITON_AVAILABLE =
False`, or `except ImportError: step = None` where the importer tests `step is None` / `Norm is not None` before
use: label ruling 40b-4), or a branch of a backend registry that requires the package (`if backend == "auto_round:tritonv2":` where the
module registers `BackendInfos["auto_round:tritonv2"] = BackendInfo(..., requirements=["triton>=2.0"])` and checks
the registered requirements, `require_version(requirement)`: the backend is offered only where the package is, another
one otherwise), or is made by a module itself reached only so (auto-round qlinear_tritonv2.py imports its Triton
kernels in a `try:` whose stand-in raises, and only the registry's Triton branch imports qlinear_tritonv2.py).
A factory that a kernel registry
calls only where the hardware it is registered for is present (ByteDance-Seed/VeOmni ops/kernels/moe/__init__.py:
`def _quack_kernel_factory(): from .quack_gemm import quack_gemm_fused_moe_forward ...` registered as
`KERNEL_REGISTRY.register(KernelSpec(name="quack", ..., factory=_quack_kernel_factory,
hardware=HardwareRequirement(device_type="gpu", min_compute_capability=90)))`, whose `resolve()` checks the hardware
before it calls the factory and raises a clear error otherwise) is the CUDA branch of a device selection (label rulings
(L56)/(L88): a registry of per-device kernel backends): its imports are CHECKED (`gated_factories`).
A check in the module binding a name protects nothing where another module imports that name from it outside any guard
(ColossalAI-like: kernels/triton/__init__.py binds `context_attention_unpadded` only `if HAS_TRITON:`, and the inference
backend does `from pkg.kernel.triton import context_attention_unpadded` at its top, which fails without triton): that
binding counts as an unguarded import of the kernels' module (`_needed_reexports`), the others under it stay guarded.
An attempt whose handler stops the program (`except ImportError as e: log_and_raise(f"...{e}")`, a `raise`) is a
required import with a clearer error, not a guard (label ruling (L34), `_stops`).
Decided after the scan: the importers are found from the import references
each file recorded ("ref" facts), and only those files are read and parsed again.
"""

from __future__ import annotations

import ast
import bisect
import collections
import re

from migrate import fileio
from migrate.context import subtree, walk_nodes
from migrate.findings import FileResult
from migrate.repo_index import module_parts

CODES = frozenset({"NPU501", "NPU507", "NPU404"})
# kernel languages: a module holding the repository's own Triton / numba.cuda kernels stays work to port even when it is
# imported optionally (GPTQ-for-LLaMa quant/fused_mlp.py imports its autotuner and kernels inside `try:`); label rule (y5)
_KERNEL_LANGUAGES = frozenset({"triton", "numba"})
_CATCHES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


# how an import is guarded (the `guarded` of `tree_imports`): not at all, in a `try:` only, or behind a check of the package
UNGUARDED, TRIED, CHECKED = 0, 1, 2


def _droppable(finding) -> bool:
    return finding.code in CODES and not _kernel(finding)


def _kernel(finding) -> bool:
    """A kernel of the repository's own (Triton / numba), or a use of its own compiled extension (NPU508: vendored
    AutoGPTQ's qlinear_exllama.py calling `exllama_kernels.q4_matmul`, imported only under `if ... and
    EXLLAMA_KERNELS_AVAILABLE:`): dropped only where every way in checks first (label notes 40d-9, (L42))."""
    if finding.code == "NPU508":
        return True
    return finding.code in CODES and (finding.package or "").split(".", 1)[0] in _KERNEL_LANGUAGES


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    if kinds is None:  # a bare `except:`
        return True
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    return any(isinstance(n, ast.Name) and n.id in _CATCHES or isinstance(n, ast.Attribute) and n.attr in _CATCHES
               for n in names)


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _imports(node: ast.AST, guarded: int, out: list, keys: frozenset = frozenset(),
             unprobed: frozenset = frozenset()) -> None:
    """(import node, guarded) for every import under `node`; guarded: TRIED inside the body of a `try` whose handlers
    catch a failed import, CHECKED behind a check of the package (`_checks_package`, `_records_a_flag`)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        out.append((node, guarded))
        return
    if isinstance(node, ast.Try):
        inner = max(guarded, _try_level(node, keys))
        # `try: from .correlation import correlation / except: import correlation` (softmax-splatting run.py): the
        # handler imports the same module another way, so the program needs it either way
        fallback = {name for h in node.handlers for n in ast.walk(h) if isinstance(n, (ast.Import, ast.ImportFrom))
                    for name in _last_names(n)}
        body: list = []
        for statement in node.body:
            _imports(statement, inner, body, keys, unprobed)
        out.extend((n, UNGUARDED if fallback & _last_names(n) else g) if not guarded else (n, g) for n, g in body)
        for part in (node.handlers, node.orelse, node.finalbody):
            level = CHECKED if part is node.orelse and _else_of_package(node) else guarded
            for statement in part:
                _imports(statement, level, out, keys, unprobed)
        return
    if isinstance(node, ast.Module) and any(k.startswith(_FACTORY_KEY) for k in keys):
        for statement in node.body:
            _imports(statement, CHECKED if _factory_body(node, statement, keys) else guarded, out, keys, unprobed)
        return
    if isinstance(node, ast.ClassDef) and _backend_key(node) in keys:
        for statement in node.body:
            level = max(guarded, TRIED) if _backend_method(node, statement, keys) else guarded
            _imports(statement, level, out, keys, unprobed)
        return
    if isinstance(node, ast.If) and _checks_package(node.test, keys, unprobed):
        # xDiT attention_backend.py: `if env_info["has_flash_attn_4_fp4"]: from xfuser...fp4_quantize import ...`, the only
        # import of a module that imports flashinfer at its top: the program takes that path only where the package is
        for statement in node.body:
            _imports(statement, CHECKED, out, keys, unprobed)
        for statement in node.orelse:
            _imports(statement, guarded, out, keys, unprobed)
        return
    if isinstance(node, ast.If) and node.orelse and _npu_device_check(node.test):
        _imports(node.test, guarded, out, keys, unprobed)
        for statement in node.body:
            _imports(statement, guarded, out, keys, unprobed)
        for statement in node.orelse:
            _imports(statement, CHECKED, out, keys, unprobed)
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _HOLDS_STATEMENTS):  # an expression never holds an import (nor a lambda: one expression)
            _imports(child, guarded, out, keys, unprobed)


def _checks_package(test: ast.AST, keys: frozenset, unprobed: frozenset = frozenset()) -> bool:
    return _availability_check(test, keys) or _cuda_device_check(test, unprobed) or _registry_branch(test, keys)


def _try_level(node: ast.Try, keys: frozenset = frozenset()) -> int:
    """CHECKED for an import attempt whose handler records an availability flag (`except ImportError:
    _TRITON_AVAILABLE = False`: the program tests the flag before it uses the names, flagged_extensions.py, label rule
    27d-9), or binds an imported name to None that the module tests against None (`except ImportError:
    selective_state_update = None`, then `if selective_state_update is None: <torch path>` or `assert RMSNorm is not
    None, "RMSNorm import fails"`: the stand-in is checked before use, label ruling 40b-3/40b-4, `none_tests`), or
    defines a substitute for a name it binds (`_substitutes`), TRIED
    for another `try` catching a failed import, else UNGUARDED."""
    from migrate.rules.npu501_gpu_only_import import _FLAG

    handlers = [h for h in node.handlers if _catches_import_error(h)]
    if not handlers or all(_stops(h) for h in handlers):
        return UNGUARDED
    # a flag by its spelling (`HAS_TRITON`), or by its pair of bindings: True in the attempt's body after the import,
    # False in its handler (Sparse4D sparse4d.py `try: from ..ops import feature_maps_format; DAF_VALID = True / except:
    # DAF_VALID = False`, then `assert DAF_VALID` before the ops are used: label note 52c, (L60)/(L97))
    on = {t.id for s in node.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value is True
          for t in s.targets if isinstance(t, ast.Name)}
    flags = any(isinstance(target, ast.Name) and (_FLAG.match(target.id) or target.id in on) for h in handlers for s in h.body
                if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and s.value.value is False
                for target in s.targets)
    if not flags and _substitutes(node, handlers):
        return CHECKED
    if not flags and any(key.startswith(_NONE_KEY) for key in keys):
        imported = {alias.asname or alias.name.split(".")[0] for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom))
                    for alias in s.names}
        flags = bool({f"{_NONE_KEY}{name}" for name in _none_bound(handlers) & imported} & keys)
    return CHECKED if flags else TRIED


# a project helper named for raising (`log_and_raise(msg)`, `raise_import_error(...)`, `_raise_missing(...)`): its
# name says the call does not return
_RAISING_HELPER = re.compile(r"(?:^|_)raise(?:_|$)")


def _stops(handler: ast.ExceptHandler) -> bool:
    """The handler ends the program's way without the module: one of its statements is a `raise`, or a call of a
    helper named for raising (curobo's backends/__init__.py: `try: import ...cuda_core_backend.kinematics / except
    ImportError as e: log_and_raise(f"Error loading cuda.core backend: {e}"); return None`, the return unreachable). A
    required import with a clearer error is no optional path (label ruling (L34): a bare `try: import x / except
    ImportError: raise ...` stays a label), so what is reached only through it is not optional either."""
    return any(stops_the_program(statement) for statement in handler.body)


def stops_the_program(statement: ast.stmt) -> bool:
    """A `raise`, or a call of a helper named for raising (`log_and_raise(...)`): nvrtc_builds reads its toolkit
    checks' raises with it too."""
    if isinstance(statement, ast.Raise):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return bool(_RAISING_HELPER.search(name))


def _substitutes(node: ast.Try, handlers) -> bool:
    """A handler defines again, in plain code, a name the attempt's body binds from its imports: croco's
    models/pos_embed.py `try: from models.curope import cuRoPE2D / RoPE2D = cuRoPE2D / except ImportError: class
    RoPE2D(torch.nn.Module): ...` (a pure-PyTorch RoPE2D). The program has a working path without the imported module,
    so what is reached only through that import is optional, its compiled extension's uses too (label note 41a-1,
    (L26)/(L59)); a handler binding None or a flag is read by `_try_level` itself."""
    bound = {alias.asname or alias.name.split(".")[0] for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom))
             for alias in s.names}
    bound |= {t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    defined = {s.name for h in handlers for s in h.body
               if isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    return bool(bound & defined)


_NONE_KEY = "none:"  # a name the module tests against None, among the `keys` of `_imports` / `_guarded`


def _none_bound(handlers) -> set[str]:
    """The names the handlers bind to None (`x = None`, `a, b = None, None`, `a = b = None`)."""
    out = set()
    for handler in handlers:
        for statement in handler.body:
            if not isinstance(statement, ast.Assign):
                continue
            value = statement.value
            values = value.elts if isinstance(value, ast.Tuple) else None
            for target in statement.targets:
                if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and value.value is None:
                    out.add(target.id)
                elif isinstance(target, ast.Tuple) and values is not None and len(values) == len(target.elts):
                    out |= {t.id for t, v in zip(target.elts, values)
                            if isinstance(t, ast.Name) and isinstance(v, ast.Constant) and v.value is None}
    return out


def none_tests(tree: ast.Module, nodes: dict | None = None) -> frozenset[str]:
    """`none:NAME` for each plain name the module compares with None (`x is None`, `x is not None`)."""
    compares = nodes.get(ast.Compare, ()) if nodes is not None else (n for n in ast.walk(tree) if isinstance(n, ast.Compare))
    return frozenset(f"{_NONE_KEY}{c.left.id}" for c in compares
                     if isinstance(c.left, ast.Name) and len(c.ops) == 1 and isinstance(c.ops[0], (ast.Is, ast.IsNot))
                     and isinstance(c.comparators[0], ast.Constant) and c.comparators[0].value is None)


_BACKEND_KEY = "backend:"  # a self-probing backend class (by position) among the `keys` of `_imports` / `_guarded`


def _backend_key(node: ast.ClassDef) -> str:
    return f"{_BACKEND_KEY}{node.lineno}:{node.col_offset}"


def probed_backends(tree: ast.Module, nodes: dict | None = None) -> frozenset[str]:
    """`backend:LINE:COL` for each class that answers for its own package, as migrate/probed_packages.py reads it: a
    `@classmethod` / `@staticmethod` probe an engine registry elsewhere asks before it offers the class (`def
    check_lib(cls): try: importlib.import_module("vllm") / except ImportError: return False, "..."`), in a module that
    imports that package at its top only in an import attempt or under `if TYPE_CHECKING:`. The class's other methods
    run only where the probe said True, so a repository module they import (xinference's vLLM backend: `def
    load(self): ... from .xavier.engine import XavierEngine`, a module importing vllm internals at its top) is reached
    only through that selection (label rule 46e e-4, (L42)/(L56)): guarded as an import attempt (TRIED), so the
    repository's own Triton / numba kernels reached so stay reported (the probe checks the backend's package, not
    theirs)."""
    from migrate.probed_packages import _KERNEL_LANGUAGES, _class_probed, _top_level_imports

    classes = nodes.get(ast.ClassDef, ()) if nodes is not None else [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    found = {}
    for cls in classes:
        packages = {package for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and (package := _class_probed(f)) and package not in _KERNEL_LANGUAGES}
        if packages:
            found[cls] = packages
    if not found:
        return frozenset()
    top = _top_level_imports(tree, attempts=False)
    return frozenset(_backend_key(cls) for cls, packages in found.items() if packages - top)


def _backend_method(cls: ast.ClassDef, child: ast.AST, keys: frozenset) -> bool:
    """`child`, a statement of the class body, is a method of a self-probing backend class (`probed_backends`) other
    than its probe."""
    from migrate.probed_packages import _class_probed

    return isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and _backend_key(cls) in keys \
        and _class_probed(child) is None


def _else_of_package(node: ast.Try) -> bool:
    """The `else:` of an import attempt of a GPU-only package runs only where the package imported, like the body of
    an availability check: `try: from megablocks import ops / except ModuleNotFoundError: pass / else: from
    .megablock_moe import MegaBlockMoE` (the try body imports a package of the catalogue, a handler catches the
    failed import)."""
    from migrate.skip_decorators import catalogue_roots

    if not node.orelse or not any(_catches_import_error(h) for h in node.handlers):
        return False
    roots = catalogue_roots()
    for statement in node.body:
        if isinstance(statement, ast.Import) and any(a.name.split(".", 1)[0] in roots for a in statement.names):
            return True
        if isinstance(statement, ast.ImportFrom) and not statement.level and statement.module \
                and statement.module.split(".", 1)[0] in roots:
            return True
    return False


def registry_keys(tree: ast.Module) -> frozenset[str]:
    """The keys of a backend registry that requires GPU-only packages: module-level `REG["key"] = Info(...,
    requirements=["triton>=2.0", ...])` (or `REG = {"key": Info(..., requirements=[...])}`) naming a package of the
    catalogue, in a module that checks the registered requirements with a requirement-check call on a computed value
    (`require_version(requirement)`, migrate/requirement_checks.py's names): the registry offers such a backend only
    where its packages are."""
    from migrate.requirement_checks import _CHECK

    entries: list[tuple[ast.AST, ast.AST]] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
            if isinstance(target, ast.Subscript):
                entries.append((target.slice, value))
            elif isinstance(value, ast.Dict):
                entries.extend(zip(value.keys, value.values))
    keys = {key.value for key, value in entries if isinstance(key, ast.Constant) and isinstance(key.value, str)
            and isinstance(value, ast.Call) and _requires_gpu_package(value)}
    if not keys:
        return frozenset()
    checks = any(isinstance(n, ast.Call) and _CHECK.match(getattr(n.func, "id", getattr(n.func, "attr", "")))
                 and n.args and not isinstance(n.args[0], ast.Constant) for n in ast.walk(tree))
    return frozenset(keys) if checks else frozenset()


_FACTORY_KEY = "factory:"  # a hardware-gated factory function among the `keys` of `_imports` / `_guarded`
_GPU_DEVICES = frozenset({"gpu", "cuda"})
_HARDWARE_WORD = re.compile(r"hardware|device|requir|platform", re.I)


def _gpu_requirement(value: ast.AST) -> bool:
    """`HardwareRequirement(device_type="gpu", ...)`: a call named for (or passed as) a hardware / device requirement
    whose arguments name the GPU."""
    if not isinstance(value, ast.Call):
        return False
    args = list(value.args) + [k.value for k in value.keywords]
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.lower() in _GPU_DEVICES
               for a in args)


def gated_factories(tree: ast.Module, nodes: dict | None = None) -> frozenset[str]:
    """`factory:NAME` for each module-level function passed as a keyword argument of a call that also passes a GPU
    hardware requirement (`KernelSpec(..., factory=_quack_kernel_factory, hardware=HardwareRequirement(
    device_type="gpu"))`), directly or through a loop over a tuple of such functions (`for variant, factory, _ in
    (("pre", _pre_factory, "..."), ...): REGISTRY.register(Spec(..., factory=factory, hardware=...))`): the registry
    runs it only where that hardware is (see the module doc)."""
    functions = {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not functions:
        return frozenset()
    if nodes is not None:
        calls, fors = nodes.get(ast.Call, ()), nodes.get(ast.For, ())
    else:
        walked = list(ast.walk(tree))
        calls = [n for n in walked if isinstance(n, ast.Call)]
        fors = [n for n in walked if isinstance(n, ast.For)]
    calls = [c for c in calls if len(c.keywords) >= 2 and any(isinstance(k.value, ast.Name) for k in c.keywords)
             and any(_gpu_requirement(k.value) for k in c.keywords)]
    if not calls:
        return frozenset()
    loops: dict[str, set[str]] = {}  # a loop variable -> the module functions its loop iterates over
    for node in fors:
        listed = {n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name) and n.id in functions}
        for target in ast.walk(node.target):
            if isinstance(target, ast.Name) and listed:
                loops.setdefault(target.id, set()).update(listed)
    out: set[str] = set()
    for node in calls:
        gated = any(_gpu_requirement(k.value) and (_HARDWARE_WORD.search(k.arg or "") or _HARDWARE_WORD.search(
            getattr(k.value.func, "id", getattr(k.value.func, "attr", "")))) for k in node.keywords)
        if not gated:
            continue
        for keyword in node.keywords:
            if isinstance(keyword.value, ast.Name):
                name = keyword.value.id
                out.update(_FACTORY_KEY + f for f in ({name} & functions) | loops.get(name, set()))
    return frozenset(out)


def _factory_body(node: ast.AST, child: ast.AST, keys: frozenset) -> bool:
    """`child` is a module-level function that a kernel registry calls only on the hardware it requires."""
    return isinstance(node, ast.Module) and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and _FACTORY_KEY + child.name in keys


_FLAG_KEY = "flag:"  # an attempt flag among the `keys` of `_imports` / `_guarded` (registry keys are strings of the code)


def attempt_flags(tree: ast.Module) -> frozenset[str]:
    """`flag:NAME` for each module-level name the module sets False (or None) where an import of a GPU-only package
    of the catalogue fails: VMamba-style `WITH_TRITON = True / try: import triton / except ImportError: WITH_TRITON =
    False`, then `if WITH_TRITON: from .ssd_combined import ...` (the module holding the Triton kernels is imported
    only where triton is; the other branch selects the torch implementation). Any name: the handler shows it records
    the package's absence, which `_FLAG`'s naming convention (`HAS_TRITON`) only suggests."""
    from migrate.skip_decorators import catalogue_roots

    roots = None
    out = set()
    for statement in tree.body:
        if not isinstance(statement, ast.Try):
            continue
        handlers = [h for h in statement.handlers if _catches_import_error(h)]
        names = {t.id for h in handlers for s in h.body if isinstance(s, ast.Assign)
                 and isinstance(s.value, ast.Constant) and s.value.value in (False, None)
                 for t in s.targets if isinstance(t, ast.Name)}
        if not names:
            continue
        roots = catalogue_roots() if roots is None else roots
        tried = {a.name.split(".", 1)[0] for s in statement.body if isinstance(s, ast.Import) for a in s.names}
        tried |= {s.module.split(".", 1)[0] for s in statement.body
                  if isinstance(s, ast.ImportFrom) and not s.level and s.module}
        if tried & roots:
            out |= {_FLAG_KEY + name for name in names}
    return frozenset(out)


def _requires_gpu_package(call: ast.Call) -> bool:
    from migrate.requirement_checks import _NAME, _normalised
    from migrate.skip_decorators import catalogue_package, catalogue_roots

    listed = next((k.value for k in call.keywords if k.arg == "requirements"), None)
    if not isinstance(listed, (ast.List, ast.Tuple)):
        return False
    roots = catalogue_roots()
    for item in listed.elts:
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and (match := _NAME.match(item.value)):
            if catalogue_package(_normalised(match.group(1)), roots) is not None:
                return True
    return False


def _registry_branch(test: ast.AST, keys: frozenset) -> bool:
    """`backend == "auto_round:tritonv2"` with that string a key of the module's backend registry (`registry_keys`)."""
    if not keys or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    return any((isinstance(side, ast.Constant) and side.value in keys)
               or (isinstance(side, ast.Attribute) and _SELECTED_KEY + _dotted(side) in keys)
               for side in (test.left, test.comparators[0]))


_SELECTED_KEY = "selected:"  # a member a selector returns only past its own support check (`checked_selections`)
_SUPPORT_CHECK = re.compile(r"support|availab", re.I)


def _dotted(node: ast.AST) -> str:
    """`KernelBackend.CUTEDSL` for an attribute chain of names, "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _support_check_of(test: ast.AST) -> str:
    """`KernelBackend.is_supported(KernelBackend.CUTEDSL)` (a call named for support or availability whose one
    argument is a member): the member's dotted name, else ""."""
    if not (isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords):
        return ""
    func = test.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return _dotted(test.args[0]) if _SUPPORT_CHECK.search(name) else ""


def _returned(statements: list) -> str:
    """The member a block of one `return X.MEMBER` returns, else ""."""
    if len(statements) == 1 and isinstance(statements[0], ast.Return) and statements[0].value is not None:
        return _dotted(statements[0].value)
    return ""


def checked_selections(tree: ast.Module, nodes: dict | None = None) -> frozenset[str]:
    """`selected:E.MEMBER` for each member a selector function of the module returns only past a support check of that
    member, with another member returned where the check fails (label ruling (L42), second sentence: a backend offered
    only where its package is, with a fallback; 28a-8). vipshop/cache-dit @f86744af src/cache_dit/kernels/ops.py:

        def _select_kernel_backend() -> KernelBackend:
          if not KernelBackend.is_supported(KernelBackend.CUTEDSL):   # torch.cuda.is_available() and `import cutlass.cute`
            return KernelBackend.TRITON
          return KernelBackend.CUTEDSL

    then `if backend == KernelBackend.CUTEDSL: from .cutedsl import fused_merge_attn_states` imports the CuTe DSL
    kernels only where cutlass is: a checked import. The fallback member (TRITON, whose own check in the resolver
    raises) is not keyed: its kernels stay reported ((L42), first sentence)."""
    functions = (nodes.get(ast.FunctionDef, ()) if nodes is not None
                 else [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)])
    out = set()
    for function in functions:
        body = function.body
        for index, statement in enumerate(body[:-1]):
            if not isinstance(statement, ast.If) or statement.orelse:
                continue
            test, negated = statement.test, False
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, True
            member = _support_check_of(test)
            if not member:
                continue
            inside, after = _returned(statement.body), _returned(body[index + 1:index + 2])
            chosen, fallback = (after, inside) if negated else (inside, after)
            if chosen == member and fallback and fallback != member:
                out.add(_SELECTED_KEY + member)
    return frozenset(out)


def _availability_check(test: ast.AST, keys: frozenset = frozenset()) -> bool:
    """An `if` test that asks whether a package is there: a call `is_<pkg>_available()`, or an availability flag named
    like NPU501's (`HAS_FLASH_ATTN`, `has_apex`, `XFORMERS_AVAILABLE`) as a name, an attribute or a string key
    (`env_info["has_flash_attn_3"]`), a flag of any name the module records from an import attempt of a GPU-only
    package (`attempt_flags`: `WITH_TRITON`, held in `keys` as `flag:WITH_TRITON`), or an `and` holding one (`if
    HAS_APEX and args.fused:`)."""
    from migrate.rules.npu501_gpu_only_import import _AVAILABILITY, _FLAG, availability_subject

    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_availability_check(v, keys) for v in test.values)
    if isinstance(test, ast.Name) and _FLAG_KEY + test.id in keys:
        return True
    if isinstance(test, ast.Call):
        func = test.func
        name = (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")).lstrip("_")
        return bool(_AVAILABILITY.match(name)) and _tests_gpu_package(availability_subject(name))
    if isinstance(test, ast.Name):
        return bool(_FLAG.match(test.id))
    if isinstance(test, ast.Attribute):
        return bool(_FLAG.match(test.attr))
    if isinstance(test, ast.Subscript):
        key = test.slice
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(_FLAG.match(key.value))
    return False


# a generic accelerator check: `is_cuda_available()`, `is_torch_gpu_available()`, `is_torch_npu_available()`
_ACCELERATOR_WORDS = frozenset({"cuda", "gpu", "npu", "accelerator"})


def _tests_gpu_package(middle: str) -> bool:
    """`is_<middle>_available()` asks about a GPU-only package of the catalogue (`is_flashinfer_available`,
    `is_flash_attn_2_available` -> flash_attn, `is_bitsandbytes_available`) or about an accelerator. Not a check of any
    other dependency: huggingface/trl d708ec27 trainer/__init__.py imports ddpo_trainer.py (which imports bitsandbytes
    for its 8-bit Adam option) under `if is_diffusers_available():`; diffusers runs on an NPU host, so the module stays
    required there (label rule set 23, (s23a-5))."""
    from migrate.skip_decorators import catalogue_package, catalogue_roots

    if _ACCELERATOR_WORDS & set(middle.split("_")):
        return True
    return catalogue_package(middle, catalogue_roots()) is not None


def _cuda_device_check(test: ast.AST, unprobed: frozenset = frozenset()) -> bool:
    """An `if` test that asks for a CUDA device, so that its body runs on a CUDA host only: `"cuda" in str(device)`,
    `device.type == "cuda"`, `torch.cuda.is_available()`, a call of the project's own GPU-support probe
    (`is_fp8_supported_gpu()`, `_gpu_support_call`), or an `and` holding one (ChatTTS gpt.py: `if experimental and
    "cuda" in str(self.device_gpt) and platform.system().lower() == "linux":`)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_cuda_device_check(v, unprobed) for v in test.values)
    if _gpu_support_call(test, unprobed):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.Eq)):
        return any(isinstance(side, ast.Constant) and side.value == "cuda" for side in (test.left, test.comparators[0]))
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "is_available":
        inner = test.func.value
        return isinstance(inner, ast.Attribute) and inner.attr == "cuda" and isinstance(inner.value, ast.Name) \
            and inner.value.id == "torch"
    return False


_NPU_ASKING = frozenset({"is", "has", "available", "use", "using"})


def _npu_device_check(test: ast.AST) -> bool:
    """An `if` test that asks for an Ascend NPU, so that its `else:` runs off the NPU only: a flag or a call named so
    (`IS_NPU_AVAILABLE`, `is_torch_npu_available()`, `self.use_npu`), or `device.type == "npu"` / `"npu" in str(device)`.
    ByteDance-Seed/VeOmni's per-device generated models: `if IS_NPU_AVAILABLE: from .generated.patched_modeling_x_npu
    import ... / else: from .generated.patched_modeling_x_gpu import ...` (the CUDA branch of an NPU-aware chain, label
    ruling (L20), applied to the module it imports)."""
    if isinstance(test, ast.Call):
        test = test.func
    if isinstance(test, (ast.Name, ast.Attribute)):
        words = set((test.id if isinstance(test, ast.Name) else test.attr).strip("_").lower().split("_"))
        return "npu" in words and bool(words & _NPU_ASKING) and "not" not in words
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.Eq)):
        return any(isinstance(side, ast.Constant) and side.value == "npu" for side in (test.left, test.comparators[0]))
    return False


# a project function asking whether the GPU supports something: `is_fp8_supported_gpu()`, `is_hopper_gpu()`,
# `supports_cuda_graphs()`, `cuda_capable()`: a word naming the device and one asking (label rule 30d-9)
_DEVICE_WORDS = frozenset({"gpu", "cuda"})
_ASKING_WORDS = frozenset({"is", "has", "supports", "supported", "support", "capable", "can"})


def _probe_name(name: str) -> bool:
    words = set(name.strip("_").lower().split("_"))
    return bool(words & _DEVICE_WORDS and words & _ASKING_WORDS) and "npu" not in words and "not" not in words


def _gpu_support_call(test: ast.AST, unprobed: frozenset) -> bool:
    """A call, without arguments or with some, of a function named as a GPU-support probe (`_probe_name`): llmc's
    `if is_fp8_supported_gpu(): from .kernel import act_quant` (Triton kernels) / `else: from .quant import ...`
    (torch). Its body (`if not torch.cuda.is_available(): return False`, then the compute capability) is False off
    CUDA, so the branch runs on a CUDA host only. A function of that name defined in the same module whose body
    never mentions CUDA (`unprobed`, `unprobed_probes`) is not taken for one; one imported from another module is
    taken by its name (its body is not read)."""
    if not isinstance(test, ast.Call):
        return False
    func = test.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return bool(name) and _probe_name(name) and name not in unprobed and not name.lstrip("_").endswith(("_available", "_installed"))


def unprobed_probes(tree: ast.Module) -> frozenset[str]:
    """The module's own top-level functions named as GPU-support probes (`_probe_name`) whose body mentions neither
    `cuda` (`torch.cuda.get_device_capability(0)`, `"cuda"`) nor another such probe."""
    out = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and _probe_name(statement.name):
            mentions = any(isinstance(n, ast.Attribute) and n.attr == "cuda"
                           or isinstance(n, ast.Name) and (n.id == "cuda" or n.id != statement.name and _probe_name(n.id))
                           or isinstance(n, ast.Constant) and isinstance(n.value, str) and "cuda" in n.value.lower()
                           for n in ast.walk(statement))
            if not mentions:
                out.add(statement.name)
    return frozenset(out)


def _last_names(node: ast.AST) -> set[str]:
    names = {a.name.rpartition(".")[2] for a in node.names}
    if isinstance(node, ast.ImportFrom) and node.module:
        names.add(node.module.rpartition(".")[2])
    return names


def _imported(node: ast.AST, path: str) -> list[tuple[str, ...]]:
    """The dotted names an import statement may load, as parts: `from ..backends.marlin import X` in
    `hqq/utils/patching.py` -> (hqq, backends, marlin) and (hqq, backends, marlin, X)."""
    if isinstance(node, ast.Import):
        return [tuple(a.name.split(".")) for a in node.names]
    if node.level:
        package = module_parts(path)
        if not path.endswith("__init__.py"):
            package = package[:-1]
        if node.level > 1:
            package = package[:len(package) - (node.level - 1)]
        base = tuple(package) + tuple((node.module or "").split(".") if node.module else ())
    else:
        base = tuple((node.module or "").split("."))
    return [base] + [base + (a.name,) for a in node.names]


def _names_module(name: tuple[str, ...], parts: tuple[str, ...], relative: bool) -> bool:
    if relative:
        return name == parts
    return len(name) >= 2 and parts[-len(name):] == name  # `hqq.backends.marlin`, not a bare `marlin` (the package)


def tree_imports(tree: ast.Module, path: str, nodes: dict | None = None, parent=None, ctx=None) -> list:
    """(dotted name as parts, guarded, relative) for each name each import of the module may load (`_imported`).
    With the file's node index and parent lookup (`PythonContext.nodes` / `.parent`, built for the rules anyway),
    read from the import statements and their ancestors (`_guarded`) instead of a walk of every statement: the
    first pass records this for each file (fact "optimp"), so `drop_optional_modules` parses no importer again."""
    keys = registry_keys(tree) | attempt_flags(tree) | none_tests(tree, nodes) | probed_backends(tree, nodes) \
        | gated_factories(tree, nodes) | checked_selections(tree, nodes)
    unprobed = unprobed_probes(tree)
    if nodes is None:
        found: list = []
        _imports(tree, UNGUARDED, found, keys, unprobed)
    else:
        statements = sorted((*nodes.get(ast.Import, ()), *nodes.get(ast.ImportFrom, ())),
                            key=lambda n: (n.lineno, n.col_offset))
        fallbacks: dict[int, set[str]] = {}
        found = [(node, _guarded(node, parent, fallbacks, keys, unprobed)) for node in statements]
        if ctx is not None:
            found = [(node, CHECKED if g != CHECKED and _after_raising_check(ctx, node) else g) for node, g in found]
    if any(g == TRIED for _, g in found):
        found = _no_fallback_attempts(tree, found, nodes, parent)
    if any(g == CHECKED for _, g in found):
        used = _used_outside_cuda_branch(tree, unprobed, nodes)
        found = [(node, UNGUARDED if g == CHECKED and id(node) in used else g) for node, g in found]
    return [(name, guarded, isinstance(node, ast.ImportFrom) and node.level > 0)
            for node, guarded in found + helper_imports(tree, nodes) for name in _imported(node, path)]


def _no_fallback_attempts(tree: ast.Module, found: list, nodes: dict | None, parent) -> list:
    """`found` with UNGUARDED for each import tried in an attempt that gives the module no way without it: its
    ImportError handlers only pass, call (a notice: `print("Full Prefill Import Fail")`) or bind flags that no line of
    the module reads (`FULL_PREFILL = False`, never tested), while a name the import binds is read outside the attempt
    (`Full_prefill(q, k, v)`): off CUDA that read is a NameError, as NPU501 reads the same attempt of a package (label
    rule 31b-7 (c); (L110) for the attempt whose name nothing reads, which stays tried). x-attention's eval scripts and
    model patch importing its flashinfer prefill module (labeller note 70e, Fullprefill.py labelled)."""
    names = nodes.get(ast.Name, ()) if nodes is not None else [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
    loads = [n for n in names if isinstance(n.ctx, ast.Load)]
    read = {n.id for n in loads}
    if parent is None:
        links = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        parent_of = lambda n: links.get(id(n))  # noqa: E731
    else:
        parent_of = parent
    out = []
    for node, guarded in found:
        if guarded == TRIED:
            attempt, child = parent_of(node), node
            while attempt is not None and not (isinstance(attempt, ast.Try) and any(child is s for s in attempt.body)):
                attempt, child = parent_of(attempt), attempt
            if attempt is not None and _unread_handlers(attempt, read):
                bound = {(a.asname or a.name).split(".", 1)[0] for a in node.names if a.name != "*"}
                inside = {id(n) for s in attempt.body for n in ast.walk(s)}
                if any(n.id in bound and id(n) not in inside for n in loads):
                    guarded = UNGUARDED
        out.append((node, guarded))
    return out


def _unread_handlers(attempt: ast.Try, read: set[str]) -> bool:
    """Every handler of `attempt` only passes, calls, or binds constants to names in `read`'s complement."""
    for handler in attempt.handlers:
        for statement in handler.body:
            if isinstance(statement, ast.Pass) or isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                continue
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) \
                    and all(isinstance(t, ast.Name) and t.id not in read for t in statement.targets):
                continue
            return False
    return bool(attempt.handlers)


def _import_helpers(tree: ast.Module, nodes: dict | None) -> dict[str, int]:
    """The module's own import helpers: function name -> the position of the parameter it hands to
    `importlib.import_module(...)` inside a `try:` whose handler catches a failed import (and returns a stand-in)."""
    functions = (nodes.get(ast.FunctionDef, ()) if nodes is not None
                 else [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)])
    out = {}
    for function in functions:
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        for statement in function.body:
            if not (isinstance(statement, ast.Try) and any(_catches_import_error(h) for h in statement.handlers)):
                continue
            for node in (n for s in statement.body for n in ast.walk(s)):
                if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) \
                        and node.args[0].id in params \
                        and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "import_module":
                    out[function.name] = params.index(node.args[0].id)
    return out


def helper_imports(tree: ast.Module, nodes: dict | None = None) -> list:
    """(import node, TRIED) for each call of a module's own import helper given a module name literal, read as the
    import it makes: vipshop/cache-dit @f86744af src/cache_dit/kernels/cutedsl/__init__.py

        def _safe_import(module_name, func_name):
          try:
            module = importlib.import_module(module_name, package=__package__)
            return getattr(module, func_name)
          except (ImportError, AttributeError) as exc:
            return _import_cutedsl_ops_error          # a stand-in that raises
        fused_merge_attn_states = _safe_import("._ops_registery", "fused_merge_attn_states")

    is `from ._ops_registery import fused_merge_attn_states` in a `try:` (TRIED): the package's one way into the CuTe
    DSL kernels, whose own importers then decide ((L26)/(L42)). Relative names resolve against the calling module's
    package (`import_module(name, package=__package__)`)."""
    helpers = _import_helpers(tree, nodes) if any(
        isinstance(n, ast.ImportFrom) and n.module == "importlib" or isinstance(n, ast.Import)
        and any(a.name == "importlib" for a in n.names)
        for n in (tree.body if nodes is None else (*nodes.get(ast.Import, ()), *nodes.get(ast.ImportFrom, ())))) else {}
    if not helpers:
        return []
    calls = nodes.get(ast.Call, ()) if nodes is not None else (n for n in ast.walk(tree) if isinstance(n, ast.Call))
    out = []
    for call in calls:
        position = helpers.get(getattr(call.func, "id", None))
        if position is None or len(call.args) <= position:
            continue
        value = call.args[position]
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        name = value.value
        module = name.lstrip(".")
        if not module or not all(part.isidentifier() for part in module.split(".")):
            continue
        out.append((ast.ImportFrom(module=module, names=[], level=len(name) - len(module)), TRIED))
    return out


def _after_raising_check(ctx, node) -> bool:
    """An import inside a function after an availability check that leaves without the package (NPU501's
    `early_exit_guard`, label rulings (L34)/(L97)): torchao's op wrappers call `raise_if_cutedsl_nvfp4_unavailable(
    "...")` (migrate/raising_checks.py), then `from ._cutedsl_kernels_impl import ...`, a module importing cutlass at
    its top; or `if not cutedsl_nvfp4_kernels_available(): return` first. The module is reached only where the
    package is, as under `if is_x_available():`. A check of another module is known on the importer's second reading
    (`_flags_known`)."""
    from migrate.rules.npu501_gpu_only_import import early_exit_guard

    if "(" not in ctx.source:
        return False
    if early_exit_guard(ctx, node) is not None or _under_predicate(ctx, node):
        return True
    top, above = node, ctx.parent(node)
    while above is not None and not isinstance(above, ast.Module):
        top, above = above, ctx.parent(above)
    return isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) and top.name in checked_callees(ctx)


def _under_predicate(ctx, node) -> bool:
    """`node` is in the body of an `if` asking an availability predicate (migrate/availability_predicates.py), its own
    module's or one imported from another (`_flags_known`): Tencent/AngelSlim diffusion/kernels/python/gemm/__init__.py
    `if use_triton(): from .fp8_gemm import fp8_gemm_triton_block / else: from .fp8_gemm_torch import ...`, `use_triton`
    answering from `_platform.is_triton_available()` (label ruling (L42): a selection that checks the package first)."""
    child, above = node, ctx.parent(node)
    while above is not None:
        if isinstance(above, ast.If) and any(child is s for s in above.body) and _asks_predicate(ctx, above.test):
            return True
        child, above = above, ctx.parent(above)
    return False


def _asks_predicate(ctx, test) -> bool:
    """The test calls an availability predicate without arguments, alone or in an `and`. A module function, not a
    closure: a recursive nested function is a reference cycle (it holds its own cell) and, with the collector off
    for the whole scan (migrate/cli.py), kept every file's context and tree alive to the end: 2 GB of a torch scan."""
    from migrate.rules.npu501_gpu_only_import import _predicate_call

    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_asks_predicate(ctx, v) for v in test.values)
    return isinstance(test, ast.Call) and not test.args and _predicate_call(ctx, test.func)


_CALLEES_KEY = "_npu_checked_callees"


def checked_callees(ctx) -> frozenset[str]:
    """The module's private top-level functions (`_name`: not for other modules to call) that it calls only behind an
    availability check (NPU501's `availability_guard`: in the body of `if check:` or after a check that leaves): torchao
    quant.py's `_mxfp8_quantize_2d_1x32_cutedsl_custom_op`, whose body imports the CuTeDSL kernels' module, called
    only by `mxfp8_quantize_2d_1x32_cutedsl` after `if not _mxfp8_cutedsl_kernels_available: raise
    NotImplementedError(...)`. Their imports are reached only where the package is (label ruling (L97)). Each read
    of the name is such a call or the object of a registration decorator (`@_op.register_fake`); one read otherwise
    (passed along, stored) leaves the function unchecked."""
    cached = ctx.__dict__.get(_CALLEES_KEY)
    if cached is not None:
        return cached
    from migrate.rules.npu501_gpu_only_import import availability_guard

    private = {s.name for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
               and s.name.startswith("_") and not s.name.startswith("__")}
    reads: dict[str, list] = {}
    for n in ctx.nodes.get(ast.Name, ()) if private else ():
        if n.id in private and isinstance(n.ctx, ast.Load):
            reads.setdefault(n.id, []).append(n)
    # a callee of a checked callee is reached only behind the check too (Tencent/AngelSlim flashprefill/prefill.py:
    # `_flash_dense` is called only by `_kernel_prefill`, called only under `if _kernel_ok:`): grown until it stands,
    # NPU501's `availability_guard` reading the set found so far
    found: frozenset[str] = frozenset()
    while True:
        ctx.__dict__[_CALLEES_KEY] = found
        grown = _callees_behind_checks(ctx, reads, availability_guard)
        if grown <= found:
            return found
        found = found | grown


def _callees_behind_checks(ctx, reads: dict, availability_guard) -> frozenset[str]:
    found = set()
    for name, nodes in reads.items():
        called = False
        for n in nodes:
            above = ctx.parent(n)
            if isinstance(above, ast.Call) and above.func is n:
                statement = above
                while statement is not None and not isinstance(statement, ast.stmt):
                    statement = ctx.parent(statement)
                if statement is None or availability_guard(ctx, statement) is None:
                    break
                called = True
            elif not (isinstance(above, ast.Attribute) and _decorates(ctx, above)):
                break
        else:
            if called:
                found.add(name)
    return frozenset(found)


def _decorates(ctx, node: ast.Attribute) -> bool:
    """`node` is a decorator (`@f.register_fake`) or the function of one (`@f.register_kernel("cpu")`)."""
    above = ctx.parent(node)
    target = above if isinstance(above, ast.Call) and above.func is node else node
    holder = ctx.parent(target)
    return isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and target in holder.decorator_list


class _Imports(dict):
    """Each importer's imports, read once (path -> `tree_imports`), and the flags of other modules each file imports
    (`known`: path -> the "flag" definitions as migrate/imported_flags.py's second analysis knows them)."""

    known: dict[str, frozenset[str]]
    derived: _Derived | None = None


class _Derived:
    """Answers derived from one file's content (the imports read with other modules' checks known, a module's lazy
    accessors, their calls in a file): asked once per scan, and with a ResultCache once per content, so a warm run
    reads none of those files again (`ResultCache.get_derived`). Answers are stored as `[value]` (None included)."""

    def __init__(self, cache, digests):
        self.cache, self.digests, self.memo = cache, digests or {}, {}

    def ask(self, kind: str, path: str, question: str, compute):
        known = (kind, path, question)
        if known in self.memo:
            return self.memo[known]
        key, digest = self.digests.get(path, ("", ""))
        stored = self.cache.get_derived(kind, key, digest, question) if (self.cache and key and digest) else None
        if isinstance(stored, list) and len(stored) == 1:
            value = stored[0]
        else:
            value = compute()
            if self.cache and key and digest:
                self.cache.put_derived(kind, key, digest, question, [value])
        self.memo[known] = value
        return value


def _flags_known(results) -> dict[str, frozenset[str]]:
    """The files that import an availability flag, predicate or raising check of another module ("flag" definitions,
    migrate/imported_flags.py) -> those flags as known to a second reading, without reading any file."""
    from migrate.imported_flags import _known, _same_module

    # last name -> (dotted flag, its path, how it is spelled, mode): the flag by its name, or its module (`from . import
    # kernels as _k` then `if _k.kernels_available(head_dim):`), as imported_flags.reread_guarded matches them
    flags: dict[str, list] = {}
    for r in results:
        for f in r.facts or ():
            if f[0] == "def" and f[1] == "flag":
                mode = f[6] if len(f) > 6 else ""
                module = f[2].rpartition(".")[0]
                flags.setdefault(f[2].rpartition(".")[2], []).append((f[2], r.path, f[2], mode))
                flags.setdefault(module.rpartition(".")[2], []).append((f[2], r.path, module, mode))
    out = {}
    for result in results if flags else ():
        if result.path.endswith(".py"):
            known = frozenset(_known(flag, mode) for f in (result.facts or ()) if f[0] == "ref"
                              for flag, path, spelled, mode in flags.get(f[1].rpartition(".")[2], ())
                              if path != result.path and _same_module(f[1], spelled))
            if known:
                out[result.path] = known
    return out


def _flagged_imports(path: str, known: frozenset[str], data, max_file_size: int) -> list | None:
    """The imports of a file that imports checks of other modules (`_flags_known`), read with those known, so that an
    import after such a check, or in a private function called only behind one (`_after_raising_check`), is CHECKED;
    None where it has no import inside a block (the first pass's reading stands). Not cached: it depends on another
    file."""
    from migrate import engine
    from migrate.context import PythonContext

    if data is None:
        data = engine._read_target(engine.Target(path, ("python",)), max_file_size)
    text = engine.text_again(path, data, max_file_size) if isinstance(data, bytes) else None
    if text is None or not _LOCAL_IMPORT.search(text):
        return None
    # a check the file never names decides none of its imports (a module known by its last name alone, torch's many
    # `utils`, brings its flags to every file importing one): the text test before the parse
    names = {flag.partition("(")[0].rpartition(".")[2] for flag in known}
    if not any(name in text and re.search(rf"\b{re.escape(name)}\b", text) for name in names):
        return None
    tree = fileio.parse_python(text)
    if tree is None:
        return None
    ctx = PythonContext(path, text, tree, None)
    ctx.__dict__["_npu_known_flags"] = known
    return tree_imports(tree, path, ctx.nodes, ctx.parent, ctx)


def _as_json(imports: list | None) -> list | None:
    return None if imports is None else [[list(name), guarded, relative] for name, guarded, relative in imports]


_LOCAL_IMPORT = re.compile(r"^[ \t]+(?:import|from)\s", re.M)  # an indented import: in a function (or a block)


def _bound_names(node: ast.AST) -> set[str]:
    return {a.asname or a.name.split(".", 1)[0] for a in getattr(node, "names", ()) if a.name != "*"}


def _used_outside_cuda_branch(tree: ast.Module, unprobed: frozenset, nodes: dict | None = None) -> frozenset[int]:
    """Ids of the imports written in the body of a CUDA-device branch (`if torch.cuda.is_available(): from
    model.nms.nms_gpu import nms_gpu`) that bind a name the module reads outside every such branch, where nothing
    else in it binds that name (`return nms_gpu(dets, thresh) if force_cpu == False else nms_cpu(dets, thresh)`, a
    user switch: on an NPU host the branch is skipped and the call fails with a NameError, label ruling (L74), 46c
    HALF-3/4). Such an import guards nothing: the module is needed on every host. `nodes`: the file's nodes by type
    (context.index_tree), read instead of walking the tree."""
    if nodes is None:
        nodes = {}
        for n in walk_nodes(tree):
            nodes.setdefault(n.__class__, []).append(n)
    branches = [n for kind in (ast.If, ast.IfExp) for n in nodes.get(kind, ()) if _cuda_device_check(n.test, unprobed)]
    imports = {id(s): s for b in branches if isinstance(b, ast.If) for s in b.body if isinstance(s, (ast.Import, ast.ImportFrom))}
    if not imports:
        return frozenset()
    inside = {id(n) for n in subtree(s for b in branches for s in (b.body if isinstance(b, ast.If) else [b.body]))}
    bound_elsewhere = {name for kind in (ast.Import, ast.ImportFrom) for n in nodes.get(kind, ()) if id(n) not in imports
                       for name in _bound_names(n)}
    bound_elsewhere.update(n.name for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) for n in nodes.get(kind, ()))
    reads: set[str] = set()
    for n in nodes.get(ast.Name, ()):
        if isinstance(n.ctx, ast.Store):
            bound_elsewhere.add(n.id)
        elif isinstance(n.ctx, ast.Load) and id(n) not in inside:
            reads.add(n.id)
    return frozenset(key for key, s in imports.items()
                     if any(name in reads and name not in bound_elsewhere for name in _bound_names(s)))


def _guarded(node: ast.AST, parent, fallbacks: dict, keys: frozenset = frozenset(),
             unprobed: frozenset = frozenset()) -> int:
    """The flag `_imports` gives the import `node`, from its ancestors, outermost first: inside the body of a
    `try` that catches a failed import (or an `if` asking for a package) it is guarded, unless an enclosing
    unguarded `try` imports the same last name in a handler (the fallback `_imports` reads)."""
    chain = []
    child, above = node, parent(node)
    while above is not None:
        chain.append((above, child))
        child, above = above, parent(above)
    guarded, vetoed = UNGUARDED, False
    for above, child in reversed(chain):
        if isinstance(above, ast.Try):
            if any(child is statement for statement in above.body):
                if not guarded:
                    fallback = fallbacks.get(id(above))
                    if fallback is None:
                        fallback = fallbacks[id(above)] = {
                            name for h in above.handlers for n in ast.walk(h)
                            if isinstance(n, (ast.Import, ast.ImportFrom)) for name in _last_names(n)}
                    vetoed = vetoed or bool(fallback & _last_names(node))
                guarded = max(guarded, _try_level(above, keys))
            elif any(child is statement for statement in above.orelse) and _else_of_package(above):
                guarded = CHECKED
        elif isinstance(above, ast.If) and any(child is statement for statement in above.body) \
                and _checks_package(above.test, keys, unprobed):
            guarded = CHECKED
        elif isinstance(above, ast.If) and any(child is statement for statement in above.orelse) \
                and _npu_device_check(above.test):
            guarded = CHECKED
        elif _factory_body(above, child, keys):
            guarded = CHECKED
        elif isinstance(above, ast.ClassDef) and _backend_method(above, child, keys):
            guarded = max(guarded, TRIED)
    return UNGUARDED if vetoed else guarded


def _names_module(name: tuple[str, ...], parts: tuple[str, ...], relative: bool) -> bool:
    if relative:
        return name == parts
    return len(name) >= 2 and parts[-len(name):] == name  # `hqq.backends.marlin`, not a bare `marlin` (the package)


def _file_imports(path: str, data, max_file_size: int, cache, key: str) -> list | None:
    """(dotted name as parts, guarded, relative) for each name each import of the file may load (`_imported`);
    None when the file cannot be read or parsed now. Stored in `cache` under the content just read."""
    import hashlib

    from migrate import engine

    if data is None:  # read here: its digest keys the cache entry
        data = engine._read_target(engine.Target(path, ("python",)), max_file_size)
    if not isinstance(data, bytes):
        return None
    text = engine.text_again(path, data, max_file_size)
    tree = fileio.parse_python(text) if text is not None else None
    if tree is None:
        return None
    out = tree_imports(tree, path)
    if cache and key:
        cache.put_imports(key, hashlib.blake2b(data, digest_size=16).hexdigest(), out)
    return out


# how many modules in a row may relay an optional import (xtuner: kernels <- triton_kernels/__init__ <- group_gemm.py
# <- cuda/__init__ <- the CUDA branch)
_RELAY_DEPTH = 3


def _imports_of(result, imports_of: dict, fresh, max_file_size, cache, digests) -> list:
    """The file's imports (`tree_imports`), read once: from the cache, the first pass's "optimp" fact, or the file."""
    imports = imports_of.get(result.path)
    known = getattr(imports_of, "known", {}).get(result.path)
    if imports is None and known:  # behind checks of other modules
        derived = getattr(imports_of, "derived", None) or _Derived(None, None)
        stored = derived.ask("flagged", result.path, "|".join(sorted(known)), lambda: _as_json(
            _flagged_imports(result.path, known, fresh.get(result.path), max_file_size)))
        imports = None if stored is None else [(tuple(name), int(guarded), bool(relative)) for name, guarded, relative in stored]
        if imports is not None:
            imports_of[result.path] = imports
    if imports is None:
        key, digest = (digests or {}).get(result.path, ("", ""))
        imports = cache.get_imports(key, digest) if (cache and key) else None
        if imports is None:  # read in the first pass from the tree the rules saw (not kept in the cache's results)
            imports = next((list(f[1]) for f in (result.facts or ()) if f[0] == "optimp"), None)
            if imports is not None and cache and key and digest:
                cache.put_imports(key, digest, imports)
        if imports is None:
            imports = _file_imports(result.path, fresh.get(result.path), max_file_size, cache, key)
        imports = imports_of[result.path] = imports or []
    return imports


def _needed_reexports(results, wanted: dict, seen: dict, imports_of: dict, fresh, max_file_size, cache,
                      digests, ref_parts: dict[int, frozenset[str]]) -> set[tuple[str, str]]:
    """The importers that bind a name of a wanted module under a guard (`if HAS_TRITON: from .attn import attention`
    in a package `__init__`) while another file imports that name from them outside any guard (`from pkg.kernels
    import attention` in the model): where the package is absent the name is not there and that import fails, so the
    guard protects nothing; the importer relays the module as an unguarded import would (label ruling (L42)).
    Returned as (importer, module) pairs: the names another module binds under the same guard stay guarded."""
    bound: dict[str, dict[str, set[str]]] = {}  # guarded importer -> name it binds -> the wanted modules binding it
    for path, parts in wanted.items():
        for importer, guarded in seen.get(path, ()):
            if guarded and importer in imports_of:
                for name, level, relative in imports_of[importer]:
                    if level and len(name) == len(parts) + 1 and _names_module(name[:-1], parts, relative):
                        bound.setdefault(importer, {}).setdefault(name[-1], set()).add(path)
    for importer in list(bound):
        fallback = _fallback_names(importer, fresh.get(importer), max_file_size) & set(bound[importer])
        for name in fallback:
            del bound[importer][name]
        if not bound[importer]:
            del bound[importer]
    if not bound:
        return set()
    owners = {importer: tuple(module_parts(importer)) for importer in bound}
    by_last: dict[str, list[str]] = {}
    for importer, parts in owners.items():
        if len(parts) >= 2:
            by_last.setdefault(parts[-1], []).append(importer)
    needed: set[tuple[str, str]] = set()
    lasts = frozenset(by_last)  # a set against a set: isdisjoint walks the smaller one
    for result in results:
        if not result.path.endswith(".py") or result.path in bound:
            continue
        if ref_parts[id(result)].isdisjoint(lasts):
            continue
        for name, guarded, relative in _imports_of(result, imports_of, fresh, max_file_size, cache, digests):
            if guarded or len(name) < 2:
                continue
            for owner in by_last.get(name[-2], ()):
                if name[-1] in bound[owner] and _names_module(name[:-1], owners[owner], relative):
                    needed.update((owner, module) for module in bound[owner][name[-1]])
    return needed


def _fallback_names(path: str, data, max_file_size: int) -> set[str]:
    """The names a module binds in the `else:` of a top-level `if` (`if use_triton(): from .fp8_gemm import
    fp8_gemm_triton_block / else: from .fp8_gemm_torch import fp8_gemm_torch_block as fp8_gemm_triton_block`,
    Tencent/AngelSlim diffusion/kernels/python/gemm/__init__.py): there the name is bound on every host, the PyTorch
    one where the package is absent, so another module importing it from there needs no GPU-only package (label ruling
    (L42): a selection with a working fallback)."""
    from migrate import engine

    if data is None:
        data = engine._read_target(engine.Target(path, ("python",)), max_file_size)
    text = engine.text_again(path, data, max_file_size) if isinstance(data, bytes) else None
    if not text or "else" not in text:
        return set()
    tree = fileio.parse_python(text)
    if tree is None:
        return set()
    out: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.If):
            for node in statement.orelse:
                for n in ast.walk(node):
                    if isinstance(n, (ast.Import, ast.ImportFrom)):
                        out |= _bound_names(n)
                    elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        out.add(n.id)
                    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        out.add(n.name)
    return out


def _importers(results, candidates: dict, seen: dict, imports_of: dict, fresh, max_file_size, cache, digests,
               ref_parts: dict[int, frozenset[str]]) -> None:
    """Add to `seen` (candidate path -> [(importer path, guarded)]) the imports of each candidate by the scanned files
    (`ref_parts`: each Python file's dotted reference parts, `_ref_parts`)."""
    by_last: dict[str, list[str]] = {}
    for path, parts in candidates.items():
        by_last.setdefault(parts[-1], []).append(path)
    lasts = frozenset(by_last)  # a set against a set: isdisjoint walks the smaller one (a dict: all its keys)
    inits = {last: [p for p in paths if p.replace("\\", "/").endswith("/__init__.py")] for last, paths in by_last.items()}
    inits = {last: paths for last, paths in inits.items() if paths}
    for result in results:
        if not result.path.endswith(".py"):
            continue
        if ref_parts[id(result)].isdisjoint(lasts):
            continue
        imports = _imports_of(result, imports_of, fresh, max_file_size, cache, digests)
        for name, guarded, relative in imports:
            for path in by_last.get(name[-1], ()) if name else ():
                if path != result.path and _names_module(name, candidates[path], relative):
                    seen.setdefault(path, []).append((result.path, guarded))
            # `from .modules.forward import f` runs `modules/__init__.py` first: an import of a package's `__init__`
            # with the same guard (Tencent/AngelSlim vecattention/prefill.py imports modules.forward only in a private
            # function called behind `kernels_available()`, and nothing else imports that package)
            for k in range(1, len(name) - 1) if inits and len(name) > 2 else ():
                for path in inits.get(name[k], ()):
                    if path != result.path and _names_module(name[:k + 1], candidates[path], relative) \
                            and (result.path, guarded) not in seen.get(path, ()):
                        seen.setdefault(path, []).append((result.path, guarded))


def ref_parts(result) -> frozenset[str]:
    """The dotted parts of a file's "ref" facts (the modules it names in imports): a file none of whose parts is a
    module's last name imports none of them."""
    return frozenset(part for f in (result.facts or ()) if f[0] == "ref" for part in f[1].split("."))


def _ref_parts(results) -> dict[int, frozenset[str]]:
    """Each Python file's result (by id) -> its ref_parts (the rounds of `drop_optional_modules` ask this of every
    file, up to 4 times)."""
    return {id(r): ref_parts(r) for r in results if r.path.endswith(".py")}


def drop_optional_modules(results: list[FileResult], fresh: dict, max_file_size: int, cache=None,
                          digests: dict | None = None) -> list[FileResult]:
    """`results` less the droppable findings of the modules every importer imports optionally (see the module
    doc). With `cache` (a ResultCache) and `digests` (path -> (cache key, content digest)), each importer's
    imports are stored under its content, so a warm run parses none of them again."""
    kernels = {r.path for r in results if r.path.endswith(".py") and any(_kernel(f) for f in r.findings)}
    candidates = {r.path: tuple(module_parts(r.path)) for r in results
                  if r.path.endswith(".py") and (r.path in kernels or any(_droppable(f) for f in r.findings))}
    candidates = {p: parts for p, parts in candidates.items() if len(parts) >= 2}
    if not candidates:
        return results
    seen: dict[str, list[tuple[str, int]]] = {}  # candidate path -> (importer, guarded) for each import of it
    imports_of = _Imports()  # each importer's imports, read once
    imports_of.known = _flags_known(results)  # the checks of other modules each file imports
    imports_of.derived = _Derived(cache, digests)  # what later reads derive from a file, kept under its content
    wanted = candidates
    tried: set[str] = set()  # modules found importing a kernel module in a `try:` (their own importers decide, (L42))
    ref_parts = _ref_parts(results)  # read by each round below: computed once
    memo: dict = {}  # (importer, module) -> imported only in accessors every caller calls behind a check
    forced: set = set()  # (importer, module): a guarded import counted unguarded because a plain import needs it
    for _ in range(_RELAY_DEPTH + 1):
        _importers(results, wanted, seen, imports_of, fresh, max_file_size, cache, digests, ref_parts)
        for path, parts in wanted.items():
            importers = seen.get(path, ())
            if any(not g for _, g in importers):
                # lazy accessors (AngelSlim's get_streaming_forward()), asked where an importer is unguarded
                seen[path] = [(i, CHECKED if not g and _checked_accessors(
                    i, path, parts, results, imports_of, fresh, max_file_size, ref_parts, memo) else g)
                    for i, g in importers]
        # a module importing a candidate outside a guard may itself be imported only under one (ChatTTS model/cuda/
        # __init__.py relays `from .te_llama import TELlamaModel`; gpt.py imports the package in a CUDA branch, in a try)
        relays = {importer for path in wanted for importer, guarded in seen.get(path, ()) if not guarded}
        needed = _needed_reexports(results, wanted, seen, imports_of, fresh, max_file_size, cache, digests, ref_parts)
        forced |= {(importer, path) for importer, path in needed if path in wanted}
        for path in wanted:  # a guarded re-export that an unguarded import needs is no guard
            if any((importer, path) in needed for importer, _ in seen.get(path, ())):
                seen[path] = [(i, UNGUARDED if (i, path) in needed else g) for i, g in seen[path]]
        relays |= {importer for importer, _ in needed}
        # any module relays, a package `__init__` or an ordinary one (xtuner ops/moe/cuda/group_gemm.py imports its
        # Triton kernels' package at its top and is itself imported only by the package `__init__` that the CUDA branch
        # of a device dispatch imports): what is reached only through guarded imports is reached only where they pass
        # (label rule 30d-1). Each importer's imports come from the "optimp" fact of the first pass, so following them
        # parses nothing again. So does a module importing kernels in a `try:` whose stand-in fails the call: it is
        # the kernels' one way in (auto-round qlinear_tritonv2.py), and whether the program reaches it only through a
        # check decides (L42)
        tried = {importer for path in wanted if path in kernels or path in tried
                 for importer, guarded in seen.get(path, ()) if guarded == TRIED}
        wanted = {p: tuple(module_parts(p)) for p in relays | tried if p not in candidates}
        wanted = {p: parts for p, parts in wanted.items() if len(parts) >= 2}
        if not wanted:
            break
        candidates = {**candidates, **wanted}
    seen = {path: _product_importers(_outside_package(path, importers)) for path, importers in seen.items()}
    optional = _closure(seen, lambda g: bool(g))
    selected = _closure(seen, lambda g: g == CHECKED)  # reached only through checks of the package: kernels go too
    if not optional:
        return results
    selected -= _language_required(results, selected, optional, seen, forced, fresh, max_file_size, imports_of.derived)
    out = []
    for result in results:
        if result.path in optional:
            keep_kernels = result.path not in selected
            kept = tuple(f for f in result.findings if not _droppable(f) and (keep_kernels or not _kernel(f)))
            result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts)
        out.append(result)
    return out


def _languages(result) -> set[str]:
    return {(f.package or "").split(".", 1)[0] for f in result.findings if _kernel(f)}


def _language_required(results, selected: set, optional: set, seen: dict, forced: set, fresh,
                       max_file_size: int, derived) -> set[str]:
    """The modules of `selected` whose every importer lies in a package whose `__init__` needs their kernel language
    anyway: it imports, with no guard on the way, a module importing that language (its kernel findings kept). Python
    runs the package `__init__` before any module inside it, so without the language the importers never run, and the
    check they make before the kernels' module never takes its other path; where the language is installed the kernels
    are called. mamba_ssm 2.0.4 (vendored by PointMamba, labels 65b): `modules/mamba_simple.py` imports
    ops/triton/selective_state_update.py in a `try:` whose None stand-in it tests ((L59)), but `mamba_ssm/__init__.py`
    imports `modules/mamba2.py`, which imports ops/triton/ssd_combined.py (`import triton`) unguarded. Only where each
    importer's guard is an import attempt at its top (`_attempted_at_top`), not a device selection. An import the
    `__init__` makes under a check, counted unguarded only because another module needs the name (`forced`,
    `_needed_reexports`), or inside a function (a lazy accessor: minference's `get_other_forward()`), does not make
    the package need the language: only imports at the top of each module on the way (`_imports_at_top`) count."""
    if not selected:
        return set()
    languages = {r.path: _languages(r) for r in results if r.path.endswith(".py")}
    needing: dict[str, set[str]] = {}  # package folder ("a/b/") -> kernel languages its `__init__` needs
    for path, used in languages.items():
        if not used or path in optional or path in selected:
            continue
        reached, todo = {path}, [path]
        while todo:  # the modules importing it with no guard, up to the package `__init__`s
            module = todo.pop()
            for importer, guarded in seen.get(module, ()):
                if not guarded and (importer, module) not in forced and importer not in reached \
                        and derived.ask("top-import", importer, module.replace("\\", "/"),
                                        lambda i=importer, m=module: _imports_at_top(i, m, fresh, max_file_size)) and not _TEST_PATH.search(importer.replace("\\", "/")):
                    reached.add(importer)
                    todo.append(importer)
        for module in reached:
            norm = module.replace("\\", "/")
            if norm.endswith("/__init__.py"):
                needing.setdefault(norm[: -len("__init__.py")], set()).update(used)
    out = set()
    for path in selected:
        importers = [i.replace("\\", "/") for i, _ in seen.get(path, ())]
        used = languages.get(path, set())
        if importers and used and any(used & needed and all(i.startswith(folder) for i in importers)
                                      for folder, needed in needing.items()) \
                and all(derived.ask("attempted-import", i, path.replace("\\", "/"),
                                    lambda i=i, p=path: _attempted_at_top(i, p, fresh, max_file_size)) for i, _ in seen[path]):
            out.add(path)
    return out


def _attempted_at_top(importer: str, module: str, fresh, max_file_size: int) -> bool:
    """`importer` imports `module` in a `try:` at its top (an import attempt whose handler binds a stand-in), the guard
    that only asks whether the import succeeds; not a device or platform selection (`if use_triton():`, a CUDA probe
    choosing a PyTorch fallback on other hosts: AngelSlim's diffusion kernels, label note 61c), which stays one."""
    text = _text(importer, fresh, max_file_size)
    tree = fileio.parse_python(text) if text is not None else None
    if tree is None:
        return False
    norm = module.replace("\\", "/")
    name = norm.rsplit("/", 2)[-2] if norm.endswith("/__init__.py") else norm.rsplit("/", 1)[-1][:-3]
    for statement in tree.body:
        if isinstance(statement, ast.Try):
            for node in statement.body:
                if isinstance(node, ast.ImportFrom) and (name in (node.module or "").split(".")
                                                         or any(a.name == name for a in node.names)):
                    return True
                if isinstance(node, ast.Import) and any(name in a.name.split(".") for a in node.names):
                    return True
    return False


def _imports_at_top(importer: str, module: str, fresh, max_file_size: int) -> bool:
    """`importer` names `module` (its file's name, or its package folder's) in an import statement at column 0: one
    that runs when `importer` is imported, not in a function, a branch or an attempt. Read only for the few modules on
    a way from a package `__init__` to a kernel language (`_language_required`)."""
    text = _text(importer, fresh, max_file_size)
    if text is None:
        return False
    norm = module.replace("\\", "/")
    name = norm.rsplit("/", 2)[-2] if norm.endswith("/__init__.py") else norm.rsplit("/", 1)[-1][:-3]
    word = re.escape(name)
    return re.search(rf"^(?:from[ \t]+[\w.]*\b{word}\b[\w.]*[ \t]+import\b|from[ \t]+[\w.]+[ \t]+import[ \t(][^\n]*\b{word}\b"
                     rf"|import[ \t]+[^\n]*\b{word}\b)", text, re.M) is not None


# a test's or a benchmark's path (a benchmark script imports the kernel it times unguarded, as a unit test does)
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing|benchmarks?)/|(?:^|/)test_[^/]*\.py$|_test\.py$")


def _product_importers(importers: list) -> list:
    """The imports that decide: a module's own unit test (or benchmark script) imports it unguarded to test that side
    (Megatron-DeepSpeed-like fused_kernels/tests/test_fused_kernels.py importing model/fused_layer_norm.py, whose one
    product importer is a CUDA branch, label note 40d-3); where some file outside the tests imports it, only those
    files' imports count. A module only tests import keeps them all."""
    product = [(i, g) for i, g in importers if not _TEST_PATH.search(i.replace("\\", "/"))]
    return product or importers


def _outside_package(path: str, importers: list) -> list:
    """The imports of a package's `__init__.py` from outside the package: Python runs the `__init__` before any module
    inside it, so a module of the package importing its own package (croco's models/curope/curope2d.py `from . import
    curope`, the package `__init__` re-exporting that module) is no way into it."""
    norm = path.replace("\\", "/")
    if not norm.endswith("/__init__.py"):
        return importers
    folder = norm[: -len("__init__.py")]
    return [(i, g) for i, g in importers if not i.replace("\\", "/").startswith(folder)]


def _closure(seen: dict, counts) -> set[str]:
    """The modules every import of which is guarded as `counts` accepts, or made by such a module."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for path, importers in seen.items():
            if path not in found and importers and all(counts(g) or i in found for i, g in importers):
                found.add(path)
                changed = True
    return found


def _checked_accessors(importer: str, path: str, parts: tuple, results, imports_of, fresh, max_file_size: int,
                       ref_parts: dict, memo: dict) -> bool:
    """The importer imports the module at `path` only inside public module-level functions (lazy accessors: Tencent/
    AngelSlim minference/kernels/__init__.py `def get_streaming_forward(): from .streaming_kernel import
    streaming_forward; return streaming_forward`, beside its own probe `kernels_available()`), never calls them
    itself, and every other module calls them only behind an availability check (NPU501's `availability_guard`, read
    with the checks of other modules known: prefill.py calls `_k.get_streaming_forward()` only in `_kernel_prefill`,
    called only under `if _k.kernels_available(variant, head_dim):`, the pure-torch reference otherwise). The module
    is then reached only where the package is, as through `if is_x_available(): from .m import f` (label rulings
    (L42)/(L97)). At least one such call; a reference that is no call, or one outside a check, keeps the import."""
    key = (importer, path)
    if key in memo:
        return memo[key]
    memo[key] = False
    derived = getattr(imports_of, "derived", None) or _Derived(None, None)
    accessors = set(derived.ask("accessors", importer, ".".join(parts), lambda: _accessors(importer, parts, fresh,
                                                                                         max_file_size, memo)))
    if not accessors:
        return False
    owner = tuple(module_parts(importer))
    if len(owner) < 2:
        return False
    calls = 0
    for result in results:
        if result.path == importer or not result.path.endswith(".py") or owner[-1] not in ref_parts[id(result)]:
            continue
        known = getattr(imports_of, "known", {}).get(result.path, frozenset())
        found = derived.ask("accessor-calls", result.path, "|".join([".".join(owner), *sorted(accessors), "", *sorted(known)]),
                            lambda path=result.path, known=known: _accessor_calls(path, owner, accessors, known, fresh,
                                                                                   max_file_size, memo))
        if found is None:
            return False
        calls += found
    memo[key] = calls > 0
    return memo[key]


def _accessors(importer: str, parts: tuple, fresh, max_file_size: int, memo: dict) -> list[str]:
    """The public module-level functions of the importer that import the module `parts` (its lazy accessors), none
    where one import of it is elsewhere (at the top, in a block, in a private function) or the importer calls or hands
    on one of them itself."""
    text = _text(importer, fresh, max_file_size)
    if not text or not _in_public_function(text, parts[-1], memo, importer):
        return []  # no indented import naming the module under a public top-level `def`: no accessor
    imports = _statement_imports(importer, text, memo)
    if imports is None:
        return []
    statements, loaded = imports
    accessors: set[str] = set()
    for accessor, names in statements:
        if any(_names_module(name, parts, relative) or _names_module(name[:-1], parts, relative) for name, relative in names):
            if accessor is None:
                return []
            accessors.add(accessor)
    return [] if accessors & loaded else sorted(accessors)


_HEADER = re.compile(r"^(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)


_INDENTED_IMPORT = re.compile(r"^[ \t]+(?:from|import)\s[^\n]*", re.M)


def _in_public_function(text: str, name: str, memo: dict | None = None, key=None) -> bool:
    """Some indented import line naming `name` has, as the nearest `def` / `class` header at the line's start above it,
    a public function's: the text test before any parse (most local imports sit in methods or private helpers; torch
    has hundreds), loose where it may be (a module-level block after a function passes, the parse decides). With
    `memo` and `key`, the file's indented import lines under public functions are found once (a module importing many
    candidates is asked about each)."""
    lines = memo.get(("public-imports", key)) if memo is not None else None
    if lines is None:
        headers = [(m.start(), m.group(1) == "def" and not m.group(2).startswith("_")) for m in _HEADER.finditer(text)]
        starts = [start for start, _ in headers]
        lines = []
        for match in _INDENTED_IMPORT.finditer(text):
            k = bisect.bisect_right(starts, match.start()) - 1
            if k >= 0 and headers[k][1]:
                lines.append(match.group())
        if memo is not None:
            memo[("public-imports", key)] = lines
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(word.search(line) for line in lines)


def _statement_imports(importer: str, text: str, memo: dict):
    """The importer's imports, read once per scan (`_checked_accessors` asks for every module it imports): for each
    top-level statement holding imports, (its name where it is a public function, else None; [(imported name,
    relative)]), and the names the module loads; None where it does not parse."""
    key = ("imports", importer)
    if key in memo:
        return memo[key]
    memo[key] = None
    tree = fileio.parse_python(text)
    if tree is None:
        return None
    # one walk of the tree: each import under the top-level statement holding it (by line), and the names loaded
    tops = tree.body
    ends = [statement.end_lineno for statement in tops]
    by_statement: dict[int, list] = {}
    loaded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            k = bisect.bisect_left(ends, node.lineno)
            by_statement.setdefault(k, []).append(node)
    statements = []
    for k in sorted(by_statement):
        nodes = sorted(by_statement[k], key=lambda n: (n.lineno, n.col_offset))
        names = [(name, isinstance(node, ast.ImportFrom) and node.level > 0) for node in nodes
                 for name in _imported(node, importer) if name]
        if names:
            statement = tops[k]
            public = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and not statement.name.startswith("_")
            statements.append((statement.name if public else None, names))
    memo[key] = (statements, loaded)
    return memo[key]


def _text(path: str, fresh, max_file_size: int) -> str | None:
    from migrate import engine

    data = fresh.get(path)
    if data is None:
        data = engine._read_target(engine.Target(path, ("python",)), max_file_size)
    return engine.text_again(path, data, max_file_size) if isinstance(data, bytes) else None


_RECENT_CONTEXTS = 8  # parsed contexts `_accessor_calls` keeps at once: the files naming one module come together


def _recent_context(memo: dict, path: str, ctx=None):
    """The file's parsed context if one of the last few kept (with `ctx`: keep it, letting the oldest go). Most files
    asked about never name the module's accessors and need none; the few that do are asked about in a row."""
    recent = memo.setdefault(("recent-contexts",), collections.OrderedDict())
    if ctx is None:
        found = recent.get(path)
        if found is not None:
            recent.move_to_end(path)
        return found
    recent[path] = ctx
    recent.move_to_end(path)
    while len(recent) > _RECENT_CONTEXTS:
        recent.popitem(last=False)
    return ctx


def _accessor_calls(path: str, owner: tuple, accessors: set, known: frozenset, fresh, max_file_size: int,
                    memo: dict) -> int | None:
    """How many calls of the accessors of the module `owner` the file makes, all behind availability checks; None
    where one reference is no such call. The file's text, imports and context are read once per scan (`memo`):
    a module of many accessors is asked about from every file naming it."""
    from migrate.context import PythonContext
    from migrate.rules.npu501_gpu_only_import import availability_guard

    key = ("parsed", path)
    if key not in memo:
        text = _text(path, fresh, max_file_size)
        memo[key] = (text, None, None)
    text, aliases, ctx = memo[key]
    if not text or not any(name in text for name in accessors):
        return 0
    if aliases is None:
        tree = fileio.parse_python(text)
        if tree is None:
            return None
        aliases = []  # (the imported name's parts, the local name, relative, aliased, dotted) of each import alias
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    single = ast.ImportFrom(module=node.module, names=[alias], level=node.level) \
                        if isinstance(node, ast.ImportFrom) else ast.Import(names=[alias])
                    aliases.append((max(_imported(single, path), key=len), alias.asname or alias.name.split(".")[0],
                                    isinstance(node, ast.ImportFrom) and node.level > 0, bool(alias.asname), "." in alias.name))
        ctx = PythonContext(path, text, tree, None)
        ctx.__dict__["_npu_known_flags"] = known
        memo[key] = (text, aliases, None)  # the context is kept apart, a few at a time (`_recent_context`)
        _recent_context(memo, path, ctx)
    modules, functions = set(), set()  # local names bound to the owner module, or to one of its accessors
    for full, local, relative, aliased, dotted in aliases:
        if _names_module(full, owner, relative) and (aliased or not dotted):
            modules.add(local)
        elif full[-1] in accessors and _names_module(full[:-1], owner, relative):
            functions.add(local)
    if not modules and not functions:
        return 0
    ctx = _recent_context(memo, path)
    if ctx is None:  # read again: its context was let go (a torch scan kept ~200 MiB of contexts to the pass's end)
        tree = fileio.parse_python(text)
        if tree is None:
            return None
        ctx = PythonContext(path, text, tree, None)
        ctx.__dict__["_npu_known_flags"] = known
        _recent_context(memo, path, ctx)
    references = [n for n in ctx.nodes.get(ast.Attribute, ()) if n.attr in accessors and isinstance(n.value, ast.Name)
                  and n.value.id in modules]
    references += [n for n in ctx.nodes.get(ast.Name, ()) if n.id in functions and isinstance(n.ctx, ast.Load)]
    calls = 0
    for reference in references:
        call = ctx.parent(reference)
        if not (isinstance(call, ast.Call) and call.func is reference):
            return None
        statement = call
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = ctx.parent(statement)
        if statement is None or availability_guard(ctx, statement) is None:
            return None
        calls += 1
    return calls
