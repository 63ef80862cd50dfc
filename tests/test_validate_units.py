"""validate's pure parts: tolerances, loss alignment, the hook insertion and line map, the reading of
msprobe compare rows. No torch, no child processes."""

from __future__ import annotations

import ast
import csv
import json
import math
import sys
from pathlib import Path

import pytest

from checks.validate import loss_compare
from checks.validate.copies import HOOK_MARK, header_end, insert_hook, line_map
from checks.validate.msprobe_bridge import first_divergence, row_difference, user_frames

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gpu_scripts"


def test_exact_tolerance_when_both_runs_on_cpu():
    rtol, atol, why = loss_compare.tolerances("torch.bfloat16", exact=True)
    assert (rtol, atol) == (0.0, 0.0)
    assert "equivalence" in why


@pytest.mark.parametrize("dtype, looser_than", [("torch.bfloat16", "float32"), ("torch.float16", "float32"), ("bf16", "float16")])
def test_half_precision_tolerances_are_looser(dtype, looser_than):
    r, a, _ = loss_compare.tolerances(dtype, exact=False)
    r32, a32, _ = loss_compare.tolerances(looser_than, exact=False)
    assert r > r32 and a >= a32


def test_losses_of_an_amp_run_are_judged_at_the_precision_its_autocast_regions_computed_in():
    """Seen on an H200: Pytorch-UNet --amp (float16 autocast, float32 loss) drifted from the stand-in by 1.07e-3 at
    step 9 and failed the float32 default; the network computed in float16, so float16's tolerance judges."""
    device = (("device", "float16", 20),)
    off = (("off", "float16", 20),)
    assert loss_compare.compute_dtype("float32", device, off) == (
        "float16", "the runs computed in float16 autocast regions (the loss itself is float32)")
    assert loss_compare.compute_dtype("torch.float32", (), off)[0] == "float16"  # a recording without the count
    assert loss_compare.compute_dtype("float32", (("device", "bfloat16", 3),), off)[0] == "bfloat16"  # the lowest
    assert loss_compare.compute_dtype("float32", (), ()) == ("float32", "")
    assert loss_compare.compute_dtype("float32", (("float32", "float16", 9),), ())[0] == "float32"  # regions disabled
    assert loss_compare.compute_dtype("bfloat16", off)[0] == "bfloat16"  # a bfloat16 loss stays the looser
    assert loss_compare.compute_dtype(None, (("device", "float16", 0),))[0] == "float32"  # no region entered


def test_user_tolerances_override_defaults():
    r, a, why = loss_compare.tolerances("float32", exact=True, rtol=0.5, atol=None)
    assert (r, a) == (0.5, 0.0)
    assert "--rtol" in why


def test_alignment_identical_and_divergent():
    same = loss_compare.align_losses([1.0, 0.5, 0.25], [1.0, 0.5, 0.25], rtol=0, atol=0)
    assert same.aligned and same.identical and same.max_abs_err == 0
    off = loss_compare.align_losses([1.0, 0.5, 0.25], [1.0, 0.5000001, 0.3], rtol=1e-3, atol=0)
    assert off.first_divergence == 2
    assert not off.identical
    assert off.rows[1].within and not off.rows[2].within
    assert off.max_abs_err == pytest.approx(0.05)


def test_alignment_flags_missing_steps_and_nan():
    short = loss_compare.align_losses([1.0, 0.9, 0.8], [1.0, 0.9], rtol=0, atol=0)
    assert short.first_divergence == 2 and short.rows[2].migrated is None
    nan = loss_compare.align_losses([1.0, 0.9], [1.0, math.nan], rtol=1, atol=1)
    assert nan.first_divergence == 1


def test_csv_and_plot(tmp_path):
    al = loss_compare.align_losses([1.0, 0.8, 0.7], [1.0, 0.8, 0.71], rtol=0, atol=0)
    path = loss_compare.write_csv(al, tmp_path / "l.csv")
    rows = list(csv.DictReader(path.open()))
    assert [r["within_tolerance"] for r in rows] == ["1", "1", "0"]
    assert float(rows[2]["migrated_loss"]) == 0.71


SVG = "{http://www.w3.org/2000/svg}"


def test_loss_plot_is_an_svg_of_both_runs_and_their_difference(tmp_path):
    """losses.svg (checks/validate/loss_plot.py, no matplotlib): a missing loss breaks its line (and the
    difference's), the legend holds the labels as given, the first divergence is marked, steps are whole."""
    from xml.etree import ElementTree

    from checks.validate import loss_plot

    al = loss_compare.align_losses([1.0, 0.8, 0.7, 0.6, 0.55], [1.0, 0.8, math.nan, 0.61, 0.56], rtol=0, atol=0)
    svg = ElementTree.parse(loss_plot.plot(al, tmp_path / "l.svg", labels=("baseline <cpu>", "migrated & co"))).getroot()
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert {"loss per step (rtol=0, atol=0)", "baseline <cpu>", "migrated & co", "loss", "migrated - baseline", "step"} <= set(texts)
    lines = sorted(len(p.get("points").split()) for p in svg.iter(f"{SVG}polyline"))
    assert lines == [2, 2, 2, 2, 5]  # baseline whole; migrated and the difference broken at step 3
    assert [ln for ln in svg.iter(f"{SVG}line") if ln.get("stroke") == "red"], "first divergence (step 3) not marked"
    assert {"1", "2", "3", "4", "5"} <= set(texts)  # x ticks: whole steps


@pytest.mark.parametrize("low, high", [(0.0, 1.0), (1.3, 2.37), (-0.0061, 0.0003), (0.5, 200.5), (5.0, 5.0), (1e-9, 3e-9)])
def test_plot_ticks_are_few_round_values_inside_the_range(low, high):
    from checks.validate.loss_plot import ticks

    values = ticks(low, high)
    assert values == sorted(values) and all(low <= v <= high for v in values)
    if high > low:
        assert 3 <= len(values) <= 10
        step = values[1] - values[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10)), values
    whole = ticks(low, high, 8, whole=True)
    assert all(float(v).is_integer() for v in whole)


@pytest.mark.parametrize(
    "source, keep",
    [
        ("import torch\n", 0),
        ('"""doc"""\nimport torch\n', 1),
        ('#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""doc\nmore"""\nfrom __future__ import annotations\nimport torch\n', 5),
        ("from __future__ import print_function\nimport torch\n", 1),
    ],
)
def test_hook_goes_after_docstring_and_future_imports(source, keep):
    assert header_end(source) == keep
    out = insert_hook(source)
    ast.parse(out)  # still valid: __future__ imports stay first
    lines = out.splitlines()
    assert HOOK_MARK in lines[keep]
    assert insert_hook(out) == out  # idempotent


def test_line_map_points_back_to_original_lines():
    original = "a = 1\nb = 2\nc = 3\n"
    copy = "a = 1\nHOOK\nb = 2\nX\nc = 3\n"
    assert line_map(original, copy) == (1, 1, 2, 2, 3)


def _row(name, bench="x", shape="[4]", diffs=(0, 0, 0, 0), bench_stats=(1, 1, 1, 1), err="[]"):
    row = {"NPU Name": name, "Bench Name": bench if bench != "x" else name, "NPU Tensor Shape": shape, "Err_message": err}
    for (d, b), v, s in zip((("Max diff", "Bench max"), ("Min diff", "Bench min"), ("Mean diff", "Bench mean"),
                             ("L2norm diff", "Bench l2norm")), diffs, bench_stats):
        row[d], row[b] = str(v), str(s)
    return row


def test_first_divergence_names_scalar_argument_before_outputs():
    rows = [
        _row("Functional.linear.0.forward.input.0"),
        _row("Functional.linear.0.forward.output.0"),
        _row("Functional.dropout.0.forward.input.0"),
        _row("Functional.dropout.0.forward.input.1", shape="[]", diffs=(0.3,) * 4, err='["error: The scalar parameters of NPU and Bench are inconsistent."]'),
        _row("Functional.dropout.0.forward.output.0", diffs=(0.5,) * 4),
    ]
    first = first_divergence(rows, 0, rtol=0, atol=0)
    assert first.api == "Functional.dropout.0.forward" and first.kind == "argument"
    assert first.entry.endswith("input.1")


def test_first_divergence_output_with_identical_inputs_and_tolerance():
    rows = [
        _row("Functional.linear.0.forward.input.0"),
        _row("Functional.linear.0.forward.output.0", diffs=(1e-9, 0, 0, 0)),
        _row("Functional.relu.0.forward.input.0", diffs=(1e-9, 0, 0, 0)),
        _row("Functional.relu.0.forward.output.0", diffs=(0.2, 0, 0, 0)),
    ]
    assert first_divergence(rows, 3, rtol=0, atol=0).api == "Functional.linear.0.forward"
    first = first_divergence(rows, 3, rtol=1e-6, atol=0)
    assert first.api == "Functional.relu.0.forward" and first.kind == "output" and first.step == 3
    assert first.inputs_differ is False
    assert first_divergence(rows, 3, rtol=1, atol=0) is None


def test_api_only_on_one_side_is_reported():
    rows = [_row("Functional.linear.0.forward.input.0"), _row("Tensor.mul.0.forward.output.0", bench="N/A")]
    first = first_divergence(rows, 0, rtol=0, atol=0)
    assert first.kind == "missing" and "migrated" in first.message
    assert row_difference(_row("a.forward.output.0"), rtol=0, atol=0)[0] is False


def test_the_packs_own_statistics_are_not_named_as_the_first_diverging_api(tmp_path):
    """A schema-1 bundle's dump holds the config_check pack's Tensor.max/min/mean/norm of the model's inputs (its
    comparing run dumps them too, numbered alike): on a real H200 bundle of Lightning Fabric's image classifier the
    first diverging API named was `Tensor.max.5.forward` at the helper's `return collect(*args, **kwargs)`. Those
    entries are known by that frame and skipped; the script's own APIs are named."""
    import json
    from pathlib import Path

    from checks.validate.msprobe_bridge import pack_entries

    helper = Path(__file__).resolve().parent.parent / "migrate" / "codemods" / "config_check_hooks.py"
    assert "return collect(*args, **kwargs)" in helper.read_text()  # the frame pack_entries knows the pack by
    stack = tmp_path / "stack.json"
    stack.write_text(json.dumps({
        "0": [["Tensor.max.5.forward", "Tensor.min.5.forward"],
              ["File /tmp/x/train.py, line 137, in run, \n return collect(*args, **kwargs)",
               "File /tmp/x/train.py, line 244, in run, \n output = model(data)"]],
        "1": [["Functional.conv2d.3.forward"], ["File /tmp/x/train.py, line 60, in forward, \n x = self.conv1(x)"]],
    }))
    skip = pack_entries(stack)
    assert skip == {"Tensor.max.5.forward", "Tensor.min.5.forward"}
    rows = [_row("Tensor.max.5.forward.input.0", diffs=(3e-4,) * 4), _row("Functional.conv2d.3.forward.input.0"),
            _row("Functional.conv2d.3.forward.output.0", diffs=(0.2,) * 4)]
    assert first_divergence(rows, 4, rtol=1e-6, atol=0).api == "Tensor.max.5.forward"
    first = first_divergence(rows, 4, rtol=1e-6, atol=0, skip=skip)
    assert first.api == "Functional.conv2d.3.forward" and first.kind == "output"
    assert pack_entries(tmp_path / "missing.json") == frozenset() and pack_entries(None) == frozenset()


def test_user_frames_are_mapped_to_the_original_file(tmp_path):
    import json

    copy = tmp_path / "copy.py"
    stack = {"0": [["Functional.relu.0.forward"], [
        "File /site-packages/torch/functional.py, line 9, in relu, \n return x",
        f"File {copy}, line 12, in forward, \n return F.relu(x)",
        f"File {copy}, line 30, in <module>, \n main()",
    ]]}
    (tmp_path / "stack.json").write_text(json.dumps(stack))
    mapping = list(range(0, 40))  # copy line n -> original line n - 1 (one inserted line)
    frames = user_frames(tmp_path / "stack.json", "Functional.relu.0.forward", {str(copy.resolve()): ("/user/train.py", mapping)})
    assert frames == ("/user/train.py:29 in <module>: main()", "/user/train.py:11 in forward: return F.relu(x)")


def test_existing_config_checker_is_pointed_at_our_pack():
    from checks.validate.copies import retarget_zip

    src = ("from msprobe.core.config_check import ConfigChecker\nConfigChecker.apply_patches(fmk='pytorch')\n"
           "m = 1\nConfigChecker(m, output_zip_path='./pack.zip', fmk='pytorch')\nConfigChecker(m)\n")
    out = retarget_zip(src, "/out/é.zip")
    assert "./pack.zip" not in out
    assert out.count("output_zip_path='/out/é.zip'") == 2
    assert len(out.splitlines()) == len(src.splitlines())
    ast.parse(out)


def test_pack_of_an_apply_output_is_pointed_at_our_pack():
    """A migrated script written by `npu-migrate apply` carries the hooks; its ConfigChecker call takes the
    pack path from the helper's argument, which validate must point at its own pack (else the pack lands
    in the script's working folder and config_check is not compared)."""
    from checks.validate.copies import retarget_zip
    from migrate.codemods.config_check_hooks import DEFAULT_NPU_PACK, HELPER

    hooked = (FIXTURES / "mnist_basic" / "expected" / "train.py").read_text()
    assert f"{HELPER}(model, {json.dumps(DEFAULT_NPU_PACK)})" in hooked
    out = retarget_zip(hooked, "/out/pack.zip")
    assert DEFAULT_NPU_PACK not in out and f"{HELPER}(model, '/out/pack.zip')" in out
    assert len(out.splitlines()) == len(hooked.splitlines())
    ast.parse(out)


def test_copy_below_a_mirror_of_the_project_root_sees_folders_above_the_script(tmp_path):
    """`@hydra.main(config_path="../configs")`, `Path(__file__).parents[1]` and root finders look above
    the script's folder: the copy sits at the same depth below a linked mirror of the project root."""
    from checks.validate.copies import copy_path, make_copy

    project = tmp_path / "project"
    (project / "configs").mkdir(parents=True)
    (project / "configs" / "train.yaml").write_text("lr: 0.1\n")
    (project / ".project-root").write_text("")
    (project / "src").mkdir()
    (project / "src" / "model.py").write_text("X = 1\n")
    script = project / "src" / "train.py"
    script.write_text("import torch\nprint(1)\n")
    workdir = tmp_path / "run"
    copy = make_copy(script, workdir, "train.py", tmp_path / "pack.zip")
    assert copy.copy == copy_path(script, workdir, "train.py") == workdir / "src" / "train.py"
    assert (copy.copy.parent.parent / "configs" / "train.yaml").read_text() == "lr: 0.1\n"
    assert (copy.copy.parent.parent / ".project-root").exists() and (copy.copy.parent / "model.py").exists()
    assert not (copy.copy.parent.parent / "src").is_symlink()  # the path to the copy is real folders


def test_copy_without_a_project_root_stays_beside_its_siblings(tmp_path):
    from checks.validate.copies import make_copy

    (tmp_path / "alone").mkdir()
    script = tmp_path / "alone" / "train.py"
    script.write_text("print(1)\n")
    (tmp_path / "alone" / "data.txt").write_text("d")
    copy = make_copy(script, tmp_path / "run", "train.py", tmp_path / "pack.zip")
    assert copy.copy == tmp_path / "run" / "train.py" and (tmp_path / "run" / "data.txt").exists()


def test_a_pass_says_which_config_check_items_were_compared_and_which_not():
    """A hooked model whose forward never ran in one run leaves dataset, weights and random out of the
    packs; msprobe skips them silently, the verdict must not read as if they passed."""
    from pathlib import Path

    from checks.validate import run as validate
    from checks.validate.msprobe_bridge import ConfigCheckResult, ConfigItem
    from checks.validate.run import RunInfo

    losses = (1.0, 0.9)
    runs = tuple(RunInfo(side, Path(f"{side}.py"), "cpu", 0, "pass", 2, losses, "float32", (), True, "")
                 for side in ("baseline", "migrated"))
    alignment = loss_compare.align_losses(list(losses), list(losses), rtol=0, atol=0)
    known = ("env", "pip", "dataset", "weights", "random", "hyperparameters")
    partial = ConfigCheckResult(None, (ConfigItem("env", "pass"), ConfigItem("pip", "warning")), known=known)
    verdict, _, reasons = validate.judge(runs, alignment, partial, None, True)
    assert verdict == "pass"
    assert reasons == ["identical losses over 2 steps; config_check compared env, pip (warning); not compared: "
                       "dataset, weights, random (packed at the hooked model's first forward, which did not run in at least "
                       "one of the two runs (or the hook could not collect it: the pack's .log says why)); hyperparameters (packed only when ConfigChecker is given the launch script (shell_path))"]
    off = ConfigCheckResult(None, (), error="NPU_MIGRATE_CONFIG_CHECK=0 turned the config_check packs off")
    assert validate.judge(runs, alignment, off, None, True)[2][0].endswith(
        "config_check not compared (NPU_MIGRATE_CONFIG_CHECK=0 turned the config_check packs off)")


def test_a_pip_difference_names_every_package_to_align():
    """Across hosts (the H200 recording: torch 2.11.0 there, 2.14.1 here) the reason lists each package of
    msprobe's precision-relevant list whose version differs, not only the first."""
    from pathlib import Path

    from checks.validate import run as validate
    from checks.validate.msprobe_bridge import ConfigCheckResult, ConfigItem
    from checks.validate.run import RunInfo

    losses = (1.0, 0.9)
    runs = tuple(RunInfo(side, Path(f"{side}.py"), "cuda" if side == "baseline" else "emulated", 0, "pass", 2, losses,
                         "float32", (), True, "") for side in ("baseline", "migrated"))
    alignment = loss_compare.align_losses(list(losses), list(losses), rtol=1e-3, atol=1e-5)
    pip = ConfigItem("pip", "error", ("numpy: baseline 2.5.2, migrated 2.4.6", "torch: baseline 2.11.0, migrated 2.14.1"))
    weights = ConfigItem("weights", "error", ("msprobe pack step 0: 2 tensors differ (a, b)", "msprobe pack step 1: 1 tensors differ (a)"), 0)
    verdict, code, reasons = validate.judge(runs, alignment, ConfigCheckResult(None, (pip, weights)), None, False)
    assert (verdict, code) == ("fail", 1)
    assert "config_check pip: differs (numpy: baseline 2.5.2, migrated 2.4.6; torch: baseline 2.11.0, migrated 2.14.1)" in reasons
    assert "config_check weights: differs (msprobe pack step 0: 2 tensors differ (a, b))" in reasons


def test_each_run_starts_in_the_folder_the_users_own_run_would(tmp_path):
    """`validate projects/adder/adder.py OUT/projects/adder/adder.py` from the project root: relative
    paths and a relative PYTHONPATH (`.`) resolve in the project root for the original and in OUT for
    the migrated copy (apply -o), as in the user's run and in smoke; not in the scripts' own folders."""
    from checks.validate.copies import run_folders

    src, out = tmp_path / "src", tmp_path / "out"
    base = src / "projects" / "adder" / "adder.py"
    assert run_folders(base, out / "mig" / "projects" / "adder" / "adder.py", src) == {
        "baseline": src, "migrated": out / "mig"}
    # the migrated script next to the original under another name: both in the user's folder
    assert run_folders(base, src / "projects" / "adder" / "adder_npu.py", src) == {"baseline": src, "migrated": src}
    # folders that do not repeat the original's: the user's folder when below it, else the script's own
    assert run_folders(base, src / "npu" / "adder.py", src)["migrated"] == src
    assert run_folders(base, out / "adder.py", src)["migrated"] is None
    # a script in the working folder: the same folders as before; a script outside it: its own folder
    assert run_folders(src / "train.py", out / "train.py", src) == {"baseline": src, "migrated": out}
    assert run_folders(out / "train.py", src / "train.py", src) == {"baseline": None, "migrated": None}


def test_a_validate_run_is_started_in_its_sides_folder(tmp_path, monkeypatch):
    from checks.smoke import run as smoke_run
    from checks.validate import run as validate_run
    from checks.validate.copies import InstrumentedCopy, run_folders

    started = []
    monkeypatch.setattr(smoke_run, "run_smoke", lambda script, **options: started.append(options["cwd"]))
    src, out = tmp_path / "src", tmp_path / "out"
    scripts = {"baseline": src / "sub" / "train.py", "migrated": out / "sub" / "train.py"}
    common = dict(fake_data=False, script_args={"baseline": (), "migrated": ()}, timeout=1, seed=0,
                  torch_npu_version=None, autocast="off", memory_limit=None,
                  cwd=run_folders(scripts["baseline"], scripts["migrated"], src))
    for side in ("baseline", "migrated"):
        copy = InstrumentedCopy(scripts[side], tmp_path / side / "train.py", tmp_path / f"{side}.zip", (), False, "")
        validate_run._smoke(copy, backend="emulated", steps=1, env={}, json_report=None, stream=None,
                            **validate_run._for_side(common, side))
    assert started == [str(src), str(out)]


def test_every_validate_run_gets_one_string_hash_order(tmp_path, monkeypatch):
    """tkipf/pygcn maps its class names through `set(labels)`: each process's own hash seed gave each run
    other labels, and validate called the migrated run divergent (and the original not deterministic)."""
    from checks.smoke import run as smoke_run
    from checks.validate import run as validate_run
    from checks.validate.copies import InstrumentedCopy

    envs = []
    monkeypatch.setattr(smoke_run, "run_smoke", lambda script, **options: envs.append(options["env"]))
    common = dict(fake_data=False, script_args={"baseline": (), "migrated": ()}, timeout=1, seed=0,
                  torch_npu_version=None, autocast="off", memory_limit=None)

    def run_both():
        for side in ("baseline", "migrated"):
            copy = InstrumentedCopy(tmp_path / side / "train.py", tmp_path / side / "c.py", tmp_path / f"{side}.zip", (), False, "")
            validate_run._smoke(copy, backend="emulated", steps=1, env={}, json_report=None, stream=None,
                                **validate_run._for_side(common, side))

    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    run_both()
    assert [env["PYTHONHASHSEED"] for env in envs] == ["0", "0"]
    monkeypatch.setenv("PYTHONHASHSEED", "123")  # the user's own seed is theirs
    run_both()
    assert [env["PYTHONHASHSEED"] for env in envs[2:]] == ["123", "123"]


def test_a_script_hooked_by_apply_writes_its_pack_where_validate_reads_it(tmp_path):
    """`apply` (config check on) leaves `_npu_config_check(model, "npu_config_check/...rank{rank}.zip")`
    in the migrated script; validate's copy must point that call at its own pack, or the migrated pack
    is never found ("config_check not compared")."""
    from checks.validate.copies import make_copy
    from migrate.codemods.config_check_hooks import DEFAULT_NPU_PACK
    from migrate.rewrite import instrument_source

    source = ("import torch\nmodel = torch.nn.Linear(2, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
              "for _ in range(2):\n    model(torch.ones(1, 2)).sum().backward()\n    opt.step()\n")
    hooked = instrument_source(source, zip_path=DEFAULT_NPU_PACK).text
    assert DEFAULT_NPU_PACK in hooked
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(hooked)
    pack = tmp_path / "out" / "migrated" / "config_check_pack.zip"
    copy = make_copy(tmp_path / "src" / "train.py", tmp_path / "run", "train.py", pack)
    text = copy.copy.read_text()
    assert DEFAULT_NPU_PACK not in text and repr(str(pack)) in text
    assert len(text.splitlines()) == len(hooked.splitlines()) + 1  # + validate's dump hook line only


def test_validate_retargets_the_helper_apply_writes():
    """checks/validate/copies.py names apply's hook helper without importing libcst: the two must agree."""
    from checks.validate import copies
    from migrate.codemods import config_check_hooks

    assert copies.APPLY_HELPER == config_check_hooks.HELPER
def test_a_helper_modules_error_is_named_at_its_line_in_the_users_folder(tmp_path, monkeypatch):
    """validate runs an instrumented copy beside symlinks to the original's siblings (checks/validate/copies.py).
    An error raised in a helper module the script imports is named at that module's line in the user's folder,
    then the script's import line, as smoke names it; not the import line alone (kuangliu/pytorch-cifar's
    utils.py reads `stty size` at import: without a terminal it raises there)."""
    import runpy

    from checks.child.bootstrap import describe_exception
    from checks.validate.copies import make_copy, user_text

    user = tmp_path / "project"
    user.mkdir()
    (user / "utils.py").write_text("import os\n_, width = os.popen('true').read().split()\n")
    (user / "train.py").write_text("import sys\nfrom utils import width\nprint(width)\n")
    copy = make_copy(user / "train.py", tmp_path / "run", "train.py", tmp_path / "pack.zip")
    monkeypatch.syspath_prepend(str(copy.copy.parent))
    monkeypatch.delitem(sys.modules, "utils", raising=False)
    with pytest.raises(ValueError) as caught:
        runpy.run_path(str(copy.copy), run_name="__main__")
    monkeypatch.delitem(sys.modules, "utils", raising=False)
    info = describe_exception(caught.value, str(copy.copy))
    assert user_text(f"{info.file}:{info.line}", copy) == f"{user / 'utils.py'}:2"
    assert user_text(info.entry, copy) == f"{user / 'train.py'}:2"


def test_the_recorded_original_starts_in_the_users_working_folder(tmp_path, monkeypatch):
    """`npu-migrate baseline sub/train.py` from the project root runs the original there (a path relative to
    the root resolves as in the user's run), and the manifest's run folder is what validate --baseline follows."""
    from types import SimpleNamespace

    from checks.smoke import run as smoke_run
    from checks.validate import bundle as fmt
    from checks.validate.baseline_record import record_baseline

    started = []
    def run_smoke(script, **options):
        started.append(options["cwd"])
        return SimpleNamespace(exit_code=2, reasons=("not run: a unit test",))

    monkeypatch.setattr(smoke_run, "run_smoke", run_smoke)
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "sub" / "train.py").write_text("import torch\nprint(open('cfg/lr.txt').read())\n")
    monkeypatch.chdir(project)
    for script in ("sub/train.py", project / "sub" / "train.py"):
        with pytest.raises(fmt.BundleError, match="not run: a unit test"):  # the stubbed run: nothing recorded
            record_baseline(script, tmp_path / "bundle", steps=1, baseline_backend="cpu", dump_steps=0)
    monkeypatch.chdir(tmp_path / "proj" / "sub")
    with pytest.raises(fmt.BundleError):
        record_baseline("../../proj/sub/train.py", tmp_path / "bundle", steps=1, baseline_backend="cpu", dump_steps=0)
    assert started == [str(project), str(project), str(project / "sub")]
    assert not (tmp_path / "bundle").exists()


PRESENCE_CASES = {
    "from the package": "from msprobe.core.config_check import ConfigChecker\n",
    "from a checker module": "from msprobe.core.config_check.config_checker import ConfigChecker as C\n",
    "in a try block": "try:\n    from msprobe.core.config_check import ConfigChecker\nexcept ImportError:\n    pass\n",
    "apply_patches only": "ConfigChecker.apply_patches()\n",
    "apply_patches on a call": "ConfigChecker().apply_patches()\n",
    "apply_patches on a subscript": "ConfigChecker[0].apply_patches\n",
    "apply_patches of another owner": "x.ConfigChecker.apply_patches()\n",
    "msprobe without config_check": "import msprobe\nfrom msprobe.core.dump import x\n",
    "a relative import": "from .config_check import ConfigChecker\n",
    "config_check outside msprobe": "from mytools.config_check import ConfigChecker\n",
    "nothing": "import torch\nprint(1)\n",
    "in a function": "def f():\n    from msprobe.core.config_check import ConfigChecker\n    ConfigChecker.apply_patches()\n",
}


@pytest.mark.parametrize("name", sorted(PRESENCE_CASES))
def test_hooks_present_reads_the_codemods_rule_without_libcst(name):
    """validate skips libcst for a hooked script on the ast reading (checks/validate/copies.py): it must say
    what the hook codemod's own libcst visitor says, or a script would be hooked twice or not at all."""
    import libcst as cst

    from migrate.codemods.config_check_hooks import has_hooks
    from migrate.codemods.config_check_presence import hooks_present

    source = PRESENCE_CASES[name]
    assert hooks_present(source) is has_hooks(cst.parse_module(source))


def test_copy_of_a_hooked_script_is_the_instrumented_copy_without_libcst(tmp_path):
    """The output of `apply` (hooks in place): make_copy gives the copy, line map and hook status the libcst
    path gives, and does not import libcst (about 0.4 s of every validate --baseline)."""
    import subprocess

    from migrate.rewrite import rewrite_file

    root = Path(__file__).resolve().parent.parent
    source = root / "tests" / "cudatwin_cases" / "gpu_only.py"
    migrated = tmp_path / "m" / "gpu_only.py"
    migrated.parent.mkdir()
    migrated.write_bytes(rewrite_file(str(source), source.read_bytes()).output)
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from checks.validate.copies import make_copy\n"
        f"copy = make_copy(Path({str(migrated)!r}), Path(sys.argv[1]), 'gpu_only.py', Path(sys.argv[1]) / 'pack.zip')\n"
        "print(json.dumps({'libcst': 'libcst' in sys.modules, 'text': copy.copy.read_text(), 'map': list(copy.line_map),"
        " 'hooked': copy.config_check, 'message': copy.message}))\n"
    )
    fast = json.loads(subprocess.run([sys.executable, "-c", probe, str(tmp_path / "fast")], capture_output=True, text=True,
                                     check=True, cwd=root).stdout)
    slow_probe = probe.replace("from checks.validate.copies import make_copy\n",
                               "from checks.validate import copies\nfrom checks.validate.copies import make_copy\n"
                               "import migrate.codemods.config_check_presence as p\np.hooks_present = lambda s: False\n")
    slow = json.loads(subprocess.run([sys.executable, "-c", slow_probe, str(tmp_path / "fast")], capture_output=True,
                                     text=True, check=True, cwd=root).stdout)
    assert fast["libcst"] is False and slow["libcst"] is True
    assert fast["hooked"] is True and "pack.zip" in fast["text"]
    assert {k: v for k, v in fast.items() if k != "libcst"} == {k: v for k, v in slow.items() if k != "libcst"}


def test_a_migrated_run_off_the_npu_is_put_beside_an_original_off_the_gpu():
    """The migrated run's "not on the NPU" failure stays a failure; where the baseline's parameters were not on the
    GPU either, the reason says so (a switch of the script's own), and only then."""
    from pathlib import Path

    from checks.validate import run as validate
    from checks.validate.run import RunInfo

    losses = (1.0, 0.9)
    off_npu = ("4 of 4 optimized parameters are not on the NPU: 4 on cpu",)

    def runs(original_devices):
        base = RunInfo("baseline", Path("gpu.py"), "cuda", 0, "pass", 2, losses, "float32", (), True, "",
                       param_device=original_devices)
        mig = RunInfo("migrated", Path("npu.py"), "emulated", 1, "fail", 2, losses, "float32", off_npu, True, "")
        return base, mig

    alignment = loss_compare.align_losses(list(losses), list(losses), rtol=1e-3, atol=1e-5)
    verdict, code, reasons = validate.judge(runs((("cpu", 4),)), alignment, None, None, False)
    assert (verdict, code) == ("fail", 1)
    assert reasons[0] == ("the migrated script failed its smoke run: 4 of 4 optimized parameters are not on the NPU: 4 on cpu "
                          "(the original did not train on the GPU either: its parameters were 4 on cpu in the baseline run; "
                          "the script may need a switch of its own, such as --accel or --cuda, given to both runs)")
    on_gpu = validate.judge(runs((("cuda", 4),)), alignment, None, None, False)[2][0]
    assert on_gpu == "the migrated script failed its smoke run: 4 of 4 optimized parameters are not on the NPU: 4 on cpu"
    assert validate.judge(runs(()), alignment, None, None, False)[2][0] == on_gpu  # an older bundle: no devices recorded
