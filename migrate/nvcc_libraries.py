"""Shared libraries a shell script builds with nvcc, loaded elsewhere with ctypes (NPU508).

`nvcc ... --shared kernels.cu -o libkernels.so` in a build script (compile.sh, make.sh) links CUDA kernels into a
plain shared library, and the Python side loads it by file name and calls its C entry points through ctypes:

    lib = ctypes.CDLL('kernels/libkernels.so')
    lib.gemm_int8(ctypes.c_void_p(a.data_ptr()), ..., ctypes.c_void_p(stream.cuda_stream))

Both lines are extension uses (LABELLING (L35) for the call; label rule 41d-7): the library does not exist on an NPU
host until its kernels are ported. The library joins the repository index as a module named by its file
(`libkernels.so`, mode `library`): a loader naming that file (`ctypes.CDLL`, `ctypes.cdll.LoadLibrary`,
`torch.ops.load_library`) binds its name to it (`Index.module_for_library` matches the stem), and the calls through
that name are uses; a file name is no Python module name, so no `import kernels` of a module of that name reaches it.
A Python build step does the same (DeepLink-org/DLBlas tests/kernels/cutlass/test_fp8_convert.py:
`subprocess.check_call('nvcc .../fp8_convert.cu ... -shared ... -o .../fp8_convert.so', shell=True)`, then
`ctypes.CDLL('.../fp8_convert.so')`; label note 67a): a Python file's lines holding nvcc and a `.so` output are read
alike (migrate/engine.py). Only an nvcc command whose output (`-o`) is a `.so` counts: `nvcc -c k.cu -o k.o` builds an object another
build links, `nvcc -V` builds nothing.
"""

from __future__ import annotations

import re

from migrate.continued_commands import continues
from migrate.rules._text import strip_comment

LIBRARY = "library"  # Definition.mode of such a library
_NVCC = re.compile(r"(?<![\w./$-])(?:[\w.${}/-]*/)?nvcc(?![\w.-])")
_OUTPUT = re.compile(r"(?:^|\s)(?:-o|--output-file)(?:\s+|=)['\"]?(?:[^\s'\"]*/)?([A-Za-z_]\w*\.so)\b")


def facts(path: str, text: str) -> list:
    """A `Definition("module", "libfoo.so", path, line, True, mode=LIBRARY)` per nvcc command of a shell file whose
    output is a shared library (its first line when continued)."""
    if "nvcc" not in text or ".so" not in text:
        return []
    from migrate.repo_index import Definition

    out = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        start = number
        parts = [strip_comment(lines[number]).rstrip()]
        while continues(lines[number]) and number + 1 < len(lines):
            parts[-1] = parts[-1].removesuffix("\\")
            number += 1
            parts.append(strip_comment(lines[number]).rstrip())
        number += 1
        command = " ".join(parts)
        nvcc = _NVCC.search(command)
        if nvcc is None:
            continue
        output = _OUTPUT.search(command, nvcc.end())
        if output is not None:
            out.append(Definition("module", output.group(1), path, start + 1, True, mode=LIBRARY))
    return out
