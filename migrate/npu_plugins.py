"""A package the repository already runs on the NPU through its Ascend build is NPU-aware there (NPU501, NPU507).

vLLM's PyPI build is CUDA; on Ascend it runs through the vllm-ascend platform plugin, installed beside it, and vLLM's own
code runs as written (migrate/knowledge/third_party.toml: `npu_plugin`). A repository that names that plugin itself has
already taken the route: volcengine/verl imports `vllm_ascend` in its `if is_npu_available:` branches
(`from vllm_ascend.distributed.device_communicators.pyhccl import PyHcclCommunicator`) beside `from vllm import LLM`. Its
imports and uses of vLLM are the NPU path too: a porting engineer changes none of them (label ruling (L38)). The same
for a package whose NPU build replaces it under the same module name: triton-ascend installs the `triton` package for
Ascend, so a repository that requires triton-ascend (verl's requirements-npu.txt) runs its Triton kernels through it.

The repository names the plugin when one of its Python files imports the plugin's module (`vllm_ascend`), one of its
manifests declares the plugin's distribution (`vllm-ascend`, `triton-ascend`), or one of its Dockerfiles builds on an
image named for the plugin (`FROM quay.io/ascend/vllm-ascend:v0.11.0`: the image installs it; label note 47e-4), or one of
its launchers (a shell script, a Dockerfile's `RUN`) pip-installs the plugin (ByteDance-Seed/VeOmni's
docker/ascend/Dockerfile.ascend_9.0.0_torch_npu2.10.0.post2_a3: `pip install triton==3.5.0 && pip install
".../triton_ascend-3.2.1-cp311-...whl"`; label ruling (L40): a repository that requires *or installs* triton-ascend runs
its Triton code on the NPU), or one of its NPU guides (a documentation page named for the NPU, `installation_npu.md`,
`npu_patch/README.md`) names the plugin (AReaL's: "our provided image for NPU, which contains CANN and pre-built vLLM
and vLLM-Ascend"; label note 60a): the ("imp", root, line), ("req", name, line), ("img", name, line), ("inst", name,
line) and ("guide", name, line) facts of the per-file pass (migrate/deps.py, migrate/base_images.py, `installed` below), so nothing is read again. Its NPU501 / NPU507 findings of the
package are then dropped, in every file. Its manifest lines (NPU502: the PyPI `vllm` wheel, `sglang[srt]`) still change
on the NPU and stay reported, except the install of the package in a launcher that installs its plugin beside it (the
plugin's own recipe, see drop_plugin_routed). Decided after the scan on every run (never cached), so adding or removing the plugin's
import or requirement is seen at once.

Code written for the plugin names it too, in a repository that runs on the NPU (it imports or requires torch_npu): a
Python file using a module only the plugin provides under the package's name (knowledge `plugin_modules`: triton-ascend
installs its language extras as `triton.language.extra.cann`, `.ascend` in older releases). FlagOpen/FlagGems' vendor
registry picks its `_ascend` backend when torch_npu is there, and that backend's Triton kernels call
`tl.extra.ascend.libdevice.pow`: its Triton code (the backend's own and the generic kernels every vendor defaults to)
runs through triton-ascend (label note 62a, rulings (L40)/(L56)). The ("papi", plugin, line) facts, `module_uses`.

A package whose own code picks its Ascend kernels by the device (knowledge `npu_backend`: Liger-Kernel registers its
`_ascend` backend as the default for 'npu' devices, flash-linear-attention dispatches to its triton_ascend backend when
the device platform is 'npu') needs no plugin to be named: the repository takes it to the NPU by running on the NPU.
One that imports or requires torch_npu does (modelscope/twinkle's platform registry imports torch_npu and hands its
models to Liger on the NPU on purpose): that package's NPU501 / NPU507 findings are dropped as well (label ruling (L99):
a package whose own source serves the NPU through a backend selected by a device value, selected so by the
repository). Only the entry that carries the field: a sub-module with its own entry and no Ascend side
(`liger_kernel.ops.cutile`, CUDA-only) stays reported.

A package whose own setting selects its device backend (knowledge `npu_device_keyword`: LMDeploy's PyTorch engine runs
on Ascend through dlinfer under `PytorchEngineConfig(device_type="ascend")`) takes the NPU route where the repository
selects it so: one of its Python files passes that keyword an NPU value (`npu_device_values`), or a value it computes
(a parameter, a variable, an attribute: `device_type=device_type` in DeepLink-org/DLBlas's lmdeploy tests, whose
device is picked per run among cuda, ascend, camb) in a repository that runs on the NPU (it imports or requires
torch_npu); a literal of another device ('cuda') selects nothing. The ("devsel", key, line, "npu" | "var") facts of the
per-file pass, `device_selected`. The package's NPU501 / NPU507 findings are then dropped in every file (label ruling
(L99), note 67a), except those of the parts that stay CUDA-only whatever the value (`device_cuda_only`: TurboMind,
TurbomindEngineConfig, the CUDA kernel set imported by its path).
"""

from __future__ import annotations

import ast
import functools
import re

from migrate import fileio, knowledge
from migrate.context import bound_dotted
from migrate.findings import FileResult
from migrate.sources import normalise

# NPU510 too: a project name standing for the package's API (`monkey_patch_torch_reductions` bound from
# sglang.srt.utils in THUDM/slime, which runs SGLang's NPU build: label note 57a) is that API, routed as its uses are
CODES = frozenset({"NPU501", "NPU507", "NPU510"})


@functools.lru_cache(maxsize=1)
def _plugin_names() -> frozenset[str]:
    return frozenset(normalise(e.npu_plugin) for e in knowledge.third_party().values() if e.npu_plugin)


def installed(path: str, text: str) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for each Ascend plugin a launcher's `pip install` commands install (a requirement
    name, `triton-ascend==3.2.1`, or a wheel file or URL, `.../triton_ascend-3.2.1-cp311-...whl`, read by pip's own
    wheel-name rule in migrate/sources.requirement). Only the plugins are kept: the other installs are NPU502's."""
    lowered = text.lower()
    if "install" not in lowered or not any(name in lowered or name.replace("-", "_") in lowered
                                                 for name in _plugin_names()):
        return ()
    from migrate.rules.npu502_gpu_only_dependency import pip_install_dependencies
    from migrate.sources import LauncherContext

    names = _plugin_names()
    return tuple((normalise(d.name), d.line) for d in pip_install_dependencies(LauncherContext(path, text))
                 if d.name and normalise(d.name) in names)


# a probe of a module by its name: `pytest.importorskip("sgl_kernel_npu")`, `importlib.util.find_spec("vllm_ascend")`
_PROBE = re.compile(r"\b(?:importorskip|find_spec)\(\s*['\"]([A-Za-z_][\w]*)['\"]")


def probed(text: str) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for each Ascend plugin a Python file probes by its module name, the first line:
    `pytest.importorskip("sgl_kernel_npu")` in a test of the package's NPU path (alibaba/ROLL
    tests/third_party/sglang/test_abort.py; label note 52a: ROLL runs SGLang's NPU build), `find_spec("vllm_ascend")`.
    Code that asks for the plugin is written for it, as an import of it is (label ruling (L38)). Only the plugins are
    kept; the text is searched only when it holds a probe call."""
    if "importorskip(" not in text and "find_spec(" not in text:
        return ()
    names = _plugin_names()
    found: dict[str, int] = {}
    for match in _PROBE.finditer(text):
        name = normalise(match.group(1))
        if name in names and name not in found:
            found[name] = text.count("\n", 0, match.start()) + 1
    return tuple(sorted(found.items()))


# the words an Ascend plugin's distribution name gives its device by (`vllm-ascend`, `dlinfer-ascend`, `sgl-kernel-npu`)
_DEVICE_WORDS = frozenset({"ascend", "npu"})


def built(path: str, text: str) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for an Ascend plugin the repository builds itself: its setup.py's `setup(name=...)`
    or its pyproject.toml's `[project] name` is the plugin's distribution. DeepLink-org/dlinfer builds `dlinfer-ascend`,
    the plugin LMDeploy's Ascend route requires (knowledge `npu_plugin`); its lmdeploy_ext adapters import lmdeploy's
    PyTorch engine to run it on the NPU: the package's imports and uses are the plugin's own (label rulings (L38)/(L99),
    note 65a). A computed name (`name=f"dlinfer-{get_device()}"`, the device from the DEVICE variable) names the plugin
    only where its constant part holds every word of the plugin's name but the device word (`ascend`, `npu`): the
    placeholders may stand for the device alone, one word each (`f"{x}-ascend"` or `f"{prefix}"` name no plugin, as a
    device-only constant does not identify whose plugin it is). Read only in a setup.py holding `setup(` and a
    pyproject.toml, and only when the text names a plugin's first word."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if base not in ("setup.py", "pyproject.toml"):
        return ()
    lowered = text.lower()
    names = [n for n in sorted(_plugin_names()) if n.split("-")[0] in lowered.replace("_", "-")]
    if not names:
        return ()
    if base == "pyproject.toml":
        match = _PROJECT_NAME.search(text)
        if match and normalise(match.group(1)) in names:
            return ((normalise(match.group(1)), text.count("\n", 0, match.start(1)) + 1),)
        return ()
    if "setup(" not in text:
        return ()
    tree = fileio.parse_python(text)  # SyntaxWarnings silenced, 3.12+ syntax read too
    if tree is None:
        return ()
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "setup"
                                           or getattr(node.func, "attr", None) == "setup"):
            for keyword in node.keywords:
                if keyword.arg == "name":
                    for name in names:
                        if _names_plugin(keyword.value, name):
                            out.setdefault(name, keyword.value.lineno)
    return tuple(sorted(out.items()))


# `name = "..."` in the `[project]` table (the table's first lines up to the next table)
_PROJECT_NAME = re.compile(r"^\[project\][ \t]*\n(?:(?!\[)[^\n]*\n)*?[ \t]*name[ \t]*=[ \t]*[\"']([^\"'\n]+)[\"']", re.M)


def _names_plugin(node: ast.expr, plugin: str) -> bool:
    """The `name=` value is the plugin's distribution: a literal of it, or an f-string whose constant parts spell it
    with each placeholder standing for one device word (`f"dlinfer-{get_device()}"` for `dlinfer-ascend`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return normalise(node.value) == plugin
    if not isinstance(node, ast.JoinedStr):
        return False
    pattern = "".join(re.escape(normalise(part.value)) if isinstance(part, ast.Constant) and isinstance(part.value, str)
                      else "([a-z]+)" for part in node.values)
    match = re.fullmatch(pattern, plugin)
    return match is not None and all(word in _DEVICE_WORDS for word in match.groups())


def npu_extra_requirements(dependencies) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for each requirement of a package selecting one of its NPU-build extras (knowledge
    `npu_extras`: `sglang[srt_npu]`): it names the NPU build as a requirement of the plugin does (label note 60a)."""
    extras = _npu_extras()
    out = []
    for dep in dependencies:
        wanted = extras.get(normalise(dep.name))
        if wanted and "[" in dep.raw:
            chosen = {normalise(x) for x in dep.raw.split("[", 1)[1].split("]", 1)[0].split(",")}
            if chosen & wanted[0]:
                out.append((wanted[1], dep.line))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _npu_extras() -> dict[str, tuple[frozenset[str], str]]:
    """distribution -> (its NPU-build extras, its plugin distribution), from the entries with `npu_extras`."""
    return {normalise(pip): (frozenset(normalise(x) for x in e.npu_extras), normalise(e.npu_plugin))
            for e in knowledge.third_party().values() if e.npu_extras and e.npu_plugin for pip in e.pip_names}


def guided(text: str) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for each Ascend plugin an NPU guide of the repository names (sources.is_npu_guide:
    `installation_npu.md`, `npu_patch/README.md`), by its distribution or module name in any case (`vLLM-Ascend`,
    `vllm_ascend`, `triton-ascend`), the first line naming it. The repository's own NPU instructions setting up the
    plugin name it as its requirement does (label ruling (L38), note 60a: AReaL's guide runs rollouts on "pre-built vLLM
    and vLLM-Ascend"; set 57: slime's NPU guide `pip install triton-ascend`, (L40))."""
    lowered = text.lower()
    out = []
    for name in sorted(_plugin_names()):
        if name.replace("-", "") not in lowered.replace("-", "").replace("_", ""):
            continue
        spelled = re.compile(r"(?<![\w.-])" + r"[-_]".join(map(re.escape, name.split("-"))) + r"(?![\w-])")
        match = spelled.search(lowered)
        if match:
            out.append((name, lowered.count("\n", 0, match.start()) + 1))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _plugin_modules() -> tuple[tuple[str, str], ...]:
    """(module, plugin distribution) for each module only an Ascend plugin provides (knowledge `plugin_modules`)."""
    return tuple((module, normalise(e.npu_plugin)) for e in knowledge.third_party().values() if e.npu_plugin
                 for module in e.plugin_modules)


@functools.lru_cache(maxsize=None)
def _names_last_two(module: str) -> re.Pattern:
    """The module's last two words as code names them: `extra.ascend` (an import, an attribute chain) or `from
    ...extra import ascend`, whole words (torch's text says "ascending" in hundreds of files: the words alone matched
    nearly every file and parsed each again, 12 s of a cold scan of the torch corpus)."""
    parent, _, last = module.rpartition(".")
    first = re.escape(parent.rpartition(".")[2])
    return re.compile(rf"\b{first}(?:[ \t]*\.[ \t]*|[ \t]+import[ \t]+(?:\(?[\w \t,]*?)){re.escape(last)}\b")


def _last_two_words_in(text: str, module: str) -> bool:
    """Both of the module's last two words are in the text (substring tests, far cheaper than the pattern, which
    opens with a word boundary and so tries every position): the pattern runs only where both are."""
    parent, _, last = module.rpartition(".")
    return last in text and parent.rpartition(".")[2] in text


def module_uses(text: str) -> tuple[tuple[str, int], ...]:
    """(plugin distribution, line) for each Ascend plugin whose own modules (knowledge `plugin_modules`) this Python
    file uses, the first line naming it: an import of one (`import triton.language.extra.cann.libdevice`, `from
    triton.language.extra.ascend import libdevice`) or an attribute chain reaching one through an imported name
    (`tl.extra.ascend.libdevice.pow` after `import triton.language as tl`; FlagGems' _ascend/ops/vector_norm.py). The
    text is parsed only when it holds a module's last two words (`extra`, `cann`), in a few files of a scan."""
    modules = _plugin_modules()
    if not modules or not any(_last_two_words_in(text, m) and _names_last_two(m).search(text) for m, _ in modules):
        return ()
    tree = fileio.parse_python(text)  # SyntaxWarnings silenced, 3.12+ syntax read too
    if tree is None:
        return ()
    bound: dict[str, str] = {}
    found: dict[str, int] = {}

    def note(name: str, line: int) -> None:
        for module, plugin in modules:
            if name == module or name.startswith(module + "."):
                found[plugin] = min(line, found.get(plugin, line))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name, node.lineno)
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    bound[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                note(f"{node.module}.{alias.name}", node.lineno)
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = bound_dotted(node, bound)
            if name is not None:
                note(name, node.lineno)
    return tuple(sorted(found.items()))


def named_plugins(results: list[FileResult]) -> frozenset[str]:
    """The normalised names of everything the repository imports or declares (module roots and distributions), of
    the images its Dockerfiles build on, of the plugins its launchers install, of those its NPU guides name and of the
    one it builds itself (its setup.py or pyproject.toml names the plugin's distribution, `built`); and,
    in a repository that imports or requires torch_npu, of the plugins whose own modules its code uses ("papi" facts,
    `module_uses`)."""
    names: set[str] = set()
    used: set[str] = set()
    for result in results:
        for fact in result.facts:
            if fact and fact[0] in ("imp", "req", "img", "inst", "guide", "probe", "built") and isinstance(fact[1], str):
                names.add(normalise(fact[1]))
            elif fact and fact[0] == "papi" and isinstance(fact[1], str):
                used.add(fact[1])
    if used and _NPU_RUNTIME in names:  # code written for the plugin, in a repository that runs on the NPU
        names |= used
    return frozenset(names)


def _plugins() -> dict[str, str]:
    return {key: normalise(entry.npu_plugin) for key, entry in knowledge.third_party().items() if entry.npu_plugin}


def plugin_packages(results: list[FileResult]) -> frozenset[str]:
    """The knowledge keys of the packages whose Ascend plugin (or NPU build) the repository names."""
    plugins = _plugins()
    if not plugins:
        return frozenset()
    named = named_plugins(results)
    return frozenset(key for key, plugin in plugins.items() if plugin in named)


# the NPU device runtime: a repository importing or requiring it runs its models on the NPU
_NPU_RUNTIME = "torch-npu"


def backend_packages(results: list[FileResult]) -> frozenset[str]:
    """The knowledge keys of the packages that pick their Ascend backend by the device, in a repository that runs on the
    NPU (it imports or requires torch_npu); empty otherwise."""
    keys = frozenset(key for key, entry in knowledge.third_party().items() if entry.npu_backend)
    if not keys or _NPU_RUNTIME not in named_plugins(results):
        return frozenset()
    return keys


@functools.lru_cache(maxsize=1)
def _device_keywords() -> tuple[tuple[str, str, str, frozenset[str]], ...]:
    """(knowledge key, class, keyword, NPU values) for each entry with `npu_device_keyword` (`Class.keyword`)."""
    out = []
    for key, entry in knowledge.third_party().items():
        if entry.npu_device_keyword and "." in entry.npu_device_keyword:
            cls, _, keyword = entry.npu_device_keyword.rpartition(".")
            out.append((key, cls, keyword, frozenset(v.lower() for v in entry.npu_device_values)))
    return tuple(out)


def device_selected(text: str) -> tuple[tuple[str, int, str], ...]:
    """(knowledge key, line, "npu" | "var") for each call of a package's device-selecting class with its keyword
    (`PytorchEngineConfig(tp=tp, device_type=device_type)`), the first line of each kind: "npu" where the value is one
    of the package's NPU values (`"ascend"`), "var" where it is computed (anything but a literal); a literal of another
    device is left. The text is parsed only when it holds both the class and the keyword."""
    wanted = [k for k in _device_keywords() if k[1] in text and k[2] + "=" in text.replace(" =", "=")]
    if not wanted:
        return ()
    tree = fileio.parse_python(text)  # SyntaxWarnings silenced, 3.12+ syntax read too
    if tree is None:
        return ()
    found: dict[tuple[str, str], int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        for key, cls, keyword, values in wanted:
            if called != cls:
                continue
            for kw in node.keywords:
                if kw.arg != keyword:
                    continue
                if isinstance(kw.value, ast.Constant):
                    kind = "npu" if isinstance(kw.value.value, str) and kw.value.value.lower() in values else None
                else:
                    kind = "var"
                if kind and (key, kind) not in found:
                    found[(key, kind)] = node.lineno
    return tuple(sorted((key, line, kind) for (key, kind), line in found.items()))


def device_packages(results: list[FileResult]) -> frozenset[str]:
    """The knowledge keys of the packages whose NPU backend the repository selects by the device value (see above)."""
    npu, computed = set(), set()
    for result in results:
        for fact in result.facts:
            if fact and fact[0] == "devsel" and len(fact) == 4:
                (npu if fact[3] == "npu" else computed).add(fact[1])
    if computed - npu and _NPU_RUNTIME in named_plugins(results):
        npu |= computed
    return frozenset(npu)


def _cuda_only(finding, key: str) -> bool:
    """The finding is of a part of the package that stays CUDA-only whatever its device value (`device_cuda_only`:
    a module prefix, `lmdeploy.turbomind`, or a name, `TurbomindEngineConfig`)."""
    entry = knowledge.third_party().get(key)
    named = _NAMED_MODULE.search(finding.message)
    if entry is None or named is None:
        return False
    module = named.group(1)
    parts = module.split(".")
    return any(module == part or module.startswith(part + ".") if "." in part else part in parts
               for part in entry.device_cuda_only)


# the module a NPU501 / NPU507 message opens with (`liger_kernel.ops.cutile` targets ...; `fla: `fla.ops.x.f` ...`): the
# finding's `package` is the top-level entry, the message names the module whose (longest) entry it was judged by
_NAMED_MODULE = re.compile(r"`([A-Za-z_][\w.]*)`")


def _entry_key(finding) -> str | None:
    """The knowledge key the finding was judged by: the longest entry of the module its message names."""
    from migrate.rules.npu501_gpu_only_import import match_package

    named = _NAMED_MODULE.search(finding.message)
    key = match_package(named.group(1), knowledge.third_party()) if named else None
    return key if key is not None and finding.package and (key + ".").startswith(finding.package + ".") else finding.package


def _installed_here(result: FileResult) -> frozenset[str]:
    """The knowledge keys of the packages whose plugin this launcher itself installs."""
    names = {fact[1] for fact in result.facts if fact and fact[0] == "inst"}
    return frozenset(key for key, plugin in _plugins().items() if plugin in names) if names else frozenset()


def _root(package: str) -> str:
    return package.split(".")[0]


def _of(package: str | None, keys: frozenset[str]) -> bool:
    return package is not None and any(package == key or package.startswith(key + ".") for key in keys)


def drop_plugin_routed(results: list[FileResult]) -> list[FileResult]:
    """NPU501 / NPU507 findings of a package whose Ascend plugin the repository names, or that picks its Ascend backend
    by the device in a repository running on the NPU (see above), and the NPU502 install of a package in a launcher that
    installs its plugin too: the plugin's own install recipe (triton-ascend's FAQ, 'Can community Triton and
    Triton-Ascend coexist?': community Triton is installed first and triton-ascend overwrites the directory of the same
    name; VeOmni's NPU Dockerfiles `pip install triton==3.5.0 && pip install .../triton_ascend-3.2.1-...whl`), which an
    Ascend host runs as written."""
    if not any(f.code in CODES and f.package for r in results for f in r.findings) \
            and not any(fact and fact[0] == "inst" for r in results for fact in r.facts):
        return results
    keys, backends, selected = plugin_packages(results), backend_packages(results), device_packages(results)
    if not keys and not backends and not selected:
        return results

    out = []
    for result in results:
        here = _installed_here(result)

        def routed(f, here=here) -> bool:
            return (f.code in CODES and (_of(f.package, keys) or (bool(backends) and _entry_key(f) in backends)
                                         or (_of(f.package, selected) and not _cuda_only(f, _root(f.package))))) \
                or (f.code == "NPU502" and _of(f.package, here))

        if any(routed(f) for f in result.findings):
            kept = tuple(f for f in result.findings if not routed(f))
            result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed,
                                result.facts)
        out.append(result)
    return out
