"""JSON: a top-level `findings` list, `errors`, `summary` and `verdict`."""

from __future__ import annotations

import json

from migrate import __version__
from migrate.verdict import summary


def report(result, stream, *, verdict, rules) -> None:
    payload = {
        "tool": {"name": "npu-migrate", "version": __version__},
        "findings": [f.to_dict() for f in result.findings],
        "errors": [e.to_dict() for e in result.errors],
        "summary": summary(result),
        "verdict": verdict.to_dict(),
    }
    # One finding per line: readable, diffable, and the C encoder (indent= forces the slow
    # pure-Python one, which costs seconds on a repo-sized report).
    encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(item, ensure_ascii=False), one encoder for all items
    stream.write("{\n")
    items = list(payload.items())
    for index, (key, value) in enumerate(items):
        stream.write(f"  {json.dumps(key)}: ")
        if isinstance(value, list) and value:
            stream.write("[\n")
            stream.write(",\n".join("    " + encode(item) for item in value))
            stream.write("\n  ]")
        else:
            stream.write(encode(value))
        stream.write(",\n" if index < len(items) - 1 else "\n")
    stream.write("}\n")
