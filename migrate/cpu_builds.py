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
"""

from __future__ import annotations

KIND = "cpualso"  # a fact: the module named is built without CUDA too
_EXT = "torch.utils.cpp_extension"


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
