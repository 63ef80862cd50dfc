import re

from migrate import cmake_toolkit
from migrate.findings import Category, Severity
from migrate.repo_index import CMAKE_COMMENT, CMAKE_CUDA_LANGUAGE, CMAKE_GLOB, cmake_defs, gpu_switch_spans
from migrate.rules.base import Invalid, Rule, Valid

# the commands that open or switch a branch, and the writes of CMake's nvcc flag lists (CMAKE_CUDA_FLAGS and its
# per-configuration CMAKE_CUDA_FLAGS_<CONFIG>: https://cmake.org/cmake/help/v3.24/variable/CMAKE_LANG_FLAGS.html)
# The legacy FindCUDA list CUDA_NVCC_FLAGS (https://cmake.org/cmake/help/v3.24/module/FindCUDA.html) is one list
# however often it is appended to (`set(CUDA_NVCC_FLAGS "${CUDA_NVCC_FLAGS} ...")`, HawkAaron/warp-transducer): its
# first write only.
_BRANCH_OR_FLAGS = re.compile(
    r"\b(?:(?P<branch>if|elseif|else|endif)\s*\(|(?P<set>set)\s*\(\s*(?P<var>CMAKE_CUDA_FLAGS(?:_[A-Z]+)?|CUDA_NVCC_FLAGS)\b"
    r"|(?:string|list)\s*\(\s*(?:APPEND|PREPEND)\s+(?P<added>CMAKE_CUDA_FLAGS(?:_[A-Z]+)?|CUDA_NVCC_FLAGS)\b)", re.I)
_ONE_LIST = "CUDA_NVCC_FLAGS"
# per-target CUDA options: `target_compile_options(t PUBLIC $<$<COMPILE_LANGUAGE:CUDA>: -rdc=true ...>)`, one flag list
# at the line of its generator expression (microsoft/VPTQ csrc/CMakeLists.txt)
_CUDA_OPTIONS = re.compile(r"\$<\$<COMPILE_LANGUAGE:CUDA>:", re.I)
# what such an expression gives the CUDA sources, up to its closing `>` (a `${VAR}` read holds none)
_CUDA_OPTION_READS = re.compile(r"\$<\$<COMPILE_LANGUAGE:CUDA>:([^>]*)>", re.I)
# a compile definition naming CUDA (`add_definitions(-D__USE_CUDA__)`, `-DFT_WITH_CUDA`, `target_compile_definitions(t
# PRIVATE WITH_CUDA)`): the switch that compiles the CUDA path of the sources, as NPU505's `WITH_CUDA` in a setup.py;
# not one that turns CUDA off (`-DNO_CUDA`, `WITH_CUDA=0`)
_DEFINITIONS = re.compile(r"\b(?:add_definitions|add_compile_definitions|target_compile_definitions)\s*\(([^)]*)\)", re.I)
_LIST_DEFINITIONS = re.compile(r"\blist\s*\(\s*(?:APPEND|PREPEND)\s+(\w+)\b([^)]*)\)", re.I)
# (or one naming the GPU architecture compiled for, `-DNET_MIN_GPU_ARCH=${MIN_GPU_ARCH}`, like `-DCUDA_ARCH=...`)
# (or one switching a GPU path on, `-DUSE_GPU`, `WARPRNNT_ENABLE_GPU`: NPU505's macros in a setup.py)
# (a value may be a variable: `-DCUDA_ARCH=${CUDA_ARCH}`)
# (or a configuration macro of Thrust / CUB, the CUDA toolkit's C++ libraries: `THRUST_IGNORE_CUB_VERSION_CHECK`,
# `CUB_IGNORE_DEPRECATED_CPP_DIALECT`; not Thrust's host backends, `THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP|CPP|TBB`)
# (or one switching on code of CUTLASS, NVIDIA's CUDA-only template library, `-DNATTEN_WITH_CUTLASS`,
# `-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1`, or the kernels of an NVIDIA GPU generation, `-DMYLIB_WITH_HOPPER_FNA=1`: the
# sources' CUDA-only path, label rule 46c-6)
_CUDA_MACRO = re.compile(r"^(?:-D)?(\w*CUDA\w*|\w*CUTLASS\w*|\w*?(?:WITH|USE|ENABLE|HAVE|BUILD)_(?:\w+_)?(?:VOLTA|TURING|AMPERE|HOPPER|BLACKWELL)\w*|\w*GPU_ARCH\w*|\w*?(?:WITH|USE|ENABLE|HAVE|BUILD)_(?:\w+_)?GPU\w*|(?:THRUST|CUB)_\w+)(?:=(\S*))?$")
_HOST_BACKEND = re.compile(r"THRUST_(?:HOST|DEVICE)_SYSTEM_(?:OMP|CPP|TBB)$")
# the CUDA headers' own configuration macros, spelled `__CUDA_...__` (`-D__CUDA_NO_HALF_OPERATORS__`,
# `__CUDA_NO_HALF_CONVERSIONS__`, which configure the CUDA half type's header): a NO inside one configures the CUDA
# compile, it does not turn CUDA off (label 48a / 49a: `add_definitions(-D__CUDA_NO_HALF_OPERATORS__)` in `if(WITH_CUDA)`)
_CUDA_HEADER_MACRO = re.compile(r"__CUDA_\w+__$")
# CMake's CUDA-language settings, which CMake turns into nvcc options: the GPU architectures (`--generate-code`,
# https://cmake.org/cmake/help/v3.24/prop_tgt/CUDA_ARCHITECTURES.html), the CUDA dialect (`-std=c++17`,
# https://cmake.org/cmake/help/v3.24/prop_tgt/CUDA_STANDARD.html) and relocatable device code (`-rdc=true`,
# https://cmake.org/cmake/help/v3.24/prop_tgt/CUDA_SEPARABLE_COMPILATION.html), set for the project
# (`set(CMAKE_CUDA_ARCHITECTURES 86)`) or on a target (`set_target_properties(t PROPERTIES CUDA_STANDARD 17)`): nvcc flag
# settings, one finding at the line naming the setting
# (`CMAKE_CUDA_STANDARD_REQUIRED`: the dialect made a requirement, https://cmake.org/cmake/help/v3.24/prop_tgt/CUDA_STANDARD_REQUIRED.html)
# (and `CUDA_RESOLVE_DEVICE_SYMBOLS`, nvcc's device link step of a target,
# https://cmake.org/cmake/help/v3.24/prop_tgt/CUDA_RESOLVE_DEVICE_SYMBOLS.html; label rule 42c-6)
_CUDA_SETTING = r"CUDA_(?:ARCHITECTURES|STANDARD(?:_REQUIRED)?|SEPARABLE_COMPILATION|RESOLVE_DEVICE_SYMBOLS)\b"
_CUDA_SETTINGS = re.compile(rf"\bset\s*\(\s*CMAKE_{_CUDA_SETTING}|\b(?:set_target_properties|set_property)\s*\([^)]*?\b{_CUDA_SETTING}",
                            re.I)
_CUDA_SETTING_NAME = re.compile(rf"\b{_CUDA_SETTING}", re.I)
_OFF = frozenset({"0", "OFF", "FALSE", "NO"})
# per-target options without a generator expression that only nvcc understands (NVIDIA's nvcc manual,
# https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/ "Command Option Summary": -lineinfo, --expt-extended-lambda,
# --expt-relaxed-constexpr, -use_fast_math, -Xptxas, -gencode / --generate-code, -rdc, -maxrregcount):
# `target_compile_options(core_cuda PRIVATE -lineinfo --expt-extended-lambda)` on the CUDA target is its nvcc flag list
# (csukuangfj/optimized_transducer csrc/CMakeLists.txt)
_TARGET_OPTIONS = re.compile(r"\btarget_compile_options\s*\(([^)]*)\)", re.I)
_NVCC_ONLY = re.compile(r"^(?:-lineinfo|--?expt-(?:extended-lambda|relaxed-constexpr)|--?extended-lambda|--?use_fast_math"
                        r"|-Xptxas\S*|--ptxas-options\S*|-gencode\S*|--generate-code\S*|-rdc\S*|--relocatable-device-code\S*"
                        r"|-maxrregcount\S*|--maxrregcount\S*|--generate-line-info)$")
# the build's probe for nvcc (`find_program(HAS_NVCC nvcc)`), which gates the CUDA build, and CUDA added to a variable
# that `project(...)` / `enable_language(...)` reads (`set(languages ${languages} CUDA)` then `project(x ${languages})`):
# the switch of CMake's CUDA language through a variable (csukuangfj/optimized_transducer, k2-fsa/fast_rnnt CMakeLists.txt)
_NVCC_PROBE = re.compile(r"\bfind_program\s*\(\s*\w+\s+(?:NAMES\s+)?\"?nvcc\"?[\s)]", re.I)
_ADDS_CUDA = re.compile(r"\b(?:set\s*\(\s*(\w+)|list\s*\(\s*APPEND\s+(\w+))\b[^)]*?\bCUDA\b[^)]*\)", re.I)
_LANGUAGE_USE = re.compile(r"\b(?:project|enable_language)\s*\(([^)]*)\)", re.I)


# a check that stops the configure step when the CUDA toolkit is missing or too old, or when a GPU-only library's
# folder is absent: `if (CUDA_VERSION VERSION_LESS 10.2)` / `if (NOT CUDA_FOUND)` /
# `if (NOT EXISTS ".../dependencies/cutlass/CMakeLists.txt")` whose first command is `message(FATAL_ERROR ...)`, at the
# `if` line (label rule 36c-5/36c-6; a version probe that only picks flags is not one, (L14))
# FindCUDA's commands besides its targets that compile with nvcc or configure it: `cuda_compile(objs SHARED k.cu)` builds
# object files, `cuda_include_directories(...)` "sets the directories that should be passed to nvcc"
# (https://cmake.org/cmake/help/v3.24/module/FindCUDA.html: CUDA_COMPILE, CUDA_COMPILE_PTX, CUDA_COMPILE_FATBIN,
# CUDA_COMPILE_CUBIN, CUDA_WRAP_SRCS, CUDA_INCLUDE_DIRECTORIES; label ruling (L36), 40a-4)
_FINDCUDA_NVCC = re.compile(r"\b(cuda_compile(?:_ptx|_fatbin|_cubin)?|cuda_wrap_srcs|cuda_include_directories)\s*\(", re.I)
_RAISING_CHECK = re.compile(r"\b(?:if|elseif)\s*\(([^()]*)\)\s*message\s*\(\s*FATAL_ERROR\b", re.I)
_CUDA_CONDITION = re.compile(r"\b(?:CUDA_VERSION|CMAKE_CUDA_COMPILER_VERSION|CUDAToolkit_VERSION\w*|CUDA_FOUND|CUDAToolkit_FOUND"
                             r"|CMAKE_CUDA_COMPILER)\b")
# a project helper that builds a CUDA target (`function(create_test NAME) add_executable(${NAME} ${NAME}.cu)`): each
# call of it is a target of the port, as NPU505's `make_cuda_ext(...)` (label rule 36c-8, (L10))
_FUNCTION = re.compile(r"\b(function|macro)\s*\(\s*(\w+)[^)]*\)(.*?)\bend\1\s*\(", re.I | re.S)


# a package's CMake config template (`cmake/TorchClusterConfig.cmake.in`, turned by `configure_package_config_file`
# into the `TorchClusterConfig.cmake` that consumers' `find_package(TorchCluster)` read): the compile definitions it
# hands to them (`target_compile_definitions(TorchCluster::TorchCluster INTERFACE WITH_CUDA)`) are part of the CUDA
# build (label ruling (L105)); its other lines are read like an included script's (toolkit lines only)
CONFIG_TEMPLATES = ("Config.cmake.in", "-config.cmake.in")


class CmakeCudaBuild(Rule):
    """A CMakeLists.txt that compiles CUDA with nvcc, which cannot target an Ascend NPU: the line that
    switches CMake's CUDA language on (`project(x LANGUAGES CUDA CXX)`, `enable_language(CUDA)`,
    `find_package(CUDA)`; in a `project(` written over several lines, its line naming CUDA (label ruling L45, 36c-5); not `find_package(CUDAToolkit)`, which only locates the toolkit's libraries for
    linking and compiles nothing with nvcc), each CUDA target (`cuda_add_library(...)`,
    `add_library(lib a.cu ...)`, `pybind11_add_module(m k.cu)`, or a shared library / Python module in a
    CUDA project, not in the ELSE branch of `if(WITH_GPU)`, nor a target outside `if(WITH_CUDA)` that is CUDA only
    by what that branch adds, the language or `.cu` files globbed into its source list, reported there: the project's
    own target built with or without CUDA, label ruling (L105); the targets `repo_index.cmake_defs` links Python
    imports to; a name given through `${VAR}` is read from its `set`, a program's sources also through a `foreach`
    variable; not a C++ `add_library` beside FindCUDA's `find_package(CUDA)` alone, which nvcc does not compile) and,
    inside a target
    written over several lines, each further line that names a `.cu` / `.cuh` source (also a program:
    `add_executable(t ${srcs})` of a list holding `.cu`), each line of a `file(GLOB[_RECURSE] ...)` holding
    a `.cu` pattern (quoted or not), FindCUDA's `cuda_compile(...)` (objects built by nvcc) and `cuda_include_directories(...)`
    (nvcc's include path; label ruling (L36)), each nvcc flag list (each `set(CMAKE_CUDA_FLAGS[_<CONFIG>] ...)` line, also
    `set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -O3")` after the first, label rule 46c-6; or its first `string(APPEND ...)`; FindCUDA's `CUDA_NVCC_FLAGS` at its first
    write; per-target `$<$<COMPILE_LANGUAGE:CUDA>:...>` options at that line; CMake's CUDA-language settings that
    become nvcc options, `set(CMAKE_CUDA_ARCHITECTURES 86)` / `CMAKE_CUDA_STANDARD` / `CMAKE_CUDA_SEPARABLE_COMPILATION`
    and the target properties `CUDA_ARCHITECTURES` / `CUDA_STANDARD` / `CUDA_SEPARABLE_COMPILATION`) and each compile
    definition naming CUDA (also with a variable's value, `-DCUDA_ARCH=${CUDA_ARCH}`)
    or switching a GPU path on (`add_definitions(-D__USE_CUDA__)`, `target_compile_definitions(t PRIVATE WITH_CUDA)`,
    `-DUSE_GPU`, a CUDA header's configuration macro `-D__CUDA_NO_HALF_OPERATORS__`, also in a package config
    template `cmake/<Name>Config.cmake.in`, whose other lines are read like an included script's (label ruling (L105));
    not `-DNO_CUDA`,
    `WITH_CUDA=0`; a Thrust / CUB configuration macro, `THRUST_IGNORE_CUB_VERSION_CHECK`, not Thrust's host
    backends; one switching on CUTLASS code, `-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1`, `-DMYLIB_WITH_CUTLASS`, or an
    NVIDIA GPU generation's kernels, `-DMYLIB_WITH_HOPPER_FNA=1`, label rule 46c-6), the switch that compiles the sources' CUDA path; the dialect made a requirement
    (`CMAKE_CUDA_STANDARD_REQUIRED`), nvcc's device link step (`CUDA_RESOLVE_DEVICE_SYMBOLS`, label rule 42c-6); a
    `.cu` source under a folder variable in a list the target reads (`list(APPEND SRC ${KERNEL_DIR}/gemm.cu)`). Also
    each line that ties the build to the CUDA toolkit (label ruling L36,
    migrate/cmake_toolkit.py): `find_package(CUDAToolkit)`, a `find_library` of a toolkit library (`cudart`) and
    each `list(APPEND CUDA_NVCC_FLAGS ...)` entry line (label rule 36c-7); a check whose first command is
    `message(FATAL_ERROR ...)` on the toolkit (`if (CUDA_VERSION VERSION_LESS 10.2)`, `if (NOT CUDA_FOUND)`) or on a
    GPU-only library's folder (`if (NOT EXISTS .../cutlass/CMakeLists.txt)`), at the `if` line; each call of a project
    `function()` / `macro()` whose body builds a CUDA target (`create_test(test_grid)`, as NPU505's `make_cuda_ext`);
    compile definitions gathered in a list that `target_compile_definitions` reads, and one naming the GPU
    architecture (`-DNET_MIN_GPU_ARCH=${ARCH}`); each line linking one (`CUDA::cudart`, `${CUDA_LIBRARIES}`, `-lcublas`, the found `${CUDART_LIBRARY}`), each
    a project variable set to the toolkit's or cuDNN's home (`set(CUDA_PATH ${MYLIB_CUDA_HOME})`, `$ENV{CUDA_HOME}`,
    `/usr/local/cuda`; label ruling L37, 42c-5), libtorch's CUDA libraries in a link list (`torch_cuda`, `c10_cuda`;
    42d-11) or as the target of a property (`set_property(TARGET torch_cuda ...)`, label ruling (L105)), each
    line of an include / link directory command naming the toolkit (also through such a home: `${CUDA_PATH}/lib64`; `${CUDA_INCLUDE_DIRS}`,
    `${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}`, `${CUDA_TOOLKIT_ROOT_DIR}/lib64`, `/usr/local/cuda/...`, an absolute
    path ending `cuda/include` / `cuda-10.2/lib64` under another install root, not cuDNN's or TensorRT's folders beside
    it (47c c-3), CUB's `cub` folder), TensorRT's libraries linked by name (`nvinfer`, `nvinfer_plugin`, `nvonnxparser`;
    ruling L43), DeepStream's (`nvds_meta`, `nvdsgst_meta`, `nvbufsurface`; its SDK's include / lib folders not, 50b b-1),
    the CUDA compiler named (`set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)`, also where no .cu is compiled, 50b b-1), NCCL or cuDNN found through a Find module (`find_package(NCCL REQUIRED)`, not a QUIET look-up) and
    its libraries linked (`${NCCL_LIBRARIES}`, not `${NCCL_INCLUDE_DIRS}`; label note 49c c-1), and the fetch of a GPU-only C++ library (`FetchContent_Declare(cutlass ...)`, `ExternalProject_Add`,
    `CPMAddPackage(NAME cutlass ...)`, rapids-cmake's `rapids_cpm_find(raft ...)`: CUTLASS, CUB, RAFT, RMM,
    NVBench, FasterTransformer, FlashInfer), also in an included `*.cmake` script (its toolkit lines only; a Find
    module's `find_path` hints are not read; nor a vendored Find module that no CMake file of the scan
    pulls in by `find_package(<Name>)` or `include()`, a `cmake/FindCUDA.cmake` beside a commented-out
    `# find_package(CUDA REQUIRED)`, where the scan holds a CMakeLists.txt: migrate/cmake_find_modules.py,
    label rule 34d-1; nor a nested CMakeLists.txt without a `project()` of its own that no `add_subdirectory` of the
    top-level CMakeLists.txt reaches, a stale copy that builds nothing: migrate/cmake_subdirs.py, label rule 36c-8;
    nor, with NPU505/NPU506, the files of a vendored library's own `example(s)`/`test(s)`/`sample(s)`/`demo(s)`/
    `benchmark(s)` folder below a folder of the scan holding a license file of its own (an SDK unpacked under
    `csrc/fft/sdk/22.02/` whose `include/` alone the project's setup.py uses) that no file outside the folder adds
    or names: migrate/vendored_examples.py, label ruling (L24), rule 39b-9);
    each line linking such a library's own CMake targets
    (`raft::raft`, `nvbench::main`, `nvidia::cutlass::cutlass`) and its `add_subdirectory(3rdparty/nvbench)` (label
    ruling L43: the targets exist only with the CUDA library). Not reported: a vendored library's header folder
    (`3rdparty/flashinfer/include`), a subproject that is not GPU-only (`add_subdirectory(3rdparty/googletest)`). The same lines
    as NPU505 reports in a setup.py build (the call, each `.cu` line); the kernels themselves are
    NPU506's. Comments are not read. There is no automatic rewrite: the kernels are ported to Ascend C
    and built with the CANN toolchain (or replaced by torch / torch_npu ops). A CMake engine that setup.py builds only for a CUDA install target (`if get_target_device() == "cuda":`
    `ext_modules = [CMakeExtension(...)]`, `else: ext_modules = []`, an NPU value of that target beside it), whose
    package the runtime imports in a `try:` falling back on ImportError, in a repository whose device dispatch has an
    NPU side, is the CUDA side of that chain: its CMake lines (NPU511), the CUDA files only it builds (NPU506) and
    the uses of its extensions (NPU508) are not reported (label rule 36e-1, migrate/target_device_builds.py). A CMake
    build with an NPU switch (an `if(...)` / `elseif(...)` testing a variable named for the NPU, `option(MYPROJ_USE_NPU
    ...)` then `if(MYPROJ_USE_NPU) ... ascendcl ... else() find_package(CUDA REQUIRED) endif()`) is a per-device build:
    the CMake files of that build (the switch's own, and those in its folder or below up to a nested `project()`
    without a switch) are not reported, nor the CUDA files only they build (NPU506) or the uses of the extensions they
    define (NPU508, `import cache_ext` of its `pybind11_add_module(cache_ext ...)`; label rulings (L20), (L56),
    migrate/cmake_npu_switch.py). So is a backend switch with a CPU choice (`set(COMPUTE_BACKEND "cpu" CACHE STRING ...)`,
    `if(${COMPUTE_BACKEND} STREQUAL "cuda") ... else()` the CPU build) in a repository whose torch.library ops have
    plain-PyTorch "default" kernels (migrate/default_kernels.py): the NPU host loads the CPU build and its ops dispatch to
    those kernels (label ruling (L88)). A CUDA header that a C++ source built by every choice includes only inside
    `#if BUILD_CUDA` (a block whose condition names only CUDA / HIP macros; bitsandbytes' csrc/pythonInterface.cpp) is
    built only by the CUDA choice and goes with it (migrate/cuda_builds.py, `cu:@` namings). A CUDA / ROCm / SYCL / MUSA
    chain without an NPU entry stays reported."""

    CODE = "NPU511"
    NAME = "cmake-cuda-build"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    KINDS = ("cpp-source",)
    TRIGGERS = ("CUDA", ".cu", "cudart", "cub", "/usr/local/cuda", "FetchContent_Declare", "ExternalProject_Add", "CPM",
                "rapids_cpm_find", "raft", "rmm", "nvbench", "cutlass", "flashinfer", "torch_cuda", "c10_cuda", "nvinfer",
                "NCCL", "CUDNN", "nvds", "nvbufsurface")
    MESSAGE = "a CMake build that compiles CUDA (nvcc) cannot target an Ascend NPU; port the kernels to Ascend C"
    VALID = [
        Valid("project(x LANGUAGES CXX)\nadd_library(core STATIC a.cpp b.cpp)\n", kind="cpp-source", filename="CMakeLists.txt"),
        Valid("# project(x LANGUAGES CUDA)\n# add_library(k k.cu)\nadd_library(core a.cpp)\n", kind="cpp-source",
              filename="CMakeLists.txt"),
        Valid("// add_library(k k.cu) in a C++ file is no build\nint f();\n", kind="cpp-source", filename="ops.cpp"),
        Valid("target_link_libraries(GraphOps::GraphOps INTERFACE ${TORCH_LIBRARIES})\n"
              "target_compile_definitions(GraphOps::GraphOps INTERFACE WITH_PYTHON)\n", kind="cpp-source",
              filename="cmake/GraphOpsConfig.cmake.in"),
        # an included CMake script fetching a library that is not GPU-only, and a Find module's search hints
        Valid("include(FetchContent)\nFetchContent_Declare(googletest\n  GIT_REPOSITORY https://github.com/google/googletest.git)\n"
              "find_path(CUB_INCLUDE_DIR cub/cub.cuh HINTS /usr/local/cuda/include)\n", kind="cpp-source",
              filename="cmake/deps.cmake"),
        # a vendored library's header folder is a path (label rule 28d-8), not the CUDA toolkit's
        Valid("project(x LANGUAGES CXX)\ntarget_include_directories(x PRIVATE 3rdparty/flashinfer/include)\n",
              kind="cpp-source", filename="CMakeLists.txt"),
        # subprojects and targets of libraries that are not GPU-only (googletest, pybind11)
        Valid("project(x LANGUAGES CXX)\nadd_subdirectory(${CMAKE_SOURCE_DIR}/3rdparty/googletest)\n"
              "add_subdirectory(../third_party/pybind ${CMAKE_BINARY_DIR}/pybind11)\n"
              "target_link_libraries(x PRIVATE gtest gtest_main pybind11::module)\n", kind="cpp-source", filename="CMakeLists.txt"),
    ]
    INVALID = [
        # graphdeco-inria/diff-gaussian-rasterization CMakeLists.txt: the language, the target, each .cu line
        Invalid("project(DiffRast LANGUAGES CUDA CXX)\nadd_library(CudaRasterizer\n\tcuda_rasterizer/backward.h\n"
                "\tcuda_rasterizer/backward.cu\n\tcuda_rasterizer/forward.cu\n)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=4),
        Invalid("find_package(CUDA REQUIRED)\ncuda_add_library(gpu_ops SHARED ops.cu)\n", kind="cpp-source",
                filename="CMakeLists.txt", count=2),
        # a point-cloud op library built the FindCUDA way into objects a cffi build links: the language switch, nvcc's
        # Sense-GVT/Fast-BEV script/view_tranform_cuda/cpp/src/CMakeLists.txt (set 72b): the toolkit's include directory
        # in the list include_directories reads (5), and the CUDA program of globbed `.cu` files; the shared library of
        # the project's own `.cpp` file beside it is C++ (label ruling (L105)): enable_language (1), find_package (2),
        # the list's toolkit line, the glob (7), the program (8), the link of cudart (9)
        Invalid("enable_language(CUDA)\nfind_package(CUDAToolkit REQUIRED)\nset(PROJECT_INCLUDE_DIR\n"
                "    ${CMAKE_CURRENT_SOURCE_DIR}/include\n    ${CUDAToolkit_INCLUDE_DIRS}\n)\n"
                "file(GLOB CUDA_SRC \"*.cu\")\nADD_EXECUTABLE(vt.run main.cpp ${CUDA_SRC})\n"
                "target_link_libraries(vt.run PUBLIC cudart)\ninclude_directories(${PROJECT_INCLUDE_DIR})\n"
                "ADD_LIBRARY(VT SHARED view_transformer.cpp)\n", kind="cpp-source", filename="CMakeLists.txt", count=6),
        # include directories, the glob of the kernels and their compile; the plain include_directories is C++'s
        Invalid("find_package(CUDA REQUIRED)\ninclude_directories(\"${CMAKE_CURRENT_SOURCE_DIR}/cinclude\")\n"
                "cuda_include_directories(\"${CMAKE_CURRENT_SOURCE_DIR}/cinclude\")\n"
                "file(GLOB kernels_src \"${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cu\")\n"
                "cuda_compile(kernels SHARED ${kernels_src} OPTIONS -O3)\n", kind="cpp-source",
                filename="CMakeLists.txt", count=4),
        Invalid("add_library(k SHARED\n  a.cu b.cu  # two on one line\n  c.cpp)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=2),
        Invalid("cmake_minimum_required(VERSION 3.18)\nenable_language(CUDA)\npybind11_add_module(_ext bind.cpp)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=2),
        # a neural-network library's build (set 36c): FindCUDA's list grown entry by entry (each line), toolkit libraries
        # gathered in the list the link reads (not fmt), the toolkit's location, a GPU-architecture definition gathered
        # in a list, the checks that stop the build on an old toolkit or a missing CUTLASS (not the flag-picking version
        # probe), and each call of a helper building a CUDA program
        Invalid("if (NOT EXISTS \"${CMAKE_CURRENT_SOURCE_DIR}/deps/cutlass/CMakeLists.txt\")\n  message(FATAL_ERROR \"missing\")\nendif()\n"
                "if (CUDA_VERSION VERSION_LESS 11.0)\n  set(ARCH 75)\nendif()\n"
                "if (CUDA_VERSION VERSION_LESS 10.2)\n  message(FATAL_ERROR \"CUDA too old\")\nendif()\n"
                "list(APPEND NET_LIBRARIES cuda)\nlist(APPEND NET_LIBRARIES nvrtc)\nlist(APPEND NET_LIBRARIES fmt)\n"
                "list(APPEND CUDA_NVCC_FLAGS \"--extended-lambda\")\nlist(APPEND CUDA_NVCC_FLAGS \"--expt-relaxed-constexpr\")\n"
                "set(CUDA_TOOLKIT_ROOT_DIR /opt/cuda/targets/x86_64-linux)\n"
                "list(APPEND NET_DEFINITIONS -DNET_HALF=1)\nlist(APPEND NET_DEFINITIONS -DNET_MIN_GPU_ARCH=${ARCH})\n"
                "add_library(net STATIC net.cpp)\ntarget_compile_definitions(net PUBLIC ${NET_DEFINITIONS})\n"
                "target_link_libraries(net PUBLIC ${NET_LIBRARIES})\n"
                "function (create_test NAME)\n  add_executable(${NAME} ${NAME}.cu)\nendfunction()\n"
                "create_test(test_grid)\ncreate_test(test_networks)\n", kind="cpp-source", filename="CMakeLists.txt", count=11),
        # a `project(` over several lines: at the line naming CUDA (the one that changes)
        Invalid("project(\n\tnet\n\tVERSION 2.0\n\tLANGUAGES CXX CUDA\n)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=1),
        # IST-DASLab/QUIK CMakeLists.txt: the CUDA macro, the nvcc flag list appended to (its first write only; FindCUDA's
        # CUDA_NVCC_FLAGS copied into it is that list), the per-configuration list set in each branch (one list each)
        Invalid("enable_language(CUDA)\nadd_definitions(-D__USE_CUDA__)\nadd_definitions(-DUSE_FP16)\n"
                "string(APPEND CMAKE_CUDA_FLAGS \" $ENV{TORCH_NVCC_FLAGS}\")\nlist(APPEND CUDA_NVCC_FLAGS \"--expt-extended-lambda\")\n"
                "foreach (FLAG ${CUDA_NVCC_FLAGS})\n"
                "    string(APPEND CMAKE_CUDA_FLAGS \" ${FLAG}\")\nendforeach ()\nif (MSVC)\n"
                "    set(CMAKE_CUDA_FLAGS_RELEASE \"${CMAKE_CUDA_FLAGS_RELEASE} /O2\")\nelse ()\n"
                "    set(CMAKE_CUDA_FLAGS_RELEASE \"${CMAKE_CUDA_FLAGS_RELEASE} -O3\")\nendif ()\n", kind="cpp-source",
                filename="CMakeLists.txt", count=5),
        # IST-DASLab/QUIK test/unit/CMakeLists.txt: a glob over several lines (the line of its `.cu` pattern) and the
        # program built from the list it fills
        Invalid("set(UNITS \"\")\nfile(GLOB_RECURSE srcs CONFIGURE_DEPENDS\n    ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp\n"
                "    ${CMAKE_CURRENT_SOURCE_DIR}/*.cu\n)\nlist(APPEND UNITS ${srcs})\nadd_executable(unittest run.cpp\n"
                "    ${UNITS}\n)\n", kind="cpp-source", filename="CMakeLists.txt", count=2),
        # microsoft/VPTQ csrc/CMakeLists.txt: the target named through a variable, a quoted glob pattern, per-target
        # CUDA options (the generator expression's line)
        Invalid("set(TARGET \"vptq\")\nfile(GLOB_RECURSE SOURCES \"*.cu\" \"*.cc\")\ncuda_add_library(${TARGET} SHARED ${SOURCES})\n"
                "target_compile_options(\n  ${TARGET}\n  PUBLIC $<$<COMPILE_LANGUAGE:CUDA>:\n    -rdc=true>)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=3),
        # hao-ai-lab/FastVideo fastvideo-kernel/CMakeLists.txt: the project's own nvcc flag list, read only as the CUDA
        # sources' options: its `set(...)` and each `list(APPEND ...)` beside the generator expression's line; a list
        # also read for C++ (`CXX_FLAGS`) is not one (labels 61a)
        Invalid("set(CUDA_FLAGS\n    \"-O3\"\n    \"--use_fast_math\")\nif(TK)\n    list(APPEND CUDA_FLAGS \"-DKITTENS_HOPPER\")\n"
                "endif()\nset(CXX_FLAGS \"-O3\")\ntarget_compile_options(ops PRIVATE\n"
                "    $<$<COMPILE_LANGUAGE:CUDA>:${CUDA_FLAGS} ${CXX_FLAGS}>\n    $<$<COMPILE_LANGUAGE:CXX>:${CXX_FLAGS}>)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=3),
        # HawkAaron/warp-transducer CMakeLists.txt: FindCUDA's CUDA_NVCC_FLAGS (one list), programs, and the CPU-only
        # library of the no-GPU branch (not reported)
        Invalid("find_package(CUDA)\nif (WITH_OMP)\n  set(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} -Xcompiler -fopenmp\")\nendif()\n"
                "set(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} -O2\")\nIF (WITH_GPU)\n  cuda_add_library(rt SHARED rt.cu)\n"
                "  cuda_add_executable(test_gpu tests/test_gpu.cu)\nELSE()\n  add_library(rt SHARED rt.cpp)\nENDIF()\n",
                kind="cpp-source", filename="CMakeLists.txt", count=4),
        # csukuangfj/optimized_transducer CMakeLists.txt + csrc/CMakeLists.txt: the nvcc probe gating the build, CUDA added
        # to the languages variable project() reads, nvcc-only options on the CUDA target (not a C++ target's -O2)
        Invalid("set(languages CXX)\nfind_program(OT_HAS_NVCC nvcc)\nif(OT_HAS_NVCC)\n  set(languages ${languages} CUDA)\nendif()\n"
                "project(ot ${languages})\ntarget_compile_options(core_cuda PRIVATE -lineinfo --expt-extended-lambda)\n"
                "target_compile_options(core PRIVATE -O2 -Wall)\nset(flags CUDA)\n", kind="cpp-source", filename="CMakeLists.txt",
                count=3),
        Invalid("target_compile_definitions(ops PRIVATE WITH_CUDA)\nadd_definitions(-DNO_CUDA -DWITH_CUDA=0)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=1),
        # a target built with or without CUDA: its switch's lines (the language, the CUDA header macro, the `.cu` glob,
        # a CUDA-only target inside, a property of libtorch's CUDA target) are the port, not the shared `add_library`
        # outside (label ruling (L105))
        Invalid("project(graphops)\noption(WITH_CUDA \"Build the CUDA kernels\" OFF)\nfile(GLOB SRCS src/*.cpp)\n"
                "if(WITH_CUDA)\n  enable_language(CUDA)\n  add_definitions(-D__CUDA_NO_HALF_CONVERSIONS__)\n"
                "  file(GLOB SRCS ${SRCS} src/cuda/*.cu)\n  add_library(scan_cuda SHARED src/cuda/scan.cu)\nendif()\n"
                "add_library(${PROJECT_NAME} SHARED ${SRCS})\nif(WITH_CUDA)\n"
                "  set_property(TARGET torch_cuda PROPERTY INTERFACE_COMPILE_OPTIONS \"\")\nendif()\n",
                kind="cpp-source", filename="CMakeLists.txt", count=5),
        # a package config template hands the CUDA definition to the package's consumers (label ruling (L105))
        Invalid("if(@WITH_CUDA@)\n  target_compile_definitions(GraphOps::GraphOps INTERFACE WITH_CUDA)\nendif()\n",
                kind="cpp-source", filename="cmake/GraphOpsConfig.cmake.in", count=1),
        # each nvcc flag line appended in turn, and the CUTLASS / GPU-generation switches; not the C++ ABI or the
        # torch extension macros, nor the C++ flags (label rule 46c-6)
        Invalid("enable_language(CUDA)\nset(CMAKE_CXX_FLAGS \"${CMAKE_CXX_FLAGS} -std=c++17\")\n"
                "set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr\")\n"
                "set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} -O3\")\nif(${ADD_LINEINFO})\n"
                "  set(CMAKE_CUDA_FLAGS \"${CMAKE_CUDA_FLAGS} -lineinfo\")\nendif()\n"
                "add_definitions(\"-D_GLIBCXX_USE_CXX11_ABI=1\")\nadd_definitions(\"-DTORCH_EXTENSION_NAME=libmy\")\n"
                "add_definitions(\"-DMYLIB_WITH_CUTLASS\")\nadd_definitions(\"-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1\")\n"
                "if(${MYLIB_WITH_HOPPER})\n  add_definitions(\"-DMYLIB_WITH_HOPPER_FNA=1\")\nendif()\n",
                kind="cpp-source", filename="CMakeLists.txt", count=7),
        Invalid("find_package(CUDA)\nadd_definitions(-DUSE_GPU)\nadd_definitions(-DGPU_COUNT=2 -DUSE_GPU=OFF)\n", kind="cpp-source",
                filename="CMakeLists.txt", count=2),
        # k2-fsa/fast_rnnt fast_rnnt/csrc/CMakeLists.txt: the sources are a variable assembled above the target (the CUDA
        # language is switched on in the top-level CMakeLists.txt); the target and each line naming a .cu
        Invalid("set(srcs\n  mi_cpu.cu\n)\nif(NOT WITH_CUDA)\n  transform(OUTPUT_VARIABLE srcs SRCS ${srcs})\nelse()\n"
                "  list(APPEND srcs mi_cuda.cu)\nendif()\nadd_library(mi_core ${srcs})\n", kind="cpp-source",
                filename="CMakeLists.txt", count=3),
        # CMake's CUDA-language settings (architectures, dialect) for the project and on a target, and a CUDA macro whose
        # value is a variable; programs built in a `foreach` over a list of `.cu` sources (the name computed in the loop)
        Invalid("project(k CUDA CXX)\nset(CMAKE_CXX_STANDARD 17)\nset(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_ARCHITECTURES 86)\n"
                "set(CUDA_ARCH 890)\nadd_definitions(-DCUDA_ARCH=${CUDA_ARCH})\nset(bench_srcs\n    sgmv.cu\n)\n"
                "foreach(bench_src IN LISTS bench_srcs)\n  get_filename_component(bench_name \"${bench_src}\" NAME_WLE)\n"
                "  add_executable(${bench_name} \"${bench_src}\")\n"
                "  set_target_properties(${bench_name} PROPERTIES CXX_STANDARD 17)\n"
                "  set_target_properties(${bench_name} PROPERTIES CUDA_STANDARD 17)\nendforeach()\n",
                kind="cpp-source", filename="CMakeLists.txt", count=7),
        # a C++ library beside FindCUDA (no CUDA language): the C++ compiler builds it; `find_package(CUDA)` is a line, and
        # so is the link of the toolkit's libraries (label ruling L36)
        Invalid("project(ft LANGUAGES CXX)\nfind_package(CUDA REQUIRED)\nadd_library(ft SHARED ft_llama.cc)\n"
                "target_link_libraries(ft PUBLIC -lcublas -lcudart)\n", kind="cpp-source", filename="CMakeLists.txt", count=2),
        # a TensorRT demo's build (47c c-3): the toolkit's include and lib64 folders under an install root written out,
        # TensorRT linked by name and cudart; not cuDNN's or TensorRT's own folders installed beside the toolkit
        Invalid("project(demo)\nfind_package(CUDA REQUIRED)\ninclude_directories(/opt/nv/cuda-11.8/cuda/include)\n"
                "link_directories(/opt/nv/cuda-11.8/cuda/lib64)\ninclude_directories(/opt/nv/cuda-11.8/cudnn/v8.9/include)\n"
                "link_directories(/opt/nv/TensorRT/v8.6.1/lib)\nadd_executable(demo demo.cpp)\n"
                "target_link_libraries(demo nvinfer)\ntarget_link_libraries(demo cudart)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=5),
        # a DeepStream tracker plugin's build (50b b-1): nvcc named as the CUDA compiler and its flag list, though no .cu
        # is compiled; DeepStream's meta library linked by name; not the SDK's include / lib folders
        Invalid("set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)\nset(DS_ROOT /opt/nvidia/deepstream/deepstream)\n"
                "include_directories(${DS_ROOT}/sources/includes)\nset(CMAKE_CUDA_FLAGS \"--compiler-options -fPIC\")\n"
                "link_directories(${DS_ROOT}/lib)\nadd_library(tracker SHARED tracker.cpp)\n"
                "target_link_libraries(tracker nvds_meta nvdsgst_meta)\n", kind="cpp-source", filename="CMakeLists.txt", count=3),
        # a collective library's build (49c c-1): NCCL found through its Find module and its libraries linked; not its
        # include folders, nor an optional QUIET look-up, nor the shared library of the project's own `.cpp` file
        # (label ruling (L105); set 72b)
        Invalid("project(comm LANGUAGES CXX)\nenable_language(CUDA)\nfind_package(NCCL REQUIRED)\nfind_package(CUDNN QUIET)\n"
                "add_library(comm SHARED comm.cpp)\ntarget_include_directories(comm PRIVATE ${NCCL_INCLUDE_DIRS})\n"
                "target_link_libraries(comm PRIVATE\n    -Wl,-Bsymbolic\n    ${NCCL_LIBRARIES}\n)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=3),
        # a C++ viewer linking the CUDA runtime through FindCUDAToolkit: nvcc compiles nothing, but the build needs the
        # toolkit (label ruling L36): `find_package(CUDAToolkit)` and the link
        Invalid("project(viewer LANGUAGES CXX)\nfind_package(CUDAToolkit REQUIRED)\nadd_library(viewer SHARED a.cpp)\n"
                "target_link_libraries(viewer CUDA::cudart)\n", kind="cpp-source", filename="CMakeLists.txt", count=2),
        # a renderer's build (set 28c): the dialect required, cudart found and linked through its variable, a Thrust/CUB
        # macro, the toolkit's include folders and CUB's (each line of a multi-line command); not the `if(NOT DEFINED ...)`
        # probe, nor the project's own header folder
        Invalid("project(r LANGUAGES CXX CUDA)\nif(NOT DEFINED CMAKE_CUDA_STANDARD)\n  set(CMAKE_CUDA_STANDARD_REQUIRED ON)\nendif()\n"
                "find_library(CUDART_LIBRARY cudart ${CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES})\n"
                "add_compile_definitions(THRUST_IGNORE_CUB_VERSION_CHECK)\nadd_compile_definitions(THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP)\n"
                "add_library(core a.cpp)\ntarget_include_directories(core PUBLIC\n    include\n    cub\n"
                "    /usr/local/cuda/samples/common/inc\n    ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}\n)\n"
                "target_link_libraries(core PUBLIC\n    ${TORCH_LIBRARIES}\n    ${CUDART_LIBRARY}\n)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=8),
        # a kernel library's build (set 42c): the toolkit's and cuDNN's homes handed in as the project's own variables,
        # their include / link folders, `.cu` sources listed under folder variables, nvcc's device link step; not the
        # torch home, its folders or the C++ dialect
        Invalid("project(k CXX)\nenable_language(CUDA)\nset(CMAKE_CXX_STANDARD 17)\nset(CUDA_PATH ${MYLIB_CUDA_HOME})\n"
                "set(CUDNN_PATH ${MYLIB_CUDNN_HOME})\nset(TORCH_PATH ${MYLIB_TORCH_HOME})\n"
                "include_directories(${CUDA_PATH}/include)\ninclude_directories(${CUDNN_PATH}/include)\n"
                "include_directories(${TORCH_PATH}/include)\nlink_directories(${CUDA_PATH}/lib64)\n"
                "list(APPEND KERNEL_CU\n    ${KERNEL_DIR}/gemm/fp16_gemm.cu\n    )\n"
                "set(OWN_CU\n    ${CMAKE_CURRENT_SOURCE_DIR}/ops.cu\n    )\n"
                "add_library(my_kernels SHARED ${KERNEL_CU} ${OWN_CU})\n"
                "set_property(TARGET my_kernels PROPERTY POSITION_INDEPENDENT_CODE ON)\n"
                "set_property(TARGET my_kernels PROPERTY CUDA_RESOLVE_DEVICE_SYMBOLS ON)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=10),
        # PoseCNN-PyTorch ycb_render / BundleSDF BundleTrack (set 53): FindCUDA's `${CUDA_LIBRARIES}`, which
        # cuda_add_library links itself, rewritten (L36); each CUDA property line of one set_target_properties(...)
        Invalid("project(rend CXX)\nfind_package(CUDA REQUIRED)\nset(CUDA_LIBRARIES PUBLIC ${CUDA_LIBRARIES})\n"
                "cuda_add_library(rend MODULE gl.c render.cpp)\ncuda_add_library(kern SHARED k.cu)\n"
                "set_target_properties(kern\n   PROPERTIES\n      CUDA_SEPARABLE_COMPILATION ON\n"
                "      CUDA_RESOLVE_DEVICE_SYMBOLS ON\n)\n", kind="cpp-source", filename="CMakeLists.txt", count=6),
        # libtorch's CUDA libraries gathered in the list a link reads (42d-11); not its CPU ones
        Invalid("project(rt CXX)\nif(GPU)\n    set(TORCH_DEPS torch torch_cuda torch_cpu c10 c10_cuda)\nendif()\n"
                "set(CPU_DEPS torch torch_cpu c10)\nadd_library(rt SHARED rt.cpp)\n"
                "target_link_libraries(rt PUBLIC ${TORCH_DEPS} ${CPU_DEPS})\n", kind="cpp-source", filename="CMakeLists.txt",
                count=1),
        # an included script fetching a GPU-only library with rapids-cmake (RAFT) and one with CPM (CUTLASS by its repository)
        Invalid("function(find_and_configure_raft)\n  rapids_cpm_find(raft ${PKG_VERSION}\n    GLOBAL_TARGETS raft::raft\n"
                "    CPM_ARGS GIT_REPOSITORY https://github.com/rapidsai/raft.git)\nendfunction()\n"
                "CPMAddPackage(NAME cutlass GITHUB_REPOSITORY NVIDIA/cutlass GIT_TAG v3.5.0)\n", kind="cpp-source", filename="cmake/get_deps.cmake", count=2),
        # a benchmark build linking GPU-only libraries' own targets and adding one as a subproject (label ruling L43):
        # the subproject and each link line (one per line, also in a command written over several lines); not the
        # googletest subproject, the header folder, or a link of non-GPU targets
        Invalid("project(bench LANGUAGES CXX)\nadd_subdirectory(${CMAKE_SOURCE_DIR}/3rdparty/nvbench)\n"
                "add_subdirectory(3rdparty/googletest)\nadd_library(bench_lib STATIC bench.cpp)\n"
                "target_include_directories(bench_lib PRIVATE 3rdparty/nvbench)\n"
                "target_link_libraries(bench_lib PRIVATE raft::raft nvbench::main)\ntarget_link_libraries(bench_lib PRIVATE gtest)\n"
                "target_link_libraries(gemm PRIVATE\n    ${TORCH_LIBRARIES}\n    nvidia::cutlass::cutlass)\n",
                kind="cpp-source", filename="CMakeLists.txt", count=3),
    ]

    def check(self, ctx):
        path = ctx.path.replace("\\", "/")
        if path.endswith(".cmake"):  # an included CMake script (`include(cmake/get_raft.cmake)`): its toolkit lines only
            yield from self._toolkit(ctx, set())
            return
        if path.endswith(CONFIG_TEMPLATES):  # a package config template: its toolkit lines and CUDA definitions
            seen = set()
            for finding in self._definitions(ctx, CMAKE_COMMENT.sub("", ctx.source)):
                seen.add(finding.line)
                yield finding
            yield from self._toolkit(ctx, seen)
            return
        if not path.endswith("CMakeLists.txt"):
            return
        seen = set()
        for finding in self._build(ctx):
            seen.add(finding.line)
            yield finding
        yield from self._toolkit(ctx, seen)

    def _toolkit(self, ctx, seen):
        """Lines that tie the build to the CUDA toolkit or fetch a GPU-only library (migrate/cmake_toolkit.py)."""
        for number, what in cmake_toolkit.toolkit_lines(ctx.source):
            if number not in seen:
                yield self.finding(ctx, self._span(ctx.lines, number), f"{what}: " + self.MESSAGE)

    def _build(self, ctx):
        lines = ctx.lines
        code = CMAKE_COMMENT.sub("", ctx.source)
        for match in CMAKE_CUDA_LANGUAGE.finditer(code):  # at the line naming CUDA (a `project(` over several lines)
            number = code.count("\n", 0, match.end()) + 1
            yield self.finding(ctx, self._span(lines, number), "switches CMake's CUDA language (nvcc) on: " + self.MESSAGE)
        yield from self._flags_and_macros(ctx, code)
        globbed = set()
        for match in CMAKE_GLOB.finditer(code):  # each line of a glob holding a CUDA pattern
            first = code.count("\n", 0, match.start()) + 1
            for offset, text in enumerate(match.group(0).split("\n")):
                # the glob's last word may carry its closing parenthesis (`file(GLOB s "${DIR}/csrc/*.cu")`)
                if ".cu" in text and any(w.rstrip(")").strip('"\'').endswith((".cu", ".cuh")) for w in text.split()):
                    globbed.add(first + offset)
                    yield self.finding(ctx, self._span(lines, first + offset), "globs CUDA sources: " + self.MESSAGE)
        for match in _FINDCUDA_NVCC.finditer(code):  # FindCUDA's commands that hand files or directories to nvcc
            number = code.count("\n", 0, match.start()) + 1
            yield self.finding(ctx, self._span(lines, number), f"`{match.group(1)}` hands sources or include directories to nvcc (FindCUDA): " + self.MESSAGE)
        for match in _RAISING_CHECK.finditer(code):
            if _CUDA_CONDITION.search(match.group(1)) or ("EXISTS" in match.group(1) and any(
                    part.lower() in cmake_toolkit.GPU_ONLY_LIBRARIES for part in re.split(r"[/\"\s]+", match.group(1)))):
                number = code.count("\n", 0, match.start()) + 1
                yield self.finding(ctx, self._span(lines, number),
                                   "stops the build without the CUDA toolkit or a GPU-only library: " + self.MESSAGE)
        targets = list(cmake_defs(ctx.path, ctx.source, programs=True, compiled=True))
        for helper in _FUNCTION.finditer(code):
            first, last = (code.count("\n", 0, helper.start()) + 1, code.count("\n", 0, helper.end()) + 1)
            if not any(first <= t.line <= last for t in targets):
                continue
            for call in re.finditer(rf"(?<![\w$]){re.escape(helper.group(2))}\s*\(", code):
                number = code.count("\n", 0, call.start()) + 1
                if not first <= number <= last:
                    yield self.finding(ctx, self._span(lines, number),
                                       f"calls `{helper.group(2)}`, which builds a CUDA target: " + self.MESSAGE)
        switched = self._switched_targets(ctx, code, targets)
        for target in targets:
            if target.line not in switched:
                yield self.finding(ctx, self._span(lines, target.line), f"builds `{target.name}` with CUDA: " + self.MESSAGE)
            start, seen = target.line, {target.line}
            for source in target.why.split():
                number = next((n for n in range(start, len(lines) + 1) if source in lines[n - 1].split("#", 1)[0]), None) \
                    or next((n for n in range(1, start) if source in lines[n - 1].split("#", 1)[0]), None)  # a `set(srcs ...)` list above
                if number is None:
                    continue
                start = number
                if number not in seen and number not in globbed:
                    seen.add(number)
                    yield self.finding(ctx, self._span(lines, number), f"CUDA source `{source}` of `{target.name}`: " + self.MESSAGE)

    @staticmethod
    def _switched_targets(ctx, code, targets) -> set[int]:
        """Lines of targets outside every branch of a GPU switch (`if(WITH_CUDA)`) that are CUDA only by what such a
        branch adds (the CUDA language, `.cu` sources globbed into their list): the project's own target, built with
        or without CUDA, whose CUDA part is reported at the switch's lines (label ruling (L105): `add_library(
        ${PROJECT_NAME} SHARED ${OPERATOR_SOURCES})` after `if(WITH_CUDA) enable_language(CUDA) file(GLOB
        OPERATOR_SOURCES ${OPERATOR_SOURCES} csrc/cuda/*.cu) endif()` is not a line of the port)."""
        spans = gpu_switch_spans(code)
        if not spans or not targets:
            return set()
        outside = [t for t in targets if not any(start <= _offset(code, t.line) < end for start, end in spans)]
        if not outside:
            return set()
        blanked, last = [], 0
        for start, end in sorted(spans):
            if start < last:
                continue
            blanked.append(code[last:start])
            blanked.append("\n" * code.count("\n", start, end))  # the line numbers kept
            last = end
        blanked.append(code[last:])
        still = {t.line for t in cmake_defs(ctx.path, "".join(blanked), programs=True, compiled=True)}
        return {t.line for t in outside if t.line not in still}

    def _flags_and_macros(self, ctx, code):
        """A CUDA macro definition; each nvcc flag list: each `set(CMAKE_CUDA_FLAGS... ...)`, or the first write of
        it in the file (`string(APPEND ...)`; FindCUDA's `CUDA_NVCC_FLAGS`, one list)."""
        written: set[tuple] = set()  # (variable, branch)
        # a file that writes CMAKE_CUDA_FLAGS compiles with CMake's CUDA language, which does not read CUDA_NVCC_FLAGS
        # (IST-DASLab/QUIK copies that list into CMAKE_CUDA_FLAGS with a foreach): the one list is CMAKE_CUDA_FLAGS
        modern = re.search(r"\bCMAKE_CUDA_FLAGS\b", code) is not None
        stack, counter = [0], 0
        for match in _BRANCH_OR_FLAGS.finditer(code):
            branch = (match.group("branch") or "").lower()
            if branch:
                counter += 1
                if branch == "if":
                    stack.append(counter)
                elif branch in ("elseif", "else"):
                    stack[-1] = counter
                elif len(stack) > 1:
                    stack.pop()
                continue
            variable = (match.group("var") or match.group("added")).upper()
            if variable == _ONE_LIST and modern:  # FindCUDA's list copied into CMAKE_CUDA_FLAGS: that list's flags
                continue
            first = not any(v == variable for v, _ in written)
            # FindCUDA's list grown entry by entry (`list(APPEND CUDA_NVCC_FLAGS "--use_fast_math")`): each entry's line
            # is a flag of the port (label rule 36c-7), where `set(CUDA_NVCC_FLAGS "${CUDA_NVCC_FLAGS} -O2")` rewrites one list
            entry = variable == _ONE_LIST and match.group(0).lower().startswith("list")
            # each `set(CMAKE_CUDA_FLAGS[_<CONFIG>] "${CMAKE_CUDA_FLAGS} --use_fast_math")` is a line of nvcc flags to
            # port, also the ones after the first in a branch (label rules 42c, 43e, 46c-6)
            if first or entry or (match.group("set") and variable != _ONE_LIST):
                number = code.count("\n", 0, match.start()) + 1
                yield self.finding(ctx, self._span(ctx.lines, number), f"sets nvcc flags (`{variable}`): " + self.MESSAGE)
            written.add((variable, stack[-1]))
        for match in _CUDA_OPTIONS.finditer(code):
            number = code.count("\n", 0, match.start()) + 1
            yield self.finding(ctx, self._span(ctx.lines, number), "sets nvcc flags for CUDA sources: " + self.MESSAGE)
        yield from self._own_flag_lists(ctx, code)
        for match in _CUDA_SETTINGS.finditer(code):
            numbers = [code.count("\n", 0, match.end()) + 1]
            if not match.group(0).lower().startswith("set("):  # each CUDA property of one set_target_properties(...)
                close = code.find(")", match.end())  # on its own line (BundleSDF: SEPARABLE_COMPILATION, RESOLVE_DEVICE_SYMBOLS)
                for more in _CUDA_SETTING_NAME.finditer(code, match.end(), close if close >= 0 else len(code)):
                    number = code.count("\n", 0, more.end()) + 1
                    if number not in numbers:
                        numbers.append(number)
            for number in numbers:
                yield self.finding(ctx, self._span(ctx.lines, number), "sets a CUDA-language option of nvcc: " + self.MESSAGE)
        for match in _TARGET_OPTIONS.finditer(code):
            if "$<" not in match.group(1) and any(_NVCC_ONLY.match(w.strip('"')) for w in match.group(1).split()):
                number = code.count("\n", 0, match.start()) + 1
                yield self.finding(ctx, self._span(ctx.lines, number), "sets nvcc-only flags on a target: " + self.MESSAGE)
        for match in _NVCC_PROBE.finditer(code):
            number = code.count("\n", 0, match.start()) + 1
            yield self.finding(ctx, self._span(ctx.lines, number), "probes for nvcc, the gate of the CUDA build: " + self.MESSAGE)
        read = {v for m in _LANGUAGE_USE.finditer(code) for v in re.findall(r"\$\{(\w+)\}", m.group(1))}
        for match in _ADDS_CUDA.finditer(code):
            if (match.group(1) or match.group(2)) in read:
                number = code.count("\n", 0, match.start()) + 1
                yield self.finding(ctx, self._span(ctx.lines, number),
                                   "adds CUDA to the languages the project switches on: " + self.MESSAGE)
        yield from self._definitions(ctx, code)

    def _own_flag_lists(self, ctx, code):
        """The project's own nvcc flag list: a variable read only as the options of CUDA sources
        (`$<$<COMPILE_LANGUAGE:CUDA>:${CUDA_FLAGS}>`, fastvideo-kernel's CMakeLists.txt) holds nvcc flags; each
        `set(CUDA_FLAGS ...)` and `list(APPEND CUDA_FLAGS "-DKITTENS_HOPPER")` is a line of nvcc flags to port, as each
        write of CMAKE_CUDA_FLAGS is (label rules 42c, 43e, 46c-6; labels 61a: "nvcc flag list CUDA_FLAGS")."""
        names = {v for m in _CUDA_OPTION_READS.finditer(code) for v in re.findall(r"\$\{(\w+)\}", m.group(1))}
        names -= {"CMAKE_CUDA_FLAGS", _ONE_LIST}
        if not names:
            return
        # a variable also read elsewhere (a C++ target's options, a message) is not one list of nvcc flags only
        other_reads = _CUDA_OPTION_READS.sub("", code)
        for name in sorted(names):
            if re.search(r"\$\{" + name + r"\}", other_reads):
                continue
            for match in re.finditer(r"\b(?:set\s*\(\s*|(?:list|string)\s*\(\s*(?:APPEND|PREPEND)\s+)" + name + r"\b",
                                     code, re.I):
                number = code.count("\n", 0, match.start()) + 1
                yield self.finding(ctx, self._span(ctx.lines, number), f"sets nvcc flags (`{name}`): " + self.MESSAGE)

    def _definitions(self, ctx, code):
        """Each compile definition naming CUDA or switching a GPU path on."""
        # definitions gathered in a list that a definition command reads (`list(APPEND DEFS -DNET_MIN_GPU_ARCH=${ARCH})`,
        # then `target_compile_definitions(t PUBLIC ${DEFS})`)
        defined = {v for m in _DEFINITIONS.finditer(code) for v in re.findall(r"\$\{(\w+)\}", m.group(1))}
        gathered = [m for m in _LIST_DEFINITIONS.finditer(code) if m.group(1) in defined]
        for match in [*_DEFINITIONS.finditer(code), *gathered]:
            words = match.group(2 if match.re is _LIST_DEFINITIONS else 1).split()
            if match.group(0).lower().startswith("target_"):
                words = words[1:]  # the target's name
            for word in words:
                macro = _CUDA_MACRO.match(word.strip('"'))
                name = macro.group(1).upper() if macro else ""
                if not macro or (macro.group(2) or "").upper() in _OFF or _HOST_BACKEND.match(macro.group(2) or "") or (any(
                        part in ("NO", "WITHOUT", "DISABLE", "NOCUDA") for part in name.split("_"))
                        and not _CUDA_HEADER_MACRO.match(name)):
                    continue
                number = code.count("\n", 0, match.start() + match.group(0).find(word)) + 1
                yield self.finding(ctx, self._span(ctx.lines, number),
                                   f"defines `{macro.group(1)}`, which compiles the CUDA path of the sources: " + self.MESSAGE)
                break

    @staticmethod
    def _span(lines, number):
        text = lines[number - 1].rstrip("\r\n") if 0 < number <= len(lines) else ""
        indent = len(text) - len(text.lstrip())
        return (number, indent, number, len(text))


def _offset(code: str, line: int) -> int:
    """The offset of the start of `line` (1-based) in `code`."""
    offset = 0
    for _ in range(line - 1):
        offset = code.find("\n", offset) + 1
        if offset == 0:
            return len(code)
    return offset
