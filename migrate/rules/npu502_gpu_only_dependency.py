import ast
import dataclasses
import functools
import posixpath
import re
from fnmatch import fnmatchcase

from migrate import forced_cuda_builds, knowledge, npu_plugins
from migrate.fetched_packages import fetches, repository_name
from migrate.findings import Category, Finding, Severity
from migrate.local_installs import _BUILDS, _SETUP_PY, changed_into, installs_here
from migrate.rules._text import COMMAND_RUNNERS, shell_matches, strip_comment
from migrate.rules.base import Invalid, Rule, Valid
from migrate.rules.npu501_gpu_only_import import needs_a_look, package_of
from migrate.sources import OTHER_ACCELERATOR, is_cog_config, is_conda_env, is_dockerfile, normalise, requirement

# A CUDA build pinned through a PEP 440 local version: torch==2.1.0+cu121, torch-scatter==2.1.2+pt21cu121, or one
# spelling the CUDA version out (k2-fsa's kaldifeat wheels, `kaldifeat-1.25.5.dev20240914+cuda12.1.torch2.4.1-cp38-...whl`,
# named so on csukuangfj.github.io/kaldifeat/installation/from_wheels.html as linked from a Dockerfile)
_CUDA_LOCAL_VERSION = re.compile(r"\+(?:pt\d+)?cu\d{2,3}\b|\+cuda\d{1,2}(?:\.\d)?\b")
# An index / find-links URL of CUDA wheels: .../whl/cu121, .../cu118/torch_stable.html, or a find-links page named
# for torch's CUDA build (PyG's wheel pages https://data.pyg.org/whl/torch-${TORCH}+${CUDA}.html, `torch-2.1.0+cu118.html`,
# beside `torch-1.13.0+cpu.html`: PyG's install instructions as quoted in install notes, read with the search tool)
# The CUDA version may be a launcher's shell variable (`torch-${TORCH}+cu${CUDA_NO_DOT}.html`, `/whl/cu$CU`): still a
# CUDA build, whichever version the variable holds; also in pieces or edited by the shell (`cu${CUDA_VERSION//.}`,
# `cu${CUDA_MAJOR}${CUDA_MINOR}`), or a variable named for the CUDA build in the place of the whole tag
# (`/whl/$CUDA`, `+${CUDA}.html`: transformers' GPU Dockerfiles set `ARG CUDA='cu118'`)
_CU = r"(?:cu(?:\d{2,3}|(?:\$\{\w+(?:/{1,2}[^}\s/]*(?:/[^}\s]*)?)?\}|\$\w+)+)|\$\{?CUDA(?!_?(?:HOME|PATH|ROOT|DIR|LIB))\w*\}?)"
_SHELL_CUDA_LOCAL_VERSION = re.compile(r"^[A-Za-z0-9][\w.-]*(?:\[[\w,.-]*\])?===?\S*\+cu(?:\$\{\w+\}|\$\w+)+$")
_CUDA_INDEX_URL = re.compile(r"https?://\S*?(?:/(?:whl/)?" + _CU + r"(?:/\S*)?|(?:\+|%2B)" + _CU + r"\.html)(?=[\s\"']|$)")
# NVIDIA's CUDA runtime wheels (nvidia-cudnn-cu12, nvidia-nccl-cu11, ...)
_CUDA_RUNTIME_SUFFIXED = re.compile(r"^nvidia-[a-z0-9-]+-cu\d{2}$")
# ... and from CUDA 13 on the same component wheels without the suffix: each `nvidia-<component>-cu13` on PyPI is a
# 0.0.1 placeholder "DEPRECATED: Use nvidia-<component> instead" (2025-10), and `nvidia-cuda-runtime` 13.x is "CUDA
# Runtime native Libraries" like `nvidia-cuda-runtime-cu12` 12.9 (/work/.library/env/packages/pypi.tsv, 2026-11: the
# 25 names below are all the deprecated -cu13 names' replacements). Other unsuffixed `nvidia-*` projects
# (nvidia-ml-py, nvidia-modelopt, nvidia-dali-*) are not such wheels and are not matched.
_CUDA13_COMPONENT_WHEELS = frozenset({
    "nvidia-cublas", "nvidia-cuda-cccl", "nvidia-cuda-crt", "nvidia-cuda-culibos", "nvidia-cuda-cupti",
    "nvidia-cuda-cuxxfilt", "nvidia-cuda-nvcc", "nvidia-cuda-nvrtc", "nvidia-cuda-opencl", "nvidia-cuda-profiler-api",
    "nvidia-cuda-runtime", "nvidia-cuda-sanitizer-api", "nvidia-cufft", "nvidia-cufile", "nvidia-curand",
    "nvidia-cusolver", "nvidia-cusparse", "nvidia-npp", "nvidia-nvfatbin", "nvidia-nvjitlink", "nvidia-nvjpeg",
    "nvidia-nvml-dev", "nvidia-nvptxcompiler", "nvidia-nvtx", "nvidia-nvvm"})


def _cuda_runtime_wheel(name: str) -> bool:
    """An NVIDIA CUDA component wheel, suffixed (`nvidia-cudnn-cu12`) or a CUDA 13 one (`nvidia-cuda-runtime`)."""
    return bool(_CUDA_RUNTIME_SUFFIXED.match(name)) or name.lower().replace("_", "-") in _CUDA13_COMPONENT_WHEELS
# conda packages of the CUDA toolkit (environment.yml): `cudatoolkit=11.3` (anaconda/conda-forge),
# A project name that says its CUDA build by a `-cuNN[N]` / `-cudaNN[N]` part (`mlc-ai-nightly-cu118`, `dgl-cu113`,
# `spconv-cu118`, `tensorrt-cu12-libs`, `faiss-gpu-cu12`, `bitsandbytes-cuda117`, `xla-cuda12-pjrt`, `cupy-cuda12x`):
# the suffix alone decides. In the PyPI name list (/work/.library/env/packages/pypi.tsv, 2026-11) 1035 project names
# carry such a part, and those read by their summaries and names are all CUDA builds of a package (RAPIDS
# `cudf-cu12`..., NVIDIA's `nvidia-*-cu12`, `mxnet-cu117`, `dgl-cu111`, `mlc-ai-nightly-cu121`, `torch-harmonics-cu126`);
# pip normalises `_` and `.` to `-` (PEP 503), so `kvikio_cu12` is the same name. A name the catalogue knows is decided
# by its entry (spconv-cu118: partial/info, spconv has a CPU build; cupy-cuda12x: unsupported)
# a setup.py's prebuilt wheel file name chosen by the CUDA version, in an f-string (flash-attn's CachedWheelsCommand,
# copied by causal-conv1d, mamba_ssm, MInference, Block-Sparse-Attention: `wheel_filename =
# f"{PACKAGE_NAME}-{version}+cu{cuda_version}torch{torch_version}...-{platform_name}.whl"`)
_CUDA_WHEEL_FILENAME = re.compile(r"""\bf(["'])[^"'\n]*?(\+cu\{)[^"'\n]*\.whl\1""")
_CUDA_BUILD_NAME = re.compile(r"(?:^|[-_.])(cu\d{2,3}x?|cuda\d{2,3}x?)(?=$|[-_.])", re.I)
# ... and a launcher's name whose CUDA part is a shell variable (`pip install spconv-cu${CUDA_VERSION_NO_DOT}`: the
# requirement parser stops at the `$`, leaving `spconv-cu`)
_CUDA_BUILD_VARIABLE = re.compile(r"[-_.]((?:cu|cuda)\$(?:\{\w+\}|\w+))", re.I)
# `pytorch-cuda=11.8` (pytorch channel, which selects torch's CUDA build), `cuda-toolkit`,
# `cuda-nvcc`, `cuda-runtime` (nvidia channel), `cudnn`, `nccl`
_CONDA_CUDA = frozenset({"cudatoolkit", "cudatoolkit-dev", "pytorch-cuda", "cuda-toolkit", "cuda-nvcc",
                         "cuda-runtime", "cuda", "cudnn", "nccl",
                         # the pytorch channel's CUDA-version metapackages of torch 0.4-1.0, which selected torch's CUDA
                         # build before `cudatoolkit` did: pytorch.org/get-started/previous-versions (v1.0.0: `conda
                         # install pytorch==1.0.0 torchvision==0.2.1 cuda100 -c pytorch`; v0.4.1: cuda80 / cuda90 /
                         # cuda92); cuda91 from READMEs of that time (`conda install pytorch cuda91 -c pytorch`); older
                         # names (cuda75) not checked
                         "cuda80", "cuda90", "cuda91", "cuda92", "cuda100"})
# the same toolkit packages written into a pip requirements file (pointMLP-pytorch requirements.txt:3 `cudatoolkit`):
# pip has no such package to install, the line says the project wants the CUDA toolkit; not `cuda`, `cudnn`, `nccl`,
# which are also names of unrelated PyPI projects
_CONDA_CUDA_IN_PIP = frozenset({"cudatoolkit", "cudatoolkit-dev", "pytorch-cuda", "cuda-toolkit", "cuda-nvcc", "cuda-runtime"})
# the nvidia channel's CUDA components are named `cuda-*` (cuda-cudart, cuda-nvrtc, cuda-cupti, ...: the
# channel's package list, anaconda.org/channels/nvidia) and the math libraries of the `cuda-libraries`
# meta-package (its depends: anaconda.org/main/cuda-libraries 12.4.1), each with -dev / -static variants
_CONDA_CUDA_COMPONENT = re.compile(
    r"^(?:cuda-[a-z0-9-]+|lib(?:cublas|cufft|cufile|curand|cusolver|cusparse|npp|nvfatbin|nvjitlink|nvjpeg)(?:-dev|-static)?)$")
# a conda spec's build string naming CUDA: `pytorch=2.0.1=py3.9_cuda11.8_cudnn8_0`, `pytorch-mutex=1.0=cuda`
# or its short tag `cuNNN` (CER-MVS environment.yml: `torchvision=0.8.2=py37_cu110`)
_CONDA_CUDA_BUILD = re.compile(
    r"^\s*-\s*(?:[\w.-]+::)?[\w.-]+\s*=\s*[^=\s#]+=(\S*(?:cuda|(?<![a-z])cu\d{2,3}(?![a-z]))\S*)", re.I)


# `pip install ...` in a launcher (shell script, Dockerfile, CI YAML): `pip`, `pip3`, `python -m pip`, also by its
# path (`/opt/conda/bin/pip`) and with pip's general options before the command (`pip --no-cache-dir install`)
_PIP_INSTALL = re.compile(r"(?:(?<=/)|(?<![\w./-]))(?:pip3?|python[\d.]*\s+-m\s+pip)(?:\s+--?[a-z][\w-]*)*\s+install\b")
# pip install options that take a separate value, which is no requirement (pip.pypa.io/en/stable/cli/pip_install/
# and the general options of pip.pypa.io/en/stable/cli/pip/): `-r reqs.txt`, `--index-url URL`, `-t DIR`...
# (`-e` takes a requirement: an editable project path or VCS URL)
_PIP_VALUE_OPTIONS = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
    "-t", "--target", "--prefix", "--root", "--src", "--platform", "--python-version", "--implementation", "--abi",
    "--upgrade-strategy", "--progress-bar", "--report", "--global-option", "--install-option", "-C", "--config-settings",
    "--only-binary", "--no-binary", "--log", "--cache-dir", "--trusted-host", "--proxy", "--timeout", "--retries",
    "--exists-action", "--cert", "--client-cert", "--python",
})
_TOKEN = re.compile(r"\S+")
# one argument of a `pip install`: a quoted part or a command substitution is kept whole
# (`"/opt/tiger/$(basename ${URL})"`, migrate/shell_variables.py)
_ARGUMENT = re.compile(r"""(?:"[^"]*"|'[^']*'|\$\([^()]*\)|\S)+""")


# the pip options whose value is a package index or a find-links location (a CUDA wheel index: `-f .../cu113/...`)
_INDEX_OPTIONS = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links"})


def _pip_arguments(line: str, start: int, end: int):
    """("req", text, column0) for each requirement of a `pip install` command in line[start:end], and
    ("index", text, column0) for each value of an index / find-links option (`-f URL`, `--extra-index-url=URL`)."""
    option = editable = None
    for token in _ARGUMENT.finditer(line, start, end):
        text = token.group()
        if option is not None or text == "\\":
            if option in _INDEX_OPTIONS:
                yield "index", text.strip("\"'"), token.start()
            option = None
            continue
        if text.startswith("-"):
            name, equals, value = text.partition("=")
            if equals and name in _INDEX_OPTIONS:
                yield "index", value.strip("\"'"), token.start() + len(name) + 1
            option = text if text in _PIP_VALUE_OPTIONS else None
            editable = text in ("-e", "--editable")
            continue
        quoted = text[:1] in "\"'" and text[-1:] == text[:1] and len(text) > 1
        yield "editable" if editable else "req", text[1:-1] if quoted else text, token.start() + (1 if quoted else 0)
        editable = False


def _listed(entry) -> bool:
    """A requirement of this package is reported: NPU501's `needs_a_look`, but not a `partial` package whose own install
    selects its NPU build on an Ascend host (knowledge `npu_install`: Liger-Kernel's setup.py installs torch_npu and
    triton-ascend when `npu-smi` answers): the same line installs the NPU side there (label rulings (L11)/(L40)/(L55));
    the package's imports stay NPU501's. Nor one whose install completes without CUDA (knowledge
    `installs_without_cuda`: svox builds its CUDA extension with optional=True, (L55))."""
    return (needs_a_look(entry) and not entry.installs_without_cuda
            and not (entry.status == "partial" and entry.npu_install))


def _variable_requirement(text: str, value: str, number: int, column: int):
    """The requirement an install argument written with shell variables names once they are read
    (migrate/shell_variables.py), at the argument as written; None when reading them changed nothing."""
    if value == text:
        return None
    dep = requirement(value, number, column)
    return None if dep is None else dataclasses.replace(dep, column=column, end_column=column + len(text))


def pip_install_dependencies(ctx):
    """Requirements named by the `pip install` commands of a launcher, each at its own column. The folder a command
    runs in stands for `.` (`cd fast-hadamard-transform && pip install -e .`: the project in that folder, named by its
    last path component like `pip install ./fast-hadamard-transform`), where a relative `cd DIR &&` before it on its
    line names it (migrate/local_installs.py: the same folder, matched to the repository's CUDA builds)."""
    from migrate.shell_variables import expand, values_before

    dockerfile = is_dockerfile(ctx.path)
    for number, line, start, end in _shell_commands(ctx, _PIP_INSTALL):
        for kind, text, column in _pip_arguments(line, start, end):
            # `pip install "/opt/$(basename ${URL})"` with `URL=...whl` set above; in a Dockerfile also a build argument's
            # default, `ARG apex_url=git+https://github.com/NVIDIA/apex.git@25.04` then `pip install ... ${apex_url}`
            # (labeller note 52a: the apex --cuda_ext install line): values_before reads ARG / ENV first
            if kind == "req" and "$" in text:
                dep = _variable_requirement(text, expand(text, values_before(ctx.lines, number, column, dockerfile)),
                                            number, column)
                if dep is not None:
                    yield dep
                    continue
            if kind == "editable":  # `-e grounding_dino`: pip's editable option takes a folder (or a VCS URL) by any name
                kind = "req"
                if not ("/" in text or ":" in text or installs_here(text)):
                    dep = requirement("./" + text, number, column)
                    if dep is not None:
                        yield dataclasses.replace(dep, column=column, end_column=column + len(text))
                    continue
            if kind == "req" and installs_here(text):
                folders = [f for f in changed_into(ctx.lines, number, start) if f != "."]
                deps = [_folder_requirement(f, number, column) for f in folders]
                yield from (dataclasses.replace(d, column=column, end_column=column + len(text)) for d in deps if d)
                continue
            dep = requirement(text, number, column) if kind == "req" else None
            if dep is not None:
                yield dep
    if is_cog_config(ctx.path):
        yield from _cog_python_packages(ctx.lines)
    if not _sets_up_a_machine(ctx):  # a Dockerfile's or CI machine's clone is image setup
        yield from fetches(ctx.lines)
    for number, match in shell_matches(ctx.lines, _SETUP_PY):
        if not _BUILDS.intersection(match.group("rest").split()):
            continue
        folder = posixpath.dirname(match.group("path")) or "."
        for into in changed_into(ctx.lines, number, match.start()):
            dep = _folder_requirement(posixpath.normpath(posixpath.join(into, folder)), number, match.start(), known=True)
            if dep is not None:
                yield dataclasses.replace(dep, column=match.start(), end_column=match.end())


_YAML_KEY = re.compile(r"^(\s*)([\w-]+)\s*:")
_YAML_ITEM = re.compile(r"^(\s*)-\s+([\"']?)([^\"'#\s][^\"'#]*?)\2\s*(?:#.*)?$")


def _cog_python_packages(lines):
    """The items of a `cog.yaml`'s `build: python_packages:` list, each a requirement pip installs into the image
    Cog builds ("A list of Python packages to install from the PyPi package index, in the format
    `package==version`": replicate/cog docs/yaml.md, `python_packages`; label rule 42c-3, as a Dockerfile's
    `RUN pip install`), at the item's column."""
    inside = None  # the indentation of the `python_packages:` key while its list is read
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if inside is not None:
            item = _YAML_ITEM.match(line)
            if item and len(item.group(1)) >= inside:
                dep = requirement(item.group(3).strip(), number, item.start(3))
                if dep is not None:
                    yield dep
                continue
            inside = None
        key = _YAML_KEY.match(line)
        if key and key.group(2) == "python_packages" and not line[key.end():].strip():
            inside = len(key.group(1))


def _folder_requirement(folder: str, number: int, column: int, known: bool = False):
    """The requirement a local folder install stands for: the folder's last name (`cd fast-hadamard-transform && pip
    install .`), else the nearest folder above it named for a catalogued package, by a pip name or the name of the
    package's repository (`folder_names`: a checkout `third_party/flash-attention`), whose part it builds
    (`.../flash-attention/csrc/rotary`: a CUDA extension of flash-attn's repository). `known`: only a catalogued one."""
    parts = [p for p in folder.rstrip("/").split("/") if p not in ("", ".", "..")]
    pips, folders = _pip_table(), _folder_names()
    for part in reversed(parts):
        name = normalise(part)
        if GpuOnlyDependency._lookup(name, pips) is not None:
            return requirement(part, number, column)
        if name in folders:
            return requirement(folders[name], number, column)
    return None if known or not parts else requirement(parts[-1], number, column)


# a requirements file named for CUDA / the GPU: `requirements-cuda.txt`, `requirements_gpu.txt`, vLLM's `requirements/cuda.txt`
_CUDA_NAMED_FILE = re.compile(r"(?:^|[_.-])(?:cuda\d*|gpu)(?:[_.-][^/]*)?\.(?:txt|in)$", re.I)


def _cuda_named_requirement_files(ctx):
    """(line, column0, end column0, path) of each `pip install -r FILE` of a launcher whose FILE is named for CUDA
    (`uv pip install -r ./requirements/train/megatron/requirements-cuda.txt`, `-r ./third_party/vllm/requirements/cuda.txt`):
    the install of the CUDA side of a project's requirements, which an Ascend host replaces (label rule 32d-6)."""
    for number, line, start, end in _shell_commands(ctx, _PIP_INSTALL):
        tokens = list(_TOKEN.finditer(line, start, end))
        for token, value in zip(tokens, tokens[1:]):
            name, equals, inline = token.group().partition("=")
            if name not in ("-r", "--requirement"):
                continue
            path, column = (inline, token.start() + len(name) + 1) if equals else (value.group(), value.start())
            path = path.strip("\"'")
            if _CUDA_NAMED_FILE.search(path.rsplit("/", 1)[-1]):
                yield number, column, column + len(path), path


def _command_end(text: str, start: int) -> int:
    """Where the command starting at `start` ends: the next `;` / `&` / `|`, else the end of the text."""
    return min((text.find(c, start) for c in ";&|" if text.find(c, start) >= 0), default=len(text))


def _shell_commands(ctx, pattern):
    """(line number, line without its comment, start, end) of each command `pattern` matches in a launcher or a
    notebook's `!` lines: its arguments lie between start and end; a command continued by a trailing backslash
    also on each line it continues onto (migrate/continued_commands.py), up to the `&&` / `;` that ends it."""
    from migrate.continued_commands import continuation_lines

    for number, match in shell_matches(ctx.lines, pattern):
        line = strip_comment(ctx.lines[number - 1])
        end = _command_end(line, match.end())
        yield number, line, match.end(), end
        if end < len(line):
            continue
        for following, text in continuation_lines(ctx.lines, number):  # `RUN pip install \` / `    gputil \`
            end = _command_end(text, 0)
            yield following, text, 0, end
            if end < len(text):
                break


def _sets_up_a_machine(ctx) -> bool:
    """A Dockerfile or CI YAML: it sets up an image or a CI machine, outside the scope of a porting inventory for
    conda's CUDA packages and pip's CUDA wheel indexes (sets 4, 10, 13: GroundingDINO/AdelaiDet Dockerfiles,
    AutoAWQ_kernels' workflow)."""
    return is_dockerfile(ctx.path) or ctx.path.endswith((".yml", ".yaml"))


def _pip_install_indexes(ctx):
    """(line, column0, end column0, "index" | "wheel") of the CUDA wheel indexes given to the `pip install` commands of a shell script or
    a notebook's `!` lines (`!pip3 install natten -f https://shi-labs.com/natten/wheels/cu113/torch1.10.1/index.html`),
    as in a requirements file; also on a Dockerfile's `RUN pip install` line (label ruling (L47): the index given on the
    install's own line pins the CUDA build of what it installs, `RUN pip install torch==1.10 -f .../cu111/torch_stable.html`;
    an index set apart, `ENV PIP_INDEX_URL`, stays image setup); also on a `cog.yaml`'s `run:` items (an image build,
    label rule 40c-2). Not in a CI YAML (a CI machine's setup)."""
    if _sets_up_a_machine(ctx) and not (is_dockerfile(ctx.path) or is_cog_config(ctx.path)):  # cog.yaml: an image build
        return
    from migrate.shell_variables import expand, values_before

    dockerfile = is_dockerfile(ctx.path)
    for number, line, start, end in _shell_commands(ctx, _PIP_INSTALL):
        for kind, text, column in _pip_arguments(line, start, end):
            # a Dockerfile's `$TORCH_INDEX` read with the `ARG TORCH_INDEX=...` default above it (migrate/docker_args.py),
            # a variable the command or the script set above it (migrate/shell_variables.py)
            value = expand(text, values_before(ctx.lines, number, column, dockerfile)) if "$" in text else text
            if kind == "index" and _CUDA_INDEX_URL.match(value + " "):
                yield number, column, column + len(text), "index"
            # a wheel installed by its URL from such an index's folder (`pip3 install https://download.pytorch.org/
            # whl/cu90/torch-1.0.0-cp35-cp35m-linux_x86_64.whl`): the CUDA build itself, as `torch==1.0.0+cu90`
            elif kind == "req" and value.endswith(".whl") and _CUDA_INDEX_URL.match(value + " "):
                yield number, column, column + len(text), "wheel"
            # a CUDA local version whose tag is a shell variable (kaolin tools/linux/Dockerfile.base: `pip install
            # torch==${PYTORCH_VERSION}+cu${CUDA_TAG}`), which the requirement parser cannot read: the CUDA build
            # whichever version the variable holds, as `torch==2.1.0+cu121` (label rule 46b-12)
            elif kind == "req" and _SHELL_CUDA_LOCAL_VERSION.search(text):
                yield number, column, column + len(text), "pin"


def _command_text(node) -> str | None:
    """The command line a call runs, from its first argument: a string, an f-string (its fields as `{}`), or a
    list / tuple of them (joined by spaces, other items as `{}`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values)
    if isinstance(node, (ast.List, ast.Tuple)):
        return " ".join(_command_text(e) or "{}" for e in node.elts)
    return None


def _python_pip_installs(ctx):
    """("req", Dependency, node) / ("index", url, node) of the `pip install` commands a Python program runs through
    subprocess / os.system (Open-Sora's gradio app: `subprocess.run(f"{sys.executable} -m pip install flash-attn
    --no-build-isolation", shell=True)`): the requirements a launcher's line would give, at the call's command."""
    for call in ctx.nodes.get(ast.Call, ()):
        if not call.args or ctx.qualname(call.func) not in COMMAND_RUNNERS or ctx.qualname(call.func) == "shutil.which":
            continue
        text = _command_text(call.args[0])
        match = _PIP_INSTALL.search(text) if text else None
        if match is None:
            continue
        end = _command_end(text, match.end())
        line, column = ctx.span(call.args[0])[:2]
        for kind, value, _ in _pip_arguments(text, match.end(), end):
            if kind == "index":
                if _CUDA_INDEX_URL.match(value + " "):
                    yield "index", value, call.args[0]
                continue
            if installs_here(value):  # `cd 3dgrut && pip install -e .[dev,gui]`: the folder a `cd` before it enters
                for folder in changed_into([text], 1, match.start()):
                    dep = _folder_requirement(folder, line, column) if folder != "." else None
                    if dep is not None:
                        yield "req", dep, call.args[0]
                continue
            dep = requirement(value, line, column) if "{}" not in value else None
            if dep is not None:
                yield "req", dep, call.args[0]


def _bound_strings(ctx, node) -> list:
    """The string constants a name is bound to in its function (or module): `hadamard_dir = os.path.join(HERE,
    'third-party/fast-hadamard-transform')` -> that path's constant; `pip = shutil.which('pip')` -> 'pip'."""
    from migrate.rules._loop import enclosing_scope, walk_scope

    if not isinstance(node, ast.Name):
        return [node] if isinstance(node, ast.Constant) and isinstance(node.value, str) else []
    out = []
    for statement in walk_scope(enclosing_scope(ctx, node)):
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in statement.targets):
            out += [c for c in ast.walk(statement.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return out


def _python_local_folder_installs(ctx):
    """(folder's last name, constant) for each local folder a Python program pip-installs through a command list
    (`subprocess.call([pip, 'install', '-e', hadamard_dir])` with `pip = shutil.which('pip')` and `hadamard_dir =
    os.path.join(HERE, 'third-party/fast-hadamard-transform')`: spcl/QuaRot and HandH1998/QQQ setup.py, whose
    submodule folder is empty in a checkout): the folder names the package pip builds there, reported at the path."""
    for call in ctx.nodes.get(ast.Call, ()):
        if not call.args or not isinstance(call.args[0], (ast.List, ast.Tuple)) or ctx.qualname(call.func) not in COMMAND_RUNNERS:
            continue
        items = call.args[0].elts
        words = [[c.value for c in _bound_strings(ctx, e)] for e in items]
        at = next((i for i, w in enumerate(words) if "install" in w), None)
        if at is None or not any(normalise(v.rsplit("/", 1)[-1]) in ("pip", "pip3") or v == "pip" for w in words[:at] for v in w):
            continue
        for item in items[at + 1:]:
            if not isinstance(item, ast.Name):
                continue
            for constant in _bound_strings(ctx, item):
                path = constant.value.replace("\\", "/").rstrip("/")
                if "/" in path and not _NOT_A_LOCAL_FOLDER.search(path):
                    yield path.rsplit("/", 1)[-1], constant


_NOT_A_LOCAL_FOLDER = re.compile(r"://|^(?:git\+|https?:)|[=<>;@\s]|\.(?:whl|zip|tar\.gz|tgz|txt)$")


# an index option and its value inside any string of a Python program (`install_pytorch += "--index-url
# https://download.pytorch.org/whl/cu121"`, later run through a helper): the option's only use is a pip command
_INDEX_OPTION_IN_TEXT = re.compile(r"(?<![\w-])(?:--index-url|--extra-index-url|--find-links|-i|-f)(?:\s+|=)(\S+)")


# a string that is nothing but a PyTorch-style CUDA wheel index (`"https://download.pytorch.org/whl/cu121"`): the
# value of an index variable that a pip command takes later (Fooocus launch.py's
# `os.environ.get('TORCH_INDEX_URL', ".../whl/cu121")` read into `--extra-index-url {torch_index_url}`)
_BARE_CUDA_WHEEL_INDEX = re.compile(r"\s*https?://\S+/whl/cu\d{2,3}/?\s*")


def _python_index_strings(ctx):
    """The string constants of a Python program that give pip a CUDA wheel index (`--index-url .../whl/cu121`,
    `--extra-index-url=.../cu118`), wherever the string then goes (one_click.py's `run_cmd(install_pytorch)`):
    a command text built in pieces is not followed to its runner, the option names what the text is for. Also a
    constant that is a CUDA wheel index URL and nothing else (`/whl/cu121`): such a URL has no use but pip's index
    (label ruling 44d-2: the line naming cu121 is the label, not the command that later reads the variable)."""
    for node in ctx.nodes.get(ast.Constant, ()):
        if isinstance(node.value, str) and _BARE_CUDA_WHEEL_INDEX.fullmatch(node.value):
            yield node
            continue
        if isinstance(node.value, str) and "cu" in node.value and "-" in node.value:
            for match in _INDEX_OPTION_IN_TEXT.finditer(node.value):
                if _CUDA_INDEX_URL.match(match.group(1).strip("\"'") + " "):
                    yield node
                    break


# `conda install` (mamba, micromamba) in a launcher or a notebook's `!` line: its CUDA toolkit packages
_CONDA_INSTALL = re.compile(r"(?<![\w./-])(?:conda|mamba|micromamba)\s+install\b")
_CONDA_VALUE_OPTIONS = frozenset({"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file"})


def _conda_install_cuda_packages(ctx):
    """(line, column0, end column0, name) of the CUDA toolkit packages named by each `conda install` of a
    shell script or a notebook's `!` lines. Not in a Dockerfile or CI YAML: those set up an image or a CI
    machine, outside the scope of a porting inventory (sets 4, 10, 13: GroundingDINO/AdelaiDet Dockerfiles,
    AutoAWQ_kernels' workflow)."""
    if _sets_up_a_machine(ctx):
        return
    for number, line, start, end in _shell_commands(ctx, _CONDA_INSTALL):
        skip_next = False
        for token in _TOKEN.finditer(line, start, end):
            text = token.group().strip("\"'")
            if skip_next:
                skip_next = False
                continue
            if text.startswith("-"):
                skip_next = text in _CONDA_VALUE_OPTIONS
                continue
            name = re.split(r"[=<>!]", text.rsplit("::", 1)[-1], maxsplit=1)[0].lower()
            if name in _CONDA_CUDA or _CONDA_CUDA_COMPONENT.match(name):
                yield number, token.start(), token.end(), name


_PINNED_VERSION = re.compile(r"(?:===|==|~=|\^|~|(?<![<>!=])=)\s*v?(\d[\w.]*)")


# Environment Modules / Lmod loading the CUDA toolkit on an HPC host (`module load cuda/9.0`, EasyBuild's
# `module load CUDA/11.8.0 cuDNN/8.6.0`): a port loads CANN's module or environment instead (set 18: yolact's SLURM
# scripts). The module's name is the part before its `/version`.
_MODULE_LOAD = re.compile(r"(?<![\w./-])module\s+(?:load|add)\b")
_CUDA_MODULES = frozenset({"cuda", "cudnn", "nccl", "cudatoolkit", "cuda-toolkit"})


def _module_load_cuda(ctx):
    """(line, column0, end column0, name) of the CUDA toolkit modules each `module load` of a shell script loads
    (not in a Dockerfile or CI YAML, like `conda install`)."""
    if _sets_up_a_machine(ctx):
        return
    for number, line, start, end in _shell_commands(ctx, _MODULE_LOAD):
        for token in _TOKEN.finditer(line, start, end):
            text = token.group().strip("\"'")
            # the module's name is its path before the version: `cuda/9.0`, or a vendor's tree `nvidia/cuda/10.0`
            # (s2anet's SLURM script): any part of it naming the toolkit
            parts = text.lower().split("/")
            names = parts[:-1] if len(parts) > 1 else parts
            if not text.startswith("-") and any(part in _CUDA_MODULES for part in names):
                yield number, token.start(), token.end(), text


def _spec_text(ctx, dep) -> str:
    """The requirement with its version: the specifier as written (`apex==0.9.10.dev0`), or, where the manifest
    gives the name alone (a Poetry table: `apex = "^0.9.10.dev0"`), the rest of its line up to the next comma."""
    line = ctx.lines[dep.line - 1] if 0 < dep.line <= len(ctx.lines) else ""
    rest = line[dep.end_column:dep.end_column + 200]  # a version written after the name is near it: a long line stays linear
    return dep.raw + " " + rest.split(",", 1)[0]


# the version of a wheel or sdist file naming the Ascend build: Huawei's apex fork (gitee.com/ascend/apex, built with
# its scripts/build.sh) produces `apex-0.1_ascend-cp39-cp39-linux_x86_64.whl` (dated `apex-0.1_ascend_20240413-...whl`),
# which Ascend's guides install beside torch_npu (`pip install apex-0.1_ascend*-cp38-cp38m-linux_aarch64.whl`, stored
# MindSpeed / ModelLink READMEs read with find_string); `_ascend` / `+ascend` / `_npu` after the version
_ASCEND_BUILD_FILE = re.compile(r"-\d[\w.]*?[_+.](?:ascend|npu)(?:[_.\d]|-|$)", re.I)


def _ascend_build_file(dep) -> bool:
    """A requirement given as a wheel or sdist file whose version names the Ascend build (`apex-0.1_ascend-...whl`):
    the package's NPU build itself, not its CUDA one (label note 63a, DeepLinkExt's Dockerfile)."""
    token = dep.raw.split(None, 1)[0] if dep.raw.strip() else ""
    last = token.rsplit("/", 1)[-1]
    return last.endswith((".whl", ".tar.gz", ".zip")) and _ASCEND_BUILD_FILE.search(last) is not None


def _pins_namesake(raw: str, namesake: str | None) -> bool:
    """A requirement pinned inside the version line of an unrelated PyPI project of the same name
    (`apex==0.9.10.dev0` beside `pyramid==2.0`: the Pyramid toolkit, not NVIDIA apex)."""
    pin = _PINNED_VERSION.search(raw) if namesake else None
    return pin is not None and (pin.group(1) == namesake or pin.group(1).startswith(namesake + "."))


# the extras a requirement selects: `rembg[gpu,cli]>=2`
_EXTRAS = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*\[([^\]]*)\]")


@functools.cache
def _gpu_extras() -> dict[tuple[str, str], tuple[str, str]]:
    """(distribution, extra) -> (the GPU-only distribution it installs, source), from data/gpu_extras.toml."""
    data = knowledge.read_toml("data/gpu_extras.toml")
    return {(normalise(e["package"]), normalise(e["extra"])): (normalise(e["installs"]), e["source"]) for e in data.get("extra", ())}


def _gpu_extra(dep, pips) -> tuple[str, str, str] | None:
    """(extra, GPU-only distribution, its catalogue key) for the first extra of `dep` that installs a GPU-only
    distribution the catalogue knows."""
    match = _EXTRAS.match(dep.raw)
    if match is None:
        return None
    table = _gpu_extras()
    for extra in match.group(1).split(","):
        found = table.get((dep.name, normalise(extra.strip())))
        if found is not None:
            key = GpuOnlyDependency._lookup(found[0], pips)
            if key is not None:
                return extra.strip(), found[0], key
    return None


# a manifest named for another accelerator or for the CPU (`requirements_apple_silicon.txt`, `requirements_amd_noavx2.txt`,
# `requirements_cpu_only.txt`, `environment-rocm.yml`, `requirements_npu.txt`, `*_mps*`, `*_xpu*`): an installer picks it
# for that machine, it is not the CUDA manifest a port changes (label rule (L15), set 19); a Dockerfile so named: the
# engine drops its findings (sources.other_accelerator_dockerfile)
_OTHER_ACCELERATOR = OTHER_ACCELERATOR


def _other_accelerator_manifest(path: str) -> bool:
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return any(_OTHER_ACCELERATOR.match(part) for part in re.split(r"[-_.]", stem))


def _conda_env(ctx) -> bool:
    return is_conda_env(ctx.path)


_PIP_TABLES: list = []  # [(the knowledge table, its pip table)]: built once per table, not once per file (~0.8 ms)


def _pip_table() -> tuple[tuple[str, str], ...]:
    """(normalised pip name or glob pattern, import key) from the third-party knowledge."""
    table = knowledge.third_party()
    if _PIP_TABLES and _PIP_TABLES[0][0] is table:
        return _PIP_TABLES[0][1]
    out = []
    for key, entry in table.items():
        for pip in entry.pip_names:
            out.append((normalise(pip) if "*" not in pip else pip.lower(), key))
    # the plain (shortest) import key first, so `apex` maps to the `apex` entry, not `apex.amp`
    out.sort(key=lambda item: (item[0], len(item[1])))
    _PIP_TABLES[:] = [(table, tuple(out))]
    return _PIP_TABLES[0][1]


_PIP_INDEXES: list = []  # [(pips, its index)]: the table `_pip_table` returns, indexed once


def _pip_index(pips: tuple[tuple[str, str], ...]) -> tuple[dict[str, tuple[int, str]], list[tuple[int, str, str]]]:
    """({plain name: (its first position, key)}, [(position, glob, key)] in table order) of a pip table."""
    for table, index in _PIP_INDEXES:
        if table is pips:
            return index
    exact: dict[str, tuple[int, str]] = {}
    globs: list[tuple[int, str, str]] = []
    for position, (pattern, key) in enumerate(pips):
        if "*" in pattern:
            globs.append((position, pattern, key))
        else:
            exact.setdefault(pattern, (position, key))
    index = (exact, globs)
    _PIP_INDEXES[:] = [(pips, index)] + _PIP_INDEXES[:3]  # a few tables at most (tests build their own)
    return index


def _by_repository(dep):
    """(the dependency renamed, its knowledge key) for a requirement the catalogue knows by its repository's name only:
    a checkout folder or clone (`TransformerEngine`, the catalogue's `folder_names`), or a VCS URL whose egg names a
    part the catalogue does not list (`git+https://github.com/Dao-AILab/flash-attention.git@v2.7.2#egg=flashattn-hopper
    &subdirectory=hopper`: a build of flash-attn's repository); None when neither names a catalogued package."""
    folders, pips = _folder_names(), _pip_table()
    repo = repository_name(dep.raw)
    for name in (dep.name, normalise(repo[0]) if repo else None):
        pip = folders.get(name) if name else None
        key = GpuOnlyDependency._lookup(normalise(pip), pips) if pip else None
        if key is not None:
            return dataclasses.replace(dep, name=normalise(pip)), key
    return None


def _folder_names() -> dict[str, str]:
    """(normalised repository name, the package's first pip name) from the catalogue's `folder_names`: the names a
    checkout of the package's repository carries that are no pip name of it (PyPI `flash-attention` is another project)."""
    return {normalise(folder): entry.pip_names[0] for entry in knowledge.third_party().values()
            for folder in entry.folder_names if entry.pip_names}


class GpuOnlyDependency(Rule):
    """GPU-only packages declared in a dependency manifest (requirements*.txt, also a `.txt` file named `req*`
    outside that pattern whose lines all parse as requirements or pip options, RVC's misspelt
    `requirments_cu118_py312.txt`, sources.is_misnamed_requirements; pyproject.toml, its `[build-system] requires`
    too, as setup_requires (label note 49c c-1), setup.cfg, environment.yml (also a YAML file of another name whose top-level `channels:` and `dependencies:` keys
    make it a conda environment: `Windows/env.yml`, sources.is_unnamed_conda_env), setup.py install_requires; there also the entries of a dependency table
    that a requirement list names by key, `extras["quant"] = deps_list("bitsandbytes", "accelerate")` or
    `deps["bitsandbytes"]` over `_deps = ["bitsandbytes>=0.43.3", ...]`, reported at the key and at the
    table's spec, not the entries no key names). Distribution names are normalised and
    mapped through the `pip_names` of the third-party knowledge (a requirement given by location
    alone, a VCS URL `git+https://github.com/NVlabs/nvdiffrast/` or a local project directory
    `submodules/simple-knn`, is named by its repository's or directory's last path component, a wheel
    or sdist file by the name before its version) (glob patterns such as
    `cupy-cuda*` are honoured when the data uses them); the severity and alternative come from the
    matching entry. The same rule flags CUDA builds pinned in the manifest, which cannot install
    next to torch_npu (it needs the matching CPU build of torch): local versions like
    `torch==2.1.0+cu121` (or `+cuda12.1`, a wheel spelling the CUDA version out; in a launcher's `pip install` also with the tag in a shell variable, `torch==${V}+cu${CUDA_TAG}`), CUDA wheel indexes (`--extra-index-url .../whl/cu121`; in a launcher or Dockerfile `RUN` line also a wheel installed by its URL in such a folder, `pip3 install .../whl/cu90/torch-1.0.0-cp35-cp35m-linux_x86_64.whl`) and NVIDIA's
    `nvidia-*-cuXX` runtime wheels, project names that say a CUDA build by their suffix
    (`mlc-ai-nightly-cu118`, `dgl-cu113`, `tensorrt-cu12-libs`, `bitsandbytes-cuda117`: a `-cuNN[N]` /
    `-cudaNN[N]` part after the stem, where the knowledge base has no entry for the name or its entry is a
    package that also publishes a CPU build: `spconv-cu116` beside `spconv`; in a launcher also with the version in a
    shell variable, `spconv-cu${CUDA}`), PyG's CUDA wheel pages
    (`-f https://data.pyg.org/whl/torch-2.1.0+cu118.html`, also `+cu${CUDA}.html`; a launcher's CUDA tag also edited by the
    shell or in pieces, `/whl/cu${CUDA_VERSION//.}`, `cu${MAJOR}${MINOR}`, or a variable named for it in its place, `/whl/$CUDA`), and in a conda environment file the CUDA toolkit packages
    (`cudatoolkit=11.3`, `pytorch-cuda=11.8`, `cuda-toolkit`, `cudnn`, `nccl`; also in a pixi.toml's conda tables,
    `[dependencies]` / `[feature.*.dependencies]`, not its `[pypi-dependencies]`; the pytorch channel's older
    `cuda90` / `cuda100` metapackages, also as `pytorch::cuda100`, the nvidia channel's
    `cuda-*` components and `libcublas` / `libcufft` / ... math libraries) and packages pinned to a
    CUDA build by their conda build string (`pytorch=2.0.1=py3.9_cuda11.8_cudnn8_0`,
    `pytorch-mutex=1.0=cuda`), all as warnings; the toolkit's conda names (`cudatoolkit`, `pytorch-cuda`,
    `cuda-toolkit`, ...; not `cuda` / `cudnn` / `nccl`, names of other PyPI projects) in a pip requirements
    file too. A requirement or `pip install` naming a folder of the repository whose setup.py builds a CUDA
    extension (also by its `cffi_modules=["build.py:ffi"]` naming a torch.utils.ffi CUDA build of its folder: label
    rule 46b-3; or by importing by path the build modules of folders it lists, `importlib.import_module(dir +
    "/extension")` with each `extension.py` a CUDA build NPU505 reports: migrate/loaded_build_modules.py) (`- pointnet2_ops_lib/.`, `-e ./ext/foo`, `pip install ./submodules/x`; a setup.py's PEP 508 direct reference whose
    absolute prefix is computed, `f"ops @ file://localhost/{os.getcwd()}/third_party/ops/"`, names the folder after
    the field: label note 49b b-7), or a launcher's `python
    setup.py build install` run on it (not by a Makefile's target, a side build: label ruling (L19); from the
    script's folder: MaskDINO ops/make.sh; or from the folder a `cd
    DIR &&` before it on its line enters, a loop's items for `cd $ext`), or its `pip install .` / `cd DIR && pip
    install -e .` (the folder the command runs in; in a Dockerfile only after such a `cd`, the image's WORKDIR being
    no folder of the repository, unless it is the folder the build context was copied into, `COPY . /app/proj/` then
    `WORKDIR /app/proj`: the Dockerfile's folder or the repository's root; or the folder a `git clone` of the repository
    itself filled, `git clone https://github.com/o/proj.git /proj` then `WORKDIR /proj` where the scanned repository's
    folder is named proj, not another project's clone; or the repository itself by a VCS URL naming it,
    `pip install 'git+https://github.com/o/proj.git@stable'` (a notebook's `!` line too, label ruling (L82); not
    one folder of it, `#subdirectory=x`); a Dockerfile's `pip install /tmp/proj` of
    an absolute folder of the image is the repository folder the `COPY` lines above it put there, `COPY *.py *.toml
    /tmp/proj` the context's top with its setup.py, `COPY ops /src/ops` ops/, label ruling (L72); pip's `-e ops` names
    a folder without a slash too; the `cd`s of a continued command taken in turn, an absolute one as written; a folder named
    for a catalogued GPU-only package, by a pip name or its repository's name (`folder_names`: `third_party/flash-attention`),
    or a folder inside one (its csrc extensions), installs that package, by pip or `python setup.py install`), is the install of that
    CUDA build (matched after the scan: migrate/local_installs.py); a launcher's setup.py build run with `FORCE_CUDA=1` set for that command
    (`TORCH_CUDA_ARCH_LIST='7.5' FORCE_CUDA=1 python det/ops/setup.py build install`, also `export FORCE_CUDA=1 &&`)
    builds a CUDA extension whether or not the scan holds that setup.py (a folder a clone fills: migrate/forced_cuda_builds.py,
    label note 49b b-6), in a Dockerfile also every setup.py build after `ENV FORCE_CUDA="1"` and there the `pip install -e .` of
    a clone, matched to the Dockerfile's own project's setup.py (its folder, or the one above `docker/`), and a `pip install`
    handed `--install-option="--force_cuda"` (reported at the RUN line, label note 68b); so is one naming the folder of a git submodule the
    checkout lacks whose repository is a catalogued GPU-only package, by a pip name or a fork's repository name
    (`.gitmodules`: `path = submodules/lod`, `url = https://github.com/graphdeco-inria/gaussian-hierarchy.git`). In launchers (shell scripts, Dockerfiles, also by a variant name: `Dockerfile_cu124`, `cu116.Dockerfile`, or in lower case: `docker/dockerfile`; or named for its image alone, a file
    without a suffix in a folder whose name says docker whose first instruction is `FROM image`: `docker/chatlearn`,
    sources.is_unnamed_dockerfile) the
    requirements of each `pip install` / `python -m pip install` command are read the same way (in a notebook its `!`
    lines and its `%pip` line magic, which IPython runs as `python -m pip LINE` through the shell: `%pip list | grep
    tensorrt || pip install .../tensorrt-8.2.0.6-cp37-none-linux_x86_64.whl`)
    (option values such as `-r reqs.txt` or `--index-url URL` are not requirements; pip also by its path,
    `/opt/conda/bin/pip --no-cache-dir install`; a command continued by a trailing backslash is read on each line it
    continues onto, each reported on its own line: migrate/continued_commands.py), and the CUDA toolkit packages of each `conda` /
    `mamba install` command of a shell script (`conda install pytorch cudatoolkit=11.1 -c pytorch`, also in a
    notebook's `!` line or its `%conda` line magic; not in a Dockerfile or CI YAML, which set up an image or a CI machine), a CUDA wheel
    index given to `pip install` (`-f .../cu113/...`, `--extra-index-url .../whl/cu118`; in a Dockerfile too, on
    the `RUN pip install` line itself, label ruling (L47), not an index set apart: `ENV PIP_INDEX_URL`; the index or
    wheel URL also by a variable of the line, `--index-url "$TORCH_INDEX"` read with `ARG TORCH_INDEX=.../whl/cu121`
    of the same build stage, as are `git clone "${GIT_URL}"` and `pip install -e ${BUILD_TARGET}`: migrate/docker_args.py; a
    requirement also by a shell variable the same `RUN` command or the script set above the install, `$(basename
    ${URL})` read as the wheel's file name, label rulings (L41)/(L106): migrate/shell_variables.py; and in a
    `cog.yaml`'s `build: run:` commands, Replicate's cog building a Docker image from them, label rule 40c-2, and its
    `build: python_packages:` items, which cog pip-installs into that image, 42c-3; in a notebook's `!` line also an
    index whose URL expands a Python variable of the notebook built from torch.version.cuda, `-f
    .../wheels/{version_str}/download.html`, label ruling (L82), migrate/notebook_cuda_indexes.py), and, with
    the conda scope, the CUDA toolkit modules an HPC script loads (`module load cuda/9.0`, Environment Modules / Lmod;
    a site's tree `nvidia/cuda/10.0` too: any part of the module's path before its version).
    A `partial` package is not reported at its plain requirement lines (nerfacc, kaolin: the install runs on an Ascend
    host, the parts to port are its uses; its CUDA-suffixed wheel is, label ruling (L49); labels 53, 59b, 70e), nor is one
    whose own install selects its NPU build on an Ascend host (knowledge `npu_install`: Liger-Kernel's setup.py adds
    torch_npu and triton-ascend); their imports stay NPU501's.
    A CI workflow (`.github/**.yml`, `.gitlab-ci.yml`, `.circleci/`, ...) or a SkyPilot task YAML (a top-level
    `resources:` beside `setup:` / `run:`) provisions a machine around the program: no NPU5xx finding there
    (label ruling (L39), migrate/machine_setup.py); nor in the pipeline's own scripts and requirements files inside
    its CI folder (`.azure-pipelines/scripts/ut/run_ut_cuda.sh`: `pip install flash-attn`).
    In Python, a `pip install` command the program runs (`subprocess.run(f"{sys.executable} -m pip install
    flash-attn", shell=True)`, `os.system(...)`, a list `[sys.executable, "-m", "pip", "install", "xformers"]`) is
    read like a launcher's line: its requirements and CUDA wheel indexes, at the command (`.` or `.[extras]` after a
    `cd DIR &&` in the command: DIR, as in a launcher, `cd 3dgrut && pip install -e .[dev,gui]`); so is any string of the
    program that gives pip a CUDA wheel index (`cmd += "--index-url https://download.pytorch.org/whl/cu121"`, a command
    built in pieces and run later) or that is a CUDA wheel index URL and nothing else (`os.environ.get('TORCH_INDEX_URL',
    ".../whl/cu121")`, the variable read into a pip command later: the line naming cu121, label ruling 44d-2; not a URL
    inside prose), and a local folder such a list installs through a variable (`subprocess.call([pip,
    'install', '-e', hadamard_dir])`) whose last name is a catalogued GPU-only package (`third-party/fast-hadamard-transform`,
    a submodule), at the path's string. A function of the repository whose body pip-installs one of its parameters
    (YOLOv5's `check_requirements`: `for r in requirements: ... check_output(f"pip install '{r}'", shell=True)`) is an
    installer: each call of it, in its module or imported, whose argument for that parameter is a literal naming a
    GPU-only package (`check_requirements(('tensorrt',))`) is an install line of that package, at the literal (label
    ruling (L73); not a device choice, `'onnxruntime-gpu' if cuda else 'onnxruntime'`, nor another parameter's literal,
    `exclude=(...)`, nor a function so named that installs nothing; matched after the scan: migrate/runtime_installers.py). A requirement
    whose extra installs a GPU-only distribution is one too (`rembg[gpu]` installs onnxruntime-gpu: the extras
    read from wheel metadata are in knowledge/data/gpu_extras.toml). In a launcher (not a Dockerfile or CI YAML), the
    fetch of a GPU-only package for its install is one too (label rule 32d-6, as (L36) for a clone of cutlass): `git clone
    https://github.com/NVIDIA/apex`, `wget` / `curl` of its wheel (`flash_attn-${v}+cu${cu}...whl`, named before its
    version, also given by a shell variable) or of a file of its repository (raw.githubusercontent.com/OWNER/REPO/...),
    named by the wheel or the repository through the catalogue (`TransformerEngine` by `folder_names`; a VCS URL whose
    egg is no catalogued name, `#egg=flashattn-hopper&subdirectory=hopper`, by its repository too;
    migrate/fetched_packages.py); a `pip install .` after a `cd DIR` on a line of its own above installs DIR (the
    `cd` lines above taken in turn, each from the folder the one before entered: `cd ops/a` ... `cd ../b`; `cd ..` back
    past the script's folder returns to it; `cd $DIR/ops/a`, under a variable, enters ops/a of the repository); and `pip install -r FILE` of a requirements file named
    for CUDA (`requirements-cuda.txt`, vLLM's `requirements/cuda.txt`) installs the project's CUDA side (a warning).
    A manifest shipped beside its NPU counterpart (`requirements.txt` beside `requirements_npu.txt`,
    `requirements-cuda.txt` beside `requirements-npu.txt`) and a Dockerfile beside an NPU image (a Dockerfile named for
    the NPU, `Dockerfile_ascend_910b`, or in a folder so named, `docker/ascend/Dockerfile`, in the same folder, the folder
    above it or a sibling folder: `docker/Dockerfile` beside `docker/platforms/Dockerfile_ascend_910b`) are the CUDA side
    of a dispatch by file: not reported (label ruling (L8), note 38d-3, migrate/paired_manifests.py)."""

    CODE = "NPU502"
    NAME = "gpu-only-dependency"
    CATEGORY = Category.THIRD_PARTY
    SEVERITY = Severity.ERROR  # default; findings take the severity of the knowledge entry
    KINDS = ("manifest", "launcher", "python")
    TRIGGERS = ("install", "module", "index-url", "find-links", "python_packages")  # launchers: only those that install or load packages (cog.yaml: its pip list; manifests are always read)
    MESSAGE = "depends on a GPU-only package"
    VALID = [
        Valid("torch==2.1.0\nnumpy>=1.24\n# flash-attn==2.5.0\n", kind="manifest"),
        # a manifest for another accelerator or the CPU, which an installer picks for that machine (text-generation-webui
        # requirements_amd.txt / requirements_apple_silicon.txt beside its CUDA requirements.txt)
        Valid("https://github.com/oobabooga/exllamav2/releases/download/v0.0.18/exllamav2-0.0.18+rocm5.6-cp311-cp311-"
              "linux_x86_64.whl; platform_system == \"Linux\"\nflash-attn==2.5.6\n", kind="manifest",
              filename="requirements_amd_noavx2.txt"),
        Valid("exllamav2==0.0.18\ntorch==2.2.1+cu121\n", kind="manifest", filename="requirements_apple_silicon.txt"),
        # `cu` / `cuda` with digits that are no build suffix (the stem itself, part of a word)
        Valid("cu12-tools\nmy-cuda-utils\nkaccu128\nmecu118x-lib\n", kind="manifest"),
        # an image's or a CI machine's conda setup is not part of the port's inventory (AdelaiDet docker/Dockerfile)
        Valid('RUN bash -c "conda install -y pytorch==1.5.0 torchvision cudatoolkit=10.2 -c pytorch"\n', kind="launcher",
              filename="Dockerfile"),
        Valid("apex-utils==1.0\n", kind="manifest"),
        # PyPI "apex" 0.9.x is a Pyramid toolkit (CER-MVS environment.yml pins it beside pyramid==2.0); NVIDIA apex
        # is not on PyPI
        Valid("pyramid==2.0\napex==0.9.10.dev0\n", kind="manifest"),
        Valid("name: env\ndependencies:\n  - pip:\n    - apex==0.9.10.dev0\n", kind="manifest", filename="environment.yml"),
        Valid('[tool.poetry.dependencies]\npyramid = "1.5"\napex = "^0.9.10.dev0"\n', kind="manifest", filename="pyproject.toml"),
        Valid("numba>=0.57\n", kind="manifest"),  # its CPU JIT keeps working (numba.cuda is what needs a look)
        # svox builds its CUDA extension with optional=True: the install completes without nvcc ((L55); its imports are
        # NPU501's)
        Valid("numpy\nsvox>=0.2.28\n", kind="manifest"),
        # a partial package whose own setup.py installs its NPU build on an Ascend host (knowledge `npu_install`:
        # Liger-Kernel, torch_npu + triton-ascend; EasyR1 requirements.txt and Dockerfile): the line stays as written
        Valid("liger-kernel>=0.5\n", kind="manifest"),
        Valid('RUN pip install --no-cache-dir "vllm-ascend" liger-kernel mathruler\n', kind="launcher", filename="Dockerfile"),
        # SGLang's NPU build through its own extra (knowledge `npu_extras`; label note 60a, AReaL's terminal_bench)
        Valid('sglang[srt_npu] @ git+https://github.com/sgl-project/sglang.git@v0.5.6.post2#subdirectory=python\n',
              kind="manifest", filename="requirements.txt"),
        # Huawei's apex fork, built from its gitee checkout: the wheel's version names the Ascend build (label note 63a)
        Valid("RUN git clone https://gitee.com/ascend/apex.git && cd apex && bash scripts/build.sh --python=3.9 \\\n"
              "    && cd apex/dist/ && pip install apex-0.1_ascend-cp39-cp39-linux_x86_64.whl\n", kind="launcher", filename="Dockerfile"),
        Valid("--extra-index-url https://download.pytorch.org/whl/cpu\ntorch==2.1.0+cpu\n", kind="manifest"),
        Valid('[project]\nname = "x"\ndependencies = ["torch>=2.1", "transformers"]\n', kind="manifest", filename="pyproject.toml"),
        Valid("name: env\ndependencies:\n  - python=3.10\n  - pytorch=2.1\n  - cpuonly\n", kind="manifest", filename="environment.yml"),
        Valid("cuda==12.1\nnccl-tests\nonnxruntime\n", kind="manifest"),  # pip names: not conda's toolkit packages
        Valid("git+https://github.com/huggingface/transformers\n", kind="manifest"),
        # a clone and install of a CPU package (migrate/fetched_packages.py), a requirements file not named for CUDA
        Valid("git clone https://github.com/huggingface/transformers\ncd transformers\npip install .\n"
              "pip install -r requirements-common.txt\n", kind="launcher", filename="install.sh"),
        Valid("pip install -r flash-attn.txt --index-url https://mirror/simple numpy\necho 'pip install flash-attn'\n# pip install xformers\n",
              kind="launcher", filename="setup_env.sh"),
        # a command string that is not run, a printed hint, a CPU package
        'import subprocess, sys\nsubprocess.run([sys.executable, "-m", "pip", "install", "ninja"])\n'
        'print("pip install flash-attn")\ncmd = "pip install xformers"',
        # an image's pip index set apart from any install (label ruling (L47): image setup)
        Valid("ENV PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cu118\nRUN pip config set global.index-url "
              "https://download.pytorch.org/whl/cu118\n", kind="launcher", filename="Dockerfile"),
        # a Dockerfile's ARG read into a RUN line (migrate/docker_args.py): not one whose value is a CPU index, nor a global ARG the stage does not declare again (Docker's scoping)
        Valid("ARG TORCH_INDEX=https://download.pytorch.org/whl/cu121\nFROM python:3.10\n"
              "ARG CPU_INDEX=https://download.pytorch.org/whl/cpu\n"
              "RUN pip install torch --index-url \"$TORCH_INDEX\" && pip install torchvision -i ${CPU_INDEX}\n",
              kind="launcher", filename="Dockerfile"),
    ]
    INVALID = [
        # a setup.py build run with FORCE_CUDA=1 in front of it builds the CUDA extension, also of a folder a clone above
        # fills (migrate/forced_cuda_builds.py, label note 49b b-6); a run without it, or one that builds nothing, is not
        Invalid("git clone https://github.com/o/det\nTORCH_CUDA_ARCH_LIST='7.5' FORCE_CUDA=1 python det/ops/setup.py build install\n"
                "python det/tools/setup.py install\nFORCE_CUDA=1 python det/ops/setup.py --version\n",
                kind="launcher", filename="install.sh", count=1),
        # a Dockerfile's `ENV FORCE_CUDA="1"` holds for the later RUNs: the setup.py build after it (the clone's
        # `pip install -e .` is matched to a setup.py of the scan, migrate/local_installs.py); a pip install handed
        # `--install-option="--force_cuda"` on a continuation line, reported at the RUN line (label note 68b)
        Invalid('FROM pytorch/pytorch:1.8.1-cuda10.2-cudnn7-devel\nRUN pip install -e .\nENV FORCE_CUDA="1"\n'
                "RUN pip install -r requirements/build.txt\nRUN pip install --no-cache-dir -e .\n"
                "RUN pip install \\\n  -U git+https://github.com/o/SparseEngine@v0.5 \\\n"
                '  --install-option="--force_cuda" \\\n  --no-deps\nWORKDIR /ops/cuda_op\nRUN python setup.py install\n',
                kind="launcher", filename="Dockerfile", count=2),
        Invalid("torch==2.1.0\nflash-attn==2.5.0\n", kind="manifest", count=1),
        # FA4's distribution (flash_attn.cute, CuTe DSL kernels: migrate/knowledge/third_party.toml flash_attn)
        Invalid("torch==2.9.0\nflash-attn-4\n", kind="manifest", count=1),
        # THUDM/slime docker/Dockerfile(.gb10): wheels built from a clone and installed by a glob standing for the version
        # (`dist/sgl_deep_gemm-*.whl`, DeepGEMM's SGLang build providing `deep_gemm`; `sgl_kernel-*.whl`), FlashQLA from
        # its repository (the catalogue's folder name), sgl-kernel under its later PyPI name `sglang-kernel`; a bare
        # `dist/*.whl` names nothing
        Invalid("RUN cd DeepGEMM && bash build_sgl_deep_gemm.sh && \\\n    pip install --no-deps dist/sgl_deep_gemm-*.whl\n"
                "RUN pip install --no-deps /tmp/wheels/sgl_kernel-*.whl\n"
                "RUN pip install git+https://github.com/QwenLM/FlashQLA.git --no-build-isolation\n"
                "RUN pip install sglang-kernel==0.4.4 && pip install dist/*.whl\n",
                kind="launcher", filename="Dockerfile", count=4),
        # the CUDA wheel of a package that also publishes a CPU build (spconv-cu1xx beside spconv; OpenPCDet-style
        # Dockerfiles): the CUDA build is the line to change, the CPU name stays the package's own (info, not reported here)
        Invalid("spconv-cu118==2.3.6\nspconv==2.3.6\n", kind="manifest", count=1),
        # a plain requirement of a partial package (nerfacc: PyTorch paths beside its CUDA ones) is no label, its
        # CUDA-suffixed wheel is (label ruling (L49); labels 59b, 70e)
        Invalid("nerfacc==0.5.3\nnumpy\ncupy-cuda12x==13.0.0\ngit+https://github.com/KAIR-BAIR/nerfacc.git@v0.5.2\n",
                kind="manifest", count=2),
        Invalid("RUN pip install spconv-cu102\n", kind="launcher", filename="Dockerfile", count=1),
        # alibaba/ROLL's CUDA images: apex named by a build argument's default, built with --cuda_ext (labeller 52a:
        # the install line that names it); an argument without a default stays unread
        Invalid("FROM nvcr.io/nvidia/pytorch:24.05-py3\nARG apex_url=git+https://github.com/NVIDIA/apex.git@25.04\n"
                "ARG extra\nRUN pip install -v --no-build-isolation \\\n"
                "    --config-settings \"--build-option=--cpp_ext --cuda_ext\" ${apex_url} ${extra}\n",
                kind="launcher", filename="Dockerfile", count=1),
        # a CUDA wheel whose URL a variable of the same RUN command holds, installed by its file name (EasyR1's
        # Dockerfile; label rulings (L41)/(L106), migrate/shell_variables.py): the install line; a later RUN has no URL
        Invalid('RUN ABI=$(python -c "import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)") && \\\n'
                '    URL="https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.8'
                'cxx11abi${ABI}-cp312-cp312-linux_x86_64.whl" && \\\n    wget -nv -P /opt/tiger "${URL}" && \\\n'
                '    pip install --no-cache-dir "/opt/tiger/$(basename ${URL})"\nRUN pip install "/opt/tiger/$(basename ${URL})"\n',
                kind="launcher", filename="Dockerfile", count=1),
        # a shell script's variable set above the install (a command's own prefix `PKG=x prog` sets nothing after it)
        Invalid("WHEEL=flash_attn-2.5.8+cu122torch2.3cxx11abiFALSE-cp310-cp310-linux_x86_64.whl\n"
                "cd /opt/wheels\npip install ./${WHEEL}\n"
                "PKG=xformers python prepare.py\npip install $PKG\n", kind="launcher", filename="install.sh", count=1),
        # a CUDA build of torch installed by its wheel's URL in a CUDA wheel folder (label rulings (L41), (L47))
        Invalid("RUN pip3 install numpy && \\\n    pip3 install https://download.pytorch.org/whl/cu90/torch-1.0.0-cp35-cp35m-linux_x86_64.whl\n",
                kind="launcher", filename="Dockerfile", count=1),
        # Replicate's cog.yaml builds a Docker image: a `run:` item's pip install from a CUDA wheel index (40c-2);
        # `gpu: true` / `cuda:` are the image's setup
        Invalid('build:\n  gpu: true\n  cuda: "11.8"\n  python_packages:\n    - "numpy==1.26.4"\n  run:\n'
                "    - pip install mmcv -f https://download.openmmlab.com/mmcv/dist/cu118/torch2.1/index.html\n"
                'predict: "predict.py:Predictor"\n', kind="launcher", filename="cog.yaml", count=1),
        # its `python_packages` items are pip-installed into the image (42c-3): a GPU-only package there is a line of the
        # port; `gpu: true` and torch are not
        Invalid('build:\n  gpu: true\n  python_packages:\n    - "torch==2.1.0"\n    - "einops==0.6.1"\n'
                '    - "xformers==0.0.23"\n  run:\n    - echo ok\npredict: "predict.py:Predictor"\n', kind="launcher",
                filename="cog.yaml", count=1),
        # the CUDA version held in a shell variable: the CUDA build of the name, PyG's CUDA wheel page (not `pip` alone)
        Invalid("CUDA=118\npip install --upgrade pip\npip install spconv-cu${CUDA}\n"
                "pip install torch_scatter -f https://data.pyg.org/whl/torch-${TORCH}+cu${CUDA}.html\n",
                kind="launcher", filename="build_env.sh", count=2),
        # a command continued over several lines (label rule (L41)/(L47): each line naming a GPU-only install, CUDA pin
        # or CUDA index is one), pip by its path with a general option before `install`, a PyG wheel page for a CUDA
        # build; the `cd`s of the whole command say the folder each install runs in: a checkout of a GPU-only package's
        # repository by its name (flash-attention for flash-attn), its csrc extension folders, a `python setup.py install`
        # there, NVIDIA apex built with --cuda_ext; not the requirements file, the CPU packages or the unpinned torchaudio
        Invalid("RUN /opt/conda/bin/pip --no-cache-dir install \\\n    numpy \\\n    gputil \\\n"
                "    -f https://data.pyg.org/whl/torch-${TORCH}+cu117.html \\\n"
                "    && pip install --extra-index-url https://download.pytorch.org/whl/cu117 \\\n"
                "    torch==${TORCH}+cu117 \\\n    torchaudio==${TORCHAUDIO}\n"
                "RUN git submodule update --init --recursive \\\n    && pip install -r requirements/torch.txt \\\n"
                "    && cd /src/third_party/flash-attention \\\n    && /opt/conda/bin/python setup.py install \\\n"
                "    && cd ./csrc \\\n    && cd rotary && pip install -v . \\\n    && cd ../layer_norm && pip install -v . \\\n"
                "    && cd ../../../../ \\\n    && cd ./third_party/apex \\\n"
                "    && pip --no-cache-dir install -v --global-option=\"--cuda_ext\" ./ \\\n    && cd ../tools && pip install .\n",
                kind="launcher", filename="Dockerfile", count=8),
        # label ruling (L47): the CUDA wheel index on a Dockerfile's install line pins torch's CUDA build, also in a
        # Dockerfile variant named for its image
        Invalid("RUN pip install --user torch==1.10 torchvision==0.11.1 -f https://download.pytorch.org/whl/cu111/torch_stable.html\n",
                kind="launcher", filename="Dockerfile", count=1),
        Invalid("RUN pip install torch --index-url https://download.pytorch.org/whl/cu118\n", kind="launcher",
                filename="cu118.Dockerfile", count=1),
        # the wheel URL or the index given by an `ARG` of the stage and used on the install line (migrate/docker_args.py):
        # read with the ARG's default, reported at the install line (set 46 d-7, e-7)
        Invalid("FROM python:3.10 AS build\nARG TORCH_WHEEL=\"https://example.org/whl/cu121/torch-2.3.0-cp310-cp310-linux_x86_64.whl\"\n"
                "ARG TORCH_INDEX=https://download.pytorch.org/whl/cu121\n"
                "RUN pip install \"${TORCH_WHEEL}\" && \\\n  pip install torchvision==0.18.0 --index-url \"$TORCH_INDEX\"\n",
                kind="launcher", filename="Dockerfile", count=2),
        # the CUDA tag edited by the shell or in pieces, or a variable named for it in the tag's place (`ARG CUDA='cu118'`);
        # not `$TORCH_VARIANT` (cpu or a CUDA tag: unknown) nor a path under `${CUDA_HOME}`
        Invalid("pip install torch --index-url https://download.pytorch.org/whl/nightly/cu${CUDA_VERSION//.}\n"
                "pip install torch --index-url https://download.pytorch.org/whl/cu${CUDA_MAJOR}${CUDA_MINOR}\n"
                "pip install torch --extra-index-url https://download.pytorch.org/whl/$CUDA\n"
                "pip install torch --extra-index-url https://download.pytorch.org/whl/$TORCH_VARIANT\n"
                "pip install x -f https://example.org/${CUDA_HOME}/wheels\n", kind="launcher", filename="env.sh", count=3),
        Invalid("nvidia_ml_py>=12\n", kind="manifest"),
        Invalid("loguru\nnvitop\n", kind="manifest", count=1),  # GaLore exp_requirements.txt: NVML-based GPU viewer
        Invalid("nvidia-dali-cuda120\n", kind="manifest"),
        # wenet runtime/gpu requirements: NVIDIA's pip index, TensorRT, ONNX Runtime's CUDA build, the CUDA Python
        # bindings and Riva's CUDA WFST decoder (onnx_graphsurgeon is a pure-Python graph tool)
        Invalid("nvidia-pyindex\ntensorrt==8.5.1.7\nonnx\nonnxruntime-gpu\nonnx_graphsurgeon>=0.3.21\ncuda-python\n"
                "riva-asrlib-decoder==0.4.0\n", kind="manifest", count=5),
        # fetches of a GPU-only package for its install (migrate/fetched_packages.py): a clone, a wheel, a file of its
        # repository; a `cd` into the clone on a line of its own; a CUDA-named requirements file; cd / rm lines are not
        Invalid("git clone https://github.com/NVIDIA/apex\ncd apex\npip install -v --no-build-isolation ./\ncd ..\nrm -r apex\n",
                kind="launcher", filename="install.sh", count=2),
        # a RUN continued past a whole-line comment (Docker drops comment lines before joining the continuation,
        # migrate/continued_commands.py; 50b b-3): the install line of the clone, not the clone
        Invalid("FROM ubuntu:20.04\nRUN git clone https://github.com/NVIDIA-AI-IOT/torch2trt \\\n    && cd torch2trt \\\n"
                "    # pin the commit that builds with this torch\n    && git checkout 0123abc \\\n    && python3 setup.py install\n",
                kind="launcher", filename="Dockerfile", count=1),
        Invalid("wget https://example.org/flash_attn-${v}+cu${cu}-cp310-cp310-linux_x86_64.whl\n"
                "pip install flash_attn-${v}+cu${cu}-cp310-cp310-linux_x86_64.whl\n"
                "wget -P $d https://raw.githubusercontent.com/Dao-AILab/flash-attention/v2.7.2/hopper/flash_attn_interface.py\n",
                kind="launcher", filename="install.sh", count=3),
        Invalid('pip install "git+https://github.com/Dao-AILab/flash-attention.git@v2.7.2#egg=flashattn-hopper&subdirectory=hopper"\n'
                "pip install -r ./requirements/requirements-cuda.txt\n", kind="launcher", filename="install.sh", count=2),
        Invalid("Apex @ git+https://github.com/NVIDIA/apex\n", kind="manifest"),
        # Zefan-Cai/KVCache-Factory requirements-minference.txt: a branch name with a slash after `@` is the revision
        Invalid("git+https://github.com/microsoft/MInference.git@yucheng/kvcompression\n", kind="manifest"),
        # PKU-YuanGroup/Helios tools/requirements_raw.txt: a local build of SandAI's MagiAttention (CUDA kernels)
        Invalid("magi-attention @ file:///MagiAttention\ndecord==0.6.0\n", kind="manifest", count=1),
        Invalid("apex\napex>=0.1\n", kind="manifest", count=2),
        Invalid("torch==2.1.0+cu121\n", kind="manifest", count=1),
        # kaolin tools/linux/Dockerfile.base: the CUDA tag computed in the RUN command, the pin and its index on their lines
        Invalid("RUN CUDA_TAG=\"$(echo ${CUDA_VERSION} | tr -d .)\" && \\\n"
                "    pip install torch==${PYTORCH_VERSION}+cu${CUDA_TAG} torchvision \\\n"
                "        --index-url https://download.pytorch.org/whl/cu${CUDA_TAG}\n",
                kind="launcher", filename="Dockerfile", count=2),
        # a CUDA build named by its suffix (OmniQuant's mlc notebook: `!pip install --pre mlc-ai-nightly-cu118
        # mlc-chat-nightly-cu118 -f https://mlc.ai/wheels`; PyPI dgl-cu113 / mxnet-cu117 / tensorrt-cu12-libs)
        Invalid("pip install --pre --force-reinstall mlc-ai-nightly-cu118 mlc-chat-nightly-cu118 -f https://mlc.ai/wheels\n",
                kind="launcher", filename="setup.sh", count=2),
        Invalid("dgl-cu113==0.9.1\nmxnet_cu117\ntensorrt-cu12-libs\n", kind="manifest", count=3),
        Invalid("--extra-index-url https://download.pytorch.org/whl/cu121\ntorch\n", kind="manifest", count=1),
        Invalid('[project]\nname = "x"\ndependencies = ["bitsandbytes>=0.41", "torch"]\n', kind="manifest", filename="pyproject.toml", count=1),
        # what the build installs first (PEP 518 `[build-system] requires`), like setup_requires (49c c-1)
        Invalid('[build-system]\nrequires = [\n    "setuptools",\n    "pybind11",\n    "nvidia-nccl-cu12 >= 2.18",\n]\n'
                'build-backend = "setuptools.build_meta"\n', kind="manifest", filename="pyproject.toml", count=1),
        # PEP 735 dependency groups (kvpress pyproject.toml's dev group: nvitop, an NVML GPU viewer, 71e); an
        # include-group is a table, no requirement
        Invalid('[dependency-groups]\ndev = [\n    "pytest>=7",\n    "nvitop>=1.3.2,<2",\n    {include-group = "lint"},\n]\n'
                'lint = ["black"]\n', kind="manifest", filename="pyproject.toml", count=1),
        Invalid("[options]\ninstall_requires =\n    cupy-cuda12x\n", kind="manifest", filename="setup.cfg"),
        # CUDA 13's component wheels dropped the -cuNN suffix (`nvidia-cuda-runtime-cu13` is a placeholder naming
        # `nvidia-cuda-runtime`): a cu13 extra
        Invalid('[project.optional-dependencies]\ncu13 = [\n    "nvidia-cuda-runtime>=13",\n    "numpy",\n]\n',
                kind="manifest", filename="pyproject.toml", count=1),
        # dreamgaussian requirements.txt: rembg runs anywhere, its `gpu` extra installs onnxruntime-gpu
        Invalid("rembg[gpu,cli]\nrembg[cli]\n", kind="manifest", count=1),
        # xDiT setup.py: an extra's name is no requirement; its requirement string is (one finding, not two)
        Invalid("from setuptools import setup\nsetup(name='x', install_requires=['torch'],\n"
                "      extras_require={\n          'flash-attn': [\n              'flash-attn>=2.6.0',\n          ],\n"
                "          'flask': ['flask'],\n      })\n", kind="manifest", filename="setup.py", count=1),
        # flash-attn's CachedWheelsCommand (causal-conv1d, mamba_ssm): the prebuilt wheel picked by the CUDA version;
        # the project's own version tag (`version += f"+cu{...}"`) is none
        Invalid("from setuptools import setup\ndef get_wheel_url():\n"
                "    wheel_filename = f\"{PACKAGE_NAME}-{version}+cu{cuda_version}torch{torch_version}-{platform_name}.whl\"\n"
                "    return BASE_WHEEL_URL.format(wheel_name=wheel_filename)\n"
                "version = '1.0'\nversion += f\"+cu{cuda_version}\"\nsetup(name='x', version=version)\n",
                kind="manifest", filename="setup.py", count=1),
        # megablocks setup.py: the requirement lists are bound to names first and passed by name to setup()
        Invalid("from setuptools import setup\ninstall_requires = [\n    'numpy',\n    'stanford-stk==0.7.1',\n]\n"
                "extra_deps = {}\nextra_deps['gg'] = [\n    'grouped_gemm==0.3.0',\n]\n"
                "extra_deps['all'] = list({d for k, ds in extra_deps.items() for d in ds if k not in {'testing'}})\n"
                "setup(name='x', install_requires=install_requires, extras_require=extra_deps)\n",
                kind="manifest", filename="setup.py", count=2),
        Invalid("name: env\ndependencies:\n  - python=3.10\n  - pip:\n    - xformers==0.0.23\n", kind="manifest", filename="environment.yml"),
        # a pixi manifest: its conda tables name the CUDA toolkit and torch's CUDA metapackage (label rule 34c-7); a
        # task's command line and the PyPI table's own `cuda` (another PyPI project) are not conda packages
        Invalid('[project]\nname = "s"\nchannels = ["nvidia", "pytorch"]\n\n[tasks]\ntrain = "python t.py --device cuda"\n\n'
                '[dependencies]\npython = "3.10.*"\ncuda = {version = "*", channel = "nvidia/label/cuda-11.8.0"}\n'
                'pytorch-cuda = {version = "11.8.*", channel = "pytorch"}\n\n[pypi-dependencies]\ncuda = "*"\n',
                kind="manifest", filename="pixi.toml", count=2),
        # the pytorch channel's CUDA-version metapackage of torch 1.0, under its channel prefix (yolact environment.yml)
        Invalid("name: yolact-env\ndependencies:\n  - pytorch::pytorch >=1.0.1\n  - pytorch::cuda100\n  - cuda90\n",
                kind="manifest", filename="environment.yml", count=2),
        Invalid("name: ldm\ndependencies:\n  - python=3.8\n  - cudatoolkit=11.3\n  - pytorch::pytorch-cuda=11.8\n",
                kind="manifest", filename="environment.yaml", count=2),
        # a suffixed conda environment file (RAFT-Stereo environment_cuda11.yaml) and a build string naming CUDA by its
        # short tag (CER-MVS environment.yml `torchvision=0.8.2=py37_cu110`)
        Invalid("name: raftstereo\ndependencies:\n  - pytorch=1.11\n  - cudatoolkit=11.3\n", kind="manifest",
                filename="environment_cuda11.yaml"),
        Invalid("name: mvs\ndependencies:\n  - numpy=1.20.2=py37h2d18471_0\n  - torchvision=0.8.2=py37_cu110\n",
                kind="manifest", filename="environment.yml"),
        # requirements given by location alone: a VCS URL (stable-dreamfusion requirements.txt) and a local
        # project directory (2d-gaussian-splatting environment.yml installs its submodules): the repository's
        # or directory's name stands for the distribution's
        Invalid("numpy\ngit+https://github.com/NVlabs/nvdiffrast/\n", kind="manifest", count=1),
        # a fork's repository pinned by commit (SplaTAM-style requirements): the catalogue's `folder_names` names the
        # repository that builds the package under another name (the depth-rendering Gaussian rasterizer)
        Invalid("numpy\ngit+https://github.com/JonathonLuiten/diff-gaussian-rasterization-w-depth.git@cb65e4b\n",
                kind="manifest", count=1),
        # pointMLP-pytorch requirements.txt: the conda name of the CUDA toolkit in a pip requirements file
        Invalid("cudatoolkit\nnumpy\n", kind="manifest", filename="requirements.txt"),
        # a prebuilt wheel by URL with an environment marker after it (text-generation-webui requirements.txt): the
        # wheel file names the distribution (PEP 427), a `+cu121` local version pins a CUDA build of a package the
        # catalogue may not know
        Invalid('https://github.com/oobabooga/exllamav2/releases/download/v0.0.18/exllamav2-0.0.18+cu121-cp311-cp311-'
                'linux_x86_64.whl; platform_system == "Linux" and platform_machine == "x86_64"\n'
                'https://example.org/whl/some_kernels-0.2.56+cu121-cp311-cp311-win_amd64.whl; platform_system == "Windows"\n',
                kind="manifest", count=2),
        # a prebuilt wheel by URL names its distribution in the file name
        Invalid("https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.8/"
                "flash_attn-2.5.8+cu122torch2.3cxx11abiFALSE-cp310-cp310-linux_x86_64.whl\n", kind="manifest", count=1),
        Invalid("name: surfel\ndependencies:\n  - python=3.8\n  - pip:\n    - submodules/diff-surfel-rasterization\n"
                "    - submodules/simple-knn\n    - ./third_party/tools\n", kind="manifest", filename="environment.yml", count=2),
        # the depth-rendering fork of the rasterizer installed as a local submodule directory (Deformable-3D-Gaussians
        # requirements.txt): its directory name is the fork's repository name, the package it builds is diff_gaussian_rasterization
        Invalid("submodules/depth-diff-gaussian-rasterization\nplyfile==0.8.1\n", kind="manifest", count=1),
        # launchers: the requirements of `pip install` (nvdiffrec docker/make_image.sh installs tiny-cuda-nn's
        # bindings from git; LLM setup scripts install flash-attn), not option values such as `-r` files
        Invalid('nvidia-docker run -it img pip install --global-option="--no-networks" git+https://github.com/NVlabs/nvdiffrast/\n',
                kind="launcher", filename="make_image.sh", count=1),
        Invalid("set -e\npip install -r requirements.txt\npip3 install flash-attn==2.5.8 --no-build-isolation && python -m pip install 'xformers>=0.0.23'\n",
                kind="launcher", filename="install.sh", count=2),
        # conda in a launcher (FRNN install.sh) or a notebook's `!` line (DAIN Colab_DAIN.ipynb): the CUDA toolkit
        # packages it installs, not the channel option's value or the CPU packages beside them
        Invalid("conda install -y -c pytorch pytorch=1.9 cudatoolkit=11.1 torchvision\nconda install -c nvidia cuda-nvcc\n"
                "conda install -c conda-forge cudatoolkit-dev  # nvcc\necho 'conda install cudatoolkit'\n",
                kind="launcher", filename="install.sh", count=3),
        # an HPC job script loading the CUDA toolkit through Environment Modules / Lmod (yolact scripts/train.sh), not
        # the other modules it loads nor an echo of the command
        Invalid("#SBATCH --gres=gpu:1\nmodule load python/3.6.4_gcc5_np1.14.5\nmodule load cuda/9.0\n"
                "module load gcc/9 CUDA/11.8.0 cuDNN/8.6.0  # EasyBuild names\necho 'module load cuda'\n",
                kind="launcher", filename="train.sh", count=3),
        # a site's module tree under the vendor's name (`nvidia/cuda/10.0`, s2anet tools/slurm_train.slurm); not a
        # module whose version part alone says cuda
        Invalid("#SBATCH --gres=gpu:4\nmodule load scl/gcc4.9\nmodule load nvidia/cuda/10.0\nmodule load pytorch/cuda\n",
                kind="launcher", filename="train.slurm", count=1),
        # Open-Sora gradio/app.py installs flash-attn and NVIDIA apex from the running program; a command given as a
        # list names its requirements the same way
        # spcl/QuaRot setup.py (HandH1998/QQQ setup.py the same): a submodule folder of a GPU-only package pip-installs it;
        # a folder of another name, and a command that is no pip install, do not
        Invalid("import os, shutil, subprocess\ndef third_party():\n"
                "    hadamard_dir = os.path.join(HERE, 'third-party/fast-hadamard-transform')\n"
                "    tools = os.path.join(HERE, 'third-party/mytools')\n    pip = shutil.which('pip')\n"
                "    subprocess.call([pip, 'install', '-e', hadamard_dir])\n    subprocess.call([pip, 'install', tools])\n"
                "    subprocess.call(['ls', hadamard_dir])\n", count=1),
        Invalid('import subprocess, sys\nsubprocess.run(f"{sys.executable} -m pip install flash-attn --no-build-isolation", shell=True)\n'
                'subprocess.run(f\'{sys.executable} -m pip install -v --config-settings "--build-option=--cuda_ext" '
                'git+https://github.com/NVIDIA/apex.git\', shell=True)\n'
                'import os\nos.system("pip install torch --extra-index-url https://download.pytorch.org/whl/cu118")\n'
                'subprocess.check_call([sys.executable, "-m", "pip", "install", "xformers"])', count=4),
        # kaolin simulatable_3dgrut notebook: the folder a `cd` enters before `pip install -e .[extras]`, named for a
        # catalogued package's repository (label rule 46b-16); `pip install .` with no `cd` names no package
        Invalid('import subprocess\nsubprocess.run(f"cd 3dgrut && MAX_JOBS=1 pip install -e .[dev,gui]", shell=True)\n'
                'subprocess.run("pip install -e .", shell=True)\n', count=1),
        # text-generation-webui one_click.py: the pip command is built in pieces and run later through a helper; the
        # string that gives the CUDA wheel index is the line to change (not the ROCm / CPU ones)
        Invalid('cmd = f"python -m pip install torch=={TORCH_VERSION} "\nif is_cuda118:\n'
                '    cmd += "--index-url https://download.pytorch.org/whl/cu118"\nelif is_rocm:\n'
                '    cmd += "--index-url https://download.pytorch.org/whl/rocm5.6"\nelse:\n'
                '    cmd += "--extra-index-url=https://download.pytorch.org/whl/cpu"\nrun_cmd(cmd)\n', count=1),
        # Fooocus launch.py: the CUDA index is the default of a variable that the pip command reads later; the line
        # naming cu121 is the one to change. A URL inside prose, or the CPU index, is not reported
        Invalid("import os\ndef prepare_environment():\n"
                "    torch_index_url = os.environ.get('TORCH_INDEX_URL', \"https://download.pytorch.org/whl/cu121\")\n"
                "    torch_command = f\"pip install torch==2.1.0 --extra-index-url {torch_index_url}\"\n"
                "    cpu_index = 'https://download.pytorch.org/whl/cpu'\n"
                "    print('see https://download.pytorch.org/whl/cu118 for wheels')\n", count=1),
        # a CUDA wheel index of a `pip install` in a shell script or a notebook's `!` line (OneFormer's Colab notebook
        # installs natten from its cu113 wheel page), as in a requirements file
        Invalid("pip3 install natten==0.14.4 -f https://shi-labs.com/natten/wheels/cu113/torch1.10.1/index.html\n"
                "pip install torch --extra-index-url=https://download.pytorch.org/whl/cu118\n", kind="launcher",
                filename="install.sh", count=2),
        # a CUDA-pinned wheel spelling the CUDA version out (`+cuda12.1`), and PyTorch's conda name of Triton
        Invalid("RUN pip3 install https://example.org/kaldifeat-1.25.5+cuda12.1.torch2.4.1-cp38-cp38-linux_x86_64.whl\n",
                kind="launcher", filename="Dockerfile", count=1),
        Invalid("name: sr\ndependencies:\n  - torchtriton=2.1.0=py310\n  - tk=8.6.12=h1ccaba5_0\n", kind="manifest",
                filename="environment.yml", count=1),
        # an exported environment: the toolkit's components, and CUDA builds named by their build string
        Invalid("name: dino\ndependencies:\n  - cuda-cudart=11.8.89=0\n  - libcublas-dev=11.11.3.6=0\n  - libcurl=8.1.2=h68f0423_0\n"
                "  - pytorch=2.0.1=py3.9_cuda11.8_cudnn8_0\n  - pytorch-mutex=1.0=cuda\n  - torchvision=0.15.2=py39_cpu\n",
                kind="manifest", filename="environment.yml", count=4),
    ]

    def _cuda_wheel_filenames(self, ctx):
        """`wheel_filename = f"{PACKAGE_NAME}-{version}+cu{cuda_version}torch{torch_version}...whl"` in a setup.py whose
        bdist_wheel command downloads that prebuilt wheel before building (flash-attn's CachedWheelsCommand, copied by
        causal-conv1d, mamba_ssm, MInference, Block-Sparse-Attention): the wheel installed is the package's CUDA build,
        picked by torch's CUDA version. Labelled `manifest` by analogy with (L82) in sets 60, 64, 65 and 69 (labels
        60 MInference setup.py:155, 64 Block-Sparse-Attention setup.py:285, 65b PointMamba mamba/setup.py:200, 69c
        LocalMamba). Not a version string of the project's own (`version += f"+cu{cuda_version}"`, no `.whl`)."""
        for number, line in enumerate(ctx.lines, 1):
            if "+cu{" not in line or ".whl" not in line:
                continue
            for match in _CUDA_WHEEL_FILENAME.finditer(line):
                yield self.finding(
                    ctx, (number, match.start(2), number, match.end(2)),
                    "a prebuilt wheel of this package's CUDA build, picked by torch's CUDA version (`+cu{...}`), which "
                    "the install downloads before building: an Ascend host needs the package built from source without "
                    "CUDA (its *_FORCE_BUILD / SKIP_CUDA_BUILD switches) or its CPU / NPU port",
                    severity=Severity.WARNING,
                )

    def check(self, ctx):
        if ctx.kind == "manifest" and _other_accelerator_manifest(ctx.path):
            return
        table = knowledge.third_party()
        pips = _pip_table()
        launcher = ctx.kind == "launcher"
        if ctx.kind == "python":
            deps = [dep for kind, dep, _ in _python_pip_installs(ctx) if kind == "req"]
        else:
            deps = pip_install_dependencies(ctx) if launcher else ctx.dependencies
        if launcher and ("FORCE_CUDA" in ctx.source or "force_cuda" in ctx.source):
            dockerfile = is_dockerfile(ctx.path)
            for number, start, end in forced_cuda_builds.forced_pip_builds(ctx.lines):
                yield self.finding(ctx, (number, start, number, end),
                                   "a pip install given `--force_cuda` forces the package's CUDA build (nvcc): it fails "
                                   "on an Ascend host; install its CPU / Ascend variant instead (migrate/forced_cuda_builds.py)")
        if ctx.kind == "manifest" and ctx.path.replace("\\", "/").rsplit("/", 1)[-1] == "setup.py" and "+cu{" in ctx.source:
            yield from self._cuda_wheel_filenames(ctx)
        if launcher and "FORCE_CUDA" in ctx.source:  # `FORCE_CUDA=1 python ops/setup.py build install`
            for number, start, end in forced_cuda_builds.forced_builds(ctx.lines, dockerfile):
                yield self.finding(ctx, (number, start, number, end),
                                   "a setup.py build run with FORCE_CUDA=1 builds its CUDA extension (nvcc, CUDA kernels): "
                                   "it fails on an Ascend host; build the project's CPU / Ascend variant instead "
                                   "(migrate/forced_cuda_builds.py)")
        for dep in deps:
            span = (dep.line, dep.column, dep.line, dep.end_column)
            key = self._lookup(dep.name, pips)
            if key is None and (named := _by_repository(dep)) is not None:
                dep, key = named
            if key is not None and _pins_namesake(_spec_text(ctx, dep), table[key].pypi_namesake):
                continue  # the unrelated PyPI project of the same name (PyPI `apex==0.9.10.dev0`, a Pyramid toolkit)
            if key is not None and _ascend_build_file(dep):
                continue  # the package's Ascend build, installed from its wheel file (`apex-0.1_ascend-cp39-...whl`)
            if key is not None and npu_plugins.npu_extra_requirements((dep,)):
                continue  # the package's NPU build through its own extra (`sglang[srt_npu]`, knowledge `npu_extras`)
            suffix = _CUDA_BUILD_NAME.search(dep.name)
            if suffix is None and launcher and dep.name.lower().endswith(("-cu", "_cu", ".cu", "-cuda", "_cuda", ".cuda")):
                suffix = _CUDA_BUILD_VARIABLE.search(dep.raw)
            if suffix is not None and suffix.start() > 0 and (key is None or table[key].status == "partial") \
                    and not _cuda_runtime_wheel(dep.name):
                # a CUDA build by its name: unknown to the catalogue, or the CUDA wheel of a package that also publishes
                # a CPU build (`spconv-cu116` beside `spconv`: the port installs that one; its imports stay as they are)
                yield self.finding(
                    ctx, span,
                    f"`{dep.name}` is a CUDA build (the `{suffix.group(1)}` in its name); an Ascend host needs the "
                    "project's CPU or NPU build (the name without the suffix, where one is published), and CANN for the runtime",
                    severity=Severity.WARNING,
                )
            elif key is not None and table[key].status == "partial" and _listed(table[key]) and "://" not in dep.raw:
                # a plain requirement of a package that runs on Ascend NPU in part (nerfacc's PyTorch paths beside its
                # CUDA ones): the line installs what runs there; the parts to port are its uses, NPU501's imports. Its
                # CUDA-suffixed wheel (above) is the label (label ruling (L49); labels 53 (kaolin), 59b, 70e (nerfacc)),
                # and so is a source install from a URL (`git+https://...nerfacc@v0.5.2` builds its CUDAExtension:
                # GeoDream's labels)
                continue
            elif key is not None and _listed(table[key]):
                entry = table[key]
                text = (f"`{dep.name}` runs on Ascend NPU only in part: check the parts this project uses"
                        if entry.status == "partial" else f"`{dep.name}` targets NVIDIA GPUs ({entry.status} on Ascend NPU)")
                if entry.alternative:
                    text += f"; NPU alternative: {entry.alternative}"
                yield self.finding(ctx, span, text, severity=Severity.parse(entry.severity), replacement=entry.alternative_api,
                                   package=package_of(key, table))
            elif (chosen := _gpu_extra(dep, pips)) is not None and _listed(table[chosen[2]]):
                extra, installs, key = chosen
                entry = table[key]
                text = f"`{dep.name}[{extra}]`: the `{extra}` extra installs `{installs}`, which targets NVIDIA GPUs ({entry.status} on Ascend NPU)"
                if entry.alternative:
                    text += f"; NPU alternative: {entry.alternative}"
                yield self.finding(ctx, span, text, severity=Severity.parse(entry.severity), replacement=entry.alternative_api,
                                   package=package_of(key, table))
            elif _cuda_runtime_wheel(dep.name):
                yield self.finding(
                    ctx, span, f"`{dep.name}` is an NVIDIA CUDA runtime wheel; it has no use on an Ascend host (CANN provides the runtime)",
                    severity=Severity.WARNING,
                )
            elif (dep.name in _CONDA_CUDA or _CONDA_CUDA_COMPONENT.match(dep.name)) and (dep.conda or _conda_env(ctx)):
                yield self.finding(
                    ctx, span,
                    f"`{dep.name}` is a conda package of the CUDA toolkit; an Ascend host takes its runtime from CANN, "
                    "and torch_npu needs torch's CPU build",
                    severity=Severity.WARNING,
                )
            elif dep.name in _CONDA_CUDA_IN_PIP and not (dep.conda or _conda_env(ctx)):
                yield self.finding(
                    ctx, span,
                    f"`{dep.name}` names the CUDA toolkit (a conda package, in a pip requirement); an Ascend host takes its "
                    "runtime from CANN, and torch_npu needs torch's CPU build",
                    severity=Severity.WARNING,
                )
            elif (dep.conda or _conda_env(ctx)) and 0 < dep.line <= len(ctx.lines) and (build := _CONDA_CUDA_BUILD.match(ctx.lines[dep.line - 1])):
                yield self.finding(
                    ctx, span,
                    f"`{dep.name}` is pinned to a CUDA build (conda build string `{build.group(1)}`); torch_npu needs "
                    "torch's CPU build, and an Ascend host takes its runtime from CANN",
                    severity=Severity.WARNING,
                )
            elif _CUDA_LOCAL_VERSION.search(dep.raw):
                yield self.finding(
                    ctx, span,
                    f"`{dep.raw}` pins a CUDA build; torch_npu needs the matching CPU build of torch (drop the `+cuXXX` tag)",
                    severity=Severity.WARNING,
                )
        for folder, node in _python_local_folder_installs(ctx) if ctx.kind == "python" else ():
            key = self._lookup(normalise(folder), pips)
            if key is not None and needs_a_look(table[key]) and table[key].status != "partial":
                entry = table[key]
                text = (f"`{node.value}` pip-installs `{folder}` from a local folder, which targets NVIDIA GPUs "
                        f"({entry.status} on Ascend NPU)")
                if entry.alternative:
                    text += f"; NPU alternative: {entry.alternative}"
                yield self.finding(ctx, node, text, severity=Severity.parse(entry.severity), replacement=entry.alternative_api,
                                   package=package_of(key, table))
        for number, start, end, path in _cuda_named_requirement_files(ctx) if launcher and not _sets_up_a_machine(ctx) else ():
            yield self.finding(
                ctx, (number, start, number, end),
                f"`{path}` is the CUDA requirements of the project (named for CUDA); an Ascend host installs its NPU "
                "requirements instead (torch_npu, CANN) and drops the GPU-only ones",
                severity=Severity.WARNING,
            )
        for number, start, end, name in _conda_install_cuda_packages(ctx) if launcher else ():
            yield self.finding(
                ctx, (number, start, number, end),
                f"`{name}` is a conda package of the CUDA toolkit; an Ascend host takes its runtime from CANN, "
                "and torch_npu needs torch's CPU build",
                severity=Severity.WARNING,
            )
        for number, start, end, name in _module_load_cuda(ctx) if launcher else ():
            yield self.finding(
                ctx, (number, start, number, end),
                f"`module load {name}` loads the CUDA toolkit; an Ascend host loads CANN instead (its module, or "
                "`source .../ascend-toolkit/set_env.sh`)",
                severity=Severity.WARNING,
            )
        indexes = [ctx.span(node) for kind, _, node in _python_pip_installs(ctx) if kind == "index"] \
            if ctx.kind == "python" else [(n, start, n, end) for n, start, end, what in _pip_install_indexes(ctx) if what == "index"] \
            if launcher else []
        for number, start, end, what in _pip_install_indexes(ctx) if launcher and ctx.kind != "python" else ():
            if what == "wheel":
                yield self.finding(
                    ctx, (number, start, number, end),
                    "a CUDA build's wheel (from a CUDA wheel folder); torch_npu needs torch's CPU wheels "
                    "(https://download.pytorch.org/whl/cpu or PyPI)",
                    severity=Severity.WARNING,
                )
            elif what == "pin":
                yield self.finding(
                    ctx, (number, start, number, end),
                    f"`{ctx.lines[number - 1][start:end]}` pins a CUDA build (its `+cu` tag from a shell variable); "
                    "torch_npu needs the matching CPU build of torch (drop the `+cuXXX` tag)",
                    severity=Severity.WARNING,
                )
        if ctx.kind == "python":
            taken = {span[0] for span in indexes}
            indexes += sorted({ctx.span(node) for node in _python_index_strings(ctx) if ctx.span(node)[0] not in taken})
        for span in indexes:
            yield self.finding(
                ctx, span,
                "a CUDA wheel index; torch_npu needs torch's CPU wheels (https://download.pytorch.org/whl/cpu or PyPI)",
                severity=Severity.WARNING,
            )
        for number, line in enumerate(ctx.lines if ctx.kind == "manifest" else (), 1):
            code = strip_comment(line)
            for match in _CUDA_INDEX_URL.finditer(code):
                yield self.finding(
                    ctx, (number, match.start(), number, match.end()),
                    "a CUDA wheel index; torch_npu needs torch's CPU wheels (https://download.pytorch.org/whl/cpu or PyPI)",
                    severity=Severity.WARNING,
                )

    def own_extensions(self, result, index) -> list:
        """Cross-file (called by migrate/linking.py once the repository index is built): a manifest
        entry that installs a CUDA extension this repository builds itself (DAIN environment.yaml lists
        `correlation-cuda==0.0.0`, the package its PWCNet setup.py builds as CUDAExtension('correlation_cuda',
        ...)) is a CUDA build to replace like a GPU-only package: matched by the normalised name of the
        extension module (its last dotted part), CUDA builds only."""
        own: dict[str, object] = {}
        for name, definition in index.modules.items():
            if definition.kind == "module" and definition.cuda:
                own.setdefault(normalise(name.rsplit(".", 1)[-1]), definition)
        taken = {f.line for f in result.findings if f.code == self.CODE}
        out = []
        for fact in result.facts:
            if fact[0] != "req" or fact[2] in taken or fact[1] not in own:
                continue
            built = own[fact[1]]
            taken.add(fact[2])
            out.append(Finding(
                path=result.path, line=fact[2], column=1, end_line=fact[2], end_column=1, code=self.CODE,
                severity=Severity.ERROR, category=self.CATEGORY,
                message=(f"`{fact[1]}` is this repository's own CUDA extension `{built.name}` (built at {built.path}:{built.line}): "
                         "it cannot be built or installed for an Ascend NPU; port its kernels, then drop or rename this entry")))
        return out

    @staticmethod
    def _lookup(name: str, pips: tuple[tuple[str, str], ...]) -> str | None:
        """The key of the first entry of `pips` whose pattern is `name` or a glob (`*`) matching it. Read through an
        index of the table (`_pip_index`): a dict of the plain names, then only the globs listed before the plain hit
        (the scan of the whole table per name was ~1.5% of a cold run on torch's package, asked for every string)."""
        exact, globs = _pip_index(pips)
        hit = exact.get(name)
        for position, pattern, key in globs:
            if hit is not None and position > hit[0]:
                break
            if fnmatchcase(name, pattern):
                return key
        return hit[1] if hit is not None else None
