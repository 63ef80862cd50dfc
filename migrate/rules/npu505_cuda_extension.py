import ast
import dataclasses
import os
import re
import sys

from migrate import (
    build_helper_modules,
    cmake_cuda_extensions,
    environment_reports,
    kernel_values,
    local_installs,
    nvcc_command_classes,
    tool_presence_probes,
    torch_cuda_requirements,
    unreachable_else,
)
from migrate.context import walk_nodes
from migrate.findings import Category, Severity
from migrate.repo_index import (
    _PLAIN_EXTENSIONS,
    CUDA_SWITCH_KEYWORDS,
    cuda_link_nodes,
    extension_class_variables,
    followed_cuda_sources,
    forwarded_keywords,
    jit_cuda_build_wrapper,
    named_sources,
    plain_cuda_extension,
)
from migrate.rules._device_helpers import statement_of
from migrate.rules._loop import enclosing_scope, walk_scope
from migrate.rules._text import COMMAND_RUNNERS, shell_matches
from migrate.rules.base import Invalid, Rule, Valid
from migrate.sources import is_makefile

_EXT = "torch.utils.cpp_extension"
# torch < 1.0's cffi builder (TDAN, faster-rcnn.pytorch): `create_extension('_ext.op', ..., with_cuda=True,
# extra_objects=['src/op_kernel.cu.o'])` links kernels compiled by an nvcc command of a shell script
_FFI = "torch.utils.ffi.create_extension"
_CUDA_SUFFIXES = (".cu", ".cuh", ".cu.o", ".cu.cc")  # `.cu.cc`: TensorFlow's spelling of a CUDA unit
# setup() keywords that ship files as package data: a `.cu` named there is copied, not built
_OUTPUT_KEYWORDS = frozenset({"output_file", "out_file", "output_path", "output"})
_DATA_KEYWORDS = ("package_data", "data_files", "exclude_package_data")
# nvcc run as a command in a shell launcher (`nvcc -c -o k.cu.o k.cu -x cu ...` in make.sh)
_NVCC_COMMAND = re.compile(r"(?<![\w./$-])(?:[\w.${}/-]*/)?nvcc(?![\w.-])")
# a shell compile / link command naming a CUDA toolkit runtime library (`g++ -shared -o k_so.so k.cpp k.cu.o -lcudart`):
# the link step of kernels an nvcc command compiled (pointnet2's TF ops build scripts)
_CUDA_RUNTIME_LINK = re.compile(r"(?<![\w-])-l(?:cudart(?:_static)?|cublas(?:Lt)?|cufft|curand|cusparse|cusolver|nvrtc|cudnn)(?![\w.-])")
# `define_macros=[("WITH_CUDA", None)]` / `-DWITH_CUDA`: the switch that compiles the CUDA path of the sources
# also a `-D` macro that switches a GPU / CUDA path on (`-DUSE_GPU` in microsoft/tutel setup.py's CUDA branch,
# `-DWARPRNNT_ENABLE_GPU` in HawkAaron/warp-transducer pytorch_binding/setup.py), not one set to 0 / OFF; NPU511 reads
# the same macros in a CMakeLists.txt
_CUDA_MACRO = re.compile(r"^(?:-D)?WITH_CUDA(?:=\w*)?$|^-D\w*?(?:WITH|USE|ENABLE|HAVE|BUILD)_(?:\w+_)?(?:CUDA|GPU)\b(?:=(?!(?:0|OFF|FALSE|NO)$)\w*)?$")
_LOAD_LIBRARY = ("torch.ops.load_library", "torch.classes.load_library")
# TensorFlow's loader of a compiled custom-op library (https://www.tensorflow.org/api_docs/python/tf/load_op_library):
# the same question for a TensorFlow binding (HawkAaron/warp-transducer tensorflow_binding: `tf.load_op_library(lib_file)`)
_TF_LOAD_LIBRARY = "tensorflow.load_op_library"
# nvcc itself, in a file that builds an extension (`[home + "/bin/nvcc", "-V"]`)
_NVCC_TEXT = re.compile(r"(?:^|/)nvcc$")
# nvcc's GPU-architecture (and CUDA-only) flags: reported once per flag list, not once per string
_NVCC_FLAG = re.compile(r"^-gencode$|^(?:-?arch=)?compute_\d+|^-arch=sm_\d+|^--expt-(?:relaxed-constexpr|extended-lambda)$")
# a loaded library whose file name names another backend's build (`libtorchao_ops_mps_aten.dylib`: Apple Metal; a
# `_cpu` build) or a macOS `.dylib` (no CUDA there): not a CUDA kernel library (pytorch/torchchat @a1a7f37
# torchchat/utils/quantize.py:992-994)
_OTHER_BACKEND_LIBRARY = re.compile(r"(?:^|[_.-])(?:mps|metal|cpu)(?:[_.-]|$)|\.dylib$", re.IGNORECASE)
_LOAD_LIBRARY_MESSAGE = (
    "loads a compiled custom-op library: if it was built with CUDA (nvcc, a CUDA dispatch key) it "
    "does not load or run on an Ascend NPU; rebuild its kernels as Ascend C operators registered with torch_npu"
)


_VERSION_FLAGS = frozenset({"-V", "--version"})


def _version_list(ctx, node) -> bool:
    """`[cuda_dir + "/bin/nvcc", "-V"]`: nvcc run for its version (the string `node` in a list with `-V`)."""
    parent = ctx.parent(node)
    while isinstance(parent, ast.BinOp):
        parent = ctx.parent(parent)
    return isinstance(parent, (ast.List, ast.Tuple)) and any(
        isinstance(e, ast.Constant) and e.value in _VERSION_FLAGS for e in parent.elts)


def _version_probe(ctx, node) -> bool:
    """nvcc run for its version inside a function whose result only picks flags (apex's / VPTQ's / BigVGAN's
    `get_cuda_bare_metal_version` feeding `if version >= 11: cc_flag.append(...)`): it builds nothing, no build line
    (label rulings R2/(bb)/(L14)). A version REQUIREMENT stays reported: a call of the probe whose result decides a
    `raise` (EETQ's / fast-hadamard-transform's `if bare_metal_version < Version("11.6"): raise RuntimeError(...)`)."""
    if not _version_list(ctx, node):
        return False
    function = ctx.parent(node)
    while function is not None and not isinstance(function, ast.FunctionDef):
        function = ctx.parent(function)
    return function is not None and function.name in _probe_functions(ctx)


def _compile_flags_key(ctx, node) -> bool:
    """`extra_compile_args={"cxx": [...], "nvcc": [...]}`: the "nvcc" key of an extension's flags names nvcc's flag
    list, it looks nothing up. A function building the extensions with it and raising on an old nvcc (`def get_ext():`
    of Mzero's selective_scan setup.py, EfficientVMamba: the raise is the version requirement, labels 69c) is no
    toolkit locator; py-faster-rcnn's `locate_cuda()` returns `{'home': home, 'nvcc': nvcc, ...}`, no flags keyword."""
    parent = ctx.parent(node)
    holder = ctx.parent(parent) if isinstance(parent, ast.Dict) and any(k is node for k in parent.keys) else None
    return isinstance(holder, ast.keyword) and holder.arg == "extra_compile_args"


def _probe_functions(ctx, flag_only: bool = True) -> frozenset[str]:
    """Names of this file's functions that run an nvcc version probe; `flag_only`: only those whose result only
    picks flags (no call of the function decides a `raise` with its result)."""
    key = "_npu_nvcc_probes_flag_only" if flag_only else "_npu_nvcc_probes"
    cached = ctx.__dict__.get(key)
    if cached is None:
        probes = frozenset(function.name for function in ctx.nodes.get(ast.FunctionDef, ())
                           if "nvcc" in (ctx.segment(function) or "") and any(
                               isinstance(n, ast.Constant) and isinstance(n.value, str) and _NVCC_TEXT.search(n.value)
                               and _version_list(ctx, n) for n in walk_nodes(function)))
        ctx.__dict__["_npu_nvcc_probes"] = probes
        ctx.__dict__["_npu_nvcc_probes_flag_only"] = frozenset(
            name for name in probes if not any(_decides_a_raise(ctx, call) for call in ctx.nodes.get(ast.Call, ())
                                               if isinstance(call.func, ast.Name) and call.func.id == name))
        cached = ctx.__dict__[key]
    return cached


def _decides_a_raise(ctx, call) -> bool:
    """The result of `call` decides a `raise` (a version requirement): an `if` holding a `raise` tests the call
    itself, or is one of the statements after the call's own (in its block) and tests a name it binds."""
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    if statement is None or _called_nowhere(ctx, call):  # a helper nothing calls decides nothing
        return False
    if isinstance(statement, ast.If) and any(sub is call for sub in walk_nodes(statement.test)):
        return any(isinstance(sub, ast.Raise) for sub in walk_nodes(statement))
    bound = {n.id for t in getattr(statement, "targets", ()) for n in walk_nodes(t) if isinstance(n, ast.Name)}
    block = next((b for b in (getattr(ctx.parent(statement), f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and any(s is statement for s in b)), None)
    if not bound or block is None:
        return False
    after = block[next(k for k, s in enumerate(block) if s is statement) + 1:]
    return any(isinstance(node, ast.If) and any(isinstance(sub, ast.Name) and sub.id in bound for sub in walk_nodes(node.test))
               and any(isinstance(sub, ast.Raise) for sub in walk_nodes(node)) for node in after)


def _uncalled_function_lines(ctx) -> frozenset:
    """The lines of the top-level functions of a setup.py that nothing in the file calls or names (`_called_nowhere`):
    mmdet-style `def make_cuda_ext(...)` kept beside `ext_modules=[]` (Sense-X/Co-DETR; label rule 32c-2) builds
    nothing, so its gate, macro, `CUDAExtension` pick and nvcc list are no build lines."""
    if os.path.basename(ctx.path or "") != "setup.py" or ctx.tree is None:
        return frozenset()
    named = {n.id for n in ctx.nodes.get(ast.Name, ())} | {n.attr for n in ctx.nodes.get(ast.Attribute, ())}
    lines: set[int] = set()
    for function in ctx.tree.body:
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and function.name not in named:
            lines.update(range(function.lineno, (function.end_lineno or function.lineno) + 1))
    return frozenset(lines)


def _called_nowhere(ctx, node) -> bool:
    """`node` sits in a top-level function of a setup.py that nothing in the file calls or names (flash-attention's
    csrc/*/setup.py keep apex's `check_cuda_torch_binary_vs_bare_metal` but never call it; SageAttention's
    sageattention3_blackwell/setup.py keeps `check_if_cuda_home_none` uncalled): the script runs, nothing imports
    it, so the function never executes. In another module a function may be called from elsewhere: not decided here."""
    if os.path.basename(ctx.path or "") != "setup.py":
        return False
    function = ctx.parent(node)
    while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        function = ctx.parent(function)
    if function is None or not isinstance(ctx.parent(function), ast.Module):
        return False
    name = function.name
    return not any(n.id == name for n in ctx.nodes.get(ast.Name, ())) and not any(
        n.attr == name for n in ctx.nodes.get(ast.Attribute, ()))


def _requirement_raises(ctx, call) -> list:
    """The `raise` statements of the version requirement a probe call decides (`_decides_a_raise`): after the statement
    binding the call's result, in its block, each `if` whose test compares the bound names (`if nvcc_cuda_version <
    Version("12.0"):`, `if int(major) < 11:`, also with a question about the GPU architectures, `... and
    any(cc.startswith("8.9") ...)`) and every `raise` in its body, nested `if`s included (`if nvcc_cuda_version <
    Version("11.1"): if any(cc.startswith("8.6") ...): raise`; not into a function): on an Ascend host there is no nvcc
    to probe, each check that stops the build on its version goes (label ruling (L35): the raise is the line; labels
    of sets 26b and 61d sit on the raise, not on its `if`). A check that only warns or picks architectures raises
    nothing: none (label ruling (L14))."""
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    if statement is None or not isinstance(statement, ast.Assign):
        return []
    bound = {n.id for t in statement.targets for n in walk_nodes(t) if isinstance(n, ast.Name)}
    block = next((b for b in (getattr(ctx.parent(statement), f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and any(s is statement for s in b)), None)
    if not bound or block is None:
        return []
    out = []
    for node in block[next(k for k, s in enumerate(block) if s is statement) + 1:]:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not (any(isinstance(n, ast.Compare) for n in walk_nodes(test))
                and any(isinstance(n, ast.Name) and n.id in bound for n in walk_nodes(test))):
            continue
        out.extend(_raises_in(node.body))
    return out


def _raises_in(statements) -> list:
    """The `raise` statements of `statements` and of the `if` / `else` blocks nested in them (not of a function)."""
    out = []
    for statement in statements:
        if isinstance(statement, ast.Raise):
            out.append(statement)
        elif isinstance(statement, ast.If):
            out.extend(_raises_in(statement.body) + _raises_in(statement.orelse))
    return out


_CPP_SOURCE = (".cpp", ".cc", ".cxx", ".c")


def _cpp_sources_only(ctx, call, helper) -> bool:
    """A call of a project CUDA build helper handed C++ sources only (`make_cuda_ext(name='compiling_info',
    module='mmdet.ops.utils', sources=['src/compiling_info.cpp'])`, no `sources_cuda` beside): the helper makes it a
    CUDAExtension on a CUDA host, but no CUDA kernel stands behind it and without CUDA it is a CppExtension of the same
    files (label note 48b b-3). Not where the helper's own body names a CUDA source or a pattern that may find one
    (`glob(...)`, a `.cu` string): what it compiles is not all in the call."""
    names = [n.value for n in walk_nodes(call) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    sources = [v for v in names if v.strip().endswith(_CPP_SOURCE + _CUDA_SUFFIXES)]
    if not sources or any(v.strip().endswith(_CUDA_SUFFIXES) for v in sources):
        return False
    body = ctx.segment(helper) or ""
    return "glob" not in body and not any(suffix + "'" in body or suffix + '"' in body for suffix in _CUDA_SUFFIXES)


def _handed_to_a_call(ctx, statement) -> bool:
    """`SDK_HOME = CUDA_HOME if not IS_HIP_EXTENSION else ROCM_HOME` then `kernel.update_sdk_home(...SDK_HOME...)`
    (microsoft/tutel jit_compiler.py) in a file that builds no extension: the CUDA toolkit path is bound to a name
    whose every use is an argument of a call (the SDK handed to a run-time JIT / compiler helper), no test of it:
    no build line and no check (label ruling (L17), (bb); the port replaces the helper, like a flag-picking
    probe of (L14))."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    uses = [n for n in ctx.nodes.get(ast.Name, ()) if n.id == name and isinstance(n.ctx, ast.Load)]
    if not uses:
        return False
    for use in uses:
        child, parent = use, ctx.parent(use)
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Call) and child is not parent.func:
                break  # an argument (or part of one) of a call
            if isinstance(parent, (ast.Compare, ast.BoolOp, ast.IfExp)) or (
                    isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
                return False  # tested
            child, parent = parent, ctx.parent(parent)
        else:
            return False  # used as a value of its own (returned, assigned, tested by an `if`)
    return True


def _cuda_path_test(test, switches) -> bool:
    """An `if` test a JIT helper's CUDA path takes: its CUDA switch parameter asked true (`if cuda:`, `if cuda is True
    and arch is None:`; not negated) or a source's CUDA suffix (`if ".cu" in s or ".cu.cc" in s:`)."""
    if isinstance(test, ast.BoolOp):
        return any(_cuda_path_test(value, switches) for value in test.values)
    if isinstance(test, ast.Name):
        return test.id in switches
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Is, ast.Eq)) and isinstance(left, ast.Name) and left.id in switches:
            return _is_true(right)
        if isinstance(op, ast.In) and isinstance(left, ast.Constant) and isinstance(left.value, str):
            return left.value in (".cu", ".cu.cc")
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "endswith" and test.args:
        return isinstance(test.args[0], ast.Constant) and test.args[0].value in (".cu", ".cu.cc")
    return False


def _is_true(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _given(node) -> bool:
    return node is not None and not (isinstance(node, ast.Constant) and node.value is None)


def _mentions_cuda_source(node) -> bool:
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.strip().endswith(_CUDA_SUFFIXES):
            return True
    return False



def _scope_lists_cuda(ctx, call) -> bool:
    """`load(name, source, ...)` whose source list is a variable, in a function (or module) that lists `.cu` sources
    (maskrcnn-benchmark layers/_utils.py: `source_cuda = glob.glob(os.path.join(this_dir, "cuda", "*.cu"))` ...
    `source.extend(source_cuda)` ... `return load_ext("torchvision", source, ...)`): the build compiles CUDA."""
    scope = enclosing_scope(ctx, call) or ctx.tree
    return any(_mentions_cuda_source(node) for node in walk_nodes(scope)
               if isinstance(node, ast.Constant) and node is not call)


def _stops_without_cuda(ctx, node) -> bool:
    """`if not torch.cuda.is_available(): raise Exception("CPU version is not implemented")` (1ytic/warp-rnnt
    pytorch_binding/setup.py): the build after it runs only with CUDA, like after an assert."""
    if not (isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
            and _asks_cuda(ctx, node.test.operand) and not node.orelse):
        return False
    if any(isinstance(b, ast.Raise) for b in node.body):
        return True
    # `if not cuda_toolkit_available(): return []`: the build after it is skipped without nvcc (migrate/tool_presence_probes.py)
    return tool_presence_probes.asks_for(ctx, node.test.operand, "nvcc") and all(isinstance(b, ast.Return) for b in node.body)

# a CUDA setting defined on a cmake command line (`-DCMAKE_CUDA_ARCHITECTURES=80`, `-DCMAKE_CUDA_COMPILER=...nvcc`)
_CMAKE_CUDA_DEFINE = re.compile(r"^\s*-DCMAKE_CUDA_(?:ARCHITECTURES|COMPILER|FLAGS|STANDARD)\b")
# a shell script's `cmake` command handing the build the CUDA toolkit's or cuDNN's location
# (`cmake -DDECOUPLEQ_CUDA_HOME=/usr/local/cuda -DDECOUPLEQ_CUDNN_HOME=/usr/local/cuda ..`, FindCUDA's
# `-DCUDA_TOOLKIT_ROOT_DIR=...`, FindCUDAToolkit's `-DCUDAToolkit_ROOT=...`): CUDA_HOME in a build (label ruling L37;
# cuDNN's, label rule 42c-5), one finding at each line holding one
_SHELL_CMAKE = re.compile(r"(?:^|[\s;&|(])cmake\s")
_CMAKE_HOME_DEFINE = re.compile(r"(?:^|\s)(-D(?:\w*(?:CUDA|CUDNN)_(?:HOME|PATH|ROOT|DIR)|CUDA_TOOLKIT_ROOT_DIR|CUDAToolkit_ROOT)"
                                r"(?::\w+)?=)\S")


class CudaExtension(Rule):
    """Custom CUDA extensions built with `torch.utils.cpp_extension` compile CUDA C++ with nvcc;
    nothing of that runs on an Ascend NPU. Flagged: `CUDAExtension(...)` (any alias, e.g.
    `from torch.utils.cpp_extension import CUDAExtension as CE`), and JIT builds `load(...)` /
    `load_inline(...)` that bring CUDA code: `with_cuda=True`, `cuda_sources=`, nvcc flags
    (`extra_cuda_cflags=`, unless the sources are known to be C++ only: torch gives those flags to nvcc only for a `.cu`
    source; nor the flags of a loader class that reads them from `self.X` bound straight from its constructor's
    parameter, `def __init__(self, name, sources, extra_cuda_cflags=None)` and `load(..., extra_cuda_cflags=
    self.extra_cuda_cflags)` in its `lib` property: it builds every backend, and the construction giving `.cu` sources
    or nvcc flags is the CUDA build, reported there, label note 45d d-1), or a `.cu`/`.cuh` file among the literal sources (keywords also read from a dict literal of the same function passed as `**myargs`, whose `"with_cuda": True` line is reported too). `BuildExtension` is not flagged by itself (it also builds
    plain C++ extensions, which work); a CMake configure run from Python with a CUDA setting on its command line
    (`subprocess.call([cmake, "-DCMAKE_CUDA_ARCHITECTURES=75;80;86", here])`, label rule 35d-3) is flagged at that
    string, and a shell script's `cmake` handed the CUDA toolkit's or cuDNN's home (`-DMYLIB_CUDA_HOME=/usr/local/cuda`,
    `-DCUDA_TOOLKIT_ROOT_DIR=...`; label ruling L37, 42c-5; not in a Dockerfile) at each such argument's line; a `load(..., sources=srcs)` whose list is a variable is
    not followed unless the function holding the call lists `.cu` sources itself (`source_cuda = glob(... "*.cu")`;
    `source.extend(source_cuda)`; `load("ext", source)`; a project helper imported from another module is followed
    through the variables of its call's function bound once, one step further too: `source_files = ["a.cpp", "k.cu"]`,
    `paths = [join(root, f) for f in source_files]`, `jit.load(name="m", sources=paths)`). Also flagged: `CUDAExtension` picked by reference (`ext = CUDAExtension if
    use_cuda else CppExtension`), a `.cu`/`.cuh` source string outside a flagged call in a file
    that uses cpp_extension (`glob("kernels/*.cu")`; not one shipped as data: `package_data=` /
    `data_files=` of `setup(...)` copy files into the wheel and build nothing; nor the header a code generator is told
    to write, `output_file=".../k.cuh"` of a `slangc -target cuda` helper), an `"nvcc"` flag list (also a `dict(nvcc=[...])` keyword), nvcc itself (`"/bin/nvcc"`; not run for its version only to pick flags, `[home + "/bin/nvcc", "-V"]`; `CUDA_HOME` handed to such a probe is reported, None on a host without the toolkit, label ruling (L37), 46b-6; nor, in a file that builds nothing, `CUDA_HOME` bound to a name only passed to calls, the SDK path of a run-time JIT helper, nor the reads of an environment report, a function recording `CUDA_HOME` under its name (`env_info['CUDA_HOME'] = CUDA_HOME`, `rows.append(("CUDA_HOME", str(CUDA_HOME)))`), its tests that raise excepted (migrate/environment_reports.py; its `nvcc -V` run stays); a version requirement that raises stays, also at each raise of an `if` testing the probe's result (`if nvcc_cuda_version < Version("12.0"): raise`, a nested architecture check's raise too; a check that only warns is none), and the raise under `if CUDA_HOME is None:` in a file that builds CUDA (label ruling (L35)); a raising check in a function nothing in the file calls makes no requirement), a list of its architecture flags once
    (`["-gencode", "arch=compute_80,code=sm_80", ...]` at the list's first line, naming how many it holds; not a step
    adding to a list, `extra_cuda_cflags += ["--expt-relaxed-constexpr"]` (ruling (L29): the build's keyword is reported),
    nor flags compared with or collected in a set to filter flags read back, `f != "--expt-relaxed-constexpr"`;
    the list of an `"nvcc"` key, also through a call or `+`, is reported at the key (so are flags added to that
    list by name, `NVCC_FLAGS += ["-gencode", ...]` / `.extend([...])`: label ruling (L29)); repeated `flags.append("-gencode")` statements on one list
    name in one function at the first of them), a use of
    `cpp_extension.CUDA_HOME` (None on an Ascend host; once per statement), the lines of a
    multi-line build call a porter edits besides its first (each line holding a `.cu` source, the
    `"nvcc"` flag key, `extra_cuda_cflags=`, a read of the toolkit's home from the environment,
    `os.environ.get('CUDA_HOME', '/usr/local/cuda')`: label ruling (L37)), the `WITH_CUDA` build macro (or a `-D` macro switching a GPU path on: `-DUSE_GPU`, `-DX_ENABLE_GPU`), a call through a
    variable bound to `CUDAExtension` when its own first line carries CUDA content (`extension('m', ['k.cu'])`; a bare
    `extension(name, sources)` is reported at `extension = CUDAExtension`), and
    a project helper that forwards nvcc flags to a JIT build (`get_plugin("p", sources=srcs,
    extra_cuda_cflags=[...])`, or a helper imported from another module of the project given `sources=[...]` naming `.cu` files, or its own keyword for them, one ending in `_sources`: `get_cuda_extension(path, relative_name="ops_cuda", relative_sources=["ops.cpp", "ops_kernel.cu"])`, whose body returns `CUDAExtension(...)`; or its first argument, a literal list, when the call also switches its CUDA path on or lists a plain `.cu` file: `load_pb11(["./nms_kernel.cu.cc", "./nms.cc"], target, cwd, cuda=True)`, `.cu.cc` being TensorFlow's spelling of a CUDA unit, also called by a name the file never binds; its `cuda=True` line is reported as `with_cuda=True`; inside such a helper that compiles through classes of its own rather than cpp_extension, each class construction and `raise` in the branches its CUDA path takes, `if cuda:` / `if cuda is True and arch is None:` / `if ".cu" in s:`, is a build line (`Nvcc(s, out(s), arch)`, a CUDA link step; not the `else` branch, asserts or plain function calls; label ruling (L96)); in the classes of such a build tool, a method handing `compiler="nvcc"` to a call or naming CUDA toolkit libraries in a list (`["cublas", "cudart"]`) is a compile / link step: those lines, the toolkit's home bound there from a call (`cuda_home = find_cuda()`) and its raises are build lines, not the class definitions, migrate/nvcc_command_classes.py), and `torch.ops.load_library(...)` (not where the library's known file name, through local names bound once to literals, is another backend's build: `_mps` / `_metal` / `_cpu`, a macOS `.dylib`) or TensorFlow's `tf.load_op_library(...)` (a warning: the library may or may not hold CUDA kernels; each call of an op of the library `tf.load_op_library` returned, too). A project helper handed the calling module's own CUDA file, its path computed from `__file__` (`custom_ops.get_plugin(os.path.splitext(__file__)[0] + '.cu')`: StyleGAN2's TensorFlow ops, whose helper runs nvcc on it and loads the plugin), is a JIT build of it; where a function of the file returns such a build (`def _get_plugin(): return custom_ops.get_plugin(...)`), an op read off its result inside a function is a use of the extension: the call `_get_plugin().up_fir_dn2d(...)`, the binding `cuda_kernel = _get_plugin().fused_bias_act` (reading it runs the build, label ruling (L52)) and the calls through that name in the function (label rulings (L31), (L57)).
    A top-level function of a setup.py that nothing in the file calls or names (mmdet's `make_cuda_ext` kept beside
    `ext_modules=[]`) builds nothing: no line inside it is reported (label rule 32c-2); nor is the `else:` of a test that
    an early return above in the same function settles (`if not (FORCE_CUDA or cuda) or CUDA_HOME is None: return []`,
    then `if (FORCE_CUDA or cuda) and CUDA_HOME is not None: ... else: if CUDA_HOME is None: raise ...`, the negated
    question: migrate/unreachable_else.py, label note 49b b-3), and an `"nvcc"` key given an empty
    list (`else: args["nvcc"] = []`, the branch without CUDA) holds no flag unless the file adds to an nvcc list.
    Each call of a project build helper of the file (`make_cuda_ext(name=..., module=..., sources_cuda=[...])`, a
    function whose body builds a CUDA extension named from its parameters) is a build call, with its `.cu` lines
    (not one handed C++ sources only, `make_cuda_ext(name='compiling_info', ..., sources=['src/compiling_info.cpp'])`,
    where the helper's body names no CUDA source and globs none: no CUDA kernel stands behind it, label note 48b b-3);
    so is a call of a function of the project given a string of CUDA C kernel source (`__global__` with
    blockIdx/threadIdx: `JitCompiler.generate_kernel({...}, <CUDA C>)`, compiled at run time by the project's own
    NVRTC / nvcc helper; not a call of torch, cupy, pycuda, numba, triton or the standard library); so is a call of a setup helper of the file that picks `CUDAExtension` from one of its parameters (`def
    install(use_cuda): extension = CUDAExtension if use_cuda else CppExtension ...`) given the literal that picks it
    (`install(use_cuda=True)`; not `install(use_cuda=False)`).
    So is one given no sources (`Extension("natten.libnatten", [])`) in a file whose own `build_ext` subclass runs
    `cmake` with a CUDA definition on the command line it assembles (`-DNATTEN_CUDA_ARCH_LIST=...`): the module a CUDA
    CMake project builds, reported at the call (label note 46c HALF-5, migrate/cmake_cuda_extensions.py); so is, after
    the scan, a call of a project `CMakeExtension` class (an `Extension` subclass handing its base no sources, in a
    file that runs cmake) whose CMake target compiles CUDA (`CMakeExtension("pkg.C")` for `pybind11_add_module(C
    ${SOURCES} ${CUDA_SOURCES})`: the index's link, migrate/linking.py `_cmake_extension_builds`; label ruling (L10),
    note 49c c-1), which makes a `python setup.py install` of its folder an install of a CUDA build; in a file
    that builds CUDA, a check that stops the build when torch is no CUDA build (`assert torch.version.cuda is not
    None`, `assert CUDA_VERSION >= [12, 0]` over a name bound from it, and the `raise` directly under `if
    torch.version.cuda is None:`, or a `sys.exit(1)` there) is a toolkit requirement that raises, reported (rulings
    (L14), (L35); migrate/torch_cuda_requirements.py), not a test that only picks flags; so are, outside any function,
    the toolkit's home read into a name (`cuda_path = os.environ.get("CUDA_PATH")`) and the raise directly under a
    test that it is unset (`if cuda_path is None: raise ...`, rulings (L37), (L66), (L35)).
    A setuptools / distutils `Extension(name, sources)` whose sources name a `.cu` file is a CUDA build too (a
    custom build_ext compiles it with nvcc: tf-faster-rcnn's NMS): its call, `.cu` lines (also those of a module-level
    variable its `sources=` reads, `sources = [... for f in ['front.cpp', 'back.cu']]`) and `'nvcc'` key; in a file
    building CUDA, a module-level call of its function that looks for nvcc and raises without it (`CUDA =
    locate_cuda()`) is the build's gate, and inside that function its tests and reads of the toolkit's home variable
    (`'CUDAHOME' in os.environ`, `os.environ['CUDAHOME']`) and its raises when nvcc or a toolkit folder is missing are
    reported, with the call that hands the located nvcc to the compiler (`self.set_executable('compiler_so',
    CUDA['nvcc'])`; label ruling (L66)).
    torch < 1.0's cffi builder `torch.utils.ffi.create_extension(..., with_cuda=...)` is a CUDA build unless
    `with_cuda=False`: its `with_cuda=` line (the call's first line only where that keyword is on it or absent, not
    `create_extension(` above a `with_cuda=` line of its own: label note 46b-4), the `WITH_CUDA` macro and the
    nvcc-compiled objects it links (`'src/k.cu.o'`), not the `with_cuda = True` switch it reads (flag-building, label
    ruling (L70)); so is an `nvcc` command in
    a shell launcher (`make.sh` compiling the `.cu` files such a build links), not in a Makefile (label ruling (L19):
    a Makefile's side build and the sources only it builds are no porting work). The CUDA gate of a reported
    build is one too: an `if torch.cuda.is_available():` (alone or in an `and`; not negated, not in an `or` with
    anything but another CUDA question such as `"CUDA_HOME" in os.environ`; a negated one by its `else`) holding a
    reported build line or setting a flag (`enable_gpu = True`) that an `if enable_gpu:` around one tests (also a presence probe of
    nvcc for the question, a function of the file that runs `["nvcc"]` bare in a `try:` returning True and False in
    its `except FileNotFoundError:`, `if not cuda_toolkit_available(): return []` before the build; the probe's bare
    run builds nothing and is not reported, label rule 48c c-1, migrate/tool_presence_probes.py), or an `assert torch.cuda.is_available()` before one in its function or
    module (False on an Ascend host: the CUDA build is skipped there without a word); a `raise` written directly in
    that gate's other branch (`else: raise NotImplementedError('Cuda is not available')`), an `if CUDA_HOME is
    None: raise ...` there and the raises of such an `if` whose every branch raises (`else: if CUDA_HOME is None: raise
    ... else: raise ...`, Mask2Former's ops/setup.py) are reported too: the build stops at them on an Ascend host (label ruling (L35)). The
    branch a ROCm build takes (`elif torch.version.hip is not None: extension = CUDAExtension; {"hipcc": [...]}`,
    `if IS_HIP_EXTENSION:`, the `else` of detectron2's `if not is_rocm_pytorch:` where the name is bound once to such a
    test) is torch's HIP build, named for another accelerator (ruling (L15)): not reported. A `.cu` source list
    outside the call is also read in a file that builds through a project helper (a variable passed as
    `sources=`). Inside a project function that other modules call as such a helper (`get_plugin(module_name, sources, **build_kwargs)`), its own `cpp_extension.load(...)` calls and the `importlib.import_module(module_name)` of the module just built are build lines too (found in the cross-file step). A module-level name bound to a function of the file that returns a reported JIT build (`_C = _load_C_extensions()`) is the compiled module: reported at the assignment. A JIT build of C++ sources only that takes CUDA's headers (`cpp_extension.include_paths("cuda")`) or links torch's CUDA libraries by name (`["c10_cuda", "torch_cuda"]`, `-lcudart`), in its function or a function of the file that function calls, is a CUDA build too: reported at those lines, not at the `load(...)` call (label ruling 24b-8); its module is the repository's extension for NPU508. A build chain that also picks the NPU is NPU-aware (label ruling (L20)):
    `if CUDA_HOME is not None: <CUDAExtension ...> elif BUILD_NPU: ...`, where `CUDA_HOME` names CUDA and `BUILD_NPU` is a
    module-level flag bound to an NPU availability probe (`torch_npu.npu.is_available()` in a `try: import torch_npu`,
    `is_torch_npu_available()`, `find_spec("torch_npu") is not None`), and a branch under `not BUILD_NPU`: its CUDA
    branches are not reported (migrate/npu_aware.py). A build file one of whose `if` / `elif` branches tests the NPU (a
    device test, or an environment switch with `NPU` as a word: `elif os.getenv("FORCE_NPU", "0") == "1":`) and builds
    with torch_npu's extension class (`from torch_npu.utils.cpp_extension import NpuExtension`) is a per-device build: none of
    its NPU505 lines are reported (every branch of the chain, another framework's build of the same extension too), nor
    NPU506 of the CUDA files only such files build, nor NPU508 uses of the extensions they define (label rulings (L20),
    (L56); 46a rule notes a-2, a-5; migrate/npu_build_branch.py). Nor is a run-time CUDA build taken only for CUDA
    tensors with plain PyTorch on other devices (StyleGAN's `torch_utils/ops`: a private builder `_init()` holding the JIT
    build, called only as `if impl == 'cuda' and x.device.type == 'cuda' and _init():` (or inside `if x.is_cuda:`), the
    `if` followed by the reference path; the names it binds, `_plugin`, read only on that gated path or in private
    functions only it calls): its build lines, the project helper it alone calls (`custom_ops.get_plugin`), NPU506 of
    the CUDA files only such builders build and NPU508 uses of the plugin are not reported (label ruling (L103), as
    45e-2/(L90); migrate/device_gated_builds.py). A builder reached otherwise (a public name, an ungated call, the build
    before the device test, `or`) or a gated `if` with nothing after it stays reported. The kernels must be reimplemented as Ascend C operators registered with
    torch_npu (or replaced with existing torch / torch_npu ops); there is no automatic rewrite."""

    CODE = "NPU505"
    NAME = "cuda-extension"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    MESSAGE = (
        "a custom CUDA extension cannot be built or run on an Ascend NPU; reimplement the kernels "
        "as Ascend C operators registered with torch_npu, or use existing torch / torch_npu ops"
    )
    KINDS = ("python", "launcher")
    TRIGGERS = ("-DCMAKE_CUDA_", "cpp_extension", "CUDAExtension", "__global__", "load_library", "load_op_library", "extra_cuda_cflags", "create_extension", "nvcc",
                "Extension(", ".cu\"", ".cu'", ".cu.cc\"", ".cu.cc'", "cmake")
    VALID = [
        # a Cython-only setup.py whose toolkit locator nothing calls: nothing raises, nothing reported
        Valid("import os\nfrom distutils.core import setup\nfrom distutils.extension import Extension\n"
              "def locate_cuda():\n    nvcc = find_in_path('nvcc', os.environ['PATH'])\n    if nvcc is None:\n"
              "        raise EnvironmentError('nvcc not found')\n    return nvcc\n"
              "setup(ext_modules=[Extension('bbox', ['bbox.pyx'])])\n"),
        # a CppExtension of C++ sources only is a CPU build (with a `.cu` source it is not: INVALID)
        Valid("from torch.utils.cpp_extension import CppExtension\next = CppExtension('m', ['m.cpp', 'ops.cpp'])"),
        # a build file asking whether its flag dict has an nvcc key runs nothing (47b setup.py:102)
        Valid("from torch.utils.cpp_extension import CppExtension\nargs = {}\nif 'nvcc' not in args:\n    print(args)\n"),
        # a sourceless extension whose build_ext runs a CMake project told nothing about CUDA (a CPU build), and a
        # `torch.version.cuda` check in a file that builds nothing (migrate/cmake_cuda_extensions.py,
        # migrate/torch_cuda_requirements.py)
        Valid("import subprocess\nfrom setuptools import Extension, setup\nfrom setuptools.command.build_ext import build_ext\n"
              "class CMakeBuild(build_ext):\n    def build_extension(self, ext):\n"
              "        subprocess.check_call(['cmake', 'csrc', '-DCMAKE_BUILD_TYPE=Release'])\n"
              "setup(name='pkg', ext_modules=[Extension('pkg.lib', [])], cmdclass={'build_ext': CMakeBuild})\n",
              filename="setup.py"),
        Valid("import torch\nassert torch.version.cuda is not None\nprint(torch.version.cuda)\n", filename="setup.py"),
        # a build that picks the device through torch's toolkit roots and a flag bound to an NPU probe: the CUDA
        # branch of that chain is the CUDA side of an NPU-aware choice (label ruling (L20), migrate/npu_aware.py)
        Valid("import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"
              "try:\n    import torch_npu\n    BUILD_NPU = torch_npu.npu.is_available()\nexcept ImportError:\n    BUILD_NPU = False\n"
              "if CUDA_HOME is not None:\n    exts = [CUDAExtension('fastops', ['csrc/ops.cu'], extra_compile_args={'nvcc': ['-O3']})]\n"
              "elif BUILD_NPU:\n    exts = []\nelse:\n    raise ValueError('no accelerator')\n"
              "setup(name='pkg', ext_modules=exts)\n", filename="setup.py"),
        # an mmdet-style build helper kept in a setup.py that builds nothing (`ext_modules=[]`; label rule 32c-2): its
        # gate, macro, `CUDAExtension` pick and nvcc list never run
        Valid("import os\nimport torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
              "def make_cuda_ext(name, module, sources, sources_cuda=[]):\n    macros, args = [], {'cxx': []}\n"
              "    if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n"
              "        macros += [('WITH_CUDA', None)]\n        extension = CUDAExtension\n"
              "        args['nvcc'] = ['-D__CUDA_NO_HALF_OPERATORS__']\n        sources += sources_cuda\n"
              "    else:\n        extension = CppExtension\n"
              "    return extension(name=f'{module}.{name}', sources=sources, define_macros=macros, extra_compile_args=args)\n"
              "setup(name='det', ext_modules=[])\n", filename="setup.py"),
        # a raising check in a helper nothing calls decides nothing: the probe only picks flags (label ruling (L14))
        Valid("import subprocess\nfrom torch.utils.cpp_extension import CppExtension, CUDA_HOME\n"
              "def cuda_version(cuda_dir):\n    return subprocess.check_output([cuda_dir + '/bin/nvcc', '-V']).split()\n"
              "def check_binary_vs_bare_metal(cuda_dir):\n    major = cuda_version(cuda_dir)[0]\n"
              "    if major != '11':\n        raise RuntimeError('mismatch')\n"
              "def threads(args):\n    major = cuda_version(CUDA_HOME)[0]\n    return args + ['--threads', '4'] if major >= '11' else args\n",
              filename="setup.py"),
        # an environment report records CUDA_HOME under its name and only picks what else to show: no build, no check
        Valid("import os.path as osp\nimport torch\n\ndef collect_env():\n    info = {}\n"
              "    if torch.cuda.is_available():\n        from torch.utils.cpp_extension import CUDA_HOME\n"
              "        info['CUDA_HOME'] = CUDA_HOME\n        if CUDA_HOME is not None and osp.isdir(CUDA_HOME):\n"
              "            nvcc = osp.join(CUDA_HOME, 'bin/nvcc')\n            info['NVCC'] = nvcc\n    return info\n"),
        Valid("from torch.utils.cpp_extension import CUDA_HOME\n\ndef table(rows):\n"
              "    rows.append(('CUDA_HOME', str(CUDA_HOME)))\n    return rows\n"),
        # a helper returning CUDA_HOME whose only call feeds the report (mmcv's collect_env as vendored by
        # HunyuanVideo, labeller note 70e; label ruling (L107))
        Valid("import torch\n\ndef _get_cuda_home():\n    from torch.utils.cpp_extension import CUDA_HOME\n"
              "    return CUDA_HOME\n\ndef collect_env():\n    info = {}\n    if torch.cuda.is_available():\n"
              "        CUDA_HOME = _get_cuda_home()\n        info['CUDA_HOME'] = CUDA_HOME\n    return info\n"),
        Valid("import warnings\nfrom torch.utils.cpp_extension import CppExtension, CUDA_HOME\n"
              "def check_if_cuda_home_none(option):\n    if CUDA_HOME is not None:\n        return\n"
              "    warnings.warn(f'{option} was requested, but nvcc was not found')\n"
              "ext = CppExtension('m', ['m.cpp'])\n", filename="setup.py"),
        "from torch.utils.cpp_extension import CppExtension, BuildExtension\next = CppExtension('m', ['m.cpp'])",
        # pytorch/torchchat torchchat/utils/quantize.py:992-994: a local name bound to an Apple Metal (.dylib) library
        "import torch\ndef load(build):\n    libname = 'libtorchao_ops_mps_aten.dylib'\n"
        "    libpath = f'{build}/cmake-out/lib/{libname}'\n    torch.ops.load_library(libpath)\n"
        "torch.ops.load_library('build/libmy_ops_cpu.so')",
        "from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp'])",
        "from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp'], with_cuda=False)",
        "from torch.utils.cpp_extension import load\nm = load(name='m', sources=srcs, extra_cuda_cflags=None)",
        # nvcc flags given to a build whose sources are C++ only (MVIG-SJTU/AlphaPose c60106d YOLOX jit_ops.py, set 22):
        # torch passes `extra_cuda_cflags` to nvcc only for a .cu source
        "from torch.utils.cpp_extension import load\nm = load(name='m', sources=['a.cpp', 'b.cpp'], extra_cuda_cflags=['-O3'])",
        "import glob\nfrom torch.utils.cpp_extension import load\nclass JitOp:\n    def sources(self):\n        pass\n"
        "    def jit_load(self):\n        return load(name='m', sources=self.sources(),\n            extra_cuda_cflags=self.nvcc_args())\n"
        "class CocoOp(JitOp):\n    def sources(self):\n        return glob.glob('cocoeval/*.cpp')",
        "class CUDAExtension: pass\nx = CUDAExtension()",  # not torch's
        # a loader class for every backend whose build takes its sources and nvcc flags from its constructor (label note
        # 45d d-1): the construction giving `.cu` sources / nvcc flags is the CUDA build, not the class's `load(`
        "from torch.utils.cpp_extension import load\nclass Extension:\n"
        "    def __init__(self, name, sources, extra_cuda_cflags=None):\n        self.name = name\n"
        "        self.sources = sources\n        self.extra_cuda_cflags = extra_cuda_cflags\n    @property\n"
        "    def lib(self):\n        return load(name=self.name, sources=self.sources,\n"
        "                    extra_cuda_cflags=self.extra_cuda_cflags)\n",
        # a step building the list the build's `extra_cuda_cflags=` keyword takes (ruling (L29)), and flags compared with
        # or looked up in a set to filter flags read back from a build file: no flag list of their own
        "import torch.utils.cpp_extension as jit\ndef params(flags):\n    flags += ['--expt-relaxed-constexpr']\n"
        "    ignored = {'--expt-relaxed-constexpr', '-DX'}\n    return [f for f in flags if f not in ignored and f != '--expt-extended-lambda']",
        # a JIT build of C++ sources whose function links only the CPU libraries
        "import torch.utils.cpp_extension as jit\ndef build():\n    return jit.load(name='m', sources=['m.cpp'], extra_include_paths=jit.include_paths('cpu'))",
        "from setuptools import Extension\next = Extension('m', ['m.c', 'k.pyx'], extra_compile_args=['-O2'])",  # plain C/Cython
        "import glob\nfrom torch.utils.cpp_extension import load\ndef build(d):\n    source = glob.glob(d + '/*.cpp')\n    return load('ops', source)",
        "plugin = get_plugin('p', sources=srcs, extra_cflags=['-O3'])",  # a C++-only build
        "from .src.cuda_init import load\nmod = load(name='m', sources=['m.cc'])",  # a C++-only build through a helper
        "def load(name, sources):\n    return name\nmod = load(name='m', sources=['m.cu'])",  # not a build: read with its body
        "from torch.utils.ffi import create_extension\nffi = create_extension('_ext.m', headers=h, sources=['m.c'], with_cuda=False)",
        Valid('echo "Compiling kernels by nvcc..."\n# nvcc -c k.cu\npython build.py\n', kind="launcher", filename="make.sh"),
        Valid("RUN cmake -DCUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda .. && make -j\n", kind="launcher", filename="Dockerfile"),
        Valid("cmake -DCMAKE_BUILD_TYPE=Release -DTORCH_HOME=$TORCH ..\n", kind="launcher", filename="build.sh"),
        # a Makefile building a developer's test program with nvcc (label ruling (L19): no porting work)
        Valid("NVCC = nvcc\nSRC = test_norm.cu\nall: test_norm\ntest_norm: $(SRC)\n\t$(NVCC) -arch=sm_86 $< -o $@\n",
              kind="launcher", filename="Makefile"),
        "from torch.utils.cpp_extension import CppExtension\nargs = dict(cxx=['-O3'], nvcc_threads=4)",  # no nvcc flag list
        # CUDA C source reshaped by the standard library, and a `__global__` text without a kernel body
        "import textwrap\nsrc = textwrap.dedent('extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 0; }')\n"
        "print('__global__ functions are CUDA kernels')",
        # microsoft/tutel jit_compiler.py: the toolkit path only handed to a run-time JIT helper ((L17)); the file builds nothing
        "import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME, IS_HIP_EXTENSION\nimport kernel\n"
        "SDK_HOME = CUDA_HOME if not IS_HIP_EXTENSION else ROCM_HOME\n"
        "kernel.update_sdk_home(torch.tensor([ord(x) for x in SDK_HOME] + [0], dtype=torch.int8))",

        # a vendored copy of torch/utils/cpp_extension.py (Sense-GVT/Fast-BEV mmcv_custom/cpp_extension.py, label note
        # 72b): the build helpers themselves, whose nvcc lines run only for the builds a project asks for
        # (migrate/build_helper_modules.py)
        Valid(build_helper_modules.EXAMPLE +
              "def _jit_compile(name, sources, extra_cuda_cflags, with_cuda):\n"
              "    _write_ninja_file_and_build_library(name=name, sources=sources,\n"
              "        extra_cuda_cflags=extra_cuda_cflags or [], with_cuda=with_cuda)\n"
              "def _is_cuda_file(path):\n    return os.path.splitext(path)[1] in ['.cu', '.cuh']\n",
              filename="mmcv_custom/cpp_extension.py"),
        # chamferdist setup.py: the kernel sources shipped in the wheel as data (the build is elsewhere)
        "from torch.utils.cpp_extension import BuildExtension\nsetup(name='m', package_data={'m': ['*.cu', '*.cuh']},\n"
        "      data_files=[('src', ['k.cu'])], cmdclass={'build_ext': BuildExtension})",
    ]
    INVALID = [
        # detectron2-style helper: an early return when CUDA is out, then the same question negated; its `else:` never
        # runs, so the raising CUDA_HOME check there is no finding (migrate/unreachable_else.py, label note 49b b-3):
        # the gate (8), the CUDA gate (12), the CUDAExtension pick (13) and the .cu sources (14)
        Invalid('import os\nimport torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n\n\ndef get_extensions():\n    if not (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) or CUDA_HOME is None:\n        return []\n    sources = ["src/op.cpp"]\n    extension = CppExtension\n    if (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) and CUDA_HOME is not None:\n        extension = CUDAExtension\n        sources += ["src/op_cuda.cu"]\n    else:\n        if CUDA_HOME is None:\n            raise NotImplementedError("CUDA_HOME is None. Please set CUDA_HOME.")\n        raise NotImplementedError("No CUDA runtime is found.")\n    return [extension("op_ext", sources)]\n\n\nsetup(name="op", ext_modules=get_extensions())\n', filename="setup.py", count=4),
        # a presence probe of nvcc (migrate/tool_presence_probes.py, label rule 48c c-1): its bare run compiles nothing,
        # the `if not ...: return []` before the build is the build's CUDA gate; with the CUDAExtension call, 2 lines
        Invalid("from subprocess import DEVNULL, call\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "def toolkit_available():\n    try:\n        call(['nvcc'], stdout=DEVNULL, stderr=DEVNULL)\n"
                "        return True\n    except FileNotFoundError:\n        return False\n"
                "def ext_modules():\n    if not toolkit_available():\n        return []\n"
                "    return [CUDAExtension('pkg_cuda', sources=['pkg/k.cpp'])]\n"
                "setup(name='pkg', ext_modules=ext_modules())\n", count=2, filename="setup.py"),
        # a build tool's own step classes (ruling (L96), migrate/nvcc_command_classes.py): the nvcc compile step's raise,
        # toolkit locator and `compiler="nvcc"`, the link step's CUDA library list; not the fallback `cuda_home = None`
        # nor the base class compiling with g++
        Invalid("class Gpp:\n    def __init__(self, sources, target, compiler='g++'):\n        self.compiler = compiler\n"
                "class Nvcc(Gpp):\n    def __init__(self, sources, target, arch=None):\n        if arch is None:\n"
                "            raise ValueError('arch needed')\n        try:\n            cuda_home = find_cuda()\n"
                "        except Exception:\n            cuda_home = None\n"
                "        super().__init__(sources, target, compiler='nvcc')\n"
                "class CudaLink(Gpp):\n    def __init__(self, sources, target):\n"
                "        self.libraries = {'/opt/cuda/lib64': ['cublas', 'cudart']}\n"
                "        super().__init__(sources, target)\n", count=4),
        # SHI-Labs/NATTEN-style setup.py (46c HALF-5, rulings (L14)/(L35)): the sourceless extension a custom build_ext
        # hands to a CUDA CMake project, the two asserts on torch's CUDA version and the raise when it is None; the
        # flag-only test (no raise) is none
        Invalid("import subprocess\nimport torch\nfrom setuptools import Extension, setup\n"
                "from setuptools.command.build_ext import build_ext\n"
                "assert torch.version.cuda is not None\nparts = torch.version.cuda.split('.')[:2]\n"
                "CUDA_VERSION = [int(x) for x in parts]\nassert CUDA_VERSION >= [12, 0], 'CUDA 12.0 and above'\n"
                "if CUDA_VERSION >= [12, 0] and IS_WINDOWS:\n    print('cmake may fail on Windows')\n"
                "def get_version():\n    if torch.version.cuda is None:\n        raise ValueError('needs CUDA torch')\n"
                "    return '1.0'\n"
                "class BuildExtension(build_ext):\n    def build_extension(self, ext):\n"
                "        args = [f'-DMYLIB_CUDA_ARCH_LIST={ARCHS}', '-DCMAKE_BUILD_TYPE=Release']\n"
                "        subprocess.check_call(['cmake', 'csrc'] + args)\n"
                "setup(name='mylib', version=get_version(), ext_modules=[Extension('mylib.libmylib', [])],\n"
                "      cmdclass={'build_ext': BuildExtension})\n", filename="setup.py", count=4),
        # AutoGPTQ's setup.py (set 57): `sys.exit(1)` under a test of a name bound from torch.version.cuda stops the build
        # as a raise does; on Windows, CUDA_PATH read into a name and a raise when it is unset (the module-level form of a
        # toolkit locator, rulings (L37)/(L66)/(L35)): the read and the raise, not the test; a home read with no
        # raise after it (`home = os.environ.get('CUDA_HOME')` only printed) is none; with the extension's call: 4
        Invalid("import os, sys\nimport torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "CUDA_VERSION = ''.join(os.environ.get('CUDA_VERSION', torch.version.cuda).split('.'))\n"
                "if not CUDA_VERSION:\n    print('PyTorch has no CUDA')\n    sys.exit(1)\n"
                "if os.name == 'nt':\n    cuda_path = os.environ.get('CUDA_PATH', None)\n    if cuda_path is None:\n"
                "        raise ValueError('set CUDA_PATH')\n    link = ['-L', f'{cuda_path}/lib/x64/cublas.lib']\n"
                "home = os.environ.get('CUDA_HOME')\nprint(home)\n"
                "setup(ext_modules=[CUDAExtension('m', ['k.cpp'], extra_link_args=link)])\n", filename="setup.py", count=4),
        # a setup.py configuring a CMake build of a vendored CUDA library from Python: the architectures nvcc builds
        # for, set on the command line, is the build's CUDA setting (label rule 35d-3); the cmake path and the source
        # folder are not
        Invalid("import shutil, subprocess, sys\nHERE = '.'\ndef configure():\n    cmake = shutil.which('cmake')\n"
                "    code = subprocess.call([\n        cmake,\n        '-DCMAKE_CUDA_ARCHITECTURES=75;80;86',\n        HERE\n    ])\n"
                "    if code != 0:\n        sys.exit(1)\nconfigure()\n", filename="setup.py", count=1),
        # GroundingDINO-style setup.py: the branch without CUDA empties the nvcc list (no flag, label rule 32d-9); the
        # CUDA branch's pick, macro and flag list are the lines
        Invalid("import torch\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\ndef get_extensions():\n"
                "    extension, macros, args = CppExtension, [], {'cxx': []}\n    if torch.cuda.is_available():\n"
                "        extension = CUDAExtension\n        macros += [('WITH_CUDA', None)]\n        args['nvcc'] = ['-O3']\n"
                "    else:\n        args['nvcc'] = []\n        return None\n"
                "    return [extension('pkg._C', ['a.cpp'], define_macros=macros, extra_compile_args=args)]\n"
                "ext_modules = get_extensions()\n", filename="setup.py", count=4),
        # InternImage ops_dcnv3 setup.py (mmpretrain projects/): the CUDA branch writes the key with every flag commented
        # out: still the first write of the nvcc key (label ruling (L100)), beside the pick, the macro and the raise
        Invalid("import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
                "def get_extensions():\n    extension, macros, args = CppExtension, [], {'cxx': []}\n"
                "    if torch.cuda.is_available() and CUDA_HOME is not None:\n        extension = CUDAExtension\n"
                "        macros += [('WITH_CUDA', None)]\n        args['nvcc'] = [\n            # '-DCUDA_HAS_FP16=1',\n"
                "        ]\n    else:\n        raise NotImplementedError('Cuda is not available')\n"
                "    return [extension('DCNv3', ['a.cpp'], define_macros=macros, extra_compile_args=args)]\n"
                "setup(\n    name='DCNv3',\n    ext_modules=get_extensions(),\n)\n", filename="setup.py", count=5),
        # Mask2Former / MinVIS ops/setup.py: the gate's else has no CPU build, `if CUDA_HOME is None: raise ... else:
        # raise ...`: the CUDA_HOME test and both raises (label ruling (L35), set 55c); an else that goes on is no stop
        Invalid("import os\nimport torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
                "def get_extensions():\n    extension, sources = CppExtension, ['a.cpp']\n"
                "    if (os.environ.get('FORCE_CUDA') or torch.cuda.is_available()) and CUDA_HOME is not None:\n"
                "        extension = CUDAExtension\n        sources += ['a.cu']\n    else:\n        if CUDA_HOME is None:\n"
                "            raise NotImplementedError('CUDA_HOME is None.')\n        else:\n"
                "            raise NotImplementedError('No CUDA runtime is found.')\n"
                "    return [extension('op', sources)]\n"
                "setup(name='op', ext_modules=get_extensions())\n", filename="setup.py", count=6),
        # FCOS fcos_core/layers/_utils.py: the module-level binding of a function returning the JIT build
        Invalid("import glob\nfrom torch.utils.cpp_extension import load as load_ext\ndef _load_C_extensions():\n"
                "    source = glob.glob('csrc/*.cpp') + glob.glob('csrc/cuda/*.cu')\n    return load_ext('torchvision', source)\n"
                "_C = _load_C_extensions()", count=3),
        # NX-AI/xlstm slstm/cell.py: a build helper imported from another module of the project, given `.cu` sources
        Invalid("from .src.cuda_init import load\nmod = load(\n    name=config.function,\n    sources=[\n        'slstm.cc',\n"
                "        str(curdir / 'cuda' / 'slstm_forward.cu'),\n    ],\n)", count=2),
        # NX-AI/xlstm slstm/src/cuda_init.py: the build's keywords arrive as `**myargs`, a dict literal of its function
        Invalid("from torch.utils.cpp_extension import load as _load\ndef load(*, name, sources, **kwargs):\n"
                "    myargs = {\n        'verbose': True,\n        'with_cuda': True,\n    }\n"
                "    return _load(name, sources, **myargs)", count=2),
        Invalid(  # llm-awq kernels/setup.py: the sources list on lines of its own
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension(\n    name='m',\n"
            "    sources=[\n        'pybind.cpp',\n        'gemm_cuda.cu',\n    ],\n)", count=2),
        Invalid(
            "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
            "setup(name='m', ext_modules=[CUDAExtension('m', ['m.cpp', 'k.cu'])], cmdclass={'build_ext': BuildExtension})",
            count=1,
        ),
        Invalid("import torch.utils.cpp_extension as ce\next = ce.CUDAExtension('m', sources=['m.cpp'])"),
        # sczhou/CodeFormer basicsr/setup.py (mmcv style): each call of the project helper is a build call; its `.cu`
        # line goes with it
        Invalid("from torch.utils.cpp_extension import CUDAExtension\ndef make_cuda_ext(name, module, sources, sources_cuda=None):\n"
                "    extension = CUDAExtension\n    return extension(name=f'{module}.{name}', sources=sources + (sources_cuda or []))\n"
                "exts = [\n    make_cuda_ext(\n        name='dcn_ext',\n        module='ops.dcn',\n        sources=['src/dcn.cpp'],\n"
                "        sources_cuda=['src/dcn_kernel.cu']),\n]", count=3),
        # the same helper handed C++ sources only builds no CUDA kernel (mmdet's compiling_info; label note 48b b-3)
        Invalid("from torch.utils.cpp_extension import CUDAExtension\ndef make_cuda_ext(name, module, sources, sources_cuda=None):\n"
                "    extension = CUDAExtension\n    return extension(name=f'{module}.{name}', sources=sources + (sources_cuda or []))\n"
                "exts = [\n    make_cuda_ext(name='info', module='ops.utils', sources=['src/info.cpp']),\n"
                "    make_cuda_ext(name='nms_ext', module='ops.nms', sources=['src/nms.cpp'], sources_cuda=['src/nms_kernel.cu']),\n]",
                count=2),
        # maskrcnn-benchmark layers/_utils.py: the source list is a variable the function fills with a `*.cu` glob
        Invalid("import glob\nfrom torch.utils.cpp_extension import load as load_ext\ndef build(d):\n"
                "    source = glob.glob(d + '/*.cpp')\n    source_cuda = glob.glob(d + '/cuda/*.cu')\n"
                "    source.extend(source_cuda)\n    return load_ext('ops', source)\n", count=2),
        # tf-faster-rcnn lib/setup.py (CenterNet voc_eval_lib): a distutils Extension whose `.cu` a custom build_ext
        # hands to nvcc: the call, its `.cu` line and its `'nvcc'` key; not the hook's `src_extensions.append('.cu')`
        Invalid("from distutils.extension import Extension\ndef customize(self):\n    self.src_extensions.append('.cu')\n"
                "ext = Extension('nms.gpu_nms',\n    ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],\n"
                "    extra_compile_args={'gcc': ['-O2'],\n                        'nvcc': ['-arch=sm_61']})", count=3),
        # NVlabs/cule setup.py: the `.cu` source is in a module-level list the Extension reads by name
        Invalid("import os\nfrom setuptools import setup, Extension\n"
                "sources = [os.path.join('src', f) for f in ['frontend.cpp', 'backend.cu']]\n"
                "setup(name='m', ext_modules=[Extension('m_atari',\n    sources=sources,\n"
                "    extra_compile_args={'gcc': [], 'nvcc': ['-O3']})])\n", count=3),
        # hahnyuan/TorchQuantExtension setup.py: a CppExtension with a `.cu` source: torch's BuildExtension picks nvcc per
        # source file (`_is_cuda_file`), not per class: the call and its `.cu` line (a C++-only one: VALID)
        Invalid("from torch.utils import cpp_extension\next = cpp_extension.CppExtension(\n    'quant_ext',\n"
                "    ['quant.cpp', 'quant_kernel.cu'],\n)\n", count=2),
        Invalid("from torch.utils.cpp_extension import CUDAExtension as CE\next = CE('m', ['m.cpp'])"),
        Invalid("from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp', 'kernel.cu'])"),
        Invalid("from torch.utils import cpp_extension\nm = cpp_extension.load('m', ['m.cpp'], with_cuda=True)"),
        Invalid("from torch.utils.cpp_extension import load_inline\nm = load_inline('m', cpp_sources=c, cuda_sources=k)"),
        Invalid("from torch.utils.cpp_extension import CUDAExtension, CppExtension\nExt = CUDAExtension if cuda else CppExtension", count=1),
        Invalid("import glob\nfrom torch.utils.cpp_extension import CppExtension\nsrcs = glob.glob('csrc/*.cpp') + glob.glob('csrc/cuda/*.cu')", count=1),
        Invalid("import torch\ntorch.ops.load_library('build/libmy_ops.so')", count=1),
        # a local name bound to an unknown path, or bound twice, is still a library of unknown build
        Invalid("import torch\ndef f(d):\n    name = 'libmy_ops.so'\n    path = f'{d}/{name}'\n    torch.ops.load_library(path)\n"
                "    lib = 'libx_mps.dylib'\n    lib = find()\n    torch.ops.load_library(lib)\n    torch.ops.load_library(d)", count=3),
        Invalid("from . import custom_ops\nplugin = custom_ops.get_plugin('bias_act_plugin', sources=srcs, extra_cuda_cflags=['--use_fast_math'])", count=1),
        # GPEN face_model/op/fused_act.py: the CUDA gate around a JIT build, the build itself
        Invalid("import os, platform, torch\nfrom torch.utils.cpp_extension import load\n"
                "if platform.system() == 'Linux' and torch.cuda.is_available():\n    fused = load('fused', sources=['f.cpp', 'k.cu'])\n",
                count=2),
        # KNN_CUDA / Deformable-Convolution-V2 build.py: an assert before the build in the same scope
        Invalid("import torch\nfrom torch.utils.cpp_extension import load\ndef build():\n"
                "    assert torch.cuda.is_available(), 'CUDA needed'\n    return load('e', sources=['e.cu'])\n", count=2),
        # 1ytic/warp-rnnt pytorch_binding/setup.py: a CUDA test that stops the script before the build is its gate
        Invalid("import torch\nfrom torch.utils.cpp_extension import CUDAExtension\nif not torch.cuda.is_available():\n"
                "    raise Exception('CPU version is not implemented')\next = CUDAExtension(name='m._C', sources=['core.cu'])\n",
                count=2),
        # a CUDA test that holds no build line is no gate of it (a device check: NPU203's)
        Invalid("import torch\nfrom torch.utils.cpp_extension import load\next = load('e', sources=['e.cu'])\n"
                "if torch.cuda.is_available():\n    print('ok')\n", count=1),
        # stylegan2-ada bias_act.py: the source list held in a variable, in a file that never names cpp_extension
        Invalid("from .. import custom_ops\nsources = ['bias_act.cpp', 'bias_act.cu']\n"
                "plugin = custom_ops.get_plugin('bias_act_plugin', sources=sources, extra_cuda_cflags=['--use_fast_math'])", count=2),
        Invalid("from torch.utils.cpp_extension import CUDA_HOME, CppExtension\nargs = {'cxx': []}\nargs['nvcc'] = ['-O2']", count=1),
        Invalid("from torch.utils.cpp_extension import CUDA_HOME\nif CUDA_HOME is None:\n    raise RuntimeError('set CUDA_HOME')", count=1),
        # in a file that builds CUDA the raise under that test is a line too, the build stops there (label ruling (L35);
        # mit-han-lab/omniserve kernels/setup.py)
        Invalid("from torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\nif CUDA_HOME is None:\n"
                "    raise RuntimeError('CUDA must be available to build the package.')\n"
                "ext = CUDAExtension('m', ['k.cpp', 'k.cu'])\n", count=3),
        # a report that also requires the toolkit: the raising check stays
        Invalid("from torch.utils.cpp_extension import CUDA_HOME\n\ndef collect_env():\n"
                "    if CUDA_HOME is None:\n        raise RuntimeError('no CUDA toolkit')\n"
                "    return {'CUDA_HOME': CUDA_HOME}\n", count=1),
        # Mask2Former ops/setup.py: the gate's `else` raises when the toolkit is missing (label ruling (L35): a line to
        # change); AdelaiDet setup.py: `.append` to the list the "nvcc" key made; one finding each for the gate, the
        # flag list and the `if CUDA_HOME is None:` that raises
        Invalid("import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension\nargs = {'cxx': []}\n"
                "if torch.cuda.is_available() and CUDA_HOME is not None:\n    args['nvcc'] = ['-O2']\n"
                "    args['nvcc'].append('-ccbin=gcc')\n    args['nvcc'] += ['-lineinfo']\n"
                "else:\n    if CUDA_HOME is None:\n        raise NotImplementedError('CUDA_HOME is None')\n", count=3),
        # a ROCm branch beside the CUDA one (label ruling (L15)): torch's HIP build, not CUDA; the CUDA branch's lines stay
        Invalid("import torch\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
                "if torch.cuda.is_available() and torch.version.cuda is not None:\n    extension = CUDAExtension\n"
                "elif torch.cuda.is_available() and torch.version.hip is not None:\n    extension = CUDAExtension\n"
                "    args = {'hipcc': ['-O3']}\nelse:\n    extension = CppExtension\n", count=2),
        # detectron2's setup.py: the ROCm test bound to a name, the `else` of `if not is_rocm_pytorch:` is the HIP
        # branch (its empty "nvcc" key is not CUDA's); the gate and the CUDA branch's key stay
        Invalid("import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME, CUDAExtension\n"
                "is_rocm_pytorch = True if ((torch.version.hip is not None) and (ROCM_HOME is not None)) else False\n"
                "args = {}\nif torch.cuda.is_available() and CUDA_HOME is not None:\n    extension = CUDAExtension\n"
                "    if not is_rocm_pytorch:\n        args['nvcc'] = ['-O3']\n    else:\n        args['nvcc'] = []\n",
                count=3),
        # a gate whose `else:` raises outright (the build stops there on an Ascend host, L35): the gate, the
        # extension picked, the raise; a raise under a further test of that branch is not the gate's own
        Invalid("import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\next = CppExtension\n"
                "if torch.cuda.is_available() and CUDA_HOME is not None:\n    ext = CUDAExtension\n"
                "else:\n    raise NotImplementedError('no CUDA')\n"
                "if torch.cuda.is_available():\n    ext = CUDAExtension\nelse:\n    if strict:\n        raise RuntimeError('x')\n",
                count=5),
        Invalid("from torch.utils import cpp_extension\nv = get_version(cpp_extension.CUDA_HOME)", count=1),
        # the toolkit path bound to a name that is then tested: a check, reported
        Invalid("from torch.utils.cpp_extension import CUDA_HOME\nhome = CUDA_HOME\nif home is None:\n    print(home)", count=1),
        # DirectVoxGO lib/masked_adam.py: the `.cu` names in a module-level list, joined to the folder by a comprehension
        Invalid("import os\nfrom torch.utils.cpp_extension import load\nd = os.path.dirname(__file__)\n"
                "sources = ['cuda/adam_upd.cpp', 'cuda/adam_upd_kernel.cu']\n"
                "ext = load(name='adam_upd_cuda', sources=[os.path.join(d, p) for p in sources])", count=2),
        # a JIT build of a .cu source that reads the toolkit's home from the environment for its include path: that
        # line is CUDA_HOME in a build (label ruling (L37)), beside the call, the source and the nvcc flags
        Invalid("import os\nfrom torch.utils.cpp_extension import load\nfused = load(\n    name='fused_step',\n"
                "    sources=['csrc/fused_step.cu'],\n"
                "    extra_include_paths=[os.environ.get('CUDA_HOME', '/usr/local/cuda') + '/include'],\n"
                "    extra_cuda_cflags=['-O2'],\n)\n", count=4),
        Invalid("from torch.utils import cpp_extension\ndef build(name, sources, flags):\n    return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=flags)", count=1),
        # nvcc run for its version only picks flags (rulings R2/(L14)): the flag list, not the probe; the CUDA_HOME
        # handed to it is (label ruling (L37): None without the toolkit, the build breaks there); nvcc run to compile is
        # reported; a version requirement (the probe's result decides a `raise`: EETQ setup.py) is reported as before
        Invalid("import subprocess\nfrom torch.utils.cpp_extension import CppExtension, CUDA_HOME\n"
                "def cuda_version(cuda_dir):\n    return subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'])\n"
                "out = cuda_version(CUDA_HOME)\nflags = ['-gencode', 'arch=compute_80,code=sm_80']\n"
                "subprocess.run([home + '/bin/nvcc', '-c', 'k.cu'])", count=4),
        Invalid("import subprocess\nfrom torch.utils.cpp_extension import CppExtension, CUDA_HOME\n"
                "def cuda_version(cuda_dir):\n    return subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'])\n"
                "_, version = cuda_version(CUDA_HOME)\nif version < (11, 4):\n    raise RuntimeError('needs CUDA 11.4')\n"
                "def threads():\n    _, version = cuda_version(CUDA_HOME)\n    if version >= (11, 2):\n        return 4\n", count=4),
        # the requirement's raises (qserve / SageAttention setup.py: `if nvcc_cuda_version < Version("12.0"): raise`), also
        # of a check that asks about the architectures too (label ruling (L35); set 61d's omniserve labels); and a raising check in a helper nothing calls
        # (flash-attention's csrc/*/setup.py keep apex's check_cuda_torch_binary_vs_bare_metal) makes the probe no
        # requirement: it only picks flags (the probe, CUDA_HOME handed to it: none)
        Invalid("import subprocess\nfrom packaging.version import Version\nfrom torch.utils.cpp_extension import CppExtension, CUDA_HOME\n"
                "def nvcc_version(cuda_dir):\n    out = subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'])\n"
                "    return Version(out.split()[-1])\n"
                "nvcc_cuda_version = nvcc_version(CUDA_HOME)\nif nvcc_cuda_version < Version('12.0'):\n"
                "    raise RuntimeError('CUDA 12.0 or higher is required')\n"
                "if nvcc_cuda_version < Version('12.4') and any(cc.startswith('8.9') for cc in caps):\n"
                "    raise RuntimeError('CUDA 12.4 is required for 8.9')\n"
                "if nvcc_cuda_version < Version('12.8'):\n    warnings.warn('CUDA 12.8 is required for Sage2++')\n", count=4),
        Invalid(  # flownet2-pytorch setup.py: one finding for the architecture-flag list, none for the `'nvcc'` key's list
            "from torch.utils.cpp_extension import CUDAExtension\nnvcc_args = [\n    '-gencode', 'arch=compute_52,code=sm_52',\n"
            "    '-gencode', 'arch=compute_70,code=sm_70',\n]\nargs = {'cxx': [], 'nvcc': ['-gencode', 'arch=compute_80,code=sm_80']}", count=2),
        # mit-han-lab/qserve kernels/setup.py: architecture flags added with `+=` to the list an "nvcc" key takes are
        # that one list, reported at the key (label ruling (L29): flag-building statements are not labels)
        Invalid("from torch.utils.cpp_extension import CUDAExtension\nNVCC_FLAGS = ['-O3']\nfor num in ('80', '90'):\n"
                "    NVCC_FLAGS += ['-gencode', f'arch=compute_{num},code=sm_{num}']\nCUDAExtension(\n    'm',\n    ['k.cu'],\n"
                "    extra_compile_args={\n        'nvcc': NVCC_FLAGS,\n    },\n)\n", count=3),
        Invalid(  # fast-hadamard-transform setup.py: `cc_flag.append(...)` statements, one finding at the first
            "from torch.utils.cpp_extension import CUDAExtension\ncc_flag = []\ncc_flag.append('-gencode')\n"
            "cc_flag.append('arch=compute_80,code=sm_80')\nif new:\n    cc_flag.append('-gencode')\n"
            "    cc_flag.append('arch=compute_90,code=sm_90')\n", count=1),
        # BigVGAN alias_free_activation/cuda/load.py: two helper lists joined into one `extra_cuda_cflags=` (one directly,
        # one through the build helper's parameter) are that one list, reported at the key; a list joined nowhere is its own
        Invalid("from torch.utils import cpp_extension\ndef load():\n    cc_flag = []\n    cc_flag.append('-gencode')\n"
                "    cc_flag.append('arch=compute_80,code=sm_80')\n    def helper(name, sources, extra_cuda_flags):\n"
                "        return cpp_extension.load(name=name, sources=sources,\n"
                "            extra_cuda_cflags=['-O3', '-gencode', 'arch=compute_70,code=sm_70'] + extra_cuda_flags + cc_flag)\n"
                "    extra_cuda_flags = ['--expt-relaxed-constexpr', '--expt-extended-lambda']\n"
                "    other = ['-gencode', 'arch=compute_90,code=sm_90']\n"
                "    return helper('m', ['m.cu'], extra_cuda_flags)\n", count=4),
        # spcl/QuaRot setup.py: the flag list a helper returns into the `'nvcc'` key is that key's one list (reported at
        # the key); a helper's list that feeds no key is its own
        Invalid("from torch.utils.cpp_extension import CUDAExtension\ndef arch_flags():\n"
                "    return ['-gencode', 'arch=compute_80,code=sm_80']\ndef other():\n"
                "    return ['-gencode', 'arch=compute_90,code=sm_90']\n"
                "ext = CUDAExtension(name='q._CUDA', sources=['q.cu'],\n    extra_compile_args={'cxx': [], 'nvcc': arch_flags()})\n",
                count=3),
        Invalid(  # BasicSR / mmcv make_cuda_ext: the macro and the selection; the call through the variable carries no
            # CUDA content on its line ((L9)), unlike one naming a `.cu` source there
            "from torch.utils.cpp_extension import CUDAExtension\ndef make(name, srcs):\n    macros = [('WITH_CUDA', None)]\n"
            "    extension = CUDAExtension\n    return extension(name=name, sources=srcs, define_macros=macros)\n"
            "def make_k():\n    return extension('k', ['k.cpp', 'k.cu'])\n", count=3),
        Invalid(  # torch-ngp backend.py: the call, the nvcc-flags keyword and the .cu line of one JIT build
            "from torch.utils.cpp_extension import load\n_backend = load(name='_ext',\n    extra_cuda_cflags=flags,\n"
            "    sources=['k.cu', 'b.cpp'])", count=3),
        Invalid(  # nvcc flags and a source method whose globs name a .cu file: a CUDA build (call, flags and .cu glob lines)
            "import glob\nfrom torch.utils.cpp_extension import load\nclass JitOp:\n"
            "    def jit_load(self):\n        return load(name='m', sources=self.sources(),\n            extra_cuda_cflags=['-O3'])\n"
            "    def sources(self):\n        return glob.glob('src/*.cpp') + glob.glob('src/*.cu')", count=3),
        Invalid(  # DUSt3R/CroCo curope setup.py: the nvcc flags given as `dict(nvcc=...)`, inside the call (one finding for
            # the keyword line, none for the list its architecture flags are added to) and outside it
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension(name='curope',\n"
            "    sources=['curope.cpp',\n             'kernels.cu'],\n"
            "    extra_compile_args=dict(\n        nvcc=['-O3', '--use_fast_math'] + ['-gencode', 'arch=compute_80,code=sm_80'],\n"
            "        cxx=['-O3']))\nargs = dict(nvcc=['-O3'], cxx=[])\n", count=4),
        Invalid(  # one finding per .cu line and for the "nvcc" key inside the call
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension(\n    'm', ['a.cu',\n    'b.cu'],\n"
            "    extra_compile_args={'cxx': [], 'nvcc': ['-O3']})", count=4),
        Invalid(  # Pointnet2_PyTorch pointnet2_utils.py: the JIT fallback build's nvcc flags and `with_cuda=True` lines
            "from torch.utils.cpp_extension import load\n_ext = load(\n    '_ext',\n    sources=srcs,\n"
            "    extra_cuda_cflags=['-O3'],\n    with_cuda=True,\n)", count=3),
        Invalid(  # TDAN / faster-rcnn.pytorch build.py: the CUDA gate, the macro, the linked .cu.o, with_cuda=; not the
            # `with_cuda = True` switch (flag-building, label ruling (L70)) nor `create_extension(` above its own
            # `with_cuda=` line (46b-4)
            "import torch\nfrom torch.utils.ffi import create_extension\ndefines, with_cuda = [], False\n"
            "if torch.cuda.is_available():\n    defines += [('WITH_CUDA', None)]\n    with_cuda = True\n"
            "objs = ['src/dcn_kernel.cu.o']\nffi = create_extension(\n    '_ext.dcn',\n    define_macros=defines,\n"
            "    with_cuda=with_cuda,\n    extra_objects=objs)\n", count=4),
        # the same build on one line: the call's line is its `with_cuda=` line
        Invalid("from torch.utils.ffi import create_extension\n"
                "ffi = create_extension('_ext.dcn', sources=['dcn.c'], with_cuda=True)\n", count=1),
        Invalid("import tensorflow as tf\n_ops = tf.load_op_library(lib_file)\n", count=1),
        # StyleGAN2's TensorFlow ops (NVlabs/stylegan2 dnnlib/tflib/ops/upfirdn_2d.py, fused_bias_act.py): the project
        # helper handed the module's own `.cu` builds it with nvcc; the ops read off the accessor's result, a binding
        # of one (reading it builds) and the calls through that name
        Invalid("import os\nfrom .. import custom_ops\ndef _get_plugin():\n"
                "    return custom_ops.get_plugin(os.path.splitext(__file__)[0] + '.cu')\n"
                "def f(x, k):\n    y = _get_plugin().up_fir_dn2d(x=x, k=k)\n    cuda_kernel = _get_plugin().fused_bias_act\n"
                "    def g(x):\n        return cuda_kernel(x=x, grad=1)\n    return g(y)\n", count=4),
        # warp-transducer warprnnt_tensorflow/__init__.py: the op read on the loaded library (not the gradient's ops)
        Invalid("import tensorflow as tf\n_ops = tf.load_op_library(lib_file)\ndef loss(a):\n"
                "    out, _ = _ops.warp_rnnt(a,\n                            0)\n    return tf.reshape(out, (-1,))\n", count=2),
        # HawkAaron/warp-transducer pytorch_binding/setup.py: an `or` of CUDA questions sets the flag that switches the
        # GPU macro on: the gate and the macro
        Invalid("import os, torch\nfrom torch.utils.cpp_extension import CppExtension\nargs = ['-fPIC']\n"
                "if torch.cuda.is_available() or 'CUDA_HOME' in os.environ:\n    enable_gpu = True\nelse:\n"
                "    enable_gpu = False\nif enable_gpu:\n    args += ['-DWARPRNNT_ENABLE_GPU']\n"
                "ext = CppExtension('m', ['m.cpp'], extra_compile_args=args)\n", count=2),
        # warp-transducer tensorflow_binding/setup.py: the negated CUDA_HOME test (its `else` sets the flag) and the
        # macro of a setuptools extension, in a file that never names cpp_extension
        Invalid("import os, setuptools\nif 'CUDA_HOME' not in os.environ:\n    enable_gpu = False\nelse:\n"
                "    enable_gpu = True\nargs = []\nif (enable_gpu):\n    args += ['-DWARPRNNT_ENABLE_GPU']\n"
                "ext = setuptools.Extension('m.kernels', sources=['op.cc'], extra_compile_args=args)\n", count=2),
        # BasicSR setup.py (megvii-research/NAFNet setup.py:102): a CUDA question or a FORCE_CUDA override is the
        # CUDA build's gate (label rule S-(s4), S20A-(s20a-3)): the gate and the build; an `or` with another test is not
        Invalid("import os, torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n"
                "    ext = CUDAExtension('m', ['k.cu'])\n"
                "if torch.cuda.is_available() or args.cuda:\n    ext2 = CUDAExtension('n', ['n.cu'])\n", count=3),
        # microsoft/tutel jit_kernels/sparse.py: CUDA C source handed to the project's NVRTC helper, at the call line
        Invalid("from ..impls.jit_compiler import JitCompiler\ndef create(dtype):\n"
                "    return JitCompiler.generate_kernel({'dtype': dtype}, \'\'\'\n"
                "    extern \"C\" __global__ void execute(float* x) {\n"
                "      x[blockIdx.x * 1024 + threadIdx.x] *= 2;\n    }\n  \'\'\')\n", count=1),
        # tf-faster-rcnn lib/setup.py (CenterNet voc_eval_lib): the module-level `locate_cuda()` that raises without nvcc
        # is the build's gate; the call, its `.cu` line and its `'nvcc'` key; a helper that only returns a path is not
        Invalid("import os\nfrom distutils.extension import Extension\ndef locate_cuda():\n"
                "    nvcc = find_in_path('nvcc', os.environ['PATH'])\n    if nvcc is None:\n"
                "        raise EnvironmentError('nvcc not found')\n    return {'home': os.path.dirname(nvcc)}\n"
                "def here():\n    return os.path.dirname(__file__)\nCUDA = locate_cuda()\nHERE = here()\n"
                "ext = Extension('nms.gpu_nms',\n    ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],\n"
                "    extra_compile_args={'gcc': ['-O2'], 'nvcc': ['-arch=sm_61']})", count=5),
        # PoseCNN-PyTorch lib/utils/setup.py: a Cython-only build keeping py-faster-rcnn's locator, called at import: it
        # raises without nvcc, so the CPU build stops too (rulings (L66), (L35)): the gate, the CUDAHOME test and read,
        # the raise (a locator no module-level statement calls: VALID)
        Invalid("import os\nfrom distutils.core import setup\nfrom distutils.extension import Extension\n"
                "def locate_cuda():\n    if 'CUDAHOME' in os.environ:\n        home = os.environ['CUDAHOME']\n"
                "    else:\n        nvcc = find_in_path('nvcc', os.environ['PATH'])\n        if nvcc is None:\n"
                "            raise EnvironmentError('nvcc not found')\n        home = os.path.dirname(nvcc)\n"
                "    return {'home': home}\nCUDA = locate_cuda()\n"
                "setup(ext_modules=[Extension('bbox', ['bbox.pyx'])])\n", count=4),
        # py-faster-rcnn's lib/setup.py descendants (label ruling (L66)): inside the called locator, the CUDAHOME test and
        # read and both raises; the set_executable handing CUDA['nvcc'] to the compiler; plus the gate, the Extension call,
        # its `.cu` line and its 'nvcc' key. The joined nvcc path and the PATH read are not reported.
        Invalid("import os\nfrom distutils.extension import Extension\ndef locate_cuda():\n"
                "    if 'CUDAHOME' in os.environ:\n        home = os.environ['CUDAHOME']\n"
                "        nvcc = os.path.join(home, 'bin', 'nvcc')\n    else:\n"
                "        nvcc = find_in_path('nvcc', os.environ['PATH'])\n        if nvcc is None:\n"
                "            raise EnvironmentError('nvcc not found')\n        home = os.path.dirname(nvcc)\n"
                "    for k, v in {'home': home, 'nvcc': nvcc}.items():\n        if not os.path.exists(v):\n"
                "            raise EnvironmentError('The CUDA %s path could not be located in %s' % (k, v))\n"
                "    return {'home': home, 'nvcc': nvcc}\nCUDA = locate_cuda()\n"
                "def customize_compiler_for_nvcc(self):\n    default = self.compiler_so\n"
                "    def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):\n"
                "        if os.path.splitext(src)[1] == '.cu':\n            self.set_executable('compiler_so', CUDA['nvcc'])\n"
                "    self._compile = _compile\n"
                "ext = Extension('nms.gpu_nms',\n    ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],\n"
                "    extra_compile_args={'gcc': ['-O2'], 'nvcc': ['-arch=sm_61']})", count=9),
        # microsoft/tutel setup.py: a setup helper picking CUDAExtension from its parameter; its call with
        # `use_cuda=True` builds the CUDA extension (ruling (L10)/(L17)), the call with `use_cuda=False` does not
        Invalid("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                "def install(use_cuda, use_nccl):\n    if not use_cuda:\n        extension = CppExtension\n    else:\n"
                "        extension = CUDAExtension\n    setup(name='m', ext_modules=[extension('m', ['m.cpp'])])\n"
                "if NO_CUDA:\n    install(use_cuda=False, use_nccl=False)\nelse:\n    install(True, use_nccl=True)\n",
                count=2),
        # the macro that compiles the sources' GPU path, added in the CUDA branch of a build (not one set to 0)
        Invalid("from torch.utils.cpp_extension import CppExtension\nargs = ['-fPIC']\nif enable_gpu:\n"
                "    args += ['-DWARPRNNT_ENABLE_GPU']\nargs += ['-DUSE_GPU=0', '-DCUDA_HAS_FP16=1']\n"
                "ext = CppExtension('m', ['m.cpp'], extra_compile_args=args)\n", count=1),
        Invalid("cd src\nnvcc -c -o k.cu.o k.cu -x cu -Xcompiler -fPIC -arch=sm_52\ncd ..\npython build.py\n",
                kind="launcher", filename="make.sh", count=1),
        Invalid("$CUDA_HOME/bin/nvcc -c -o a.o a.cu && echo done\n", kind="launcher", filename="build.sh", count=1),
        # pointnet2's TF ops build script (6dof-graspnet compile_pointnet_tfops.sh, label ruling (L13)): the nvcc command,
        # the line its backslash continues onto (`-D GOOGLE_CUDA=1 -x cu`), and the g++ link step naming `-lcudart`
        Invalid("nvcc -std=c++11 -c -o k_g.cu.o k_g.cu \\\n ${CUDA_INCLUDE} -D GOOGLE_CUDA=1 -x cu -Xcompiler -fPIC\n\n"
                "g++ -std=c++11 -shared -o k_so.so k.cpp \\\n k_g.cu.o -fPIC -lcudart ${CUDA_LIB}\necho '-lcudart'\n",
                kind="launcher", filename="compile_ops.sh", count=3),
        # a build script's cmake configure handed the toolkit's and cuDNN's homes (label ruling L37, 42c-5): each such
        # argument line, not the torch path or the build type; a Dockerfile's cmake is image setup
        Invalid("mkdir -p build && cd build\ncmake -DCMAKE_PREFIX_PATH=$TORCH_DIR \\\n    -DCMAKE_BUILD_TYPE=Release \\\n"
                "    -DMYLIB_CUDA_HOME=/usr/local/cuda \\\n    -DMYLIB_CUDNN_HOME=/usr/local/cuda ..\nmake -j\n",
                kind="launcher", filename="build.sh", count=2),
    ]

    def check(self, ctx):
        if ctx.kind != "launcher" and build_helper_modules.is_build_library(ctx):
            return  # a copy of torch's cpp_extension: the build helpers themselves, no build (migrate/build_helper_modules.py)
        hip = _hip_branch_lines(ctx) if ctx.kind != "launcher" and "hip" in ctx.source else frozenset()
        dead = _uncalled_function_lines(ctx) if ctx.kind != "launcher" else frozenset()
        if ctx.kind != "launcher" and "return" in ctx.source and "else" in ctx.source:
            dead |= unreachable_else.unreachable_else_lines(ctx.tree)  # the `else:` an early return settles
        for finding in self._check(ctx):
            if finding.line not in hip and finding.line not in dead:
                yield finding

    def _check(self, ctx):
        reported: list[ast.AST] = []  # the build calls `_builds` reports, filled as it runs
        found = list(self._builds(ctx, reported))
        if ctx.kind != "launcher":  # `Extension("pkg.lib", [])` that the file's build_ext builds with CUDA CMake
            for call in cmake_cuda_extensions.sourceless_calls(ctx):
                reported.append(call)
                found.append(self.finding(ctx, call, "an extension without sources that the file's `build_ext` "
                                          "builds through a CUDA CMake project (migrate/cmake_cuda_extensions.py): "
                                          + self.MESSAGE))
        yield from found
        if ctx.kind == "launcher" and "cmake" in ctx.source and not ctx.path.replace("\\", "/").rsplit("/", 1)[-1].lower().startswith("dockerfile"):
            yield from self._cmake_home_defines(ctx)
        if ctx.kind != "launcher":
            gates = list(self._cuda_gates(ctx, {f.line for f in found})) if found else []
            yield from gates
            yield from self._cuda_home(ctx, reported, {f.line for f in gates})
            yield from self._accessor_bindings(ctx, reported)
            if found:  # `assert torch.version.cuda is not None` and the like (migrate/torch_cuda_requirements.py)
                lines = {f.line for f in found} | {f.line for f in gates}
                for node in torch_cuda_requirements.requirement_nodes(ctx):
                    if node.lineno not in lines:
                        yield self.finding(ctx, node, "stops the build when PyTorch is not a CUDA build "
                                           "(`torch.version.cuda` is None on an Ascend host): a CUDA toolkit "
                                           "requirement; " + self.MESSAGE)
            if found:
                lines = {f.line for f in found} | {f.line for f in gates}
                yield from (f for f in self._home_requirements(ctx) if f.line not in lines)
            if found and "nvcc" in ctx.source:
                yield from self._toolkit_locators(ctx)
            elif "nvcc" in ctx.source and _setup_script(ctx):  # no CUDA built: marked so, no install of it reported
                for finding in self._toolkit_locators(ctx, False):
                    yield dataclasses.replace(finding, message=f"{finding.message} (in {local_installs.LOCATOR_ONLY})")
            if "nvcc" in ctx.source:  # a build tool's own nvcc / CUDA link step classes (migrate/nvcc_command_classes.py)
                lines = {f.line for f in found}
                for node, what in nvcc_command_classes.step_lines(ctx):
                    if node.lineno not in lines:
                        yield self.finding(ctx, node, f"a compile step class of the project's own build tool {what}: "
                                           + self.MESSAGE)
            if "load_op_library" in ctx.source:
                yield from self._loaded_op_calls(ctx)
            if "-DCMAKE_CUDA_" in ctx.source:
                yield from self._cmake_cuda_defines(ctx)

    def _cmake_home_defines(self, ctx):
        """`cmake -DX_CUDA_HOME=/usr/local/cuda ..` in a shell script, also on the lines a backslash continues the
        command onto: the configure step pointed at the CUDA toolkit (or cuDNN), at each such argument. A Dockerfile's
        build of the image is image setup (L17), not read."""
        from migrate.continued_commands import continuation_lines
        from migrate.rules._text import shell_matches

        for number, _ in shell_matches(ctx.lines, _SHELL_CMAKE):
            lines = [(number, ctx.lines[number - 1])] + list(continuation_lines(ctx.lines, number))
            for line, text in lines:
                define = _CMAKE_HOME_DEFINE.search(text.split("#", 1)[0])
                if define:
                    name = define.group(1)[2:].split("=", 1)[0].split(":", 1)[0]
                    start = define.start(1)
                    end = text.find(" ", start)
                    yield self.finding(ctx, (line, start, line, end if end > 0 else len(text.rstrip())),
                                       f"the cmake configure step here sets `{name}` to the CUDA toolkit's (or cuDNN's) "
                                       "location: " + self.MESSAGE)

    def _cmake_cuda_defines(self, ctx):
        """`subprocess.call([cmake, "-DCMAKE_CUDA_ARCHITECTURES=75;80;86", here])` (FlatQuant setup.py, label rule
        35d-3): a CMake configure run from Python with a CUDA setting of its own on the command line (the
        architectures nvcc compiles for, the CUDA compiler): the build's CUDA setting, like `set(CMAKE_CUDA_ARCHITECTURES
        ...)` in the CMake file (NPU511). Only a string handed to a call that runs commands is read."""
        for call in ctx.nodes.get(ast.Call, ()):
            if ctx.qualname(call.func) not in COMMAND_RUNNERS or not call.args:
                continue
            for node in walk_nodes(call.args[0]):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and _CMAKE_CUDA_DEFINE.match(node.value):
                    setting = node.value.split("=", 1)[0][2:]
                    yield self.finding(ctx, node, f"the CMake configure run here sets `{setting}` on its command line: "
                                       "a CUDA build setting (nvcc's architectures or compiler), which has no "
                                       "counterpart on an Ascend host: " + self.MESSAGE)

    def _home_requirements(self, ctx):
        """Outside any function of a file that builds CUDA, the toolkit's home read from the environment into a name
        (`cuda_path = os.environ.get("CUDA_PATH", None)`) and a raise directly under a test that it is missing (`if
        cuda_path is None: raise ValueError(...)`): AutoGPTQ's setup.py on Windows (set 57), the module-level form of a
        toolkit locator (label rulings (L37), (L66), (L35)): the read and the raise, not the test. A read no such
        raise follows is left to the build call that uses it."""
        if not any(home in ctx.source for home in _TOOLKIT_HOMES) or "raise" not in ctx.source:
            return
        reads: dict[str, list] = {}
        for statement in ctx.nodes.get(ast.Assign, ()):
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) and _cuda_home_read(ctx, statement.value) \
                    and ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) is None:
                reads.setdefault(statement.targets[0].id, []).append(statement.value)
        for test in ctx.nodes.get(ast.If, ()) if reads else ():
            name = _missing_test(test.test)
            raises = [s for s in test.body if isinstance(s, ast.Raise)]
            if name not in reads or not raises or ctx.enclosing(test, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for read in reads.pop(name):
                yield self.finding(ctx, read, "reads the CUDA toolkit's home from the environment and stops the build "
                                   "without it, which an Ascend host lacks: " + self.MESSAGE)
            for node in raises:
                yield self.finding(ctx, node, "raises here without the CUDA toolkit's home, which an Ascend host lacks; "
                                   "the build stops: " + self.MESSAGE)

    def _toolkit_locators(self, ctx, builds_cuda: bool = True):
        """`CUDA = locate_cuda()` at module level (tf-faster-rcnn's setup.py, CenterNet src/tools/voc_eval_lib, label
        S-(s2)): a call of a function of this file that looks for nvcc (or the CUDA toolkit's home) and raises when it
        is missing, in a file that builds CUDA: the build's gate, which stops the script on an Ascend host. Also in a
        setup script that builds no CUDA (PoseCNN-PyTorch lib/utils/setup.py: only a Cython `bbox.pyx` extension,
        beside py-faster-rcnn's locator kept from its GPU NMS): the call runs at import and raises without nvcc, so its
        CPU build stops on an Ascend host too (label rulings (L66), (L35); set 53 labels)."""
        locators = set()
        for function in ctx.tree.body:
            if isinstance(function, ast.FunctionDef) and any(isinstance(n, ast.Raise) for n in walk_nodes(function)) and any(
                    isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in ("nvcc", "CUDAHOME", "CUDA_HOME", "CUDA_PATH")
                    and not _compile_flags_key(ctx, n) for n in walk_nodes(function)):
                locators.add(function.name)
        called, results = set(), set()
        for statement in ctx.tree.body if locators else ():
            value = getattr(statement, "value", None)
            if isinstance(statement, (ast.Assign, ast.Expr)) and isinstance(value, ast.Call) \
                    and isinstance(value.func, ast.Name) and value.func.id in locators:
                called.add(value.func.id)
                results.update(t.id for t in getattr(statement, "targets", ()) if isinstance(t, ast.Name))
                what = "the gate of this file's CUDA build" if builds_cuda else \
                    "it runs when the setup script is read, so even its CPU build"
                yield self.finding(ctx, statement, f"`{value.func.id}()` looks for the CUDA toolkit (nvcc) and raises "
                                   f"without it: {what}, which stops on an Ascend host: " + self.MESSAGE)
        if called:
            yield from self._locator_lines(ctx, called, results)

    def _locator_lines(self, ctx, called: set, results: set):
        """Inside a toolkit locator that the module calls (`def locate_cuda():` of py-faster-rcnn's descendants, label
        ruling (L66)): its tests and reads of the toolkit's home variable (`'CUDAHOME' in os.environ`,
        `os.environ['CUDAHOME']`, `os.getenv('CUDA_HOME')`: ruling (L37)) and its raises when nvcc or a toolkit folder
        is missing (ruling (L35)); anywhere in the file, the call that hands the located nvcc to the compiler
        (`self.set_executable('compiler_so', CUDA['nvcc'])` in a `customize_compiler_for_nvcc`). Its other lines (the
        `nvcc` path joined, the include / lib64 folders) are the build's flags, reported at its Extension call."""
        homes = ("CUDAHOME", "CUDA_HOME", "CUDA_PATH")
        lines: set[int] = set()

        def once(node, message):
            if node.lineno not in lines:
                lines.add(node.lineno)
                return [self.finding(ctx, node, message + ": " + self.MESSAGE)]
            return []

        for function in ctx.tree.body:
            if not (isinstance(function, ast.FunctionDef) and function.name in called):
                continue
            for node in walk_nodes(function):
                if isinstance(node, ast.Raise):
                    yield from once(node, f"`{function.name}()` raises here without the CUDA toolkit (nvcc or its "
                                    "folders), which an Ascend host lacks; the build stops")
                elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and node.left.value in homes \
                        and ctx.qualname(node.comparators[0]) == "os.environ":
                    yield from once(node, f"tests `{node.left.value}`, the CUDA toolkit's home, to find nvcc")
                elif isinstance(node, ast.Subscript) and ctx.qualname(node.value) == "os.environ" \
                        and isinstance(node.slice, ast.Constant) and node.slice.value in homes:
                    yield from once(node, f"reads `{node.slice.value}`, the CUDA toolkit's home, to find nvcc")
                elif isinstance(node, ast.Call) and ctx.qualname(node.func) in ("os.environ.get", "os.getenv") \
                        and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in homes:
                    yield from once(node, f"reads `{node.args[0].value}`, the CUDA toolkit's home, to find nvcc")
        for call in ctx.nodes.get(ast.Call, ()) if results else ():
            if isinstance(call.func, ast.Attribute) and call.func.attr == "set_executable" and any(
                    isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in results
                    and isinstance(n.slice, ast.Constant) and n.slice.value == "nvcc" for a in call.args for n in walk_nodes(a)):
                yield from once(call, "hands the located nvcc to the compiler for the `.cu` sources")

    def _loaded_op_calls(self, ctx):
        """`_ops = tf.load_op_library(lib_file)` at module level, then `_ops.warp_rnnt(...)` (HawkAaron/warp-transducer
        tensorflow_binding/warprnnt_tensorflow/__init__.py, H-(h3)): each call of an op of the loaded library, at the
        line that reads the op (a warning, like the load: the library may or may not hold CUDA kernels)."""
        loaded = {statement.targets[0].id for statement in ctx.tree.body
                  if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                  and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)
                  and ctx.qualname(statement.value.func) == _TF_LOAD_LIBRARY}
        for call in ctx.nodes.get(ast.Call, ()) if loaded else ():
            op = call.func
            if isinstance(op, ast.Attribute) and isinstance(op.value, ast.Name) and op.value.id in loaded:
                yield self.finding(ctx, op, f"calls `{op.attr}` of a TensorFlow op library loaded with "
                                   "`tf.load_op_library`: if it was built with CUDA the op does not run on an Ascend NPU; "
                                   "port its kernels", severity=Severity.WARNING)

    def uses(self, ctx, index):
        """Cross-file (migrate/linking.py): in a project function that other files of the scan call as a JIT CUDA
        build helper (`custom_ops.get_plugin(module_name='bias_act_plugin', sources=['bias_act.cu'],
        extra_cuda_cflags=[...])`, StyleGAN2-ADA / StyleGAN3 / EG3D), its `cpp_extension.load(...)` calls (the sources
        and flags arrive as parameters) and the `importlib.import_module(<a parameter>)` that imports the module just
        built are build lines."""
        functions = index.helper_functions(ctx.path) if index.helpers else frozenset()
        if not functions:
            return
        for function in ctx.nodes.get(ast.FunctionDef, ()):
            if function.name not in functions or not isinstance(ctx.parent(function), ast.Module):
                continue
            params = {a.arg for a in function.args.args + function.args.kwonlyargs}
            for node in walk_nodes(function):
                if not isinstance(node, ast.Call):
                    continue
                name = ctx.qualname(node.func)
                if name in (f"{_EXT}.load", f"{_EXT}.load_inline"):
                    yield self.finding(ctx, node, f"a JIT build inside `{function.name}()`, which other modules of the project "
                                       "call with CUDA sources / nvcc flags: " + self.MESSAGE)
                elif name == "importlib.import_module" and node.args and isinstance(node.args[0], ast.Name) \
                        and node.args[0].id in params:
                    yield self.finding(ctx, node, f"imports the CUDA extension `{function.name}()` has just JIT-built: "
                                       + self.MESSAGE)
            yield from self._own_nvcc_steps(ctx, function, params)

    def _own_nvcc_steps(self, ctx, function, params):
        """A helper that builds through classes of its own instead of cpp_extension (Det3D-style `load_pb11(sources,
        target, cuda=False)`: `if ".cu" in s: cmds.append(Nvcc(s, out(s), arch))`, `if cuda: [Pybind11CUDALink(...)]`,
        label ruling (L96)): in the branches its CUDA path takes, under an `if` testing its CUDA switch parameter
        (`cuda`, `with_cuda`) or a source's `.cu` suffix, each construction of a class (a CapWords name: the nvcc
        compile and CUDA link steps) and each `raise` (the build stops there without a toolkit) is a build line; not
        the `else` branch, not plain function calls (`out(s)`), not asserts."""
        switches = params & CUDA_SWITCH_KEYWORDS
        for test_node in walk_nodes(function):
            if not isinstance(test_node, ast.If) or not _cuda_path_test(test_node.test, switches):
                continue
            for statement in test_node.body:
                raised = {id(n) for r in walk_nodes(statement) if isinstance(r, ast.Raise) for n in walk_nodes(r)}
                for node in walk_nodes(statement):
                    if isinstance(node, ast.Call) and id(node) not in raised and isinstance(node.func, ast.Name) and node.func.id[:1].isupper() \
                            and not node.func.id.isupper():
                        yield self.finding(ctx, node, f"`{node.func.id}(...)` is a CUDA compile / link step of "
                                           f"`{function.name}()`, which other modules call with CUDA sources: " + self.MESSAGE)
                    elif isinstance(node, ast.Raise):
                        yield self.finding(ctx, node, f"`{function.name}()` stops here on its CUDA path (no toolkit or "
                                           "GPU architecture on an Ascend host): " + self.MESSAGE)

    def _accessor_bindings(self, ctx, reported):
        """`_C = _load_C_extensions()` (FCOS / maskrcnn-benchmark layers/_utils.py): a module-level name bound to
        the result of a function of this file that returns a reported JIT build (`return load_ext("torchvision",
        source, ...)`) is the compiled module itself; reported at the assignment, whatever name the build gives."""
        returned = {id(node.value) for node in ctx.nodes.get(ast.Return, ()) if node.value is not None}
        accessors = set()
        for call in reported:
            if id(call) in returned:
                function = ctx.parent(call)
                while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    function = ctx.parent(function)
                if function is not None and ctx.parent(function) is ctx.tree:
                    accessors.add(function.name)
        if not accessors:
            return
        for statement in ctx.tree.body:
            value = getattr(statement, "value", None)
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Call) \
                    and isinstance(value.func, ast.Name) and value.func.id in accessors:
                yield self.finding(ctx, statement, f"binds the CUDA extension that `{value.func.id}()` JIT-builds "
                                   "(its ops are called through this name): " + self.MESSAGE)
        yield from self._accessor_ops(ctx, accessors)

    def _accessor_ops(self, ctx, accessors):
        """An op read straight off the accessor's result inside a function (StyleGAN2's TensorFlow ops,
        NVlabs/stylegan2 dnnlib/tflib/ops: `_get_plugin().up_fir_dn2d(x=x, ...)`, `cuda_kernel =
        _get_plugin().fused_bias_act` then `cuda_kernel(x=x, ...)` in the nested functions): the call of the op, and
        the binding, which runs the build when it is read (label rulings (L31), (L52), (L57)), then each call through
        the bound name in the function that binds it."""
        for call in ctx.nodes.get(ast.Call, ()):
            if not (isinstance(call.func, ast.Name) and call.func.id in accessors and not call.args and not call.keywords):
                continue
            op = ctx.parent(call)
            function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
            if not isinstance(op, ast.Attribute) or function is None:
                continue
            user = ctx.parent(op)
            if isinstance(user, ast.Call) and user.func is op:
                yield self.finding(ctx, user, f"calls `{op.attr}` of the CUDA extension that `{call.func.id}()` "
                                   "JIT-builds: " + self.MESSAGE)
            elif isinstance(user, ast.Assign) and len(user.targets) == 1 and isinstance(user.targets[0], ast.Name):
                bound = user.targets[0].id
                yield self.finding(ctx, user, f"binds `{op.attr}` of the CUDA extension that `{call.func.id}()` "
                                   "JIT-builds (reading it runs the build): " + self.MESSAGE)
                for inner in walk_nodes(function):
                    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == bound:
                        yield self.finding(ctx, inner, f"calls `{op.attr}` of the CUDA extension that "
                                           f"`{call.func.id}()` JIT-builds, through `{bound}`: " + self.MESSAGE)

    def _cuda_gates(self, ctx, lines: set[int]):
        """The CUDA gate of a build this file reports: an `if` whose test asks `torch.cuda.is_available()` (or
        `torch.has_cuda`) and whose body holds a reported build line (GPEN `if platform.system() == 'Linux' and
        torch.cuda.is_available(): fused = load(...)`; TDAN build.py `if torch.cuda.is_available(): ... with_cuda =
        True`), or an `assert torch.cuda.is_available()` followed by one in its function or module. False on an
        Ascend host: the CUDA build is skipped (or the script stops) there without a word."""
        for node in list(ctx.nodes.get(ast.If, ())) + list(ctx.nodes.get(ast.Assert, ())):
            if node.lineno in lines:
                continue
            stops = _stops_without_cuda(ctx, node)  # `if not torch.cuda.is_available(): raise ...`: an assert
            branch = _cuda_branch(ctx, node) if isinstance(node, ast.If) and not stops else None
            if not stops and branch is None and not (isinstance(node, ast.Assert) and _asks_cuda(ctx, node.test)):
                continue
            if branch is not None:
                first, last = branch[0].lineno, branch[-1].end_lineno or branch[-1].lineno
            else:
                scope = enclosing_scope(ctx, node)
                first = (node.end_lineno or node.lineno) + 1
                last = (scope.end_lineno if scope is not None and not isinstance(scope, ast.Module) else None) or len(ctx.lines)
            if any(first <= line <= last for line in lines) or (branch is not None and _switches_a_build(ctx, branch, lines)):
                at = _question_line(ctx, node) if isinstance(node, ast.If) else node.lineno
                text = ctx.lines[at - 1].rstrip("\r\n")
                column = node.col_offset if at == node.lineno else len(text) - len(text.lstrip())
                yield self.finding(ctx, (at, column, at, len(text)),
                                   "the CUDA gate of an extension build (False on an Ascend host, where the CUDA build "
                                   "is skipped or the script stops): " + self.MESSAGE)
                for stop in _gate_else_raises(node, branch):
                    yield self.finding(ctx, stop, "the build stops here when the CUDA gate fails (on an Ascend host "
                                       "the other branch runs and raises): " + self.MESSAGE)

    def _builds(self, ctx, reported):
        if ctx.kind == "launcher":
            if is_makefile(ctx.path):  # label ruling (L19): a Makefile's nvcc builds a side program, not the package
                return
            from migrate.continued_commands import continuation_lines

            seen: set[int] = set()
            for number, match in shell_matches(ctx.lines, _NVCC_COMMAND):
                yield self.finding(ctx, (number, match.start(), number, match.end()),
                                   "nvcc compiles CUDA kernels, which cannot be built for an Ascend NPU: " + self.MESSAGE)
                seen.add(number)
                # the lines a backslash continues the nvcc command onto hold its CUDA arguments (`-x cu`,
                # `-D GOOGLE_CUDA=1`, the CUDA include folder): each is a line of the build (label ruling (L13))
                for line, text in continuation_lines(ctx.lines, number):
                    if line not in seen and text.strip().strip("\\").strip():
                        seen.add(line)
                        yield self.finding(ctx, (line, len(text) - len(text.lstrip()), line, len(text.rstrip())),
                                           "this line continues the nvcc command above (its CUDA arguments): " + self.MESSAGE)
            for number, match in shell_matches(ctx.lines, _CUDA_RUNTIME_LINK):
                if number not in seen:  # `g++ -shared ... k.cu.o -lcudart`: the link step of the nvcc-compiled kernels
                    seen.add(number)
                    yield self.finding(ctx, (number, match.start(), number, match.end()),
                                       f"the link step names the CUDA runtime library `{match.group(0).strip()}`: "
                                       "the CUDA kernels linked here do not exist on an Ascend NPU: " + self.MESSAGE)
            return
        variables = extension_class_variables(ctx) if "CUDAExtension" in ctx.source else set()
        plain: list[ast.AST] = []  # setuptools extensions with CUDA sources: their own lines only
        helpers = kernel_values.build_helpers(ctx)
        choosers = _cuda_choosing_helpers(ctx, variables) if variables else {}
        cuda_c = "__global__" in ctx.source  # CUDA C kernel source in a string of the file
        for call in ctx.nodes.get(ast.Call, ()):
            name = ctx.qualname(call.func)
            if name is None and isinstance(call.func, ast.Name) and call.func.id in helpers:
                if _cpp_sources_only(ctx, call, helpers[call.func.id][0]):
                    continue  # `make_cuda_ext(name='compiling_info', ..., sources=['src/compiling_info.cpp'])`
                reported.append(call)  # `make_cuda_ext(name='x_ext', module='pkg.ops.x', sources_cuda=['src/x.cu'])`
                yield self.finding(ctx, call, f"builds a CUDA extension through the project helper `{call.func.id}()`: "
                                   + self.MESSAGE)
                yield from self._inner_lines(ctx, call)
                continue
            chosen = _chooses_cuda(ctx, call, choosers) if name is None and choosers else None
            if chosen is not None:  # `install(use_cuda=True, use_nccl=False)`: the helper picks CUDAExtension from it
                yield self.finding(ctx, call, f"builds a CUDA extension through the project setup helper `{call.func.id}()`, "
                                   f"which picks `CUDAExtension` from its `{chosen}` argument: " + self.MESSAGE)
                continue
            if cuda_c and _runtime_cuda_source(ctx, call, name):
                yield self.finding(ctx, call, "CUDA C kernel source (`__global__`, blockIdx/threadIdx) handed to "
                                   f"`{ast.unparse(call.func)}()`, which compiles it at run time (NVRTC / nvcc, a "
                                   "`load_inline` of the project's own): " + self.MESSAGE)
                continue
            if jit_cuda_build_wrapper(ctx, call, name):
                reported.append(call)
                how = "it passes nvcc flags, `extra_cuda_cflags=`" if _given(ctx.keyword(call, "extra_cuda_cflags")) else \
                    "a project build helper given `.cu` sources"
                yield self.finding(ctx, call, f"a JIT build of a CUDA extension ({how}): " + self.MESSAGE)
                yield from self._inner_lines(ctx, call)
                continue
            if name is None and isinstance(call.func, ast.Name) and call.func.id in variables:
                reported.append(call)  # `extension = CUDAExtension` ... `extension(name, sources, ...)`
                if _cuda_content_on_its_line(ctx, call):  # the CUDA choice is the `extension = CUDAExtension` line ((L9))
                    yield self.finding(ctx, call, "builds an extension through a variable bound to `CUDAExtension`: " + self.MESSAGE)
                yield from self._inner_lines(ctx, call)
                continue
            if plain_cuda_extension(ctx, call, name):
                reported.append(call)  # setuptools `Extension('nms.gpu_nms', ['nms/nms_kernel.cu', ...])`
                plain.append(call)
                how = ("a `CppExtension` with CUDA sources (torch's BuildExtension compiles each `.cu` with nvcc)"
                       if name == f"{_EXT}.CppExtension" else
                       "a setuptools extension with CUDA sources (a custom build_ext compiles them with nvcc)")
                yield self.finding(ctx, call, how + ": " + self.MESSAGE)
                yield from self._inner_lines(ctx, call)
                for line, node in {n.lineno: n for n in followed_cuda_sources(ctx, call)}.items():
                    if not call.lineno <= line <= call.end_lineno:  # `sources = [... 'backend.cu']` read by name
                        yield self.finding(ctx, node, "a CUDA source of a setuptools extension build: " + self.MESSAGE)
                continue
            if name in _LOAD_LIBRARY:
                if call.args and _other_backend_library(ctx, call.args[0]):
                    continue  # `libname = "libtorchao_ops_mps_aten.dylib"` ... `torch.ops.load_library(libpath)`
                yield self.finding(ctx, call, _LOAD_LIBRARY_MESSAGE, severity=Severity.WARNING)
                continue
            if name == _TF_LOAD_LIBRARY:
                yield self.finding(ctx, call, "loads a compiled TensorFlow op library: if it was built with CUDA it does "
                                   "not load or run on an Ascend NPU; its kernels must be ported (TensorFlow on Ascend "
                                   "needs Huawei's TensorFlow adapter for CANN)", severity=Severity.WARNING)
                continue
            if name == _FFI:
                if ffi_with_cuda(ctx, call):
                    reported.append(call)
                    flag = ctx.keyword(call, "with_cuda")
                    # the call's own line only where no `with_cuda=` line of it says CUDA: the keyword and the `.cu.o`
                    # objects are what a porter edits, `create_extension(` is not (label ruling (L70), 46b-4)
                    if flag is None or flag.lineno == call.lineno or not (_is_true(flag) or isinstance(flag, ast.Name)):
                        yield self.finding(ctx, call, "a cffi build (torch.utils.ffi) that links CUDA kernels: " + self.MESSAGE)
                    yield from self._inner_lines(ctx, call)
                continue
            if name is None or not name.startswith(_EXT + "."):
                continue
            function = name[len(_EXT) + 1 :]
            if function == "CUDAExtension":
                reported.append(call)
                yield self.finding(ctx, call)
                yield from self._inner_lines(ctx, call)
            elif function in ("load", "load_inline"):
                cuda_sources = ctx.keyword(call, "cuda_sources")
                with_cuda = ctx.keyword(call, "with_cuda")
                sources = ctx.keyword(call, "sources")
                if sources is None and len(call.args) > 1:
                    sources = call.args[1]
                forwarded = forwarded_keywords(ctx, call)  # `**myargs`, a dict literal of the same function
                nvcc_flags = _given(forwarded.get("extra_cuda_cflags")) or _given(ctx.keyword(call, "extra_cuda_cflags"))
                if (
                    _is_true(with_cuda)
                    or _is_true(forwarded.get("with_cuda"))
                    # nvcc flags: the sources include CUDA, unless they are known to be C++ only (torch hands
                    # `extra_cuda_cflags` to nvcc only for a .cu source: YOLOX's JitOp, `load(sources=self.sources(),
                    # extra_cuda_cflags=self.nvcc_args())` of `glob("*.cpp")`, MVIG-SJTU/AlphaPose, set 22)
                    or (nvcc_flags and not _cpp_only_sources(ctx, call, sources)
                        and not _constructor_given(ctx, call, "extra_cuda_cflags"))
                    or (cuda_sources is not None and not (isinstance(cuda_sources, ast.Constant) and cuda_sources.value is None))
                    or (function == "load_inline" and len(call.args) > 2)
                    or (function == "load" and sources is not None and _mentions_cuda_source(sources))
                    or (function == "load" and isinstance(sources, ast.Name) and _scope_lists_cuda(ctx, call))
                    or (function == "load" and sources is not None
                        and any(text.strip().endswith(_CUDA_SUFFIXES) for text in named_sources(ctx, call)))
                ):
                    reported.append(call)
                    yield self.finding(ctx, call)
                    yield from self._inner_lines(ctx, call)
                    yield from self._forwarded_lines(ctx, call, forwarded)
                elif links := {n.lineno: n for n in cuda_link_nodes(ctx, call)}:
                    reported.append(call)  # C++ sources with CUDA headers and libraries: those lines, not the call (24b-8)
                    for node in links.values():
                        yield self.finding(ctx, node, "CUDA headers or torch's CUDA libraries given to a JIT build of C++ "
                                           "sources, which makes it a CUDA build: " + self.MESSAGE)
        yield from self._selected_or_globbed(ctx, reported, len(plain))

    def _forwarded_lines(self, ctx, call, forwarded):
        """`"with_cuda": True` in the keyword dict a reported JIT build receives as `**myargs` (label ruling (L13):
        the switch that makes it a CUDA build); its `"extra_cuda_cflags"` key is reported as an nvcc flag list."""
        value = forwarded.get("with_cuda")
        if _is_true(value) and value.lineno != call.lineno:
            yield self.finding(ctx, value, "a build told to compile with CUDA: " + self.MESSAGE)

    def _inner_lines(self, ctx, call):
        """Lines of a multi-line build call that a porter edits besides the call's first line: each
        line holding a `.cu`/`.cuh` source, the `"nvcc"` flag key, the `extra_cuda_cflags=` keyword and
        `with_cuda=True` (one finding per line)."""
        lines: dict[int, tuple[ast.AST, str]] = {}
        for keyword in call.keywords:
            if keyword.arg == "extra_cuda_cflags" and _given(keyword.value) and keyword.value.lineno != call.lineno:
                lines.setdefault(keyword.value.lineno, (keyword.value, "nvcc flags of the extension build: "))
            elif keyword.arg == "with_cuda" and (_is_true(keyword.value) or isinstance(keyword.value, ast.Name)) \
                    and keyword.value.lineno != call.lineno:  # `load(..., with_cuda=True)`, `create_extension(..., with_cuda=flag)`
                lines.setdefault(keyword.value.lineno, (keyword.value, "a build told to compile with CUDA: "))
            elif keyword.arg in CUDA_SWITCH_KEYWORDS and _is_true(keyword.value) and keyword.value.lineno != call.lineno:
                # a project helper's own switch (`load_pb11(srcs, target, cwd, cuda=True)`, label ruling (L96))
                lines.setdefault(keyword.value.lineno, (keyword.value, "a build told to compile with CUDA: "))
        for node in walk_nodes(call):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or node.lineno == call.lineno:
                continue
            if node.value.strip().endswith(_CUDA_SUFFIXES) and "\n" not in node.value:
                lines.setdefault(node.lineno, (node, "CUDA sources of the extension: "))
            elif node.value == "nvcc" and self._is_key(ctx, node):
                lines.setdefault(node.lineno, (node, "nvcc compile flags of an extension build: "))
            elif _CUDA_MACRO.search(node.value):
                lines.setdefault(node.lineno, (node, "a CUDA build macro: "))
        for node in walk_nodes(call):
            if _is_nvcc_keyword(ctx, node) and node.lineno != call.lineno:
                lines.setdefault(node.lineno, (node, "nvcc compile flags of an extension build: "))
            elif _cuda_home_read(ctx, node) and node.lineno != call.lineno:
                lines.setdefault(node.lineno, (node, "the CUDA toolkit's home read from the environment for the build "
                                               "(`CUDA_HOME`, unset on an Ascend host): "))
        for line in sorted(lines):
            node, lead = lines[line]
            yield self.finding(ctx, node, lead + self.MESSAGE)

    def _selected_or_globbed(self, ctx, reported, plain=0):
        """`ext = CUDAExtension if use_cuda else CppExtension` (a reference, not a call) and `.cu`
        sources added to the build outside a reported call (`glob("kernels/*.cu")`). A file whose only builds are
        setuptools extensions with `.cu` sources is read at those calls only (the nvcc hook around them,
        `self.src_extensions.append('.cu')`, `find_in_path('nvcc', ...)`, is its build helper, not a source list)."""
        if "cpp_extension" not in ctx.source and len(reported) == plain:  # a file building through a project helper or cffi
            # (stylegan2-ada: `sources = ['bias_act.cpp', 'bias_act.cu']` then `get_plugin(..., sources=sources, ...)`);
            # a file building a setuptools extension still reports the macro that compiles its sources' GPU path
            # (HawkAaron/warp-transducer tensorflow_binding/setup.py: `extra_compile_args += ['-DWARPRNNT_ENABLE_GPU']`)
            if any(ctx.qualname(call.func) in _PLAIN_EXTENSIONS for call in ctx.nodes.get(ast.Call, ())):
                for node in ctx.nodes.get(ast.Constant, ()):
                    if isinstance(node.value, str) and _CUDA_MACRO.search(node.value):
                        yield self.finding(ctx, node, "a CUDA build macro (the C++ sources compile their CUDA path under "
                                           "it): " + self.MESSAGE)
            return
        inside = {id(node) for call in reported for node in walk_nodes(call)}
        for node in list(ctx.nodes.get(ast.Name, ())) + list(ctx.nodes.get(ast.Attribute, ())):
            if id(node) in inside or not isinstance(node.ctx, ast.Load):
                continue
            parent = ctx.parent(node)
            if isinstance(parent, ast.Call) and parent.func is node or isinstance(parent, ast.Attribute):
                continue
            if ctx.qualname(node) == f"{_EXT}.CUDAExtension":
                yield self.finding(ctx, node)
        for node in ctx.nodes.get(ast.keyword, ()):
            if id(node) not in inside and _is_nvcc_keyword(ctx, node):
                yield self.finding(ctx, node, "nvcc compile flags of an extension build: " + self.MESSAGE)
        shipped = {id(n) for kw in ctx.nodes.get(ast.keyword, ()) if kw.arg in _DATA_KEYWORDS for n in walk_nodes(kw.value)}
        # the header a code generator writes (`compile_slang_kernel(kernel_files=[...], output_file=".../k.cuh")`: a
        # `slangc -target cuda` run whose output the build includes): an output, no source added to a build here
        shipped |= {id(n) for kw in ctx.nodes.get(ast.keyword, ()) if kw.arg in _OUTPUT_KEYWORDS for n in walk_nodes(kw.value)}
        flags: dict[tuple, list] = {}  # one finding per nvcc flag list: its anchor and how many flags it holds
        fed: set[str] | None = None  # the names joined into an nvcc key's list, read at the first flag string
        for node in ctx.nodes.get(ast.Constant, ()):
            if id(node) in inside or not isinstance(node.value, str):
                continue
            if node.value.strip().endswith(_CUDA_SUFFIXES) and id(node) in shipped:
                continue  # files copied into the wheel, not compiled
            if node.value.strip().endswith(_CUDA_SUFFIXES) and "\n" not in node.value and len(node.value) < 200:
                yield self.finding(ctx, node, "CUDA sources added to an extension build: " + self.MESSAGE)
            elif node.value == "nvcc" and self._is_key(ctx, node):
                yield self.finding(ctx, node, "nvcc compile flags of an extension build: " + self.MESSAGE)
            elif node.value == "nvcc" and isinstance(ctx.parent(node), ast.Subscript):
                continue  # `args["nvcc"].append(...)`: adds to the list its key made (`_is_key`)
            elif node.value == "nvcc" and isinstance(ctx.parent(node), ast.Compare) and ctx.parent(node).left is node \
                    and all(isinstance(op, (ast.In, ast.NotIn)) for op in ctx.parent(node).ops):
                continue  # `if "nvcc" not in extra_compile_args:` asks for the key (47b setup.py:102), runs nothing
            elif _CUDA_MACRO.search(node.value):
                yield self.finding(ctx, node, "a CUDA build macro (the C++ sources compile their CUDA path under it): " + self.MESSAGE)
            elif _NVCC_TEXT.search(node.value) and len(node.value) < 200:
                # (not the tool's path an environment report joins: `osp.join(CUDA_HOME, 'bin/nvcc')`, its run is the use)
                if (not _version_probe(ctx, node) and not tool_presence_probes.probed_tool_string(ctx, node)
                        and not environment_reports.tool_path(ctx, node, f"{_EXT}.CUDA_HOME")):
                    yield self.finding(ctx, node, "nvcc (CUDA compiler) invocation: " + self.MESSAGE)
            elif _NVCC_FLAG.search(node.value) and len(node.value) < 200:
                key, anchor = _flag_list(ctx, node)
                if anchor is not None:
                    fed = _names_fed_to_nvcc_key(ctx) if fed is None else fed
                    if _list_name(ctx, anchor) in fed:
                        key, anchor = ("fed", _list_name(ctx, anchor)), None  # part of the key's one list
                entry = flags.setdefault(key, [anchor, 0])
                entry[1] += 1
                if anchor is not None and (anchor.lineno, anchor.col_offset) < (entry[0].lineno, entry[0].col_offset):
                    entry[0] = anchor  # the first `.append(...)` of the list
        for anchor, count in flags.values():
            if anchor is not None:  # None: the list of an `"nvcc"` key, reported at the key
                yield self.finding(ctx, anchor, f"a list of nvcc flags holding {count} CUDA-only flag"
                                   f"{'s' if count != 1 else ''} (GPU architectures `-gencode arch=compute_XX,code=sm_XX`, "
                                   "`--expt-*`; reported once for the list): " + self.MESSAGE)
    def _cuda_home(self, ctx, reported, gate_lines=frozenset()):
        """`CUDA_HOME` read outside a reported build call (a check or a probe, not a build line: a CUDA gate
        holding only such a read is no gate of a build, `_cuda_gates`)."""
        if "cpp_extension" not in ctx.source and not reported:
            return
        inside = {id(node) for call in reported for node in walk_nodes(call)}
        seen: set[int] = set()
        # `CUDA_HOME` imported by name, or `cpp_extension.CUDA_HOME`
        reads = [node for node in list(ctx.nodes.get(ast.Name, ())) + list(ctx.nodes.get(ast.Attribute, ()))
                 if isinstance(node.ctx, ast.Load) and ctx.qualname(node) == f"{_EXT}.CUDA_HOME"]
        # in a file that builds nothing, an environment report's reads (`env_info['CUDA_HOME'] = CUDA_HOME`):
        # no build and no check (label ruling (L37); migrate/environment_reports.py)
        described = environment_reports.report_reads(ctx, reads) if not reported else set()
        for node in reads:
            if id(node) not in described:
                statement = statement_of(ctx, node)
                if statement.lineno in gate_lines:  # `if torch.cuda.is_available() and CUDA_HOME is not None:` is one gate
                    continue
                test = getattr(statement, "test", None)  # a gate whose test opens a parenthesis, reported at its question
                if isinstance(statement, ast.If) and any(statement.lineno < line <= (test.end_lineno or test.lineno) for line in gate_lines):
                    continue
                if id(statement) not in seen and id(node) not in inside and not self._in_gate_else(ctx, node) \
                        and not _called_nowhere(ctx, node) and not (not reported and _handed_to_a_call(ctx, statement)):
                    seen.add(id(statement))
                    yield self.finding(
                        ctx, node,
                        "`CUDA_HOME` (the CUDA toolkit) is None on an Ascend host: a build or check that needs it "
                        "fails there; the Ascend toolkit is ASCEND_HOME_PATH, and the kernels must be ported to Ascend C",
                    )
                    for stop in _raises_without(statement, node) if reported else ():  # a file that builds
                        yield self.finding(ctx, stop, "raises here without the CUDA toolkit (`CUDA_HOME` is None), "
                                           "which an Ascend host lacks; the build stops: " + self.MESSAGE)
                    parent = ctx.parent(node)
                    if isinstance(parent, ast.Call) and node in parent.args:  # the requirement the probe decides
                        for check in _requirement_raises(ctx, parent):
                            if id(check) not in seen:
                                seen.add(id(check))
                                yield self.finding(
                                    ctx, check,
                                    "a CUDA toolkit version requirement (nvcc's version read from `CUDA_HOME`) that "
                                    "raises: there is no nvcc on an Ascend host, so the build stops here; drop the "
                                    "check in the Ascend build and port the kernels to Ascend C",
                                )

    @staticmethod
    def _in_gate_else(ctx, node) -> bool:
        """`if (... or torch.cuda.is_available()) and CUDA_HOME is not None: <CUDA build> else: if CUDA_HOME is None:
        raise ...` (Mask2Former's ops/setup.py): the `else` of a gate that already tests CUDA_HOME (reported there)
        only says why the build cannot go on: one gate, one finding. Not a test that raises when the toolkit is
        missing, `if CUDA_HOME is None: raise ...` (MaskDINO, the same block; label ruling (L35)): the build stops there
        on an Ascend host, a line to change."""
        statement = statement_of(ctx, node)
        if isinstance(statement, ast.If) and any(n is node for n in walk_nodes(statement.test)) \
                and any(isinstance(s, ast.Raise) for s in statement.body):
            return False
        child, parent = node, ctx.parent(node)
        while parent is not None:
            if isinstance(parent, ast.If) and any(child is s for s in parent.orelse) and any(
                    isinstance(n, (ast.Name, ast.Attribute)) and ctx.qualname(n) == f"{_EXT}.CUDA_HOME" for n in walk_nodes(parent.test)):
                return True
            child, parent = parent, ctx.parent(parent)
        return False

    @staticmethod
    def _is_key(ctx, node) -> bool:
        """`{"nvcc": [...]}` / `args["nvcc"] = [...]`: the string names nvcc's flag list."""
        parent = ctx.parent(node)
        if isinstance(parent, ast.Dict):
            return any(k is node for k in parent.keys)
        # the assignment that makes the list; `args["nvcc"].append("-ccbin=...")` / `args["nvcc"] += [...]` add to the
        # list an assignment or a dict made (AdelaiDet setup.py): the same flag list, reported once at its key
        if not (isinstance(parent, ast.Subscript) and parent.slice is node and isinstance(parent.ctx, ast.Store)
                and not isinstance(ctx.parent(parent), ast.AugAssign)):
            return False
        # an empty list made in the branch without CUDA (`else: args["nvcc"] = []`, GroundingDINO setup.py; label rule
        # 32d-9) holds no flag, unless the file adds to an nvcc list (`args["nvcc"].append(...)`, `+=`)
        assign = ctx.parent(parent)
        empty = isinstance(assign, ast.Assign) and isinstance(assign.value, (ast.List, ast.Tuple)) and not assign.value.elts
        return not empty or _nvcc_list_grown(ctx) or _picks_cuda_extension_beside(ctx, assign)


def _picks_cuda_extension_beside(ctx, stmt) -> bool:
    """`stmt` stands in the CUDA branch: a statement of its own block picks `CUDAExtension` (`extension = CUDAExtension`,
    then `extra_compile_args['nvcc'] = [` with only commented-out flags, InternImage ops_dcnv3 setup.py; label ruling
    (L100): the first write of the key in the CUDA branch is the line even when the list is empty)."""
    holder = ctx.parent(stmt)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(holder, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return any(isinstance(n, (ast.Name, ast.Attribute)) and ctx.qualname(n) == f"{_EXT}.CUDAExtension"
                       for s in block if s is not stmt for n in walk_nodes(s))
    return False


def _nvcc_list_grown(ctx) -> bool:
    """The file adds flags to a list it keyed "nvcc" (`args["nvcc"].append(...)`, `args["nvcc"] += [...]`)."""
    for node in ctx.nodes.get(ast.Subscript, ()):
        if isinstance(node.slice, ast.Constant) and node.slice.value == "nvcc":
            parent = ctx.parent(node)
            if isinstance(parent, ast.AugAssign) or isinstance(parent, ast.Attribute) and parent.attr in ("append", "extend", "insert"):
                return True
    return False


# CUDA C kernel source in a string: a `__global__` function that reads its thread / block index
_CUDA_C_KERNEL = re.compile(r"\b__global__\b(?s:.*)\b(?:blockIdx|threadIdx)\b")
# packages whose own rules read a CUDA source string given to them (cupy.RawKernel, pycuda SourceModule, numba,
# load_inline's `cuda_sources=`, triton), and the standard library (`textwrap.dedent(...)` only reshapes the text)
_OWN_CUDA_COMPILERS = frozenset({"torch", "cupy", "cupyx", "pycuda", "numba", "cuda", "triton"})


def _library_text(ctx, node, depth: int = 0) -> str:
    """The known text of a library path: literals, f-string and `+` parts, and local names bound once in the same
    scope to such a value (`libpath = f"{build}/lib/{libname}"`, `libname = "libx_mps.dylib"`); an unknown part is
    empty."""
    if depth > 8:
        return ""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    if isinstance(node, ast.JoinedStr):
        return "".join(_library_text(ctx, part, depth + 1) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        return _library_text(ctx, node.value, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _library_text(ctx, node.left, depth + 1) + _library_text(ctx, node.right, depth + 1)
    if isinstance(node, ast.Name):
        values = [statement.value for statement in walk_scope(enclosing_scope(ctx, node))
                  if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
                  and any(isinstance(t, ast.Name) and t.id == node.id
                          for t in (statement.targets if isinstance(statement, ast.Assign) else (statement.target,)))]
        return _library_text(ctx, values[0], depth + 1) if len(values) == 1 else ""
    return ""


def _other_backend_library(ctx, node) -> bool:
    """`torch.ops.load_library` of a file whose known name is another backend's build (mps / metal / cpu, a macOS
    `.dylib`): not a CUDA kernel library."""
    return bool(_OTHER_BACKEND_LIBRARY.search(_library_text(ctx, node).rsplit("/", 1)[-1]))


def _runtime_cuda_source(ctx, call, name) -> bool:
    """A string of CUDA C kernel source given as an argument to a function of the project (microsoft/tutel
    jit_kernels/sparse.py: `JitCompiler.generate_kernel({...}, <a string: extern "C" __global__ void execute(...)
    { ... blockIdx.x ... threadIdx.x ... }>)`, which hands it to the project's extension compiling it with NVRTC):
    a run-time build of a CUDA kernel (label W-(w7), (L10)), at the call line. Not a call of a package that has its
    own rule for it, nor of the standard library."""
    if name is not None and name.split(".", 1)[0] in _OWN_CUDA_COMPILERS | sys.stdlib_module_names:
        return False
    return any(isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "__global__" in arg.value
               and _CUDA_C_KERNEL.search(arg.value) for arg in list(call.args) + [k.value for k in call.keywords])


_CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c")


def _constructor_given(ctx, call, keyword: str) -> bool:
    """The build's `keyword=` reads `self.X`, which the class's `__init__` binds straight from its own parameter
    (optimum-quanto-style `class Extension: def __init__(self, name, sources, extra_cuda_cflags=None): ...
    self.extra_cuda_cflags = extra_cuda_cflags`, whose `lib` property runs `load(..., extra_cuda_cflags=
    self.extra_cuda_cflags)`): a loader class for every backend, whose build is CUDA only where a construction
    gives it nvcc flags or `.cu` sources, reported there (migrate/loader_objects.py; label note 45d d-1)."""
    value = ctx.keyword(call, keyword)
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"):
        return False
    cls = ctx.enclosing(call, (ast.ClassDef,))
    if cls is None:
        return False
    for init in cls.body:
        if isinstance(init, ast.FunctionDef) and init.name == "__init__":
            params = {a.arg for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)}
            bound = [n for n in walk_nodes(init) if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                and t.attr == value.attr for t in n.targets)]
            return bool(bound) and all(isinstance(n.value, ast.Name) and n.value.id in params - {"self"} for n in bound)
    return False


def _cpp_only_sources(ctx, call, sources) -> bool:
    """The sources of a JIT build are known to be C/C++ only: the strings of its `sources=` (a literal list, a
    module-level list it reads by name, or `self.<method>()` / `<function>()` of the same file, every definition of
    that name read: a base class's and its subclasses') name C/C++ files or globs and no CUDA file."""
    if sources is None:
        return False
    texts = [n.value.strip() for n in walk_nodes(sources) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    texts += named_sources(ctx, call)
    if isinstance(sources, ast.Call) and not sources.args and isinstance(sources.func, (ast.Attribute, ast.Name)):
        method = sources.func.attr if isinstance(sources.func, ast.Attribute) else sources.func.id
        for function in ctx.nodes.get(ast.FunctionDef, ()):
            if function.name == method:
                texts += [n.value.strip() for n in walk_nodes(function) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return any(text.endswith(_CPP_SUFFIXES) for text in texts) and not any(text.endswith(_CUDA_SUFFIXES) for text in texts)


def _cuda_content_on_its_line(ctx, call) -> bool:
    """The first line of a build call carries CUDA content of its own: a `.cu` source, the `"nvcc"` key or an nvcc
    keyword, a CUDA macro (label ruling (L9): `extension(` through a variable bound to `CUDAExtension` is reported
    at the selection `extension = CUDAExtension`; the call is a label only when its own line says CUDA)."""
    for node in walk_nodes(call):
        if getattr(node, "lineno", None) != call.lineno:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                node.value.strip().endswith(_CUDA_SUFFIXES) or node.value == "nvcc" or _CUDA_MACRO.search(node.value)):
            return True
        if isinstance(node, ast.keyword) and (node.arg in ("extra_cuda_cflags", "nvcc") or
                                              node.arg == "with_cuda" and _is_true(node.value)):
            return True
    return False


def _cuda_choosing_helpers(ctx, variables) -> dict[str, tuple[str, int, bool]]:
    """Module-level functions of the file that build an extension through a variable bound to `CUDAExtension` in
    one branch of an `if` (or a conditional expression) testing one of their parameters (microsoft/tutel setup.py:
    `def install(use_cuda, use_nccl): if not use_cuda: extension = CppExtension else: extension = CUDAExtension` ...
    `extension('m', [...])` inside `setup(...)`): name -> (the parameter, its position, the truth value that picks
    CUDA). Label ruling (L10)/(L17): a call of such a helper that picks CUDA is a build call."""
    out: dict[str, tuple[str, int, bool]] = {}
    for function in ctx.tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        params = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
        if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in variables
                   for n in walk_nodes(function)):
            continue  # it builds nothing through the variable
        for node in walk_nodes(function):
            if not isinstance(node, (ast.If, ast.IfExp)):
                continue
            test, negated = node.test, False
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, True
            if not (isinstance(test, ast.Name) and test.id in params):
                continue
            if isinstance(node, ast.IfExp):
                in_body = ctx.qualname(node.body) == f"{_EXT}.CUDAExtension"
                in_else = ctx.qualname(node.orelse) == f"{_EXT}.CUDAExtension"
            else:
                in_body, in_else = (any(isinstance(s, ast.Assign) and ctx.qualname(s.value) == f"{_EXT}.CUDAExtension"
                                        and any(isinstance(t, ast.Name) and t.id in variables for t in s.targets)
                                        for statement in block for s in walk_nodes(statement))
                                    for block in (node.body, node.orelse))
            if in_body != in_else:
                out[function.name] = (test.id, params.index(test.id), in_body != negated)
                break
    return out


def _chooses_cuda(ctx, call, choosers) -> str | None:
    """`install(use_cuda=True)`: a call of a helper of `_cuda_choosing_helpers` whose literal argument for the
    deciding parameter picks `CUDAExtension`; the parameter's name, or None."""
    if not isinstance(call.func, ast.Name) or call.func.id not in choosers:
        return None
    param, position, truth = choosers[call.func.id]
    value = ctx.keyword(call, param)
    if value is None and position < len(call.args):
        value = call.args[position]
    if isinstance(value, ast.Constant) and bool(value.value) == truth:
        return f"{param}={value.value!r}"
    return None


def _cuda_branch(ctx, node) -> list | None:
    """The statements an `if` runs on the CUDA path: its body where the test asks for CUDA (`_asks_cuda`), its
    `else` where the test is the negation (`if "CUDA_HOME" not in os.environ: ... else: ...`); None otherwise."""
    if _asks_cuda(ctx, node.test):
        return node.body
    test = node.test
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _asks_cuda(ctx, test.operand)
    if not negated and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn):
        negated = _asks_cuda(ctx, ast.Compare(left=test.left, ops=[ast.In()], comparators=test.comparators))
    return node.orelse or None if negated else None


def _asks_hip(ctx, test) -> bool:
    """`torch.version.hip is not None`, `torch.version.hip`, `IS_HIP_EXTENSION` (torch.utils.cpp_extension's), alone or
    as an operand of an `and` / `or`: the test asks whether torch is a ROCm build."""
    if isinstance(test, ast.BoolOp):
        return any(_asks_hip(ctx, value) for value in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    return isinstance(test, (ast.Name, ast.Attribute)) and ctx.qualname(test) in ("torch.version.hip", f"{_EXT}.IS_HIP_EXTENSION")


def _hip_branch_lines(ctx) -> frozenset[int]:
    """The lines of the branches a ROCm build takes (`elif torch.version.hip is not None or FORCE_ROCM: extension =
    CUDAExtension; extra_compile_args["hipcc"] = [...]`, bevfusion / mmdet3d-style make_cuda_ext), its test included
    (not a CUDA gate): torch's HIP build of an extension, named for another accelerator (label ruling (L15); set
    27c-4); the CUDA branch stays reported."""
    lines: set[int] = set()
    for node in ctx.nodes.get(ast.If, ()):
        if _asks_hip(ctx, node.test) and node.body and not any(  # not `if torch.version.cuda or torch.version.hip:`
                isinstance(n, (ast.Name, ast.Attribute)) and ctx.qualname(n) in ("torch.version.cuda", f"{_EXT}.CUDA_HOME")
                for n in walk_nodes(node.test)):  # the `if` / `elif` line (no CUDA gate) and its body
            lines.update(range(node.lineno, (node.body[-1].end_lineno or node.body[-1].lineno) + 1))
    flags = _hip_flags(ctx)
    for node in ctx.nodes.get(ast.If, ()) if flags else ():
        test, negated = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        if not (isinstance(test, ast.Name) and test.id in flags):
            continue
        branch = node.orelse if negated else node.body  # `if not is_rocm_pytorch: <CUDA> else: <HIP>`
        if branch:
            first = node.lineno if not negated else branch[0].lineno
            lines.update(range(first, (branch[-1].end_lineno or branch[-1].lineno) + 1))
    return frozenset(lines)


def _hip_flags(ctx) -> frozenset[str]:
    """Names bound once, to a test that asks whether torch is a ROCm build and reads nothing of CUDA (detectron2's
    setup.py: `is_rocm_pytorch = True if ((torch.version.hip is not None) and (ROCM_HOME is not None)) else False`,
    then `if not is_rocm_pytorch: <nvcc flags> else: define_macros += [("WITH_HIP", None)]; extra_compile_args["nvcc"]
    = []`): a test of the name alone (or of its negation) picks the ROCm branch."""
    bound: dict[str, list] = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, []).append(statement.value)
    out = set()
    for name, values in bound.items():
        if len(values) != 1:
            continue
        nodes = list(walk_nodes(values[0]))
        if any(_asks_hip(ctx, n) for n in nodes) and not any(
                isinstance(n, (ast.Name, ast.Attribute)) and ctx.qualname(n) in ("torch.version.cuda", f"{_EXT}.CUDA_HOME")
                for n in nodes):
            out.add(name)
    return frozenset(out)


def _gate_else_raises(node, branch) -> list:
    """The `raise` statements written directly in the branch of a CUDA gate that runs off CUDA (InternImage
    ops_dcnv3/setup.py: `if torch.cuda.is_available() and CUDA_HOME is not None: <CUDA build> else: raise
    NotImplementedError('Cuda is not availabel')`): on an Ascend host that branch runs and the build stops there
    (label ruling (L35): a raise when the CUDA toolkit is missing). So are the raises of a further test there whose every
    branch raises (Mask2Former / MinVIS ops/setup.py `else: if CUDA_HOME is None: raise ... else: raise ...`: the
    gate's other branch has no CPU build, each of its raises stops the build; set 55c's labels, as TransTrack's single
    raise in set 51); the inner `if` reading CUDA_HOME is reported by `_cuda_home`. Not a raise under a test with a
    branch that goes on (`else: if not quiet: raise ...`)."""
    if not isinstance(node, ast.If) or branch is None:
        return []
    other = node.orelse if branch is node.body else node.body
    return _stops(other)


def _stops(statements) -> list:
    """The raises of `statements` (a branch) written directly in it or in an `if` / `else` chain whose every branch
    ends in a raise (`_gate_else_raises`)."""
    found = []
    for statement in statements:
        if isinstance(statement, ast.Raise):
            found.append(statement)
        elif isinstance(statement, ast.If) and _all_raise(statement):
            found.extend(_stops(statement.body) + _stops(statement.orelse))
    return found


def _all_raise(node) -> bool:
    """Every branch of the `if` / `elif` / `else` chain `node` ends in a raise (an `else` is required)."""
    def ends(branch) -> bool:
        if not branch:
            return False
        last = branch[-1]
        return isinstance(last, ast.Raise) or (isinstance(last, ast.If) and _all_raise(last))
    return ends(node.body) and ends(node.orelse)


def _switches_a_build(ctx, branch, lines) -> bool:
    """The CUDA branch sets a flag (`enable_gpu = True`) that an `if enable_gpu:` of the file tests around a
    reported build line (HawkAaron/warp-transducer pytorch_binding/setup.py: `if torch.cuda.is_available() or
    "CUDA_HOME" in os.environ: enable_gpu = True` ... `if enable_gpu: extra_compile_args += ['-DWARPRNNT_ENABLE_GPU']`)."""
    flags = {t.id for statement in branch if isinstance(statement, ast.Assign) and _is_true(statement.value)
             for t in statement.targets if isinstance(t, ast.Name)}
    if not flags:
        return False
    for node in ctx.nodes.get(ast.If, ()):
        if isinstance(node.test, ast.Name) and node.test.id in flags:
            first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
            if any(first <= line <= last for line in lines):
                return True
    return False


def _question_line(ctx, node: ast.If) -> int:
    """The line of the gate's test where it asks about CUDA (`torch.cuda.is_available()`, `CUDA_HOME`): the `if`'s own
    line, unless its test opens a parenthesis there and asks on a later line (cvpods setup.py `if (` /
    `torch.cuda.is_available() and CUDA_HOME is not None ...` / `) or os.getenv("FORCE_CUDA", "0") == "1":`, labelled
    once where the question stands, as a multi-line command is at the line naming the tool, ruling (L45))."""
    lines = [n.lineno for n in walk_nodes(node.test)
             if (isinstance(n, (ast.Call, ast.Attribute, ast.Compare)) and _asks_cuda(ctx, n))
             or (isinstance(n, (ast.Name, ast.Attribute)) and ctx.qualname(n) == f"{_EXT}.CUDA_HOME")]
    first = min(lines, default=node.lineno)
    opens = re.fullmatch(r"(?:el)?if\s*\(+", ctx.lines[node.lineno - 1].split("#", 1)[0].strip()) is not None
    return first if opens and first > node.lineno else node.lineno


def _asks_cuda(ctx, test) -> bool:
    """`test` is `torch.cuda.is_available()` / `torch.has_cuda`, alone or as an operand of an `and`: it decides
    alone whether the CUDA path runs; also `"CUDA_HOME" in os.environ`, and an `or` of such questions and
    FORCE_CUDA-style environment overrides (warp-transducer's `torch.cuda.is_available() or "CUDA_HOME" in
    os.environ`; BasicSR's `torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1'`: the CUDA build, also
    when forced; label rule S-(s4), S20A-(s20a-3)). Not under `not` (that body is the path without CUDA), nor one
    operand of an `or` with anything else."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_asks_cuda(ctx, value) for value in test.values)
    if isinstance(test, ast.BoolOp):  # an `or` of CUDA questions and CUDA overrides only, at least one question
        asks = [value for value in test.values if not _forces_cuda(ctx, value)]
        return bool(asks) and all(_asks_cuda(ctx, value) for value in asks)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        # `"CUDA_HOME" in os.environ`: the CUDA toolkit's own variable set
        return isinstance(test.left, ast.Constant) and test.left.value in ("CUDA_HOME", "CUDA_PATH") \
            and ctx.qualname(test.comparators[0]) == "os.environ"
    if isinstance(test, ast.Call):  # also a presence probe of nvcc of the file (migrate/tool_presence_probes.py)
        return ctx.qualname(test.func) == "torch.cuda.is_available" or tool_presence_probes.asks_for(ctx, test, "nvcc")
    return isinstance(test, ast.Attribute) and ctx.qualname(test) == "torch.has_cuda"


# an environment variable that forces a CUDA build without a GPU at build time (BasicSR / mmcv / detectron2 setup.py
# `FORCE_CUDA`)
_FORCE_CUDA_VARIABLE = re.compile(r"^FORCE_(?:\w+_)?CUDA$")


def _forces_cuda(ctx, node) -> bool:
    """`os.getenv('FORCE_CUDA', '0') == '1'`, `os.environ.get("FORCE_CUDA")`, `int(os.environ["FORCE_CUDA"])`,
    `"FORCE_CUDA" in os.environ`: a test of a FORCE_CUDA-style environment override."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        if isinstance(node.ops[0], ast.In):
            return isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) \
                and bool(_FORCE_CUDA_VARIABLE.match(node.left.value)) and ctx.qualname(node.comparators[0]) == "os.environ"
        return _forces_cuda(ctx, node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "bool") and node.args:
        return _forces_cuda(ctx, node.args[0])
    if isinstance(node, ast.Call) and ctx.qualname(node.func) in ("os.getenv", "os.environ.get") and node.args:
        key = node.args[0]
    elif isinstance(node, ast.Subscript) and ctx.qualname(node.value) == "os.environ":
        key = node.slice
    else:
        return False
    return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(_FORCE_CUDA_VARIABLE.match(key.value))


def _is_nvcc_keyword(ctx, node) -> bool:
    """`dict(nvcc=[...], cxx=[...])`: the `nvcc` keyword of a `dict(...)` call names nvcc's flag list, like an `"nvcc"` key
    (DUSt3R/CroCo's curope setup.py: `extra_compile_args = dict(nvcc=['-O3', ...] + all_cuda_archs, cxx=['-O3'])`)."""
    if not isinstance(node, ast.keyword) or node.arg != "nvcc":
        return False
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "dict"


def _flag_list(ctx, node) -> tuple[tuple, ast.AST | None]:
    """The flag list an nvcc architecture flag belongs to, as (key, where to report it): a list literal
    (`nvcc_args = ['-gencode', 'arch=...', ...]`) at its first line, or None where it is the value of an
    `"nvcc"` key (`{'nvcc': [...]}`, `{'nvcc': threads([...]) + cc_flag}`, `args['nvcc'] = [...]`: the key is reported); `.append(...)` /
    `.insert(...)` statements on one list name in one function or module (`cc_flag.append("-gencode")`)
    at the first of them; any other flag string on its own."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Compare) or isinstance(parent, ast.Set):
        # `f != "--expt-relaxed-constexpr"`, `ignored_flags = {"--expt-relaxed-constexpr", ...}`: flags compared with
        # or looked up in a set (a build takes an ordered list) filter flags read back, they build nothing
        return ("filter", id(node)), None
    if isinstance(parent, (ast.List, ast.Tuple)):
        value, holder = parent, ctx.parent(parent)
        while isinstance(holder, (ast.Call, ast.BinOp)):  # `{"nvcc": threads([...])}`, `{"nvcc": [...] + cc_flag}`
            value, holder = holder, ctx.parent(holder)
        if isinstance(holder, ast.AugAssign) and holder.value is value:
            # `extra_cuda_cflags += ["--expt-relaxed-constexpr"]`: a step building the list the build call's
            # `extra_cuda_cflags=` keyword (reported there) hands to nvcc, not a label (ruling (L29))
            return ("step", id(parent)), None
        if isinstance(holder, ast.Dict) and any(
                v is value and isinstance(k, ast.Constant) and k.value == "nvcc" for k, v in zip(holder.keys, holder.values)):
            return ("list", id(parent)), None
        if _is_nvcc_keyword(ctx, holder):  # `dict(nvcc=[...] + archs)`: the keyword is the key
            return ("list", id(parent)), None
        if isinstance(holder, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "nvcc" for t in holder.targets):
            return ("list", id(parent)), None
        return ("list", id(parent)), parent
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in ("append", "insert"):
        scope = enclosing_scope(ctx, parent)
        return ("append", id(scope), ast.dump(parent.func.value)), parent
    return ("one", id(node)), node


def _nvcc_key_values(ctx):
    """The values of nvcc's flag-list keys: `extra_cuda_cflags=...`, `dict(nvcc=...)`, `{"nvcc": ...}`."""
    for node in ctx.nodes.get(ast.keyword, ()):
        if node.arg == "extra_cuda_cflags" or _is_nvcc_keyword(ctx, node):
            yield node.value
    for node in ctx.nodes.get(ast.Dict, ()):
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and key.value == "nvcc":
                yield value


def _names_fed_to_nvcc_key(ctx) -> set[str]:
    """Names of the lists joined into the value of an nvcc flag-list key (`extra_cuda_cflags=[...] + extra_cuda_flags
    + cc_flag`, BigVGAN alias_free_activation/cuda/load.py), and, where such a name is a parameter of the function
    around the key, the names passed for it by the calls of that function in the file: each is part of the key's one
    list (reported at the key), not a list of its own."""
    names: set[str] = set()
    for value in _nvcc_key_values(ctx):
        joined = {n.id for n in walk_nodes(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        names |= joined
        function = enclosing_scope(ctx, value)
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        for call in ctx.nodes.get(ast.Call, ()):
            if not (isinstance(call.func, ast.Name) and call.func.id == function.name):
                continue
            passed = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
            names |= {arg.id for param, arg in passed if param in joined and isinstance(arg, ast.Name)}
    return names


def _list_name(ctx, anchor) -> str | None:
    """The name a flag list is bound to: `flags = [...]` (the list literal) or `flags.append(...)` (the call), or the
    function that returns the list literal (`'nvcc': get_cuda_arch_flags()`, spcl/QuaRot setup.py: one list, at the key)."""
    if isinstance(anchor, ast.Call) and isinstance(anchor.func, ast.Attribute) and isinstance(anchor.func.value, ast.Name):
        return anchor.func.value.id
    holder = ctx.parent(anchor)
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        return holder.targets[0].id
    # `NVCC_FLAGS += ["-gencode", f"arch=compute_{num},code=sm_{num}"]` / `flags.extend([...])`: flags added to a list
    # (mit-han-lab/qserve kernels/setup.py); where that list is an "nvcc" key's value, the key is its one finding (L29)
    if isinstance(holder, ast.AugAssign) and isinstance(holder.target, ast.Name) and holder.value is anchor:
        return holder.target.id
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Attribute) and holder.func.attr == "extend" \
            and isinstance(holder.func.value, ast.Name):
        return holder.func.value.id
    if isinstance(holder, ast.Return):  # `def get_cuda_arch_flags(): return ['-gencode', ...]` called in the key's value
        function = enclosing_scope(ctx, holder)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return function.name
    return None


def ffi_with_cuda(ctx, call) -> bool:
    """A `torch.utils.ffi.create_extension(...)` call that links CUDA: `with_cuda=` other than a literal
    False / None (a variable is switched on where CUDA is available), or an nvcc-compiled `.cu.o` object."""
    flag = ctx.keyword(call, "with_cuda")
    if flag is not None and not (isinstance(flag, ast.Constant) and flag.value in (False, None)):
        return True
    return _mentions_cuda_source(call)


_TOOLKIT_HOMES = ("CUDAHOME", "CUDA_HOME", "CUDA_PATH")


def _raises_without(statement, read) -> list:
    """`if CUDA_HOME is None: raise RuntimeError(...)` (`not CUDA_HOME` too), `read` being the test's CUDA_HOME: the
    raises directly in its body, where the build stops on a host without the toolkit (label ruling (L35): the raise
    is a label beside the test, mit-han-lab/omniserve kernels/setup.py, MaskDINO's ops/setup.py)."""
    if not isinstance(statement, ast.If):
        return []
    test = statement.test
    missing = (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and test.operand is read) or (
        isinstance(test, ast.Compare) and test.left is read and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)
    return [s for s in statement.body if isinstance(s, ast.Raise)] if missing else []


def _missing_test(test) -> str | None:
    """The name an `if` tests for being unset: `x is None`, `x == None`, `not x`; None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.Is, ast.Eq)) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        return test.left.id
    return None


def _setup_script(ctx) -> bool:
    """The file calls setuptools' / distutils' `setup(...)` at module level (also under `if __name__ == "__main__":`):
    a build script, whatever its extensions compile."""
    for node in ctx.nodes.get(ast.Call, ()):
        if ctx.qualname(node.func) in ("setuptools.setup", "distutils.core.setup") \
                and ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) is None:
            return True
    return False


def _cuda_home_read(ctx, node) -> bool:
    """`os.environ.get('CUDA_HOME', '/usr/local/cuda')`, `os.getenv("CUDA_PATH")`, `os.environ["CUDA_HOME"]`: the CUDA
    toolkit's home read from the environment inside a build call (`extra_include_paths=[os.environ.get('CUDA_HOME',
    '/usr/local/cuda') + "/include"]` of a JIT `load()` of `.cu` sources): CUDA_HOME in a build, label ruling (L37)."""
    def named(chain) -> str:  # `os` may come in through a star import (`from pkg.utils import *`): read as written
        return ctx.qualname(chain) or (ast.unparse(chain) if isinstance(chain, ast.Attribute) else "")

    if isinstance(node, ast.Call) and named(node.func) in ("os.environ.get", "os.getenv") and node.args:
        key = node.args[0]
    elif isinstance(node, ast.Subscript) and named(node.value) == "os.environ":
        key = node.slice
    else:
        return False
    return isinstance(key, ast.Constant) and key.value in _TOOLKIT_HOMES
