"""Availability flags imported from another module of the repository, recognised by reading that module.

`from .utils import flash_ok` then `if flash_ok: from flash_attn import flash_attn_func` is an optional
path exactly like `if is_flash_attn_2_available():` when utils.py sets the flag from an import attempt
(`try: import flash_attn; flash_ok = True except ImportError: flash_ok = False`, or
`flash_ok = importlib.util.find_spec("flash_attn") is not None`): NPU501 then leaves the import out,
and NPU507 / NPU404 the uses of the names it binds. The per-file pass knows a flag imported from
elsewhere only by its spelling (`HAS_x`, `x_AVAILABLE`: `rules/npu501_gpu_only_import._FLAG`).

Here each file records the flags it sets (a "flag" fact, in the same pass as its analysis), and after
the scan a file whose findings of those rules could sit under such a flag (one of its import
references names a flag of another module) is analysed once more with the flags it imports known;
findings of those rules that the second analysis no longer gives are dropped. Nothing is added, and
a file's cached result stays its own (the second analysis is not cached: it depends on another file).
"""

from __future__ import annotations

import re

from migrate.findings import FileResult
from migrate.raising_checks import RAISES  # the mode of a function raising without the package, "raises:<parameter>"

CODES = frozenset({"NPU501", "NPU507", "NPU404"})  # the rules that read availability guards
CALLED = "call"  # the mode of a flag that is a function answering from one (migrate/availability_predicates.py)
FALLBACK = "fallback"  # a function giving a mode back only after checking its package (availability_predicates.py)


def flag_defs(ctx) -> list:
    """The availability flags a module sets from an import attempt, as "flag" definitions, and the functions answering
    from one (mode "call", migrate/availability_predicates.py)."""
    from migrate.availability_predicates import fallback_selectors, predicates, spec_predicates
    from migrate.raising_checks import raising_checks
    from migrate.repo_index import Definition, module_parts
    from migrate.rules.npu501_gpu_only_import import _set_by_import_attempt

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    return [Definition("flag", f"{dotted}.{name}", ctx.path, 1, False) for name in sorted(_set_by_import_attempt(ctx))] + \
        [Definition("flag", f"{dotted}.{name}", ctx.path, 1, False, mode=CALLED)
         for name in sorted(predicates(ctx) | spec_predicates(ctx))] + \
        [Definition("flag", f"{dotted}.{name}", ctx.path, 1, False, mode=f"{RAISES}:{parameter}" if parameter else RAISES)
         for name, parameter in sorted(raising_checks(ctx).items())] + \
        [Definition("flag", f"{dotted}.{name}", ctx.path, 1, False,
                    mode=f"{FALLBACK}:{_SEP.join(sorted(checked))}|{_SEP.join(sorted(fallbacks))}")
         for name, (checked, fallbacks) in sorted(fallback_selectors(ctx).items())]


_SEP = "\x1f"  # between the values of a fallback selector (migrate/availability_predicates.fallback_selectors)


def _known(flag: str, mode: str) -> str:
    """How a flag is known to the second analysis: `m.flag`, `m.predicate()`, `m.check(!parameter)`."""
    if mode == CALLED:
        return flag + "()"
    if mode.startswith(FALLBACK + ":"):  # `m.selector(=checked|fallbacks)`
        return f"{flag}(={mode.partition(':')[2]})"
    if mode.startswith(RAISES):
        return f"{flag}(!{mode.partition(':')[2]})"
    return flag


def _spelled(flag: str, spelled: str) -> str:
    """The pattern of a flag as the importer writes it: its name, or `module.name` where the module is imported."""
    return re.escape(flag.rpartition(".")[2] if spelled == flag else ".".join(flag.rsplit(".", 2)[-2:]))


def _digest(data) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest() if isinstance(data, bytes) else ""


def _same_module(a: str, b: str) -> bool:
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def reread_guarded(results: list[FileResult], version: str, fresh: dict, max_file_size: int, cache=None,
                   digests: dict | None = None) -> list[FileResult]:
    """`results` less the findings a second analysis with the imported flags known no longer gives (see the module
    doc). With `cache` (a ResultCache) and `digests` (path -> (cache key, content digest)), a file found to test none
    of the flags it imports is remembered under its content and those flags, so a warm run does not read it again."""
    # a predicate function is known as `module.name()` and tested by a call (`if model_management.xformers_enabled():`)
    # a function raising without the package (migrate/raising_checks.py) as `module.name(!parameter)`, called anywhere
    flags = [(f[2], r.path, f[6] if len(f) > 6 else "") for r in results for f in (r.facts or ())
             if f[0] == "def" and f[1] == "flag"]
    if not flags:
        return results
    from migrate import engine

    by_last: dict[str, list] = {}  # a reference can only match a flag (or its module) ending in its own last part
    for flag, path, mode in flags:
        module, _, name = flag.rpartition(".")
        by_last.setdefault(name, []).append((flag, path, flag, mode))
        by_last.setdefault(module.rpartition(".")[2], []).append((flag, path, module, mode))
    out = []
    for result in results:
        if result.kind != "python" or not result.path.endswith(".py") or not any(f.code in CODES for f in result.findings):
            out.append(result)
            continue
        # the flag imported by name, or its module (`from pkg import probe` ... `if probe.fused:`)
        matched = {(flag, spelled, mode) for f in (result.facts or ()) if f[0] == "ref"
                   for flag, path, spelled, mode in by_last.get(f[1].rpartition(".")[2], ())
                   if path != result.path and _same_module(f[1], spelled)}
        known = frozenset(_known(flag, mode) for flag, _, mode in matched)
        if not known:
            out.append(result)
            continue
        key, digest = (digests or {}).get(result.path, ("", ""))
        names = "|".join(sorted({_spelled(flag, spelled) + (r"\b(?=\s*\()" if mode == CALLED or mode.startswith(FALLBACK + ":") else r"\b(?!\s*\()")
                                 for flag, spelled, mode in matched if not mode.startswith(RAISES)}))
        raising = "|".join(sorted({_spelled(flag, spelled) for flag, spelled, mode in matched if mode.startswith(RAISES)}))
        untested = names + ("#" + raising if raising else "")  # the cache's note of what was looked for
        if cache and key and cache.get_untested(key, digest, untested):
            out.append(result)
            continue
        data = fresh.get(result.path)
        if data is None:  # read here: its digest keys the cache entry below
            data = engine._read_target(engine.Target(result.path, ("python",)), max_file_size)
        text = engine.text_again(result.path, data, max_file_size)
        if text is None:
            out.append(result)
            continue
        # a flag can only guard here if a test reads it (`if flash_ok`, `and probe.fused`, not `has_triton()`; a predicate
        # function called, `if mm.xformers_enabled()`):
        # most files importing a flag's module never test that flag, and a second analysis of a large file costs
        # (read through its module: `probe.fused`, not any word `fused`)
        # (or a local bound to it, tested afterwards: `_kernel_ok = kernels_available(head_dim)`)
        if not (names and re.search(rf"(?:\b(?:if|elif|and)\b[^\n#]*?|=\s*)\b(?:{names})", text)) \
                and not (raising and re.search(rf"\b(?:{raising})\s*\(", text)):
            if cache and key and digest == _digest(data):
                cache.put_untested(key, digest, untested)
            out.append(result)
            continue
        again, errors, _ = engine.analyze_python_text(result.path, text, version, known_flags=known)
        if errors:
            out.append(result)
            continue
        kept = {(f.code, f.line, f.column) for f in again}
        findings = tuple(f for f in result.findings if f.code not in CODES or (f.code, f.line, f.column) in kept)
        out.append(result if len(findings) == len(result.findings) else
                   FileResult(result.path, result.kind, result.lines, findings, result.errors, result.suppressed, result.facts))
    return out


EXTENSION_CODE = "NPU508"


def _guarded_lines(tree, names: set[str], modules: dict[str, set[str]]) -> set[int]:
    """The lines of the bodies of `if` statements (and `elif`s) whose test reads one of the flags, alone or as an
    operand of `and` (`if use_ext:`, `if cfg.use_ext and x.is_cuda:`); not a negated test. `modules`: flag name -> the
    dotted modules setting it, read through the file's own imports (`import pkg.config as cfg`)."""
    import ast

    from migrate.context import bound_dotted

    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def reads(test) -> bool:
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(reads(value) for value in test.values)
        if isinstance(test, ast.Name):
            return test.id in names
        if isinstance(test, ast.Attribute) and test.attr in modules:
            owner = bound_dotted(test.value, bound)
            return owner is not None and any(_same_module(owner, module) for module in modules[test.attr])
        return False

    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.body and reads(node.test):
            lines.update(range(node.body[0].lineno, (node.body[-1].end_lineno or node.body[-1].lineno) + 1))
    return lines


def drop_guarded_extension_uses(results: list[FileResult], read: dict, max_file_size: int) -> list[FileResult]:
    """NPU508 findings inside `if <flag>:` where the flag is an availability flag another module of the scan sets from
    an import attempt of the extension, imported here (`from flag_gems.config import use_c_extension` ... `if
    use_c_extension: torch.ops.flag_gems.rms_norm(...) else: <Triton>`; FlagGems' config.py: `try: from flag_gems import
    c_operators; has_c_extension = True except ImportError: ... has_c_extension = False`): on an NPU host the import
    fails, the flag is False and the branch never runs (label ruling (L102), note 62a). The per-file rule reads the same
    flag set in its own file (migrate/flagged_extensions.py); this reads it across files, from the "flag" facts, and
    parses only a file with NPU508 findings whose text tests a flag it imports."""
    flags = [(f[2], r.path) for r in results for f in (r.facts or ())
             if f[0] == "def" and f[1] == "flag" and not (len(f) > 6 and f[6])]
    if not flags or not any(f.code == EXTENSION_CODE for r in results for f in r.findings):
        return results
    import ast
    import re

    from migrate import engine

    by_last: dict[str, list] = {}
    for flag, path in flags:
        by_last.setdefault(flag.rpartition(".")[2], []).append((flag, path))
    out = []
    for result in results:
        if result.kind != "python" or not result.path.endswith(".py") \
                or not any(f.code == EXTENSION_CODE for f in result.findings):
            out.append(result)
            continue
        # imported by name (`from pkg.config import flag`: the ref `pkg.config.flag`) or read through its module
        # (`import pkg.config as cfg` ... `cfg.flag`: the ref `pkg.config`)
        names: set[str] = set()
        modules: dict[str, set[str]] = {}
        refs = [f[1] for f in (result.facts or ()) if f[0] == "ref"]
        for ref in refs:
            for flag, path in by_last.get(ref.rpartition(".")[2], ()):
                if path != result.path and _same_module(ref, flag):
                    names.add(flag.rpartition(".")[2])
            for name, entries in by_last.items():
                for flag, path in entries:
                    module = flag.rpartition(".")[0]
                    if path != result.path and _same_module(ref, module):
                        modules.setdefault(name, set()).add(module)
        words = names | set(modules)
        if not words:
            out.append(result)
            continue
        data = read.get(result.path)
        if data is None:
            data = engine._read_target(engine.Target(result.path, ("python",)), max_file_size)
        text = engine.text_again(result.path, data, max_file_size)
        if text is None or not re.search(r"\b(?:if|elif)\b[^\n#]*\b(?:" + "|".join(map(re.escape, sorted(words))) + r")\b", text):
            out.append(result)
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            out.append(result)
            continue
        # a name the file binds itself is no longer the imported flag
        names -= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        guarded = _guarded_lines(tree, names, modules)
        findings = tuple(f for f in result.findings if f.code != EXTENSION_CODE or f.line not in guarded)
        out.append(result if len(findings) == len(result.findings) else
                   FileResult(result.path, result.kind, result.lines, findings, result.errors, result.suppressed, result.facts))
    return out
