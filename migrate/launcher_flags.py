"""A well-known framework's own launcher flags that select GPU-only code (NPU503, label rule 41d-3).

A launcher runs a repository script that is a Megatron-LM training entry point (it imports `megatron`) and passes
Megatron-LM's own flags, parsed by Megatron-LM's argument parser, which is not in the repository:

    te_options=" \\
        --transformer-impl transformer_engine"       # reported: Transformer Engine layers
    torchrun $DISTRIBUTED_ARGS pretrain_qwen.py --use-flash-attn --moe-grouped-gemm ${te_options}

The repository's argparse cannot say what such a flag does (config_options.py reads the project's OWN options); the
flags and values that select GPU-only code are data, each with its Megatron-LM source and what Ascend's MindSpeed does
with it (knowledge/data/launcher_flags.toml). A flag is reported in a launcher (not a YAML config) that names a
script of the repository importing one of the flag's `entry` packages; a flag marked `field` is also reported as a
config-dataclass default in a repository file importing that package (`transformer_impl: str = "transformer_engine"`
in a TransformerConfig subclass). Values that keep the non-GPU path (`--transformer-impl local`, `--attention-backend
auto`), size / path flags and commented lines are not read, nor a flag the repository's own argparse declares (a
Megatron fork such as Megatron-DeepSpeed parses `--use-flash-attn` itself: config_options reads its own branches).

A flag an Ascend plugin serves with NPU kernels by its own documentation (`npu_plugin = "mindspeed"`: MindSpeed's
flash-attention.md says `--use-flash-attn` calls its Flash Attention, megatron-moe-gmm.md that `--moe-grouped-gemm`
invokes the npu_gmm fused operator) is not reported in a repository that names that plugin (imports `mindspeed` /
`mindspeed.megatron_adaptor`, requires or installs it: npu_plugins.named_plugins): Megatron runs there through
MindSpeed, which patches the feature for the NPU (label note 73a; open question (b) of set 51 / (d) of set 60 taken
that way for such repositories only). Elsewhere the flag stays reported.

Decided after the scan from the launchers' settings and script names (config_options.launcher_facts: kinds "cfgset"
and "cfgruns") and each Python file's imported roots ("imp" facts).
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass
from importlib import resources

import tomllib

from migrate.sources import normalise

_TRUE = "True"


@dataclass(frozen=True)
class LauncherFlag:
    entry: tuple[str, ...]  # the import roots of an entry point of the framework
    flag: str  # as written: `transformer-impl`
    values: tuple[str, ...]  # the values selecting GPU-only code ("True": the flag given)
    field: bool  # its dest is a field of the framework's config dataclass too
    why: str
    alternative: str
    source: str
    mindspeed: str
    npu_plugin: str = ""  # the Ascend plugin whose docs say it serves the flag on the NPU (normalised: "mindspeed")

    @property
    def key(self) -> str:
        return self.flag.replace("-", "_")


@functools.lru_cache(maxsize=1)
def launcher_flags() -> dict[str, tuple[LauncherFlag, ...]]:
    """dest -> the flags with that dest (knowledge/data/launcher_flags.toml)."""
    text = resources.files("migrate.knowledge").joinpath("data", "launcher_flags.toml").read_text(encoding="utf-8")
    out: dict[str, list[LauncherFlag]] = {}
    for f in tomllib.loads(text).get("flag", ()):
        values = tuple(_TRUE if v is True else str(v) for v in f["values"])
        flag = LauncherFlag(tuple(f["entry"]), f["flag"], values, bool(f.get("field", False)), f["why"],
                            f["alternative"], f["source"], f.get("mindspeed", "not checked"),
                            normalise(f.get("npu_plugin", "")))
        out.setdefault(flag.key, []).append(flag)
    return {key: tuple(flags) for key, flags in out.items()}


def _matching(pair: str, roots: set[str], python: bool) -> LauncherFlag | None:
    key, _, value = pair.partition("=")
    for flag in launcher_flags().get(key, ()):
        if value in flag.values and roots.intersection(flag.entry) and (flag.field or not python):
            return flag
    return None


def _resolved(named: str, launcher: str, paths: list[str]) -> str:
    """The repository file a launcher's script names: `../llama2/pretrain.py` from examples/yi/run.sh is
    examples/llama2/pretrain.py; else config_options' lookup (beside the launcher, or the one file ending so)."""
    from migrate.config_options import _script

    folder = launcher.replace("\\", "/").rpartition("/")[0]
    if named.startswith("../") and folder:
        joined = posixpath.normpath(f"{folder}/{named}")
        if not joined.startswith("..") and joined in paths:
            return joined
    return _script(named.lstrip("./"), launcher, paths) or ""


def report(results: list) -> list:
    """`results` with an NPU503 warning at each known framework flag that selects GPU-only code (see above)."""
    from migrate.config_options import _FIELD, _test_file
    from migrate.findings import Category, Finding, Severity
    from migrate.npu_plugins import named_plugins

    table = launcher_flags()
    roots: dict[str, set[str]] = {}
    declared: set[str] = set()  # flags the repository's own argparse declares: its own options (config_options)
    candidates = []  # (result, [(line, key=value)], scripts named)
    for result in results:
        facts = result.facts or ()
        imported = {f[1] for f in facts if f[0] == "imp"}
        if imported:
            roots[result.path] = imported
        declared.update(f[2].partition("=")[0] for f in facts if f[0] == "def" and f[1] in ("cfgarg", "cfgalias"))
        if _test_file(result.path):
            continue
        settings, scripts = [], []
        for fact in facts:
            if fact[0] != "def":
                continue
            if fact[1] == "cfgruns":
                scripts.append(fact[2])
            elif fact[1] == "cfgset" and fact[2].partition("=")[0] in table:
                if result.kind != "launcher" and (len(fact) <= 5 or fact[5] != _FIELD):
                    continue  # a keyword or parameter default passes an argument: no config field (config_options)
                settings.append((fact[3], fact[2]))
        if settings and (scripts or result.kind != "launcher"):
            candidates.append((result, settings, scripts))
    # a repository that declares the flag itself (a Megatron fork: Megatron-DeepSpeed's own `--use-flash-attn`) gives
    # it its own meaning, read from its branches by config_options; the table is for a parser outside the repository
    candidates = [(result, [(line, pair) for line, pair in settings if pair.partition("=")[0] not in declared], scripts)
                  for result, settings, scripts in candidates]
    if not any(settings for _, settings, _ in candidates):
        return results
    paths = [result.path for result in results]
    # a flag an Ascend plugin serves with NPU kernels (MindSpeed's --use-flash-attn: npu_fusion_attention) is that
    # plugin's NPU path in a repository that names the plugin (imports `mindspeed`, requires or installs it)
    plugins = {flag.npu_plugin for flags in table.values() for flag in flags if flag.npu_plugin}
    served = plugins & named_plugins(results) if plugins else set()
    added: dict[str, list] = {}
    for result, settings, scripts in candidates:
        if result.kind == "launcher":
            entry = {root for named in dict.fromkeys(scripts) for root in roots.get(_resolved(named, result.path, paths), ())}
        else:
            entry = roots.get(result.path, set())
        taken = {f.line for f in result.findings if f.code == "NPU503"}
        new = []
        for line, pair in sorted(set(settings)):
            flag = _matching(pair, entry, result.kind != "launcher")
            if flag is None or line in taken or flag.npu_plugin in served:
                continue
            taken.add(line)
            key, _, value = pair.partition("=")
            shown = f"--{flag.flag}" + ("" if value == _TRUE else f" {value}") if result.kind == "launcher" \
                else f"{key} = {value}"
            new.append(Finding(result.path, line, 1, line, 1, "NPU503", Severity.WARNING, Category.THIRD_PARTY,
                               f"`{shown}` selects GPU-only code of {'/'.join(flag.entry)} ({flag.why}); NPU: "
                               f"{flag.alternative}"))
        if new:
            added[result.path] = new
    if not added:
        return results
    return [result.adding(added[result.path]) if result.path in added else result for result in results]
