from migrate import knowledge
from migrate.findings import Category, Edit, Severity
from migrate.rules._env import hits
from migrate.rules._text import word_pattern
from migrate.rules.base import Invalid, Rule, Valid

_NAME = "CUDA_VISIBLE_DEVICES"
_PATTERN = word_pattern([_NAME])


class CudaVisibleDevices(Rule):
    """`CUDA_VISIBLE_DEVICES` selects GPUs; the Ascend runtime reads its own variable (the
    replacement comes from the knowledge base's env_vars table: `ASCEND_RT_VISIBLE_DEVICES`).
    Setting only the CUDA name silently exposes every NPU to every process. Flagged and rewritten
    in Python (`os.environ["..."]`, `.get`, `os.getenv`, `setdefault`, `env={...}` dicts,
    `os.environ.update(CUDA_VISIBLE_DEVICES=...)`, command strings like `"CUDA_VISIBLE_DEVICES=0
    python ..."`) and in launchers (`export CUDA_VISIBLE_DEVICES=0,1`, `CUDA_VISIBLE_DEVICES=0
    python ...`, `$CUDA_VISIBLE_DEVICES`, YAML `CUDA_VISIBLE_DEVICES: "0"` / `- name:
    CUDA_VISIBLE_DEVICES`). Only the name is replaced; the value keeps its meaning. Comments,
    docstrings, log messages and echo text (except `$CUDA_VISIBLE_DEVICES` expansions) are left
    alone."""

    CODE = "NPU701"
    NAME = "cuda-visible-devices"
    CATEGORY = Category.ENVIRONMENT
    SEVERITY = Severity.WARNING
    FIXABLE = True
    KINDS = ("python", "launcher")
    MESSAGE = "`CUDA_VISIBLE_DEVICES` is ignored on an Ascend host"
    TRIGGERS = (_NAME,)
    VALID = [
        '"""Set CUDA_VISIBLE_DEVICES before running."""',
        'logger.info("CUDA_VISIBLE_DEVICES is not set")',
        'p.add_argument("--gpus", help="like CUDA_VISIBLE_DEVICES")',
        'import os\nos.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0"',
        Valid("# export CUDA_VISIBLE_DEVICES=0\nexport ASCEND_RT_VISIBLE_DEVICES=0\n", kind="launcher"),
        Valid('echo "remember to set CUDA_VISIBLE_DEVICES"\n', kind="launcher"),
    ]
    INVALID = [
        Invalid(
            'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"',
            expected='import os\nos.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0,1"',
        ),
        Invalid(
            "import os\ngpus = os.environ.get('CUDA_VISIBLE_DEVICES', '0')",
            expected="import os\ngpus = os.environ.get('ASCEND_RT_VISIBLE_DEVICES', '0')",
        ),
        Invalid(
            'import os\nos.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")\nx = os.getenv("CUDA_VISIBLE_DEVICES")',
            expected='import os\nos.environ.setdefault("ASCEND_RT_VISIBLE_DEVICES", "0")\nx = os.getenv("ASCEND_RT_VISIBLE_DEVICES")',
            count=2,
        ),
        Invalid(
            'import subprocess\nsubprocess.run(cmd, env={**os.environ, "CUDA_VISIBLE_DEVICES": str(rank)})',
            expected='import subprocess\nsubprocess.run(cmd, env={**os.environ, "ASCEND_RT_VISIBLE_DEVICES": str(rank)})',
        ),
        Invalid(
            "import os\nos.environ.update(CUDA_VISIBLE_DEVICES='0')",
            expected="import os\nos.environ.update(ASCEND_RT_VISIBLE_DEVICES='0')",
        ),
        Invalid(
            'import os\nos.system("CUDA_VISIBLE_DEVICES=0 python train.py")',
            expected='import os\nos.system("ASCEND_RT_VISIBLE_DEVICES=0 python train.py")',
        ),
        Invalid(
            "export CUDA_VISIBLE_DEVICES=0,1\n",
            expected="export ASCEND_RT_VISIBLE_DEVICES=0,1\n",
            kind="launcher",
        ),
        Invalid(
            'CUDA_VISIBLE_DEVICES=0 python train.py  # one GPU\necho "GPUs: $CUDA_VISIBLE_DEVICES"\n',
            expected='ASCEND_RT_VISIBLE_DEVICES=0 python train.py  # one GPU\necho "GPUs: $ASCEND_RT_VISIBLE_DEVICES"\n',
            kind="launcher",
            count=2,
        ),
        Invalid(
            'env:\n  - name: CUDA_VISIBLE_DEVICES\n    value: "0"\n  CUDA_VISIBLE_DEVICES: "1"\n',
            expected='env:\n  - name: ASCEND_RT_VISIBLE_DEVICES\n    value: "0"\n  ASCEND_RT_VISIBLE_DEVICES: "1"\n',
            kind="launcher",
            filename="job.yaml",
        ),
    ]

    def check(self, ctx):
        entry = knowledge.env_vars().get(_NAME)
        npu = entry.npu if entry is not None else None
        for hit in hits(ctx, _PATTERN):
            if npu:
                yield self.finding(
                    ctx, hit.span, f"{self.MESSAGE}; use `{npu}`",
                    edits=[Edit(hit.line, hit.column, hit.line, hit.end_column, npu)], replacement=npu,
                )
            else:
                yield self.finding(ctx, hit.span, f"{self.MESSAGE}; the knowledge base has no NPU counterpart")
