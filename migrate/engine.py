"""The analysis engine: discover files, read them, run the rules, suppress, in parallel.

The cache lives in migrate/cache.py, the cross-file step (NPU508) in migrate/linking.py.

Returns frozen results; never prints. Progress is reported through an optional callback.
"""

from __future__ import annotations

import ast
import errno
import hashlib
import os
import re
import stat
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate import (
    accelerator_builders,
    asserted_entries,
    attention_registry,
    base_images,
    builder_classes,
    capability_kernels,
    cmake_find_modules,
    cmake_npu_switch,
    cmake_subdirs,
    config_options,
    decollected_tests,
    deps,
    device_dispatch,
    device_gated_builds,
    extension_registry,
    fileio,
    imported_kernels,
    importer_tested_stand_ins,
    json_configs,
    launcher_flags,
    linking,
    named_ops,
    npu_plugins,
    own_callees,
    own_package,
    paired_manifests,
    platform_classes,
    reflected_ops,
    registry_kernels,
    repo_index,
    requirement_checks,
    target_device_builds,
    tried_entries,
    type_lists,
    walk,
)
from migrate.cache import ResultCache, default_cache_dir
from migrate.config import DEFAULT_EXCLUDES, Config
from migrate.cuda_builds import add_symlinked_sources, drop_unbuilt, mentions
from migrate.findings import FileError, FileResult, Finding, ScanResult, displayable
from migrate.imported_flags import CODES as GUARD_CODES
from migrate.imported_flags import drop_guarded_extension_uses, flag_defs, reread_guarded
from migrate.newer_syntax import newer_syntax
from migrate.newer_syntax import parse as parse_python_source
from migrate.optional_modules import drop_optional_modules, tree_imports
from migrate.sources import (
    NPU_GUIDE_KIND,
    CudaSourceContext,
    LauncherContext,
    MalformedInput,
    classify,
    is_dockerfile,
    is_makefile,
    other_accelerator_dockerfile,
    read_manifest,
    read_notebook,
)

ProgressCallback = Callable[[int, int], None]
STDIN = "-"


@dataclass(frozen=True)
class Target:
    path: str  # as displayed in reports
    kinds: tuple[str, ...]
    data: bytes | None = None  # preloaded (stdin)


# ---- discovery ---------------------------------------------------------------------------------------
class _Excludes:
    """Compiled exclude globs: bare names (`.venv`) by set lookup, the rest as one regex."""

    def __init__(self, patterns: Iterable[str]):
        from fnmatch import translate

        self.names: set[str] = set()
        globs: list[str] = []
        for pattern in patterns:
            pattern = pattern.rstrip("/")
            if not any(ch in pattern for ch in "*?[/"):
                self.names.add(pattern)
            else:
                globs.append(pattern)
        name_globs = [translate(g) for g in globs if "/" not in g]
        path_globs = [translate(g) for g in globs if "/" in g] + [translate(g + "/*") for g in globs if "/" in g]
        path_globs += [translate(f"*/{g}") for g in globs]
        self.name_regex = re.compile("|".join(name_globs)) if name_globs else None
        self.path_regex = re.compile("|".join(path_globs)) if path_globs else None

    def match(self, rel: str, name: str) -> bool:
        # parents are matched before their children are visited, so only the entry itself is checked
        if name in self.names:
            return True
        if self.name_regex is not None and self.name_regex.match(name):
            return True
        return self.path_regex is not None and "/" in rel and self.path_regex.match(rel) is not None


def discover(paths: list[str], config: Config, stdin_data: bytes | None = None, stdin_name: str = "<stdin>") -> tuple[list[Target], list[FileError]]:
    targets: list[Target] = []
    errors: list[FileError] = []
    excludes = _Excludes(tuple(DEFAULT_EXCLUDES) + tuple(config.exclude))
    for given in paths:
        if given == STDIN:
            kinds = classify(stdin_name) or ("python",)
            targets.append(Target(stdin_name, kinds, stdin_data if stdin_data is not None else b""))
            continue
        if os.path.islink(given) and not os.path.exists(given):
            errors.append(walk.link_error(given))
            continue
        try:
            mode = os.stat(given).st_mode
        except OSError as exc:
            message = "no such file or directory" if exc.errno == errno.ENOENT else f"cannot read: {exc.strerror or exc}"
            errors.append(FileError(given, "NPU903", message))
            continue
        if stat.S_ISREG(mode):
            kinds = classify(given) or ("python",)  # a file named explicitly is read even without a .py suffix
            targets.append(Target(given, kinds))
            continue
        if not stat.S_ISDIR(mode):
            errors.append(FileError(given, "NPU903", f"{walk.special_kind(mode)}, not read"))
            continue
        walker = walk.Walker(excludes, config.respect_gitignore, getattr(config, "follow_links", False))
        walker.walk(given)
        targets.extend(Target(path, kinds) for path, kinds in walker.found)
        errors.extend(walker.errors)
    return targets, errors




# ---- analysing one file ---------------------------------------------------------------------------
_PY2_HINTS = re.compile(r"^\s*(print\s+[\"'\w]|exec\s+[\"']|except\s+\w+\s*,\s*\w+\s*:)|\bur[\"']|^\s*raise\s+\w+\s*,", re.M)


@lru_cache(maxsize=8)
def _rules_for(version: str):
    from migrate.rules import all_rules

    by_kind: dict[str, list] = {}
    for rule_cls in all_rules():
        rule = rule_cls()
        for kind in rule_cls.KINDS:
            by_kind.setdefault(kind, []).append(rule)
    return by_kind


@lru_cache(maxsize=8)
def _kb(version: str):
    from migrate import knowledge

    return knowledge.load(version)


def _run_rules(rules, ctx) -> list[Finding]:
    out: list[Finding] = []
    for rule in rules:
        out.extend(rule.check(ctx))
    return out


_MINIMAL_TRIGGERS: dict[tuple[int, int], tuple] = {}  # (id(rule), id(kb)) -> (rule, kb, triggers): both kept alive


def _minimal_triggers(rule, kb) -> tuple[str, ...]:
    """The rule's triggers without those containing another of them (`CUDA_HOME` beside `CUDA_`):
    the same answer for every text, fewer searches."""
    entry = _MINIMAL_TRIGGERS.get((id(rule), id(kb)))
    if entry is None:
        triggers = tuple(dict.fromkeys(rule.triggers(kb)))
        minimal = tuple(t for t in triggers if not any(o != t and o in t for o in triggers))
        entry = _MINIMAL_TRIGGERS[(id(rule), id(kb))] = (rule, kb, minimal)
    return entry[2]


def _applying(rules, text: str, kb, found: dict[str, bool] | None = None) -> list:
    """The rules of which at least one trigger occurs in `text` (a rule without triggers always
    applies); each distinct trigger is searched for once per text (several rules share them).
    `found`: filled with each trigger searched for and whether `text` holds it.
    A trigger without whitespace is searched for in the text's distinct whitespace-separated runs
    (`_distinct_runs`), one of word characters only (most of them) in the distinct words of those runs
    (`_distinct_words`): the same answer as `trigger in text`, from ~40% / ~15% of the characters on the torch package."""
    if found is None:
        found = {}
    out = []
    runs = words = None
    for rule in rules:
        triggers = _minimal_triggers(rule, kb)
        if not triggers:
            out.append(rule)
            continue
        for trigger in triggers:
            hit = found.get(trigger)
            if hit is None:
                if _spaced(trigger):
                    hit = trigger in text
                else:
                    if runs is None:
                        runs = _distinct_runs(text)
                    if _wordy(trigger):
                        if words is None:
                            words = _distinct_words(runs)
                        hit = trigger in words
                    else:
                        hit = trigger in runs
                found[trigger] = hit
            if hit:
                out.append(rule)
                break
    return out


def _distinct_runs(text: str) -> str:
    """The distinct runs of non-whitespace characters of `text` (`str.split`), one a line. A string holding no
    whitespace occurs in `text` exactly when it occurs here: each occurrence lies within one run, and none spans
    the newlines between runs. Most of a module's runs repeat (`self.`, `=`, `torch.`), so this is ~40% of it."""
    return "\n".join(set(text.split()))


_WORD = re.compile(r"\w+")


def _distinct_words(runs: str) -> str:
    """The distinct words (`\\w+`) of `runs`, one a line. A string of ASCII word characters occurs in `runs`
    exactly when it occurs here: each occurrence lies within one word, and none spans the newlines between words."""
    return "\n".join(set(_WORD.findall(runs)))


@lru_cache(maxsize=None)
def _spaced(trigger: str) -> bool:
    """Whether `trigger` holds whitespace as `str.split` splits on it: such a trigger is searched for in the text itself."""
    return any(c.isspace() for c in trigger)


@lru_cache(maxsize=None)
def _wordy(trigger: str) -> bool:
    """Whether `trigger` is ASCII word characters only: such a trigger is searched for in the distinct words."""
    return trigger.isascii() and _WORD.fullmatch(trigger) is not None


def _notebook_imports(cells) -> dict[str, str]:
    """Names imported anywhere in a notebook: a cell sees what earlier (or re-run) cells imported."""
    from migrate.context import collect_imports

    names: dict[str, str] = {}
    for cell in cells:
        if "import" not in cell.python_source:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = parse_python_source(cell.python_source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        nodes = list(ast.walk(tree))
        found, _ = collect_imports([n for n in nodes if isinstance(n, ast.Import)],
                                   [n for n in nodes if isinstance(n, ast.ImportFrom)])
        for key, value in found.items():
            names.setdefault(key, value)
    return names


# words of a module that may set an availability flag from an import attempt or answer from one in a function
# (migrate/imported_flags.py, migrate/availability_predicates.py)
_PROBE_WORDS = ("ImportError", "ModuleNotFound", "find_spec", "except:", "Exception", "_available", "_AVAILABLE", "HAS_")


def analyze_python_text(path: str, text: str, version: str, cell: int | None = None,
                        extra_imports: dict[str, str] | None = None,
                        facts: list | None = None, uses: list | None = None,
                        known_flags: frozenset = frozenset(), known_kernels: frozenset = frozenset(),
                        sites: bool = True, imports: list | None = None) -> tuple[list[Finding], list[FileError], int]:
    # the modules only analysis needs, imported here: a warm run analyses nothing and does not load them
    from migrate import npu_aware, optional_paths, reexports, skip_decorators, suppress
    from migrate.context import PythonContext

    rules = _rules_for(version).get("python", [])
    kb = _kb(version)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_python_source(text, filename=path)  # 3.12+ syntax read too
    except SyntaxError as exc:
        hint = " (looks like Python 2 code)" if _PY2_HINTS.search(text) else ""
        return [], [FileError(path, "NPU901", f"syntax error{hint}: {exc.msg}", exc.lineno or 1, exc.offset or 1)], 0
    except RecursionError:
        return [], [FileError(path, "NPU901", "cannot parse: nested too deeply for Python's parser (RecursionError)")], 0
    except (ValueError, MemoryError) as exc:
        return [], [FileError(path, "NPU901", f"cannot parse: {type(exc).__name__}: {exc}")], 0
    if facts is not None and "sys.path" in text:  # a folder put on the import path (migrate/submodules.py)
        from migrate import submodules

        facts.extend(submodules.path_facts(text))
    searched: dict[str, bool] = {}
    active = _applying(rules, text, kb, searched)
    if known_flags:  # the second look of migrate/imported_flags.py: only the rules that read availability guards
        active = [rule for rule in active if rule.CODE in GUARD_CODES]
    if known_kernels:  # the second look of migrate/imported_kernels.py: the rule reporting Triton launches, triggered or not
        active = [rule for rule in rules if rule.CODE == imported_kernels.CODE]
    # availability flags may be set here (an attempt's handler may be a bare `except:`), or asked by functions
    probes = facts is not None and any(word in text for word in _PROBE_WORDS)
    checks = facts is not None and requirement_checks.wants(text)  # a requirement check under an option may be here
    accelerators = facts is not None and accelerator_builders.wants(text)  # an accelerator class or its factory
    dispatch = facts is not None and device_dispatch.wants(text)  # a selector or registry keyed by device type
    platforms = facts is not None and platform_classes.wants(text)  # a platform class naming its implementations
    registry = facts is not None and extension_registry.wants(text)  # a per-device extension registry or its classes
    builders = facts is not None and builder_classes.wants(text)  # an op-builder class or a site binding its build
    target = facts is not None and target_device_builds.wants(text)  # a CUDA-target-only build or an import fallback
    if not active and not probes and not checks and not accelerators and not dispatch and not platforms and not registry and not builders and not target and not (facts is not None and (repo_index.wants_python_defs(text, path) or ")(" in text)):  # an accessor's file may trigger no rule
        if imports is not None:  # what drop_optional_modules reads of an importer, from this parse
            imports.append(tree_imports(tree, path))
        if facts is not None:  # a project's own option compared and set (migrate/config_options.py), every module
            facts.extend(config_options.python_facts(tree, path))
            if json_configs.wants(text):  # HfArgumentParser reading JSON arguments files (migrate/json_configs.py)
                facts.extend(json_configs.reader_facts(ast.walk(tree), path))
        return [], [], 0
    ctx = PythonContext(path, text, tree, kb, cell=cell)
    if facts is not None:  # the same, from the file's node index (every module: an option is set anywhere)
        facts.extend(config_options.python_facts(tree, path, ctx.nodes))
        if json_configs.wants(text):  # HfArgumentParser reading JSON arguments files (migrate/json_configs.py)
            facts.extend(json_configs.reader_facts(ctx.nodes.get(ast.Call, ()), path))
    if imports is not None:  # before the rules: the index and parents as the parse made them
        imports.append(tree_imports(tree, path, ctx.nodes, ctx.parent, ctx))
    if known_flags:  # availability flags other modules set, imported here (migrate/imported_flags.py)
        ctx.__dict__["_npu_known_flags"] = known_flags
    if known_kernels:  # Triton kernels other modules define, imported here (migrate/imported_kernels.py)
        ctx.__dict__["_npu_known_kernels"] = known_kernels
    for name, qualified in (extra_imports or {}).items():
        ctx.imports.setdefault(name, qualified)
    if facts is not None and repo_index.wants_python_defs(text, path):
        facts.extend(repo_index.python_defs(ctx))  # the repository index (NPU508), same parse
    if facts is not None and device_gated_builds.wants(text):
        facts.extend(device_gated_builds.facts(ctx))  # a CUDA build taken only for CUDA tensors (migrate/device_gated_builds.py)
    if accelerators:
        facts.extend(accelerator_builders.facts(tree, path, ctx.nodes))  # migrate/accelerator_builders.py
    if dispatch:
        facts.extend(device_dispatch.facts(tree, path, text))  # migrate/device_dispatch.py
    if platforms:
        facts.extend(platform_classes.facts(tree, path))  # migrate/platform_classes.py
    if registry:
        facts.extend(extension_registry.facts(tree, path, text, ctx.nodes))  # migrate/extension_registry.py
    if builders:
        facts.extend(builder_classes.facts(ctx))  # migrate/builder_classes.py
    if target:
        facts.extend(target_device_builds.facts(tree, path, ctx.nodes))  # migrate/target_device_builds.py
    if probes:
        facts.extend(flag_defs(ctx))  # availability flags other modules may import
    if checks:
        facts.extend(requirement_checks.option_checks(ctx))  # packages checked under an option (NPU501/507/404 elsewhere)
    if facts is not None:
        facts.extend(named_ops.python_facts(ctx))  # ops called by their registered name (migrate/named_ops.py)
        from migrate import runtime_installers

        facts.extend(runtime_installers.facts(ctx, text))  # a pip installer of the repository and its calls
    if facts is not None and reflected_ops.wants(text):
        facts.extend(reflected_ops.python_facts(ctx))  # objects filled with a compiled module's members
    if facts is not None and imported_kernels.wants_kernel_defs(text):
        facts.extend(imported_kernels.kernel_defs(ctx))  # Triton / numba.cuda kernels other modules may import and launch
    if facts is not None and reexports.wants_exports(text, searched):
        facts.extend(repo_index.export_defs(ctx))  # names standing for a CUDA API (NPU510), same parse
    found = _run_rules(active, ctx)
    if uses is not None:  # after the rules, whose chain_tops it reuses (see link_uses)
        uses.append(repo_index.link_uses(ctx))
        # each use site, so that linking needs no second parse; none in a file linking from facts never links
        uses.append(repo_index.link_sites(ctx) if sites else None)
    findings = npu_aware.drop_npu_aware(tree, found, text, (ctx.nodes, ctx._parents))  # CUDA branches beside an NPU one
    findings = optional_paths.mark_optional(tree, findings, ctx.nodes)  # GPU-only libraries behind a default-off option
    findings = skip_decorators.drop_skipped(findings, ctx.nodes)  # tests that skip without the package
    if findings and ("find_spec" in text or "@classmethod" in text or "@staticmethod" in text):
        # a package the module probes for (or a backend class of it does) and imports only in functions
        from migrate import probed_packages

        findings = probed_packages.drop_probed(tree, findings, ctx.nodes)
    if findings and "opyright" in text:  # a test file copied from a GPU-only package's own suite
        from migrate import vendored_tests

        findings = vendored_tests.drop_vendored(path, text, findings)
    if not findings:
        return [], [], 0
    suppressed = 0
    if "noqa" in text.lower():
        ranges = suppress.StatementRanges(tree, ctx.nodes)
        comments = {}
        if suppress.needs_comments(text, ctx.lines, ranges, findings):  # off the tree; tokenized where it cannot say
            comments = None if newer_syntax(tree) or "\f" in text else suppress.noqa_comments(ctx.lines, ctx.nodes)
            if comments is None:
                comments = suppress.python_comments(text)
        if suppress.file_is_suppressed(comments):
            return [], [], len(findings)
        noqa = suppress.comment_noqa(comments)
        if noqa:
            kept = [f for f in findings if not suppress.is_suppressed(f.code, ranges.lines_for(f.line), noqa)]
            suppressed = len(findings) - len(kept)
            findings = kept
    return _dedupe(findings), [], suppressed


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.code, f.cell, f.line, f.column, f.end_line, f.end_column)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _line_suppressed(text: str, findings: list[Finding]) -> tuple[list[Finding], int]:
    if "noqa" not in text:
        return findings, 0
    from migrate import suppress
    from migrate.context import split_lines

    comments = suppress.line_comments(split_lines(text))
    if suppress.file_is_suppressed(comments):
        return [], len(findings)
    noqa = suppress.comment_noqa(comments)
    kept = [f for f in findings if not suppress.is_suppressed(f.code, range(f.line, f.end_line + 1), noqa)]
    return kept, len(findings) - len(kept)


def analyze_file(target: Target, data: bytes, version: str) -> FileResult:
    """Analyse one file's bytes. Pure: never raises for bad input, returns errors instead.

    This is the per-file boundary: whatever a reader or a rule raises on this file becomes this
    file's own NPU9xx error, and the scan goes on with the next file.
    """
    with fileio.no_cycle_collection():
        return _analyze_file(target, data, version)


def _analyze_file(target: Target, data: bytes, version: str) -> FileResult:
    path = target.path
    kinds = target.kinds
    try:
        text = fileio.decode(data, python="python" in kinds).text
    except fileio.ReadError as exc:
        return FileResult(path, kinds[0], data.count(b"\n"), errors=(FileError(path, exc.code, str(exc), exc.line),))
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    if kinds == (json_configs.KIND,):  # read for its option settings only (migrate/json_configs.py): no rule, no mention
        return FileResult(path, kinds[0], lines, facts=repo_index.encode(json_configs.setting_facts(path, text), []))
    if kinds == (NPU_GUIDE_KIND,):  # read for the Ascend plugins it names only (migrate/npu_plugins.py): no rule, no mention
        return FileResult(path, kinds[0], lines, facts=tuple(("guide", name, line) for name, line in npu_plugins.guided(text)))
    findings: list[Finding] = []
    errors: list[FileError] = []
    suppressed = 0
    defs: list = []
    refs: list[str] = []
    imports: list[tuple[str, int]] = []
    requirements: list[tuple[str, int]] = []
    uses: list[str] = []
    module_imports: list | None = None  # [optional_modules.tree_imports of the text] once it parsed
    for kind in kinds:
        try:
            imported = repo_index.import_facts(path, text) if kind == "python" else None  # one pass of the import pattern
            if kind == "python":
                module_imports = []
            f, e, s_ = _analyze_kind(kind, path, text, version, defs, requirements, uses,
                                     imported is not None and repo_index.linked_by_sites(imported[0]), module_imports)
            if imported is not None:
                refs, imports = imported
        except MalformedInput as exc:
            f, e, s_ = [], [FileError(path, "NPU904", str(exc), exc.line)], 0
        except RecursionError:
            f, e, s_ = [], [FileError(path, _BOUNDARY_CODES.get(kind, "NPU904"), f"{kind} nested too deeply to read (RecursionError); skipped")], 0
        except Exception as exc:  # noqa: BLE001 - the per-file boundary: one file never stops the scan
            message = f"could not be read as a {kind} file ({type(exc).__name__}: {exc}); skipped. If the file is valid, please report this"
            f, e, s_ = [], [FileError(path, _BOUNDARY_CODES.get(kind, "NPU904"), message[:500])], 0
        findings += f
        errors += e
        suppressed += s_
    findings = _dedupe(findings)
    findings.sort(key=lambda f: f.sort_key)
    refs = refs + mentions(text, path)  # the CUDA files this one names (migrate/cuda_builds.py)
    images = base_images.images(text) if "launcher" in kinds and is_dockerfile(path) else ()
    facts = repo_index.encode(defs, refs, imports, requirements, uses[0] if uses else None, uses[1] if len(uses) > 1 else None,
                              images)
    if "launcher" in kinds and "install" in text:  # `pip install triton-ascend` in a script or a Dockerfile
        facts += tuple(("inst", name, line) for name, line in npu_plugins.installed(path, text))
    if path.endswith(("setup.py", "pyproject.toml")):  # the repository builds an Ascend plugin (npu_plugins.built)
        facts += tuple(("built", name, line) for name, line in npu_plugins.built(path, text))
    if "python" in kinds:  # a registry decorator may be here (read after the scan, migrate/registry_kernels.py)
        facts += registry_kernels.hint_facts(text)
        facts += capability_kernels.hint_facts(text)  # a device-capability read (migrate/capability_kernels.py)
        facts += type_lists.hint_facts(text)  # a class list handed to a type-checking helper (read after the scan)
        facts += importer_tested_stand_ins.stand_in_facts(text)  # a None stand-in (read after the scan)
        facts += tuple(("papi", name, line) for name, line in npu_plugins.module_uses(text))  # `tl.extra.cann` (npu_plugins)
        facts += tuple(("probe", name, line) for name, line in npu_plugins.probed(text))  # importorskip("plugin")
        facts += tuple(("devsel", key, line, kind) for key, line, kind in npu_plugins.device_selected(text))  # (L99)
        facts += tuple(("attnreg", name, line) for name, line in attention_registry.registered(text))  # own "flash_attention_2"
    if module_imports:  # the text parsed; not kept in the cache (ResultCache.put): drop_optional_modules stores the importers'
        facts += (("optimp", tuple(module_imports[0])),)
    return FileResult(path, kinds[0], lines, tuple(findings), tuple(errors), suppressed, facts)


# a failure while reading a file of this kind is reported with this code
_BOUNDARY_CODES = {"python": "NPU901", "notebook": "NPU904", "manifest": "NPU904", "launcher": "NPU904", "cuda-source": "NPU904",
                   "cpp-source": "NPU904", "gitmodules": "NPU904"}


def _analyze_kind(kind: str, path: str, text: str, version: str, defs: list,
                  requirements: list | None = None, uses: list | None = None,
                  sites: bool = True, imports: list | None = None) -> tuple[list[Finding], list[FileError], int]:
    by_kind = _rules_for(version)
    kb = _kb(version)
    if kind == "python":
        if "nvcc" in text and ".so" in text:  # a build step linking a shared library with nvcc (migrate/nvcc_libraries.py)
            from migrate import nvcc_libraries

            defs += nvcc_libraries.facts(path, text)
        findings, errors, suppressed = analyze_python_text(path, text.lstrip("\ufeff"), version, facts=defs, uses=uses,
                                                           sites=sites, imports=imports)
        if findings and ("/." in path or path.startswith(".")):  # a CI pipeline's own script (migrate/machine_setup.py)
            from migrate import machine_setup

            findings = machine_setup.drop_scored_family(path, text, findings)
        return findings, errors, suppressed
    findings: list[Finding] = []
    errors: list[FileError] = []
    suppressed = 0
    if kind == "notebook":
        cells = read_notebook(text)
        shared_imports = _notebook_imports(cells)
        cuda_names = frozenset()
        if "version.cuda" in text:  # `!pip install x -f .../{version_str}/...` (migrate/notebook_cuda_indexes.py)
            from migrate import notebook_cuda_indexes

            cuda_names = notebook_cuda_indexes.cuda_version_names(cells)
        for cell in cells:
            f, e, s = analyze_python_text(path, cell.python_source, version, cell=cell.index, extra_imports=shared_imports)
            findings += f
            errors += [FileError(x.path, x.code, f"cell {cell.index}: {x.message}", x.line, x.column) for x in e]
            suppressed += s
            if cell.shell_source.strip():
                ctx = LauncherContext(path, cell.shell_source, cell=cell.index)
                shell = _run_rules(_applying(by_kind.get("launcher", []), cell.shell_source, kb), ctx)
                if cuda_names:
                    shell += notebook_cuda_indexes.findings(ctx, cuda_names, shell)
                shell, s = _line_suppressed(cell.shell_source, shell)
                findings += shell
                suppressed += s
                defs += config_options.launcher_facts(path, cell.shell_source, cell=cell.index)  # `!python x.py --opt v`
                if "install" in cell.shell_source and "/" in cell.shell_source:  # `!pip install git+.../proj.git`
                    from migrate import local_installs
                    from migrate.rules.npu502_gpu_only_dependency import pip_install_dependencies

                    defs += local_installs.facts(pip_install_dependencies(ctx), cell=cell.index)
    elif kind == "manifest":
        ctx = read_manifest(path, text)
        if requirements is not None:  # the open-world list reads them too (not a conda file's: migrate/deps.py)
            requirements += [(d.name, d.line) for d in ctx.dependencies]
            requirements += list(npu_plugins.npu_extra_requirements(ctx.dependencies))  # `sglang[srt_npu]`
        if any("/" in d.raw for d in ctx.dependencies):  # `- pointnet2_ops_lib/.`: matched to a CUDA build after the scan
            from migrate import local_installs

            defs += local_installs.facts(ctx.dependencies)
        findings, suppressed = _line_suppressed(text, _run_rules(by_kind.get("manifest", []), ctx))
        if findings and path.endswith("pyproject.toml") and "conflicts" in text:  # uv extras exclusive with an NPU one
            from migrate import exclusive_extras

            findings = exclusive_extras.drop_cuda_side(path, text, findings)
        if findings and ("/." in path or path.startswith(".")):  # a requirements file of a CI pipeline
            from migrate import machine_setup

            findings = machine_setup.drop_scored_family(path, text, findings)
        if ctx.problems:  # the parts of the right shape were read; say what was left out
            errors.append(FileError(path, "NPU904", f"malformed manifest, parts left out: {'; '.join(ctx.problems)}"))
    elif kind == "gitmodules":  # no rule of its own: its submodules join the repository index (migrate/submodules.py)
        from migrate import submodules

        defs += submodules.facts(text)
    elif kind == "cpp-source":
        defs += repo_index.cpp_defs(path, text)
        rules = _applying(by_kind.get(kind, []), text, kb)
        findings, suppressed = _line_suppressed(text, _run_rules(rules, CudaSourceContext(path, text)))
    elif kind in ("launcher", "cuda-source"):
        if kind == "cuda-source":
            defs += repo_index.cpp_defs(path, text)
        ctx = LauncherContext(path, text) if kind == "launcher" else CudaSourceContext(path, text)
        rules = _applying(by_kind.get(kind, []), text, kb)
        findings = _run_rules(rules, ctx)
        if kind == "launcher":
            defs += config_options.launcher_facts(path, text)  # option settings (migrate/config_options.py)
            if "nvcc" in text:  # a shared library it links with nvcc, loaded with ctypes (migrate/nvcc_libraries.py)
                from migrate import nvcc_libraries

                defs += nvcc_libraries.facts(path, text)
            if "PYTHONPATH" in text:  # a folder put on the import path (migrate/submodules.py)
                from migrate import submodules

                defs += submodules.path_facts(text)
            from migrate import shell_python

            findings += shell_python.findings(path, text, version)  # `python -c "..."` is Python
            from migrate import npu_aware

            findings = npu_aware.drop_npu_aware_shell(path, text, findings)  # the CUDA side of an NPU-aware script
            from migrate import machine_setup

            findings = machine_setup.drop_scored_family(path, text, findings)  # a CI workflow, a SkyPilot task
            if other_accelerator_dockerfile(path):  # `Dockerfile.rocm`: the AMD image, no CUDA build to port (L15)
                findings = []
            if "install" in text and "/" in text:  # `pip install ./submodules/x` (migrate/local_installs.py)
                from migrate import local_installs
                from migrate.rules.npu502_gpu_only_dependency import pip_install_dependencies

                defs += local_installs.image_facts(path, ctx.lines, pip_install_dependencies(ctx))
            if "install" in text and "." in text:  # `pip install .`, `cd ext && pip install -e .`
                from migrate import local_installs

                defs += local_installs.pip_runs_here(path, ctx.lines)
            if "setup.py" in text and not is_makefile(path):  # `python setup.py build install` (migrate/local_installs.py);
                # a Makefile's target is a side build (label ruling (L19)), not the install of a CUDA build
                from migrate import local_installs

                defs += local_installs.setup_py_runs(ctx.lines, path)
            if "make" in text and not is_makefile(path):  # `cd ext; make all`, the Makefile running the ext's setup.py
                from migrate import local_installs

                defs += local_installs.make_runs(ctx.lines, path)
        findings, suppressed = _line_suppressed(text, findings)
    return findings, errors, suppressed


# ---- the scan -----------------------------------------------------------------------------------------
def _worker_batch(batch: list[tuple[Target, bytes]], version: str) -> list[FileResult]:
    with fileio.no_cycle_collection():  # for the whole batch: its results so far are what a collection would walk
        return [analyze_file(target, data, version) for target, data in batch]


def text_again(path: str, data: bytes | None, limit: int) -> str | None:
    """The text of a Python file analysed again after the scan (linking, imported flags and kernels, optional
    modules): the bytes the scan kept (`data`), else read now, bounded as the scan reads; None when it cannot be
    read or decoded any more (removed or replaced since the walk)."""
    if data is None:
        data = _read_target(Target(path, ("python",)), limit)
    if not isinstance(data, bytes):
        return None
    try:
        return fileio.decode(data, python=True).body
    except fileio.ReadError:
        return None


def trees_again(fresh: dict, limit: int):
    """A function path -> the Python tree of that file read again after the scan (text_again, then parsed), each file
    parsed at most once for the pass that holds it; None where it cannot be read or parsed."""
    parsed: dict[str, object] = {}

    def tree_of(path: str):
        if path not in parsed:
            text = text_again(path, fresh.get(path), limit)
            parsed[path] = fileio.parse_python(text) if text is not None else None
        return parsed[path]

    return tree_of


def _read_target(target: Target, limit: int) -> bytes | FileError:
    if target.data is not None:
        return target.data
    too_large = "file is {:.1f} MB, over the {:.1f} MB limit; skipped"
    try:
        # O_NONBLOCK: a FIFO put in the file's place after discovery must not block the open
        fd = os.open(target.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            kind = walk.special_kind(st.st_mode)
            if kind is not None:
                return FileError(target.path, "NPU903", f"{kind}, not read")
            if st.st_size > limit:
                return FileError(target.path, "NPU905", too_large.format(st.st_size / 1e6, limit / 1e6))
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(limit + 1)  # a file growing while we read stays bounded
            if len(data) > limit:
                return FileError(target.path, "NPU905", too_large.format(len(data) / 1e6, limit / 1e6))
            return data
        finally:
            os.close(fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return FileError(target.path, "NPU903", "symbolic link loop")
        if exc.errno == errno.ENOENT and os.path.islink(target.path):
            return FileError(target.path, "NPU903", "broken symbolic link")
        return FileError(target.path, "NPU903", f"cannot read: {exc.strerror or exc}")



def _cache_key(target: Target) -> str:
    """A file's cache key: its absolute path, the path as this run names it, its kinds. The facts a result carries
    (definitions, imports, use sites) hold the path as the run names it, and the repository-wide passes match them
    against the paths of the files read fresh: a result stored by a run naming the file `pkg/x.py` and read back
    by one naming it `/abs/pkg/x.py` mixed the two styles and changed the findings (torch's package: 10,906
    findings run relatively, 11,304 when an absolute-path run read the relative run's cache; 10,906 again fresh)."""
    return f"{os.path.abspath(target.path)}|{target.path}|{','.join(target.kinds)}"

def scan(
    paths: list[str],
    config: Config | None = None,
    *,
    torch_npu_version: str | None = None,
    use_cache: bool = True,
    cache_dir: Path | None = None,
    jobs: int | None = None,
    progress: ProgressCallback | None = None,
    stdin_data: bytes | None = None,
    stdin_name: str = "<stdin>",
) -> ScanResult:
    from migrate import knowledge

    started = time.perf_counter()
    config = config or Config()
    version = knowledge.resolve_version(torch_npu_version or config.torch_npu_version)
    targets, discover_errors = discover(paths, config, stdin_data, stdin_name)
    results: list[FileResult] = [FileResult(e.path, "error", 0, errors=(e,)) for e in discover_errors]
    # the cache's entries and the results made from them are many small objects: no collection walks them as they come
    with fileio.no_cycle_collection():
        cache = ResultCache(cache_dir or default_cache_dir(), version) if use_cache else None
        todo: list[tuple[Target, bytes, str]] = []
        cached = 0
        total = len(targets)
        done = 0
        stat_keys: dict[str, list] = {}
        digests: dict[str, tuple[str, str]] = {}  # path -> (cache key, content digest), for the index
        for target in targets:
            key = _cache_key(target) if target.data is None else ""
            if cache and key:
                try:
                    st = os.stat(target.path)
                    stat_keys[key] = [st.st_size, st.st_mtime_ns, st.st_ino]
                except OSError:
                    pass
                # a file modified within the last 2 s may change again within the mtime granularity
                if key in stat_keys and time.time_ns() - stat_keys[key][1] > 2_000_000_000:
                    hit = cache.get_by_stat(key, stat_keys[key], target.path)
                    if hit is not None:
                        digests[target.path] = (key, cache.entries[key][0])
                        results.append(hit)
                        cached += 1
                        done += 1
                        continue
            data = _read_target(target, config.max_file_size)
            if isinstance(data, FileError):
                results.append(FileResult(target.path, target.kinds[0], 0, errors=(data,)))
                done += 1
                continue
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
            if key:
                digests[target.path] = (key, digest)
            hit = cache.get(key, digest, target.path) if (cache and key) else None
            if hit is not None:
                results.append(hit)
                cache.put_stat(key, stat_keys.get(key))
                cached += 1
                done += 1
            else:
                todo.append((target, data, digest))
    if progress:
        progress(done, total)
    fresh = _analyze_all(todo, version, jobs, progress, done, total)
    for (target, _, digest), result in zip(todo, fresh):
        results.append(result)
        if cache and target.data is None:
            key = _cache_key(target)
            cache.put(key, digest, result, stat_keys.get(key))
    read = {t.path: d for t, d, _ in todo}  # the bytes this run read (a file from the cache is read again if a pass needs it)
    # the repository-wide passes allocate much and free little: with the collector on, its collections walked every
    # result of the scan again and again (torch's warm re-run: ~800 collections, a fifth of its CPU time)
    with fileio.no_cycle_collection():
        results, wrapper_calls = _repository_passes(results, version, read, cache, digests, jobs, config)
        if cache:
            cache.save()
        selected: dict[str, bool] | None = None if config.per_file_ignores else {}  # code -> kept, where the path plays no part
        results = [displayable(_filter(r, config, selected)) for r in results]
    results.sort(key=lambda r: r.path)
    return ScanResult(tuple(results), time.perf_counter() - started, version, cached, wrapper_calls=wrapper_calls)


def _repository_passes(results: list[FileResult], version: str, read: dict[str, bytes], cache: ResultCache | None,
                       digests: dict, jobs: int | None, config: Config) -> tuple[list[FileResult], object]:
    """The passes after every file was analysed once, each over the whole scan's results (cross-file links, then
    what another file of the repository decides); returns the results and the kernels' wrapper call sites."""
    from migrate import cpu_only_ops

    results = linking.link_extensions(results, version, read, cache, digests, jobs, config.max_file_size)
    results = named_ops.report(results)  # ops fetched by their registered name through a project accessor
    results = reflected_ops.report(results, read, config.max_file_size)  # ops through an object filled with the module's members
    results = builder_classes.report(results)  # compiled modules an op-builder class's method JIT-builds
    from migrate import nvrtc_builds

    results = nvrtc_builds.report(results, read, config.max_file_size)  # a run-time NVRTC compiler, its calls and launches
    results = cpu_only_ops.drop_cpu_only_uses(results)  # an extension's ops that are plain C++ (no CUDA build)
    results = reread_guarded(results, version, read, config.max_file_size, cache, digests)
    results = drop_guarded_extension_uses(results, read, config.max_file_size)  # extension ops under an imported flag
    results = imported_kernels.add_imported_launches(results, version, read, config.max_file_size)
    results = drop_optional_modules(results, read, config.max_file_size, cache, digests)  # importers all in try
    results = importer_tested_stand_ins.drop_importer_tested(results, read, config.max_file_size)  # importers test it
    results = requirement_checks.drop_checked_uses(results, read, config.max_file_size)  # checked under an option elsewhere
    results = asserted_entries.drop_asserted_uses(results, read, config.max_file_size)  # reached only past entry asserts
    results = tried_entries.drop_tried_uses(results, read, config.max_file_size)  # entered only by calls tried with a fallback
    results = type_lists.drop_type_list_uses(results, read, config.max_file_size)  # classes a helper only type-checks
    results = registry_kernels.drop_registry_selected(results, read, config.max_file_size)  # Triton behind an op registry with an NPU side
    results = capability_kernels.drop_capability_selected(results, read, config.max_file_size, cache, digests)  # Triton behind a capability test
    results = own_package.drop_own_uses(results)  # a package's own files do not "use" it
    results = own_package.drop_vendored_side_folders(results)  # nor do a vendored copy's tests and trainer
    results = decollected_tests.drop_decollected(results, read, config.max_file_size)  # tests pytest never collects there
    results = own_package.drop_self_installs(results)  # nor does the checkout depend on itself (`pip install aqlm[gpu]`)
    results = own_package.drop_self_selections(results)  # nor select itself (`load_in_4bit=True` in bitsandbytes)
    results = own_callees.drop_own_callee_options(results, read, config.max_file_size)  # Actor(use_flash_attention_2=x)
    results = paired_manifests.drop_paired_cuda_manifests(results)  # requirements.txt beside requirements_npu.txt
    results = npu_plugins.drop_plugin_routed(results)  # vllm where the repository names vllm-ascend
    results = accelerator_builders.drop_builder_path(results)  # CUDA builders behind an accelerator abstraction with an NPU side
    results = device_dispatch.drop_cuda_side(results)  # a device selector's CUDA folder where an NPU folder answers
    results = platform_classes.drop_other_side(results)  # modules only a platform hierarchy's non-NPU members name
    results = extension_registry.drop_cuda_entries(results)  # CUDA entries of a per-device registry with an NPU entry
    results, wrapper_calls = deps.split_wrapper_calls(results)  # call sites of a kernel, not findings
    results = drop_unbuilt(results)  # a .cu file nothing builds is no work item
    from migrate import vendored_examples

    results = vendored_examples.drop_unreached(results)  # a vendored library's own examples nothing builds
    results = cmake_find_modules.drop_uninvoked(results)  # a vendored Find module no CMake file pulls in
    results = cmake_subdirs.drop_unreached(results)  # a nested CMakeLists.txt the top-level build never adds
    # a CUDA-target-only CMake engine with an NPU fallback; after drop_unbuilt, which reads every built source's NPU506
    results = target_device_builds.drop_fallback_builds(results)
    results = cmake_npu_switch.drop_cuda_side(results)  # the CUDA side of a CMake build with an NPU switch
    results = device_gated_builds.drop_gated(results)  # a run-time CUDA build taken only for CUDA tensors
    from migrate import npu_build_branch

    results = npu_build_branch.drop_cuda_side(results, read, config.max_file_size)  # a setup.py's chain with an NPU build
    from migrate import ascend_builds

    results = ascend_builds.drop_npu_built(results)  # ops, libraries and packages the repository builds for Ascend
    results = add_symlinked_sources(results)  # a CMake CUDA source linked to a C++ file: the real file
    from migrate import local_installs

    results = local_installs.report(results)  # a pip install of a folder whose setup.py builds CUDA
    from migrate import runtime_installers

    results = runtime_installers.report(results)  # a literal GPU-only requirement handed to the repository's pip installer
    results = config_options.report(results)  # a project's own option set to the value of its GPU-only branch
    results = launcher_flags.report(results)  # a framework's own launcher flag selecting GPU-only code
    results = json_configs.report(results)  # a GPU-only option value in a JSON arguments file HfArgumentParser reads
    results = attention_registry.drop_own_implementations(results)  # a value the repository registers its own attention under
    return results, wrapper_calls


def _filter(result: FileResult, config: Config, selected: dict[str, bool] | None = None) -> FileResult:
    """The result with only the findings `config` selects; `selected` (code -> answer, filled here) where no
    per-file ignore makes the answer depend on the path: a warm run of a large repository asks for thousands."""
    if not result.findings:
        return result
    if selected is None:
        kept = tuple(f for f in result.findings if config.is_selected(f.code, f.path))
    else:
        kept = tuple(f for f in result.findings
                     if (selected[f.code] if f.code in selected else selected.setdefault(f.code, config.is_selected(f.code))))
    if len(kept) == len(result.findings):
        return result
    return FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed)


def _analyze_all(todo, version, jobs, progress, done, total) -> list[FileResult]:
    if not todo:
        return []
    workers = jobs if jobs else (os.cpu_count() or 1)
    total_bytes = sum(len(d) for _, d, _ in todo)
    if workers <= 1 or len(todo) < 16 or total_bytes < 400_000:
        out = []
        for target, data, _ in todo:
            out.append(analyze_file(target, data, version))
            done += 1
            if progress and (done % 25 == 0 or done == total):
                progress(done, total)
        return out

    def batch_done(count: int) -> None:
        nonlocal done
        done += count
        if progress:
            progress(done, total)

    from concurrent.futures.process import BrokenProcessPool

    try:
        return fileio.run_batched(_worker_batch, [(t, d) for t, d, _ in todo], [len(d) for _, d, _ in todo], workers=workers,
                              args=(version,), min_budget=50_000, on_batch=batch_done)
    except BrokenProcessPool:
        # a worker died (killed, out of memory, a crash in native code): every file again, one per task
        import multiprocessing

        context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
        return _isolated(todo, version, context)


def _isolated(items, version, context) -> list[FileResult]:
    """Analyse files one per task in a fresh one-worker pool, after a worker died: the file that kills
    a worker again gets its own error and the others are still analysed."""
    from concurrent.futures import ProcessPoolExecutor  # here: a warm run starts no pool (multiprocessing ~30 ms to import)
    from concurrent.futures.process import BrokenProcessPool

    results: list[FileResult] = []
    position = 0
    while position < len(items):
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            try:
                while position < len(items):
                    target, data, _ = items[position]
                    results.append(pool.submit(_worker_batch, [(target, data)], version).result()[0])
                    position += 1
            except BrokenProcessPool:
                target = items[position][0]
                results.append(FileResult(target.path, target.kinds[0], 0, errors=(FileError(
                    target.path, "NPU900", "the worker process analysing this file died (killed, out of memory or a "
                    "crash in native code); skipped. Please report this"),)))
                position += 1
    return results
