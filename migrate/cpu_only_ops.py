"""Uses of a compiled extension's ops whose every implementation is CPU code (NPU508; label ruling (L28) extended).

An extension module that holds CUDA kernels may also bind plain C++ functions: detectron2-style `_C` registers its
CUDA ops and, in the same `PYBIND11_MODULE`, a COCO evaluator written in C++ alone:

    m.def("COCOevalAccumulate", &COCOeval::Accumulate, "COCOeval::Accumulate");
    pybind11::class_<COCOeval::InstanceAnnotation>(m, "InstanceAnnotation");

where `COCOeval` is a namespace opened only in cocoeval.cpp, a C++ source that names no CUDA. Built on an Ascend host
(setup.py falls back to a CppExtension), those ops work as they are: nothing on the line that calls them is to port.
So a use `ext.op` (NPU508) is not reported when every pybind registration of `op` in the scan binds a
namespace-qualified target (`&Ns::f`, `class_<Ns::T>`) whose namespace is opened only in C++ sources (`.cpp`/`.cc`,
never `.cu`) that do not mention CUDA (no `cuda`, `hip`, `__global__`, nor TensorRT's `nvinfer1` / `NvInfer.h`); and the import of `ext` in a file is not
reported when every reported use of `ext` there was such an op. A file that also calls a CUDA op (`_C.nms_rotated`)
keeps its import and that call. An unqualified function target (`&forward`) is not followed: the function may be a
dispatcher. A class is its own scope: kaolin-style `py::class_<MISE>(ops_conversions, "Mise")` with
`.def("query", &MISE::query)`, where `struct MISE {` and `MISE::query() {` stand only in CUDA-free C++ sources, binds
CPU code under both names. Such ops are read by their registered name, the last part of the use: `_C.ops.conversions.Mise`
through a pybind submodule, and `mesh_extractor.query(...)`, a method called on an object of the extension's class (label
note 46b b-5: a C++ class with no CUDA code runs unchanged on the CPU build).

Facts come from the scan of each C++ source (migrate/repo_index.py `cpp_defs`): `pybindop` (name: the op, why: its
target) and `cppscope` (name: a namespace the file opens or a class it defines or defines members of, cuda: the file
mentions CUDA).
"""

from __future__ import annotations

import re

from migrate.findings import FileResult

CODE = "NPU508"
OP = "pybindop"
SCOPE = "cppscope"

_DEF = re.compile(r"\.\s*def\s*\(\s*\"(\w+)\"\s*,\s*&\s*([\w:]+)")
_CLASS = re.compile(r"\bclass_\s*<\s*([\w:]+)\s*>\s*\(\s*\w+\s*,\s*\"(\w+)\"")
_NAMESPACE = re.compile(r"\bnamespace\s+(\w+)\s*\{")
# a class or struct the file defines (`struct MISE : torch::CustomClassHolder {`) or defines members of at a line's start
# (`std::vector<int> MISE::query() {`; not `&MISE::query` in a binding)
_CLASS_DEF = re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?(?:class|struct)\s+(\w+)\s*(?:final\s*)?[:{]", re.MULTILINE)
_MEMBER_DEF = re.compile(r"^[ \t]*(?:[\w:<>,*&]+[ \t]+)*(\w+)::~?\w+\s*\(", re.MULTILINE)
# a source naming CUDA, HIP or a kernel, or TensorRT's C++ API (`using namespace nvinfer1;`, `#include "NvInfer.h"`:
# its engines run only on an NVIDIA GPU, a pybind class wrapping one is GPU code; label note 48d, FastRT's reid.cpp)
_CUDA = re.compile(r"cuda|\bhip|__global__|\bnvinfer1\b|\bNvInfer\w*\.h\b", re.IGNORECASE)
_USE = re.compile(r"^`([\w.]+)(\(\.\.\.\))?`")


def cpp_facts(path: str, text: str) -> list:
    """The pybind registrations (`m.def("op", &target)`, `class_<target>(m, "op")`) and the namespaces a C++ / CUDA
    source opens, with whether it mentions CUDA."""
    from migrate.repo_index import Definition

    out = []
    cuda = path.endswith((".cu", ".cuh", ".cu.h", ".cu.hpp")) or bool(_CUDA.search(text))
    if "PYBIND11_MODULE" in text:
        for match in _DEF.finditer(text):
            out.append(Definition(OP, match.group(1), path, text.count("\n", 0, match.start()) + 1, cuda, match.group(2)))
        for match in _CLASS.finditer(text):
            out.append(Definition(OP, match.group(2), path, text.count("\n", 0, match.start()) + 1, cuda, match.group(1)))
    classes = (m.group(1) for pattern in (_CLASS_DEF, _MEMBER_DEF) for m in pattern.finditer(text)) \
        if path.endswith((".cpp", ".cc", ".cu", ".h", ".hpp", ".cuh")) else ()
    for name in dict.fromkeys((*(m.group(1) for m in _NAMESPACE.finditer(text)), *classes)):
        out.append(Definition(SCOPE, name, path, 0, cuda))
    return out


def _cpu_only(results: list[FileResult]) -> set[str]:
    """The op names whose every registration binds a target of a namespace opened only in CUDA-free C++ sources."""
    targets: dict[str, list[str]] = {}
    scopes: dict[str, list[bool]] = {}
    for result in results:
        for fact in result.facts or ():
            if fact[0] != "def":
                continue
            if fact[1] == OP:
                targets.setdefault(fact[2], []).append(fact[5] if len(fact) > 5 else "")
            elif fact[1] == SCOPE:
                scopes.setdefault(fact[2], []).append(bool(fact[4]))
    out = set()
    for op, bound in targets.items():
        # `&Ns::f` / `class_<Ns::T>`: the namespace; `&T::method` / `class_<T>`: the class, its scope where it is
        # defined (a target with no `::` counts only as a class the scan saw defined)
        spaces = [t.split("::")[-2] if "::" in t else t for t in bound]
        if all(s and scopes.get(s) and not any(scopes[s]) for s in spaces):
            out.add(op)
    return out


def drop_cpu_only_uses(results: list[FileResult]) -> list[FileResult]:
    """Each result without the NPU508 uses of CPU-only ops (and the import of their extension where those were all
    its reported uses in the file); see the module docstring."""
    cpu = _cpu_only(results)
    if not cpu:
        return results
    out = []
    for result in results:
        dropped: dict[str, int] = {}
        kept: dict[str, int] = {}
        imports = []
        keep = []
        for finding in result.findings:
            if finding.code != CODE or not finding.package:
                keep.append(finding)
                continue
            if finding.message.startswith(("`import ", "`from ")):
                imports.append(finding)
                continue
            match = _USE.match(finding.message)
            used, package = (match.group(1) if match else ""), finding.package
            called = bool(match and match.group(2))
            # `ext.op`, `ext.sub.Class` (a pybind submodule, `m.def_submodule("ops")`), or `obj.method(...)` on an
            # object a binding's class built: read by the registered name, the last part
            last = used.rpartition(".")[2]
            if used.startswith(package + ".") or (called and last in cpu):
                if last in cpu:
                    dropped[package] = dropped.get(package, 0) + 1
                    continue
                kept[package] = kept.get(package, 0) + 1
            else:
                kept[package] = kept.get(package, 0) + 1
            keep.append(finding)
        if not dropped:
            out.append(result)
            continue
        keep += [f for f in imports if not (dropped.get(f.package) and not kept.get(f.package))]
        keep.sort(key=lambda f: f.sort_key)
        out.append(FileResult(result.path, result.kind, result.lines, tuple(keep), result.errors, result.suppressed,
                              result.facts))
    return out
