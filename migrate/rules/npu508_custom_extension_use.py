import ast
import dataclasses
import re

from migrate import (
    callable_aliases,
    called_kernels,
    compiled_values,
    cpu_builds,
    cpu_fallbacks,
    cpu_kernel_ops,
    default_kernels,
    deps,
    flagged_extensions,
    gpu_name_suffix,
    kernel_values,
    knowledge,
    loader_objects,
    none_stand_ins,
    npu_aware,
    op_register_aliases,
    repo_index,
    shared_names,
    source_set_tables,
    submodules,
)
from migrate.called_kernels import CALLED, LAZY_OP
from migrate.findings import Category, Severity
from migrate.rules._device_helpers import annotation, availability_probe, chain_tops, report_node, shadowed
from migrate.rules._text import is_prose
from migrate.rules.base import Invalid, Rule

_ERROR = "does not exist on an NPU host until its kernels are ported to Ascend C (registered with torch_npu) or replaced by torch / torch_npu ops"
# the last: the private loader of a JIT build's cached module (`_import_module_from_library(name, build_dir, True)`)
_LOAD_BUILT = "torch.utils.cpp_extension._import_module_from_library"
_LOADERS = ("importlib.import_module", "ctypes.CDLL", "ctypes.cdll.LoadLibrary", "ctypes.PyDLL", "torch.ops.load_library",
            _LOAD_BUILT)
_WRAPPED = "runs only once the kernel inside the wrapper is ported (the call itself need not change)"
_PASTED_OP = re.compile(r"\s*([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)")  # `qtip_kernels.decompress_...` at a code string's start
_WARNING = "check that it has an NPU implementation (a CUDA or Triton kernel does not run on an NPU)"


# the two objects a cffi-built module exposes (cffi docs, "Main mode of usage": `from _example import ffi, lib`);
# torch.utils.ffi's create_extension builds with cffi
_CFFI_OBJECTS = frozenset({"lib", "ffi"})


def _reimported_member(definition) -> bool:
    """A member of a compiled module (an op or class: `from .ml_nms_rotated_cuda import ml_nms_rotated` in a package
    `__init__`) imported again by name through the repository's Python modules (`from pkg.ops import ml_nms_rotated`,
    `from .ml_nms_rotated import ml_nms_rotated` in pkg/ops/__init__.py): a Python binding that runs nothing, like an
    alias (label note 44b b-4, (L46)/(L52)); the import from the compiled module and the calls stay reported. Not the
    compiled module itself re-imported (`from exllamav2.ext import exllamav2_ext`, `from ._backend import _C`), nor a
    wrapper or accessor."""
    return definition.kind == "value" and definition.mode == "via" and definition.member


def _handed_over(ctx, node, qual: str, module: str) -> bool:
    """The module object itself given to a call (`dir(_lib)`, `getattr(_lib, name)`, `_wrap_function(fn, _ffi)`:
    torch.utils.ffi's generated `__init__` re-exporting a compiled library): no op is called on that line;
    its import and the calls of its functions are the lines that change. An op of the module given as a value
    (`from amp_C import multi_tensor_l2norm`, then `applier(multi_tensor_l2norm, buf, lists)`) is a use of the op."""
    parent = ctx.parent(node)
    if not (isinstance(node, ast.Name) and isinstance(parent, ast.Call) and parent.func is not node and
            any(a is node for a in parent.args)):
        return False
    return qual == module or qual.rsplit(".", 1)[-1] in _CFFI_OBJECTS


def _cpu_built(index, module: str) -> bool:
    """The extension `module` stands for is built without CUDA too (migrate/cpu_builds.py): `module` itself, or, for a
    value of the repository standing for a compiled module or op (`soft_nms = _C.soft_nms` in layers/nms.py,
    re-exported by layers/__init__.py and imported by name elsewhere), the extension it holds (its `why`): GLIP's
    `soft_nms(boxes.cpu(), score.cpu(), ...)` through that re-export runs the CPU build's op on host tensors
    (migrate/cpu_inputs.py, label note 58b), as `_C.soft_nms(boxes.cpu(), ...)` does."""
    if cpu_builds.has_cpu_build(index.cpu_built, module):
        return True
    definition = index.modules.get(module)
    return definition is not None and definition.kind == "value" and definition.why != module \
        and cpu_builds.has_cpu_build(index.cpu_built, definition.why)


def _op_alias(alias, index) -> bool:
    """Every chain the alias may hold is an op of a compiled module (`_C.ml_nms`), not the module itself nor a
    registered `torch.ops` op."""
    for qual, _ in alias.keys:
        module = index.module_for(qual)
        if module is None or qual == module:
            return False
    return True


def _read(ctx, name: str) -> bool:
    """The file reads `name` anywhere (a call, a value handed on, `global`): not only a binding re-exported."""
    return any(isinstance(n.ctx, ast.Load) and n.id == name for n in ctx.nodes.get(ast.Name, ()))


def _accessor_local(ctx, node) -> bool:
    """The chain's root is a local of its function bound there to an accessor's result (`backend = _require_backend()`,
    `_bind_accessor_results`), not a parameter or another local shadowing a module-level name."""
    bound = ctx.__dict__.get("_accessor_locals")
    if not bound or not isinstance(node, ast.Attribute):  # the local alone (`_CACHE = backend`) calls nothing
        return False
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return isinstance(root, ast.Name) and function is not None and (id(function), root.id) in bound


def _passed_on(ctx, node, definition) -> bool:
    """`return _backend._C`: a function handing on the extension another module holds (an accessor,
    kernel_values.wrapper_values) calls nothing on it; its callers' op calls are the uses (label rule 24b-7)."""
    return definition.kind == "value" and isinstance(node, ast.Attribute) and isinstance(ctx.parent(node), ast.Return)


def _cached_for_return(ctx, node, qual: str, module: str) -> bool:
    """`_cached_plugin = renderutils_plugin` in an accessor that returns that name (nvdiffrec-style `_get_plugin()`:
    JIT-load, import, cache in a global, `return _cached_plugin`): the module itself stored for the accessor to hand
    on calls nothing; the import and the callers' op calls (`_get_plugin().op(...)`) are the lines that change, as
    for `return _backend._C` (`_passed_on`)."""
    parent = ctx.parent(node)
    if not (isinstance(node, ast.Name) and qual == module and isinstance(parent, ast.Assign) and parent.value is node
            and all(isinstance(t, ast.Name) for t in parent.targets)):
        return False
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    names = {t.id for t in parent.targets}
    # the module-level cache (`global`), bound in the function by this line only: not a local walked on to an op
    # (gsplat's `obj = _C` then `obj = getattr(obj, part)`, an op lookup: label 24b)
    cache = {name for n in ast.walk(function) if isinstance(n, ast.Global) for name in n.names} & names
    stores = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id in cache and isinstance(n.ctx, ast.Store)]
    return bool(cache) and len(stores) == len(cache) and any(
        isinstance(r, ast.Return) and isinstance(r.value, ast.Name) and r.value.id in cache for r in ast.walk(function))


# an op that builds an object of the extension's C++/CUDA class (cubvh's `create_cuBVH`, `HashTable()`,
# `from_state_dict`), not one that returns a tensor (`fused_op.backward(...)`: its `.reshape()` is torch's)
_CONSTRUCTOR = re.compile(r"^(?:[A-Z]|(?:create|make|new|build|from|init)_?[A-Za-z_])")


# torch.Tensor's methods that are no aten op (torch 2.14.1 torch/_C/__init__.pyi, `class TensorBase`, public
# `def` names absent from native_functions.yaml): with the aten ops (knowledge.aten_op_names()) they are the
# methods of a tensor, which an op named like a constructor may return (neural_renderer's
# `image = create_texture_image_cuda.create_texture_image(...)`, then `image.detach().cpu()`)
_TENSOR_ONLY_METHODS = frozenset({
    "apply_", "as_subclass", "bfloat16", "bool", "byte", "char", "cpu", "cuda", "data_ptr", "double", "element_size",
    "float", "half", "int", "long", "map2_", "map_", "ndimension", "nelement", "new", "new_tensor", "numpy", "short",
    "storage_type", "tolist", "type", "untyped_storage", "xpu",
})


def _own_attribute(ctx, node) -> bool:
    """`wkv_kernel.context_size` where the file itself sets `wkv_kernel.context_size = context_size` on the loaded
    module (RWKV-style kernel caches remember the size they were built for): an attribute the repository stores on the
    module object is its own data, no op of the extension (a read of it runs no kernel)."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return False
    stored = ctx.__dict__.get("_npu508_stored_attributes")
    if stored is None:
        stored = ctx.__dict__["_npu508_stored_attributes"] = frozenset(
            (n.value.id, n.attr) for n in ctx.nodes.get(ast.Attribute, ())
            if isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name))
    return (node.value.id, node.attr) in stored


def _redefined(ctx, node) -> bool:
    """The chain's root name is an imported op that a top-level `def` / `class` of the file rebinds: PointPillars'
    iou3d_module.py imports `nms_normal_gpu` from the extension, then defines `def nms_normal_gpu(...)`, so a
    call in a function body (run after the module finished) or at module level after the `def` is the Python
    function's, a caller of the repository's own wrapper. The binding in effect is the last top-level one
    before the line (for a module-level use) or of the whole module (inside a function)."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    bindings = ctx.__dict__.get("_npu508_bindings")
    if bindings is None:
        bindings = {}
        for statement in ctx.tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings.setdefault(statement.name, []).append((statement.lineno, True))
        for kind in (ast.Import, ast.ImportFrom):  # module-scope imports, also inside `try:` / `if`
            for statement in ctx.nodes.get(kind, ()):
                bound = [b for b in (a.asname or a.name.split(".", 1)[0] for a in statement.names) if b in bindings]
                if bound and ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) is None:
                    for name in bound:
                        bindings[name].append((statement.lineno, False))
        for seen in bindings.values():
            seen.sort()
        ctx.__dict__["_npu508_bindings"] = bindings
    seen = bindings.get(root.id)
    if not seen:
        return False
    in_function = ctx.enclosing(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) is not None
    before = [is_def for line, is_def in seen if in_function or line < root.lineno]
    return bool(before) and before[-1]


def _class_cache_accessors(ctx, helper_lines: dict) -> dict[str, str]:
    """`Cls.method` -> extension for a method of a class of this file that stores a build of this file in a
    class-level cache and returns the cached entry (NX-AI/xlstm slstm/cell.py: `class sLSTMCellCUDA: mod = {}`,
    `@classmethod def instance(cls, config): ... cls.mod[key] = load(name=..., sources=[...cu]) ... return cls.mod[key]`):
    what the call returns is the compiled module."""
    out: dict[str, str] = {}
    for cls in ctx.nodes.get(ast.ClassDef, ()):
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            holders = {cls.name, method.args.args[0].arg if method.args.args else cls.name}
            caches: dict[str, str] = {}  # the cache attribute -> the extension stored in it
            returns: set[str] = set()
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.lineno in helper_lines:
                    for target in node.targets:
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                                and isinstance(target.value.value, ast.Name) and target.value.value.id in holders:
                            caches[target.value.attr] = helper_lines[node.value.lineno]
                elif isinstance(node, ast.Return) and isinstance(node.value, ast.Subscript) \
                        and isinstance(node.value.value, ast.Attribute) and isinstance(node.value.value.value, ast.Name) \
                        and node.value.value.value.id in holders:
                    returns.add(node.value.value.attr)
            for attr in returns & caches.keys():
                out[f"{cls.name}.{method.name}"] = caches[attr]
    return out


def _root(node) -> str | None:
    """The Name an attribute chain `a.b.c` starts from."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _builtin_import(ctx, call) -> bool:
    """`__import__("ext")`: the builtin behind `import ext`, with a literal name an import of it like
    `importlib.import_module("ext")` (label ruling (L67)); not where the file binds the name itself."""
    return isinstance(call.func, ast.Name) and call.func.id == "__import__" and "__import__" not in ctx.imports \
        and not shadowed(ctx, call.func)


def _binds_named(call) -> bool:
    """`__import__("pkg.ext")` without `fromlist` returns `pkg`, not `pkg.ext`: the result is the named module only for
    a plain name or with a non-empty `fromlist` (`__import__("pkg.ext", fromlist=["pkg"])`)."""
    text = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
    if not isinstance(text, str) or "." not in text:
        return True
    fromlist = call.args[3] if len(call.args) > 3 else next((k.value for k in call.keywords if k.arg == "fromlist"), None)
    return isinstance(fromlist, (ast.List, ast.Tuple)) and bool(fromlist.elts)


def _type_check(ctx, node) -> bool:
    """`isinstance(x, ext.Wrapper)` / `isinstance(x, (ext.Wrapper, list))`: tests an object against a class of the
    extension and runs none of its code (label ruling (L68), by (L35): the class's constructions and methods are the
    uses)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Tuple):
        node, parent = parent, ctx.parent(parent)
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance", "issubclass") \
        and len(parent.args) == 2 and parent.args[1] is node


def _hasattr_probe(ctx, node) -> bool:
    """`hasattr(torch.ops.ns, "op")`: asks whether the op was registered (an availability probe), does not
    call it (microsoft/tutel jit_kernels/gating.py `has_extension = hasattr(torch.ops.tutel_ops, 'cumsum')`); so does
    `callable(ext.op)` (`assert callable(_EXT.pack)` in a test before the op is called on its own line)."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("hasattr", "callable") \
        and parent.args[:1] == [node]


def _called(ctx, node) -> bool:
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and parent.func is node


def _mock_target(ctx, node) -> bool:
    """`patch.object(torch.ops.ns, "op")` in a test: the namespace is the object whose attribute the mock replaces,
    no op is called there (unittest.mock's `patch.object(target, attribute)`)."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Call) and parent.args[:1] == [node]):
        return False
    func = parent.func
    return isinstance(func, ast.Attribute) and func.attr == "object" and (
        (isinstance(func.value, ast.Name) and func.value.id == "patch")
        or (isinstance(func.value, ast.Attribute) and func.value.attr == "patch"))


def _scope_is_function(ctx, node) -> bool:
    return ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) is not None


def _called_function(ctx, call, functions: dict):
    """The `def` of the file a call runs: a plain call of a module-level or nested function defined once, or
    `self.method(...)` of a method defined once in the class enclosing the call (not a static or class method)."""
    func = call.func
    if isinstance(func, ast.Name):
        found = functions.get(func.id, ())
        return found[0] if len(found) == 1 else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    cls = ctx.enclosing(call, (ast.ClassDef,))
    if cls is None:
        return None
    methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == func.attr]
    if len(methods) != 1 or methods[0].decorator_list:
        return None
    return methods[0]


def _passed_objects(ctx, locals_: dict, bound: dict) -> None:
    """A compiled object handed to a function of the file (`infer = ReID(0)` then `evaluate(infer)`, where `def
    evaluate(wrapper): model = wrapper; model.infer(img)`): the parameter holds it in that function, and so does a
    local bound to the parameter (label ruling (L95): method calls on the object are uses wherever it is passed).
    Positional and keyword arguments of a plain call of a module-level or nested `def` of the file, or of a
    `self.method(...)` call of a method the calling class defines once (`frame = self.make_frame(...)`,
    `self.process_new_frame(frame)`); one hop."""
    functions: dict[str, list] = {}
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        for function in ctx.nodes.get(kind, ()):
            if not isinstance(ctx.parent(function), ast.ClassDef):
                functions.setdefault(function.name, []).append(function)
    added = False
    for call in ctx.nodes.get(ast.Call, ()):
        function, skip = _called_function(ctx, call, functions), 0
        if function is None:
            continue
        if not isinstance(call.func, ast.Name):  # `self.process(frame)`: the method's first parameter is `self`
            skip = 1
        caller = id(ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef)))
        params = [a.arg for a in function.args.posonlyargs + function.args.args][skip:]
        given = [(params[i], arg) for i, arg in enumerate(call.args) if i < len(params)]
        given += [(k.arg, k.value) for k in call.keywords if k.arg]
        for param, arg in given:
            key = (caller, arg.id) if isinstance(arg, ast.Name) else None
            if key in locals_ and call.lineno >= bound.get(key, call.lineno) and (id(function), param) not in locals_:
                locals_[(id(function), param)] = locals_[key]
                added = True
    if not added:
        return
    for statement in ctx.nodes.get(ast.Assign, ()):  # `model = wrapper`
        if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Name):
            function = id(ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef)))
            source = locals_.get((function, statement.value.id))
            if source is not None and (function, statement.targets[0].id) not in locals_:
                locals_[(function, statement.targets[0].id)] = source
                bound[(function, statement.targets[0].id)] = statement.lineno


def _held_returns(ctx, locals_: dict) -> dict:
    """Methods of the file's classes whose only return hands back a local holding a compiled object (`def
    make_frame(self, ...): frame = my_cpp.Frame(...); if mask is not None: frame._fg_mask = ...; return frame`):
    name -> definition, where every method of that name in the file's classes does so."""
    found: dict[str, list] = {}
    for function in ctx.nodes.get(ast.FunctionDef, ()):
        if not isinstance(ctx.parent(function), ast.ClassDef):
            continue
        values = [n.value for n in ast.walk(function) if isinstance(n, ast.Return)]
        value = values[0] if len(values) == 1 else None
        found.setdefault(function.name, []).append(
            locals_.get((id(function), value.id)) if isinstance(value, ast.Name) else None)
    return {name: held[0] for name, held in found.items() if held[0] is not None and all(held)}


def _tensor_method(name: str) -> bool:
    return name in _TENSOR_ONLY_METHODS or name in knowledge.aten_op_names()


def _wrapper_module(held) -> bool:
    """`held` (a kernel value a plain import reaches as an attribute) is a variable a plain module (not a package
    `__init__`) binds to its own build: exllama's cuda_ext.py, `exllama_ext = load(...)` beside its Python wrappers
    (`ext_q4_matmul`, ...). Importing such a module imports Python code wrapping the extension, like a module around
    an autograd Function: the import is no label, the calls through it are (set 25a-4). A package whose `__init__`
    binds the build (semseg: `gpu = load(...)`) or re-exports compiled modules (`from qk._C import gemm`) is the
    compiled code under the package's name: its import stays reported; so does that of a module holding lazy op
    aliases (`contract = _make_lazy_cuda_func("contract")`, migrate/called_kernels.py): it stands for the compiled
    module, each of its names calls into it."""
    return held.mode not in ("via", LAZY_OP) and held.path.replace("\\", "/").rsplit("/", 1)[-1] != "__init__.py"


class CustomExtensionUse(Rule):
    """Imports and calls of a custom extension or op namespace that the repository builds itself:
    `CUDAExtension(name=...)` (also called through a variable it was assigned to, `extension =
    CUDAExtension; extension("name", ...)`, or picked from a table of source sets keyed by build target whose entries
    hold `CUDAExtension`, `Extension = SOURCE_SETS[target][0]; Extension(name="MyLibTest._C", ...)`, where a Python
    module named for a target whose class is `CppExtension` (`conv_cpu_test.py` of "conv_cpu") uses the CPU build and
    reports nothing of it: migrate/source_set_tables.py, label note 45b-9) / `cpp_extension.load(name=...)` with CUDA sources
    define an extension module, and so does a project helper called with nvcc flags
    (`_plugin = get_plugin("bias_act_plugin", sources=srcs, extra_cuda_cflags=[...])`: the module it
    returns is used through `_plugin.op(...)`); `TORCH_LIBRARY(ns, m)` / `TORCH_LIBRARY_IMPL(ns, CUDA, m)` /
    `torch::RegisterOperators("ns::op", &fn)` in C++ or CUDA sources and `torch.library` (`Library("ns", ...)`, `define`, `custom_op`, `impl`) define an
    op namespace (an op of it the scan also serves with a plain-Python kernel for every device,
    `@register_kernel("ns::op", "default")` on a `def` of the repository, also through a project alias of
    `torch.library.register_kernel`, or `torch.library.impl("ns::op", "default" | "CompositeExplicitAutograd" |
    "CompositeImplicitAutograd", fn)`, whose body calls no compiled module of the scan: the dispatcher runs that kernel
    on an NPU tensor, so the op's `torch.ops.ns.op` uses are wrapper call sites, not findings, while the namespace's
    device-only ops stay reported; a catalogued package whose files register such defaults, bitsandbytes' own
    checkout, is the repository's own package for NPU501 / NPU507; label ruling (L88), migrate/default_kernels.py); a CMakeLists.txt target built with CUDA (`cuda_add_library`, `pybind11_add_module` /
    `add_library(... SHARED ...)` with `.cu` sources or in a `project(... CUDA)`) defines a module / shared
    library. Every `import ext`, `from pkg import ext`, `importlib.import_module("ext")` or `__import__("ext")` (the
    builtin with a literal name, each line of a retry; label ruling (L67)) (also one given a variable the file never binds
    itself, `importlib.import_module(__cuda_pkg_name__)` after `exec(open(.../version.py).read())`, where setup.py
    builds `CUDAExtension(__cuda_pkg_name__, ...)` after running the same shared file: the extension `{__cuda_pkg_name__}`,
    rule 48c c-3, migrate/shared_names.py) (also an
    f-string whose literal parts name it; a build named by an f-string itself, one module per GPU architecture from
    a build helper called in a loop, `[make_extension(cc) for cc in archs]` building
    `CUDAExtension(name=f"pkg_bindings._{cc}_C", ...)`, is the module `pkg_bindings._{cc}_C` whose hole stands for
    one name part; a module-level variable bound to an `import_module(...)` of an extension, also in a loop trying
    each architecture, is the compiled module for the files importing it, `from pkg.modules import _C`; so is one
    bound to the project's own import helper given the module's last name, `ops = import_extension("ops_cuda")`
    (a function of the repository whose name says it imports, not the standard library's or torch's; its body
    imports `EXTENSION_PREFIX + name` and may hand back a placeholder that raises on use: not an optional path,
    label note 46d d-10): the binding and each `ops.op(...)` are reported where an extension of the scan has that
    last name, kernel_values.importer_call),
    `ctypes.CDLL(".../libext.so")` (of a CMake target's library, or of a shared library an nvcc command of a shell
    script links, `nvcc --shared k.cu -o libext.so`: migrate/nvcc_libraries.py, label rule 41d-7),
    use of the imported name (`ext.forward(...)`) and `torch.ops.<ns>.<op>` (also a custom class
    `torch.classes.<ns>.X`, which `m.class_<T>("X")` registers in the `TORCH_LIBRARY` block) in any file of the
    scan is reported with the file and line where the extension is built; so is each call (not the import) of an
    op accessor, a function looking an op up by the name it is given (`_make_lazy_cuda_func("rasterize")(...)` where
    `def _make_lazy_cuda_func(name): ... getattr(torch.ops.ns, name)`, also `getattr(_C, part)`), and each
    construction through a class alias `X = torch.classes.ns.X`, and each call through a name bound to an accessor's
    result (`Cls = _make_lazy_cuda_cls("X")` then `Cls(...)`, `Cls.create(...)`; `cls._cuda_cls = ...` then
    `cls._cuda_cls()` in the class); a module-level name bound to a call of a deferred accessor, one that only
    returns a closure doing the lookup (`contract = _make_lazy_cuda_func("contract")` where `def
    _make_lazy_cuda_func(name): def call(*a): return getattr(_C, name)(*a); return call`), is a lazy op alias: the
    binding runs nothing and is not reported (label ruling (L46)), each call through it is (`contract(x)`, and
    `_C.contract(x)` after `import pkg.cuda as _C` elsewhere), and the module holding such aliases stands for the
    compiled module: its plain import that calls through it (`import pkg.cuda as _C`) is reported, `from pkg.cuda
    import contract` is not (an accessor doing the lookup itself loads the extension at the binding, which stays
    reported) (migrate/called_kernels.py; a test folder whose
    conftest de-collects it behind an import probe of the repository's module, `collect_ignore_glob =
    f(probe=lambda: importlib.import_module("pkg.types"))`, reports nothing, nor does a test under an unconditional
    `@pytest.mark.skip`: migrate/decollected_tests.py; `callable(ext.op)` is a probe, like `hasattr`); so is each
    call through a name bound only to ops of the extension, in a function or at module level (`f =
    punica.ops._kernels.dispatch_bgmv` then `f(y, x, ...)`; also a literal dict of ops indexed on the spot; the binding
    only names the op and is not reported once a call through it is, label ruling (L52), nor a module-level one the file
    never reads (`ml_nms = _C.ml_nms` only listed in `__all__`, (L104)), whose calls after `from pkg.nms import ml_nms`
    in another module are the uses (migrate/kernel_values.py `op_alias_values`); migrate/callable_aliases.py), and each
    `cls.attr(...)` / `self.attr(...)` in a method of a class whose subclasses of the file bind `attr` in their class
    bodies only to ops of the extension or None (`forward_op, backward_op = ext.expm, ext.expm_backward`, called by
    the base's `forward`: the class-body binding only names the op, rule 48a a-6); so is each call of an attribute through a module-level name
    bound only to the compiled module itself (`ext_c = exllamav2_ext`, then `ext_c.make_q_matrix(...)` in the file's
    functions; a binding to None besides, `except ImportError: ops = None`, is a stand-in that leaves the call failing;
    the binding line is reported as a use of the module), also through a submodule (`ext_c.cuda.op(...)`), and each
    such call through a module name bound to None at the top and, in a loader function declaring it `global`, to the
    compiled module (`global _plugin` ... `from . import lib_cc as ext` / `except ImportError: ext = setup_ext(conf)` ...
    `_plugin = ext`, or `_plugin = setup_ext()`; migrate/callable_aliases.py `global_module_caches`: that cache line
    calls nothing), with the methods of the object a class of it builds (`self.impl = _plugin.OptixTracer(...)`,
    `self.impl.build_bvh(...)`); so is each
    `get_backend().op(...)` through a function of the same file that returns the extension (or
    the module variable it was stored in), each call of an accessor defined in another module (a function returning
    the extension, also one that JIT-builds it: `return jit.load(name=params.name, ...)` defines the extension
    `{params.name}@pkg/ops/build`, one per building file: such a build helper's import is not reported; the ops
    called on what an accessor returns are, also through a local `backend = _require_backend()`), each import or call of a wrapper of an op
    defined in another module (`my_op = MyFn.apply`, `partial(ext.op, ...)`), and
    `cpp_extension._import_module_from_library(params.name, ...)` loading the file's build; a module attribute that a
    PEP 562 `__getattr__` loads (`def __getattr__(name): if name == "_C": return _get_backend()`, or
    `_get, __getattr__ = make_lazy_backend(public_name="_CUDA", jit_loader=_build)` with `"_CUDA"` in `__all__`,
    where the loader returns an accessor's result) is the extension: `_backend._CUDA.op(...)` and `from pkg._backend
    import _CUDA` are reported, `from . import _backend` alone is not (migrate/lazy_backends.py); a package `__init__` that
    star-imports its compiled module (`from .ext import *`) and imports its own package by name (`import pkg as p`)
    reads the compiled ops through that name: the self-import and each `p.<name>` the file does not define. A module
    star-importing one that imports the compiled module (`from Utils import *` where Utils.py does `from
    pkg.mycuda import common`) reads it through the name the star import binds: each `common.op(...)` where no scope
    around the read binds `common` is reported (migrate/star_imports.py). A plain
    module (not a package `__init__`) that binds the extension to a variable of its own (exllama's cuda_ext.py:
    `exllama_ext = load(...)` beside its Python wrappers) is a wrapper module: `import cuda_ext` is not reported, each
    `cuda_ext.exllama_ext.op(...)` through it is. `from ext import op` binds `op` in its module, not `ext`: a function
    of that module named like the extension (a Python wrapper `def ext(...)` beside that import) is what `from module
    import ext` elsewhere imports, not the compiled module (label rule 39b-5). The definitions are
    collected in the same pass as the analysis (see migrate/repo_index.py); the cross-file
    findings are recomputed on every run, so cached per-file results stay correct. Severity:
    error for CUDA-built extensions and namespaces with a CUDA registration, warning for
    namespaces registered only through torch.library (they may be device-neutral). The imports and
    calls of a `Function.apply` alias are not findings: they run once the kernel inside the Function is
    ported and the line itself need not change, so the scan lists them in the summary's kernels to
    port as the kernel's call sites (`wrapper_calls`, with the lines reported here as `call_sites`).
    The same holds for `torch.ops.<ns>.<op>` when every registration of the op hands torch.library a
    Python function of the repository (`@torch.library.impl("ns::op", "cuda")` on a `def` whose body calls
    the compiled op, reported there; also through a module-level name chosen at import time, `register_op =
    torch.library.custom_op` beside a local stand-in, or named by an f-string in a factory, `f"ns::na{dim}d_forward"`,
    matched as `ns::na*d_forward`; label ruling (L83), migrate/op_register_aliases.py); an op registered with the compiled op itself
    (`torch.library.impl("ns::op", "default", _C.op)`) stays a finding. A build kept in a class-level cache and
    returned by a method (`cls.mod[key] = load(...)` ... `return cls.mod[key]`) is followed too: the call of that
    method, the ops called on what it returns and the methods of an object such an op builds, also in nested functions. A project loader object holding the build in a member (`ext = Extension("pkg_cuda", sources=[..."k.cu"], extra_cuda_cflags=[...])`, whose class's `lib` property JIT-loads it; `CUDA_COMPLIER = ComplieHelper()`, whose method binds `self.__EXT__ = load(..., with_cuda=True)` and whose property returns it) hands out the compiled module through that member: each `ext.lib.unpack(...)` / `CUDA_COMPLIER.CUDA_EXTENSION.op(...)` through a module-level name bound once to the object is reported, not the object's own data (`ext.sources.append(...)`, a keyword of the construction, or a str / list / dict method through a member of a class read elsewhere); so is each call of the method of such an object of a class of the file that runs the build (`CUDA_COMPLIER.complie()`, also after `from pkg.ffi import CUDA_COMPLIER` in another module; not the import, nor its other methods) (migrate/loader_objects.py). A JIT build bound to a local of a function (`ext = load(name="wkv", sources=[..."wkv.cu"])` in a model's `__init__`, under a user switch) holds the compiled module: each call of an attribute through that local (`ext.forward_fp32(...)`) is reported, in that function and in the functions and classes nested in it that read it as a closure (the `forward` of an autograd.Function class defined there), not where a scope between binds the name itself (a parameter, a local). A class of the extension imported by name (`from ._C import QuantizedModel`) builds such an object: `m = QuantizedModel()`, a parameter annotated with the class (`def __init__(self, m: QuantizedModel)`) and a member bound to either (`self.m = m`) hold it, and so does that member read through another object of the file (`block.m.load(...)`, where the file binds `.m` to nothing else), and the parameter of a function of the file the object is handed to (`infer = ReID(0)`, `evaluate(infer)`, `def evaluate(wrapper): model = wrapper; model.infer(img)`; label ruling (L95)), and so do a field or element of it (`self.bundler._fm`, `bundler._frames`, `yml["key"]`: what a pybind11 class exposes) and the parameter of a method of the class it is handed to from a local a method of the class returned (`frame = self.make_frame(...)`, `self.process(frame)`): each public method call on it is reported (label ruling (L33)), a method named like a tensor's (`.size()`, `.to()`: the op may have returned a tensor) only on an object that also has a method no tensor has (`manager.insert_and_map(...)` beside `manager.size(key)`, label note 45b b-9); so does a member a class binds to a call of a factory method (`self.native = self._native()`) whose every definition in the file's classes returns an op building such an object (`def _native(self): return _C.create_encoding(cfg)` in each subclass); an annotation naming the class (`-> QuantizedModel`) runs nothing and is not (34b-11).
    An op name written into a string (`kernel_name = f"ext.decompress_{bits}"`) that an `exec`'d f-string of the file
    interpolates is the op call of that code: reported once, at the string. A Python class deriving from a class of
    the extension (`class Env(ext.AtariEnv)`) calls its compiled methods: each `super(...).m(...)` and each
    `self.m(...)` of a public method the class neither defines nor assigns on `self` is reported; an op of the
    extension handed to a call as a value (`applier(multi_tensor_l2norm, ...)`) is reported too. A git submodule that
    `.gitmodules` declares but the checkout does not hold, whose repository the third-party knowledge counts as a
    CUDA-kernel package (`url = https://github.com/CharlesShang/DCNv2/`), is such an extension too, named by its folder
    (`from .DCNv2.dcn_v2 import DCN`, then `DCN(...)`; migrate/submodules.py); a missing submodule of a research
    project the knowledge lists by repository (knowledge/submodule_projects.toml: `fundamentalvision/Deformable-DETR`,
    whose `models` package loads its CUDA-only MultiScaleDeformableAttention on import) that a file of the repository
    puts on the import path (`sys.path.insert(0, 'third_party/Deformable-DETR')`, a launcher's PYTHONPATH) makes
    each top-level package the entry lists such an extension: `from models.matcher import HungarianMatcher` is
    reported, and each construction of a class the entry lists (`DeformableTransformer(...)`), not the uses of the
    project's pure-PyTorch helpers nor a subclass's inherited calls (label rule 40c-1); off the import path, or
    checked out, it adds nothing. A bare `except:` binding `DCN = None`
    is no fallback when `DCN(...)` is then called unguarded, while an import attempt that records an availability
    flag (`try: import DCNv3; has_cuda_kernel = True / except: has_cuda_kernel = False`, the flag its users test to
    pick a PyTorch implementation) is an optional path: neither the import nor that module's uses of the name are
    reported (migrate/flagged_extensions.py; label rule 27d-9), also where the handler binds the name None beside the
    flag (`except ImportError: ext_256 = None; ext_ok = False`, then `self.ext = ext_256`; label note 40d-9); so is an import attempt with an `else:` whose handler
    neither raises nor binds the name (`try: import pkg._C as _C / except ImportError as e: data.append(...) / else:
    _C.get_compiler_version()`, an environment report) where the name is read only in the `try:` body or that
    `else:`; and so is one whose `try:` body defines a class or function over the extension that a handler catching
    the failed import defines again without it (`try: import pointrope as _kernels / class PointROPE(nn.Module): ...
    / except Exception: class PointROPE(nn.Module): ...torch...`), where the name is read only in that body (label
    note 34a-3). An op whose every pybind registration (`m.def("COCOevalAccumulate", &COCOeval::Accumulate)`,
    `class_<COCOeval::InstanceAnnotation>(m, "InstanceAnnotation")`) binds a target of a namespace opened only in
    C++ sources that name no CUDA, or of a class (`class_<MISE>(ops_conversions, "Mise")`, `.def("query",
    &MISE::query)`) that only such sources define (`struct MISE {`, `MISE::query() {`), is CPU code with nothing to
    port: its uses are not reported, also in a pybind submodule (`_C.ops.conversions.Mise(...)`) and as a method
    called on an object (`mesh_extractor.query()`, where every binding of `query` is such code; label note 46b b-5), nor is the import of
    the extension in a file where those were all its reported uses (migrate/cpu_only_ops.py; ruling (L28) extended). A module global bound to None at the top and, in a loader declaring it `global`, to a JIT build named after the
    loader's parameter (RWKV's `wkv_kernel = load(name=f"wkv_{context_size}", sources=[... "wkv_cuda.cu"])`) holds
    the compiled module whatever the size: each `wkv_kernel.forward(...)` in the file is reported (migrate/kernel_values.py
    `_global_cache_builds`), not an attribute the file itself stores on it (`wkv_kernel.context_size = context_size`, read
    back in the size check). A member of the compiled module (an op or class) imported from it and re-exported by a
    package `__init__` (`from .nms_cuda import rotated_nms`) is reported at that import and at each call; importing the
    same name again through the repository's Python modules (`from .rotated import rotated_nms` in ops/__init__.py,
    `from det.ops import rotated_nms` elsewhere) only binds it, like an alias (label note 44b b-4, (L46)/(L52)), and so
    does importing the repository's own package or module that re-exports it (`import det` or `from det import ops` in
    its tests and examples, then `det.rotated_nms(...)`: the call is the line, label rulings (L81), (L85));
    the compiled module itself imported through a Python module (`from det.ops.backend import _ext`) stays reported
    (kernel_values.member_of). A GPU word written into a name looked up on the compiled module (`postfix = "GPU" if
    x.is_cuda else "CPU"` returned by a helper, then `getattr(_C, name + get_postfix(x))`; `postfix = "GPU_c10"` then
    `getattr(_C, "Manager" + postfix)`) picks its CUDA-only bindings: the literal's line is reported, where an NPU route
    would be added, not the `getattr` (label note 45b b-7, migrate/gpu_name_suffix.py). Storing the imported module in the global cache its
    accessor returns (`_cached_plugin = renderutils_plugin` ... `return _cached_plugin`) calls nothing: the import and
    the callers' `_get_plugin().op(...)` are the lines. An op named for the extension's CPU build (`ext.hash_cpu(...)`)
    called in the branch of a `== "cpu"` device test, or in the final `else:` of a chain that tests for CUDA (the path an
    NPU tensor takes, on a host copy: `ext.hash_cpu(x.cpu()).to(device)`), is not reported (migrate/cpu_fallbacks.py);
    nor, for an extension that setup.py also builds without CUDA (`extension = CppExtension`, then `extension =
    CUDAExtension` under a CUDA check, pytorch3d-style; a source-set table with a `CppExtension` target chosen by
    `--cpu_only`, MinkowskiEngine-style: migrate/cpu_builds.py), is any op called on tensors the code put on the host
    (`_C.dist(p.cpu(), e.to("cpu"))`, or a name only ever bound so: migrate/cpu_inputs.py) or in a function named for
    the CPU (label ruling (L79)); an extension built only with CUDA does not exist on a host without nvcc, so its ops
    stay reported there (IA-SSD's `def boxes_iou_bev_cpu(...)`, exllama's `def ext_rep_penalty_mask_cpu(...)`: label
    ruling (L89)); nor is, in the final `else:`
    of an `if x.is_cuda:` chain, an op whose `_cuda`-named sibling the CUDA branch calls (`ext.lut_forward_cuda(...)`
    there, `ext.lut_forward(...)` in the `else:`: the op's CPU build, label ruling (L69); also in the body of the negated
    test, `if not x.is_cuda: ext.op(...)` `else: ext.op_cuda(...)`); nor is `torch.ops.<ns>.<op>` (or a call through a
    name bound to it) of an op whose registered C++ function has only a CPU kernel (`.op("ns::sample", &sample)`, its
    `if (x.device().is_cuda())` branch only `AT_ERROR(...)`, or a body calling only `sample_cpu(...)`) where the scan also
    builds an extension for the CPU: its callers pass CPU tensors, the CPU build serves them (rule 48a a-3,
    migrate/cpu_kernel_ops.py); nor is a class of the
    extension as the type of an `isinstance` / `issubclass` test (`isinstance(m, (ext.MipWrapper, list))`: no code of
    the extension runs, label ruling (L68)); nor is the namespace a test hands to `patch.object(torch.ops.ns, "op")`
    (the mock's target: no op runs there); nor is a constant or enum member read from the compiled module
    (`RegionType.HYPER_CUBE` after `from ._C import RegionType`, `_C.MAX_UINT`, `ngp.TrainMode.Nerf`, also the conversion
    `ngp.TrainMode(x)` to such an enum: a value, label ruling (L80); the
    import binding the module and the ops called with the value are the lines), unless it is a member named for the
    GPU chosen as a value (`map_type = MapType.CUDA if coords.is_cuda else MapType.CPU`: the option taking the
    extension's CUDA-only path, label note 45b-8), not where it is only compared (`alloc == AllocType.CUDA`) or
    chosen under the module's availability probe (`... if _C.is_cuda_available() else ...`, after `if not
    _C.is_cuda_available(): return`); nor is a call of a compiled function named as an availability probe
    (`_C.is_cuda_available()`, `ext.has_cuda()`: a check, no kernel runs, label ruling (L62); also a capability
    probe, `if not C.is_bf16_supported(): raise NotImplementedError(...)`, `ext.supports_fp8()`, label note 49c c-5;
    nor a module metadata read, `version = pkg.__version__` in a Sphinx conf.py of a package whose `__init__` loads
    its compiled library: a value the import bound, set 50a; migrate/compiled_values.py). An op that the repository's C++ / CUDA sources register
    (`m.def("gemm_forward(...)")`, `m.impl("op", ...)` in a `TORCH_LIBRARY` / `STABLE_TORCH_LIBRARY_FRAGMENT` block
    of a namespace built for CUDA) and that Python code fetches by that name through a project accessor of any shape
    (a registry module whose `op(name, op_name)` loads the JIT build and returns the torch.ops handle) is called
    there: `_extension_api().op("awq", "gemm_forward")(...)`, and `op = _resolve_op(op_name=name)` then `op(...)`
    (both lines; the name may be a local bound only to string literals); an op of a namespace with no CUDA build is
    not (migrate/named_ops.py). An object the project fills with the compiled module's members (a class of the file
    that imports the extension, whose methods set `self.__dict__[f.__name__] = f` / `setattr(self, name, f)`, in a file
    reading `getmembers(module)`, bound to a holder `self.funcs = Funcs(...)`) hands its ops on: a call
    `<...>.funcs.op(...)` in any file of the repository, where `op` is a name a CUDA pybind11 module of the scan
    registers (`m.def("op", ...)`; not an op only another backend's module registers, not a method of the holder's
    class), is reported (migrate/reflected_ops.py; label rule 43a, accessors (L31)). The object a project CLASS makes from a build's parameters (`_EXT =
    TorchOpsJitExtension(name="m", sources=..., extra_cuda_cflags=...)`, a CapWords callee or a class of the file) is
    a loader, not the compiled module: its attributes (`_EXT.clear_cache()`, `_EXT._op_cache`, also from other
    modules) are the class's own and not reported; the build is, at the construction (NPU505). An import of the extension's name under another package of the
    repository (`from .._CUDA import op` in pkg/layers/nn/, resolving to a `pkg.layers._CUDA` no file of the repository is)
    is the one extension of that name the scan builds (`pkg._CUDA`; `Index._misplaced`, label rule 32b-3). A CMake
    target never claims a standard-library module: a C++ engine's kernel library `add_library(copy STATIC copy.cu)` is
    not the `import copy` / `copy.deepcopy(...)` of its Python code.
    A module of the repository every way into which checks first (imported only under `if bits == 4 and
    EXLLAMA_KERNELS_AVAILABLE:`, a flag set by an import attempt of the extension, or a CUDA-device branch; as NPU501's
    optional modules, migrate/optional_modules.py) is an optional path: its extension uses are not reported (not
    through an import in a CUDA-device branch whose name the importer reads outside every such branch, nothing else
    binding it: `if torch.cuda.is_available(): from model.nms.nms_gpu import nms_gpu`, then `return nms_gpu(dets,
    thresh) if force_cpu == False else nms_cpu(dets, thresh)`, a NameError on an NPU host, label ruling (L74)); one
    imported only in a `try:` keeps them (label notes 40d-9, (L42)), unless that `try:`'s handler defines again in plain
    code a name the attempt binds (`try: from models.curope import cuRoPE2D / RoPE2D = cuRoPE2D / except ImportError:
    class RoPE2D(torch.nn.Module): ...`, a pure-PyTorch substitute: label note 41a-1);
    a use reached only through entry functions that assert the extension's availability first is optional too
    (migrate/asserted_entries.py, label note 46c HALF-10 / c-10): the module-level function or class holding it (an
    autograd Function calling the op, a factory building `{1: na1d_forward}` and such a Function), with the
    module-level names bound from it (`Fn1D = make_fn(1)`, `FNS = {1: Fn1D}`), is read by no code of its module but
    module-level functions past a statement asserting an availability predicate (`assert can_run_x(q,
    raise_error=True)`, `if not is_x_available(): raise ...`; a predicate named `can_run_*` / `can_use_*` or ending
    in `_available` / `_supported`, not one of the compiled module itself, `if not C.is_bf16_supported(): raise`
    after `from .. import C`, which asks about the GPU and cannot run without the build: the op after it stays
    reported, label note 49c c-5), and by none before it; so is an entry's own use after its check. On an NPU host
    the entry stops with the library's own error and its selection falls back to another backend. Kept: a use read
    by no function of its module (its callers are elsewhere), one reached from an unchecked entry (a reference
    backend calling the ops directly), a chain one of whose names another file imports or `__all__` lists, and the
    module-level import itself; an extension imported in an attempt whose handler binds its name to None, read only inside
    module-level defs or classes (an autograd Function calling `ext.forward(...)`) that every file of the scan reads
    only inside a `try:` whose handler, catching any exception, computes the same result another way (`try: out =
    Fn.apply(...) / except: out = attn_pytorch(...)`), is optional with a PyTorch fallback: neither the import nor the
    uses of the name are reported (a test calling it unguarded does not count; migrate/tried_entries.py, label note
    49b-2); a module of a package importing
    its own package (`from . import ext`) is no way into that package's `__init__`. An import on the CUDA side of an
    NPU-aware choice (`if not torch.xpu.is_available() and not use_torch_npu: import KTransformersOps`, where
    `use_torch_npu` is a module-level flag bound to an NPU availability probe; the `else:` of `if is_npu_available():`)
    binds a name that exists only off the NPU: neither that import nor the module's uses of the name
    (`KTransformersOps.dequantize_q2_k(...)` in a function), when nothing else in it binds the name, are reported
    (label ruling (L20), migrate/npu_aware.py)."""

    CODE = "NPU508"
    NAME = "custom-extension-use"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR
    MESSAGE = "uses a custom CUDA extension built in this repository"
    # the last three: wrappers of a kernel op (kernel_values.wrapper_values) are recorded in the same pass
    TRIGGERS = ("CUDAExtension", "cpp_extension", "torch.library", "Library(", "extra_cuda_cflags", "create_extension", ".apply", "partial(", "def get_",
                ".cu\"", ".cu'")
    VALID = [
        "from torch.utils.cpp_extension import CppExtension\next = CppExtension('m', ['m.cpp'])\nimport m",
        "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('my_ext', ['k.cu'])\nimport my_ext_utils",
        "import torch\nlib = torch.library.Library('mylib', 'DEF')\ny = torch.ops.aten.add(x, x)",
        "p = get_plugin('plain_plugin', sources=srcs, extra_cflags=['-O3'])\ny = p.run(x)",  # no nvcc flags
        "p = get_plugin('x_plugin', sources=srcs, extra_cuda_cflags=None)\ny = p.run(x)",
        # an import attempt recording whether the kernel loaded (label rule 27d-9): its users test the flag and fall
        # back to a PyTorch implementation (migrate/flagged_extensions.py)
        "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('dcn_ext', ['k.cu'])]\ntry:\n"
        "    import dcn_ext\n    has_kernel = True\nexcept:\n    has_kernel = False\n"
        "def forward(x, w):\n    return dcn_ext.forward(x, w)\n",
        # ... also where the handler binds the imported name to None beside the flag: the binding of the module to an
        # attribute and the flag the forward pass tests (vendored AutoGPTQ qlinear_cuda.py, label note 40d-9)
        "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('qmm_ext', ['q.cu'])]\ntry:\n"
        "    import qmm_ext\n    _qmm_ok = True\nexcept ImportError:\n    qmm_ext = None\n    _qmm_ok = False\n"
        "class QLinear(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.kernels = qmm_ext\n        self.use_kernels = _qmm_ok\n"
        "    def forward(self, x):\n        if self.use_kernels:\n            return self.kernels.matmul(x, self.w)\n"
        "        return x @ self.w\n",
        # the handler defines the class the `try:` body builds on the extension again, in PyTorch (label note 34a-3)
        "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('rope_ext', ['r.cu'])]\ntry:\n"
        "    import rope_ext as _k\n    class Rope(torch.nn.Module):\n        def forward(self, x, p):\n"
        "            _k.rope(x, p)\n            return x\nexcept Exception as e:\n    print(f'no CUDA rope ({e})')\n"
        "    class Rope(torch.nn.Module):\n        def forward(self, x, p):\n            return x * p.cos()\n",
        # a loader class whose JIT build has no CUDA source: the member it holds is a C++ module (migrate/loader_objects.py)
        "from torch.utils.cpp_extension import load\nclass Ext:\n    @property\n    def lib(self):\n"
        "        self._lib = load(name='m', sources=['m.cpp'])\n        return self._lib\next = Ext()\ny = ext.lib.op(x)\n",
    ]
    INVALID = [
        # optimum-quanto-style: a project loader class (imported) given CUDA sources and nvcc flags; its `lib` member
        # holds the compiled module (migrate/loader_objects.py); its own data (`ext.name`, `ext.sources`) is not one
        Invalid("from .extension import Extension\next = Extension('pkg_cuda', root_dir='.', sources=['k.cu', 'b.cpp'],\n"
                "                extra_cuda_cflags=['--use_fast_math'])\ndef unpack(t, bits):\n    return ext.lib.unpack(t, bits)\n"
                "n = ext.name.upper()\next.sources.append('x.cpp')\n", count=2),
        # ppq-style: a class of the file JIT-builds CUDA sources into an attribute a property returns; the ops are
        # called through the property of the module-level object (and through the attribute itself)
        Invalid("from torch.utils.cpp_extension import load\nclass Helper:\n    def __init__(self):\n        self.__EXT__ = None\n"
                "    def build(self):\n        self.__EXT__ = load(name='impls', sources=['export.cc', 'linear.cu'], with_cuda=True)\n"
                "    @property\n    def EXT(self):\n        return self.__EXT__\nCOMPILER = Helper()\nif FLAG:\n    COMPILER.build()\n"
                "def quantize(t, s):\n    return COMPILER.EXT.QuantizeTensor(t, s)\ndef raw(t, COMPILER):\n"
                "    return COMPILER.EXT.Raw(t)\n", count=2),
        # ... but not when the extension is also read outside that `try:` body
        Invalid("from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('rope_ext', ['r.cu'])]\ntry:\n"
                "    import rope_ext as _k\n    class Rope(torch.nn.Module):\n        def forward(self, x, p):\n"
                "            _k.rope(x, p)\n            return x\nexcept Exception as e:\n"
                "    class Rope(torch.nn.Module):\n        def forward(self, x, p):\n            return x * p.cos()\n"
                "def direct(x, p):\n    return _k.rope(x, p)\n", count=3),
        # no flag: the handler binds the imported name to None and the op is then called unguarded (L30)
        Invalid("from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('dcn_ext', ['k.cu'])]\ntry:\n"
                "    import dcn_ext\nexcept ImportError:\n    dcn_ext = None\ndef forward(x, w):\n    return dcn_ext.forward(x, w)\n",
                count=2),
        # an extension with a CPU build dispatched by device (torchsparse's functional ops, label ruling (L28)): the import
        # and the CUDA branch's op are lines to change; the `*_cpu` op under `== "cpu"` and in the final `else:` (the
        # path an NPU tensor takes, on a host copy) are not
        Invalid("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('ptops', ['k.cu', 'k_cpu.cpp'])\n"
                "import ptops\ndef count(idx, n):\n    if idx.device.type == 'cuda':\n        return ptops.count_cuda(idx, n)\n"
                "    elif idx.device.type == 'cpu':\n        return ptops.count_cpu(idx, n)\n    else:\n"
                "        return ptops.count_cpu(idx.cpu(), n).to(idx.device)\n", count=2),
        # setup.py builds the module without CUDA too (`extension = CppExtension`, then CUDAExtension under a CUDA
        # check; migrate/cpu_builds.py): a call on tensors the code put on the host and one in a function named for the
        # CPU run that build (label ruling (L79)); the import and the call on the caller's tensors are lines to change
        Invalid("from torch.utils.cpp_extension import CppExtension, CUDAExtension\nextension = CppExtension\n"
                "if cuda:\n    extension = CUDAExtension\nmods = [extension('geo._C', srcs)]\nfrom geo import _C\n"
                "def dist(p, e):\n    return _C.dist(p, e), _C.dist(p.cpu(), e.cpu())\ndef iou_cpu(a, b):\n"
                "    return _C.iou(a, b)\n", count=2),
        # built only with CUDA: no module exists off CUDA, so the op called in a function named for the CPU (IA-SSD's
        # `boxes_iou_bev_cpu`) and the one given host tensors are lines to change too (label ruling (L89))
        Invalid("from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('box_cuda', ['b_cpu.cpp', 'b.cu'])]\n"
                "import box_cuda\ndef iou_cpu(a, b, out):\n    box_cuda.iou_cpu(a.contiguous(), b, out)\n"
                "def iou_host(a, b, out):\n    box_cuda.iou_cpu(a.cpu(), b.cpu(), out)\n", count=3),
        # a wrapper binding the op to a short local name before calling it: each call after it, not the binding (label
        # ruling (L52)); a name also bound to something else (`g`) is no alias (its binding stays a use of the op), and
        # a parameter `f` is not the local
        Invalid("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('pk._kernels', ['k.cu'])\n"
                "import pk._kernels\ndef add_lora(y, x, wa, wb):\n    f = pk._kernels.dispatch_bgmv\n    f(y, x, wa)\n"
                "    f(y, x, wb)\ndef other(y, x, f):\n    f(y, x)\ndef pick(x, fast):\n    g = pk._kernels.fast_op\n"
                "    if not fast:\n        g = torch.relu\n    return g(x)\n", count=4),
        # the op looked up by a literal name (`getattr(ext, "quant_cuda", None)`) and bound to None where the import
        # fails, with nothing testing the stand-in (fastvideo-kernel's turbodiffusion_ops.py, labels 61a): the import
        # and each call are the uses, not the lookups; an op bound and never called is no use (label ruling (L104))
        Invalid("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('tk._C', ['k.cu'])\n"
                "try:\n    from tk._C import tk_ops\n    quant_cuda = getattr(tk_ops, 'quant_cuda', None)\n"
                "    norm_cuda = getattr(tk_ops, 'norm_cuda', None)\nexcept ImportError:\n    quant_cuda = None\n"
                "    norm_cuda = None\ndef quant(x):\n    return quant_cuda(x, None, None)\n", count=2),
        # ... a stand-in the module tests (`if quant_cuda is None:` before a PyTorch path): no alias, the call is not
        # reported; the import and the lookup stay the chain pass's uses, as before
        Invalid("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('tk._C', ['k.cu'])\n"
                "try:\n    from tk._C import tk_ops\n    quant_cuda = getattr(tk_ops, 'quant_cuda', None)\n"
                "except ImportError:\n    quant_cuda = None\ndef quant(x):\n    if quant_cuda is None:\n"
                "        return x.round(), None\n    return quant_cuda(x, None, None)\n", count=2),
        # a JIT build cached by its accessor (nvdiffrec's `_get_plugin()`): the import and the callers' op calls, not the
        # line storing the module for the accessor to return
        Invalid("import torch\n_cached = None\ndef _get_plugin():\n    global _cached\n    if _cached is not None:\n"
                "        return _cached\n    torch.utils.cpp_extension.load(name='rplug', sources=['k.cu'], with_cuda=True)\n"
                "    import rplug\n    _cached = rplug\n    return _cached\ndef f(x):\n    return _get_plugin().op_fwd(x)\n",
                count=2),
        # RWKV-style per-size kernel cache: a module global (None at the top) that a loader declaring it `global` binds
        # to a JIT build named after its parameter (migrate/kernel_values.py `_global_cache_builds`); the autograd
        # Function's forward / backward call its ops through the global (label note 42d-5); the size the loader stores on
        # the module (`wkv_kernel.context_size = ...`) is the repository's own attribute, no op
        Invalid("import torch\nwkv_kernel = None\nclass WKV(torch.autograd.Function):\n    @staticmethod\n"
                "    def forward(ctx, w, k, out):\n        wkv_kernel.forward(w, k, out)\n        return out\n"
                "    @staticmethod\n    def backward(ctx, g):\n        wkv_kernel.backward(g)\n        return g, None, None\n"
                "def load_wkv_kernel(context_size):\n    from torch.utils.cpp_extension import load\n    global wkv_kernel\n"
                "    if wkv_kernel is not None and wkv_kernel.context_size == context_size:\n        return\n"
                "    wkv_kernel = load(name=f'wkv_{context_size}', sources=['wkv_op.cpp', 'wkv_cuda.cu'],\n"
                "                      extra_cuda_cflags=[f'-DTmax={context_size}'])\n"
                "    wkv_kernel.context_size = context_size\n", count=2),
        # a test replacing an op of the namespace with a mock: `patch.object(torch.ops.ns, "op")` calls nothing
        Invalid("import torch\nfrom unittest.mock import patch\nlib = torch.library.Library('rops', 'DEF')\n"
                "def test_fallback(x):\n    with patch.object(torch.ops.rops, 'render') as mocked:\n"
                "        return torch.ops.rops.render(x)\n", count=1),
        # NX-AI/xlstm slstm/cell.py: a build cached in a class-level dict and returned by a classmethod; the object its op
        # builds calls kernel code through its methods, also in a function nested where it is bound
        Invalid("from .src.cuda_init import load\nclass CellCUDA:\n    mod = {}\n    @classmethod\n    def instance(cls, key):\n"
                "        if key not in cls.mod:\n            cls.mod[key] = load(name=key, sources=['cell.cu'])\n"
                "        return cls.mod[key]\ndef generator(key):\n    cuda = CellCUDA.instance(key)\n    mod = cuda.sLSTMFunc(1)\n"
                "    def forward(x):\n        return mod.forward(x).contiguous()\n    return forward\n", count=4),
        # PointPillars iou3d_module.py: a `def` named like an imported op rebinds the name; its callers call the Python function
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('iou_op', ['k.cu'])\n"
            "from iou_op import nms_gpu, nms_normal_gpu\ndef nms(b):\n    return nms_gpu(b)\n"
            "def nms_normal_gpu(b):\n    return nms_normal_gpu(b)\n",
            count=2,
        ),
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('pn2_cuda', ['a.cpp', 'k.cu'])\n"
            "import pn2_cuda as pn\npn.ball_query(x)\n",
            count=2,
        ),
        Invalid(
            "import os\nfrom torch.utils.cpp_extension import load\nT = int(os.environ['T'])\n"
            "wkv = load(name=f'wkv_{T}', sources=['op.cpp', 'op.cu'], extra_cuda_cflags=['-O3'])\ny = wkv.forward(x)\n",
            count=1,
        ),
        Invalid(
            "import importlib\nfrom torch.utils.cpp_extension import load\n"
            "ext = load(name='fused', sources=['f.cpp', 'f.cu'])\ny = ext.forward(x)\nm = importlib.import_module('fused')\n",
            count=2,
        ),
        # `__import__("ext")` with a literal name imports the extension like `importlib.import_module` (label ruling
        # (L67)): each line of a retry, and the op called through the bound name
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('_gpu_backend', ['k.cu'])\n"
            "def backend():\n    try:\n        mod = __import__('_gpu_backend')\n    except ImportError:\n"
            "        mod = __import__('_gpu_backend')\n    return mod\nm = __import__('_gpu_backend')\nm.encode(x)\n",
            count=4,
        ),
        # a dotted `__import__("pkg._ext")` without `fromlist` returns `pkg`: the import only, the name is not the
        # extension; a `ctypes.CDLL` of the library's path (dots in it) binds the library
        Invalid(
            "import ctypes\nfrom torch.utils.cpp_extension import CUDAExtension\nCUDAExtension('pkg._ext', ['k.cu'])\n"
            "CUDAExtension('kern', ['q.cu'])\np = __import__('pkg._ext')\np.helper()\n"
            "lib = ctypes.CDLL('build/libkern.so')\nlib.gemm(1)\n",
            count=3,
        ),
        # a class of the extension as the type an `isinstance` test asks about runs none of its code (label ruling (L68)):
        # the construction is the use
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('rast_c', ['r.cu'])\n"
            "import rast_c\ndef f(mip=None):\n    assert mip is None or isinstance(mip, (rast_c.MipWrapper, list))\n"
            "    return mip if isinstance(mip, rast_c.MipWrapper) else rast_c.MipWrapper(mip)\n",
            count=2,
        ),
        # a cffi extension built from lut.c and lut_cuda.c: the final `else:` of the `is_cuda` test calls the CPU build
        # of the op the CUDA branch calls as `<op>_cuda` (label ruling (L69), migrate/cpu_fallbacks.py)
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('lut_ext', ['lut.cpp', 'k.cu'])\n"
            "import lut_ext\ndef apply(lut, x, out):\n    if x.is_cuda:\n        lut_ext.lut_forward_cuda(lut, x, out)\n"
            "    else:\n        lut_ext.lut_forward(lut, x, out)\n        lut_ext.lut_stats(out)\n    return out\n",
            count=3,
        ),
        # the negated test: `if not x.is_cuda:` calls the CPU build, its `else:` the `<op>_cuda` sibling (L69)
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('pool_ext', ['pool.c', 'k.cu'])\n"
            "import pool_ext\ndef forward(x, rois, out):\n    if not x.is_cuda:\n        pool_ext.pool_forward(x, rois, out)\n"
            "    else:\n        pool_ext.pool_forward_cuda(x, rois, out)\n    pool_ext.pool_backward(out)\n    return out\n",
            count=3,
        ),
        Invalid("import torch\nlib = torch.library.Library('mylib', 'DEF')\ny = torch.ops.mylib.fast_op(x)\n", count=1),
        # enum members and constants of the compiled module are values (label ruling (L80)), and its availability
        # probe runs no kernel ((L62)): the imports, the op call, the construction and the GPU member chosen for CUDA
        # coordinates are the lines; the GPU member chosen under the probe is not (migrate/compiled_values.py)
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('sparse_c', ['conv.cpp', 'conv.cu'])\n"
            "import sparse_c\nfrom sparse_c import RegionType, MapType\n"
            "_default_map = MapType.CUDA if sparse_c.is_cuda_available() else MapType.CPU\n"
            "def conv(x, w, region=RegionType.HYPER_CUBE, mode=sparse_c.ConvMode.DEFAULT):\n"
            "    if region == RegionType.CUSTOM or sparse_c.MAX_UINT < x.numel():\n        mode = sparse_c.ConvMode.DIRECT\n"
            "    return sparse_c.conv_forward(x, w, int(mode))\n"
            "def manager(coords):\n    map_type = MapType.CUDA if coords.is_cuda else MapType.CPU\n"
            "    return sparse_c.Manager(map_type)\n"
            "def test_gpu():\n    if not sparse_c.is_cuda_available():\n        return\n"
            "    m = sparse_c.Manager(MapType.CUDA)\n",
            count=6,
        ),
        # enum members in the CamelCase spelling (pybind11 `py::enum_<ETrainMode>(m, "TrainMode")`) and the conversion
        # of a value to such an enum are values too (L80; instant-ngp scripts/run.py): the import, the construction and
        # the method call on the compiled object are the lines; a GPU member chosen as a value stays one (45b-8)
        Invalid(
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('ngp_c', ['api.cpp', 'k.cu'])\n"
            "import ngp_c as ngp\ndef run(path, mode):\n    t = ngp.Testbed()\n"
            "    if t.mode == ngp.TestbedMode.Sdf:\n        t.train_mode = ngp.TrainMode.Nerf\n"
            "    old = ngp.TrainMode(t.train_mode)\n    t.device = ngp.Device.Cuda\n    t.load_file(path)\n",
            count=4,
        ),
        # RWKV-LM RWKV-v7/train_temp/src/model.py (label rule (s21b-5)): a name bound to the namespace; its attribute calls
        # are op calls (the binding line and the call line, not the binding's target again)
        Invalid("import torch\nlib = torch.library.Library('mylib', 'DEF')\nOP = torch.ops.mylib\ny = OP.fast_op(x)\n", count=2),
        # an availability probe of the op (`hasattr(torch.ops.ns, 'op')`) is no use of it: the call only
        Invalid("import torch\nlib = torch.library.Library('mylib', 'DEF')\nhas = hasattr(torch.ops.mylib, 'fast_op')\n"
                "y = torch.ops.mylib.fast_op(x) if has else x\n", count=1),
        Invalid(
            "from . import custom_ops\n_plugin = None\ndef _init():\n    global _plugin\n"
            "    _plugin = custom_ops.get_plugin('bias_act_plugin', sources=srcs, extra_cuda_cflags=['--use_fast_math'])\n"
            "    return _plugin is not None\ndef run(x):\n    return _plugin.bias_act(x)\n",
            count=1,
        ),
        Invalid(  # StyleGAN3 bias_act.py: the helper is given the extension's name by keyword
            "from . import custom_ops\n_plugin = None\ndef _init():\n    global _plugin\n"
            "    _plugin = custom_ops.get_plugin(module_name='bias_act_plugin', sources=srcs, extra_cuda_cflags=['--use_fast_math'])\n"
            "    return _plugin is not None\ndef run(x):\n    return _plugin.bias_act(x)\n",
            count=1,
        ),
        Invalid(  # stable-dreamfusion raymarching.py: an accessor returns the extension it stored (the op call; the
            # line storing it in the cache calls nothing: `_cached_for_return`)
            "from torch.utils.cpp_extension import load\n_ext = load(name='rm', sources=['rm.cu'])\nBACKEND = None\n"
            "def get_backend():\n    global BACKEND\n    if BACKEND is None:\n        BACKEND = _ext\n    return BACKEND\n"
            "y = get_backend().march(x)\n",
            count=1,
        ),
        Invalid(  # cubvh api.py: the object an op returns is the extension's CUDA class; its methods run kernels
            "from torch.utils.cpp_extension import load\n_backend = load(name='_cubvh', sources=['bvh.cu'])\n"
            "class BVH:\n    def __init__(self, v, f):\n        self.impl = _backend.create_bvh(v, f)\n"
            "    def trace(self, rays):\n        return self.impl.ray_trace(rays)\n"
            "def load(sd):\n    impl = _backend.from_state_dict(sd)\n    impl.check()\n    return impl\n",
            count=4,
        ),
        Invalid(  # a module-level alias of the compiled module (imported, else JIT-built): the import, the alias line and
            # each call through the alias are reported; a parameter of the same name is not the alias
            "from torch.utils.cpp_extension import load\ntry:\n    import qmat_ext\nexcept ModuleNotFoundError:\n"
            "    qmat_ext = load(name='qmat_ext', sources=['q_matrix.cu'])\next_c = qmat_ext\n"
            "def make_group_map(groups, n):\n    return ext_c.make_group_map(groups.cpu(), n)\n"
            "def make_q_matrix(w, temp):\n    return ext_c.make_q_matrix(\n        w['q_weight'], temp)\n"
            "def pack(w, ext_c):\n    return ext_c.pack(w)\n",
            count=4,
        ),
        Invalid(  # the alias is also bound to a torch reference module: its calls may run either; the alias line is reported
            "from torch.utils.cpp_extension import load\nimport ref_ops\n_ext = load(name='g_ext', sources=['g.cu'])\n"
            "ops = _ext\nif not USE_CUDA:\n    ops = ref_ops\ndef f(x):\n    return ops.forward(x)\n",
            count=1,
        ),
        Invalid(  # neural_renderer save_obj.py: an op named like a constructor returns a tensor: its tensor methods
            # (`.detach()`) and calls before the binding line (`image.cuda()`) are no calls of the extension's object
            "from torch.utils.cpp_extension import load\next = load(name='t', sources=['t.cu'])\ndef f(image, v):\n"
            "    image = image.cuda()\n    image = ext.create_texture_image(v, image)\n    return image.detach().cpu().numpy()\n",
            count=1,
        ),
        Invalid(  # a call on the name before the line that binds it to the object is on whatever the name held then
            "from torch.utils.cpp_extension import load\next = load(name='g', sources=['g.cu'])\ndef f(grid, x):\n"
            "    grid.refresh(x)\n    grid = ext.create_grid(x)\n    return grid.query(x)\n",
            count=2,
        ),
        Invalid(  # the op returns a tensor (its name is no constructor's): `.reshape()` is torch's, only the op call counts
            "from torch.utils.cpp_extension import load\next = load(name='f', sources=['f.cu'])\n"
            "def g(x):\n    y = ext.backward(x)\n    return y.reshape(-1)\n",
            count=1,
        ),
        Invalid(  # Cornell-RelaxML/qtip lib/codebook/__init__.py:76: an op name written into a string that exec'd code calls
            "from torch.utils.cpp_extension import load\next = load(name='qk', sources=['qk.cu'])\nfor bits in (2, 3):\n"
            "    kernel_name = f'ext.decompress_{bits}'\n    label = f'ext.decompress_{bits}'\n"
            "    exec(f'def run_{bits}(out, x):\\n    {kernel_name}(out, x)\\n')\n",
            count=1,
        ),
        Invalid(  # KNN_CUDA: a helper JIT-builds the extension it is given the name of and returns it
            "from torch.utils.cpp_extension import load\ndef load_cpp_ext(ext_name):\n"
            "    ext = load(name=ext_name, sources=['k.cpp', 'k.cu'], with_cuda=True)\n    return ext\n"
            "_knn = load_cpp_ext('knn')\ndef knn(ref, query, k):\n    return _knn.knn(ref, query, k)\n",
            count=2,
        ),
        Invalid(  # faster-rcnn.pytorch: a cffi build's package, imported relatively; the generated __init__ hands its
            # compiled library to dir()/getattr() (no op called there): its import line and the op calls are reported
            "from torch.utils.ffi import create_extension\nffi = create_extension('_ext.roi_align', sources=s, with_cuda=True)\n"
            "from ._ext import roi_align\ny = roi_align.roi_align_forward_cuda(x)\n"
            "from ._ext.roi_align._roi_align import lib as _lib\nfor name in dir(_lib):\n    fn = getattr(_lib, name)\n",
            count=3,
        ),
        Invalid(  # NVlabs/cule: a setuptools Extension whose `.cu` source is in a list it reads by name
            "import os\nfrom setuptools import Extension\nsources = [os.path.join('src', f) for f in ['f.cpp', 'b.cu']]\n"
            "ext = Extension('m_atari', sources=sources)\nimport m_atari\nclass Env(m_atari.AtariEnv):\n    pass\n",
            count=2,
        ),
        Invalid(  # NVlabs/cule torchcule/atari/env.py: a Python subclass of the extension's class calls its compiled
            # methods through super() and self (not the methods it defines itself)
            "from setuptools import Extension\next = Extension('m_atari', sources=['b.cu'])\nimport m_atari\n"
            "class Env(m_atari.AtariEnv):\n    def __init__(self, n):\n        super(Env, self).__init__(n)\n"
            "        self.buf = self.state_size()\n    def step(self, a):\n        super().step(a)\n"
            "        self.generate_frames(a)\n        self.reset_all()\n        return self.buf\n"
            "    def reset_all(self):\n        self.step(0)\n",
            count=6,
        ),
        Invalid(  # NVIDIA apex's tests: an op imported by name and handed as a value to the multi-tensor applier
            "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('amp_C', ['amp_C.cu'])]\n"
            "from amp_C import multi_tensor_l2norm\nnorm = applier(multi_tensor_l2norm, buf, [xs], True)\n",
            count=2,
        ),
        Invalid(  # a class of the extension imported by name: its construction and the method calls on the object,
            # through a local, an annotated parameter, a member bound to it and that member read through another object
            # (label ruling (L33)); the annotations name the class and run nothing (34b-11)
            "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('qm._C', ['gemm.cu'])]\n"
            "from qm._C import QuantizedModel\nclass Blocks:\n    def __init__(self, m: QuantizedModel):\n"
            "        self.m = m\n    def forward(self, x):\n        return self.m.forward(x)\n"
            "def load(path) -> QuantizedModel:\n    m = QuantizedModel()\n    m.load(path)\n    return m\n"
            "def set_scale(blocks, s):\n    for block in blocks:\n        block.m.setLoraScale(s)\n",
            count=5,
        ),
        Invalid(  # BundleSDF bundlesdf.py: fields and elements of a compiled object are its objects too (`bundler._fm`,
            # `bundler._frames` a bound map, `yml["key"]` a YAML node; label ruling (L95)); an object a method of the class
            # returns through a local and hands to another method is followed there; a field read only with
            # tensor-named methods (`frame._pose.max()`: a converted numpy array) is not reported
            "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('trk', ['ransac.cu'])]\n"
            "import trk\nclass Tracker:\n    def __init__(self):\n        self.bundler = trk.Bundler()\n"
            "    def make_frame(self, img):\n        frame = trk.Frame(img)\n        if img is None:\n"
            "            frame._mask = None\n        return frame\n    def process(self, frame):\n"
            "        frame.denoise()\n        self.bundler._fm.runRansac(frame)\n"
            "        ids = list(self.bundler._frames.keys())\n        return frame._pose.max(), ids\n"
            "    def run(self, img):\n        frame = self.make_frame(img)\n        self.process(frame)\n"
            "tracker = Tracker()\nprint(tracker.bundler.yml['dir'].Scalar())\n",
            count=7,
        ),
        Invalid(  # one build per GPU architecture under an f-string name, loaded by an f-string of the same shape; the
            # object a subclass's factory method builds, bound by the base class (`self.native = self._native()`)
            "from torch.utils.cpp_extension import CUDAExtension\nimport importlib\n"
            "def make_extension(cc):\n    return CUDAExtension(name=f'pkg_bindings._{cc}_C', sources=['k.cu'])\n"
            "mods = [make_extension(cc) for cc in (70, 80)]\nfor cc in (80, 70):\n"
            "    _C = importlib.import_module(f'pkg_bindings._{cc}_C')\n"
            "class Module:\n    def __init__(self):\n        self.native = self._native()\n"
            "        self.params = self.native.initial_params(1)\n"
            "class Encoding(Module):\n    def _native(self):\n        return _C.create_encoding(3)\n",
            count=3,
        ),
        Invalid(  # a capability probe of the compiled module is a check (label note 49c c-5): the import and the op
            "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('fused_adam', ['adam.cu'])]\n"
            "import fused_adam\ndef step_bf16(p, g):\n    if not fused_adam.is_bf16_supported():\n"
            "        raise NotImplementedError('bfloat16 needs a newer GPU')\n    fused_adam.adam_bf16(p, g)\n",
            count=2,
        ),
        Invalid(  # module metadata read as a value (a docs conf's `version = ext.__version__`): the import and the op
            "from torch.utils.cpp_extension import CUDAExtension\nmods = [CUDAExtension('fused_adam', ['adam.cu'])]\n"
            "import fused_adam\nversion = fused_adam.__version__\nwhere = fused_adam.__file__\n"
            "def step(p, g):\n    fused_adam.adam(p, g)\n",
            count=2,
        ),
        Invalid(
            "from torch.utils.cpp_extension import CppExtension, CUDAExtension\nextension = CppExtension\n"
            "if cuda:\n    extension = CUDAExtension\nmods = [extension('MSDA', srcs)]\nimport MSDA\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        defs = repo_index.python_defs(ctx)
        modules = {d.name: d for d in defs if d.kind == "module"}
        namespaces = {d.name: d for d in defs if d.kind == "namespace"}
        if not modules and not namespaces:  # wrapper values alone link only across files (migrate/linking.py)
            return
        served = default_kernels.served([(d.name, d.why, d.mode) for d in defs if d.kind == default_kernels.KIND],
                                        {d.name: d for d in defs if d.kind in ("module", "value")})  # migrate/default_kernels.py
        yield from self.uses(ctx, repo_index.Index(modules, namespaces, python_ops=repo_index.python_ops(defs) | served,
                                                   cpu_built=frozenset(d.name for d in defs if d.kind == cpu_builds.KIND)))

    def uses(self, ctx, index: "repo_index.Index"):
        """Findings for every use in `ctx` of what `index` defines (this file's or the whole scan's), less those on
        the lines of an import attempt that sets an availability flag (migrate/flagged_extensions.py)."""
        optional = flagged_extensions.flagged_lines(ctx) if "try" in ctx.source else frozenset()
        # the CUDA side of an NPU-aware choice (`if not use_torch_npu: import ext`, then `ext.op(...)`; migrate/npu_aware.py)
        optional |= npu_aware.extension_use_lines(ctx.tree, ctx.source, (ctx.nodes, ctx._parents))
        # a test module named for a CPU target of a source-set table uses that module's CPU build (migrate/source_set_tables.py)
        cpu_build = source_set_tables.cpu_target_modules(ctx.path, index.cpu_built) if index.cpu_built else ()
        if cpu_build:
            index = dataclasses.replace(index, modules={k: v for k, v in index.modules.items() if k not in cpu_build})
        for finding in self._uses(ctx, index):
            if finding.line not in optional:
                yield finding

    def _uses(self, ctx, index: "repo_index.Index"):
        self._bind(ctx, index)
        yield from self._imports(ctx, index)
        if "getattr(" in ctx.source or "hasattr(" in ctx.source:  # a GPU suffix picking bindings (migrate/gpu_name_suffix.py)
            def compiled(qual: str):
                found = index.module_for(qual)
                return found is not None and index.modules[found].kind == "module" and index.modules[found].cuda
            for literal, qual in gpu_name_suffix.suffix_literals(ctx, compiled).values():
                yield self._finding(ctx, literal, f"the suffix {literal.value!r} of a name looked up on `{qual}`",
                                    index.modules[index.module_for(qual)])
        for call in ctx.nodes.get(ast.Call, ()):
            found = self._loaded(ctx, call, index)
            if found is not None:
                used, module = found
                yield self._finding(ctx, call, used, index.modules[module])
        op_calls: dict[int, object] = {}  # id(call) -> definition: calls of an extension's ops, for the objects they return
        accessor_calls: dict[int, object] = {}  # id(call) -> definition: calls of op accessors / class aliases
        typed_params: dict[tuple[int, str], object] = {}  # (id(function), name) -> definition: `m: CompiledClass`
        alias_findings, alias_bindings = self._op_alias_calls(ctx, index)
        for node, qual in chain_tops(ctx):
            if id(node) in alias_bindings:  # `func = ext.op_half` called later as `func(...)`: the call is the use (L52)
                continue
            if qual.startswith(repo_index.TORCH_NAMESPACE_ROOTS):  # an op, or a class `m.class_<T>` registers
                parts = qual.split(".")
                if isinstance(getattr(node, "ctx", None), ast.Store):  # the target of `OP = torch.ops.<ns>` (`_bind`)
                    continue
                if len(parts) > 3 and cpu_kernel_ops.cpu_kernel_op(index, parts[2], parts[3]):
                    continue  # an op with only a CPU kernel, served by the CPU build (migrate/cpu_kernel_ops.py)
                if len(parts) > 2 and parts[2] in index.namespaces and not (_hasattr_probe(ctx, node) or _mock_target(ctx, node)):
                    python_op = parts[1] == "ops" and len(parts) > 3 and op_register_aliases.implemented_in_python(index.python_ops, f"{parts[2]}::{parts[3]}")
                    yield self._finding(ctx, report_node(ctx, node), qual, index.namespaces[parts[2]],
                                        python_op=parts[3] if python_op else "")
                continue
            module = index.module_for(qual)
            if module is not None and index.modules[module].mode in (CALLED, LAZY_OP):  # an op accessor / class alias: its calls
                if _called(ctx, node) and not shadowed(ctx, node):
                    yield self._finding(ctx, report_node(ctx, node), f"{qual}(...)", index.modules[module])
                    accessor_calls[id(ctx.parent(node))] = index.modules[module]
                continue
            if module is not None and annotation(ctx, node):  # `m: QuantizedModel`, `-> Model`: a hint runs nothing
                typed = ctx.parent(node)
                if isinstance(typed, ast.arg) and _CONSTRUCTOR.match(qual.rsplit(".", 1)[-1]):
                    function = ctx.enclosing(typed, (ast.FunctionDef, ast.AsyncFunctionDef))
                    typed_params[(id(function), typed.arg)] = index.modules[module]
                continue
            if module is not None and index.modules[module].mode == submodules.PROJECT:  # a research project's package
                parent = ctx.parent(node)  # only constructions of the classes running its op (migrate/submodules.py)
                if isinstance(parent, ast.Call) and parent.func is node and submodules.constructs(index.modules[module], qual) \
                        and not shadowed(ctx, node):
                    yield self._finding(ctx, report_node(ctx, node), f"{qual}(...)", index.modules[module])
                continue
            if module is not None and index.modules[module].mode == submodules.MODE \
                    and submodules.pure_helper(index.modules[module], qual):
                continue  # a plain-PyTorch helper of a missing submodule's package (its import stays reported)
            if module is not None and isinstance(getattr(node, "ctx", None), ast.Load) and not (
                availability_probe(ctx, node) or _hasattr_probe(ctx, node) or _type_check(ctx, node) or is_prose(ctx, node) or (shadowed(ctx, node) and not _accessor_local(ctx, node))
                or _handed_over(ctx, node, qual, module) or _cached_for_return(ctx, node, qual, module)
                or _redefined(ctx, node) or _own_attribute(ctx, node) or _passed_on(ctx, node, index.modules[module])
                or cpu_fallbacks.cpu_op_off_cuda(ctx, node, qual, _cpu_built(index, module))
                or compiled_values.constant_read(ctx, node, qual, module) or compiled_values.probe_call(ctx, node, qual)
                or compiled_values.metadata_read(ctx, node, qual)
            ):
                yield self._finding(ctx, report_node(ctx, node), qual, index.modules[module])
                parent = ctx.parent(node)
                if isinstance(parent, ast.Call) and parent.func is node and _CONSTRUCTOR.match(qual.rsplit(".", 1)[-1]):
                    op_calls[id(parent)] = index.modules[module]
        module_alias_findings = list(self._module_alias_calls(ctx, index, op_calls))
        yield from self._object_calls(ctx, op_calls, typed_params)
        yield from alias_findings
        yield from module_alias_findings
        yield from self._subclass_calls(ctx, index)
        yield from self._accessor_calls(ctx, index)
        yield from self._wrapper_calls(ctx, index, accessor_calls)
        for call, definition in called_kernels.result_calls(ctx, accessor_calls) if accessor_calls else ():
            yield self._finding(ctx, report_node(ctx, call.func), f"{ctx.segment(call.func)}(...)", definition)
        yield from self._helper_loads(ctx, index)
        yield from self._cached_accessor_calls(ctx, index)
        yield from self._local_build_calls(ctx, index)
        yield from self._loader_member_calls(ctx, index)
        if ctx.path.endswith("__init__.py") and "*" in ctx.source:
            yield from self._self_import_ops(ctx, index)
        yield from self._exec_strings(ctx, index)

    def _op_alias_calls(self, ctx, index):
        """`f = punica.ops._kernels.dispatch_bgmv` then `f(y, x, ...)` (label rule 25b-13): each call through a name
        bound only to ops of the extension (or to a literal dict of them indexed on the spot) calls the op
        (migrate/callable_aliases.py). The binding itself only names the op: where a call through the name is
        reported, the chain pass skips the binding's chains (label ruling (L52), which replaced 25b-13's reading);
        a binding never called through stays the chain pass's use. Returns (calls, ids of the skipped chains)."""
        def resolve(node):
            lookup = callable_aliases.getattr_lookup(node)  # `getattr(ext, "op", None)`: the chain `ext.op`
            if lookup is not None:
                base = ctx.qualname(lookup[0])
                if base is None or shadowed(ctx, lookup[0]):
                    return None
                qual = f"{base}.{lookup[1]}"
            else:
                qual = ctx.qualname(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
                if qual is None or shadowed(ctx, node):
                    return None
            parts = qual.split(".")
            if parts[:2] == ["torch", "ops"] and len(parts) == 4 and parts[2] in index.namespaces:
                if cpu_kernel_ops.cpu_kernel_op(index, parts[2], parts[3]):
                    return None  # only a CPU kernel (migrate/cpu_kernel_ops.py)
                return (qual, index.namespaces[parts[2]])
            module = index.module_for(qual)
            if module is None or qual == module or index.modules[module].mode in (kernel_values.WRAPPER, CALLED, LAZY_OP, *kernel_values.ACCESSORS):
                return None
            return (qual, index.modules[module])

        # an op bound to None where the import fails (`except ImportError: quant_cuda = None`) and never tested is
        # still the op at each call: None(...) fails there (label ruling (L42)); a tested one is an optional path
        aliases = {key: alias for key, alias in callable_aliases.callable_aliases(ctx, resolve, none_standin=True).items()
                   if not none_stand_ins.tested_anywhere(ctx, alias.name)}
        calls = callable_aliases.alias_calls(ctx, aliases)
        findings = []
        for found in calls:
            qual, definition = found.alias.keys[0]
            findings.append(self._finding(ctx, found.call, f"{found.alias.name}(...)` through `{found.alias.name} = {qual}",
                                          definition))
        called = {(c.alias.scope, c.alias.name) for c in calls}
        # a module-level alias of an op the file never reads (`ml_nms = _C.ml_nms`, only listed in `__all__`): the
        # binding runs nothing and nothing here calls through it (label ruling (L104)); another module importing the
        # name calls the op through it (kernel_values.op_alias_values)
        called |= {key for key, alias in aliases.items()
                   if key[0] is None and key not in called and _op_alias(alias, index) and not _read(ctx, alias.name)}
        bindings = callable_aliases.binding_chains(ctx, called)
        if "class " in ctx.source:  # `forward_op = ext.expm` in a subclass, `cls.forward_op(...)` in the base (a-6)
            attribute_calls = callable_aliases.class_attribute_calls(ctx, callable_aliases.class_attribute_aliases(ctx, resolve))
            for found in attribute_calls:
                qual, definition = found.alias.keys[0]
                findings.append(self._finding(ctx, found.call, f"{ctx.segment(found.call.func)}(...)` through the class "
                                              f"attribute `{found.alias.name} = {qual}`", definition))
            bindings |= callable_aliases.class_attribute_chains(ctx, {c.alias.name for c in attribute_calls})
        return findings, bindings

    def _module_alias_calls(self, ctx, index, op_calls=None):
        """`ext_c = exllamav2_ext` at module level, then `ext_c.make_q_matrix(...)` in the file's functions (label rules
        29b-2, 29a-3): each call of an attribute through a module-level name bound only to the compiled module (or to
        None as well: `except ImportError: ops = None` leaves the call failing) calls one of its ops. The binding line
        is reported by the chain pass; calls of an op named for a CPU build off CUDA are not ((L28),
        migrate/cpu_fallbacks.py)."""
        def resolve(node):
            if _scope_is_function(ctx, node):
                return None
            qual = ctx.qualname(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
            module = index.module_for(qual) if qual is not None else None
            # the chain names the module itself (`ext`, or `pkg.ext` reached through a relative import), not one of its ops
            if module is None or qual.rsplit(".", 1)[-1] != module.rsplit(".", 1)[-1] \
                    or index.modules[module].mode in (kernel_values.WRAPPER, CALLED, LAZY_OP, *kernel_values.ACCESSORS):
                return None
            return (qual, index.modules[module])

        aliases = {key: alias for key, alias in callable_aliases.callable_aliases(ctx, resolve, none_standin=True).items()
                   if key[0] is None}
        if "global" in ctx.source:
            caches = callable_aliases.global_module_caches(ctx, lambda function, name: self._local_module(ctx, index, function, name))
            aliases.update({key: alias for key, alias in caches.items() if key not in aliases})
        for found in callable_aliases.method_calls(ctx, aliases):
            qual, definition = found.alias.keys[0]
            op = f"{qual}.{found.call.func.attr}"
            if cpu_fallbacks.cpu_op_off_cuda(ctx, found.call.func, op, _cpu_built(index, definition.name)):
                continue
            if op_calls is not None and _CONSTRUCTOR.match(found.call.func.attr):  # `self.impl = _plugin.Tracer(...)`
                op_calls[id(found.call)] = definition
            yield self._finding(ctx, found.call.func,
                                f"{found.alias.name}.{found.call.func.attr}(...)` through `{found.alias.name} = {qual}", definition)

    def _local_module(self, ctx, index, function, value):
        """(qualified name, definition) of the compiled module a loader function's local `name` holds when each of its
        bindings there is the module: an import of it (`from . import lib_cc as ext`) or the result of a project
        helper that builds or returns it (`ext = setup_ext(conf)`, an accessor/builder of the index); None otherwise
        (migrate/callable_aliases.py `global_module_caches`)."""
        if isinstance(value, ast.Call):  # `_plugin = setup_ext()` itself
            qual = ctx.qualname(value.func)
            module = index.module_for(qual) if qual is not None else None
            if module is None or index.modules[module].mode not in kernel_values.ACCESSORS:
                return None
            return (f"{qual}()", index.modules[module])
        name = value.id
        bindings = callable_aliases.local_bindings(function, name)
        if not bindings:
            return None
        found = []
        for statement in bindings:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                alias = next(a for a in statement.names if (a.asname or a.name.split(".", 1)[0]) == name)
                if isinstance(statement, ast.ImportFrom):
                    base = repo_index._resolve_relative(ctx.path, "." * statement.level, statement.module or "") \
                        if statement.level else (statement.module or "")
                    full = f"{base}.{alias.name}" if base else alias.name
                else:
                    full = alias.name if alias.asname else alias.name.split(".", 1)[0]
                module = index.module_for(full)
                if module is None or full.rsplit(".", 1)[-1] != module.rsplit(".", 1)[-1] \
                        or index.modules[module].mode in (kernel_values.WRAPPER, CALLED, LAZY_OP, *kernel_values.ACCESSORS):
                    return None
                found.append((full, index.modules[module]))
            elif isinstance(statement.value, ast.Call):
                qual = ctx.qualname(statement.value.func)
                module = index.module_for(qual) if qual is not None else None
                if module is None or index.modules[module].mode not in kernel_values.ACCESSORS:
                    return None
                found.append((f"{qual}()", index.modules[module]))
            else:
                return None
        return next((f for f in found if not f[0].endswith("()")), found[0])

    def _exec_strings(self, ctx, index):
        """`kernel_name = f"qtip_kernels.decompress_{bits}"` pasted into code the file runs with `exec(f"... {kernel_name}(out, x)")`:
        a string whose text starts with `<extension>.<op>` (the extension's name as this file binds it), assigned to a name
        that an `exec`'d f-string interpolates, is the op call of that code: one finding at the string's line."""
        pasted = set()
        for call in ctx.nodes.get(ast.Call, ()):
            if isinstance(call.func, ast.Name) and call.func.id == "exec" and "exec" not in ctx.imports:
                pasted.update(node.value.id for argument in call.args for node in ast.walk(argument)
                              if isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Name))
        if not pasted:
            return
        for statement in ctx.nodes.get(ast.Assign, ()):
            if not any(isinstance(target, ast.Name) and target.id in pasted for target in statement.targets):
                continue
            value = statement.value
            head = value.values[0] if isinstance(value, ast.JoinedStr) and value.values else value
            text = head.value if isinstance(head, ast.Constant) and isinstance(head.value, str) else ""
            match = _PASTED_OP.match(text)
            full = ctx.imports.get(match.group(1).split(".", 1)[0]) if match else None
            if full is None:
                continue
            qual = full + match.group(1)[len(match.group(1).split(".", 1)[0]):] + "." + match.group(2)
            module = index.module_for(qual)
            if module is not None:
                yield self._finding(ctx, value, f"{qual}... (in code run by exec)", index.modules[module])

    def _self_import_ops(self, ctx, index):
        """A package `__init__` that star-imports its compiled module (`from .warp_rnnt import *`) and imports its own
        package under a name (`import warprnnt_pytorch as warp_rnnt`) reads the compiled ops through that name
        (`warp_rnnt.gpu_rnnt if is_cuda else warp_rnnt.cpu_rnnt`; HawkAaron/warp-transducer pytorch_binding, label W-(w3)):
        the self-import and each read of a name the file does not define itself are uses of the extension."""
        package = ".".join(repo_index.module_parts(ctx.path))
        if not package:
            return
        definition = None
        for statement in ctx.tree.body:
            if isinstance(statement, ast.ImportFrom) and statement.level and [a.name for a in statement.names] == ["*"]:
                base = repo_index._resolve_relative(ctx.path, "." * statement.level, statement.module or "")
                module = index.module_for(base, True)
                if module is not None:
                    definition = index.modules[module]
                    break
        if definition is None:
            return
        aliases = {}
        for statement in ctx.tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.name == package or package.endswith("." + alias.name):
                        aliases[alias.asname or alias.name] = alias
        if not aliases:
            return
        own = {n.id for n in ctx.nodes.get(ast.Name, ()) if isinstance(n.ctx, ast.Store)}
        own |= {n.name for n in ctx.nodes.get(ast.FunctionDef, ())} | {n.name for n in ctx.nodes.get(ast.ClassDef, ())}
        own |= {a.asname or a.name.split(".")[0] for s in ctx.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))
                for a in s.names if a.name != "*"}
        reads = [n for n in ctx.nodes.get(ast.Attribute, ()) if isinstance(n.value, ast.Name) and n.value.id in aliases
                 and isinstance(n.ctx, ast.Load) and n.attr not in own and not n.attr.startswith("__")]
        if not reads:
            return
        for name, alias in aliases.items():
            if any(n.value.id == name for n in reads):
                yield self._finding(ctx, alias, f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""),
                                    definition)
        for node in reads:
            yield self._finding(ctx, node, f"{node.value.id}.{node.attr}", definition)

    def _cached_accessor_calls(self, ctx, index):
        """`slstm_cuda = sLSTMCellCUDA.instance(config=config)` (a class-level cache of a build of this file,
        `_class_cache_accessors`): the assignment binds the compiled module, `slstm_cuda.sLSTMFunc(...)` calls its
        op, and the object that call returns (`slstm_mod = ...`) is the extension's C++/CUDA class: its method calls
        (`slstm_mod.forward(...)`, also in functions nested where it is bound) run kernel code (label ruling G-(g4))."""
        lines = {d.line: d.name for d in index.modules.values() if d.kind == "module" and d.path == ctx.path}
        accessors = _class_cache_accessors(ctx, lines) if lines else {}
        if not accessors:
            return
        held: dict[tuple[int, str], object] = {}  # (id(function), local name) -> definition
        functions = (ast.FunctionDef, ast.AsyncFunctionDef)

        def holder_of(node, name):
            scope = ctx.enclosing(node, functions)
            while True:
                definition = held.get((id(scope), name))
                if definition is not None or scope is None:
                    return definition
                scope = ctx.enclosing(scope, functions)

        for statement in sorted(ctx.nodes.get(ast.Assign, ()), key=lambda n: (n.lineno, n.col_offset)):
            value = statement.value
            if not (isinstance(value, ast.Call) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
                continue
            key = (id(ctx.enclosing(statement, functions)), statement.targets[0].id)
            module = accessors.get(ast.unparse(value.func)) if isinstance(value.func, ast.Attribute) else None
            if module is not None and module in index.modules:
                held[key] = index.modules[module]
                yield self._finding(ctx, value, f"{ctx.segment(value.func)}(...)", index.modules[module])
            elif isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
                    and holder_of(statement, value.func.value.id) is not None:
                held[key] = holder_of(statement, value.func.value.id)  # an object the extension's op built
        if not held:
            return
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and not func.attr.startswith("_") \
                    and not _tensor_method(func.attr):
                definition = holder_of(call, func.value.id)
                if definition is not None:
                    yield self._finding(ctx, call, f"{ctx.segment(func)}(...)", definition)

    def _local_build_calls(self, ctx, index):
        """`ext = load(name="wkv", sources=[..."wkv.cu"])` inside a function (often under a user switch, in a model's
        `__init__`): the local holds the compiled module, and each call of an attribute through it (`ext.forward_fp32(...)`)
        runs one of its ops, in that function and in the functions and classes nested in it that read it as a closure
        (the `forward` of an autograd.Function class defined right there), unless a scope between rebinds the name
        (a parameter or assignment of its own). Every binding of the local in its function must be a build of this
        file (migrate/callable_aliases.py `local_bindings`). A module-level build is a kernel value instead
        (migrate/kernel_values.py)."""
        lines = {d.line: d for d in index.modules.values() if d.kind == "module" and d.path == ctx.path}
        if not lines:
            return
        functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        held: dict[tuple[int, str], object] = {}  # (id(function), local name) -> definition
        for statement in ctx.nodes.get(ast.Assign, ()):
            value = statement.value
            if not (isinstance(value, ast.Call) and value.lineno in lines and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and ctx.qualname(value.func) is not None):
                continue
            function = ctx.enclosing(statement, functions)
            if function is None or isinstance(function, ast.Lambda):
                continue
            name = statement.targets[0].id
            bindings = callable_aliases.local_bindings(function, name)
            if bindings and all(isinstance(b, ast.Assign) and isinstance(b.value, ast.Call) and b.value.lineno in lines
                                for b in bindings):
                held[(id(function), name)] = lines[value.lineno]
        if not held:
            return
        names = {name for _, name in held}

        def holder_of(node, name):
            scope = ctx.enclosing(node, functions)
            while scope is not None:
                definition = held.get((id(scope), name))
                if definition is not None:
                    return definition
                if isinstance(scope, ast.Lambda):
                    if name in {a.arg for a in scope.args.args}:
                        return None
                elif callable_aliases.local_bindings(scope, name) != []:  # a parameter or a local of its own
                    return None
                scope = ctx.enclosing(scope, functions)
            return None

        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names \
                    and not func.attr.startswith("_"):
                definition = holder_of(call, func.value.id)
                if definition is not None:
                    yield self._finding(ctx, func, f"{ctx.segment(func)}(...)", definition)

    def _loader_member_calls(self, ctx, index):
        """`ext.lib.unpack(...)` / `CUDA_COMPLIER.CUDA_EXTENSION.op(...)`: an op called through the member of a project
        loader object that holds its JIT build (migrate/loader_objects.py)."""
        lines = {d.line: d for d in index.modules.values() if d.kind == "module" and d.path == ctx.path}
        if not lines:
            return
        for call, line in loader_objects.member_calls(ctx, lines):
            if not shadowed(ctx, call.func.value.value):
                yield self._finding(ctx, call.func, f"{ctx.segment(call.func)}(...)", lines[line])
        methods = loader_objects.build_calls(ctx, lines)  # `CUDA_COMPLIER.complie()`: runs the build, loads the module
        for call in ctx.nodes.get(ast.Call, ()) if methods else ():
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and (func.value.id, func.attr) in methods and not shadowed(ctx, func.value) \
                    and lines[methods[(func.value.id, func.attr)]].cuda:
                yield self._finding(ctx, func, f"{ctx.segment(func)}(...)", lines[methods[(func.value.id, func.attr)]])

    def _subclass_calls(self, ctx, index):
        """A Python class deriving from a class of the extension (NVlabs/cule: `class Env(torchcule_atari.AtariEnv)`)
        calls the compiled methods it inherits: `super(Env, self).step(...)` / `super().__init__(...)`, and
        `self.generate_frames(...)` for a public method the class neither defines nor assigns on `self`
        (each runs the extension's C++/CUDA code). The class line itself is reported as a use of the extension."""
        for cls in ctx.nodes.get(ast.ClassDef, ()):
            definition = None
            for base in cls.bases:
                qual = ctx.qualname(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
                module = index.module_for(qual) if qual else None
                if module is not None and qual != module:
                    definition = index.modules[module]
                    break
            if definition is None or definition.mode == submodules.PROJECT:  # a project's Python class: no compiled methods
                continue
            own = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            own |= {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
            own |= {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                    and isinstance(n.value, ast.Name) and n.value.id == "self"}
            for call in ast.walk(cls):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                    continue
                holder, method = call.func.value, call.func.attr
                inherited = isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "super"
                inherited = inherited or (isinstance(holder, ast.Name) and holder.id == "self" and not method.startswith("_")
                                          and method not in own)
                if inherited and ctx.enclosing(call, (ast.ClassDef,)) is cls:
                    yield self._finding(ctx, call.func, f"{ctx.segment(call.func)}(...)", definition)

    def _object_calls(self, ctx, op_calls, typed_params=None):
        """Method calls on an object an extension op built (an op named like a constructor: `create_x`,
        `make_x`, `from_x`, `build_x`, a capitalised class, also imported by name: `from ._C import QuantizedModel`
        then `m = QuantizedModel()`): cubvh's `self.impl = _backend.create_cuBVH(v, f)`
        then `self.impl.ray_trace(...)` anywhere in the class, `impl = _backend.from_state_dict(s)` then
        `impl.search(q)` in the same function. The object is the extension's C++/CUDA class: each of its
        methods runs kernel code (private `_` names aside; label ruling (L33)). A parameter annotated with such a class
        (`def __init__(self, m: QuantizedModel)`) holds one too, and so does a member bound to such a local
        (`self.m = m`); the member is followed through other objects of the file's classes as well
        (`block.m.load(...)`, `self.blocks[0].m.load(...)`: an attribute of that name the file binds only to the
        compiled object). Not followed: a method torch.Tensor has (`.detach()`, `.cuda()`, an aten op's name: the op
        may have returned a tensor) and a call on a local name before the line that binds it to the op's result."""
        if not op_calls and not typed_params:
            return
        op_calls = dict(op_calls)
        # a factory method: every method of that name in the file's classes returns such an op's object (a base class
        # binding `self.native = self._make_native()`, each subclass overriding `_make_native` with `return
        # _C.create_encoding(...)`): a `self.<method>()` call returns the compiled object too
        returns: dict[str, list] = {}
        for function in ctx.nodes.get(ast.FunctionDef, ()):
            if isinstance(ctx.parent(function), ast.ClassDef):
                values = [n.value for n in ast.walk(function) if isinstance(n, ast.Return)]
                returns.setdefault(function.name, []).append(
                    op_calls.get(id(values[0])) if len(values) == 1 and values[0] is not None else None)
        factories = {name: found[0] for name, found in returns.items() if found[0] is not None and all(found)}
        if factories:
            for call in ctx.nodes.get(ast.Call, ()):
                func = call.func
                if isinstance(func, ast.Attribute) and func.attr in factories and isinstance(func.value, ast.Name) \
                        and func.value.id == "self":
                    op_calls[id(call)] = factories[func.attr]
        members: dict[tuple[int, str], object] = {}
        locals_: dict[tuple[int, str], object] = dict(typed_params or {})
        bound: dict[tuple[int, str], int] = {}  # the first line binding a local name to the op's result

        def bind() -> None:
            for statement in ctx.nodes.get(ast.Assign, ()):
                if len(statement.targets) != 1:
                    continue
                function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                definition = op_calls.get(id(statement.value))
                if definition is None and isinstance(statement.value, ast.Name):  # `self.m = m`, m a compiled object
                    definition = locals_.get((id(function), statement.value.id))
                if definition is None:
                    continue
                target = statement.targets[0]
                if isinstance(target, ast.Name):
                    key = (id(function), target.id)
                    locals_[key] = definition
                    bound[key] = min(bound.get(key, statement.lineno), statement.lineno)
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    members[(id(ctx.enclosing(statement, (ast.ClassDef,))), target.attr)] = definition

        bind()
        # a method of a class of the file returning a local that holds the compiled object (`def make_frame(self,
        # ...): frame = my_cpp.Frame(...); ...; return frame`): a `self.make_frame(...)` call returns the object too
        held_returns = _held_returns(ctx, locals_)
        if held_returns:
            for call in ctx.nodes.get(ast.Call, ()):
                func = call.func
                if isinstance(func, ast.Attribute) and func.attr in held_returns and isinstance(func.value, ast.Name) \
                        and func.value.id == "self" and id(call) not in op_calls:
                    op_calls[id(call)] = held_returns[func.attr]
            bind()
        if locals_:
            _passed_objects(ctx, locals_, bound)
        if not members and not locals_:
            return
        # a member name the file's classes bind to the compiled object only, read through another object
        other_bindings = {t.attr for a in ctx.nodes.get(ast.Assign, ()) for t in a.targets if isinstance(t, ast.Attribute)
                          and not (id(a.value) in op_calls or (isinstance(a.value, ast.Name) and any(
                              key[1] == a.value.id for key in locals_)))}
        by_name = {name: definition for (_, name), definition in members.items() if name not in other_bindings}
        held_calls = []  # (call, definition, key): public method calls on a compiled object

        def held(holder, call):
            """(definition, key) of the compiled object the expression `holder` evaluates to, else (None, None)."""
            if isinstance(holder, ast.Name):
                key = (id(ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))), holder.id)
                if call.lineno >= bound.get(key, call.lineno):
                    return locals_.get(key), key
                return None, key
            if isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id == "self":
                key = (id(ctx.enclosing(call, (ast.ClassDef,))), "self." + holder.attr)
                return members.get((key[0], holder.attr)), key
            if isinstance(holder, ast.Attribute) and holder.attr in by_name:
                return by_name[holder.attr], ("by_name", holder.attr)
            if isinstance(holder, (ast.Attribute, ast.Subscript)):
                # a field of the compiled object or an element of it (`bundler._fm`, `bundler._keyframes[i]`,
                # `node["key"]`): what a pybind11 class exposes (`def_readwrite`, a bound map / vector, operator[]) is
                # the extension's object too (label ruling (L95)); one key per expression, so a converted value
                # (a numpy array) called only with tensor-named methods stays unreported below
                definition, _ = held(holder.value, call)
                if definition is not None:
                    scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    return definition, ("field", id(scope), ctx.segment(holder))
            return None, None

        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr.startswith("_") or id(call) in op_calls:
                continue
            definition, key = held(func.value, call)
            if definition is not None:
                held_calls.append((call, definition, key))
        held = None  # noqa: F841 -- the recursive closure holds its own cell: a cycle keeping ctx alive (no collector)
        # an object with a method no tensor has (`manager.insert_and_map(...)`) is no tensor the op returned: its
        # tensor-named methods (`manager.size(key)`) are the compiled class's too (label note 45b b-9)
        objects = {key for call, _, key in held_calls if not _tensor_method(call.func.attr)}
        for call, definition, key in held_calls:
            if key in objects or not _tensor_method(call.func.attr):
                yield self._finding(ctx, call, f"{ctx.segment(call.func)}(...)", definition)

    def _helper_loads(self, ctx, index):
        """`_knn = load_cpp_ext("knn")`: a project helper of this file JIT-builds the extension and returns it;
        the call is where the kernel module enters the program, like an import of it. Not a call through a variable
        bound to the extension class itself (`Extension = CppExtension if suffix == 'cpu' else CUDAExtension`, then
        `extension = Extension(...)` in setup.py): that is the build, NPU505's (rule 48a a-1)."""
        lines = {d.line: d for d in index.modules.values() if d.kind == "module" and d.path == ctx.path}
        if not lines:
            return
        classes = repo_index.extension_class_variables(ctx)
        for call in ctx.nodes.get(ast.Call, ()):
            definition = lines.get(call.lineno)
            if definition is not None and isinstance(call.func, ast.Name) and ctx.qualname(call.func) is None \
                    and call.func.id not in classes and isinstance(ctx.parent(call), ast.Assign):
                yield self._finding(ctx, call, f"{call.func.id}(...)", definition)

    def _wrapper_calls(self, ctx, index, accessor_calls):
        """Calls, in the file that defines it, of a module-level wrapper of a kernel op
        (`my_op = MyFn.apply`, `op = partial(_C.op, ...)`; see kernel_values.wrapper_values); other
        files import it, and their uses are found like any imported extension name."""
        here = ".".join(repo_index.module_parts(ctx.path))
        local = {d.name.rsplit(".", 1)[1]: d for d in index.modules.values()
                 if d.mode in ("via", kernel_values.WRAPPER, CALLED, LAZY_OP) and d.name.rsplit(".", 1)[0] == here}
        if not local:
            return
        local = {k: d for k, d in local.items() if d.mode in (CALLED, LAZY_OP)  # an op accessor is a function; others: _accessor_calls
                 or not any(f.name == k for f in ctx.nodes.get(ast.FunctionDef, ()))}
        # `contract = _make_lazy_cuda_func("contract")`: a lazy op alias binds, and runs nothing (called_kernels, L46)
        aliased = {id(s.value) for s, _ in called_kernels.lazy_bindings(ctx, local)
                   if local.get(s.targets[0].id) is not None and local[s.targets[0].id].mode == LAZY_OP}
        for call in ctx.nodes.get(ast.Call, ()):
            func = call.func
            if id(call) in aliased:
                continue
            if isinstance(func, ast.Name) and func.id in local and ctx.qualname(func) is None and not shadowed(ctx, func):
                yield self._finding(ctx, call, f"{func.id}(...)", local[func.id])
                if local[func.id].mode == CALLED:  # what it returns is read on (`called_kernels.result_calls`)
                    accessor_calls[id(call)] = local[func.id]

    def _accessor_calls(self, ctx, index):
        """`get_backend().op(...)`: a function of this file that returns the extension (directly or
        through a module variable it was stored in, `BACKEND = _backend; return BACKEND`) stands for it."""
        def extension_of(node):
            qual = ctx.qualname(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
            return index.module_for(qual) if qual else None

        stored: dict[str, str] = {}
        for statement in ctx.nodes.get(ast.Assign, ()):
            module = extension_of(statement.value)
            if module is not None:
                stored.update((t.id, module) for t in statement.targets if isinstance(t, ast.Name))
        def returned(node):
            return extension_of(node.value) or (stored.get(node.value.id) if isinstance(node.value, ast.Name) else None)

        holders = set()  # functions holding a `return <extension>`: found from the Return nodes, not by walking every function
        for node in ctx.nodes.get(ast.Return, ()):
            if node.value is not None and returned(node) is not None:
                parent = ctx.parent(node)
                while parent is not None:
                    holders.add(id(parent))
                    parent = ctx.parent(parent)
        accessors: dict[str, str] = {}
        for function in ctx.nodes.get(ast.FunctionDef, ()):
            if id(function) not in holders:
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Return) and node.value is not None:
                    module = returned(node)
                    if module is not None:
                        accessors[function.name] = module
                        break
        if not accessors:
            return
        for call in ctx.nodes.get(ast.Call, ()):
            if isinstance(call.func, ast.Name) and call.func.id in accessors:
                parent = ctx.parent(call)
                if isinstance(parent, ast.Attribute) and parent.value is call:
                    used = f"{call.func.id}().{parent.attr}"
                    yield self._finding(ctx, report_node(ctx, parent), used, index.modules[accessors[call.func.id]])

    @staticmethod
    def _loaded(ctx, call, index) -> tuple[str, str] | None:
        """(what the call says, extension) for a dynamic load of an extension of the scan:
        `importlib.import_module("pkg._cuda")` (a literal, or an f-string whose literal parts pin it,
        `f"{pkg}._cuda"`), `ctypes.CDLL(".../libfoo.so")` / `torch.ops.load_library(...)` of a shared
        library the scan builds (CMake target `foo`, or an extension module `foo`)."""
        name = ctx.qualname(call.func)
        if name not in _LOADERS and call.args and kernel_values.importer_call(ctx, call):
            # the project's own import helper given the module's last name (`import_extension("pack_cuda")`,
            # kernel_values.loaded_values): an extension of the scan whose name ends with it
            text = ctx.string_value(call.args[0])
            module = index.module_matching(re.escape(text))
            return (f"{ctx.segment(call.func)}({text!r})", module) if module else None
        if (name not in _LOADERS and not _builtin_import(ctx, call)) or not call.args:
            return None
        arg = call.args[0]
        if name == _LOAD_BUILT:  # a literal name, or the expression this file's build was given (`build_params.name`)
            text = ctx.string_value(arg)
            module = index.module_for(text) if text else repo_index.file_computed_name(ctx, call, arg)
            return (f"{ctx.segment(call.func)}({ctx.segment(arg)}, ...)", module) if module in index.modules else None
        if name == "importlib.import_module" or _builtin_import(ctx, call):
            text = ctx.string_value(arg)
            if text:
                module = index.module_for(text)
                return (f"{ctx.segment(call.func)}({text!r})", module) if module else None
            if isinstance(arg, ast.JoinedStr):
                template = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in arg.values)
                pattern = repo_index.fstring_pattern("".join(  # the holes' text: `{__package__}` may hold dots
                    v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}" for v in arg.values))
                module = index.module_matching(pattern) if pattern else None
                return (f"importlib.import_module(f{template!r})", module) if module else None
            shared = shared_names.shared_name(ctx, arg)  # the variable the build's name is (migrate/shared_names.py)
            module = index.module_for(shared) if shared else None
            return (f"{ctx.segment(call.func)}({arg.id})", module) if shared is not None and module == shared else None
        for node in ast.walk(arg):  # the library's file name: a literal, or the last part of os.path.join(...)
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                stem = repo_index.library_stem(node.value)
                module = index.module_for_library(stem) if stem else None
                if module is not None:
                    return f"{name}({node.value!r})", module
        return None

    def _bind(self, ctx, index) -> bool:
        """Names the resolver does not know: relative imports of an extension, `x = load(...)` and
        `x = importlib.import_module(...)` / `x = ctypes.CDLL(...)` of one."""
        accessors = {d.name: d for d in index.modules.values() if d.mode in kernel_values.ACCESSORS}

        def known(full: str) -> bool:  # `from . import utils` where utils.py holds an accessor of the extension
            if index.module_for(full, relative=True) is not None:
                return True
            held = index.holder(full)
            # an accessor, or a module variable bound to the build (semseg lib/psa/functions/psamask.py: `from .. import
            # src`, whose __init__ binds `gpu = load(...)`; then `src.gpu.psamask_forward(...)`)
            return held is not None and (held.mode in kernel_values.ACCESSORS or held.kind == "value")

        bound = repo_index.bind_relative_imports(ctx, known)
        # a name a star import of a module re-exporting the extension carries (`from Utils import *` where Utils.py does
        # `from pkg.mycuda import common`; kernel_values.module_reexports): bound as the star import binds it
        from migrate.star_imports import bind_star_imports

        bound = bind_star_imports(ctx, lambda full: index.module_for(full) is not None) or bound
        if accessors:
            if bound:
                repo_index.forget_resolved_names(ctx)  # the relative names just bound resolve now
            bound = self._bind_accessor_results(ctx, index, accessors) or bound
        # `_knn = load_cpp_ext("knn")`: a call of a project build helper of this file declares the extension on its line
        helper_lines = {d.line: d.name for d in index.modules.values() if d.kind == "module" and d.path == ctx.path}
        for statement in ctx.nodes.get(ast.Assign, ()):
            value = statement.value
            if isinstance(value, ast.Attribute) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                # `OP = torch.ops.<ns>` (RWKV-LM RWKV-v7/train_temp/src/model.py; label rule (s21b-5)): the name stands for
                # the registered namespace as a compiled module's name does, so `OP.forward(...)` calls its op
                parts = (ctx.qualname(value) or "").split(".")
                if len(parts) == 3 and parts[:2] == ["torch", "ops"] and parts[2] in index.namespaces:
                    ctx.imports[statement.targets[0].id] = ".".join(parts)
                    bound = True
                continue
            if isinstance(value, ast.Call) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                found = self._loaded(ctx, value, index)
                if found is not None and (not _builtin_import(ctx, value) or _binds_named(value)):
                    ctx.imports[statement.targets[0].id] = found[1]
                    bound = True
                    continue
                name = ctx.qualname(value.func)
                if kernel_values.loader_object(ctx, value):  # an object of a loader class, not the module (kernel_values)
                    continue
                if name is None and isinstance(value.func, ast.Name) and helper_lines.get(value.lineno) is not None:
                    ctx.imports[statement.targets[0].id] = helper_lines[value.lineno]
                    bound = True
                    continue
                if name in ("torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline") or \
                        repo_index.jit_cuda_build_wrapper(ctx, value, name):
                    module = repo_index.extension_name(ctx, value, repo_index.WRAPPER_NAME_KEYWORDS)
                    if module in index.modules:
                        ctx.imports[statement.targets[0].id] = module
                        bound = True
        if bound:
            repo_index.forget_resolved_names(ctx)
        return bound

    @staticmethod
    def _bind_accessor_results(ctx, index, accessors) -> bool:
        """`_C = utils.get_ext()` / `_C = get_ext()`: a call of a function (of this module or another) that
        returns the extension binds the name to the extension, so `_C.op(...)` is a kernel call like after
        `import pkg._C as _C` (svox2's `_C = utils._get_c_extension()`)."""
        here = ".".join(repo_index.module_parts(ctx.path))
        bound = False
        for statement in ctx.nodes.get(ast.Assign, ()):
            value = statement.value
            if not (isinstance(value, ast.Call) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
                continue
            qual = ctx.qualname(value.func)
            if qual is None and isinstance(value.func, ast.Name) and here:
                qual = f"{here}.{value.func.id}"  # an accessor of this module
            definition = accessors.get(index.module_for(qual) or "") if qual else None
            if definition is None:
                continue
            if index.module_for(definition.why) is not None:
                ctx.imports[statement.targets[0].id] = definition.why
                function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                if function is not None:  # `backend = _require_backend()` in a function: that local is the extension
                    ctx.__dict__.setdefault("_accessor_locals", set()).add((id(function), statement.targets[0].id))
                bound = True
        return bound

    def _imports(self, ctx, index):
        for statement in ctx.nodes.get(ast.Import, ()):
            for alias in statement.names:
                module = index.module_for(alias.name)
                if module is not None:
                    yield self._finding(ctx, alias, f"import {alias.name}", index.modules[module])
                    continue
                held = index.holder(alias.name)
                if held is not None and not _wrapper_module(held) and self._reaches(ctx, alias.name, held, index, alias.asname):
                    yield self._finding(ctx, alias, f"import {alias.name}", held)
        for statement in ctx.nodes.get(ast.ImportFrom, ()):
            if statement.level:
                base = repo_index._resolve_relative(ctx.path, "." * statement.level, statement.module or "")
            else:
                base = statement.module or ""
            found = []  # one finding per statement: a kernel op or module before a mere wrapper of one
            for alias in statement.names:
                candidate = f"{base}.{alias.name}" if base else alias.name
                relative = bool(statement.level)
                module = index.module_for(candidate, relative) or (index.module_for(base, relative) if base else None)
                # an op accessor's or a build helper's import: its calls change (L31, L10); a compiled op re-imported
                # through a Python module binds a name: its calls change (`_reimported_member`)
                if module is not None and index.modules[module].mode not in (CALLED, LAZY_OP, kernel_values.BUILDER) \
                        and not _reimported_member(index.modules[module]):
                    found.append((index.modules[module].mode == kernel_values.WRAPPER, alias.name, module))
            if found:
                _, name, module = min(found, key=lambda item: item[0])
                yield self._finding(ctx, statement, f"from {'.' * statement.level}{statement.module or ''} import {name}", index.modules[module])
                continue
            # a module holding kernel values (its re-exports), used through its name; not a wrapper module (`_wrapper_module`)
            for alias in statement.names:
                held = index.holder(f"{base}.{alias.name}") if base else None
                if held is not None and held.mode in (*kernel_values.ACCESSORS, kernel_values.LAZY):  # also `from pkg.cuda import load` (BigVGAN)
                    held = None  # `from . import helpers` of an accessor: the binding `_K = helpers.load_ext()` is the line
                    # (of a lazy loader module: `_backend._CUDA.op(...)`; importing it loads nothing, migrate/lazy_backends.py)
                if held is not None and not _wrapper_module(held) and self._reaches(ctx, f"{base}.{alias.name}", held, index, alias.asname or alias.name):
                    yield self._finding(ctx, statement, f"from {'.' * statement.level}{statement.module or ''} import {alias.name}", held)
                    break

    @staticmethod
    def _reaches(ctx, module: str, held, index, bound: str | None = None) -> bool:
        """This file uses the kernel value `held` through `module`: a kernel value of that module (exllama's
        cuda_ext.py binding `exllama_ext = load(...)`, then `import cuda_ext; cuda_ext.exllama_ext.q4_mlp(...)`), not
        only the module's Python functions: then the import is a line a porter checks with those calls. Not asked
        for a wrapper module (`_wrapper_module`: exllama's `import cuda_ext`; set 25a-4, set 7 had labelled it).
        Members of the compiled module that the package re-exports (`from ._C import cuda_version` in its
        `__init__`, then `import pkg; pkg.cuda_version()`) do not count: importing the repository's own package
        binds them like an alias, the calls are the lines (label rulings (L81), (L85))."""
        attribute = held.name.rsplit(".", 1)[1]
        local = bound or module.split(".", 1)[0]  # the name the import binds (not `from module import _C`'s `_C`)

        def reached(qual: str) -> bool:
            if qual.startswith(f"{module}.{attribute}.") or qual == f"{module}.{attribute}":
                return not _reimported_member(held)
            found = index.module_for(qual) if qual.startswith(f"{module}.") else None
            # a kernel op or extension, not a `Function.apply` alias of one (whose import and calls run once the
            # kernel is ported: torch-ngp's `import raymarching` then `raymarching.march_rays(...)`)
            return found is not None and index.modules[found].mode != kernel_values.WRAPPER \
                and not _reimported_member(index.modules[found])
        return any(_root(node) == local and reached(qual) for node, qual in chain_tops(ctx))

    def _finding(self, ctx, node, used: str, definition, python_op: str = ""):
        where = f"{definition.path}:{definition.line}"
        if definition.kind == "module" and definition.mode == "submodule":  # migrate/submodules.py
            what = f"the git submodule `{definition.name}` ({definition.why}, declared at {where}), a CUDA-kernel package " \
                   "that this checkout does not hold"
        elif definition.kind == "module" and definition.mode == submodules.PROJECT:
            what = f"the package `{definition.name}` of the git submodule {definition.why} (declared at {where}, put on " \
                   "the import path), which this checkout does not hold: a research project whose package loads its " \
                   "CUDA-only extension"
        elif definition.kind == "module":
            what = f"the custom CUDA extension `{definition.name}` (built at {where})"
        elif definition.kind == "value":  # a module variable bound to the build (migrate/kernel_values.py)
            what = f"the custom CUDA extension `{definition.why}` (built at {where}, as `{definition.name}`)"
        else:
            what = f"ops of the namespace `torch.ops.{definition.name}` (registered at {where})"
        tail = _ERROR if definition.cuda else _WARNING
        severity = Severity.ERROR if definition.cuda else Severity.WARNING
        if definition.mode == kernel_values.WRAPPER:  # the line stays; it runs once the wrapped kernel is ported
            what = f"`{definition.name.rsplit('.', 1)[1]}`, an autograd Function wrapping the custom CUDA extension " \
                   f"`{definition.why}` (built at {where})"
            tail, severity = _WRAPPED, Severity.INFO  # an inventory line: the call itself need not change
        elif python_op:  # `@torch.library.impl("ns::op", ...)` on a Python function: the wrapper's body holds the kernel
            what = f"the op `{definition.name}::{python_op}`, a Python function of this repository registered with " \
                   f"torch.library (namespace registered at {where})"
            tail, severity = _WRAPPED, Severity.INFO  # like a Function.apply alias: the call itself need not change
        message = f"`{used}` uses {what}: {tail}"
        return self.finding(ctx, node, message, severity=severity, package=deps.extension_key(definition))
