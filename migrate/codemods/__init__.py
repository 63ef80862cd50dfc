"""Structural rewrites done with libcst (format-preserving): one rewrite per module.

The per-construct rewrites (`.cuda()` -> `.npu()`, device strings, nccl -> hccl ...) are the analyze
rules' own `Edit`s, applied by `migrate.rewrite`; the codemods here only add what no single finding
owns: the torch_npu imports of a migrated module and the msprobe ConfigChecker hooks of an entry
script. Each works on a `libcst.Module` and returns a new one plus a small frozen result.
"""
