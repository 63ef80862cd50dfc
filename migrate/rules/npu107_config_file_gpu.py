import functools
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import PurePosixPath

from migrate._toml import toml as tomllib
from migrate.findings import Category, Edit, Severity
from migrate.rules.base import Invalid, Rule, Valid


@dataclass(frozen=True)
class ConfigSetting:
    key: str  # "*": any key
    values: tuple[str, ...]  # fnmatch globs; "!off": any value but 0 / null / "" / false
    family: str
    severity: Severity
    why: str
    alternative: str
    source: str
    replace: tuple[str, str] | None = None


@dataclass(frozen=True)
class ConfigFamily:
    markers: tuple[re.Pattern, ...]
    folders: tuple[str, ...]


_OFF = "!off"


@functools.lru_cache(maxsize=1)
def config_settings() -> tuple[tuple[ConfigSetting, ...], dict[str, ConfigFamily]]:
    """The table of `migrate/knowledge/data/config_device_keys.toml`."""
    text = resources.files("migrate.knowledge").joinpath("data", "config_device_keys.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    families = {
        name: ConfigFamily(tuple(re.compile(m, re.MULTILINE) for m in f["markers"]), tuple(f["folders"]))
        for name, f in data["family"].items()
    }
    settings = tuple(
        ConfigSetting(s["key"], tuple(s["values"]), s["family"], Severity.parse(s["severity"]), s["why"], s["alternative"],
                      s["source"], tuple(s["replace"]) if "replace" in s else None)
        for s in data["setting"]
    )
    return settings, families


# `key: value`, `- key: value`, the value optionally quoted, an optional trailing comment
_LINE = re.compile(
    r"""^\s*(?:-\s+)?(?P<key>[A-Za-z_][\w.-]*)\s*:[ \t]+"""
    r"""(?:(?P<q>["'])(?P<qval>[^"'\n]*)(?P=q)|(?P<val>[^\s#"'][^#\n]*?))[ \t]*(?:#.*)?$"""
)


def _is_off(value: str) -> bool:
    return value.strip().lower() in ("", "0", "null", "none", "~", "false", "[]")


def _matches(setting: ConfigSetting, key: str, value: str) -> bool:
    if setting.key not in ("*", key):
        return False
    return any(not _is_off(value) if wanted == _OFF else fnmatchcase(value, wanted) for wanted in setting.values)


def _in_family(family: ConfigFamily, path: str, text: str) -> bool:
    if not family.markers and not family.folders:
        return True
    folders = PurePosixPath(path.replace("\\", "/")).parts[:-1]
    return any(f in folders for f in family.folders) or any(m.search(text) for m in family.markers)


def _replacement(setting: ConfigSetting, value: str) -> str | None:
    if setting.replace is None:
        return None
    old, new = setting.replace
    if old in value:
        return value.replace(old, new, 1)
    if old.upper() in value:
        return value.replace(old.upper(), new.upper(), 1)
    return None


class ConfigFileGpu(Rule):
    """A GPU chosen in a YAML configuration file rather than in Python: Lightning's
    `accelerator: gpu` / `cuda` and 1.x `gpus: N` in a Trainer config (a Hydra node whose
    `_target_` is Lightning's Trainer, a LightningCLI file's `trainer:` group, or a file of a Hydra
    config group named `trainer`), Accelerate's `distributed_type: MULTI_GPU` (rewritten to
    `MULTI_NPU`), a process-group backend `nccl` under any key (rewritten to `hccl`) and a device
    string `device: cuda` / `cuda:N` (rewritten to `npu`). Lightning has no built-in NPU
    accelerator: its `gpu` setting is reported for a person (it runs once `transfer_to_npu` is
    imported by the entry module, which apply adds to the entry of a config-driven app, NPU108, and
    `TORCH_NPU_DEVICE_CAPABILITY` is set: Lightning's CUDA accelerator unpacks
    `torch.cuda.get_device_capability()`, which torch_npu answers with None otherwise).
    The rewrite is line-based: only the value changes, comments and layout stay byte for byte.
    Keys, values, replacements and the way a Lightning or Accelerate file is told apart are data
    (`migrate/knowledge/data/config_device_keys.toml`, each with its source). Only `.yaml` /
    `.yml` files are read; comment lines are skipped."""

    CODE = "NPU107"
    NAME = "config-file-gpu"
    CATEGORY = Category.DEVICE
    SEVERITY = Severity.ERROR
    FIXABLE = True
    KINDS = ("launcher",)
    MESSAGE = "a configuration file selects a GPU"
    VALID = [
        Valid("trainer:\n  accelerator: cpu\n  devices: 1\n", kind="launcher", filename="configs/train.yaml"),
        Valid("accelerator: gpu\n", kind="launcher", filename="configs/model/net.yaml"),  # not a Lightning Trainer config
        Valid("# device: cuda\ndevice: npu\nbackend: hccl\n", kind="launcher", filename="config.yaml"),
        Valid("_target_: lightning.pytorch.trainer.Trainer\naccelerator: cpu\ngpus: 0\n", kind="launcher",
              filename="conf/t.yaml"),
        Valid("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_NPU\ngpu_ids: all\nmixed_precision: fp16\n",
              kind="launcher", filename="default_config.yaml"),
        Valid("backend: nccl\n", kind="launcher", filename="run.sh"),  # not a YAML file
        Valid("note: 'use nccl on GPUs'\ndevice: cudagraph\n", kind="launcher", filename="c.yml"),
    ]
    INVALID = [
        Invalid(
            "defaults:\n  - default\n\naccelerator: gpu  # the GPU trainer\ndevices: 1\n",
            count=1, kind="launcher", filename="configs/trainer/gpu.yaml",
        ),
        Invalid("_target_: pytorch_lightning.Trainer\ngpus: 2\n", count=1, kind="launcher", filename="conf/trainer.yaml"),
        Invalid(
            "trainer:\n  accelerator: 'cuda'\n  strategy:\n    class_path: DDPStrategy\n    init_args:\n"
            "      process_group_backend: nccl # DDP over NCCL\n",
            count=2, kind="launcher", filename="cli/fit.yaml",
        ),
        Invalid(
            "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU   # 4 GPUs\ngpu_ids: all\n",
            expected="compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_NPU   # 4 GPUs\ngpu_ids: all\n",
            kind="launcher", filename="accelerate/default_config.yaml",
        ),
        Invalid(
            'dist:\n  backend: "NCCL"\n  dist_backend: nccl\ndevice: cuda:0 # first GPU\nother: cuda\n',
            expected='dist:\n  backend: "HCCL"\n  dist_backend: hccl\ndevice: npu:0 # first GPU\nother: cuda\n',
            count=3, kind="launcher", filename="conf/config.yml",
        ),
    ]

    def check(self, ctx):
        if not ctx.path.endswith((".yaml", ".yml")):
            return
        settings, families = config_settings()
        text = ctx.source
        wanted = [s for s in settings if _in_family(families[s.family], ctx.path, text)]
        if not wanted:
            return
        for number, line in enumerate(ctx.lines, 1):
            if line.lstrip().startswith("#"):
                continue
            match = _LINE.match(line.rstrip("\r\n"))
            if match is None:
                continue
            group = "qval" if match.group("q") else "val"
            key, value = match.group("key"), match.group(group)
            for setting in wanted:
                if _matches(setting, key, value):
                    yield self._finding(ctx, setting, key, value, number, match.start(group), match.end(group))
                    break

    def _finding(self, ctx, setting: ConfigSetting, key: str, value: str, line: int, start: int, end: int):
        new = _replacement(setting, value)
        span = (line, start, line, end)
        message = f"`{key}: {value}` selects {setting.why}; NPU: {setting.alternative}"
        if new is None:
            return self.finding(ctx, span, message, severity=setting.severity, fixable=False)
        return self.finding(ctx, span, message, severity=setting.severity, edits=[Edit(line, start, line, end, new)],
                            replacement=new)
