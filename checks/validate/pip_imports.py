"""Which import names a pip distribution provides, for validate across hardware: a pip difference in a package
neither run imported is not held against the migration (checks/validate/hosts.py). Pure, no torch.

A distribution installed on this host is looked up in its metadata (importlib.metadata.packages_distributions:
top_level.txt, else the files it installed); one not installed here by its normalised name (lower case, '-' and '.'
as '_'). A distribution installed here whose metadata names no module gives None: unsure, so held against the run.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata


def normalised(distribution: str) -> str:
    """The import name a distribution most often has: `scikit-image` -> `scikit_image`, `ruamel.yaml` -> `ruamel_yaml`."""
    return re.sub(r"[-.]+", "_", distribution.strip()).lower()


@functools.lru_cache(maxsize=1)
def _modules_by_distribution() -> dict[str, frozenset[str]]:
    """This host's distributions (normalised names) -> the top-level modules their metadata names."""
    out: dict[str, set[str]] = {}
    for module, distributions in metadata.packages_distributions().items():
        for name in distributions:
            out.setdefault(normalised(name), set()).add(module)
    return {k: frozenset(v) for k, v in out.items()}


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return True


def import_names(distribution: str) -> frozenset[str] | None:
    """The top-level modules `distribution` provides; None when it is installed here but its metadata names none."""
    key = normalised(distribution)
    if _installed(distribution):
        return _modules_by_distribution().get(key) or None
    return frozenset({key})


def not_imported(distributions, *imported: frozenset[str] | set[str]) -> list[str]:
    """The distributions among `distributions` that no run in `imported` (each a set of top-level module names)
    imported, in the order given; a distribution whose import names are unknown counts as imported (conservative)."""
    seen = set().union(*imported)
    out = []
    for name in distributions:
        modules = import_names(name)
        if modules is not None and not (modules & seen):
            out.append(name)
    return out
