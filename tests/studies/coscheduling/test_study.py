"""The co-scheduling study's Python layer: study.py, report.py and the CLI of commands.py.

1. run_metrics and slowdown_quantiles on a 3-job schedule worked out by hand (docs: COSCHEDULING §7);
2. the experiments' workloads: E1 windows and machine size m_L, E2 machine size m' and drops (§6);
3. run_flush / run_replay: row counts, determinism, the warm learner's carried state;
4. against_space, summary_table and the orderings on hand-made frames; `similar`;
5. report.py: the paper's Table 3 as ratios, the reproduction rows, the markdown section;
6. `simcore coscheduling-run` E1 and E2, `coscheduling-tables`, `plot-coscheduling`, and the
   error paths (exit status 2 and `simcore <command>: error: ...` on stderr).
"""

import json
import math
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import pytest

from simcore.cli import main
from simcore.engine.workload import Workload
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS
from simcore.studies.coscheduling import study
from simcore.studies.coscheduling.report import (
    LOAD_LABELS,
    coscheduling_markdown,
    published_ratios,
    reproduction_rows,
)
from simcore.studies.coscheduling.sharing import (
    EXPERTS,
    SharingInputError,
    SharingResult,
    SharingSettings,
    simulate_sharing,
)
from simcore.studies.coscheduling.study import (
    BSLD_TAU,
    DEFAULT_CONFIGURATIONS,
    HOUR,
    SLOWDOWN_QUANTILES,
    Sweep,
    against_space,
    check_configurations,
    flush_windows,
    flush_workload,
    orderings,
    replay_workload,
    run_flush,
    run_metrics,
    run_replay,
    similar,
    slowdown_quantiles,
    summary_table,
)
from simcore.workloads.files import read_provenance, read_workload, write_workload
from simcore.workloads.progress import progress

# -- helpers ---------------------------------------------------------------------------


def hand_workload() -> Workload:
    """Three jobs on 3 processors, submitted at 1000, 1000 and 1005 s.

    STATIC: job 0 (q 2, W 100, u 0.2) starts at 1000; job 1 (q 2, W 5, e 8, u 1) cannot start
    (1 idle processor) and becomes job 0's guest at f = 0.5 (guest bound 16 s <= the shadow time,
    L = 0), rate 0.5, so it ends at 1010 (an overrun: 10 s > e = 8 s); job 0's rate stays
    min(1, 0.5/0.2) = 1. Job 2 (q 2, W 30, e 50) finds job 0 paired at 1005, and at 1010 it would
    need L = 2 > extra = 1, so it starts when job 0 ends, at 1100, and ends at 1130.
    """
    return Workload.from_arrays(
        [1000.0, 1000.0, 1005.0],
        [100.0, 5.0, 30.0],
        [100.0, 8.0, 50.0],
        [2, 2, 2],
        3,
        efficiency=[0.2, 1.0, 1.0],
    )


HAND_START = np.array([1000.0, 1000.0, 1100.0])
HAND_END = np.array([1100.0, 1010.0, 1130.0])
HAND_DONOR = np.array([-1, 0, -1])
HAND_BUSY_AREA = 2 * 130.0  # two processors held from 1000 to 1130 (the guest shares job 0's)


def hand_result(**learner) -> SharingResult:
    workload = hand_workload()
    return SharingResult(
        workload=workload,
        settings=SharingSettings(strategy="STATIC", memory=False),
        memory_capacity=math.nan,
        efficiency=np.array([0.2, 1.0, 1.0]),
        start=HAND_START.copy(),
        end=HAND_END.copy(),
        donor=HAND_DONOR.copy(),
        quota=np.array([np.nan, 0.5, np.nan]),
        reservation=np.full(3, np.nan),
        busy_area=HAND_BUSY_AREA,
        learner=learner,
    )


def random_workload(seed: int, jobs: int, machine: int, source: str = "traces/GEN-2024.swf") -> Workload:
    """Small jobs spread over an hour, mostly CPU-bound (so that sharing costs and the learner has losses)."""
    rng = np.random.default_rng(seed)
    run = rng.uniform(30, 600, jobs).round()
    procs = rng.integers(1, 5, jobs)
    return Workload.from_arrays(
        np.sort(rng.uniform(0, 3000, jobs)).round(),
        run,
        (run * rng.choice([1.0, 1.5, 3.0], jobs)).round(),
        procs,
        machine,
        efficiency=rng.choice([0.05, 0.2, 0.9, 1.0, 1.0], jobs),
        memory=rng.choice([2e5, 5e5, 9e5], jobs),
        source=source,
    )


def warm_workload() -> Workload:
    """40 jobs whose first 20-job window (load 4) has Hedge rounds, so a warm learner differs."""
    rng = np.random.default_rng(5)
    jobs = 40
    return Workload.from_arrays(
        np.sort(rng.uniform(0, 1000, jobs)),
        rng.uniform(10, 500, jobs).round(),
        np.full(jobs, 1000.0),
        rng.integers(1, 5, jobs),
        8,
        efficiency=rng.choice([0.9, 1.0, 0.3, 0.1], jobs),
    )


def plain(frame: pd.DataFrame) -> pd.DataFrame:
    """List-valued columns as lists (Parquet gives them back as arrays)."""
    frame = frame.copy()
    for column in ("histogram", "slowdown_quantiles", "paired_slowdown_quantiles"):
        if column in frame:
            frame[column] = [list(map(float, values)) for values in frame[column]]
    return frame.reset_index(drop=True)


def assert_same_metrics(row, metrics: dict) -> None:
    for key, value in metrics.items():
        if isinstance(value, float) and math.isnan(value):
            assert math.isnan(row[key]), key
        else:
            assert row[key] == value, key


# -- run_metrics, slowdown_quantiles ------------------------------------------------------


def test_the_hand_schedule_is_the_cores_static_schedule():
    result = simulate_sharing(hand_workload(), SharingSettings(strategy="STATIC", memory=False))
    np.testing.assert_array_equal(result.start, HAND_START)
    np.testing.assert_array_equal(result.end, HAND_END)
    np.testing.assert_array_equal(result.donor, HAND_DONOR)
    assert result.busy_area == HAND_BUSY_AREA
    assert_same_metrics(run_metrics(result), run_metrics(hand_result(**result.learner)))


def test_run_metrics_by_hand():
    metrics = run_metrics(hand_result(cases=0, loss_sum=0.0, alphas=np.empty((0, 4)), histogram=np.zeros(10)))
    assert BSLD_TAU == 10.0
    useful = 0.2 * 2 * 100 + 1.0 * 2 * 5 + 1.0 * 2 * 30  # Σ u q W = 110, whoever shares
    expected = {
        "jobs": 3,
        "machine_size": 3,
        "makespan": 130.0,  # max end 1130 - min submit 1000
        "mean_wait": 95.0 / 3,  # waits 0, 0, 95
        "mean_response": 235.0 / 3,  # 100, 10, 125
        # 100/100, 10/max(5, 10) (tau), 125/30
        "mean_bsld": (1.0 + 1.0 + 125.0 / 30) / 3,
        "mean_slowdown": 4.0 / 3,  # D = 1, 2, 1
        "p95_slowdown": 1.9,  # linear interpolation in (1, 1, 2)
        "mean_paired_slowdown": 1.5,  # donor 0 and guest 1: D = 1, 2
        "p95_paired_slowdown": 1.95,
        "overruns": 1,  # the guest ran 10 s on an 8 s request
        "guests": 1,
        "guest_share": 1.0 / 3,
        "paired_jobs": 2,
        "cpu_utilisation": useful / (3 * 130.0),
        "alloc_utilisation": useful / HAND_BUSY_AREA,
        "cases": 0,
        "rounds": 0,
    }
    assert {key: metrics[key] for key in expected} == pytest.approx(expected)
    assert metrics["histogram"] == [0] * 10
    assert math.isnan(metrics["mean_loss"])
    assert set(metrics) == {*expected, "histogram", "mean_loss"}


def test_run_metrics_learner_fields_and_empty_sets():
    alphas = np.array([[0.4, 0.2, 0.2, 0.2], [0.5, 0.1, 0.2, 0.2]])
    metrics = run_metrics(hand_result(cases=4, loss_sum=1.0, alphas=alphas, histogram=np.array([1, 0, 3, 0])))
    assert (metrics["cases"], metrics["mean_loss"], metrics["rounds"]) == (4, 0.25, 2)
    assert metrics["histogram"] == [1, 0, 3, 0] and all(type(count) is int for count in metrics["histogram"])

    # no job shares and every job has zero work: the slowdowns are NaN, nothing divides by zero
    workload = Workload.from_arrays([0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [1, 1], 2)
    result = simulate_sharing(workload, SharingSettings(strategy="SPACE", memory=False))
    metrics = run_metrics(result)
    assert metrics["makespan"] == 0.0 and metrics["paired_jobs"] == 0 and metrics["guests"] == 0
    for key in ("mean_slowdown", "p95_slowdown", "mean_paired_slowdown", "cpu_utilisation", "alloc_utilisation"):
        assert math.isnan(metrics[key]), key
    assert metrics["mean_bsld"] == 1.0
    assert slowdown_quantiles(result) == {"slowdown_quantiles": [], "paired_slowdown_quantiles": []}


def test_slowdown_quantiles_by_hand():
    quantiles = slowdown_quantiles(hand_result())
    every, paired = quantiles["slowdown_quantiles"], quantiles["paired_slowdown_quantiles"]
    assert len(every) == len(paired) == len(SLOWDOWN_QUANTILES) == 101
    # D = (1, 2, 1) over all jobs, (1, 2) over the pair
    assert every[0] == 1.0 and every[50] == 1.0 and every[100] == 2.0 and every[95] == pytest.approx(1.9)
    assert paired[0] == 1.0 and paired[50] == pytest.approx(1.5) and paired[100] == 2.0
    assert all(a <= b for a, b in zip(every, every[1:]))


def test_slowdown_quantiles_leave_out_zero_work():
    result = hand_result()
    workload = result.workload
    result.workload = replace(workload, run=np.array([100.0, 5.0, 0.0]))  # job 2 did no work
    quantiles = slowdown_quantiles(result)
    assert quantiles["slowdown_quantiles"][0] == 1.0 and quantiles["slowdown_quantiles"][100] == 2.0
    assert quantiles["slowdown_quantiles"][50] == pytest.approx(1.5)  # over (1, 2) only
    metrics = run_metrics(result)
    assert metrics["mean_slowdown"] == pytest.approx(1.5)


# -- configurations -----------------------------------------------------------------------


def test_check_configurations():
    assert check_configurations(DEFAULT_CONFIGURATIONS) is DEFAULT_CONFIGURATIONS
    good = {"SPACE": {"strategy": "SPACE"}, "WARM": {"strategy": "ASAX", "warm": True, "levels": 4}}
    assert check_configurations(good) == good
    cases = {
        "unknown keys \\['colour'\\]": {"SPACE": {"strategy": "SPACE", "colour": "red"}},
        "'X': no strategy": {"SPACE": {"strategy": "SPACE"}, "X": {"levels": 4}},
        "only an ASAX learner can be warm": {"SPACE": {"strategy": "SPACE"}, "S": {"strategy": "STATIC", "warm": 1}},
        "exactly one with strategy SPACE.*got \\[\\]": {"STATIC": {"strategy": "STATIC"}},
        "exactly one with strategy SPACE.*got \\['SPACE', 'SPACE4'\\]": {
            "SPACE": {"strategy": "SPACE"},
            "SPACE4": {"strategy": "SPACE", "levels": 4},
        },
        "levels must be in": {"SPACE": {"strategy": "SPACE"}, "A": {"strategy": "ASAX", "levels": 3}},
        "strategy 'FIFO'": {"SPACE": {"strategy": "SPACE"}, "F": {"strategy": "FIFO"}},
    }
    for message, configurations in cases.items():
        with pytest.raises(SharingInputError, match=message):
            check_configurations(configurations)


# -- E1 and E2 workloads --------------------------------------------------------------------


def test_flush_windows():
    workload = random_workload(1, 100, 8)
    windows = flush_windows(workload, 45)
    assert len(windows) == 2  # the last 10 jobs form no window
    np.testing.assert_array_equal(windows[0], np.arange(45))
    np.testing.assert_array_equal(windows[1], np.arange(45, 90))
    assert len(flush_windows(workload, 45, max_windows=1)) == 1
    assert len(flush_windows(workload, 10, max_windows=50)) == 10
    assert flush_windows(workload, 101) == []


def test_flush_workload_machine_size_and_flag():
    workload = Workload.from_arrays(
        [5.0, 6.0, 7.0, 9.0, 20.0],
        [10.0, 20.0, 30.0, 40.0, 50.0],
        [100.0] * 5,
        [1, 4, 1, 2, 3],
        8,
        efficiency=[0.1, 0.2, 0.3, 0.4, 0.5],
        memory=[1.0, 2.0, 3.0, 4.0, 5.0],
    )
    workload = replace(workload, filter_counts={"dropped": 3})
    indices = np.array([0, 1, 2, 3])  # procs 1, 4, 1, 2: Σq = 8, max q = 4
    for load, size, binds in ((8, 4, True), (4, 4, True), (3, 4, True), (2, 4, False), (1, 8, False), (1.5, 6, False)):
        # m_L = max(4, ceil(8 / L)); flagged when the largest job sets the size
        flushed, size_binds = flush_workload(workload, indices, load)
        assert (flushed.machine_size, size_binds) == (size, binds), load
        assert size == max(4, math.ceil(8 / load))
    np.testing.assert_array_equal(flushed.submit, np.zeros(4))
    np.testing.assert_array_equal(flushed.job_id, [1, 2, 3, 4])
    np.testing.assert_array_equal(flushed.run, [10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(flushed.procs, [1, 4, 1, 2])
    np.testing.assert_array_equal(flushed.efficiency, [0.1, 0.2, 0.3, 0.4])
    np.testing.assert_array_equal(flushed.memory, [1.0, 2.0, 3.0, 4.0])
    assert flushed.filter_counts == {}
    flushed.validate()
    assert len(workload) == 5 and workload.submit[0] == 5.0  # the trace is left alone


def test_replay_workload_machine_size_and_drops():
    workload = Workload.from_arrays(
        [100.0, 200.0, 300.0, 1100.0],
        [100.0, 50.0, 200.0, 10.0],
        [100.0, 100.0, 300.0, 20.0],
        [1, 2, 8, 1],
        16,
        source="traces/X.swf",
    )
    total = 1 * 100 + 2 * 50 + 8 * 200 + 1 * 10  # Σ q W = 1810 over a span of 1000 s
    for load, size, dropped in ((0.5, 4, 1), (0.9, 3, 1), (0.2, 10, 0), (0.1, 19, 0)):
        replayed, count = replay_workload(workload, load)
        assert replayed.machine_size == size == math.ceil(total / (load * 1000.0)), load
        assert count == dropped
        assert len(replayed) == 4 - dropped
        assert replayed.procs.max() <= size
        replayed.validate()
    replayed, _ = replay_workload(workload, 0.5)
    np.testing.assert_array_equal(replayed.job_id, [1, 2, 4])  # the 8-wide job dropped
    np.testing.assert_array_equal(replayed.submit, [100.0, 200.0, 1100.0])  # logged submits kept


def test_replay_workload_errors():
    at_once = Workload.from_arrays([50.0, 50.0], [10.0, 10.0], [10.0, 10.0], [1, 1], 2, source="traces/ONE.swf")
    with pytest.raises(SharingInputError, match=r"traces/ONE\.swf: all jobs are submitted at one instant"):
        replay_workload(at_once, 0.5)
    no_work = Workload.from_arrays([0.0, 50.0], [0.0, 0.0], [10.0, 10.0], [1, 1], 2, source="traces/IDLE.swf")
    with pytest.raises(SharingInputError, match=r"traces/IDLE\.swf: no work to replay"):
        replay_workload(no_work, 0.5)


# -- E1: run_flush ---------------------------------------------------------------------------

CONFIGS = {
    "SPACE": {"strategy": "SPACE"},
    "STATIC": {"strategy": "STATIC"},
    "ASAX": {"strategy": "ASAX"},
    "HEADROOM": {"strategy": "HEADROOM"},
}


def test_run_flush_rows():
    workload = random_workload(3, 25, 8)
    runs = run_flush(workload, Sweep(CONFIGS, [8, 2], [0.0, 0.1], 3, True, None, "require"), window=6, max_windows=3)
    # per load and window: SPACE once (κ = 0), STATIC and HEADROOM one seed per κ, ASAX 3 seeds per κ
    assert len(runs) == 2 * 3 * (1 + 2 + 2 + 2 * 3)
    counts = runs.groupby(["configuration", "kappa"]).size().to_dict()
    assert counts == {
        ("ASAX", 0.0): 18,
        ("ASAX", 0.1): 18,
        ("HEADROOM", 0.0): 6,
        ("HEADROOM", 0.1): 6,
        ("SPACE", 0.0): 6,
        ("STATIC", 0.0): 6,
        ("STATIC", 0.1): 6,
    }
    assert sorted(runs.loc[runs["strategy"] == "ASAX", "seed"].unique()) == [0, 1, 2]
    assert set(runs.loc[runs["strategy"] != "ASAX", "seed"]) == {0}
    assert set(runs["experiment"]) == {"E1"} and set(runs["load"]) == {8.0, 2.0}
    assert set(runs["window"]) == {0, 1, 2} and (runs["jobs"] == 6).all()
    assert set(runs.loc[runs["strategy"] == "SPACE", "guests"]) == {0}
    # each row is its window's flushed run
    for (load, window), block in runs.groupby(["load", "window"]):
        flushed, binds = flush_workload(workload, np.arange(window * 6, window * 6 + 6), load)
        assert (block["machine_size"] == flushed.machine_size).all() and (block["size_binds"] == binds).all()
    row = runs[(runs["configuration"] == "ASAX") & (runs["load"] == 2.0) & (runs["seed"] == 2)]
    row = row[(row["kappa"] == 0.1) & (row["window"] == 1)].iloc[0]
    flushed, _ = flush_workload(workload, np.arange(6, 12), 2.0)
    capacity = float(np.ceil(np.percentile(workload.memory, 99) / 2**20) * 2**20)  # the whole trace's
    settings = SharingSettings(
        strategy="ASAX", kappa=0.1, memory=True, memory_capacity=capacity, efficiency="assume-cpu-bound"
    )
    assert_same_metrics(row, run_metrics(simulate_sharing(flushed, settings, seed=[2, 1])))


def test_run_flush_is_deterministic():
    workload = random_workload(4, 30, 8)
    arguments = (workload, Sweep(CONFIGS, [8, 4], [0.0, 0.2], 2, False, None, "require"))
    first = run_flush(*arguments, window=10)
    second = run_flush(*arguments, window=10)
    pd.testing.assert_frame_equal(first, second)
    assert first["cases"].sum() > 0  # the learners decided something


def test_run_flush_efficiency_check_and_memory():
    workload = random_workload(4, 12, 8)
    bare = replace(workload, efficiency=np.full(len(workload), np.nan))
    with pytest.raises(SharingInputError, match=r"traces/GEN-2024\.swf: strategy STATIC needs CPU efficiencies.*"):
        run_flush(bare, Sweep(CONFIGS, [8], [0.0], 1, False, None, "require"), window=6)
    # SPACE reads no efficiency; assume-cpu-bound runs every strategy with u = 1
    assert (
        len(run_flush(bare, Sweep({"SPACE": CONFIGS["SPACE"]}, [8], [0.0], 1, False, None, "require"), window=6)) == 2
    )
    assumed = run_flush(bare, Sweep(CONFIGS, [8], [0.0], 1, False, None, "assume-cpu-bound"), window=6)
    assert len(assumed) == 2 * 4
    no_memory = replace(workload, memory=np.full(len(workload), np.nan))
    with pytest.raises(SharingInputError, match="no job records its memory"):
        run_flush(no_memory, Sweep(CONFIGS, [8], [0.0], 1, True, None, "require"), window=6)
    assert len(run_flush(no_memory, Sweep(CONFIGS, [8], [0.0], 1, True, 1e6, "require"), window=6)) == 2 * 4


def test_run_flush_warm_carries_the_learner_state():
    workload = warm_workload()
    configurations = {
        "SPACE": {"strategy": "SPACE"},
        "ASAX": {"strategy": "ASAX"},
        "WARM": {"strategy": "ASAX", "warm": True},
    }
    runs = run_flush(workload, Sweep(configurations, [4], [0.0], 1, False, None, "require"), window=20)
    fresh, warm = (runs[runs["configuration"] == name].set_index("window") for name in ("ASAX", "WARM"))
    # window 0: nothing to carry yet, the warm learner is the fresh one
    assert_same_metrics(warm.loc[0], fresh.loc[0].drop("configuration").to_dict())
    assert warm.loc[0, "rounds"] >= 1  # rounds occurred, so the carried α is not the initial one
    # window 1 starts from the state window 0 ended with
    windows = [flush_workload(workload, indices, 4)[0] for indices in flush_windows(workload, 20)]
    settings = SharingSettings(strategy="ASAX", memory=False, efficiency="assume-cpu-bound")
    first = simulate_sharing(windows[0], settings, seed=[0, 0])
    state = first.learner["state"]
    assert state["round"] > 1 and state["alpha"] != [0.25] * 4
    carried = simulate_sharing(windows[1], settings, seed=[0, 1], learner_state=state)
    restarted = simulate_sharing(windows[1], settings, seed=[0, 1])
    assert_same_metrics(warm.loc[1], run_metrics(carried))
    assert_same_metrics(fresh.loc[1], run_metrics(restarted))
    assert not np.array_equal(carried.end, restarted.end)
    compared = ["mean_response", "mean_wait", "histogram", "cases"]
    assert warm.loc[1, compared].tolist() != fresh.loc[1, compared].tolist()


# -- E2: run_replay --------------------------------------------------------------------------


def test_run_replay_rows_weights_and_determinism():
    workload = random_workload(2, 120, 16)
    configurations = {**CONFIGS, "WARM": {"strategy": "ASAX", "warm": True}}
    arguments = (workload, Sweep(configurations, [0.5, 0.9], [0.0, 0.1], 2, False, None, "require"))
    runs, weights = run_replay(*arguments)
    # warm configurations are skipped: a replay has one run to carry the state to
    assert "WARM" not in set(runs["configuration"])
    assert len(runs) == 2 * (1 + 2 + 2 + 2 * 2)
    assert set(runs["experiment"]) == {"E2"} and set(runs["window"]) == {0} and not runs["size_binds"].any()
    for load, block in runs.groupby("load"):
        replayed, dropped = replay_workload(workload, load)
        assert (block["machine_size"] == replayed.machine_size).all() and (block["dropped"] == dropped).all()
        assert (block["jobs"] == len(replayed)).all()
    assert all(len(q) == 101 for q in runs["slowdown_quantiles"])
    # one weights row per Hedge round of each run, α normalised
    assert list(weights.columns) == [*EXPERTS, "load", "kappa", "configuration", "seed", "round"]
    assert len(weights) == runs["rounds"].sum() > 0
    np.testing.assert_allclose(weights[list(EXPERTS)].sum(axis=1), 1.0)
    for key, block in weights.groupby(["load", "kappa", "configuration", "seed"]):
        assert block["round"].tolist() == list(range(1, len(block) + 1)), key
    # a row is the direct run of its setting
    row = runs[(runs["configuration"] == "ASAX") & (runs["load"] == 0.9) & (runs["kappa"] == 0.1)]
    row = row[row["seed"] == 1].iloc[0]
    replayed, _ = replay_workload(workload, 0.9)
    result = simulate_sharing(replayed, SharingSettings(strategy="ASAX", kappa=0.1, memory=False), seed=1)
    assert_same_metrics(row, run_metrics(result))
    assert row["paired_slowdown_quantiles"] == slowdown_quantiles(result)["paired_slowdown_quantiles"]
    # same inputs, same frames
    again, again_weights = run_replay(*arguments)
    pd.testing.assert_frame_equal(runs, again)
    pd.testing.assert_frame_equal(weights, again_weights)


def test_run_replay_without_rounds_has_empty_weights():
    workload = random_workload(2, 20, 16)
    runs, weights = run_replay(
        workload, Sweep({"SPACE": {"strategy": "SPACE"}}, [0.5], [0.0], 1, False, None, "require")
    )
    assert len(runs) == 1
    assert weights.empty
    assert list(weights.columns) == [*EXPERTS, "load", "kappa", "configuration", "seed", "round"]


# -- against_space, summary_table, orderings ---------------------------------------------------


def run_row(**values) -> dict:
    row = {
        "trace": "T",
        "experiment": "E1",
        "load": 8.0,
        "kappa": 0.0,
        "configuration": "SPACE",
        "strategy": "SPACE",
        "seed": 0,
        "window": 0,
        "size_binds": False,
        "mean_wait": 100.0,
        "mean_response": 200.0,
        "makespan": 400.0,
        "cpu_utilisation": 0.3,
        "alloc_utilisation": 0.5,
        "mean_slowdown": 1.0,
        "guest_share": 0.0,
        "cases": 0,
        "mean_loss": math.nan,
    }
    return {**row, **values}


def test_against_space_ratios():
    runs = pd.DataFrame(
        [
            run_row(),
            run_row(window=1, mean_wait=0.0, mean_response=100.0, makespan=300.0, cpu_utilisation=0.4),
            run_row(
                configuration="STATIC",
                strategy="STATIC",
                mean_wait=50.0,
                mean_response=250.0,
                makespan=360.0,
                cpu_utilisation=0.33,
                alloc_utilisation=0.9,
                mean_slowdown=1.2,
            ),
            run_row(configuration="STATIC", strategy="STATIC", window=1, mean_wait=10.0, kappa=0.1, makespan=330.0),
            run_row(trace="U", mean_wait=40.0),  # another trace: its own SPACE base
            run_row(trace="U", configuration="A2", strategy="ASAX", seed=1, mean_wait=10.0),
        ]
    )
    merged = against_space(runs)
    assert len(merged) == len(runs)
    space = merged[merged["strategy"] == "SPACE"].set_index(["trace", "window"])
    for metric in ("mean_response", "makespan"):
        assert (space[f"{metric}_ratio"] == 1.0).all()
    assert space.loc[("T", 0), "mean_wait_ratio"] == space.loc[("U", 0), "mean_wait_ratio"] == 1.0
    assert math.isnan(space.loc[("T", 1), "mean_wait_ratio"])  # SPACE waited 0 s: no ratio
    assert (space["cpu_utilisation_gain"] == 0).all() and (space["alloc_utilisation_gain"] == 0).all()
    static = merged[(merged["configuration"] == "STATIC") & (merged["window"] == 0)].iloc[0]
    assert static["mean_wait_ratio"] == 0.5 and static["mean_response_ratio"] == 1.25
    assert static["makespan_ratio"] == pytest.approx(0.9)
    assert static["cpu_utilisation_gain"] == pytest.approx(3.0)
    assert static["alloc_utilisation_gain"] == pytest.approx(40.0)
    assert static["runtime_change"] == pytest.approx(20.0)
    assert static["mean_wait_space"] == 100.0
    # window 1: SPACE waited 0 s, so the wait ratio is undefined; κ does not select the base
    late = merged[(merged["configuration"] == "STATIC") & (merged["window"] == 1)].iloc[0]
    assert math.isnan(late["mean_wait_ratio"]) and late["makespan_ratio"] == pytest.approx(1.1)
    other = merged[merged["configuration"] == "A2"].iloc[0]
    assert other["mean_wait_ratio"] == 0.25 and other["mean_wait_space"] == 40.0


def test_summary_table_means_and_percentiles():
    rows = []
    for window, wait in enumerate([50.0, 100.0, 150.0, 200.0, 250.0]):
        rows.append(run_row(window=window, cases=0))
        rows.append(
            run_row(
                window=window,
                configuration="ASAX",
                strategy="ASAX",
                mean_wait=wait,
                alloc_utilisation=0.5 + 0.1 * window,
                size_binds=window == 0,
                cases=window,
                mean_loss=0.1 * window,
                guest_share=0.2,
                mean_slowdown=1.1,
            )
        )
    rows.append(run_row(configuration="ASAX", strategy="ASAX", kappa=0.1, mean_wait=10.0))
    summary = summary_table(pd.DataFrame(rows))
    assert len(summary) == 3  # SPACE, ASAX at κ = 0 and at κ = 0.1
    asax = summary[(summary["configuration"] == "ASAX") & (summary["kappa"] == 0.0)].iloc[0]
    # ratios over windows: 0.5, 1, 1.5, 2, 2.5
    assert asax["runs"] == 5
    assert asax["mean_wait_ratio"] == pytest.approx(1.5)
    assert asax["mean_wait_ratio_p10"] == pytest.approx(0.7)
    assert asax["mean_wait_ratio_p90"] == pytest.approx(2.3)
    assert asax["mean_response_ratio"] == asax["mean_response_ratio_p10"] == asax["mean_response_ratio_p90"] == 1.0
    assert asax["mean_wait_h"] == pytest.approx(150.0 / HOUR)
    assert asax["mean_response_h"] == pytest.approx(200.0 / HOUR) and asax["makespan_h"] == pytest.approx(400 / HOUR)
    assert asax["alloc_utilisation"] == pytest.approx(0.7)
    assert asax["alloc_gain_points"] == pytest.approx(20.0)
    assert asax["cpu_gain_points"] == pytest.approx(0.0)
    assert asax["size_binds"] == pytest.approx(0.2)
    assert asax["cases"] == 10 and asax["mean_loss"] == pytest.approx(0.2)
    assert asax["runtime_change"] == pytest.approx(10.0) and asax["guest_share"] == pytest.approx(0.2)
    space = summary[summary["configuration"] == "SPACE"].iloc[0]
    assert space["runs"] == 5 and space["mean_wait_ratio_p10"] == space["mean_wait_ratio_p90"] == 1.0
    assert math.isnan(space["mean_loss"]) and space["cases"] == 0
    single = summary[summary["kappa"] == 0.1].iloc[0]
    assert single["runs"] == 1 and single["mean_wait_ratio"] == pytest.approx(0.1)
    assert single["mean_wait_ratio_p10"] == single["mean_wait_ratio_p90"] == pytest.approx(0.1)


def test_summary_of_real_runs_has_space_at_one():
    runs = run_flush(random_workload(4, 30, 8), Sweep(CONFIGS, [8, 2], [0.0], 2, False, None, "require"), window=10)
    summary = summary_table(runs.assign(trace="T"))
    assert len(summary) == 2 * 4
    space = summary[summary["configuration"] == "SPACE"]
    for metric in ("mean_response", "makespan"):
        for suffix in ("", "_p10", "_p90"):
            np.testing.assert_allclose(space[f"{metric}_ratio{suffix}"], 1.0)
    assert summary.set_index(["load", "configuration"]).loc[(8.0, "ASAX"), "runs"] == 3 * 2  # windows x seeds


def test_similar():
    assert similar(0.0, 0.0)
    assert not similar(0.0, 1e-9) and not similar(1e-9, 0.0)
    assert similar(1.0, 1.25) and similar(1.25, 1.0)
    assert not similar(1.0, 1.26) and not similar(1.26, 1.0)
    assert similar(2.0, 1.7)


def summary_row(configuration, load, **values) -> dict:
    row = {
        "trace": "T",
        "experiment": "E1",
        "load": load,
        "kappa": 0.0,
        "configuration": configuration,
        "mean_wait_ratio": 1.0,
        "mean_wait_h": 2.0,
        "mean_response_ratio": 1.0,
        "alloc_utilisation": 0.5,
        "alloc_gain_points": 0.0,
        "mean_slowdown": 1.0,
    }
    return {**row, **values}


def holding(load, changes=None, kappa=0.0) -> list[dict]:
    """SPACE, STATIC and ASAX rows for which every ordering holds, with `changes` as {(name, column): value}."""
    rows = {
        "SPACE": summary_row("SPACE", load),
        "STATIC": summary_row(
            "STATIC",
            load,
            kappa=kappa,
            mean_wait_ratio=0.5,
            mean_wait_h=1.0,
            mean_response_ratio=1.1,
            alloc_utilisation=0.9,
            alloc_gain_points=40.0,
            mean_slowdown=1.2,
        ),
        "ASAX": summary_row(
            "ASAX",
            load,
            kappa=kappa,
            mean_wait_ratio=0.55,
            mean_wait_h=1.1,
            mean_response_ratio=0.8,
            alloc_utilisation=0.82,
            alloc_gain_points=32.0,
            mean_slowdown=1.05,
        ),
    }
    for (name, column), value in (changes or {}).items():
        rows[name][column] = value
    return list(rows.values()) if kappa == 0.0 else [rows["STATIC"], rows["ASAX"]]


def test_orderings_hold_or_fail_as_designed():
    rows = [
        *holding(8.0),
        *holding(8.0, {("STATIC", "mean_wait_h"): 2.0}, kappa=0.1),  # waits not within 25 %
        *holding(4.0, {("STATIC", "mean_response_ratio"): 0.95}),  # STATIC responds faster than SPACE
        *holding(2.0, {("ASAX", "alloc_gain_points"): 9.9}),  # ASAX gains under 10 points
        *holding(1.0, {("ASAX", "mean_slowdown"): 1.3}),  # ASAX slows more than STATIC
        *holding(0.5, {("ASAX", "mean_wait_h"): 0.0, ("ASAX", "mean_wait_ratio"): 0.0}),  # 0 h, 1 h: not similar
        *holding(0.25, {("ASAX", "alloc_utilisation"): 0.95}),  # ASAX holds more than STATIC
        *holding(0.2, {("ASAX", "mean_wait_ratio"): 1.0}),  # ASAX waits as long as SPACE
    ]
    rows.append(summary_row("STATIC", 3.0))  # no ASAX at this load: no row
    rows.append(summary_row("SPACE", 3.0))
    table = orderings(pd.DataFrame(rows))
    assert list(table.columns) == [
        "trace",
        "experiment",
        "load",
        "kappa",
        "wait",
        "response",
        "utilisation",
        "slowdown",
    ]
    got = {(row.load, row.kappa): (row.wait, row.response, row.utilisation, row.slowdown) for row in table.itertuples()}
    assert got == {
        (8.0, 0.0): (True, True, True, True),
        (8.0, 0.1): (False, True, True, True),
        (4.0, 0.0): (True, False, True, True),
        (2.0, 0.0): (True, True, False, True),
        (1.0, 0.0): (True, True, True, False),
        (0.5, 0.0): (False, True, True, True),
        (0.25, 0.0): (True, True, False, True),
        (0.2, 0.0): (False, True, True, True),
    }
    assert all(type(value) is bool for value in table["wait"])
    # SPACE's slowdown is the base of the slowdown ordering
    slow_space = [*holding(8.0, {("SPACE", "mean_slowdown"): 1.05})]
    assert not orderings(pd.DataFrame(slow_space))["slowdown"].iloc[0]
    # other configuration names
    renamed = pd.DataFrame(holding(8.0)).replace({"configuration": {"STATIC": "S2", "ASAX": "A2"}})
    assert orderings(renamed).empty
    table = orderings(renamed, configurations=("SPACE", "S2", "A2"))
    assert table[["wait", "response", "utilisation", "slowdown"]].iloc[0].tolist() == [True] * 4


# -- report.py ------------------------------------------------------------------------------


def test_published_ratios_are_table3():
    assert LOAD_LABELS == {8.0: "8x", 4.0: "4x", 2.0: "2x"}
    static8 = published_ratios("STATIC", "8x")
    assert static8["wait ratio"] == pytest.approx(1.7 / 3.5)
    assert static8["response ratio"] == pytest.approx(4.8 / 4.4)
    assert static8["U_alloc gain (points)"] == pytest.approx(90 - 53) == pytest.approx(37)
    assert static8["runtime change (%)"] == 10
    asax8 = published_ratios("ASAX", "8x")
    assert asax8["wait ratio"] == pytest.approx(1.8 / 3.5)
    assert asax8["response ratio"] == pytest.approx(3.5 / 4.4)
    assert asax8["U_alloc gain (points)"] == pytest.approx(82 - 53)
    assert asax8["runtime change (%)"] == 3
    asax2 = published_ratios("ASAX", "2x")
    assert asax2["response ratio"] == pytest.approx(0.9 / 1.4)
    assert asax2["U_alloc gain (points)"] == pytest.approx(83 - 32) == pytest.approx(51)  # "up to 51 %"
    assert published_ratios("STATIC", "4x")["runtime change (%)"] == 19


def reproduction_summary() -> pd.DataFrame:
    rows = []
    for trace in ("GAIA", "HPC2N"):
        for experiment in ("E1", "E2"):
            for load in (8.0, 4.0, 2.0, 3.0):
                for kappa in (0.0, 0.1):
                    for configuration in ("SPACE", "STATIC", "ASAX", "HEADROOM"):
                        rows.append(
                            {
                                "trace": trace,
                                "experiment": experiment,
                                "load": load,
                                "kappa": kappa,
                                "configuration": configuration,
                                "strategy": configuration,
                                "mean_wait_ratio": 0.5,
                                "mean_response_ratio": 0.75,
                                "alloc_gain_points": 30.0,
                                "runtime_change": 4.0,
                                "runs": 5,
                            }
                        )
    return pd.DataFrame(rows)


def test_reproduction_rows():
    table = reproduction_rows(reproduction_summary())
    assert list(table.columns) == REPRODUCTION_COLUMNS
    # 2 traces x E1 only x κ = 0 only x loads 8, 4, 2 x STATIC and ASAX x 4 columns
    assert len(table) == 2 * 3 * 2 * 4
    assert set(table["paper"]) == {"asax-2024"}
    assert set(table["row"]) == {f"{t} E1 {label}" for t in ("GAIA", "HPC2N") for label in ("8x", "4x", "2x")}
    assert {column.split()[0] for column in table["column"]} == {"STATIC", "ASAX"}
    cells = table.set_index(["row", "column"])
    wait = cells.loc[("GAIA E1 8x", "STATIC wait ratio")]
    assert wait["published"] == pytest.approx(1.7 / 3.5) and wait["ours"] == 0.5
    assert wait["difference"] == pytest.approx(0.5 - 1.7 / 3.5) and wait["table"] == "Table 3 (ratios to Slurm)"
    assert cells.loc[("GAIA E1 8x", "ASAX response ratio"), "published"] == pytest.approx(3.5 / 4.4)
    gain = cells.loc[("HPC2N E1 8x", "STATIC U_alloc gain (points)")]
    assert gain["published"] == pytest.approx(37.0) and gain["difference"] == pytest.approx(30.0 - 37.0)
    runtime = cells.loc[("GAIA E1 4x", "STATIC runtime change (%)")]
    assert runtime["table"] == "Table 2" and runtime["published"] == 19 and runtime["difference"] == -15.0
    assert reproduction_rows(reproduction_summary().query("experiment == 'E2'")).empty


def markdown_inputs():
    runs = run_flush(random_workload(4, 30, 8), Sweep(CONFIGS, [8, 3], [0.0], 1, False, None, "require"), window=10)
    summary = summary_table(runs.assign(trace="GAIA"))
    replayed, _ = run_replay(random_workload(5, 30, 8), Sweep(CONFIGS, [0.5], [0.0], 1, False, None, "require"))
    summary = pd.concat([summary, summary_table(replayed.assign(trace="HPC2N"))], ignore_index=True)
    return summary, orderings(summary)


def test_coscheduling_markdown():
    summary, ordering = markdown_inputs()
    text = coscheduling_markdown(summary, ordering, {"GAIA": "the trace (SWF fields 6, 7 and 10)"})
    assert "absolute hours" in text and "cannot be reproduced" in text
    assert "GAIA: the trace (SWF fields 6, 7 and 10); HPC2N: the trace." in text
    assert "### GAIA, E1 (queue flush of 45-job windows)" in text and "### HPC2N, E2 (online replay)" in text
    assert "### GAIA, E2" not in text and "### HPC2N, E1" not in text
    assert "### The paper's orderings" in text and "### The learner" in text
    # the paper's numbers in parentheses: on E1 rows at a published load only
    static8 = next(line for line in text.splitlines() if line.startswith("| 8 (8x) | 0 | STATIC |"))
    assert f"({1.7 / 3.5:.2f})" in static8 and "(+37)" in static8 and "(+10)" in static8
    static3 = next(line for line in text.splitlines() if line.startswith("| 3 | 0 | STATIC |"))
    assert "(" not in static3
    assert "| 3 | 0 | SPACE |" not in text  # SPACE is the base, not a row
    for _, row in ordering.iterrows():
        assert f"| {row['trace']} | {row['experiment']} | {row['load']:g} | {row['kappa']:g} |" in text
    named = coscheduling_markdown(summary, ordering, {"GAIA": "profile A", "HPC2N": "profile B"})
    assert "GAIA: profile A; HPC2N: profile B." in named


# -- the CLI ----------------------------------------------------------------------------------

CLI_TRACE = "GEN"


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory):
    """A generated workload file, its E1 and E2 runs, the tables and the figures."""
    directory = tmp_path_factory.mktemp("coscheduling_cli")
    workload = random_workload(2, 120, 16)
    path = directory / "gen.parquet"
    write_workload(workload, path, {"command": "test"})
    e1, e2, weights = directory / "e1.parquet", directory / "e2.parquet", directory / "weights.parquet"
    codes = {
        "E1": main(
            [
                "coscheduling-run",
                str(path),
                "--trace",
                CLI_TRACE,
                "--experiment",
                "E1",
                "--loads",
                "8",
                "2",
                "--seeds",
                "2",
                "--window",
                "8",
                "--max-windows",
                "6",
                "--output",
                str(e1),
            ]
        ),
        "E2": main(
            [
                "coscheduling-run",
                str(path),
                "--trace",
                CLI_TRACE,
                "--experiment",
                "E2",
                "--loads",
                "0.5",
                "0.9",
                "--kappas",
                "0",
                "0.1",
                "--seeds",
                "2",
                "--memory",
                "off",
                "--output",
                str(e2),
                "--weights",
                str(weights),
            ]
        ),
    }
    tables = directory / "tables"
    markdown, rows = directory / "section.md", directory / "rows.csv"
    arguments = [str(e1), str(e2), "--outdir", str(tables), "--markdown", str(markdown), "--rows", str(rows)]
    codes["tables"] = main(["coscheduling-tables", *arguments])
    figures = directory / "figures"
    codes["plot"] = main(
        [
            "plot-coscheduling",
            "--tables",
            str(tables),
            "--weights",
            str(weights),
            "--trace",
            CLI_TRACE,
            "--outdir",
            str(figures),
        ]
    )
    return {
        "codes": codes,
        "workload": path,
        "e1": e1,
        "e2": e2,
        "weights": weights,
        "tables": tables,
        "markdown": markdown,
        "rows": rows,
        "figures": figures,
    }


def test_cli_e1_run(cli_runs):
    assert cli_runs["codes"]["E1"] == 0
    runs = pd.read_parquet(cli_runs["e1"])
    assert runs.columns[0] == "trace" and set(runs["trace"]) == {CLI_TRACE}
    # 2 loads x 6 windows x (SPACE, STATIC, HEADROOM once, ASAX 2 seeds)
    assert len(runs) == 2 * 6 * (1 + 1 + 1 + 2)
    workload = read_workload(cli_runs["workload"])
    direct = run_flush(
        workload, Sweep(DEFAULT_CONFIGURATIONS, [8.0, 2.0], [0.0], 2, True, None, "require"), window=8, max_windows=6
    )
    pd.testing.assert_frame_equal(plain(runs), plain(direct.assign(trace=CLI_TRACE)[runs.columns]))
    provenance = read_provenance(cli_runs["e1"])
    assert provenance["experiment"] == "E1" and provenance["window"] == 8 and provenance["max_windows"] == 6
    assert provenance["efficiency_source"] == "the trace (SWF fields 6, 7 and 10)"
    assert provenance["configurations"] == DEFAULT_CONFIGURATIONS and provenance["memory"] == "on"


def test_cli_e2_run(cli_runs):
    assert cli_runs["codes"]["E2"] == 0
    runs, weights = pd.read_parquet(cli_runs["e2"]), pd.read_parquet(cli_runs["weights"])
    assert len(runs) == 2 * (1 + 2 + 2 + 2 * 2)
    workload = read_workload(cli_runs["workload"])
    direct, direct_weights = run_replay(
        workload, Sweep(DEFAULT_CONFIGURATIONS, [0.5, 0.9], [0.0, 0.1], 2, False, None, "require")
    )
    pd.testing.assert_frame_equal(plain(runs.drop(columns=["trace"])), plain(direct))
    assert weights.columns[0] == "trace" and len(weights) == len(direct_weights) > 0
    pd.testing.assert_frame_equal(weights.drop(columns=["trace"]), direct_weights)
    assert read_provenance(cli_runs["weights"])["experiment"] == "E2"


def test_cli_tables(cli_runs):
    assert cli_runs["codes"]["tables"] == 0
    tables = cli_runs["tables"]
    summary = pd.read_csv(tables / "summary.csv")
    runs = pd.concat([pd.read_parquet(cli_runs["e1"]), pd.read_parquet(cli_runs["e2"])], ignore_index=True)
    assert len(pd.read_parquet(tables / "runs.parquet")) == len(runs)
    # E1: 2 loads x 4 configurations; E2: 2 loads x (SPACE + 3 configurations x 2 κ)
    assert len(summary) == 2 * 4 + 2 * (1 + 3 * 2)
    expected = summary_table(runs)
    np.testing.assert_allclose(summary["mean_wait_ratio"], expected["mean_wait_ratio"], equal_nan=True)
    ordering = pd.read_csv(tables / "orderings.csv")
    assert len(ordering) == 2 + 2 * 2  # per load and κ with STATIC and ASAX
    rows = pd.read_csv(cli_runs["rows"])
    assert list(rows.columns) == REPRODUCTION_COLUMNS
    assert len(rows) == 2 * 2 * 4  # E1 at 8x and 2x, STATIC and ASAX, 4 columns
    assert set(rows["row"]) == {f"{CLI_TRACE} E1 8x", f"{CLI_TRACE} E1 2x"}
    text = cli_runs["markdown"].read_text()
    assert f"{CLI_TRACE}: the trace (SWF fields 6, 7 and 10)." in text
    assert f"### {CLI_TRACE}, E1" in text and f"### {CLI_TRACE}, E2" in text


def test_cli_plot(cli_runs):
    assert cli_runs["codes"]["plot"] == 0
    names = ("ratios_e1", "ratios_e2", "utilisation", "slowdown", "weights", "actions")
    expected = {f"{CLI_TRACE}.{name}.{ext}" for name in names for ext in ("png", "pdf")}
    files = {path.name: path for path in cli_runs["figures"].iterdir()}
    assert set(files) == expected
    assert all(path.stat().st_size > 1000 for path in files.values())
    assert files[f"{CLI_TRACE}.weights.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- CLI errors -------------------------------------------------------------------------------


@pytest.fixture
def small_file(tmp_path):
    def write(workload=None, name="small.parquet"):
        path = tmp_path / name
        write_workload(workload or random_workload(6, 20, 8), path)
        return path

    return write


def run_cli(capsys, path, *extra, experiment="E1", output=None):
    output = output or path.with_name("runs.parquet")
    argv = ["coscheduling-run", str(path), "--trace", "T", "--experiment", experiment, "--output", str(output)]
    code = main([*argv, "--loads", "8" if experiment == "E1" else "0.5", *extra])
    captured = capsys.readouterr()
    return code, captured.err, output


def test_cli_rejects_a_strict_filtered_workload(capsys, small_file):
    path = small_file(replace(random_workload(6, 20, 8), filter_mode="strict"))
    code, err, output = run_cli(capsys, path)
    assert code == 2
    assert err.startswith(f"simcore coscheduling-run: error: {path}: filtered with 'strict'")
    assert "truncate" in err and not output.exists()
    truncated = small_file(replace(random_workload(6, 20, 8), filter_mode="truncate"), name="truncated.parquet")
    assert run_cli(capsys, truncated, "--window", "5")[0] == 0


@pytest.mark.parametrize(
    "configurations, message",
    [
        ({"SPACE": {"strategy": "SPACE", "quota": 0.5}}, "configuration 'SPACE': unknown keys ['quota']"),
        ({"STATIC": {"strategy": "STATIC"}}, "the configurations need exactly one with strategy SPACE"),
        (
            {"SPACE": {"strategy": "SPACE"}, "HOT": {"strategy": "HEADROOM", "warm": True}},
            "configuration 'HOT': only an ASAX learner can be warm",
        ),
    ],
)
def test_cli_rejects_bad_configurations(capsys, small_file, configurations, message):
    code, err, output = run_cli(capsys, small_file(), "--configurations", json.dumps(configurations))
    assert code == 2
    assert err.startswith(f"simcore coscheduling-run: error: {message}")
    assert not output.exists()


def test_cli_rejects_weights_with_e1(capsys, small_file):
    path = small_file()
    weights = path.with_name("weights.parquet")
    code, err, _ = run_cli(capsys, path, "--window", "5", "--weights", str(weights))
    assert code == 2
    assert (
        err == "simcore coscheduling-run: error: --weights is written by E2 only (E1's learners are fresh per window)\n"
    )
    assert not weights.exists()


def test_cli_rejects_zero_seeds(capsys, small_file):
    code, err, output = run_cli(capsys, small_file(), "--seeds", "0")
    assert (code, err) == (2, "simcore coscheduling-run: error: --seeds must be >= 1, got 0\n")
    assert not output.exists()


def test_cli_rejects_a_bad_kappa(capsys, small_file):
    # an argparse type error: argparse itself prints the usage and the error, and exits with 2
    with pytest.raises(SystemExit) as exit_info:
        run_cli(capsys, small_file(), "--kappas", "0", "1.5")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "simcore coscheduling-run: error: argument --kappas" in err and "1.5" in err


def test_cli_without_cpu_times_names_the_trace_and_field_6(capsys, small_file):
    bare = random_workload(6, 20, 8, source="traces/NO-CPU-1999.swf")
    bare = replace(bare, efficiency=np.full(len(bare), np.nan))
    path = small_file(bare)
    config = json.dumps({"SPACE": {"strategy": "SPACE"}, "STATIC": {"strategy": "STATIC"}})
    code, err, output = run_cli(capsys, path, "--configurations", config, "--memory", "off", experiment="E2")
    assert code == 2
    # the file given and the trace it was filtered from
    assert err.startswith(f"simcore coscheduling-run: error: {path}: traces/NO-CPU-1999.swf: strategy STATIC needs CPU")
    assert "field 6" in err and "assume-cpu-bound" in err
    assert not output.exists()
    # with SPACE alone, or told to assume CPU-bound jobs, the same file runs
    code, _, output = run_cli(
        capsys, path, "--configurations", config, "--memory", "off", "--efficiency", "assume-cpu-bound", experiment="E2"
    )
    assert code == 0 and len(pd.read_parquet(output)) == 2


# -- progress lines ---------------------------------------------------------------------------


@pytest.mark.parametrize("experiment, unit", [("E1", "settings"), ("E2", "runs")])
def test_cli_run_logs_its_progress(capsys, small_file, monkeypatch, experiment, unit):
    """A line per setting (E1: a load and a run of the grid over every window) or run (E2) on
    stderr, with the time left but on the last; the Parquet rows are those of a run without."""
    monkeypatch.setattr(study, "progress", partial(progress, every=0))  # a line after every unit
    code, err, output = run_cli(capsys, small_file(), "--window", "5", experiment=experiment)
    assert code == 0
    count = 1 + 1 + 3 + 1  # one load: SPACE, STATIC and HEADROOM once, ASAX 3 seeds
    lines = [line for line in err.splitlines() if line.startswith(f"T {experiment} {unit}: ")]
    assert [line.split(", ")[0] for line in lines] == [
        f"T {experiment} {unit}: {done}/{count} ({100 * done / count:.0f} %)" for done in range(1, count + 1)
    ]
    assert all(line.endswith(" left") for line in lines[:-1])
    assert lines[-1].startswith(f"T {experiment} {unit}: {count}/{count} (100 %), ") and lines[-1].endswith("elapsed")
    assert len(pd.read_parquet(output)) == (count * 4 if experiment == "E1" else count)  # 20 jobs: 4 windows of 5
