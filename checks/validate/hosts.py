"""Two hosts: what `validate --baseline BUNDLE` compares beyond a same-host validate. Pure, no torch.

- the data fingerprint first: the first batches the migrated script's model saw against the recorded
  ones, and the samples of the first DataLoader batches (a digest per sample): the same samples in
  another order are named as shuffled data order, apart from other data;
- config_check differences expected across hardware (the env item: CUDA/NCCL against Ascend/HCCL
  settings) kept apart from real risks;
- the recorded original against the file at the recorded path on this host (sha256), when present.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from checks.validate import loss_compare, msprobe_bridge, pip_imports
from checks.validate.bundle import FINGERPRINT_BATCHES, Bundle, sha256_file

# msprobe's statistics of the same tensors computed on two devices (loss_tolerances.toml [statistics]: a project
# default measured on an H200 against the stand-in); on the CPU emulations both sides are the same bits: exact
STATISTICS_RTOL = float(loss_compare._tolerance_data()["statistics"]["rtol"])


def _numbers(stats) -> list[tuple[str, float]]:
    out = []

    def walk(prefix, value):
        if isinstance(value, dict):
            for k in sorted(value):
                walk(f"{prefix}.{k}" if prefix else str(k), value[k])
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(f"{prefix}.{i}", v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((prefix, float(value)))
        else:
            out.append((prefix, value))

    walk("", stats)
    return out


def _same(a, b, rtol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))
    return a == b


def _batch_differs(recorded, now, exact: bool, carried=frozenset()) -> str | None:
    """Why two batches' statistics differ, None when they match; the inputs in `carried` (the model's own outputs of
    its previous forward, carried_inputs) are left out."""
    left, right = ({k: v for k, v in _numbers(side) if k.rpartition(".")[0] not in carried} for side in (recorded, now))
    if left.keys() != right.keys():
        return f"inputs {sorted(left)} recorded, {sorted(right)} now"
    for key in left:
        if not _same(left[key], right[key], 0.0 if exact else STATISTICS_RTOL):
            return f"{key} {left[key]!r} recorded, {right[key]!r} now"
    return None


def compare_data(recorded: dict, now: dict, *, exact: bool) -> str | None:
    """None when the first batches match; else one reason: 'shuffled data order' when the same samples
    came in another order (per-sample digests of the DataLoader's batches, `samples`; or, without them,
    the same per-batch statistics in another order), else the first batch that differs and why."""
    carried = carried_inputs(recorded, now)
    stats = _stats_difference(recorded, now, exact, carried) if recorded.get("observed") and now.get("observed") else None
    seen = _samples(recorded.get("samples"), now.get("samples"))
    shuffle_hint = "check the sampler/shuffle seed and the DataLoader's generator"
    cannot = "the losses below cannot be compared until the data matches"
    if seen is not None and seen.kind == "reordered":
        return (f"data: shuffled data order: the DataLoader gave the same {seen.count} samples as recorded in its first "
                f"{seen.batches} batches, in another order (from batch {seen.first + 1}); {shuffle_hint}")
    if seen is not None and seen.kind == "overlap":
        return (f"data: shuffled data order: the batches differ from the recorded ones from batch {seen.first + 1}, but "
                f"{seen.common} of the {seen.count} samples the DataLoader gave in its first {seen.batches} batches are "
                f"recorded samples at other positions: the same data in another sampling order; {shuffle_hint}")
    if stats is None:
        if seen is not None and seen.kind == "different" and exact:
            return (f"data: the batches differ from the recorded ones from batch {seen.first + 1}: none of the "
                    f"{seen.count} samples the DataLoader gave in its first {seen.batches} batches is a recorded one "
                    f"(different data or preprocessing); {cannot}")
        return None  # across hardware, sample bytes alone are not held against the run when the model's inputs match
    step, why, permuted, compared = stats
    if later_input_difference(recorded, now, exact=exact, stats=stats, seen=seen) is not None:
        return None  # a later input the program computed itself: a note, not the data (later_input_difference)
    if seen is not None and seen.kind == "same":
        return (f"data: the DataLoader gave the recorded samples in the recorded order, but the model's inputs differ "
                f"from msprobe pack step {step} ({why}): the preprocessing between the data loader and the model "
                f"differs; {cannot}")
    if permuted:
        return (f"data: shuffled data order: the first {compared} batches are the recorded ones in another order "
                f"(from msprobe pack step {step}); {shuffle_hint}")
    if seen is not None and seen.kind == "different":
        what = (f"none of the {seen.count} samples the DataLoader gave in its first {seen.batches} batches is a "
                "recorded one: different data or preprocessing")
    else:
        what = "different data, preprocessing, or sampling order (a shuffle that changed)"
    older = ""
    if "carried" not in recorded and (now.get("carried") or {}).get(str(step)):
        older = (f" ({', '.join(now['carried'][str(step)])} were the model's own outputs of its previous forward in this "
                 "run; the baseline bundle does not record which inputs were (written by an older npu-migrate): every "
                 "input is read as data; record it again)")
    return f"data: the batches differ from the recorded ones from msprobe pack step {step} ({why}){older}: {what}; {cannot}"


def carried_inputs(recorded: dict, now: dict) -> dict[str, frozenset[str]]:
    """Per msprobe pack step, the model's inputs that both runs fed back from the model's own outputs of its previous
    forward (the fingerprints' `carried`, checks/child/loop_observer.py watch_carried_inputs: an LSTM's detached (h, c)
    passed back in): computed state that follows each device's numerics, not data. {} when the recorded bundle does not
    say (written by an older npu-migrate): every input is then read as data."""
    left, right = recorded.get("carried"), now.get("carried")
    if not isinstance(left, dict) or not isinstance(right, dict):
        return {}
    both = {step: frozenset(keys) & frozenset(right.get(step) or ()) for step, keys in left.items()}
    return {step: keys for step, keys in both.items() if keys}


def carried_input_difference(recorded: dict, now: dict, *, exact: bool) -> str | None:
    """The note for inputs that differ only where they are the model's own outputs of its previous forward carried in
    (carried_inputs): found on an H200, pytorch/examples' word_language_model (an LSTM whose detached hidden state is
    the next batch's second input) was reported as "different data" from pack step 1. None when they match."""
    carried = carried_inputs(recorded, now)
    if not carried or not (recorded.get("observed") and now.get("observed")):
        return None
    rec, cur = recorded["batches"], now["batches"]
    differ = [s for s in sorted(carried, key=int) if s in rec and s in cur and _batch_differs(rec[s], cur[s], exact)]
    if not differ:
        return None
    keys = sorted(set().union(*(carried[s] for s in differ)))
    return (f"data: {', '.join(keys)} (msprobe pack step{'s' if len(differ) > 1 else ''} {', '.join(differ)}): the model's "
            "own outputs of the previous forward carried in (a recurrent state), follow each device's numerics, which the "
            "losses judge; the data inputs match")


def later_input_difference(recorded: dict, now: dict, *, exact: bool, stats=None, seen=None) -> str | None:
    """Across hardware, the DataLoader gave the recorded samples in the recorded order and the model's first input
    matched, but a later input differs: the program computed it (a GAN's discriminator fed the generator's images, an
    ODE solver's states), so it follows each device's numerics and the data is not to blame. The note saying so, else
    None. Found on an H200: pytorch/examples' DCGAN, whose second discriminator input is the generator's output, was
    reported as "the preprocessing between the data loader and the model differs"."""
    if exact or not (recorded.get("observed") and now.get("observed")):
        return None
    stats = stats if stats is not None else _stats_difference(recorded, now, exact, carried_inputs(recorded, now))
    seen = seen if seen is not None else _samples(recorded.get("samples"), now.get("samples"))
    if stats is None or seen is None or seen.kind != "same":
        return None
    step, why, _, _ = stats
    first = min((s for s in recorded["batches"] if s in now["batches"]), key=int)
    if str(step) == str(first):
        return None
    return (f"data: the DataLoader gave the recorded samples in the recorded order and the model's first input matches; "
            f"its input at msprobe pack step {step} differs ({why}): an input the program computed itself (a generator's "
            "output, a solver's state) follows each device's numerics, which the losses judge")


def _stats_difference(recorded: dict, now: dict, exact: bool, carried=None) -> tuple[str, str, bool, int] | None:
    """The msprobe statistics of the first batches, the carried inputs of each step left out (carried_inputs): None
    when they match, else (first differing pack step, why, whether they are the recorded batches in another order,
    batches compared)."""
    rec, cur, carried = recorded["batches"], now["batches"], carried or {}
    steps = [s for s in sorted(rec, key=int) if s in cur]
    first = next(((s, why) for s in steps
                  if (why := _batch_differs(rec[s], cur[s], exact, carried.get(s, frozenset()))) is not None), None)
    if first is None:
        return None
    anywhere = frozenset().union(*carried.values())
    return first[0], first[1], _permutation([rec[s] for s in steps], [cur[s] for s in steps], exact, anywhere), len(steps)


@dataclass(frozen=True)
class SampleMatch:
    kind: str  # same / reordered (the same samples, another order) / overlap (some recorded samples, elsewhere) / different
    batches: int  # batches compared (the shorter of the two windows)
    count: int  # samples in them (this run's)
    common: int  # distinct samples of this run that are recorded ones
    first: int  # 0-based index of the first batch that differs (0 when the same)


def _samples(recorded, now) -> SampleMatch | None:
    """The per-sample digests of the first DataLoader batches of the two runs, compared."""
    if not recorded or not now:
        return None
    batches = min(len(recorded), len(now))
    rec, cur = [list(b) for b in recorded[:batches]], [list(b) for b in now[:batches]]
    count = sum(len(b) for b in cur)
    if rec == cur:
        return SampleMatch("same", batches, count, count, 0)
    first = next(i for i in range(batches) if rec[i] != cur[i])
    left, right = Counter(x for b in rec for x in b), Counter(x for b in cur for x in b)
    if left == right:
        return SampleMatch("reordered", batches, count, count, first)
    common = len(set(left) & set(right))
    return SampleMatch("overlap" if common else "different", batches, count, common, first)


def _permutation(recorded: list, now: list, exact: bool, carried=frozenset()) -> bool:
    """The same batches, each matched once, in another order."""
    remaining = list(now)
    for batch in recorded:
        match = next((i for i, other in enumerate(remaining) if _batch_differs(batch, other, exact, carried) is None), None)
        if match is None:
            return False
        remaining.pop(match)
    return True


def _beyond_hardware(rows) -> list:
    """The differing dataset/weights rows (step, name, relative differences of max, min, mean, norm)
    whose statistics differ by more than computing them on another device explains."""
    return [row for row in rows
            if any(d is None or not math.isfinite(d) or abs(d) > STATISTICS_RTOL for d in row[2:6])]


def _largest(rows) -> str:
    return ", ".join(f"{k} {max((abs(r[2 + i]) for r in rows if r[2 + i] is not None), default=0.0):.2g}"
                     for i, k in enumerate(("max", "min", "mean", "norm")))


def _statistics_item(item: msprobe_bridge.ConfigItem, fingerprints=None) -> tuple[msprobe_bridge.ConfigItem, str | None]:
    """dataset: the model's inputs of the fingerprint's first pack steps, less those the model carried in from its
    previous forward (`fingerprints`: the recorded and the migrated data fingerprint, carried_inputs: a recurrent
    state; a statistic 0 in both packs comes as no difference, msprobe_bridge._ZeroStatistics); weights: those before the first
    optimizer step (the first pack step). Later inputs can be the model's own outputs (a solver's states,
    generated samples) and later weights follow the training numerics: the losses judge those. Within the
    statistics tolerance they are the same tensors computed on another device: a warning, not an error."""
    rows = list(item.differing)
    if item.status != "error" or not rows:
        return item, None
    window = FINGERPRINT_BATCHES if item.name == "dataset" else 1  # msprobe's pack steps count from 0
    carried = carried_inputs(*fingerprints) if item.name == "dataset" and fingerprints else {}
    state = [r for r in rows if r[0] < window and r[1] in carried.get(str(r[0]), ())]
    judged = [r for r in rows if r[0] < window and r not in state]
    if _beyond_hardware(judged):
        return item, None
    what = (f"the model's inputs of its first {window} forward calls" if item.name == "dataset"
            else "the weights before the first optimizer step (msprobe pack step 0)")
    how = (f"differ only as statistics computed on another device do (largest relative differences: {_largest(judged)}; "
           f"tolerance {STATISTICS_RTOL:g}, migrate/knowledge/loss_tolerances.toml [statistics])" if judged else "are identical")
    subject = "later inputs (which can be the model's own outputs)" if item.name == "dataset" else "the weights of later steps"
    later = "" if len(judged) + len(state) == len(rows) else f"; {subject} follow each device's training numerics, which the losses judge"
    if state:
        what += f" (less {', '.join(sorted({r[1] for r in state}))}: the model's own outputs of the previous forward carried in (a recurrent state), which follow each device's numerics)"
    note = f"config_check {item.name}: {what} {how}{later}: not held against the migration"
    return replace(item, status="warning"), note


def _pip_item(item: msprobe_bridge.ConfigItem, imported) -> tuple[msprobe_bridge.ConfigItem, str | None]:
    """Across hardware the two hosts have other software installed: a differing package that neither run imported
    (`imported`: the top-level module names of the baseline's and the migrated run's sys.modules, None for a run that
    did not record them) is a note, not held against the migration; the packages either run imported stay the
    failure. Found on an H200: nanoGPT's pip item failed on transformers and peft, which it never imports."""
    if item.status != "error" or not item.details:
        return item, None
    if imported is None or any(names is None for names in imported):
        return item, ("config_check pip: every differing package is held against the migration: the baseline bundle "
                      "does not record which modules its run imported (written by an older npu-migrate; record it "
                      "again to leave out the packages neither run imported)")
    packages = [d.partition(": ")[0] for d in item.details]
    unused = set(pip_imports.not_imported(packages, *(frozenset(names) for names in imported)))
    if not unused:
        return item, None
    kept = tuple(d for d, name in zip(item.details, packages) if name not in unused)
    note = ("config_check pip: " + "; ".join(d for d, name in zip(item.details, packages) if name in unused)
            + ": not imported by either run, not held against the migration")
    return replace(item, status="error" if kept else "warning", details=kept or item.details), note


def imported_modules(smoke) -> frozenset[str] | None:
    """The top-level modules a run imported (its smoke result's `imported_modules`; for a run of N ranks, those of
    every rank), None when the run did not record them (a bundle written by an older npu-migrate)."""
    names = getattr(smoke, "imported_modules", None)
    if names:
        return frozenset(names)
    ranks = getattr(smoke, "ranks", None)
    if ranks and all(_rank_modules(r) for r in ranks):
        return frozenset().union(*(_rank_modules(r) for r in ranks))
    return None


def _rank_modules(rank) -> tuple[str, ...]:
    return tuple((rank.get("imported_modules") if isinstance(rank, dict) else getattr(rank, "imported_modules", None)) or ())


def expected_across_hardware(config: msprobe_bridge.ConfigCheckResult | None, *, same_hardware: bool,
                             imported=None, fingerprints=None) -> tuple[msprobe_bridge.ConfigCheckResult | None, list[str]]:
    """On different hardware the env item compares CUDA/NCCL settings against Ascend/HCCL ones, and the
    dataset and weights statistics are reduced by other devices: differences there that hardware
    explains are expected, shown as a warning with their entries, not a failed check. The pip item keeps
    the packages either run imported (`imported`: the two runs' top-level module names, _pip_item); the dataset
    item leaves out the inputs both runs carried in from the model's previous forward (`fingerprints`: the recorded
    and the migrated data fingerprint, carried_inputs)."""
    if same_hardware or config is None or config.error is not None:
        return config, []
    notes, items = [], []
    for item in config.items:
        if item.name == "pip":
            item, note = _pip_item(item, imported)
            if note:
                notes.append(note)
        elif item.name == "env" and item.status == "error":
            notes.append("config_check env: differs as expected across hardware (CUDA/NCCL against Ascend/HCCL "
                         "settings), not held against the migration; review: " + ("; ".join(item.details) or "msprobe's env table (validate --xlsx writes it to config_check/result.xlsx)"))
            item = replace(item, status="warning")
        elif item.name in ("dataset", "weights"):
            item, note = _statistics_item(item, fingerprints)
            if note:
                notes.append(note)
        items.append(item)
    return replace(config, items=tuple(items)), notes


# An msprobe dump row's API that draws random numbers (msprobe names: Functional./Torch./Tensor. + the
# torch name): seeded alike, the generators of two devices still give other draws.
# The attention APIs draw through their dropout_p (ATTENTION_DROPOUT_P), only with dropout_p > 0 in training (_draws).
_RANDOM_API = re.compile(r"^(?:Functional|Torch|Tensor|Aten)\.(?P<op>(?:feature_)?(?:alpha_)?dropout(?:[123]d)?|"
                         r"bernoulli_?|rand|randn|randint|randperm|rand_like|randn_like|randint_like|multinomial|"
                         r"normal_?|uniform_|exponential_|geometric_|cauchy_|log_normal_|random_|"
                         r"scaled_dot_product_attention|multi_head_attention_forward|"
                         r"_scaled_dot_product_(?:flash|efficient)_attention)\.\d+\.(?:forward|backward)$")
# an attention API's dropout_p: (its position in torch's signature, the position of `training` or None: a function
# without one draws whenever dropout_p > 0); torch.nn.functional's two are the ones `--no-dropout` zeroes
# (checks/validate/child.py ATTENTION_DROPOUT_P)
ATTENTION_DROPOUT_P = {"scaled_dot_product_attention": (4, None), "multi_head_attention_forward": (10, 13),
                       "_scaled_dot_product_flash_attention": (3, None), "_scaled_dot_product_efficient_attention": (5, None)}

# `npu-migrate baseline --no-dropout`: the child sets every dropout's probability to 0 with msprobe's
# remove_dropout (checks/validate/child.py); the bundle records it and validate --baseline does the same.
NO_DROPOUT_ENV = "NPU_MIGRATE_NO_DROPOUT"
# `npu-migrate baseline --strict-fp32`: TF32 (GPU) and HF32 (NPU) off in the child (checks/validate/child.py)
STRICT_FP32_ENV = "NPU_MIGRATE_STRICT_FP32"
# the float32 precision switches as the run left them (a script may set TF32 on itself after --strict-fp32 turned it
# off): the child writes them to this path once its report is written (checks/validate/child.py), the bundle records
# them (manifest "fp32_effective") and validate --baseline says what the recorded run really computed with
PRECISION_FLAGS_ENV = "NPU_MIGRATE_PRECISION_FLAGS"
# validate --baseline of a schema-1 bundle: its dump holds the config_check pack's own statistics (Tensor.max/min/
# mean/norm of the inputs and weights before every forward), numbered among the script's calls; the migrated run's
# dump keeps them too so that both number the same calls alike (checks/validate/child.py; schema 2 leaves them out)
PACK_STATS_DUMPED_ENV = "NPU_VALIDATE_PACK_STATS_DUMPED"
# The config_check pack's per-forward items (msprobe's dataset and weights checkers: max, min, mean and norm of every
# input and every parameter before each forward of the hooked model) are collected for the first PACK_STEPS forwards
# of a recording, and of the migrated run compared with it (the bundle says how many: manifest "pack_steps"; the
# child stops collecting after them, checks/validate/child.py). msprobe itself collects them at every forward: three
# passes over every parameter and four host reads each, every step, which made a recording of a 9M-parameter MLP
# 15% slower per step on the CPU (bench/two_hosts_bench.py) for items that repeat what the losses of every step and
# the API dump of the first steps already compare. `npu-migrate baseline --pack-steps 0` keeps msprobe's every-forward
# packs. Never fewer than the data fingerprint's FINGERPRINT_BATCHES (checks/validate/bundle.py), read from them.
PACK_STEPS_ENV = "NPU_VALIDATE_PACK_STEPS"
PACK_STEPS = 5


def tf32_in_use(flags: dict | None) -> tuple[str, ...]:
    """The TF32 switches a run left on (manifest "fp32_effective", checks/validate/child.precision_flags): empty
    when none was on or they were not read."""
    if not flags:
        return ()
    names = {"cuda_matmul_allow_tf32": "torch.backends.cuda.matmul.allow_tf32 = True",
             "cudnn_allow_tf32": "torch.backends.cudnn.allow_tf32 = True"}
    return tuple(text for key, text in names.items() if flags.get(key) is True)


def random_api_note(first) -> str | None:
    """Across hardware, the first diverging API draws random numbers and its inputs were identical: the
    devices' generators, not the migration, made the difference; say what to do. An attention API draws only with
    dropout_p > 0 in training (its recorded arguments, ApiDiff.arguments); one whose dropout_p is the argument that
    differs, > 0 as recorded, was recorded with its dropout on (an npu-migrate whose --no-dropout left attention's on)."""
    if first is None or first.kind not in ("output", "argument"):
        return None
    match = _RANDOM_API.match(getattr(first, "api", "") or "")
    if match is None:
        return None
    op, arguments = match["op"], dict(getattr(first, "arguments", ()) or ())
    if first.kind == "argument":
        position = ATTENTION_DROPOUT_P.get(op, (None,))[0]
        if position is None or first.entry.rsplit(".", 1)[-1] not in (str(position), "dropout_p") or not _draws(op, arguments):
            return None
    elif not _draws(op, arguments):
        return None
    if "dropout" in op or op in ATTENTION_DROPOUT_P:
        what = f"its dropout_p {_dropout_p(op, arguments)} in training" if op in ATTENTION_DROPOUT_P else "its dropout"
        fix = (f"{what} was on in the recorded run: record again with `npu-migrate baseline --no-dropout` (every "
               "dropout's probability 0 on both sides, attention's dropout_p included, as msprobe's "
               "seed_all(rm_dropout=True) does for a precision comparison) to compare the rest")
    else:
        fix = "draw such random tensors on the CPU and move them to the device, in both scripts, to compare across hardware"
    return (f"{first.api} draws random numbers: seeded alike, the generators of different devices (CUDA's, the NPU's, "
            f"the CPU's) give other draws, so its output differs across hardware even when the migration is right; {fix}")


def recorded_random_calls(dump_folder: Path) -> dict[str, dict[int, int]]:
    """The bundle's msprobe dump read cheaply (the keys of each step's dump.json, no compare): per API that draws
    random numbers (`Functional.dropout`, _RANDOM_API; an attention API with dropout_p > 0 in training), the forward
    calls of each dumped step (0-based)."""
    import json

    calls: dict[str, dict[int, int]] = {}
    for path in sorted(Path(dump_folder).glob("step*/*/dump.json")):
        step = path.parent.parent.name.removeprefix("step")
        try:
            data = json.loads(path.read_text(encoding="utf-8")).get("data") or {}
        except (OSError, ValueError, AttributeError):
            continue
        for name, entry in data.items():
            match = _RANDOM_API.match(name)
            if match and name.endswith(".forward") and step.isdigit() and _draws(match["op"], msprobe_bridge.dumped_arguments(entry)):
                api = name.split(".", 1)[0] + "." + match["op"]
                per_step = calls.setdefault(api, {})
                per_step[int(step)] = per_step.get(int(step), 0) + 1
    return calls


def _dropout_p(op: str, arguments: dict):
    position, _ = ATTENTION_DROPOUT_P[op]
    return arguments.get("dropout_p", arguments.get(str(position), 0.0))


def _draws(op: str, arguments: dict) -> bool:
    """A dumped call drew random numbers (`arguments`: msprobe_bridge.dumped_arguments): a dropout only in training with p > 0
    (dropout(input, p, training, ...); an evaluation pass calls it with training False and draws nothing), an
    attention API only with dropout_p > 0 (in training, where it takes the argument); any other random API always."""
    if op in ATTENTION_DROPOUT_P:
        training_at = ATTENTION_DROPOUT_P[op][1]
        training = True if training_at is None else arguments.get("training", arguments.get(str(training_at), True))
        return bool(training) and (_dropout_p(op, arguments) or 0) != 0
    if "dropout" not in op:
        return True
    return bool(arguments.get("training", arguments.get("2", True))) and arguments.get("p", arguments.get("1", 0.5)) != 0


def dropout_as_written_note(bundle: Bundle, alignment) -> str | None:
    """Across hardware, the losses agreed within the tolerance although the recorded run drew dropout masks in its
    dumped steps (the bundle's dump names dropout APIs, manifest dropout "as written"): the two devices' generators
    give other masks, so the comparison is looser than it looks; say so and how to tighten it. Found on an H200:
    nanoGPT with dropout 0.2 in bf16 passed at max rel 0.0163 (rtol 0.02) with other masks on each side."""
    if bundle.manifest.get("dropout") != "as written" or alignment is None or alignment.first_divergence is not None:
        return None
    if not alignment.rows or not bundle.manifest.get("dump_steps") or not bundle.path("dump").is_dir():
        return None
    calls = {api: steps for api, steps in recorded_random_calls(bundle.path("dump")).items()
             if "dropout" in api or api.split(".", 1)[-1] in ATTENTION_DROPOUT_P}
    if not calls:
        return None
    what = "; ".join(f"{api}: " + ", ".join(f"{n} forward call(s) in dumped step {step + 1}" for step, n in sorted(steps.items()))
                     for api, steps in sorted(calls.items()))
    return (f"dropout: the recorded run drew dropout masks in its dumped steps ({what}); seeded alike, the generators of "
            "the two devices give other masks, and the losses agreed within the tolerance anyway: record with "
            "`npu-migrate baseline --no-dropout` (every dropout's probability 0 on both sides, attention's dropout_p "
            "included) for a tighter comparison")


def attention_dropout_recorded_note(bundle: Bundle) -> str | None:
    """A bundle recorded with `--no-dropout` whose dump shows attention calls with dropout_p > 0 in training: recorded
    by an npu-migrate whose --no-dropout zeroed F.dropout only (msprobe's remove_dropout), so its run drew attention
    dropout masks that this run does not draw. Found on an H200: word_language_model `--model Transformer`
    (nn.MultiheadAttention, dropout_p 0.1), first diverging API multi_head_attention_forward with identical inputs."""
    if bundle.manifest.get("dropout") != "removed" or not bundle.manifest.get("dump_steps") or not bundle.path("dump").is_dir():
        return None
    calls = {api: steps for api, steps in recorded_random_calls(bundle.path("dump")).items()
             if api.split(".", 1)[-1] in ATTENTION_DROPOUT_P}
    if not calls:
        return None
    what = "; ".join(f"{api}: " + ", ".join(f"{n} forward call(s) in dumped step {step + 1}" for step, n in sorted(steps.items()))
                     for api, steps in sorted(calls.items()))
    return (f"dropout: the bundle was recorded with `--no-dropout`, but its attention kept its dropout_p > 0 in training "
            f"({what}: an npu-migrate whose --no-dropout zeroed F.dropout only): the recorded run drew attention dropout "
            "masks from the GPU's generator, this run draws none, so the two differ from the first step whatever the "
            "migration; record again with this npu-migrate's `baseline --no-dropout` (every dropout's probability 0, "
            "attention's dropout_p included)")


def script_note(bundle: Bundle, cwd: Path, migrated: Path | None = None) -> str | None:
    """A warning when the original at the recorded path on this host is not the recorded file. The migrated script
    itself is not the original: validated from apply's output folder, the recorded relative path names it."""
    script = bundle.manifest.get("script") or {}
    recorded = script.get("sha256")
    for candidate in (script.get("relative"), script.get("path")):
        if not candidate:
            continue
        path = (cwd / candidate) if not Path(candidate).is_absolute() else Path(candidate)
        if migrated is not None and path.is_file() and path.resolve() == Path(cwd, migrated).resolve():
            continue
        if path.is_file():
            now = sha256_file(path)
            if now != recorded:
                return (f"warning: the original {path} on this host (sha256 {now[:12]}) is not the file the baseline "
                        f"recorded ({script.get('path')}, sha256 {str(recorded)[:12]}): was it edited after recording?")
            return None
    return None



def run_folders_against(bundle: Bundle, migrated: Path, cwd: Path) -> dict[str, Path | None]:
    """The working folder of the migrated run against a bundle (checks.validate.copies.run_folders for two
    hosts): a bundle whose original ran in the recording host's working folder, the script at `relative`
    below it (manifest `run_folder`), places the recorded script at that path below this host's working
    folder, so the migrated script runs in the folder at the same place above it when its folders repeat
    the recorded ones (`apply . -o OUT`), else here in the working folder when it is below it. A bundle
    recorded in the script's own folder (or by an older npu-migrate): the migrated script's own folder."""
    from checks.validate.copies import run_folders

    script = bundle.manifest.get("script") or {}
    if bundle.manifest.get("run_folder") != "working folder" or not script.get("relative"):
        return {"baseline": None, "migrated": None}
    return {**run_folders(Path(cwd) / script["relative"], Path(migrated), Path(cwd)), "baseline": None}
