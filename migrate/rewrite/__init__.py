"""The rewrite engine behind `npu-migrate apply` and `npu-migrate instrument`. No click, no printing.

One detector per construct: the per-construct rewrites are the analyze rules' own `Edit`s.

    model.py          options and results (frozen dataclasses)
    edits.py          the one edit applier (each finding's edits whole or not at all)
    files.py          one file: analyze -> edits -> re-analyse -> structural step -> must parse -> encode
    entry.py          entry script or library module?
    structural.py     the libcst codemods (torch_npu imports, ConfigChecker hooks), header-only when it can
    notebook.py       notebooks cell by cell; notebook_json.py rewrites only the changed `source` values
    tree.py           plan a tree, rewrite many files in parallel, write the tree, diffs
    instrument.py     only the hooks, for the baseline side

Decoding, atomic writes and the process pool are `migrate.fileio`; the change report is
`migrate.report.changes`.
"""

from migrate.rewrite.edits import apply_findings
from migrate.rewrite.files import rewrite_file, rewrite_source
from migrate.rewrite.instrument import instrument_file, instrument_source
from migrate.rewrite.model import (
    ApplyOptions,
    ApplyResult,
    Change,
    FileRewrite,
    InstrumentResult,
    ManualItem,
    TreeEntry,
    resolve_options,
)
from migrate.rewrite.tree import plan_files, plan_tree, unified_diff, write_tree

__all__ = [
    "ApplyOptions", "ApplyResult", "Change", "FileRewrite", "InstrumentResult", "ManualItem", "TreeEntry",
    "apply_findings", "instrument_file", "instrument_source", "plan_files", "plan_tree", "resolve_options",
    "rewrite_file", "rewrite_source", "unified_diff", "write_tree",
]
