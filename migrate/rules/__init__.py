"""Rule registry: every module in this package (except `base` and `_private` ones) holds one rule.

Discovery is by import, not by a hand-kept list, so the registry cannot drift from the code.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from migrate.rules.base import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rules = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.__module__ == module.__name__
        ]
        if len(rules) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one rule, found {len(rules)}")
        found.append(rules[0])
    codes = [r.CODE for r in found]
    duplicates = {c for c in codes if codes.count(c) > 1}
    if duplicates:
        raise RuntimeError(f"duplicate rule codes: {sorted(duplicates)}")
    return tuple(sorted(found, key=lambda r: r.CODE))


def rules_by_code() -> dict[str, type[Rule]]:
    return {r.CODE: r for r in all_rules()}
