import re

from migrate.findings import Category, Severity
from migrate.rules._text import command_strings, shell_matches
from migrate.rules.base import Invalid, Rule, Valid

# a `docker run` / `docker create` / `podman run` (or `nvidia-docker`) command that asks for GPUs
# through the NVIDIA Container Toolkit: `--gpus all`, `--gpus '"device=0,1"'`, `--runtime=nvidia`
_CONTAINER = r"(?<![\w./-])(?:nvidia-docker|docker|podman)(?![\w.-])"
_GPU_FLAG = r"(?<![\w-])(?:--gpus(?![\w-])|--runtime[=\s]+nvidia(?![\w-]))"
_IN_COMMAND = re.compile(rf"{_CONTAINER}[^\n;&|]*?(?P<flag>{_GPU_FLAG})")
_NVIDIA_DOCKER = re.compile(r"(?<![\w./-])nvidia-docker(?![\w.-])")


class DockerGpus(Rule):
    """Containers started for NVIDIA GPUs: `docker run --gpus all` (also `--gpus '"device=0"'`,
    `--runtime=nvidia`, `podman run --gpus`) and the `nvidia-docker` wrapper ask the NVIDIA
    Container Toolkit for GPUs. An Ascend host has none of it: the NPUs are mounted as devices
    (`--device=/dev/davinci0 --device=/dev/davinci_manager --device=/dev/devmm_svm
    --device=/dev/hisi_hdc` with the driver directories `-v /usr/local/Ascend/driver:...:ro`), or
    with Ascend Docker Runtime through `-e ASCEND_VISIBLE_DEVICES=0` (hiascend.com MindCluster
    "Usage on the Docker Client"). Flagged in shell launchers and YAML (not comments or echo text)
    and in Python strings that hold such a command; not rewritten, because the device list and
    mounts depend on the host."""

    CODE = "NPU704"
    NAME = "docker-gpus"
    CATEGORY = Category.ENVIRONMENT
    SEVERITY = Severity.WARNING
    KINDS = ("python", "launcher")
    MESSAGE = (
        "asks the NVIDIA Container Toolkit for GPUs, which an Ascend host does not have; mount the NPUs "
        "(--device=/dev/davinciN --device=/dev/davinci_manager --device=/dev/devmm_svm --device=/dev/hisi_hdc "
        "-v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro) or use Ascend Docker Runtime "
        "(-e ASCEND_VISIBLE_DEVICES=0)"
    )
    TRIGGERS = ("--gpus", "nvidia-docker", "--runtime")
    VALID = [
        'cmd = "docker run --device=/dev/davinci0 -it image bash"',
        'print("run it with docker run --gpus all")',
        'parser.add_argument("--gpus", type=int, default=1)',
        Valid("# docker run --gpus all image\necho \"docker run --gpus all\"\n", kind="launcher"),
        Valid("python train.py --gpus 0,1\n", kind="launcher"),  # a script's own flag, no container
        Valid("docker run --runtime=runc image\n", kind="launcher"),
    ]
    INVALID = [
        Invalid("docker run --gpus all -it --rm -v $PWD:/ws image bash\n", kind="launcher", count=1),
        Invalid("docker run -it \\\n    --runtime=nvidia image\nnvidia-docker run image\n", kind="launcher", count=2),
        Invalid("podman run --gpus=all image\n", kind="launcher", count=1),
        Invalid('import os\nos.system("docker run --gpus all --ipc=host image python train.py")', count=1),
        Invalid("cmd = f\"docker run --gpus '\\\"device={gpu}\\\"' {image}\"", count=1),
    ]

    def check(self, ctx):
        if ctx.kind == "launcher":
            seen: set[int] = set()
            for number, match in shell_matches(ctx.lines, _IN_COMMAND):
                seen.add(number)
                yield self.finding(ctx, (number, match.start("flag"), number, match.end("flag")))
            for number, match in shell_matches(ctx.lines, _NVIDIA_DOCKER):
                if number not in seen:
                    yield self.finding(ctx, (number, match.start(), number, match.end()))
            yield from self._continued(ctx, seen)
            return
        for node, text in command_strings(ctx):
            if _IN_COMMAND.search(text) or _NVIDIA_DOCKER.search(text):
                yield self.finding(ctx, node)

    def _continued(self, ctx, seen: set[int]):
        """`--runtime=nvidia` / `--gpus` on a continuation line of a `docker run ... \\` command."""
        in_docker = False
        flag = re.compile(_GPU_FLAG)
        for number, line in enumerate(ctx.lines, 1):
            code = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
            if not in_docker and re.search(_CONTAINER, code) and code.rstrip().endswith("\\"):
                in_docker = True
                continue
            if in_docker:
                match = flag.search(code)
                if match and number not in seen:
                    seen.add(number)
                    yield self.finding(ctx, (number, match.start(), number, match.end()))
                in_docker = code.rstrip().endswith("\\")
