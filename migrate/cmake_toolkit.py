"""CMake lines that tie a build to the CUDA toolkit (label ruling L36), for NPU511: a build that
finds the toolkit (`find_package(CUDAToolkit)`), finds or links its libraries (`find_library(CUDART_LIBRARY
cudart ...)`, `target_link_libraries(t CUDA::cudart ${CUDA_LIBRARIES} -lcublas ${CUDART_LIBRARY})`, also through a
list the link reads: `list(APPEND LIBS cuda nvrtc)`), sets its location (`set(CUDA_TOOLKIT_ROOT_DIR /opt/cuda)`), adds its
include or library directories (`${CUDA_INCLUDE_DIRS}`, `${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}`,
`${CUDA_TOOLKIT_ROOT_DIR}/lib64`, `/usr/local/cuda/samples/common/inc`, CUB's `cub` folder), finds or links NCCL or
cuDNN through their Find module (`find_package(NCCL REQUIRED)`, `${NCCL_LIBRARIES}`), or fetches a GPU-only
C++ library into the build (`FetchContent_Declare(cutlass ...)`, `ExternalProject_Add`, rapids-cmake's
`rapids_cpm_find(raft ...)`, `CPMAddPackage`). On a host without the CUDA toolkit each of them fails the
configure step, so each is a line of the port, one finding per line (a command written over several lines
is reported at each line that names the toolkit).

Also TensorRT's and DeepStream's libraries linked by name (`target_link_libraries(t nvinfer nvds_meta)`) and the CUDA
compiler named (`set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)`, label note 50b b-1). Also a GPU-only library's own CMake targets linked (`target_link_libraries(t PRIVATE raft::raft nvbench::main)`,
CUTLASS's `nvidia::cutlass::cutlass`) and such a library added to the build as a subproject
(`add_subdirectory(3rdparty/nvbench)`): the targets exist only once the CUDA library is configured, as with its
fetch (label ruling L43, 28d-8; 25b-10 reversed).

Not here: a project's own header folders and those of a vendored library that is only a path
(`3rdparty/flashinfer/include`: label rule 28d-8, ruling L43), Find modules' search hints
(`find_path(... HINTS /usr/local/cuda)`)."""
import re

from migrate.repo_index import CMAKE_COMMENT

# the CUDA toolkit's libraries as a build links them (NVIDIA's CUDA toolkit lib64/: libcudart, libcuda (driver),
# libcublas / libcublasLt, libcufft, libcurand, libcusparse, libcusolver, libnvrtc, libnvToolsExt, libnvidia-ml;
# cuDNN and NCCL ship beside it as CUDA-only libraries). `find_package(CUDAToolkit)` names them `CUDA::<name>`
# (https://cmake.org/cmake/help/v3.24/module/FindCUDAToolkit.html, "Imported targets")
_TOOLKIT_LIBRARY = re.compile(r"^(?:-l)?(?:cudart|cudart_static|cuda|cublas|cublasLt|cublas_static|cublasLt_static|cufft|curand"
                              r"|cusparse|cusolver|nvrtc|nvToolsExt|nvidia-ml|cudnn|nccl)$")
# FindCUDA's result variables (https://cmake.org/cmake/help/v3.24/module/FindCUDA.html: CUDA_LIBRARIES,
# CUDA_CUBLAS_LIBRARIES, CUDA_cublas_LIBRARY, CUDA_curand_LIBRARY, ..., CUDA_INCLUDE_DIRS, CUDA_TOOLKIT_ROOT_DIR),
# FindCUDAToolkit's (CUDAToolkit_INCLUDE_DIRS, CUDAToolkit_LIBRARY_DIR, CUDAToolkit_ROOT) and the CUDA language's
# CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES / CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES; `$ENV{CUDA_HOME}` / `$ENV{CUDA_PATH}`
_TOOLKIT_VARIABLE = re.compile(r"\$(?:\{(?:CUDA_\w*(?:LIBRARIES|LIBRARY|INCLUDE_DIRS|TOOLKIT_ROOT_DIR|TOOLKIT_INCLUDE)\w*"
                               r"|CUDAToolkit_\w+|CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES|CMAKE_CUDA_IMPLICIT_\w+)\}"
                               r"|ENV\{(?:CUDA_HOME|CUDA_PATH|CUDA_ROOT)\})")
# a toolkit path written out (`/usr/local/cuda/include`, `/usr/local/cuda-11.8/lib64`, the CUDA samples' helpers
# `/usr/local/cuda/samples/common/inc`), and CUB's folder (NVIDIA's CUDA-only device primitives, part of the toolkit
# since CUDA 11: `#include <cub/device/device_scan.cuh>`): `cub` as the whole word or a path's last part
_TOOLKIT_PATH = re.compile(r"^\"?(?:/usr/local/cuda(?:-[\d.]+)?(?:/\S*)?|(?:\S*/)?cub/?)\"?$")
# the toolkit's include / library folder under an install root written out elsewhere (`/data/cuda/cuda-10.2/cuda/include`,
# `/opt/cuda-11.8/lib64`): an absolute path whose folder before `include` / `lib64` / `lib` is `cuda` or `cuda-<version>`;
# not a sibling library's tree installed beside it (`/data/cuda/cuda-10.2/cudnn/v8.0.4/include`, TensorRT's
# `.../TensorRT/v7.2.1.6/lib`: a GPU-only library's header / library tree, label ruling (L43), 47c c-3)
_TOOLKIT_TREE = re.compile(r"^\"?(?:/|[A-Za-z]:/|~/)(?:\S*/)?cuda(?:-[\d.]+)?/(?:include|lib64|lib)/?\"?$", re.I)
# TensorRT's libraries linked by name (NVIDIA's TensorRT installation guide, tar file layout `lib/`: libnvinfer,
# libnvinfer_plugin, libnvonnxparser, libnvparsers; NVIDIA/TensorRT README: "a C++ library for high performance
# inference on NVIDIA GPUs"): a GPU-only library, linked by name a line of the port (label ruling (L43), 47c c-3)
_GPU_ONLY_LIBRARY = re.compile(r"^(?:-l)?(?:nvinfer|nvinfer_plugin|nvonnxparser|nvparsers)$")
# DeepStream's libraries linked by name (its SDK's lib/ folder, /opt/nvidia/deepstream/deepstream-<version>/lib:
# libnvds_meta, libnvdsgst_meta, libnvdsgst_helper, libnvbufsurface, libnvbufsurftransform, as NVIDIA-AI-IOT/deepstream_4.x_apps
# Makefile links `-lnvdsgst_meta -lnvds_meta` and kingardor/Centerface-Deepstream's Makefile `-lnvdsgst_helper
# -lnvbufsurface -lnvbufsurftransform`): NVIDIA's video-analytics SDK for its GPUs and Jetson, GPU-only like TensorRT
# (label ruling (L43), set 50b b-1); its include / library folders are header and library trees, not lines here
_DEEPSTREAM_LIBRARY = re.compile(r"^(?:-l)?(?:nvds(?:gst)?_\w+|nvbufsurface|nvbufsurftransform)$")
# CMake's CUDA compiler named (https://cmake.org/cmake/help/v3.24/variable/CMAKE_LANG_COMPILER.html,
# `set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)`): the build is pointed at nvcc, even where no .cu is compiled
# in the file (label note 50b b-1)
_CUDA_COMPILER = re.compile(r"\bset\s*\(\s*CMAKE_CUDA_COMPILER\s+[^)\s]", re.I)
_FIND_PACKAGE = re.compile(r"\bfind_package\s*\(\s*CUDAToolkit\b", re.I)
# a Find module of NCCL or cuDNN, NVIDIA's CUDA-only libraries beside the toolkit (`find_package(NCCL REQUIRED)`, its
# result variables `${NCCL_LIBRARIES}` / `${NCCL_LIBRARY}` linked; label note 49c c-1, ruling (L43): linking an NVIDIA
# GPU-only library). Not a `QUIET` look-up without REQUIRED (an optional find), nor the include folders it finds
# (`${NCCL_INCLUDE_DIRS}`: a header tree, (L43))
_FIND_GPU_LIBRARY = re.compile(r"\bfind_package\s*\(\s*(NCCL|CUDNN)\b([^)]*)\)", re.I)
_GPU_LIBRARY_VARIABLE = re.compile(r"^\$\{(?:NCCL|CUDNN)_LIBRAR(?:Y|IES)\}$", re.I)
_FIND_LIBRARY = re.compile(r"\bfind_library\s*\(\s*(\w+)([^)]*)\)", re.I)
_FINDCUDA_TARGET = re.compile(r"\bcuda_add_(?:library|executable)\s*\(", re.I)
_LINKS = re.compile(r"\b(?:target_link_libraries|link_libraries)\s*\(([^)]*)\)", re.I)
_DIRECTORIES = re.compile(r"\b(?:target_include_directories|include_directories|target_link_directories|link_directories)"
                          r"\s*\(([^)]*)\)", re.I)
# fetching a library into the build: FetchContent (https://cmake.org/cmake/help/v3.24/module/FetchContent.html),
# ExternalProject, CPM.cmake's CPMAddPackage / CPMFindPackage and rapids-cmake's wrapper of it,
# `rapids_cpm_find(raft ${VERSION} ... CPM_ARGS GIT_REPOSITORY https://github.com/rapidsai/raft.git)`
_FETCH = re.compile(r"\b(?:FetchContent_Declare|ExternalProject_Add|CPMAddPackage|CPMFindPackage|rapids_cpm_find)\s*\(([^)]*)\)",
                    re.I)
# C++ libraries that run only on NVIDIA GPUs, by the name a build fetches them under or their repository's name:
# CUTLASS ("CUDA Templates for Linear Algebra Subroutines", NVIDIA/cutlass), CUB (NVIDIA/cub, CUDA device
# primitives), RAFT and RMM (rapidsai/raft docs/source/index.rst: "The algorithms are CUDA-accelerated";
# rapidsai/rmm, the RAPIDS CUDA memory manager), NVBench (NVIDIA/nvbench README: "a C++17 library designed to simplify
# CUDA kernel benchmarking"), FasterTransformer (NVIDIA/FasterTransformer: CUDA kernels; label rule 25b-11),
# FlashInfer (flashinfer-ai/flashinfer: CUDA attention kernels)
GPU_ONLY_LIBRARIES = frozenset({"cutlass", "cub", "raft", "rmm", "nvbench", "fastertransformer", "flashinfer"})
# a library's own CMake targets by their namespace: RAFT's `raft::raft` / `raft::compiled` (rapidsai/raft
# cpp/CMakeLists.txt, `NAMESPACE raft::`), RMM's `rmm::rmm`, NVBench's `nvbench::main` / `nvbench::nvbench` (NVIDIA/nvbench
# README "CMake integration"), CUTLASS's `nvidia::cutlass::cutlass` (NVIDIA/cutlass cmake/NvidiaCutlassConfig.cmake;
# rapids-cmake's cpm/cutlass.cmake `GLOBAL_TARGETS nvidia::cutlass::cutlass`)
_LIBRARY_TARGET = re.compile(r"^(?:nvidia::(cutlass)|(\w+))::\w+", re.I)
_SUBDIRECTORY = re.compile(r"\badd_subdirectory\s*\(([^)]*)\)", re.I)
# a toolkit library added to a list variable that a link command reads (`list(APPEND LIBS cuda nvrtc)`, then
# `target_link_libraries(t PUBLIC ${LIBS})`): each line naming one, as in the link itself
_LIST_ADD = re.compile(r"\b(?:list\s*\(\s*(?:APPEND|PREPEND)|set\s*\()\s*(\w+)\b([^)]*)\)", re.I)
# the toolkit's location handed to FindCUDA / FindCUDAToolkit (their hint variables CUDA_TOOLKIT_ROOT_DIR,
# https://cmake.org/cmake/help/v3.24/module/FindCUDA.html, and CUDAToolkit_ROOT,
# https://cmake.org/cmake/help/v3.24/module/FindCUDAToolkit.html), as CUDA_HOME in a setup.py (label ruling L37)
_TOOLKIT_ROOT = re.compile(r"\bset\s*\(\s*(?:CUDA_TOOLKIT_ROOT_DIR|CUDAToolkit_ROOT)\s+[^)\s]", re.I)
# a project's own variable set to the toolkit's (or cuDNN's) location: a home handed in by the build command
# (`set(CUDA_PATH ${DECOUPLEQ_CUDA_HOME})` of `cmake -DDECOUPLEQ_CUDA_HOME=/usr/local/cuda`), the environment's
# (`$ENV{CUDA_HOME}`) or the path written out: the set is CUDA_HOME in a build (label ruling L37; cuDNN, NVIDIA's CUDA
# library, label rule 42c-5), and its include / link folders (`${CUDA_PATH}/include`, `${CUDNN_PATH}/lib64`) are the
# toolkit's
_HOME_SET = re.compile(r"\bset\s*\(\s*(\w+)\s+\"?(\$\{\w*(?:CUDA|CUDNN)_(?:HOME|PATH|ROOT|DIR)\}|\$ENV\{(?:CUDA|CUDNN)_(?:HOME|PATH|ROOT)\}"
                       r"|/usr/local/cuda(?:-[\d.]+)?/?)\"?\s*\)", re.I)
# libtorch's own CUDA libraries (torch's TorchConfig.cmake: `find_library(TORCH_CUDA_LIBRARY torch_cuda ...)`,
# `find_library(C10_CUDA_LIBRARY c10_cuda ...)`, present only in torch's CUDA build) named in a link list (label rule
# 42d-11, as L36's CUDA libraries); their optional `find_library` in a Find module is not a line here
_TORCH_CUDA_LIBRARY = re.compile(r"^(?:torch_cuda|torch_cuda_cu|torch_cuda_cpp|c10_cuda)$")
# a property set on one of those targets (`set_property(TARGET torch_cuda PROPERTY INTERFACE_COMPILE_OPTIONS "")`,
# `set_target_properties(c10_cuda PROPERTIES ...)`): the build needs the target, which only torch's CUDA build
# defines (label ruling (L105), as (L36))
_TARGET_PROPERTY = re.compile(r"\b(?:set_property\s*\(\s*TARGET\s+([^)]*?)\s+(?:APPEND\s+|APPEND_STRING\s+)?PROPERTY\b"
                              r"|set_target_properties\s*\(([^)]*?)\s+PROPERTIES\b)", re.I)
_REPOSITORY = re.compile(r"(?:github\.com[/:]|gh:)[\w.-]+/([\w.-]+?)(?:\.git)?(?:[#@\s\"]|$)", re.I)


def _line(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


def _lines_naming(code: str, start: int, body: str, names) -> list[int]:
    """The lines of a command's `body` (starting at offset `start`) that hold a word `names` accepts."""
    out = []
    for offset, text in enumerate(body.split("\n")):
        if any(names(word.strip('"')) for word in text.split()):
            out.append(_line(code, start) + offset)
    return out


def toolkit_lines(text: str) -> list[tuple[int, str]]:
    """(line, what it does) for each line of a CMake file (CMakeLists.txt or an included `.cmake`) that ties the
    build to the CUDA toolkit or fetches a GPU-only library; comments are not read."""
    code = CMAKE_COMMENT.sub("", text)
    out: dict[int, str] = {}
    for match in _FIND_PACKAGE.finditer(code):
        out.setdefault(_line(code, match.start()), "finds the CUDA toolkit")
    for match in _FIND_GPU_LIBRARY.finditer(code):
        words = match.group(2).upper().split()
        if "QUIET" not in words or "REQUIRED" in words:
            out.setdefault(_line(code, match.start()), f"finds {match.group(1).upper()}, a CUDA-only NVIDIA library")
    found = set()  # variables a `find_library` of a toolkit library sets
    for match in _FIND_LIBRARY.finditer(code):
        words = [w.strip('"') for w in match.group(2).split()]
        names = words[1:words.index("PATHS")] if words[:1] == ["NAMES"] and "PATHS" in words else words[1:] if words[:1] == ["NAMES"] else words[:1]
        if any(_TOOLKIT_LIBRARY.match(n) for n in names):
            found.add(match.group(1))
            out.setdefault(_line(code, match.start()), "finds a CUDA toolkit library")

    homes = set()  # the project's variables holding the toolkit's or cuDNN's location
    for match in _HOME_SET.finditer(code):
        homes.add(match.group(1))
        out.setdefault(_line(code, match.start()), "points the build at the CUDA toolkit (its home)")

    def home(word):
        return any(word == f"${{{v}}}" or word.startswith(f"${{{v}}}/") for v in homes)

    def linked(word):
        return bool(_TOOLKIT_LIBRARY.match(word) or _TORCH_CUDA_LIBRARY.match(word) or word.startswith("CUDA::")
                    or _TOOLKIT_VARIABLE.fullmatch(word) or _GPU_LIBRARY_VARIABLE.match(word)
                    or (word.startswith("${") and word[2:-1] in found))

    for match in _LINKS.finditer(code):
        for number in _lines_naming(code, match.start(1), match.group(1), linked):
            out.setdefault(number, "links a CUDA toolkit library")
    for match in _LINKS.finditer(code):
        for number in _lines_naming(code, match.start(1), match.group(1), lambda w: bool(_GPU_ONLY_LIBRARY.match(w))):
            out.setdefault(number, "links TensorRT, a GPU-only library")
    for match in _LINKS.finditer(code):
        for number in _lines_naming(code, match.start(1), match.group(1), lambda w: bool(_DEEPSTREAM_LIBRARY.match(w))):
            out.setdefault(number, "links DeepStream, a GPU-only library")
    for match in _CUDA_COMPILER.finditer(code):
        out.setdefault(_line(code, match.start()), "names nvcc as the build's CUDA compiler")
    read = {v for m in _LINKS.finditer(code) for v in re.findall(r"\$\{(\w+)\}", m.group(1))}
    if _FINDCUDA_TARGET.search(code):
        # FindCUDA's cuda_add_library / cuda_add_executable link `${CUDA_LIBRARIES}` themselves (CMake's
        # Modules/FindCUDA.cmake, CUDA_ADD_LIBRARY: `target_link_libraries(${cuda_target}
        # ${CUDA_LINK_LIBRARIES_KEYWORD} ${CUDA_LIBRARIES})`): a `set(CUDA_LIBRARIES PUBLIC ${CUDA_LIBRARIES})`
        # (PoseCNN-PyTorch ycb_render/CMakeLists.txt) is the link of the toolkit's libraries
        read.add("CUDA_LIBRARIES")
    for match in _LIST_ADD.finditer(code):
        if match.group(1) in read:
            for number in _lines_naming(code, match.start(2), match.group(2),
                                        lambda w: bool(_TOOLKIT_LIBRARY.match(w) or _TORCH_CUDA_LIBRARY.match(w)
                                                       or _TOOLKIT_VARIABLE.fullmatch(w))):
                out.setdefault(number, "adds a CUDA toolkit library to the libraries linked")
    for match in _TARGET_PROPERTY.finditer(code):
        if any(_TORCH_CUDA_LIBRARY.match(w.strip('"')) for w in (match.group(1) or match.group(2)).split()):
            out.setdefault(_line(code, match.start()), "sets a property of libtorch's CUDA library target")
    for match in _TOOLKIT_ROOT.finditer(code):
        out.setdefault(_line(code, match.start()), "points the build at the CUDA toolkit")

    def library_target(word):
        target = _LIBRARY_TARGET.match(word)
        return bool(target and (target.group(1) or target.group(2)).lower() in GPU_ONLY_LIBRARIES)

    for match in _LINKS.finditer(code):
        for number in _lines_naming(code, match.start(1), match.group(1), library_target):
            out.setdefault(number, "links a GPU-only library's CMake target")
    for match in _SUBDIRECTORY.finditer(code):
        words = match.group(1).split()
        folder = words[0].strip('"').rstrip("/").rsplit("/", 1)[-1].lower() if words else ""
        if folder in GPU_ONLY_LIBRARIES:
            out.setdefault(_line(code, match.start()), "adds a GPU-only library to the build")
    def directory(word):
        return bool(_TOOLKIT_VARIABLE.match(word) or _TOOLKIT_PATH.match(word) or _TOOLKIT_TREE.match(word) or home(word))

    for match in _DIRECTORIES.finditer(code):
        for number in _lines_naming(code, match.start(1), match.group(1), directory):
            out.setdefault(number, "adds a CUDA toolkit directory")
    # a list of directories an include / link directory command reads (`set(PROJECT_INCLUDE_DIR ... ${CUDAToolkit_INCLUDE_DIRS})`
    # then `include_directories(${PROJECT_INCLUDE_DIR})`, set 72b Fast-BEV): the toolkit directory at its line in the list,
    # as a toolkit library added to a linked list is
    dirs_read = {v for m in _DIRECTORIES.finditer(code) for v in re.findall(r"\$\{(\w+)\}", m.group(1))}
    for match in _LIST_ADD.finditer(code):
        if match.group(1) in dirs_read:
            for number in _lines_naming(code, match.start(2), match.group(2), directory):
                out.setdefault(number, "adds a CUDA toolkit directory to the directories a target reads")
    for match in _FETCH.finditer(code):
        body = match.group(1)
        words = [w.strip('"') for w in body.split()]
        name = words[1] if words[:1] == ["NAME"] and len(words) > 1 else words[0] if words else ""
        repository = _REPOSITORY.search(body)
        names = {name.lower(), (repository.group(1).lower() if repository else "")}
        if names & GPU_ONLY_LIBRARIES:
            out.setdefault(_line(code, match.start()), "fetches a GPU-only library into the build")
    return sorted(out.items())
