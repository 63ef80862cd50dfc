"""SARIF 2.1.0 with rule metadata (help text from each rule's docstring)."""

from __future__ import annotations

import json
import os
import re
from urllib.parse import quote

from migrate import __version__, deps, repo_index

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|n|t|r)")  # how reports show bytes a file name cannot print
_CONTROL_BYTES = {"n": "%0A", "t": "%09", "r": "%0D"}


def _uri(path: str) -> str:
    """A relative URI reference: percent-encoded (RFC 3986), so `#`, `%`, spaces and the undecodable
    bytes or control characters of a file name (shown as `\\xNN`, `\\n` in every report) name the real file."""
    if os.sep == "\\":
        path = path.replace("\\", "/")
    path = path[2:] if path.startswith("./") else path
    parts = _ESCAPE.split(path)  # text, escape, text, escape, ...
    return "".join(quote(part, safe="/") if i % 2 == 0 else _CONTROL_BYTES.get(part) or f"%{part[1:].upper()}"
                   for i, part in enumerate(parts))


def report(result, stream, *, verdict, rules) -> None:
    used = sorted({f.code for f in result.findings} | set(rules))
    repo = repo_index.build_index(result.files)  # one index for the two repository-wide lists
    index = {code: i for i, code in enumerate(used)}
    descriptors = []
    for code in used:
        rule = rules.get(code)
        descriptors.append({
            "id": code,
            "name": getattr(rule, "NAME", code),
            "shortDescription": {"text": getattr(rule, "MESSAGE", code) or code},
            "fullDescription": {"text": rule.docs() if rule else code},
            "help": {"text": rule.docs() if rule else code},
            "defaultConfiguration": {"level": _LEVEL[str(rule.SEVERITY)] if rule else "warning"},
            "properties": {"category": str(rule.CATEGORY) if rule else "unknown", "fixable": bool(getattr(rule, "FIXABLE", False))},
        })
    results = []
    for f in result.findings:
        region = {"startLine": f.line, "startColumn": f.column, "endLine": f.end_line, "endColumn": f.end_column}
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.path)}, "region": region}}
        if f.cell is not None:
            location["logicalLocations"] = [{"name": f"cell {f.cell}", "kind": "member"}]
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _LEVEL[str(f.severity)],
            "message": {"text": f.message},
            "locations": [location],
            "properties": {"category": str(f.category), "fixable": f.fixable},
        })
    notifications = [
        {"level": "error", "message": {"text": f"{e.code} {e.message}"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(e.path)}, "region": {"startLine": max(e.line, 1)}}}]}
        for e in result.errors
    ]
    run = {
        "tool": {"driver": {"name": "npu-migrate", "version": __version__, "informationUri": "https://pypi.org/project/npu-migrate/",
                            "rules": descriptors}},
        "results": results,
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "properties": {"verdict": verdict.status, "torch_npu_version": result.torch_npu_version,
                       "unknown_dependencies": deps.unknown_dependencies(result.files, repo),
                       "kernels_to_port": deps.kernels_to_port(result.files, result.findings, repo, result.wrapper_calls)},
    }
    json.dump({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, stream, indent=2)
    stream.write("\n")
