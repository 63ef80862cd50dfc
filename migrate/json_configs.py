"""A library option's GPU-only value in a JSON arguments file the project's code parses (NPU503, cross-file).

Hugging Face training scripts keep their `TrainingArguments` in JSON files and parse them with transformers'
`HfArgumentParser`:

    parser = HfArgumentParser((CustomizedArguments, TrainingArguments))     # train.py
    args, training_args = parser.parse_json_file(json_file=args.train_args_file)

    {"output_dir": "output/x", "optim": "paged_adamw_32bit", ...}           # train_args/sft/qlora/x.json

`"optim": "paged_adamw_32bit"` there selects bitsandbytes' paged AdamW exactly as `--optim paged_adamw_32bit` in a
launcher or `optim: paged_adamw_32bit` in a YAML config does (NPU503's knowledge: transformers training_args.py
OptimizerNames). HfArgumentParser reads a JSON file with `parse_json_file` (`json.loads(Path(json_file).read_text())`
handed to `parse_dict`) or a dict the caller loaded with `parse_dict(json.load(f))` (transformers
src/transformers/hf_argparser.py, HfArgumentParser.parse_json_file / parse_dict).

A `.json` file of at most JSON_LIMIT bytes is read as kind "json-config" (sources.classify): each `"key": value`
pair (a string or a boolean) setting an option of NPU503's table (one not limited to some packages' files) to its
GPU-only value is recorded as a fact (kind "cfgjson": name `key=value`, why `start:end` columns); each Python file
naming HfArgumentParser (or trl's TrlParser, its subclass) and calling `parse_json_file(...)`, or `parse_dict(...)`
on a `json.load` / `json.loads` result, records one of kind "cfgjsonreader". After the scan, `report` turns the
settings into NPU503 findings when the repository has such a reader; without one a JSON file is data (a saved run's
arguments, a dataset), not a config anything reads, and nothing is reported. No other rule reads these files.
"""

from __future__ import annotations

import ast
import re

from migrate.repo_index import Definition

KIND = "json-config"  # the input kind of a `.json` file (sources.classify)
JSON_LIMIT = 256 * 1024  # an arguments file is a few KiB; a larger JSON file is data (annotations, vocabularies)
SETTING = "cfgjson"
READER = "cfgjsonreader"
_READER_WORDS = ("parse_json_file", "parse_dict")
# transformers' parser, and trl's TrlParser (trl scripts/utils.py: `class TrlParser(HfArgumentParser)`): a file calling
# a `parse_json_file` of its own (a dataset reader) names neither
_PARSERS = ("HfArgumentParser", "TrlParser")
_PAIR = re.compile(r'"(?P<key>[\w.-]+)"\s*:\s*(?P<value>"(?:[^"\\]|\\.)*"|true|false)')


def _value(raw: str):
    if raw == "true":
        return True
    if raw == "false":
        return False
    return raw[1:-1]


def setting_facts(path: str, text: str) -> list[Definition]:
    """The `"key": value` pairs of a JSON file that set a GPU-only option of NPU503's table (kind "cfgjson")."""
    from migrate.rules.npu503_gpu_only_option import _lookup as lookup
    from migrate.rules.npu503_gpu_only_option import gpu_only_options

    keys = {option.key for option in gpu_only_options()[0]}
    if not any(f'"{key}"' in text for key in keys):
        return []
    out: list[Definition] = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in _PAIR.finditer(line):
            key, value = match.group("key"), _value(match.group("value"))
            if key in keys and lookup(key, value) is not None:
                shown = value if isinstance(value, str) else str(value)
                out.append(Definition(SETTING, f"{key}={shown}", path, number, False,
                                      why=f"{match.start() + 1}:{match.end() + 1}"))
    return out


def wants(text: str) -> bool:
    """The file may parse JSON arguments: it names HfArgumentParser (or trl's subclass) and one of its JSON readers."""
    return any(word in text for word in _READER_WORDS) and any(name in text for name in _PARSERS)


def _json_load(node) -> bool:
    """`json.load(f)` / `json.loads(s)` (a call of an attribute `load` / `loads` of a name `json`)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("load", "loads")
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "json")


def reader_facts(nodes, path: str) -> list[Definition]:
    """A call `X.parse_json_file(...)`, or `X.parse_dict(json.load(...))`, among `nodes` (kind "cfgjsonreader", at its
    line)."""
    for call in nodes:
        func = getattr(call, "func", None)
        if not isinstance(call, ast.Call) or not isinstance(func, ast.Attribute):
            continue
        if func.attr == "parse_json_file" or (func.attr == "parse_dict" and call.args and _json_load(call.args[0])):
            return [Definition(READER, func.attr, path, call.lineno, False)]
    return []


def report(results: list) -> list:
    """`results` with an NPU503 error (as a YAML config's or a launcher's value) at each GPU-only option value of a JSON file, where a Python file of the
    repository parses JSON arguments files with HfArgumentParser."""
    readers = [result.path for result in results if any(f[0] == "def" and f[1] == READER for f in result.facts or ())]
    if not readers:
        return results
    from migrate.findings import Category, Finding, Severity
    from migrate.rules.npu503_gpu_only_option import _lookup as lookup

    out = []
    for result in results:
        if result.kind != KIND:
            out.append(result)
            continue
        added = []
        for fact in result.facts or ():
            if fact[0] != "def" or fact[1] != SETTING:
                continue
            key, _, shown = fact[2].partition("=")
            option = lookup(key, {"True": True, "False": False}.get(shown, shown))
            if option is None:  # the knowledge changed since the fact was cached
                continue
            start, _, end = fact[5].partition(":")
            added.append(Finding(result.path, fact[3], int(start), fact[3], int(end), "NPU503", Severity.ERROR,
                                 Category.THIRD_PARTY,
                                 f"`{key}={shown}` selects GPU-only code ({option.why}); NPU: {option.alternative} "
                                 f"(a JSON arguments file: {readers[0]} parses such files with HfArgumentParser)",
                                 package=option.package or None))
        out.append(result.adding(added))
    return out
