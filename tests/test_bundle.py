"""The baseline bundle (checks/validate/bundle.py) and the two-host comparison pieces (checks/validate/hosts.py)
without torch: bad bundles are one line and exit 2 with nothing written, the data fingerprint, the
config_check items expected across hardware, the loss tolerances' data file. The recorded runs
themselves are in tests/test_validate_two_hosts.py."""

from __future__ import annotations

import io
import json
import math
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from checks.validate import bundle as fmt
from checks.validate import hosts, loss_compare
from checks.validate.hosts import compare_data, expected_across_hardware, random_api_note, script_note
from checks.validate.msprobe_bridge import ConfigCheckResult, ConfigItem
from tests.helpers import invoke_cli

CASES = Path(__file__).resolve().parent / "validate_cases"
NPU = CASES / "train_npu.py"
STATS = [{"args": {"0": {"max": 4.1, "min": -3.2, "mean": 0.0132, "norm": 46.1}}, "kwargs": {}},
         {"args": {"0": {"max": 3.9, "min": -3.0, "mean": -0.021, "norm": 45.2}}, "kwargs": {}},
         {"args": {"0": {"max": 4.4, "min": -3.5, "mean": 0.007, "norm": 47.0}}, "kwargs": {}}]


def _bundle(folder: Path, losses=(1.0, 0.9, 0.8)) -> Path:
    """A bundle folder as `npu-migrate baseline` lays it out, manifest written by the real writer."""
    folder.mkdir(parents=True)
    (folder / fmt.SMOKE).write_text(json.dumps({"backend": "cuda-emulated", "exit_code": 0, "verdict": "pass",
                                                "losses": list(losses), "loss_dtype": "float32"}))
    (folder / fmt.PACK).write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    fingerprint = {"observed": True, "batches": {str(i): s for i, s in enumerate(STATS)}}
    (folder / fmt.FINGERPRINT).write_text(json.dumps(fingerprint))
    (folder / fmt.LOSSES).write_text("step,loss\n" + "".join(f"{i},{x}\n" for i, x in enumerate(losses, 1)))
    fmt.write_manifest(folder, {"script": {"name": "train_gpu.py", "path": str(CASES / "train_gpu.py"), "sha256": "0" * 64},
                                "backend": "cuda-emulated", "seed": 1234, "steps": len(losses), "args": [],
                                "device_generator": "own"})
    return folder


def _validate(bundle: Path, tmp_path: Path, *args: str):
    out = tmp_path / "out"
    proc = invoke_cli("validate", "--baseline", str(bundle), str(NPU), "--out", str(out), "-q", *args, cwd=tmp_path)
    return proc, out


def _refused(proc, out: Path, words: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err, proc.stdout.decode())
    assert words in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists(), "a refused bundle must leave nothing written"


def test_a_good_bundle_opens_folder_and_archive(tmp_path):
    folder = _bundle(tmp_path / "b")
    opened = fmt.open_bundle(folder, tmp_path / "work")
    assert opened.losses == (1.0, 0.9, 0.8) and opened.script_name == "train_gpu.py"
    archive = fmt.make_archive(folder, tmp_path / "b.tar.gz")
    unpacked = fmt.open_bundle(archive, tmp_path / "work2")
    assert unpacked.folder != folder and unpacked.manifest == opened.manifest
    assert not list(tmp_path.glob(".b.tar.gz.partial-*"))


def test_newer_schema_is_refused(tmp_path):
    folder = _bundle(tmp_path / "b")
    manifest = json.loads((folder / fmt.MANIFEST).read_text())
    (folder / fmt.MANIFEST).write_text(json.dumps({**manifest, "schema_version": fmt.SCHEMA_VERSION + 1}))
    _refused(*_validate(folder, tmp_path), f"schema version {fmt.SCHEMA_VERSION + 1}, newer than this npu-migrate reads")


@pytest.mark.parametrize("damage, words", [
    (lambda f: (f / fmt.LOSSES).write_text("step,loss\n1,1.5\n"), "losses.csv is corrupted"),
    (lambda f: (f / fmt.PACK).unlink(), "config_check_pack.zip is missing"),
    (lambda f: (f / fmt.MANIFEST).write_text("{not json"), "manifest.json is corrupted"),
    (lambda f: (f / fmt.MANIFEST).unlink(), "has no manifest.json"),
], ids=["checksum", "missing-file", "manifest-not-json", "no-manifest"])
def test_damaged_bundle_is_refused(tmp_path, damage, words):
    folder = _bundle(tmp_path / "b")
    damage(folder)
    _refused(*_validate(folder, tmp_path), words)


def _tar_with(path: Path, member: tarfile.TarInfo, data: bytes = b"x") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        tar.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return path


def test_archive_member_leaving_its_folder_is_refused(tmp_path):
    evil = tarfile.TarInfo("b/../../evil.txt")
    evil.size = 1
    _refused(*_validate(_tar_with(tmp_path / "evil.tar.gz", evil), tmp_path), "leaves the bundle folder")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path.parent / "evil.txt").exists()


def test_truncated_archive_is_refused(tmp_path):
    """A copy between hosts that stopped half-way: one line naming the archive, exit 2, nothing written."""
    archive = fmt.make_archive(_bundle(tmp_path / "b"), tmp_path / "b.tar.gz")
    data = archive.read_bytes()
    archive.write_bytes(data[:len(data) // 2])
    _refused(*_validate(archive, tmp_path), "is damaged")


def test_archive_link_member_is_refused(tmp_path):
    link = tarfile.TarInfo("b/manifest.json")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    _refused(*_validate(_tar_with(tmp_path / "link.tar.gz", link), tmp_path), "is a link or device")


def test_steps_beyond_the_recording_are_refused(tmp_path):
    _refused(*_validate(_bundle(tmp_path / "b"), tmp_path, "--steps", "5"), "--steps 5 cannot match the baseline bundle: it recorded 3 steps")


def test_options_the_bundle_fixes_are_refused(tmp_path):
    proc, out = _validate(_bundle(tmp_path / "b"), tmp_path, "--seed", "7")
    assert proc.returncode == 2 and "--seed come from the baseline bundle" in proc.stderr.decode()
    assert not out.exists()


def test_rank_counts_that_cannot_match_are_refused(tmp_path):
    """A bundle of one process against --nproc-per-node 2, and a 2-rank bundle against 3 ranks: one line, exit 2."""
    _refused(*_validate(_bundle(tmp_path / "b"), tmp_path, "--nproc-per-node", "2"),
             "--nproc-per-node 2 cannot match the baseline bundle")
    two = _bundle(tmp_path / "b2")
    manifest = json.loads((two / fmt.MANIFEST).read_text())
    (two / fmt.MANIFEST).write_text(json.dumps({**manifest, "launch": {"nproc_per_node": 2, "ranks": [0, 1]}}))
    _refused(*_validate(two, tmp_path, "--nproc-per-node", "3"), "it recorded 2 ranks")


def test_a_bundle_of_ranks_gives_each_ranks_losses(tmp_path):
    """`baseline --nproc-per-node N` records the job's smoke.json (one entry per rank): validate reads each rank's
    losses, cut to the compared steps, and the first rank's as the run's own (checks.validate.dist.compare_ranks)."""
    folder = _bundle(tmp_path / "b")
    job = {"backend": "cuda-emulated", "exit_code": 0, "verdict": "pass", "reasons": ["rank 1: slow"],
           "ranks": [{"rank": 0, "losses": [1.0, 0.9, 0.8], "loss_dtype": "float32"},
                     {"rank": 1, "losses": [1.1, 1.0, 0.7], "loss_dtype": "float32"}]}
    (folder / fmt.SMOKE).write_text(json.dumps(job))
    manifest = json.loads((folder / fmt.MANIFEST).read_text())
    fmt.write_manifest(folder, {**manifest, "launch": {"nproc_per_node": 2, "ranks": [0, 1]}})
    opened = fmt.open_bundle(folder, tmp_path / "work")
    run = opened.smoke(2)
    assert opened.nproc_per_node == 2 and opened.losses == (1.0, 0.9, 0.8)
    assert run.rank_ids == (0, 1) and [r.losses for r in run.ranks] == [(1.0, 0.9), (1.1, 1.0)]
    assert run.losses == (1.0, 0.9) and run.loss_dtype == "float32" and run.reasons == ("rank 1: slow",)


def test_the_migrated_run_starts_where_the_recorded_one_did(tmp_path):
    """The original recorded from its project root (`baseline projects/adder/adder.py`) ran there; on the other
    host the migrated copy OUT/projects/adder/adder.py runs in OUT, a script elsewhere below the working folder in
    the working folder; a bundle recorded in the script's own folder keeps the migrated script in its own."""
    from checks.validate.hosts import run_folders_against

    here = tmp_path / "host_b"
    recorded = fmt.Bundle(tmp_path, {"script": {"relative": "projects/adder/adder.py"}, "run_folder": "working folder"}, tmp_path)
    assert run_folders_against(recorded, here / "out" / "projects" / "adder" / "adder.py", here)["migrated"] == here / "out"
    assert run_folders_against(recorded, here / "npu" / "adder.py", here)["migrated"] == here
    assert run_folders_against(recorded, tmp_path / "elsewhere" / "adder.py", here)["migrated"] is None
    own = fmt.Bundle(tmp_path, {"script": {"relative": "projects/adder/adder.py"}, "run_folder": "script folder"}, tmp_path)
    assert run_folders_against(own, here / "out" / "projects" / "adder" / "adder.py", here)["migrated"] is None


def test_baseline_refuses_an_existing_bundle(tmp_path):
    existing = _bundle(tmp_path / "b")
    before = (existing / fmt.MANIFEST).read_text()
    proc = invoke_cli("baseline", str(CASES / "train_gpu.py"), "--out", str(existing), "-q", cwd=tmp_path)
    assert proc.returncode == 2 and "exists; choose another --out or pass --force" in proc.stderr.decode()
    assert (existing / fmt.MANIFEST).read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["b"], "no partial folder left behind"


def _fp(batches):
    return {"observed": True, "batches": {str(i): b for i, b in enumerate(batches)}}


def test_data_fingerprint_same_shuffled_and_different():
    assert compare_data(_fp(STATS), _fp(STATS), exact=True) is None
    shuffled = compare_data(_fp(STATS), _fp([STATS[1], STATS[0], STATS[2]]), exact=True)
    assert shuffled.startswith("data: shuffled data order") and "pack step 0" in shuffled
    other = [STATS[0], {"args": {"0": {**STATS[1]["args"]["0"], "mean": 0.5}}, "kwargs": {}}, STATS[2]]
    different = compare_data(_fp(STATS), _fp(other), exact=True)
    assert different.startswith("data: the batches differ") and "pack step 1" in different and "args.0.mean" in different
    # a last-bit difference of the statistics: the same batch on other hardware, a different one on the same CPU
    nudged = [{"args": {"0": {**STATS[0]["args"]["0"], "norm": 46.1 * (1 + 1e-7)}}, "kwargs": {}}, *STATS[1:]]
    assert compare_data(_fp(STATS), _fp(nudged), exact=False) is None
    assert compare_data(_fp(STATS), _fp(nudged), exact=True) is not None
    assert compare_data({"observed": False, "why": "no model"}, _fp(STATS), exact=True) is None


def test_a_pack_without_dataset_item_says_why_from_the_helpers_log(tmp_path):
    """A dataset item msprobe could not collect (it raised on a sparse adjacency matrix, tkipf/pygcn) is dropped
    by apply's helper and logged beside the pack: the fingerprint says that, not "no model was hooked"."""
    import zipfile
    pack = tmp_path / "config_check_pack.zip"
    with zipfile.ZipFile(pack, "w") as z:
        z.writestr("env/rank0/env.json", "{}")
    assert "hooked no model" in fmt.data_fingerprint(pack)["why"]
    pack.with_suffix(".log").write_text("[INFO] add env args to zip\nconfig_check: DatasetChecker.pack.<locals>.collect_input "
                                        "dropped, it raised NotImplementedError: Could not run 'aten::max' with arguments "
                                        "from the 'SparseCPU' backend.\n")
    why = fmt.data_fingerprint(pack)["why"]
    assert "could not measure the model's inputs" in why and "SparseCPU" in why and "hooked no model" not in why


def test_sample_digests_name_the_same_samples_in_another_order():
    """Per-sample digests of the DataLoader's batches: a shuffle of the same samples is named as such,
    a shuffle that brought other samples of the same data too (some recorded samples elsewhere), apart
    from other data; the same samples with other model inputs point at the preprocessing."""
    epoch = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    with_samples = lambda fp, samples: {**fp, "samples": samples}  # noqa: E731
    assert compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(STATS), epoch), exact=True) is None
    # the same six samples, another order; the model's input statistics differ per batch (other batches)
    other = [{"args": {"0": {**b["args"]["0"], "mean": b["args"]["0"]["mean"] + 1}}, "kwargs": {}} for b in STATS]
    reordered = compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(other), [["c2", "a1"], ["b2", "c1"], ["a2", "b1"]]),
                             exact=True)
    assert reordered.startswith("data: shuffled data order: the DataLoader gave the same 6 samples") and "from batch 1" in reordered
    # another shuffle of a larger dataset: some recorded samples come back at other positions
    partly = compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(other), [["a1", "x1"], ["y1", "c2"], ["z1", "z2"]]),
                          exact=False)
    assert partly.startswith("data: shuffled data order: the batches differ") and "2 of the 6 samples" in partly
    # other data: no recorded sample at all
    fresh = compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(other), [["x1", "x2"], ["y1", "y2"], ["z1", "z2"]]),
                         exact=True)
    assert fresh.startswith("data: the batches differ") and "none of the 6 samples" in fresh and "shuffled" not in fresh
    # without the model's statistics (ConfigChecker found no model) the samples still decide
    unobserved = {"observed": False, "why": "no model"}
    assert compare_data(with_samples(unobserved, epoch), with_samples(unobserved, epoch[::-1]), exact=True).startswith(
        "data: shuffled data order")
    # the recorded samples in the recorded order, other model inputs: the preprocessing changed
    preprocessing = compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(other), epoch), exact=True)
    assert "the DataLoader gave the recorded samples in the recorded order" in preprocessing and "pack step 0" in preprocessing
    # across hardware, other sample bytes alone (CPU transforms of another CPU) are not held against the run
    assert compare_data(with_samples(_fp(STATS), epoch), with_samples(_fp(STATS), [["x1", "x2"]] * 3), exact=False) is None


def test_a_later_input_the_program_computed_is_not_blamed_on_the_data_across_hardware():
    """Seen on an H200: DCGAN's discriminator gets the real batch first (the same on both hosts), then the generator's
    images (drawn from each device's generator): across hardware that is a note, not "the preprocessing differs";
    on one CPU, or when the first input differs already, the data is still named."""
    from checks.validate.hosts import later_input_difference

    epoch = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    with_samples = lambda fp: {**fp, "samples": epoch}  # noqa: E731
    generated = [STATS[0], {"args": {"0": {**STATS[1]["args"]["0"], "mean": 0.5}}, "kwargs": {}}, STATS[2]]
    recorded, now = with_samples(_fp(STATS), ), with_samples(_fp(generated))
    assert compare_data(recorded, now, exact=False) is None
    note = later_input_difference(recorded, now, exact=False)
    assert note.startswith("data: the DataLoader gave the recorded samples in the recorded order and the model's first "
                           "input matches") and "pack step 1" in note and "args.0.mean" in note
    assert "preprocessing" in compare_data(recorded, now, exact=True) and later_input_difference(recorded, now, exact=True) is None
    first = [{"args": {"0": {**STATS[0]["args"]["0"], "mean": 0.5}}, "kwargs": {}}, *STATS[1:]]
    assert "preprocessing" in compare_data(recorded, with_samples(_fp(first)), exact=False)
    assert later_input_difference(recorded, with_samples(_fp(first)), exact=False) is None
    assert later_input_difference(recorded, recorded, exact=False) is None


# Measured 2026-11-27: pytorch/examples@77f55b9 word_language_model (an LSTM; its detached hidden state (h, c) is the
# next forward's second input) recorded on an NVIDIA H200 (--strict-fp32), the migrated copy on the CPU stand-in: the
# msprobe dataset statistics of its first three forward calls (args.1 is all zeros at step 0: init_hidden)
_TOKENS = [{"max": 7737.0, "min": 0.0, "mean": 1367.6063232421875, "norm": 32440.798828125},
           {"max": 7739.0, "min": 0.0, "mean": 1280.675048828125, "norm": 31422.3671875},
           {"max": 7742.0, "min": 0.0, "mean": 1392.8875732421875, "norm": 32712.857421875}]
_ZERO = {"max": 0.0, "min": 0.0, "mean": 0.0, "norm": 0.0}


def _lstm_fp(means, tokens=_TOKENS, carried=True):
    """A data fingerprint of the LSTM's first three forward calls: the tokens, then (h, c) with the given h means."""
    def state(mean):
        return {"max": 0.1286, "min": -0.1374, "mean": mean, "norm": 1.7138} if mean else _ZERO
    batches = {str(i): {"args": {"0": tokens[i], "1": {"0": state(m), "1": state(m and 2 * m)}}, "kwargs": {}}
               for i, m in enumerate(means)}
    keys = {"1": ["args.1.0", "args.1.1"], "2": ["args.1.0", "args.1.1"]}
    return {"observed": True, "batches": batches, **({"carried": keys} if carried else {})}


def test_a_recurrent_state_the_model_carried_in_is_not_blamed_on_the_data():
    """Seen on an H200: word_language_model's (h, c), its own outputs of the previous forward passed back in, differ
    from pack step 1 as each device's numerics make them: a note naming them, not "the batches differ"; its tokens
    (args.0) still must match; a bundle that does not record the carried inputs (older) keeps every input as data."""
    from checks.validate.hosts import carried_input_difference, later_input_difference

    recorded, now = _lstm_fp([0.0, -0.006464916747063398, -0.005017882212996483]), _lstm_fp([0.0, -0.006441692356020212, -0.004957415163516998])
    for exact in (False, True):
        assert compare_data(recorded, now, exact=exact) is None
        note = carried_input_difference(recorded, now, exact=exact)
        assert note.startswith("data: args.1.0, args.1.1 (msprobe pack steps 1, 2): the model's own outputs of the previous "
                               "forward carried in (a recurrent state), follow each device's numerics"), note
        assert later_input_difference(recorded, now, exact=exact) is None
    assert carried_input_difference(recorded, recorded, exact=True) is None
    # other tokens at step 1: the data, whatever the state does
    tokens = [_TOKENS[0], {**_TOKENS[1], "mean": 1290.5}, _TOKENS[2]]
    wrong = compare_data(recorded, _lstm_fp([0.0, -0.0064, -0.005], tokens=tokens), exact=False)
    assert wrong.startswith("data: the batches differ from the recorded ones from msprobe pack step 1 (args.0.mean"), wrong
    # a recorded bundle without `carried` (an older npu-migrate): today's reading, and it says why
    older = compare_data(_lstm_fp(recorded_means := [0.0, -0.006464916747063398, -0.005], carried=False), now, exact=False)
    assert older.startswith("data: the batches differ from the recorded ones from msprobe pack step 1 (args.1.0.mean")
    assert "does not record which inputs were (written by an older npu-migrate)" in older, older
    assert carried_input_difference(_lstm_fp(recorded_means, carried=False), now, exact=False) is None
    # a state only one run carried in (the migrated script feeds a fresh tensor): read as data
    fresh = {**now, "carried": {}}
    assert compare_data(recorded, fresh, exact=False).startswith("data: the batches differ")


def test_the_config_check_dataset_row_leaves_out_the_carried_state():
    """The same H200 run's config_check dataset rows (step, input, relative differences of max, min, mean, norm): the
    tokens within the statistics tolerance (their min 0 in both packs reads as no difference, msprobe_bridge: the
    test below), (h, c) the model's own outputs carried in: a warning naming them."""
    rows = ((0, "args.0", 0.0, 0.0, 8.9e-08, 0.0), (1, "args.0", 0.0, 0.0, 0.0, 7.8e-08),
            (1, "args.1.0", 0.0024, 0.0031, 0.0036, 0.0042), (1, "args.1.1", 0.002, 0.003, 0.004, 0.005),
            (2, "args.1.0", 0.003, 0.004, 0.012, 0.005), (5, "args.1.1", 0.1, 0.1, 0.1, 0.1))
    config = ConfigCheckResult(None, (ConfigItem("dataset", "error", ("msprobe pack step 0: 1 inputs differ (args.0)",), 0, rows),))
    carried = (_lstm_fp([0.0, 1.0, 1.0]), _lstm_fp([0.0, 1.0, 1.0]))
    judged, notes = expected_across_hardware(config, same_hardware=False, fingerprints=carried)
    assert judged.item("dataset").status == "warning", notes
    assert any("less args.1.0, args.1.1: the model's own outputs of the previous forward carried in" in n for n in notes), notes
    # without them (an older bundle) the state's differences are held against the migration as today
    judged, _ = expected_across_hardware(config, same_hardware=False)
    assert judged.item("dataset").status == "error"
    # a token that differs beyond the tolerance still fails
    bad = ConfigCheckResult(None, (ConfigItem("dataset", "error", ("x",), 0, (*rows, (1, "args.0", 0.0, 0.0, 0.01, 0.0))),))
    assert expected_across_hardware(bad, same_hardware=False, fingerprints=carried)[0].item("dataset").status == "error"


def test_env_differences_are_expected_across_hardware_only():
    env = ConfigItem("env", "error", ("CUDA_VISIBLE_DEVICES=0 vs ASCEND_RT_VISIBLE_DEVICES=None (warning)",))
    pip = ConfigItem("pip", "error", ("numpy: baseline 1.26, migrated 2.0",))
    config = ConfigCheckResult(None, (env, pip))
    other, notes = expected_across_hardware(config, same_hardware=False, imported=({"numpy"}, {"numpy"}))
    assert other.item("env").status == "warning" and other.item("pip").status == "error"
    assert len(notes) == 1 and "expected across hardware" in notes[0] and "ASCEND_RT_VISIBLE_DEVICES" in notes[0]
    same, notes = expected_across_hardware(config, same_hardware=True)
    assert same.item("env").status == "error" and not notes


# Measured 2026-11-26: `npu-migrate baseline` on an NVIDIA H200 (torch 2.11.0+cu130) against `validate --baseline`
# on the CPU stand-in, result.xlsx of msprobe's config_check: (step, name, relative differences of max, min, mean,
# norm). timm train.py resnet18 (huggingface/pytorch-image-models@aa4b585), its inputs normalised on the device:
H200_DATASET = [(0, "args.0", 0.0, 0.0, -6.167667e-08, 5.602408e-05), (4, "args.0", 0.0, 0.0, 8.786266e-08, 9.122639e-05),
                (7, "args.0", 0.0, 0.0, -4.315689e-06, 2.267704e-05)]
# the MNIST fixture (fixtures/gpu_scripts/mnist_basic): weights before the first step, then after it (dropout on)
H200_WEIGHTS = [(0, "fc1.weight", 0.0, 0.0, -5.226783e-07, 1.067024e-05), (0, "conv1.bias", 0.0, 0.0, -7.778392e-08, 6.112697e-08),
                (1, "fc1.bias", 0.039767, -0.019423, 0.6313869, 0.04254879)]


def _statistics_config(dataset, weights):
    return ConfigCheckResult(None, (ConfigItem("dataset", "error", ("msprobe pack step 0: 1 inputs differ (args.0)",), 0, tuple(dataset)),
                                    ConfigItem("weights", "error", ("msprobe pack step 0: 2 tensors differ",), 0, tuple(weights))))


def test_statistics_of_the_same_tensors_on_another_device_are_expected_across_hardware():
    """max/min identical and mean/norm reduced in another order (the H200 measurement): a warning across
    hardware, with the largest differences; the weights after the first step follow the training numerics."""
    judged, notes = expected_across_hardware(_statistics_config(H200_DATASET, H200_WEIGHTS), same_hardware=False)
    assert judged.item("dataset").status == "warning" and judged.item("weights").status == "warning"
    assert any("config_check dataset" in n and "norm 5.6e-05" in n and "later inputs" in n for n in notes)
    assert any("config_check weights" in n and "before the first optimizer step (msprobe pack step 0)" in n
               and "losses judge" in n for n in notes)
    # on one CPU the same tensors give the same bits: any difference stays an error
    same, notes = expected_across_hardware(_statistics_config(H200_DATASET, H200_WEIGHTS), same_hardware=True)
    assert same.item("dataset").status == "error" and same.item("weights").status == "error" and not notes


@pytest.mark.parametrize("dataset, weights, failed", [
    # an element differs within the first forward calls (another normalisation, another crop)
    ([*H200_DATASET[:1], (2, "args.0", 2e-3, 0.0, 1e-7, 1e-6)], H200_WEIGHTS, "dataset"),
    # a mean beyond what a reduction order explains
    ([(0, "args.0", 0.0, 0.0, 4e-3, 1e-6)], H200_WEIGHTS, "dataset"),
    # other initial weights (another init or seed): step 0 beyond the tolerances
    (H200_DATASET, [(0, "fc1.weight", 0.02, 0.0, 0.1, 0.01), *H200_WEIGHTS[1:]], "weights"),
    # msprobe wrote no relative difference (a zero baseline value): not explained by hardware
    (H200_DATASET, [(0, "fc1.bias", None, 0.0, 0.0, 0.0)], "weights"),
])
def test_statistics_beyond_what_hardware_explains_stay_errors(dataset, weights, failed):
    judged, _ = expected_across_hardware(_statistics_config(dataset, weights), same_hardware=False)
    assert judged.item(failed).status == "error"
    assert {i.name for i in judged.items if i.status == "warning"} == {"dataset", "weights"} - {failed}


def test_model_inputs_reduced_on_another_device_match_the_recording():
    """The H200's fingerprint of timm's first batch against the stand-in's (norm 5.6e-5 apart, max/min the same)."""
    gpu = [{"args": {"0": {"max": 2.640000104904175, "mean": -0.24160127341747284, "min": -2.1179039478302,
                           "norm": 1011.0049438476562}}, "kwargs": {}}]
    standin = [{"args": {"0": {"max": 2.640000104904175, "mean": -0.24160128831863403, "min": -2.1179039478302,
                               "norm": 1010.9483032226562}}, "kwargs": {}}]
    assert compare_data(_fp(gpu), _fp(standin), exact=False) is None
    assert compare_data(_fp(gpu), _fp(standin), exact=True).startswith("data: the batches differ")
    moved = [{"args": {"0": {**standin[0]["args"]["0"], "max": 2.640000104904175 * (1 + 2e-3)}}, "kwargs": {}}]
    assert "args.0.max" in compare_data(_fp(gpu), _fp(moved), exact=False)


def test_differences_only_after_the_judged_window_follow_the_training_numerics():
    """Weights identical before the first step and apart after it, inputs apart only from the fourth forward:
    across hardware the losses judge those (the window counts from msprobe's pack step 0, not from the first
    difference)."""
    weights_later = [(1, "fc1.bias", 0.039767, -0.019423, 0.6313869, 0.04254879)]
    inputs_later = [(5, "args.0", 0.2, 0.2, 0.2, 0.2)]
    judged, notes = expected_across_hardware(_statistics_config(inputs_later, weights_later), same_hardware=False)
    assert judged.item("dataset").status == "warning" and judged.item("weights").status == "warning"
    assert any("(msprobe pack step 0) are identical; the weights of later steps" in n for n in notes)


def test_inputs_the_model_computes_itself_are_judged_on_the_first_forward_calls():
    """An ODE solver's states are the model's inputs (torchdiffeq's ode_demo.py on the H200 against the stand-in):
    the first forward calls agree within the tolerance, later ones follow the adaptive solver's own steps."""
    ode = [(0, "args.1", 4.597631e-07, 8.484504e-08, 6.5e-05, 2.390702e-07), (1, "args.0", 2.129061e-04, 2.129061e-04, 2.13e-04, 2.129061e-04),
           (8, "args.0", 1.792113e-01, 1.792113e-01, 0.179211, 1.792113e-01)]
    judged, notes = expected_across_hardware(_statistics_config(ode, H200_WEIGHTS), same_hardware=False)
    assert judged.item("dataset").status == "warning"
    assert any("first 3 forward calls" in n and "later inputs" in n for n in notes)


def test_a_random_api_diverging_across_hardware_is_explained():
    from checks.validate.msprobe_bridge import ApiDiff

    def diff(api, kind="output"):
        return ApiDiff(1, api, kind, f"{api}.output.0", 0.4, 0.5, False, "output 0 differs; its inputs were identical")

    dropout = random_api_note(diff("Functional.dropout.0.forward"))
    assert dropout.startswith("Functional.dropout.0.forward draws random numbers") and "--no-dropout" in dropout
    other = random_api_note(diff("Torch.randn_like.3.forward"))
    assert other and "--no-dropout" not in other and "on the CPU" in other
    assert random_api_note(diff("Functional.linear.0.forward")) is None
    assert random_api_note(diff("Functional.dropout.0.forward", kind="input")) is None  # the cause is earlier
    assert random_api_note(None) is None


def test_attention_drawing_through_its_dropout_p_is_a_random_api():
    """word_language_model `--model Transformer` on an H200 against the stand-in: nn.MultiheadAttention hands
    dropout_p=0.1 to multi_head_attention_forward (no F.dropout call), whose output differed with identical inputs.
    It draws only with dropout_p > 0 in training; a bundle recorded with it on and a run with it off differ in
    dropout_p itself (the argument row), which says the same."""
    from checks.validate.msprobe_bridge import ApiDiff

    def diff(api, arguments, kind="output", entry=None):
        return ApiDiff(1, api, kind, entry or f"{api}.output.0", 0.4, 0.5, False, "output 0 differs; its inputs were identical",
                       arguments=tuple(arguments.items()))

    mha = "Functional.multi_head_attention_forward.0.forward"
    note = random_api_note(diff(mha, {"3": 64, "10": 0.1, "training": True}))
    assert note.startswith(f"{mha} draws random numbers") and "dropout_p 0.1" in note and "--no-dropout" in note
    assert random_api_note(diff(mha, {"3": 64, "10": 0.0, "training": True})) is None
    assert random_api_note(diff(mha, {"10": 0.1, "training": False})) is None  # evaluation: no dropout
    sdpa = "Functional.scaled_dot_product_attention.2.forward"
    assert "dropout_p 0.2" in random_api_note(diff(sdpa, {"dropout_p": 0.2, "is_causal": True}))
    assert "dropout_p 0.2" in random_api_note(diff(sdpa, {"4": 0.2}))
    assert random_api_note(diff(sdpa, {"dropout_p": 0.0})) is None
    assert random_api_note(diff(sdpa, {})) is None  # torch's default dropout_p 0
    # recorded with dropout_p 0.1, run with 0: the argument differs first
    assert "dropout_p 0.1" in random_api_note(diff(mha, {"10": 0.1}, kind="argument", entry=f"{mha}.input.10"))
    assert random_api_note(diff(mha, {"10": 0.1}, kind="argument", entry=f"{mha}.input.4")) is None
    assert random_api_note(diff(mha, {"10": 0.0}, kind="argument", entry=f"{mha}.input.10")) is None


def test_the_arguments_of_a_dumped_call_are_its_scalars():
    from checks.validate.msprobe_bridge import dumped_arguments

    entry = {"input_args": [{"type": "torch.Tensor", "Max": 1.0}, {"type": "int", "value": 64}, {"type": "float", "value": 0.1}],
             "input_kwargs": {"training": {"type": "bool", "value": True}, "attn_mask": {"type": "torch.Tensor"}}}
    assert dumped_arguments(entry) == {"1": 64, "2": 0.1, "training": True}
    assert dumped_arguments(None) == {}


def test_a_bundle_recorded_without_a_config_check_pack_opens(tmp_path):
    """The original's model could not be hooked (instrument_message): the bundle has no pack and is still one."""
    folder = _bundle(tmp_path / "b")
    (folder / fmt.PACK).unlink()
    fingerprint = fmt.data_fingerprint(folder / fmt.PACK)
    assert not fingerprint["observed"] and fingerprint["why"].startswith("no config_check pack")
    fmt.write_manifest(folder, {"script": {"name": "train_gpu.py", "path": str(CASES / "train_gpu.py"), "sha256": "0" * 64},
                                "backend": "cuda", "seed": 1234, "steps": 3, "args": [], "config_check_hooks": False,
                                "config_check_pack": False})  # as checks/validate/record.py writes it
    assert fmt.open_bundle(folder, tmp_path / "work").losses == (1.0, 0.9, 0.8)


def test_script_sha256_difference_names_both(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("print('edited')\n")
    folder = tmp_path / "b"
    folder.mkdir()
    bundle = fmt.Bundle(folder, {"script": {"path": str(script), "relative": "train.py", "sha256": "ab" * 32}}, folder)
    note = script_note(bundle, tmp_path)
    assert note.startswith("warning:") and str(script) in note and "abababababab" in note
    assert fmt.sha256_file(script)[:12] in note
    same = fmt.Bundle(folder, {"script": {"path": str(script), "sha256": fmt.sha256_file(script)}}, folder)
    assert script_note(same, tmp_path) is None
    # validated from apply's output folder, the recorded relative path names the migrated script: not "edited"
    # (karpathy/makemore, a real H200 bundle compared in `apply . -o OUT`'s folder)
    assert script_note(bundle, tmp_path, Path("train.py")) is None
    assert script_note(bundle, tmp_path, script) is None


def test_loss_tolerances_come_from_the_data_file_with_a_source():
    data = loss_compare._tolerance_data()
    for dtype, entry in data["dtype"].items():
        assert entry["source"], dtype
        assert loss_compare.DEFAULT_TOLERANCES[dtype] == (entry["rtol"], entry["atol"])
        assert loss_compare.tolerances(dtype, exact=False)[:2] == (entry["rtol"], entry["atol"])
    assert loss_compare.tolerances("float32", exact=True)[:2] == (0.0, 0.0)
    assert "none published" in loss_compare.tolerance_source("bf16", exact=False)
    statistics = loss_compare._tolerance_data()["statistics"]
    assert statistics["source"] and hosts.STATISTICS_RTOL == statistics["rtol"]


def test_environment_snapshot_redacts_secrets():
    env = fmt.environment({"HF_TOKEN": "hf_abc", "AWS_SECRET_ACCESS_KEY": "k", "PATH": "/usr/bin"})
    assert env == {"AWS_SECRET_ACCESS_KEY": "<redacted>", "HF_TOKEN": "<redacted>", "PATH": "/usr/bin"}


def test_msprobe_rows_that_differ_carry_their_relative_differences():
    """The rows of result.xlsx's dataset/weights sheets as msprobe 26.2.0 writes them (columns read from the H200
    run's result.xlsx): unequal rows with their four relative differences, NaN read as unknown."""
    pd = pytest.importorskip("pandas")
    from checks.validate.msprobe_bridge import _differing_rows

    sheet = pd.DataFrame([
        {"step": 0, "rank": 0, "weight_name": "fc2.bias", "equal": True, "max_relative_diff": float("nan"),
         "min_relative_diff": float("nan"), "mean_relative_diff": float("nan"), "norm_relative_diff": float("nan")},
        {"step": 0, "rank": 0, "weight_name": "fc1.weight", "equal": False, "max_relative_diff": 0.0,
         "min_relative_diff": 0.0, "mean_relative_diff": -5.226783e-07, "norm_relative_diff": float("nan")},
    ])
    rows = sheet.to_dict("records")  # a sheet's rows as the summary takes them (msprobe_bridge._summarise_sheets)
    assert _differing_rows("weights", rows) == [[0, "fc1.weight", 0.0, 0.0, -5.226783e-07, None]]
    assert _differing_rows("pip", rows) == []


def _random_row(op, bench, cmp, bench_count, cmp_count, ok=False):
    join = "\n".join
    return {"op": op, "rank": 0, "bench_stack": join(bench) if bench else "no match stack",
            "cmp_stack": join(cmp) if cmp else "no match stack", "bench_count": bench_count, "cmp_count": cmp_count,
            "check_result": ok}


def test_random_calls_reached_through_other_library_internals_are_paired_by_their_last_frame():
    """Seen between an H200 host (Python 3.12, torch 2.11, torchvision 0.26) and this one: torchvision's FakeData
    draws torch.randn in __getitem__ 16 times in both runs, but the stacks above it differ in length, so msprobe
    (whole stacks of equal length) reports 16 calls in one run and 0 in the other, twice. Paired by the last
    frame (msprobe's own frame score); a call whose last frame or count differs stays a difference."""
    pytest.importorskip("msprobe")
    from checks.validate.msprobe_bridge import _summarise_sheets

    run = ["File /work/main/checks/child/bootstrap.py, line 300, in main, runpy.run_path(script, run_name=\"__main__\")"]
    gpu = [*run, "File /opt/torch/.venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py, line 741, in __next__, data = self._next_data()",
           "File /opt/torch/.venv/lib/python3.12/site-packages/torch/utils/data/_utils/fetch.py, line 52, in fetch, data = self.dataset.__getitems__(possibly_batched_index)",
           "File /opt/torch/.venv/lib/python3.12/site-packages/torchvision/datasets/fakedata.py, line 53, in __getitem__, img = torch.randn(*self.image_size)"]
    here = [*run, "File /work/main/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py, line 790, in __next__, data = self._next_data()",
            "File /work/main/.venv/lib/python3.11/site-packages/torchvision/datasets/fakedata.py, line 53, in __getitem__, img = torch.randn(*self.image_size)"]
    seed = "File /tmp/run/main.py, line 174, in <module>, torch.manual_seed(opt.manualSeed)"
    rows = [_random_row("torch.manual_seed", [*run, seed], [*run, seed], 1, 1, ok=True),
            _random_row("torch.randn", gpu, None, 16, 0), _random_row("torch.randn", None, here, 0, 16)]
    summary = {"summary": [{"filename": "random", "pass_check": "error"}], "random": rows}
    item = _summarise_sheets(summary)["items"][0]
    assert item["status"] == "pass", item
    assert item["details"] == ["1 call(s) paired by their last frame: the same call reached through other library "
                               "internals (msprobe pairs whole stacks of equal length only)"]
    # another count, or another call at the end: still a difference
    for changed in (_random_row("torch.randn", None, here, 0, 15),
                    _random_row("torch.randn", None, [*here[:-1], "File /tmp/run/main.py, line 230, in <module>, noise = torch.randn(b_size, nz, 1, 1, device=device)"], 0, 16)):
        item = _summarise_sheets({**summary, "random": [*rows[:2], changed]})["items"][0]
        assert item["status"] == "error" and len(item["details"]) == 2 and "16x in the baseline, 0x" in item["details"][0], item


def test_validate_against_a_bundle_recorded_without_dropout_removes_it_too(tmp_path, monkeypatch):
    """`baseline --no-dropout` is recorded; validate --baseline gives the migrated run the same setting."""
    from checks.validate import baseline as against

    seen = {}
    monkeypatch.setattr(against, "run_validate", lambda *a, **kw: seen.update(kw) or "ran")
    folder = _bundle(tmp_path / "b")
    manifest = json.loads((folder / fmt.MANIFEST).read_text())
    fmt.write_manifest(folder, {k: v for k, v in manifest.items() if k not in ("files", "schema_version")} | {"dropout": "removed"})
    assert against.run_validate_baseline(folder, NPU, migrated_env={"A": "1"}) == "ran"
    assert seen["migrated_env"] == {"A": "1", hosts.NO_DROPOUT_ENV: "1"}
    assert any("dropout removed" in n for n in seen["notes"])
    fmt.write_manifest(folder, {k: v for k, v in manifest.items() if k not in ("files", "schema_version")})
    seen.clear()
    against.run_validate_baseline(folder, NPU)
    assert hosts.NO_DROPOUT_ENV not in (seen.get("migrated_env") or {})
    # --strict-fp32 recorded: HF32 off here too; a real-GPU recording without it: the notes say TF32 may drift
    plain = {k: v for k, v in manifest.items() if k not in ("files", "schema_version")}
    fmt.write_manifest(folder, plain | {"fp32": "strict", "backend": "cuda"})
    seen.clear()
    against.run_validate_baseline(folder, NPU)
    assert seen["migrated_env"] == {hosts.STRICT_FP32_ENV: "1"} and not any("TF32 may" in n or "drift" in n for n in seen["notes"])
    fmt.write_manifest(folder, plain | {"fp32": "device default", "backend": "cuda"})
    seen.clear()
    against.run_validate_baseline(folder, NPU)
    assert hosts.STRICT_FP32_ENV not in (seen.get("migrated_env") or {})
    assert any("TF32" in n and "--strict-fp32" in n for n in seen["notes"])


def test_the_migrated_run_draws_on_the_device_as_the_recorded_original_did(tmp_path, monkeypatch):
    """The emulated device has a random generator of its own (checks/emulation/devicemap.device_generator), as a
    real GPU has. An original run on the plain CPU, or a bundle recorded on the twin before that generator existed
    (no `device_generator` in its manifest), drew device numbers from the CPU stream: the migrated run gets the
    shared generator then, and only then."""
    from checks.launch.child_config import SHARED_GENERATOR_ENV
    from checks.validate import baseline as against

    seen = {}
    monkeypatch.setattr(against, "run_validate", lambda *a, **kw: seen.update(kw) or "ran")
    folder = _bundle(tmp_path / "b")
    plain = {k: v for k, v in json.loads((folder / fmt.MANIFEST).read_text()).items()
             if k not in ("files", "schema_version", "device_generator")}
    for backend, generator, shared in (("cpu", "own", True), ("cuda-emulated", None, True), ("cuda-emulated", "own", False),
                                       ("cuda", None, False), ("cuda", "own", False)):
        fmt.write_manifest(folder, plain | {"backend": backend} | ({"device_generator": generator} if generator else {}))
        seen.clear()
        against.run_validate_baseline(folder, NPU)
        assert ((seen.get("migrated_env") or {}).get(SHARED_GENERATOR_ENV) == "1") is shared, (backend, generator, seen)
        assert any("before the emulated device had a random generator" in n for n in seen["notes"]) is (
            shared and backend != "cpu"), seen["notes"]


def test_validate_says_when_the_recorded_script_turned_tf32_on_itself(tmp_path, monkeypatch):
    """The switches as the recorded run left them (manifest fp32_effective): nanoGPT's train.py sets
    torch.backends.cuda.matmul.allow_tf32 = True after --strict-fp32 turned it off (seen on an H200: SDPA's output
    differed with identical inputs at step 1). validate --baseline says the baseline used TF32 after all, instead of
    "float32 in full precision ... as TF32 was on the GPU"; on the CUDA twin (CPU) the switches change nothing."""
    from checks.validate import baseline as against

    seen = {}
    monkeypatch.setattr(against, "run_validate", lambda *a, **kw: seen.update(kw) or "ran")
    folder = _bundle(tmp_path / "b")
    plain = {k: v for k, v in json.loads((folder / fmt.MANIFEST).read_text()).items() if k not in ("files", "schema_version")}
    on = {"cuda_matmul_allow_tf32": True, "cudnn_allow_tf32": True, "float32_matmul_precision": "high"}
    fmt.write_manifest(folder, plain | {"fp32": "strict", "backend": "cuda", "fp32_effective": on})
    against.run_validate_baseline(folder, NPU)
    note = next(n for n in seen["notes"] if "TF32" in n)
    assert "turned TF32 on itself" in note and "torch.backends.cuda.matmul.allow_tf32 = True" in note, note
    assert not any("as TF32 was on the GPU" in n for n in seen["notes"])
    assert seen["migrated_env"] == {hosts.STRICT_FP32_ENV: "1"}
    # strict, and the run left TF32 off: the plain note
    seen.clear()
    fmt.write_manifest(folder, plain | {"fp32": "strict", "backend": "cuda",
                                        "fp32_effective": {**on, "cuda_matmul_allow_tf32": False, "cudnn_allow_tf32": False}})
    against.run_validate_baseline(folder, NPU)
    assert any("as TF32 was on the GPU" in n for n in seen["notes"]) and not any("itself" in n for n in seen["notes"])
    # no --strict-fp32, the script set matmul TF32 on: named, not the generic "may use TF32"
    seen.clear()
    fmt.write_manifest(folder, plain | {"fp32": "device default", "backend": "cuda",
                                        "fp32_effective": {**on, "cudnn_allow_tf32": False}})
    against.run_validate_baseline(folder, NPU)
    note = next(n for n in seen["notes"] if "TF32" in n)
    assert "ran with TF32 on (torch.backends.cuda.matmul.allow_tf32 = True" in note and "cudnn" not in note, note
    # the CUDA twin computes on the CPU: TF32 switches mean nothing there
    seen.clear()
    fmt.write_manifest(folder, plain | {"fp32": "strict", "backend": "cuda-emulated", "fp32_effective": on})
    against.run_validate_baseline(folder, NPU)
    assert not any("itself" in n or "ran with TF32" in n for n in seen["notes"])
    assert hosts.tf32_in_use(None) == () and hosts.tf32_in_use({"cudnn_allow_tf32": False}) == ()


def test_validate_against_a_schema_1_bundle_dumps_the_packs_statistics_as_it_did(tmp_path, monkeypatch):
    """A schema-1 bundle's API dump holds the config_check pack's own statistics numbered among the script's calls:
    validate --baseline has the migrated run dump them too (the child's switch, tests/test_validate_two_hosts.py),
    and says so; a schema-2 bundle (the pack's statistics left out of the dump) does not. A newer schema: exit 2."""
    from checks.validate import baseline as against

    seen = {}
    monkeypatch.setattr(against, "run_validate", lambda *a, **kw: seen.update(kw) or "ran")
    folder = _bundle(tmp_path / "b")
    plain = {k: v for k, v in json.loads((folder / fmt.MANIFEST).read_text()).items() if k not in ("files", "schema_version")}
    against.run_validate_baseline(folder, NPU)
    assert hosts.PACK_STATS_DUMPED_ENV not in (seen.get("migrated_env") or {})
    assert not any(n.startswith("bundle schema") for n in seen["notes"])
    manifest = json.loads((folder / fmt.MANIFEST).read_text())
    (folder / fmt.MANIFEST).write_text(json.dumps({**manifest, "schema_version": 1}))  # as npu-migrate wrote it before
    seen.clear()
    assert against.run_validate_baseline(folder, NPU, migrated_env={"A": "1"}) == "ran"
    assert seen["migrated_env"] == {"A": "1", hosts.PACK_STATS_DUMPED_ENV: "1"}
    assert any(n.startswith("bundle schema 1: its API dump holds the config_check pack's own statistics") for n in seen["notes"])
    fmt.write_manifest(folder, plain | {"pack_statistics_in_dump": False})
    assert json.loads((folder / fmt.MANIFEST).read_text())["schema_version"] == 2 == fmt.SCHEMA_VERSION
    seen.clear()
    against.run_validate_baseline(folder, NPU)
    assert hosts.PACK_STATS_DUMPED_ENV not in (seen.get("migrated_env") or {})


def test_the_recordings_progress_lines_are_the_baseline_commands(tmp_path, monkeypatch):
    """`npu-migrate baseline` shares validate's run of a side (run_side); its progress line must not read
    "validate: ...". The real run_side (its training child stubbed), stopped where it copies the script: missing."""
    from checks.validate import run as validate_run
    from checks.validate.log import SplitLog
    from checks.validate.record import record_run
    from checks.validate.run import run_side

    monkeypatch.setattr(validate_run, "_smoke", lambda *a, **kw: None)
    lines = []
    log = SplitLog(tmp_path / "record.log", None)
    try:
        for heading in ("baseline: recording the original", None):
            ran = record_run(tmp_path / "missing.py", tmp_path / "b", tmp_path / "w", backend="cpu", steps=1, dump_steps=0,
                             common={"script_args": {"baseline": ()}}, env={}, notes=[], say=lines.append, stream=log,
                             run_side=run_side, heading=heading)
            assert isinstance(ran, str)
    finally:
        log.close()
    assert lines[0].startswith("baseline: recording the original (missing.py, backend cpu")
    assert lines[1].startswith("validate: running the baseline (missing.py")


# validate --baseline of nanoGPT (char, dropout 0.2) on the CPU stand-in against an NVIDIA H200 recording, 2026-11-27:
# config_check pip failed the run on transformers and peft, installed on the GPU host only and never imported
H200_PIP = ConfigItem("pip", "error", ("transformers: baseline 5.17.0, migrated None", "numpy: baseline 2.5.2, migrated 2.4.6",
                                       "peft: baseline 0.21.0, migrated None", "torch: baseline 2.11.0, migrated 2.14.1"))
RUN_IMPORTS = frozenset({"builtins", "numpy", "torch", "pickle", "msprobe"})


def test_a_pip_difference_in_a_package_neither_run_imported_is_a_note_across_hardware():
    judged, notes = expected_across_hardware(ConfigCheckResult(None, (H200_PIP,)), same_hardware=False,
                                             imported=(RUN_IMPORTS, RUN_IMPORTS | {"torch_npu"}))
    pip = judged.item("pip")
    assert pip.status == "error" and [d.partition(":")[0] for d in pip.details] == ["numpy", "torch"]
    assert notes == ["config_check pip: transformers: baseline 5.17.0, migrated None; peft: baseline 0.21.0, migrated "
                     "None: not imported by either run, not held against the migration"]
    # one run imported it: held
    judged, _ = expected_across_hardware(ConfigCheckResult(None, (H200_PIP,)), same_hardware=False,
                                         imported=(RUN_IMPORTS | {"peft"}, RUN_IMPORTS))
    assert [d.partition(":")[0] for d in judged.item("pip").details] == ["numpy", "peft", "torch"]
    # only unimported packages differ: a warning
    only = ConfigItem("pip", "error", (H200_PIP.details[0], H200_PIP.details[2]))
    judged, notes = expected_across_hardware(ConfigCheckResult(None, (only,)), same_hardware=False,
                                             imported=(RUN_IMPORTS, RUN_IMPORTS))
    assert judged.item("pip").status == "warning" and not judged.failed and "not imported by either run" in notes[0]
    # on one host every difference stays (the same interpreter: none expected)
    same, notes = expected_across_hardware(ConfigCheckResult(None, (H200_PIP,)), same_hardware=True,
                                           imported=(RUN_IMPORTS, RUN_IMPORTS))
    assert same.item("pip") == H200_PIP and not notes


def test_a_bundle_without_imported_modules_keeps_every_pip_difference_and_says_why():
    for imported in (None, (None, RUN_IMPORTS)):
        judged, notes = expected_across_hardware(ConfigCheckResult(None, (H200_PIP,)), same_hardware=False,
                                                 imported=imported)
        assert judged.item("pip") == H200_PIP
        assert len(notes) == 1 and "does not record which modules its run imported" in notes[0]
    assert hosts.imported_modules(SimpleNamespace(losses=(1.0,))) is None  # an older bundle's smoke.json
    recorded = SimpleNamespace(losses=(1.0,), ranks=({"imported_modules": ["torch"]}, {"imported_modules": ["numpy"]}))
    assert hosts.imported_modules(recorded) == {"torch", "numpy"}
    assert hosts.imported_modules(SimpleNamespace(imported_modules=("torch",))) == {"torch"}


def test_distribution_import_names_come_from_this_hosts_metadata_else_the_normalised_name(monkeypatch):
    from checks.validate import pip_imports

    assert pip_imports.import_names("PyYAML") >= {"yaml"}  # installed here: top_level.txt, not the name
    assert pip_imports.not_imported(["PyYAML"], {"yaml"}) == []
    assert pip_imports.import_names("No-Such.Dist-46") == {"no_such_dist_46"}
    assert pip_imports.not_imported(["No-Such.Dist-46"], {"no_such_dist_46"}) == []
    # installed here but its metadata names no module: unsure, so held against the run
    monkeypatch.setattr(pip_imports, "_modules_by_distribution", lambda: {})
    assert pip_imports.import_names("PyYAML") is None and pip_imports.not_imported(["PyYAML"], set()) == []


def _dumped_bundle(folder: Path, dropout: str = "as written") -> fmt.Bundle:
    """A bundle's msprobe dump as `baseline --dump-steps 2` writes it: one dump.json per step and process."""
    def call(p, training):
        return {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32"}, {"type": "float", "value": p},
                               {"type": "bool", "value": training}, {"type": "bool", "value": False}], "input_kwargs": {}}

    steps = {0: {"Tensor.normal_.0.forward": {}, "Functional.dropout.0.forward": call(0.2, False),  # an eval pass
                 "Functional.dropout.1.forward": call(0.2, True), "Functional.dropout.2.forward": call(0.0, True),
                 "Functional.dropout.1.backward": {}, "Functional.linear.0.forward": {}},
             1: {"Functional.dropout.0.forward": call(0.2, True), "Functional.dropout.1.forward": {"input_args": [{}],
                 "input_kwargs": {"p": {"type": "float", "value": 0.1}}}}}
    for step, data in steps.items():
        path = folder / "dump" / f"step{step}" / "proc11" / "dump.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"task": "statistics", "data": data}))
    return fmt.Bundle(folder, {"dropout": dropout, "dump_steps": [0, 1]}, folder)


def test_losses_within_tolerance_with_other_dropout_masks_say_so(tmp_path):
    bundle = _dumped_bundle(tmp_path / "b")
    assert hosts.recorded_random_calls(bundle.path("dump")) == {"Tensor.normal_": {0: 1}, "Functional.dropout": {0: 1, 1: 2}}
    passed = SimpleNamespace(first_divergence=None, rows=(1, 2))
    note = hosts.dropout_as_written_note(bundle, passed)
    assert note.startswith("dropout: the recorded run drew dropout masks in its dumped steps (Functional.dropout: 1 forward "
                           "call(s) in dumped step 1, 2 forward call(s) in dumped step 2)")
    assert "other masks" in note and "within the tolerance" in note and "`npu-migrate baseline --no-dropout`" in note
    assert "normal_" not in note
    assert hosts.dropout_as_written_note(bundle, SimpleNamespace(first_divergence=1, rows=(1, 2))) is None
    removed = _dumped_bundle(tmp_path / "r", dropout="removed")
    assert hosts.dropout_as_written_note(removed, passed) is None
    assert hosts.dropout_as_written_note(fmt.Bundle(tmp_path, {"dropout": "as written"}, tmp_path), passed) is None


def test_losses_within_tolerance_with_attention_dropout_name_the_attention(tmp_path):
    """nn.MultiheadAttention applies its dropout through multi_head_attention_forward's dropout_p (position 10,
    `training` by keyword): the note names it with the calls that drew (dropout_p > 0 in training)."""
    def mha(p, training=True):
        return {"input_args": [{"type": "torch.Tensor"}] * 3 + [{"type": "int", "value": 16}] + [{"type": "float", "value": p}
                if i == 10 else {"type": "int", "value": 2} for i in range(4, 11)],
                "input_kwargs": {"training": {"type": "bool", "value": training}}}

    path = tmp_path / "b" / "dump" / "step0" / "proc11" / "dump.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"data": {"Functional.multi_head_attention_forward.0.forward": mha(0.1),
                                         "Functional.multi_head_attention_forward.1.forward": mha(0.1, training=False),
                                         "Functional.scaled_dot_product_attention.0.forward": {
                                             "input_args": [{}] * 3, "input_kwargs": {"dropout_p": {"value": 0.0}}}}}))
    bundle = fmt.Bundle(tmp_path / "b", {"dropout": "as written", "dump_steps": [0]}, tmp_path / "b")
    assert hosts.recorded_random_calls(bundle.path("dump")) == {"Functional.multi_head_attention_forward": {0: 1}}
    note = hosts.dropout_as_written_note(bundle, SimpleNamespace(first_divergence=None, rows=(1,)))
    assert "Functional.multi_head_attention_forward: 1 forward call(s) in dumped step 1" in note
    assert "attention's dropout_p included" in note


def test_the_child_report_keeps_the_modules_the_run_imported():
    from checks.child.recorder import top_level_modules
    from checks.launch.report import ChildReport

    names = top_level_modules()
    assert "json" in names and "checks" in names and not any("." in n for n in names)
    report = ChildReport("finished", imported_modules=names)
    assert ChildReport.from_json(json.loads(json.dumps(report.to_json()))).imported_modules == names


def test_a_zero_statistic_in_both_packs_is_no_difference_and_a_zero_against_a_value_is_one(tmp_path):
    """msprobe 26.2.0 divides by the baseline's statistic and writes no relative difference where it is 0. Found on
    an H200 (pytorch/examples' word language model): token ids (min 0) whose mean, computed on the GPU, was a unit in
    the last place off the stand-in's held the dataset item as an error across hardware. The two packs decide."""
    pytest.importorskip("msprobe")
    from checks.validate import hosts
    from checks.validate.msprobe_bridge import ConfigItem, _config_compare

    def pack(path, mean, bias_min):
        with zipfile.ZipFile(path, "w") as z:
            tokens = {"max": 7737.0, "min": 0.0, "mean": mean, "norm": 32440.8}
            zero_state = {"max": 0.0, "min": 0.0, "mean": 0.0, "norm": 0.0}
            z.writestr("dataset/step0/rank0/dataset.json", json.dumps({"args": {"0": tokens, "1": {"0": zero_state}},
                                                                        "kwargs": {}}))
            z.writestr("weights/step0/rank0/weights.json",
                       json.dumps({"fc.bias": {"max": 0.1, "min": bias_min, "mean": 0.01, "norm": 0.3}}))
        return str(path)

    gpu = pack(tmp_path / "gpu.zip", 1367.6063232421875, 0.0)
    here = pack(tmp_path / "here.zip", 1367.606201171875, 0.0)
    (tmp_path / "out").mkdir()
    items = {i["name"]: i for i in _config_compare(gpu, here, str(tmp_path / "out"))["items"]}
    assert items["dataset"]["differing"] == [[0, "args.0", 0.0, 0.0, pytest.approx(8.9e-08, rel=0.01), 0.0]]
    dataset = ConfigItem("dataset", "error", ("step 0",), 0, tuple(tuple(r) for r in items["dataset"]["differing"]))
    judged, note = hosts._statistics_item(dataset)
    assert judged.status == "warning" and "statistics computed on another device" in note

    moved = pack(tmp_path / "moved.zip", 1367.606201171875, 0.5)  # the bias's min 0 became 0.5: a real difference
    items = {i["name"]: i for i in _config_compare(gpu, moved, str(tmp_path / "out"))["items"]}
    assert items["weights"]["differing"] == [[0, "fc.bias", 0.0, math.inf, 0.0, 0.0]]
    weights = ConfigItem("weights", "error", ("step 0",), 0, tuple(tuple(r) for r in items["weights"]["differing"]))
    assert hosts._statistics_item(weights)[0].status == "error"


def _dump_note(tmp_path, manifest: dict, step_source: str = "optimizer", needed=(1, 2)) -> str:
    from checks.validate.run import _recorded_dump

    (tmp_path / "smoke.json").write_text(json.dumps({"step_source": step_source}))
    notes: list[str] = []
    assert _recorded_dump(fmt.Bundle(tmp_path, manifest, tmp_path), needed, notes) == (None, ())
    return notes[0]


def test_a_dump_lacking_the_steps_asked_for_says_what_happened_not_record_again_with_them(tmp_path):
    """`--dump-steps N` gives N folders unless the run ended first: a dump holding fewer than the recording asked for
    gets no advice to record again with that N. A bundle recorded before the dump followed a loop's backward()-counted
    steps (pytorch/examples' word_language_model on an H200: one folder for --dump-steps 3) says that instead."""
    few = _dump_note(tmp_path, {"dump_steps": [0, 1], "dump_steps_requested": [0, 1]}, needed=(4, 5))
    assert few.endswith("(record with `npu-migrate baseline --dump-steps 6`)"), few
    ended = _dump_note(tmp_path, {"dump_steps": [0], "dump_steps_requested": [0, 1, 2], "recorded_steps": 1})
    assert ended.endswith("needs step(s) 2, 3 (the recording asked for steps 1-3 (`--dump-steps 3`): the recorded run "
                          "ended after step 1)"), ended
    lost = _dump_note(tmp_path, {"dump_steps": [0], "dump_steps_requested": [0, 1, 2], "recorded_steps": 10})
    assert "the original ran them, but its dump holds fewer steps" in lost and "npu-migrate baseline" not in lost, lost
    old = _dump_note(tmp_path, {"dump_steps": [0], "recorded_steps": 10}, step_source="backward")
    assert ("holds dumps of steps 1-1, the comparison needs step(s) 2, 3 (the loop has no optimizer (its steps counted by "
            "backward()) and the npu-migrate that recorded it cut the dump at optimizer steps only") in old, old
    assert _dump_note(tmp_path, {"dump_steps": [0]}).endswith("(record with `npu-migrate baseline --dump-steps 3`)")


def test_the_baseline_help_names_the_pack_steps_default_the_recording_uses():
    """`baseline --pack-steps` documents its default in the help text (migrate/ does not import checks/ for it):
    the number there is the one the recording applies (checks/validate/hosts.py PACK_STEPS)."""
    text = " ".join(invoke_cli("baseline", "--help").stdout.decode().split())
    assert f"(default {hosts.PACK_STEPS}, at least the data fingerprint's {fmt.FINGERPRINT_BATCHES};" in text
