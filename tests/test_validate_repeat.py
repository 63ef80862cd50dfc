"""validate's second look at the original (checks/validate/repeat.py): the spread, the band the migrated
run is judged against, when extra runs stop, and the causes read from the script and the runs' logs.
Pure: the extra runs are played by a stand-in that counts its calls; no torch, no child process."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from checks.validate import loss_compare
from checks.validate import run as validate
from checks.validate.repeat import (
    NONDETERMINISTIC_OPS,
    SHARED_MEMORY,
    BaselineRun,
    Repeat,
    band,
    causes,
    first_outside,
    repeat_original,
    retry_migrated,
    static_causes,
    verdict_reasons,
)
from checks.validate.run import RunInfo

CASES = Path(__file__).resolve().parent / "validate_cases"
FIRST = (1.0, 0.9, 0.8, 0.7)


class Runs:
    """run_again for repeat_original: hands out the given loss sequences in turn and counts the calls."""

    def __init__(self, *losses, log="", child_steps=0):
        self.queue, self.calls, self.log, self.child_steps = list(losses), 0, log, child_steps

    def __call__(self) -> BaselineRun:
        self.calls += 1
        return BaselineRun(tuple(self.queue.pop(0)), 2.0, self.log, self.child_steps)


def test_spread_and_statement_of_an_original_that_does_not_repeat():
    rep = Repeat((FIRST, (1.0, 0.91, 0.78, 0.7)), 3.5, ())
    assert not rep.deterministic
    assert rep.spread == pytest.approx((0.0, 0.01, 0.02, 0.0))
    assert rep.largest == (pytest.approx(0.02), 3)
    text = rep.statement()
    assert text.startswith("the original is not deterministic: run-to-run difference up to 0.02 at step 3")
    assert "1 extra run of the original, 3.5 s" in text


def test_band_widens_by_the_largest_spread_up_to_each_step():
    rep = Repeat((FIRST, (1.0, 0.91, 0.78, 0.7)), 1.0, ())
    lows_highs = band(rep, rtol=0, atol=0)
    assert lows_highs[0] == (1.0, 1.0)  # step 1 never varied: no room
    assert lows_highs[1] == pytest.approx((0.89, 0.92))  # range 0.90..0.91 widened by 0.01
    assert lows_highs[3] == pytest.approx((0.68, 0.72))  # step 4 keeps the 0.02 seen at step 3
    assert first_outside(rep, (1.0, 0.915, 0.79, 0.71), rtol=0, atol=0) is None
    assert first_outside(rep, (1.0, 0.95, 0.79, 0.71), rtol=0, atol=0) == 1
    assert first_outside(rep, (1.001, 0.9, 0.8, 0.7), rtol=0, atol=0) == 0
    assert first_outside(rep, (1.0, 0.9, 0.8), rtol=0, atol=0) == 3  # a missing step is never within


def test_alignment_with_a_band_and_the_reasons_it_gives():
    rep = Repeat((FIRST, (1.0, 0.91, 0.78, 0.7)), 1.0, (f"{SHARED_MEMORY} (x)",))
    inside = loss_compare.align_losses(list(FIRST), [1.0, 0.915, 0.79, 0.71], rtol=0, atol=0, band=band(rep, rtol=0, atol=0))
    assert inside.aligned and not inside.identical
    runs = tuple(RunInfo(side, Path(f"{side}.py"), "cpu", 0, "pass", 4, losses, "float32", (), True, "")
                 for side, losses in (("baseline", FIRST), ("migrated", (1.0, 0.915, 0.79, 0.71))))
    assert validate.judge(runs, inside, None, None, True)[2] == ["losses within tolerance over 4 steps; config_check not run"]
    verdict, _, judged = validate.judge(runs, inside, None, None, True, within_spread=True)
    reasons = verdict_reasons(rep, inside, judged)
    assert verdict == "pass"
    assert reasons[0].startswith("the original is not deterministic") and SHARED_MEMORY in reasons[0]
    assert reasons[1] == "losses within the original's own run-to-run spread over 4 steps; config_check not run"
    outside = loss_compare.align_losses(list(FIRST), [1.0, 0.95, 0.79, 0.71], rtol=0, atol=0, band=band(rep, rtol=0, atol=0))
    assert outside.first_divergence_step == 2
    reasons = verdict_reasons(rep, outside, ["loss diverges at step 2: ..."])
    assert reasons[0].startswith("the original is not deterministic") and "outside the original's range" in reasons[-1]


def test_an_original_that_repeats_itself_costs_one_extra_run_and_keeps_the_verdict():
    runs = Runs(FIRST, FIRST, FIRST)
    rep = repeat_original(runs, FIRST, (1.0, 0.95, 0.8, 0.7), repeat=3, rtol=0, atol=0)
    assert runs.calls == 1 and rep.deterministic and rep.extra_runs == 1
    assert rep.statement().startswith("the original repeats itself")
    divergent = loss_compare.align_losses(list(FIRST), [1.0, 0.95, 0.8, 0.7], rtol=0, atol=0)
    reasons = verdict_reasons(rep, divergent, ["loss diverges at step 2: ..."])
    assert reasons[0] == "loss diverges at step 2: ..." and "the difference is the rewrite's" in reasons[1]


def test_a_racing_original_that_repeated_once_is_run_again():
    """Shared-memory parameters trained by two processes (child_steps > steps): one identical repeat
    proves nothing, so validate goes on until the spread covers the migrated run."""
    runs = Runs(FIRST, (1.0, 0.91, 0.8, 0.7), FIRST, child_steps=8)
    rep = repeat_original(runs, FIRST, (1.0, 0.91, 0.8, 0.7), repeat=3, rtol=0, atol=0,
                          static_causes=(f"{SHARED_MEMORY} (share_memory() at a.py:1)",), first_child_steps=8)
    assert runs.calls == 2 and not rep.deterministic
    assert first_outside(rep, (1.0, 0.91, 0.8, 0.7), rtol=0, atol=0) is None


def test_repeats_stop_at_the_limit_and_when_far_outside():
    runs = Runs(*[FIRST] * 5, child_steps=8)
    rep = repeat_original(runs, FIRST, (1.0, 0.95, 0.8, 0.7), repeat=2, rtol=0, atol=0,
                          static_causes=(f"{SHARED_MEMORY} (x)",), first_child_steps=8)
    assert runs.calls == 2 and rep.deterministic  # --repeat 2: never more
    far = Runs((1.0, 0.91, 0.8, 0.7), *[FIRST] * 3)
    rep = repeat_original(far, FIRST, (1.0, 0.5, 0.3, 0.2), repeat=3, rtol=0, atol=0)
    assert far.calls == 1 and not rep.deterministic  # 0.4 outside a spread of 0.01: no more runs


def test_repeat_zero_is_never_called():
    runs = Runs(FIRST)
    rep = repeat_original(runs, FIRST, FIRST, repeat=0, rtol=0, atol=0)
    assert runs.calls == 0 and rep.extra_runs == 0


def test_static_causes_of_the_hogwild_case_and_none_for_a_plain_loop(tmp_path):
    (tmp_path / "hog.py").write_text((CASES / "hogwild_gpu.py").read_text())
    found = static_causes(tmp_path / "hog.py")
    assert len(found) == 1 and found[0].startswith(SHARED_MEMORY) and "hog.py:" in found[0]
    (tmp_path / "plain.py").write_text((CASES / "train_gpu.py").read_text())
    (tmp_path / "hog.py").unlink()
    assert static_causes(tmp_path / "plain.py") == ()


@pytest.mark.parametrize("call, unseeded", [
    ("DataLoader(ds, num_workers=2)", True),
    ("DataLoader(ds, num_workers=2, generator=g)", False),
    ("DataLoader(ds, num_workers=2, worker_init_fn=f)", False),
    ("DataLoader(ds, num_workers=0)", False),
    ("DataLoader(ds, **kw)\nkw = {'num_workers': 4}", True),
    ("DataLoader(ds, **kw)\nkw = {'batch_size': 4}", False),
])
def test_dataloader_workers_without_a_seeded_generator(tmp_path, call, unseeded):
    (tmp_path / "t.py").write_text(f"from torch.utils.data import DataLoader\nloader = {call}\n")
    assert bool(static_causes(tmp_path / "t.py")) is unseeded


def test_causes_confirmed_by_the_runs():
    shared = f"{SHARED_MEMORY} (share_memory() at a.py:3)"
    assert causes([shared], ["", ""], [4, 4], 4) == ()  # only the main process trained: not this cause
    assert causes([shared], ["", ""], [4, 8], 4) == (shared,)
    log = ("UserWarning: scatter_add_cuda_kernel does not have a deterministic implementation, but you set "
           "'torch.use_deterministic_algorithms(True, warn_only=True)'.")
    found = causes([], [log, ""], [0, 0], 4)
    assert found == (f"{NONDETERMINISTIC_OPS}: scatter_add_cuda_kernel",)


def test_nan_steps_count_as_repeating():
    nan = (1.0, math.nan)
    assert Repeat((nan, nan), 1.0, ()).deterministic


def test_static_causes_follow_the_scripts_own_modules(tmp_path):
    """mnist_hogwild's shape: main.py shares the model and starts the processes, train.py has the loader."""
    (tmp_path / "main.py").write_text("import torch.multiprocessing as mp\nfrom train import train\n"
                                      "model.share_memory()\np = mp.Process(target=train)\n")
    (tmp_path / "train.py").write_text("from torch.utils.data import DataLoader\nl = DataLoader(d, num_workers=1)\n")
    (tmp_path / "unrelated.py").write_text("m.share_memory()\n")
    found = static_causes(tmp_path / "main.py")
    assert [c.split(" (")[0] for c in found] == [SHARED_MEMORY, "DataLoader workers without a seeded generator"]
    assert "train.py:2" in found[1] and "unrelated" not in " ".join(found)


def test_cli_default_is_the_library_default():
    from checks.validate.repeat import DEFAULT_REPEAT
    from migrate.commands.validate import validate

    option = next(p for p in validate.params if p.name == "repeat")
    assert option.default == DEFAULT_REPEAT


def test_a_racing_original_is_not_cut_short_by_a_small_spread():
    """mnist_hogwild's modes: two runs differ by a jitter, the migrated run took the other interleaving.
    A racing original is run again until that mode shows; any other would stop at 'far outside'."""
    jitter, other_mode = (1.0, 0.9, 0.8, 0.7001), (1.02, 0.92, 0.82, 0.72)
    shared = (f"{SHARED_MEMORY} (x)",)
    runs = Runs(jitter, FIRST, other_mode, child_steps=8)
    rep = repeat_original(runs, FIRST, other_mode, repeat=5, rtol=0, atol=0, static_causes=shared, first_child_steps=8)
    assert runs.calls == 3 and first_outside(rep, other_mode, rtol=0, atol=0) is None
    plain = Runs(jitter, FIRST, other_mode)
    repeat_original(plain, FIRST, other_mode, repeat=5, rtol=0, atol=0)
    assert plain.calls == 1


def test_a_racing_original_widens_every_step_by_its_largest_spread():
    """The few runs seen varied at step 3 only; a race can reorder updates before step 2 as well."""
    runs = (FIRST, (1.0, 0.9, 0.78, 0.7))
    plain = Repeat(runs, 1.0, ())
    racing = Repeat(runs, 1.0, (f"{SHARED_MEMORY} (x)",))
    assert band(plain, rtol=0, atol=0)[1] == (0.9, 0.9)
    assert band(racing, rtol=0, atol=0)[1] == pytest.approx((0.88, 0.92))


def _racing(*runs):
    return Repeat(tuple(runs), 1.0, (f"{SHARED_MEMORY} (x)",))


def test_a_racing_original_runs_the_migrated_script_again_and_judges_the_run_within():
    """A race the original's few runs did not show: the migrated run is a draw too; its next run is judged."""
    rep = _racing(FIRST, (1.0, 0.91, 0.8, 0.7))  # spread 0.01 at step 2 (every step, racing)
    unseen, seen = (1.0, 0.95, 0.8, 0.7), (1.0, 0.905, 0.8, 0.7)
    calls = []
    retry = retry_migrated(rep, unseen, lambda: calls.append(1) or seen, rtol=0, atol=0)
    assert len(calls) == 1 and retry.losses == seen and retry.within == 2 and retry.first_outside == 1
    assert "its run 2 lies within the spread" in retry.statement() and "at step 2" in retry.statement()


def test_a_rewrite_error_stays_outside_every_migrated_run():
    rep = _racing(FIRST, (1.0, 0.91, 0.8, 0.7))
    wrong = (1.0, 0.5, 0.3, 0.2)
    calls = []
    retry = retry_migrated(rep, wrong, lambda: calls.append(1) or (1.0, 0.52, 0.31, 0.2), retries=2, rtol=0, atol=0)
    assert len(calls) == 2 and retry.within is None and retry.losses == wrong
    assert retry.statement().endswith("it lies outside every time: the difference is the rewrite's")


def test_the_migrated_script_is_not_run_again_when_not_needed():
    never = lambda: pytest.fail("run again")  # noqa: E731
    inside = (1.0, 0.905, 0.8, 0.7)
    assert retry_migrated(_racing(FIRST, (1.0, 0.91, 0.8, 0.7)), inside, never, rtol=0, atol=0) is None
    plain = Repeat((FIRST, (1.0, 0.91, 0.8, 0.7)), 1.0, ())  # not racing: its spread is the judge, no re-draw
    assert retry_migrated(plain, (1.0, 0.95, 0.8, 0.7), never, rtol=0, atol=0) is None
    assert retry_migrated(_racing(FIRST, FIRST), (1.0, 0.95, 0.8, 0.7), never, rtol=0, atol=0) is None
