"""Which of the repository's CUDA extensions setup.py also builds without CUDA (label rulings (L79), (L89)).

A setup.py that picks the extension class by the host builds the same module from its C++ sources alone where no
CUDA is there (pytorch3d-style: `extension = CppExtension`, then `extension = CUDAExtension` under a CUDA check;
MinkowskiEngine-style: `SOURCE_SETS = {"cpu": [CppExtension, ...], "gpu": [CUDAExtension, ...]}` chosen by
`--cpu_only`, migrate/source_set_tables.py):

    extension = CppExtension
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA") == "1":
        extension = CUDAExtension
        sources += glob.glob("csrc/**/*.cu", recursive=True)
    ext_modules = [extension("pkg._C", sources)]

A project build helper that does the same for each call (mmdet's `def make_cuda_ext(name, module, sources,
sources_cuda=[])`: `extension = CUDAExtension` under a CUDA check, `else: extension = CppExtension`) gives a CPU build
of each module its calls name (migrate/kernel_values.py `helper_builds`; label note 48b b-4).

That module exists on a host without nvcc and runs tensors the caller puts on the CPU; an extension built with
`CUDAExtension` only (exllama, IA-SSD's iou3d_nms_cuda) does not exist there at all, whatever device its C++ serves.
Its CPU build is recorded in the index's `cpu_built` as the row `<module>|` (source-set tables add
`<module>|<CPU target>` rows); `has_cpu_build` answers for either. Consumers: migrate/cpu_fallbacks.py (the (L28)
exemption of calls off CUDA needs a CPU build).

A helper's `CppExtension` branch is a CPU build only where the module's pybind source can be compiled and linked
without the CUDA sources the branch drops. Such a source keeps the CUDA bindings behind a macro the CUDA branch
defines (`#ifdef WITH_CUDA`, mmdet3d's voxelization.h, included from voxelization.cpp); a binding source that tests
no CUDA macro and includes a CUDA runtime header (`#include <cuda.h>`, OpenPCDet's iou3d_nms_api.cpp) or includes no
header of its own at all (roiaware_pool3d.cpp: prototypes of the `.cu` launchers, bound unguarded) binds functions
that exist only in the CUDA sources: the `else: extension = CppExtension` branch yields no importable module, and
the ops stay reported whatever their names (label ruling (L89): fcaf3d's `points_in_boxes_cpu`,
`boxes_iou_bev_cpu`). The source is recorded as a fact (`BINDING_KIND`, its path) and the helper's row carries the
call's C++ source names (`why`), so the row is dropped when one of them is such a binding (`kept_rows`).
"""

from __future__ import annotations

import re

KIND = "cpualso"  # a fact: the module named is built without CUDA too
BINDING_KIND = "cudabind"  # a fact: a pybind source that binds CUDA-only functions unguarded (see above)
_EXT = "torch.utils.cpp_extension"
_CPP = (".cpp", ".cc", ".cxx")
_CUDA_GUARD = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b[^\n]*CUDA", re.MULTILINE)
_CUDA_HEADER = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"](?:cuda\.h|cuda_runtime\w*\.h|ATen/cuda/|c10/cuda/)",
                          re.MULTILINE)
_LOCAL_HEADER = re.compile(r"^[ \t]*#[ \t]*include[ \t]*\"", re.MULTILINE)


def binding_facts(path: str, text: str) -> list:
    """The pybind source `path` binds CUDA-only functions with no guard (see above): a `BINDING_KIND` fact."""
    if not path.endswith(_CPP) or "PYBIND11_MODULE" not in text or _CUDA_GUARD.search(text):
        return []
    if not _CUDA_HEADER.search(text) and _LOCAL_HEADER.search(text):
        return []  # a header of its own may hold the guard (voxelization.h's `#ifdef WITH_CUDA`)
    from migrate.repo_index import Definition

    return [Definition(BINDING_KIND, path, path, text.count("\n", 0, text.index("PYBIND11_MODULE")) + 1, False)]


def source_names(call) -> str:
    """The C++ source names a helper call lists (`"src/roiaware_pool3d.cpp"`), `;`-joined: the `why` of its row."""
    import ast

    return ";".join(sorted({n.value.strip() for n in ast.walk(call) if isinstance(n, ast.Constant)
                            and isinstance(n.value, str) and n.value.strip().endswith(_CPP)}))


def kept_rows(rows: list[tuple[str, str, str]], bindings: set[str]) -> set[str]:
    """The CPU-build rows (row, setup path, source names) whose sources hold no binding of `bindings`: a source name
    matches a binding path under the setup file's folder and the module's package folder that ends with it."""
    kept = set()
    for row_name, setup_path, names in rows:
        folder = setup_path.rpartition("/")[0]
        prefix = f"{folder}/" if folder else ""
        package = "/" + row_name.rstrip("|").rpartition(".")[0].replace(".", "/") + "/"  # the module's own folder
        if not any(b.startswith(prefix) and b.endswith(f"/{n.lstrip('./')}") and package in "/" + b
                   for n in names.split(";") if n for b in bindings):
            kept.add(row_name)
    return kept


def cpu_class_variables(ctx) -> frozenset[str]:
    """Names bound to `CppExtension` in some assignment of the file (`extension = CppExtension`, `Ext = CUDAExtension
    if use_cuda else CppExtension`)."""
    if "CppExtension" not in ctx.source:
        return frozenset()
    from migrate.repo_index import names_bound_to  # repo_index imports this module

    return names_bound_to(ctx, f"{_EXT}.CppExtension")


def row(module: str) -> str:
    return f"{module}|"


def has_cpu_build(cpu_built, module: str | None) -> bool:
    """`module` is built without CUDA too: its own row, or a source-set table's CPU target row."""
    if not module or not cpu_built:
        return False
    prefix = f"{module}|"
    return any(r.startswith(prefix) for r in cpu_built)
