"""The co-scheduling study's Python layer: study.py, report.py and the CLI of commands.py.

1. run_metrics, the per-job utilisations and slowdown_quantiles on a 3-job schedule worked out by
   hand, with memory off and on (docs: COSCHEDULING §7);
2. the configurations (the ablation keys) and Sweep.grid's settings;
3. the experiments' workloads: E1 windows and machine size m_L, E2 machine size m' and drops (§6);
4. run_flush / run_replay: row counts, determinism, the warm learner's carried state;
5. against_space (ratios, gains, ceilings, HEADROOM), summary_table (percentiles, shares as ratios
   of means);
6. report.py: the paper's Table 3 as ratios, the reproduction rows, the ablations, the markdown section;
7. figures.py: merged legend entries, configuration styles, the ratio figures' panels;
8. `simcore coscheduling-run` E1 and E2, `coscheduling-tables`, `plot-coscheduling`, an ablation
   configuration end to end, and the error paths (exit status 2 and `simcore <command>: error: ...`).
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
from simcore.reporting.style import PALETTE
from simcore.studies.coscheduling import figures, study
from simcore.studies.coscheduling.claims import CLAIM_COLUMNS, claims
from simcore.studies.coscheduling.report import (
    ALLOCATION_GAIN,
    LOAD_LABELS,
    ablation_configurations,
    coscheduling_markdown,
    published_ratios,
    reproduction_rows,
)
from simcore.studies.coscheduling.sharing import (
    EXPERTS,
    SharingInputError,
    SharingResult,
    SharingSettings,
    default_memory_capacity,
    simulate_sharing,
)
from simcore.studies.coscheduling.study import (
    BSLD_TAU,
    CEILINGS,
    DEFAULT_CONFIGURATIONS,
    HOUR,
    SLOWDOWN_QUANTILES,
    SPREAD_COLUMNS,
    UTILISATIONS,
    Sweep,
    against_space,
    allocation_utilisations,
    check_configurations,
    flush_windows,
    flush_workload,
    memory_allocation_utilisations,
    replay_workload,
    run_flush,
    run_metrics,
    run_replay,
    slowdown_quantiles,
    summary_table,
)
from simcore.workloads.files import read_provenance, read_workload, write_workload
from simcore.workloads.progress import progress

# -- helpers ---------------------------------------------------------------------------


def hand_workload(memory=None) -> Workload:
    """Three jobs on 3 processors, submitted at 1000, 1000 and 1005 s.

    STATIC: job 0 (q 2, W 100, u 0.2) starts at 1000; job 1 (q 2, W 5, e 8, u 1) cannot start
    (1 idle processor) and becomes job 0's guest at f = 0.5 (guest bound 16 s <= the shadow time,
    L = 0), rate 0.5, so it ends at 1010 (an overrun: 10 s > e = 8 s); job 0's rate stays
    min(1, 0.5/0.2) = 1. Job 2 (q 2, W 30, e 50) finds job 0 paired at 1005, and at 1010 it would
    need L = 2 > extra = 1, so it starts when job 0 ends, at 1100, and ends at 1130.
    With HAND_MEMORY (400 + 500 <= M = 1000 KB; job 2's unknown, so it never shares) the same.
    """
    return Workload.from_arrays(
        [1000.0, 1000.0, 1005.0],
        [100.0, 5.0, 30.0],
        [100.0, 8.0, 50.0],
        [2, 2, 2],
        3,
        efficiency=[0.2, 1.0, 1.0],
        memory=memory,
    )


HAND_START = np.array([1000.0, 1000.0, 1100.0])
HAND_END = np.array([1100.0, 1010.0, 1130.0])
HAND_DONOR = np.array([-1, 0, -1])
HAND_BUSY_AREA = 2 * 130.0  # two processors held from 1000 to 1130 (the guest shares job 0's)
# CPU allocated (processor-seconds): job 0 holds 1 - f = 0.5 of its 2 processors while job 1 is
# its guest (1000-1010) and both alone after (1010-1100): 10 + 180; the guest f = 0.5 of 2 for
# 10 s; job 2 its 2 processors for 30 s
HAND_ALLOCATED = np.array([10.0 + 180.0, 10.0, 60.0])
HAND_MEMORY = np.array([400.0, 500.0, np.nan])  # KB per processor
HAND_CAPACITY = 1000.0  # KB per processor


def hand_result(learner=None, memory: bool = False) -> SharingResult:
    """The hand schedule as a SharingResult; `memory`: with HAND_MEMORY and HAND_CAPACITY."""
    workload = hand_workload(HAND_MEMORY if memory else None)
    capacity = HAND_CAPACITY if memory else math.nan
    return SharingResult(
        workload=workload,
        settings=SharingSettings(strategy="STATIC", memory=memory, memory_capacity=HAND_CAPACITY if memory else None),
        memory_capacity=capacity,
        efficiency=np.array([0.2, 1.0, 1.0]),
        start=HAND_START.copy(),
        end=HAND_END.copy(),
        donor=HAND_DONOR.copy(),
        quota=np.array([np.nan, 0.5, np.nan]),
        reservation=np.full(3, np.nan),
        allocated=HAND_ALLOCATED.copy(),
        busy_area=HAND_BUSY_AREA,
        learner=learner or {},
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
    np.testing.assert_array_equal(result.allocated, HAND_ALLOCATED)
    assert result.busy_area == HAND_BUSY_AREA
    assert_same_metrics(run_metrics(result), run_metrics(hand_result(result.learner)))
    # memory on: the pair fits (400 + 500 <= 1000 KB), so the schedule is the same
    settings = SharingSettings(strategy="STATIC", memory_capacity=HAND_CAPACITY)
    result = simulate_sharing(hand_workload(HAND_MEMORY), settings)
    np.testing.assert_array_equal(result.start, HAND_START)
    np.testing.assert_array_equal(result.end, HAND_END)
    np.testing.assert_array_equal(result.donor, HAND_DONOR)
    np.testing.assert_array_equal(result.allocated, HAND_ALLOCATED)
    assert result.memory_capacity == HAND_CAPACITY and result.busy_area == HAND_BUSY_AREA
    assert_same_metrics(run_metrics(result), run_metrics(hand_result(result.learner, memory=True)))


def test_run_metrics_by_hand():
    metrics = run_metrics(hand_result(dict(cases=0, loss_sum=0.0, alphas=np.empty((0, 4)), histogram=np.zeros(10))))
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
        "held_utilisation": useful / HAND_BUSY_AREA,  # 110 / 260
        # per job u q W / allocated: 40 / 190, 10 / 10, 60 / 60
        "allocation_utilisation": (40.0 / 190.0 + 1.0 + 1.0) / 3,
        "paired_allocation_utilisation": (40.0 / 190.0 + 1.0) / 2,  # donor 0 and guest 1
        "cases": 0,
        "rounds": 0,
    }
    assert {key: metrics[key] for key in expected} == pytest.approx(expected)
    assert metrics["histogram"] == [0] * 10
    # memory off: no memory utilisation
    for key in ("mean_loss", "memory_allocation_utilisation", "memory_held_utilisation"):
        assert math.isnan(metrics[key]), key
    assert set(metrics) == {
        *expected,
        "histogram",
        "mean_loss",
        "memory_allocation_utilisation",
        "memory_held_utilisation",
    }


def test_per_job_utilisations_by_hand():
    result = hand_result()
    np.testing.assert_allclose(allocation_utilisations(result), [40.0 / 190.0, 1.0, 1.0])
    assert np.isnan(memory_allocation_utilisations(result)).all()  # memory off
    # a job allocated nothing (zero work) has no utilisation and is left out of the mean
    result.allocated = np.array([190.0, 10.0, 0.0])
    result.workload = replace(result.workload, run=np.array([100.0, 5.0, 0.0]))
    utilisations = allocation_utilisations(result)
    np.testing.assert_allclose(utilisations[:2], [40.0 / 190.0, 1.0])
    assert math.isnan(utilisations[2])
    assert run_metrics(result)["allocation_utilisation"] == pytest.approx((40.0 / 190.0 + 1.0) / 2)
    # memory on: mem / M per job of known memory
    result = hand_result(memory=True)
    np.testing.assert_allclose(memory_allocation_utilisations(result)[:2], [0.4, 0.5])
    assert math.isnan(memory_allocation_utilisations(result)[2])
    np.testing.assert_allclose(allocation_utilisations(result), [40.0 / 190.0, 1.0, 1.0])  # memory plays no part


def test_run_metrics_by_hand_with_memory():
    memory_on = run_metrics(hand_result(memory=True))
    memory_off = run_metrics(hand_result())
    # mean mem / M over the jobs of known memory: (400 + 500) / 2 / 1000
    assert memory_on["memory_allocation_utilisation"] == pytest.approx(0.45)
    # Σ mem q (end - start) over the jobs of known memory / (M busy_area):
    # (400·2·100 + 500·2·10) / (1000·260) = 90000 / 260000
    assert memory_on["memory_held_utilisation"] == pytest.approx(9.0 / 26.0)
    # everything else is memory's business only through the schedule
    others = {key: value for key, value in memory_off.items() if not key.startswith("memory_")}
    assert_same_metrics(memory_on, others)


def test_run_metrics_learner_fields_and_empty_sets():
    alphas = np.array([[0.4, 0.2, 0.2, 0.2], [0.5, 0.1, 0.2, 0.2]])
    metrics = run_metrics(hand_result(dict(cases=4, loss_sum=1.0, alphas=alphas, histogram=np.array([1, 0, 3, 0]))))
    assert (metrics["cases"], metrics["mean_loss"], metrics["rounds"]) == (4, 0.25, 2)
    assert metrics["histogram"] == [1, 0, 3, 0] and all(type(count) is int for count in metrics["histogram"])

    # no job shares and every job has zero work: the slowdowns are NaN, nothing divides by zero
    workload = Workload.from_arrays([0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [1, 1], 2)
    result = simulate_sharing(workload, SharingSettings(strategy="SPACE", memory=False))
    np.testing.assert_array_equal(result.allocated, [0.0, 0.0])
    metrics = run_metrics(result)
    assert metrics["makespan"] == 0.0 and metrics["paired_jobs"] == 0 and metrics["guests"] == 0
    nan_keys = (
        "mean_slowdown",
        "p95_slowdown",
        "mean_paired_slowdown",
        "cpu_utilisation",
        "held_utilisation",
        "allocation_utilisation",
        "paired_allocation_utilisation",
        "memory_allocation_utilisation",
        "memory_held_utilisation",
    )
    for key in nan_keys:
        assert math.isnan(metrics[key]), key
    assert metrics["mean_bsld"] == 1.0
    assert slowdown_quantiles(result) == {"slowdown_quantiles": [], "paired_slowdown_quantiles": []}
    # memory on, nothing held (busy area 0): the memory per job is known, the held share is not
    workload = replace(workload, memory=np.array([100.0, 300.0]))
    result = simulate_sharing(workload, SharingSettings(strategy="SPACE", memory_capacity=400.0))
    metrics = run_metrics(result)
    assert result.busy_area == 0.0
    assert metrics["memory_allocation_utilisation"] == pytest.approx(0.5)  # (0.25 + 0.75) / 2
    assert math.isnan(metrics["memory_held_utilisation"]) and math.isnan(metrics["allocation_utilisation"])


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
    ablations = {
        "SPACE": {"strategy": "SPACE"},
        "ASAX-unprotected": {"strategy": "ASAX", "protect_reservation": False},
        "ASAX-walk-ends": {"strategy": "ASAX", "fall_through": False},
        "ASAX-frozen": {"strategy": "ASAX", "learn": False, "warm": True},
        "ASAX-pressure": {"strategy": "ASAX", "interference": "pressure", "memory_capacity": 5e5},
        "STATIC-pressure": {"strategy": "STATIC", "interference": "pressure", "loss": "walltime"},
    }
    assert check_configurations(ablations) == ablations
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
        "interference 'linear'": {"SPACE": {"strategy": "SPACE"}, "A": {"strategy": "ASAX", "interference": "linear"}},
        "memory capacity must be positive": {
            "SPACE": {"strategy": "SPACE"},
            "A": {"strategy": "ASAX", "memory_capacity": 0},
        },
        "unknown keys \\['kappa'\\]": {"SPACE": {"strategy": "SPACE"}, "A": {"strategy": "ASAX", "kappa": 0.1}},
    }
    for message, configurations in cases.items():
        with pytest.raises(SharingInputError, match=message):
            check_configurations(configurations)


def test_sweep_grid_settings_and_a_configurations_memory_capacity():
    workload = random_workload(1, 30, 8)
    trace_capacity = default_memory_capacity(workload)
    assert trace_capacity == 2**20  # the 99th percentile (9e5 KB) rounded up to 1 GiB
    configurations = {
        "SPACE": {"strategy": "SPACE"},
        "ASAX": {"strategy": "ASAX"},
        "ASAX-small": {"strategy": "ASAX", "memory_capacity": 5e5, "warm": True},
        "ASAX-unprotected": {"strategy": "ASAX", "protect_reservation": False, "interference": "pressure"},
    }
    grid = list(Sweep(configurations, (8,), (0.0, 0.2), 2, True, None, "require").grid(workload))
    # SPACE once (κ = 0, seed 0), each ASAX at 2 κ x 2 seeds
    assert [(name, kappa, seed) for name, _, kappa, seed, _ in grid] == [
        ("SPACE", 0.0, 0),
        *((name, kappa, seed) for name in list(configurations)[1:] for kappa in (0.0, 0.2) for seed in (0, 1)),
    ]
    settings = {(name, kappa): s for name, _, kappa, _, s in grid}
    # the trace's capacity, but where a configuration sets its own
    assert settings[("SPACE", 0.0)].memory_capacity == trace_capacity
    assert settings[("ASAX", 0.2)].memory_capacity == trace_capacity
    assert settings[("ASAX-small", 0.2)].memory_capacity == 5e5
    assert settings[("ASAX-unprotected", 0.0)].memory_capacity == trace_capacity
    # the options reach the settings; `warm` is not a setting
    unprotected = settings[("ASAX-unprotected", 0.2)]
    assert (unprotected.protect_reservation, unprotected.interference, unprotected.kappa) == (False, "pressure", 0.2)
    assert settings[("ASAX", 0.2)].protect_reservation and settings[("ASAX", 0.2)].interference == "constant"
    assert all(s.memory and s.efficiency == "require" for s in settings.values())
    # a sweep's own capacity replaces the trace's, a configuration's replaces both
    grid = Sweep(configurations, (8,), (0.0,), 1, True, 3e6, "require").grid(workload, efficiency="assume-cpu-bound")
    capacities = {name: s.memory_capacity for name, _, _, _, s in grid}
    assert capacities == {"SPACE": 3e6, "ASAX": 3e6, "ASAX-small": 5e5, "ASAX-unprotected": 3e6}
    # memory off: no capacity from the trace (a configuration's is kept but not used)
    grid = list(Sweep(configurations, (8,), (0.0,), 1, False, None, "require").grid(workload))
    assert {name: s.memory_capacity for name, _, _, _, s in grid} == {
        "SPACE": None,
        "ASAX": None,
        "ASAX-small": 5e5,
        "ASAX-unprotected": None,
    }
    assert not any(s.memory for *_, s in grid)


def test_a_configurations_memory_capacity_changes_its_runs():
    """The node-memory ablation: a smaller capacity forbids the pairs that no longer fit."""
    workload = random_workload(4, 30, 8)
    configurations = {
        "SPACE": {"strategy": "SPACE"},
        "STATIC": {"strategy": "STATIC"},
        "STATIC-small": {"strategy": "STATIC", "memory_capacity": 4e5},
    }
    runs = run_flush(workload, Sweep(configurations, [2], [0.0], 1, True, None, "require"), window=10)
    by_name = runs.set_index(["configuration", "window"])
    flushed = [flush_workload(workload, indices, 2)[0] for indices in flush_windows(workload, 10)]
    for window, jobs in enumerate(flushed):
        small = simulate_sharing(
            jobs, SharingSettings(strategy="STATIC", memory_capacity=4e5, efficiency="assume-cpu-bound")
        )
        assert_same_metrics(by_name.loc[("STATIC-small", window)], run_metrics(small))
    assert (
        by_name.xs("STATIC-small")["guests"].sum() < by_name.xs("STATIC")["guests"].sum()
    )  # jobs of 5e5 or 9e5 KB do not fit 4e5


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


# -- against_space, summary_table, claims ------------------------------------------------------


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
        "held_utilisation": 0.5,
        "allocation_utilisation": 0.6,
        "paired_allocation_utilisation": math.nan,
        "memory_allocation_utilisation": 0.25,
        "memory_held_utilisation": 0.2,
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
                held_utilisation=0.9,
                allocation_utilisation=0.75,
                memory_held_utilisation=0.35,
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
    assert UTILISATIONS == ("cpu_utilisation", "held_utilisation", "allocation_utilisation", "memory_held_utilisation")
    for metric in UTILISATIONS:
        assert (space[f"{metric}_gain"] == 0).all(), metric
    static = merged[(merged["configuration"] == "STATIC") & (merged["window"] == 0)].iloc[0]
    assert static["mean_wait_ratio"] == 0.5 and static["mean_response_ratio"] == 1.25
    assert static["makespan_ratio"] == pytest.approx(0.9)
    assert static["cpu_utilisation_gain"] == pytest.approx(3.0)
    assert static["held_utilisation_gain"] == pytest.approx(40.0)
    assert static["allocation_utilisation_gain"] == pytest.approx(15.0)
    assert static["memory_held_utilisation_gain"] == pytest.approx(15.0)
    assert static["runtime_change"] == pytest.approx(20.0)
    assert static["mean_wait_space"] == 100.0 and static["allocation_utilisation_space"] == 0.6
    # window 1: SPACE waited 0 s, so the wait ratio is undefined; κ does not select the base
    late = merged[(merged["configuration"] == "STATIC") & (merged["window"] == 1)].iloc[0]
    assert math.isnan(late["mean_wait_ratio"]) and late["makespan_ratio"] == pytest.approx(1.1)
    assert late["cpu_utilisation_gain"] == pytest.approx(-10.0)  # 0.3 against SPACE's 0.4
    other = merged[merged["configuration"] == "A2"].iloc[0]
    assert other["mean_wait_ratio"] == 0.25 and other["mean_wait_space"] == 40.0


def test_against_space_ceilings_and_headroom():
    """Ceilings: U_held's 100·min(U, 1 - U), U_alloc's 100·(1 - U) of SPACE's U on the window;
    HEADROOM's gain of the same trace, experiment, load, window and κ."""

    def row(name, **values):
        strategy = {"ASAX-frozen": "ASAX"}.get(name, name)
        return run_row(configuration=name, strategy=strategy, **values)

    runs = pd.DataFrame(
        [
            # window 0: SPACE U_held 0.3 (ceiling 30), U_alloc 0.6 (ceiling 40)
            row("SPACE", held_utilisation=0.3, allocation_utilisation=0.6),
            row("HEADROOM", held_utilisation=0.45, allocation_utilisation=0.9),  # gains 15, 30
            row("HEADROOM", kappa=0.1, held_utilisation=0.36, allocation_utilisation=0.8),  # gains 6, 20
            row("STATIC", held_utilisation=0.42, allocation_utilisation=0.84, cpu_utilisation=0.35),  # 12, 24
            row("ASAX", kappa=0.1, held_utilisation=0.33, allocation_utilisation=0.7),  # 3, 10
            row("ASAX", kappa=0.1, seed=1, held_utilisation=0.3, allocation_utilisation=0.65),  # 0, 5
            row("ASAX-frozen", kappa=0.2, held_utilisation=0.36, allocation_utilisation=0.8),  # no HEADROOM at 0.2
            # window 1: SPACE U_held 0.5 (ceiling 50), U_alloc 1 (ceiling 0); no HEADROOM
            row("SPACE", window=1, held_utilisation=0.5, allocation_utilisation=1.0),
            row("STATIC", window=1, held_utilisation=0.6, allocation_utilisation=1.0),  # gains 10, 0
            # window 2: SPACE U_held 0.6 (ceiling 40), U_alloc 0.5 (ceiling 50); HEADROOM gains -2 and 0
            row("SPACE", window=2, held_utilisation=0.6, allocation_utilisation=0.5),
            row("HEADROOM", window=2, held_utilisation=0.58, allocation_utilisation=0.5),
            row("STATIC", window=2, held_utilisation=0.64, allocation_utilisation=0.55),  # gains 4, 5
            # trace U, window 0: the same load and window as T's HEADROOM, but T's is not U's
            row("SPACE", trace="U", held_utilisation=0.3, allocation_utilisation=0.6),
            row("STATIC", trace="U", held_utilisation=0.42, allocation_utilisation=0.84),
            # E2 of trace T: the same load and window, another experiment
            row("SPACE", experiment="E2", held_utilisation=0.3, allocation_utilisation=0.6),
            row("STATIC", experiment="E2", held_utilisation=0.42, allocation_utilisation=0.84),
        ]
    )
    merged = against_space(runs)
    assert len(merged) == len(runs)
    assert set(CEILINGS) == {"held_utilisation", "allocation_utilisation"}
    columns = [
        f"{metric}_{part}"
        for metric in ("held_utilisation", "allocation_utilisation")
        for part in ("gain", "ceiling", "of_ceiling", "headroom", "of_headroom")
    ]

    def got(name, trace="T", experiment="E1", window=0, kappa=0.0, seed=0):
        picked = merged[
            (merged["configuration"] == name)
            & (merged["trace"] == trace)
            & (merged["experiment"] == experiment)
            & (merged["window"] == window)
            & (merged["kappa"] == kappa)
            & (merged["seed"] == seed)
        ]
        assert len(picked) == 1
        return picked.iloc[0][columns].astype(float).to_numpy()

    nan = math.nan
    #          U_held: gain, ceiling, of ceiling, headroom, of headroom; U_alloc: the same
    expected = {
        ("STATIC",): [12, 30, 0.4, 15, 0.8, 24, 40, 0.6, 30, 0.8],
        ("HEADROOM",): [15, 30, 0.5, 15, 1.0, 30, 40, 0.75, 30, 1.0],
        ("SPACE",): [0, 30, 0.0, 15, 0.0, 0, 40, 0.0, 30, 0.0],
        ("HEADROOM", "T", "E1", 0, 0.1): [6, 30, 0.2, 6, 1.0, 20, 40, 0.5, 20, 1.0],
        ("ASAX", "T", "E1", 0, 0.1): [3, 30, 0.1, 6, 0.5, 10, 40, 0.25, 20, 0.5],
        ("ASAX", "T", "E1", 0, 0.1, 1): [0, 30, 0.0, 6, 0.0, 5, 40, 0.125, 20, 0.25],
        # no HEADROOM run at κ = 0.2: no headroom
        ("ASAX-frozen", "T", "E1", 0, 0.2): [6, 30, 0.2, nan, nan, 20, 40, 0.5, nan, nan],
        # a window without HEADROOM; U_alloc's ceiling is 0 (SPACE used all it was allocated)
        ("STATIC", "T", "E1", 1): [10, 50, 0.2, nan, nan, 0, 0, nan, nan, nan],
        ("SPACE", "T", "E1", 1): [0, 50, 0.0, nan, nan, 0, 0, nan, nan, nan],
        # HEADROOM gained nothing or lost: no share of it
        ("STATIC", "T", "E1", 2): [4, 40, 0.1, -2, nan, 5, 50, 0.1, 0, nan],
        ("HEADROOM", "T", "E1", 2): [-2, 40, -0.05, -2, nan, 0, 50, 0.0, 0, nan],
        # another trace, another experiment: T's E1 HEADROOM is not theirs
        ("STATIC", "U"): [12, 30, 0.4, nan, nan, 24, 40, 0.6, nan, nan],
        ("STATIC", "T", "E2"): [12, 30, 0.4, nan, nan, 24, 40, 0.6, nan, nan],
    }
    for key, values in expected.items():
        np.testing.assert_allclose(got(*key), values, atol=1e-9, err_msg=str(key))


def test_summary_table_means_and_percentiles():
    rows = []
    # SPACE's U_alloc per window: ceilings 50, 40, 30, 20, 0; ASAX gains 10, 10, 10, 10, 0;
    # HEADROOM gains 20, 40, 20, 10, 0
    space_alloc = [0.5, 0.6, 0.7, 0.8, 1.0]
    asax_alloc = [0.6, 0.7, 0.8, 0.9, 1.0]
    headroom_alloc = [0.7, 1.0, 0.9, 0.9, 1.0]
    for window, wait in enumerate([50.0, 100.0, 150.0, 200.0, 250.0]):
        rows.append(run_row(window=window, cases=0, allocation_utilisation=space_alloc[window]))
        rows.append(
            run_row(
                window=window,
                configuration="ASAX",
                strategy="ASAX",
                mean_wait=wait,
                allocation_utilisation=asax_alloc[window],
                held_utilisation=0.55,
                cpu_utilisation=0.3 + 0.01 * window,
                memory_allocation_utilisation=0.1 * window,
                paired_allocation_utilisation=0.5 if window else math.nan,  # window 0: no pair
                size_binds=window == 0,
                cases=window,
                mean_loss=0.1 * window,
                guest_share=0.2,
                mean_slowdown=1.1,
            )
        )
        rows.append(
            run_row(
                window=window,
                configuration="HEADROOM",
                strategy="HEADROOM",
                allocation_utilisation=headroom_alloc[window],
            )
        )
    rows.append(run_row(configuration="ASAX", strategy="ASAX", kappa=0.1, mean_wait=10.0))
    summary = summary_table(pd.DataFrame(rows))
    assert len(summary) == 4  # SPACE, ASAX at κ = 0 and at κ = 0.1, HEADROOM
    for column in SPREAD_COLUMNS:
        assert {column, f"{column}_p10", f"{column}_p90"} <= set(summary.columns), column
    asax = summary[(summary["configuration"] == "ASAX") & (summary["kappa"] == 0.0)].iloc[0]
    # ratios over windows: 0.5, 1, 1.5, 2, 2.5
    assert asax["runs"] == 5
    assert asax["mean_wait_ratio"] == pytest.approx(1.5)
    assert asax["mean_wait_ratio_p10"] == pytest.approx(0.7)
    assert asax["mean_wait_ratio_p90"] == pytest.approx(2.3)
    assert asax["mean_response_ratio"] == asax["mean_response_ratio_p10"] == asax["mean_response_ratio_p90"] == 1.0
    assert asax["mean_wait_h"] == pytest.approx(150.0 / HOUR)
    assert asax["mean_response_h"] == pytest.approx(200.0 / HOUR) and asax["makespan_h"] == pytest.approx(400 / HOUR)
    assert asax["allocation_utilisation"] == pytest.approx(0.8)
    assert asax["allocation_utilisation_p10"] == pytest.approx(0.64)  # 0.6 + 0.4·0.1
    assert asax["allocation_utilisation_p90"] == pytest.approx(0.96)
    assert asax["allocation_utilisation_gain"] == pytest.approx(8.0)  # gains 10, 10, 10, 10, 0
    assert asax["allocation_utilisation_gain_p10"] == pytest.approx(4.0)
    assert asax["allocation_utilisation_gain_p90"] == pytest.approx(10.0)
    assert asax["cpu_utilisation"] == pytest.approx(0.32)
    assert asax["cpu_utilisation_gain"] == pytest.approx(2.0)  # 0, 1, 2, 3, 4 points
    assert asax["cpu_utilisation_gain_p10"] == pytest.approx(0.4)
    assert asax["cpu_utilisation_gain_p90"] == pytest.approx(3.6)
    assert asax["held_utilisation_gain"] == pytest.approx(5.0) and asax["memory_held_utilisation_gain"] == 0.0
    assert asax["memory_allocation_utilisation"] == pytest.approx(0.2)  # a mean, without percentiles
    assert "memory_allocation_utilisation_p10" not in summary
    assert asax["paired_allocation_utilisation"] == 0.5  # over the windows with pairs
    assert asax["size_binds"] == pytest.approx(0.2)
    assert asax["cases"] == 10 and asax["mean_loss"] == pytest.approx(0.2)
    assert asax["runtime_change"] == pytest.approx(10.0) and asax["guest_share"] == pytest.approx(0.2)
    # a share's mean is the mean gain over the mean ceiling: 8 / mean(50, 40, 30, 20, 0) = 8 / 28,
    # not the mean of the windows' shares (0.2, 0.25, 1/3, 0.5; the last window's ceiling is 0)
    assert asax["allocation_utilisation_ceiling"] == pytest.approx(28.0)
    assert asax["allocation_utilisation_ceiling_p10"] == pytest.approx(8.0)
    assert asax["allocation_utilisation_ceiling_p90"] == pytest.approx(46.0)
    assert asax["allocation_utilisation_of_ceiling"] == pytest.approx(8.0 / 28.0)
    # ... its percentiles are the windows' shares': 0.2, 0.25, 1/3, 0.5
    assert asax["allocation_utilisation_of_ceiling_p10"] == pytest.approx(0.2 + 0.3 * 0.05)
    assert asax["allocation_utilisation_of_ceiling_p90"] == pytest.approx(1 / 3 + 0.7 * (0.5 - 1 / 3))
    # of HEADROOM: 8 / mean(20, 40, 20, 10, 0) = 8 / 18; per window 0.5, 0.25, 0.5, 1 (and none)
    assert asax["allocation_utilisation_headroom"] == pytest.approx(18.0)
    assert asax["allocation_utilisation_of_headroom"] == pytest.approx(8.0 / 18.0)
    assert asax["allocation_utilisation_of_headroom_p10"] == pytest.approx(0.25 + 0.3 * 0.25)
    assert asax["allocation_utilisation_of_headroom_p90"] == pytest.approx(0.5 + 0.7 * 0.5)
    # U_held: SPACE 0.5 everywhere (ceiling 50), ASAX gains 5; HEADROOM gains nothing: no share of it
    assert asax["held_utilisation_ceiling"] == pytest.approx(50.0)
    assert asax["held_utilisation_of_ceiling"] == pytest.approx(0.1)
    assert asax["held_utilisation_headroom"] == 0.0 and math.isnan(asax["held_utilisation_of_headroom"])
    headroom = summary[summary["configuration"] == "HEADROOM"].iloc[0]
    assert headroom["allocation_utilisation_of_headroom"] == pytest.approx(1.0)
    assert headroom["allocation_utilisation_of_ceiling"] == pytest.approx(18.0 / 28.0)
    space = summary[summary["configuration"] == "SPACE"].iloc[0]
    assert space["runs"] == 5 and space["mean_wait_ratio_p10"] == space["mean_wait_ratio_p90"] == 1.0
    assert math.isnan(space["mean_loss"]) and space["cases"] == 0
    assert math.isnan(space["paired_allocation_utilisation"])
    assert space["allocation_utilisation_gain"] == 0.0 and space["allocation_utilisation_of_headroom"] == 0.0
    single = summary[summary["kappa"] == 0.1].iloc[0]
    assert single["runs"] == 1 and single["mean_wait_ratio"] == pytest.approx(0.1)
    assert single["mean_wait_ratio_p10"] == single["mean_wait_ratio_p90"] == pytest.approx(0.1)
    # window 0 only: gain 10 of a ceiling of 50; no HEADROOM at κ = 0.1
    assert single["allocation_utilisation_of_ceiling"] == pytest.approx(0.2)
    assert math.isnan(single["allocation_utilisation_headroom"])
    assert math.isnan(single["allocation_utilisation_of_headroom"])
    assert math.isnan(single["allocation_utilisation_of_headroom_p10"])


def test_summary_table_share_of_a_zero_ceiling():
    """Every window's ceiling 0 (SPACE used all it was allocated): no share, whatever the gain."""
    rows = [
        run_row(allocation_utilisation=1.0, held_utilisation=1.0),
        run_row(configuration="STATIC", strategy="STATIC", allocation_utilisation=1.0, held_utilisation=1.0),
    ]
    static = summary_table(pd.DataFrame(rows)).query("configuration == 'STATIC'").iloc[0]
    for metric in CEILINGS:
        assert static[f"{metric}_ceiling"] == 0.0 and static[f"{metric}_gain"] == 0.0
        for part in ("of_ceiling", "of_ceiling_p10", "of_ceiling_p90", "of_headroom"):
            assert math.isnan(static[f"{metric}_{part}"]), (metric, part)


def test_summary_of_real_runs_has_space_at_one():
    runs = run_flush(random_workload(4, 30, 8), Sweep(CONFIGS, [8, 2], [0.0], 2, False, None, "require"), window=10)
    summary = summary_table(runs.assign(trace="T"))
    assert len(summary) == 2 * 4
    space = summary[summary["configuration"] == "SPACE"]
    for metric in ("mean_response", "makespan"):
        for suffix in ("", "_p10", "_p90"):
            np.testing.assert_allclose(space[f"{metric}_ratio{suffix}"], 1.0)
    assert summary.set_index(["load", "configuration"]).loc[(8.0, "ASAX"), "runs"] == 3 * 2  # windows x seeds


# -- report.py ------------------------------------------------------------------------------


def test_published_ratios_are_table3():
    assert LOAD_LABELS == {8.0: "8x", 4.0: "4x", 2.0: "2x"}
    static8 = published_ratios("STATIC", "8x")
    assert static8["wait ratio"] == pytest.approx(1.7 / 3.5)
    assert static8["response ratio"] == pytest.approx(4.8 / 4.4)
    assert ALLOCATION_GAIN == "utilisation of allocated capacity gain (points)"
    assert list(static8) == ["wait ratio", "response ratio", ALLOCATION_GAIN, "runtime change (%)"]
    assert static8[ALLOCATION_GAIN] == pytest.approx(90 - 53) == pytest.approx(37)
    assert static8["runtime change (%)"] == 10
    asax8 = published_ratios("ASAX", "8x")
    assert asax8["wait ratio"] == pytest.approx(1.8 / 3.5)
    assert asax8["response ratio"] == pytest.approx(3.5 / 4.4)
    assert asax8[ALLOCATION_GAIN] == pytest.approx(82 - 53)
    assert asax8["runtime change (%)"] == 3
    asax2 = published_ratios("ASAX", "2x")
    assert asax2["response ratio"] == pytest.approx(0.9 / 1.4)
    assert asax2[ALLOCATION_GAIN] == pytest.approx(83 - 32) == pytest.approx(51)  # "up to 51 %"
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
                                "allocation_utilisation_gain": 30.0,
                                "held_utilisation_gain": 5.0,
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
    assert set(table["column"]) == {
        f"{name} {column}" for name in ("STATIC", "ASAX") for column in published_ratios("ASAX", "8x")
    }
    # the gain is U_alloc's (30 points), not U_held's (5)
    gain = cells.loc[("HPC2N E1 8x", f"STATIC {ALLOCATION_GAIN}")]
    assert gain["published"] == pytest.approx(37.0) and gain["ours"] == 30.0
    assert gain["difference"] == pytest.approx(30.0 - 37.0) and gain["table"] == "Table 3 (ratios to Slurm)"
    assert cells.loc[("GAIA E1 2x", f"ASAX {ALLOCATION_GAIN}"), "published"] == pytest.approx(51.0)
    assert set(table["sample"]) == {"queue-flush windows (κ = 0)"} and set(table["sample_size"]) == {5.0}
    assert set(table["trace"]) == {"GAIA", "HPC2N"}
    runtime = cells.loc[("GAIA E1 4x", "STATIC runtime change (%)")]
    assert runtime["table"] == "Table 2" and runtime["published"] == 19 and runtime["difference"] == -15.0
    assert reproduction_rows(reproduction_summary().query("experiment == 'E2'")).empty


def test_ablation_configurations():
    configurations = {
        "SPACE": {"strategy": "SPACE"},
        "STATIC": {"strategy": "STATIC"},
        "ASAX": {"strategy": "ASAX"},
        "ASAX4": {"strategy": "ASAX", "warm": True, "levels": 4},  # variants: levels and warm start
        "ASAX-unprotected": {"strategy": "ASAX", "protect_reservation": False},
        # every ablation key, listed in ABLATION_KEYS' order whatever the configuration's
        "ASAX-all": {
            "memory_capacity": 5e5,
            "learn": False,
            "fall_through": False,
            "protect_reservation": False,
            "interference": "pressure",
            "strategy": "ASAX",
        },
        "STATIC-pressure": {"strategy": "STATIC", "interference": "pressure"},  # ablations are ASAX's
    }
    assert ablation_configurations(configurations) == {
        "ASAX4": "levels 4, warm True",
        "ASAX-unprotected": "protect_reservation False",
        "ASAX-all": "interference pressure, protect_reservation False, fall_through False, learn False, "
        "memory_capacity 500000.0",
    }
    assert ablation_configurations(DEFAULT_CONFIGURATIONS) == {}
    assert ablation_configurations({}) == {}


# the title of the report's section of ASAX's variants and ablations
ABLATIONS_TITLE = "### ASAX's variants and ablations"
ABLATED = {**CONFIGS, "ASAX-unprotected": {"strategy": "ASAX", "protect_reservation": False}}


def markdown_inputs():
    sweep = Sweep(ABLATED, [8, 3], [0.0, 0.1], 1, False, None, "require")
    runs = run_flush(random_workload(4, 30, 8), sweep, window=10).assign(trace="GAIA")
    summary = summary_table(runs)
    replayed, _ = run_replay(random_workload(5, 30, 8), Sweep(CONFIGS, [0.5], [0.0, 0.1], 1, False, None, "require"))
    summary = pd.concat([summary, summary_table(replayed.assign(trace="HPC2N"))], ignore_index=True)
    return summary, claims(pd.concat([runs, replayed.assign(trace="HPC2N")], ignore_index=True))


def markdown_sections(text: str) -> dict:
    """{"### title": [lines]} of a markdown text (the lines before the first title under "")."""
    sections, title = {"": []}, ""
    for line in text.splitlines():
        if line.startswith("### "):
            title = line
            sections[title] = []
        else:
            sections[title].append(line)
    return sections


def markdown_tables(lines: list[str]) -> list[list[list[str]]]:
    """The tables of some markdown lines: per table, its rows (header first, no alignment row) as cells."""
    tables, current = [], None
    for line in lines:
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            if not line.startswith("|--") and not line.startswith("|:-"):
                current.append([cell.strip() for cell in line.strip("|").split(" | ")])
        else:
            current = None
    return tables


def spread(row, column, scale=1.0, fmt=".2f") -> str:
    return f"{scale * row[column]:{fmt}} [{scale * row[f'{column}_p10']:{fmt}}, {scale * row[f'{column}_p90']:{fmt}}]"


def test_coscheduling_markdown():
    summary, checked = markdown_inputs()
    ablations = ablation_configurations(ABLATED)
    text = coscheduling_markdown(summary, checked, {"GAIA": "the trace (SWF fields 6, 7 and 10)"}, ablations)
    assert "absolute hours" in text and "cannot be reproduced" in text
    assert "GAIA: the trace (SWF fields 6, 7 and 10); HPC2N: the trace." in text
    sections = markdown_sections(text)
    assert list(sections) == [
        "",
        "### GAIA, E1 (queue flush of 45-job windows)",
        "### HPC2N, E2 (online replay)",
        "### The paper's claims",
        ABLATIONS_TITLE,
        "### The learner",
    ]
    rows = summary.set_index(["trace", "experiment", "load", "kappa", "configuration"])

    # per trace and experiment: the ratios (SPACE is the base, not a row), then both utilisations
    for title, (trace, experiment) in (
        ("### GAIA, E1 (queue flush of 45-job windows)", ("GAIA", "E1")),
        ("### HPC2N, E2 (online replay)", ("HPC2N", "E2")),
    ):
        ratios, utilisations = markdown_tables(sections[title])
        unit = "windows" if experiment == "E1" else "seeds"
        assert ratios[0] == [
            "load",
            "κ",
            "configuration",
            "wait / SPACE",
            "response / SPACE",
            "makespan / SPACE",
            "runtime change (%)",
            "guests (%)",
            unit,
        ]
        assert utilisations[0] == [
            "load",
            "κ",
            "configuration",
            "U_alloc (%)",
            "gain (points)",
            "of ceiling",
            "of HEADROOM",
            "U_held (%)",
            "gain (points)",
            "of ceiling",
            "of HEADROOM",
        ]
        # the ablations have their own table, not the per-trace ones
        block = summary[(summary["trace"] == trace) & (summary["experiment"] == experiment)]
        shown = [name for name in block["configuration"] if name not in ablations]
        assert [cells[2] for cells in ratios[1:]] == [name for name in shown if name != "SPACE"]
        assert [cells[2] for cells in utilisations[1:]] == shown
        for cells in ratios[1:]:
            load, kappa, name = float(cells[0].split()[0]), float(cells[1]), cells[2]
            row = rows.loc[(trace, experiment, load, kappa, name)]
            published = experiment == "E1" and kappa == 0.0 and load in LOAD_LABELS and name in ("STATIC", "ASAX")
            label = LOAD_LABELS.get(load) if experiment == "E1" else None
            assert cells[0] == (f"{load:g} ({label})" if label else f"{load:g}")
            paper = published_ratios(name, label) if published else None
            assert cells[3] == spread(row, "mean_wait_ratio") + (f" ({paper['wait ratio']:.2f})" if paper else "")
            assert cells[4] == spread(row, "mean_response_ratio") + (
                f" ({paper['response ratio']:.2f})" if paper else ""
            )
            assert cells[5] == spread(row, "makespan_ratio")
            assert cells[6] == f"{row['runtime_change']:+.1f}" + (
                f" ({paper['runtime change (%)']:+.0f})" if paper else ""
            )
            assert cells[7:] == [f"{100 * row['guest_share']:.1f}", str(row["runs"])]
        for cells in utilisations[1:]:
            load, kappa, name = float(cells[0].split()[0]), float(cells[1]), cells[2]
            row = rows.loc[(trace, experiment, load, kappa, name)]
            assert cells[3] == spread(row, "allocation_utilisation", 100, ".1f")
            assert cells[7] == spread(row, "held_utilisation", 100, ".1f")
            if name == "SPACE":
                assert cells[4:7] == cells[8:] == ["", "", ""]
                continue
            published = experiment == "E1" and kappa == 0.0 and load in LOAD_LABELS and name in ("STATIC", "ASAX")
            gain = published_ratios(name, LOAD_LABELS[load])[ALLOCATION_GAIN] if published else None
            for metric, at, paper in (("allocation_utilisation", 4, gain), ("held_utilisation", 8, None)):
                assert cells[at] == spread(row, f"{metric}_gain", fmt="+.1f") + (
                    f" ({paper:+.0f})" if paper is not None else ""
                )
                assert cells[at + 1] == f"{100 * row[f'{metric}_of_ceiling']:.0f} % of {row[f'{metric}_ceiling']:.1f}"
                share = row[f"{metric}_of_headroom"]  # none where HEADROOM gained nothing
                assert cells[at + 2] == (f"{100 * share:.0f} %" if not math.isnan(share) else "–")
            if name == "HEADROOM":  # its own share, where it gained
                for metric, at in (("allocation_utilisation", 6), ("held_utilisation", 10)):
                    assert cells[at] == ("100 %" if row[f"{metric}_headroom"] > 0 else "–")
    gaia = markdown_tables(sections["### GAIA, E1 (queue flush of 45-job windows)"])
    static8 = next(cells for cells in gaia[0] if cells[:3] == ["8 (8x)", "0", "STATIC"])
    assert f"({1.7 / 3.5:.2f})" in static8[3] and "(+10)" in static8[6]
    static8 = next(cells for cells in gaia[1] if cells[:3] == ["8 (8x)", "0", "STATIC"])
    assert static8[4].endswith(" (+37)") and "(" not in static8[8]
    asax8 = next(cells for cells in gaia[1] if cells[:3] == ["8 (8x)", "0", "ASAX"])
    assert asax8[4].endswith(" (+29)")
    assert any(cells[2] == "HEADROOM" and cells[10] == "100 %" for cells in gaia[1])

    # the claims: their outcomes per trace at its lowest κ, then each with its numbers and reason
    claim_lines = sections["### The paper's claims"]
    for trace in ("GAIA", "HPC2N"):
        lowest = checked[(checked["trace"] == trace) & (checked["kappa"] == 0.0)]
        counted = "; ".join(
            f"{claim}: "
            + ", ".join(
                f"{(part['outcome'] == outcome).sum()} {outcome}" for outcome in ("holds", "fails", "undetermined")
            )
            for claim, part in lowest.groupby("claim", sort=False)
        )
        assert f"- **{trace}** (κ = 0, every load and strategy): {counted}." in claim_lines
    (table,) = markdown_tables(claim_lines)
    assert table[0][:7] == ["trace", "experiment", "load", "κ", "claim", "strategy", ""]
    lowest = checked[checked["kappa"] == 0.0]
    assert (
        len(table) - 1 == len(lowest) == 4 * 2 * (2 + 1)
    )  # 4 claims x 2 strategies; GAIA E1 at 2 loads, HPC2N E2 at 1
    for cells, row in zip(table[1:], lowest.itertuples()):
        assert cells == [
            row.trace,
            row.experiment,
            f"{row.load:g}",
            "0",
            row.claim,
            row.configuration,
            row.outcome if row.outcome != "fails" else "**fails**",
            row.evidence,
            row.reason,
        ]
    assert (checked["outcome"] != "holds").any()  # some claim does not hold on these runs, with its reason
    assert any(cells[6] == "**fails**" and cells[8] for cells in table[1:])

    # the ablations beside ASAX, means over the loads at the largest κ
    ablation_lines = sections[ABLATIONS_TITLE]
    assert "Means over the loads of each trace's experiment, at its largest κ (where interference matters)." in (
        ablation_lines
    )
    (table,) = markdown_tables(ablation_lines)
    assert table[0] == [
        "trace",
        "experiment",
        "κ",
        "configuration",
        "changes",
        "wait / SPACE",
        "response / SPACE",
        "U_alloc (%)",
        "U_held (%)",
        "guests (%)",
    ]
    assert [cells[:5] for cells in table[1:]] == [
        ["GAIA", "E1", "0.1", "ASAX", "(the base)"],
        ["GAIA", "E1", "0.1", "ASAX-unprotected", "protect_reservation False"],
        ["HPC2N", "E2", "0.1", "ASAX", "(the base)"],
    ]
    for cells in table[1:]:
        part = summary[
            (summary["trace"] == cells[0]) & (summary["configuration"] == cells[3]) & (summary["kappa"] == 0.1)
        ]
        assert cells[5:] == [
            f"{part['mean_wait_ratio'].mean():.2f}",
            f"{part['mean_response_ratio'].mean():.2f}",
            f"{100 * part['allocation_utilisation'].mean():.1f}",
            f"{100 * part['held_utilisation'].mean():.1f}",
            f"{100 * part['guest_share'].mean():.1f}",
        ]

    # the learner: every ASAX-strategy row
    (table,) = markdown_tables(sections["### The learner"])
    learners = summary[summary["strategy"] == "ASAX"]
    assert len(table) - 1 == len(learners) == 2 * 2 * 2 + 2
    for cells, row in zip(table[1:], learners.itertuples()):
        assert cells == [
            row.trace,
            row.experiment,
            f"{row.load:g}",
            f"{row.kappa:g}",
            row.configuration,
            str(row.cases),
            f"{row.mean_loss:.3f}",
            f"{100 * row.guest_share:.1f}",
        ]

    # no ablations: no section; named sources
    named = coscheduling_markdown(summary, checked, {"GAIA": "profile A", "HPC2N": "profile B"}, {})
    assert "GAIA: profile A; HPC2N: profile B." in named and ABLATIONS_TITLE not in named
    # a gain without a HEADROOM run to set it against: a dash
    missing = summary.copy()
    missing["allocation_utilisation_of_headroom"] = math.nan
    (_, utilisations) = markdown_tables(
        markdown_sections(coscheduling_markdown(missing, checked, {}, {}))["### HPC2N, E2 (online replay)"]
    )
    assert {cells[6] for cells in utilisations[1:]} == {"", "–"}


# -- figures.py --------------------------------------------------------------------------------


def test_configuration_styles():
    styles = figures.configuration_styles(["SPACE", "STATIC", "ASAX", "HEADROOM"])
    assert styles == {
        "SPACE": {"color": PALETTE[0], "marker": "s", "linestyle": "-"},
        "STATIC": {"color": PALETTE[2], "marker": "^", "linestyle": "--"},
        "ASAX": {"color": PALETTE[1], "marker": "o", "linestyle": "-"},
        "HEADROOM": {"color": PALETTE[4], "marker": "D", "linestyle": ":"},
    }
    # the four strategies keep theirs wherever they come; the others take the next free style
    extras = [f"ABL{k}" for k in range(21)]
    styles = figures.configuration_styles(["ABL0", "ASAX", *extras[1:], "SPACE"])
    assert styles["ASAX"] == {"color": PALETTE[1], "marker": "o", "linestyle": "-"}
    assert styles["SPACE"]["color"] == PALETTE[0] and set(styles) == {"ASAX", "SPACE", *extras}
    assert styles["ABL0"] == {"color": PALETTE[3], "marker": "v", "linestyle": "-."}
    # every configuration drawn differently: distinct (colour, marker, line style) ...
    drawn = [(style["color"], style["marker"], str(style["linestyle"])) for style in styles.values()]
    assert len(set(drawn)) == len(drawn) == 23
    # ... the palette's four other colours to the first extras, the first seven each with a marker
    # of their own, none a strategy's
    first = [styles[name] for name in extras[:7]]
    assert len({style["color"] for style in first[:4]}) == 4 and len({style["marker"] for style in first}) == 7
    assert not {style["color"] for style in first} & set(figures.STRATEGY_COLOURS.values())
    assert not {style["marker"] for style in first} & set(figures.MARKERS.values())
    # the same names, the same styles
    assert figures.configuration_styles(["ABL0", "ASAX", *extras[1:], "SPACE"]) == styles


def test_merged_names():
    nan = math.nan
    rows = [
        # configuration, load, value, its 10th percentile
        ("A", 8.0, 1.0, nan),
        ("A", 2.0, 0.5, 0.4),
        ("C", 8.0, 1.0, 0.9),
        ("B", 2.0, 0.5, 0.4),  # B is A, its loads in another order (NaN equal to NaN)
        ("B", 8.0, 1.0, nan),
        ("C", 2.0, 0.5, 0.4),
        ("D", 8.0, 1.0, 0.9),
        ("D", 2.0, 0.6, 0.4),
    ]
    block = pd.DataFrame(rows, columns=["configuration", "load", "v", "v_p10"])
    assert figures.merged_names(block, ["v", "v_p10"]) == {"A": "A = B", "C": "C", "D": "D"}
    # only the plotted columns count
    # the first name kept, in the block's order of configurations (A, C, B, D)
    assert figures.merged_names(block, ["v"]) == {"A": "A = C = B", "D": "D"}
    assert figures.merged_names(block, ["v_p10"]) == {"A": "A = B", "C": "C = D"}
    assert figures.merged_names(block[block["configuration"] == "D"], ["v"]) == {"D": "D"}
    assert figures.merged_names(block.iloc[:0], ["v"]) == {}


def figure_summary() -> pd.DataFrame:
    """E1 and E2 summaries of one trace with STATIC2, a copy of STATIC (the same values)."""
    configurations = {**CONFIGS, "STATIC2": {"strategy": "STATIC"}}
    sweep = Sweep(configurations, [8, 2], [0.0], 1, False, None, "require")
    runs = run_flush(random_workload(4, 30, 8), sweep, window=10)
    replayed, _ = run_replay(random_workload(2, 60, 8), Sweep(configurations, [0.5, 0.9], [0.0], 1, False))
    return summary_table(pd.concat([runs, replayed], ignore_index=True).assign(trace="T"))


def legend_labels(figure) -> list[str]:
    return [text.get_text() for legend in figure.legends for text in legend.get_texts()]


def test_ratio_figures_panels_and_merged_legend():
    summary = figure_summary()
    published = {(name, 8.0): {"mean_wait": 0.5, "mean_response": 0.9} for name in ("STATIC", "ASAX")}
    e1 = figures.ratio_figure(summary, "T", "E1", published)
    e2 = figures.ratio_figure(summary, "T", "E2")
    try:
        assert [axis.get_title() for axis in e1.axes] == [
            "mean wait / SPACE",
            "mean response / SPACE",
            "makespan / SPACE",
        ]
        # a replay's makespan ratio is 1 whatever the strategy: two panels
        assert [axis.get_title() for axis in e2.axes] == ["mean wait / SPACE", "mean response / SPACE"]
        # STATIC2 plots STATIC's values: one entry; SPACE is the base, not a line
        for figure in (e1, e2):
            labels = legend_labels(figure)
            merged = [label for label in labels if " = " in label and not label.startswith("paper")]
            assert len(merged) == 1 and set(merged[0].split(" = ")) == {"STATIC", "STATIC2"}
            assert {"ASAX", "HEADROOM"} <= set(labels) and not {"STATIC", "STATIC2", "SPACE"} & set(labels)
            assert len(labels) == 3 + (figure is e1)  # the paper's hollow markers on E1
        assert "paper, Table 3 (hollow; beside our κ = 0)" in legend_labels(e1)
        assert not any(label.startswith("paper") for label in legend_labels(e2))
    finally:
        figures.plt.close(e1)
        figures.plt.close(e2)
    # a summary that marks its ablations (coscheduling-tables does): they are left out of the figures
    marked = summary.assign(ablation=summary["configuration"] == "STATIC2")
    for figure in (figures.ratio_figure(marked, "T", "E1"), figures.utilisation_figure(marked, "T")):
        try:
            labels = legend_labels(figure)
            assert "STATIC" in labels and not any("STATIC2" in label for label in labels)
        finally:
            figures.plt.close(figure)


def test_merged_legend_keeps_the_first_configuration():
    summary = figure_summary()
    for figure in (figures.ratio_figure(summary, "T", "E1"), figures.utilisation_figure(summary, "T")):
        try:
            assert "STATIC = STATIC2" in legend_labels(figure)
            legend = figure.legends[0]
            handle = legend.legend_handles[legend_labels(figure).index("STATIC = STATIC2")]
            assert handle.get_color() == PALETTE[2]  # STATIC's colour
        finally:
            figures.plt.close(figure)


def test_utilisation_figure_panels_ceilings_and_the_papers_values():
    summary = figure_summary()
    published = {("SPACE", 8.0): 53.0, ("STATIC", 8.0): 90.0, ("ASAX", 8.0): 82.0}
    figure = figures.utilisation_figure(summary, "T", published)
    try:
        titles = [axis.get_title() for axis in figure.axes]
        assert titles == [title for _, title in figures.UTILISATION_PANELS] * 2  # E1, then E2
        labels = legend_labels(figure)
        merged = [label for label in labels if " = " in label]
        assert len(merged) == 1 and set(merged[0].split(" = ")) == {"STATIC", "STATIC2"}
        assert {"ceiling over SPACE (analytic)", "SPACE", "ASAX", "HEADROOM"} <= set(labels)
        assert not {"STATIC", "STATIC2"} & set(labels)
        assert "paper, Table 2 (hollow; beside our lowest κ)" in labels
        # the ceiling over SPACE: U_alloc's 100 %, U_held's min(200 U, 100) of SPACE's U
        for axis, experiment in zip(figure.axes[::2], ("E1", "E2")):
            space = summary[(summary["experiment"] == experiment) & (summary["configuration"] == "SPACE")]
            ceiling = next(line for line in axis.get_lines() if line.get_label() == "ceiling over SPACE (analytic)")
            np.testing.assert_allclose(ceiling.get_ydata(), 100.0)
            np.testing.assert_allclose(ceiling.get_xdata(), space.sort_values("load")["load"])
        for axis, experiment in zip(figure.axes[1::2], ("E1", "E2")):
            space = summary[(summary["experiment"] == experiment) & (summary["configuration"] == "SPACE")]
            ceiling = next(line for line in axis.get_lines() if line.get_label() == "ceiling over SPACE (analytic)")
            held = space.sort_values("load")["held_utilisation"].to_numpy()
            np.testing.assert_allclose(ceiling.get_ydata(), np.minimum(200 * held, 100))
        # the paper's values: hollow markers at load 8 on E1's U_alloc panel only
        hollow = [line for line in figure.axes[0].get_lines() if line.get_markerfacecolor() == "none"]
        assert sorted(float(line.get_ydata()[0]) for line in hollow) == [53.0, 82.0, 90.0]
        assert all(line.get_xdata()[0] == 8.0 for line in hollow)
        assert not any(line.get_markerfacecolor() == "none" for axis in figure.axes[1:] for line in axis.get_lines())
    finally:
        figures.plt.close(figure)


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
    # and whether each configuration is an ablation (none of the default ones)
    assert list(summary.columns) == [*expected.columns, "ablation"] and not summary["ablation"].any()
    for column in (
        "mean_wait_ratio",
        "allocation_utilisation",
        "allocation_utilisation_gain",
        "allocation_utilisation_of_ceiling",
        "held_utilisation_of_headroom",
        "memory_held_utilisation_p90",
        "memory_allocation_utilisation",
    ):
        np.testing.assert_allclose(summary[column], expected[column], equal_nan=True, err_msg=column)
    # E1 ran with memory on, E2 with memory off: memory utilisations on E1's rows only
    assert summary.loc[summary["experiment"] == "E1", "memory_allocation_utilisation"].notna().all()
    assert summary.loc[summary["experiment"] == "E2", "memory_held_utilisation"].isna().all()
    assert not (tables / "orderings.csv").exists()
    checked = pd.read_csv(tables / "claims.csv", keep_default_na=False)
    assert list(checked.columns) == CLAIM_COLUMNS
    assert len(checked) == 4 * 2 * (2 + 2 * 2)  # 4 claims for STATIC and ASAX per load and κ
    direct = claims(runs)
    assert checked["outcome"].tolist() == direct["outcome"].tolist()
    assert checked["reason"].tolist() == direct["reason"].tolist()
    assert checked["evidence"].tolist() == direct["evidence"].tolist()
    rows = pd.read_csv(cli_runs["rows"])
    assert list(rows.columns) == REPRODUCTION_COLUMNS
    assert len(rows) == 2 * 2 * 4  # E1 at 8x and 2x, STATIC and ASAX, 4 columns
    assert set(rows["row"]) == {f"{CLI_TRACE} E1 8x", f"{CLI_TRACE} E1 2x"}
    assert set(rows["sample"]) == {"queue-flush windows (κ = 0)"}
    sizes = rows.groupby(rows["column"].str.split().str[0])["sample_size"].unique().to_dict()
    assert {name: list(values) for name, values in sizes.items()} == {"STATIC": [6], "ASAX": [12]}  # x 2 seeds
    text = cli_runs["markdown"].read_text()
    assert f"{CLI_TRACE}: the trace (SWF fields 6, 7 and 10)." in text
    assert f"### {CLI_TRACE}, E1" in text and f"### {CLI_TRACE}, E2" in text
    assert "### The paper's claims" in text and "### The learner" in text
    assert ABLATIONS_TITLE not in text  # the default configurations have none
    assert text == coscheduling_markdown(expected, direct, {CLI_TRACE: "the trace (SWF fields 6, 7 and 10)"}, {})


def test_cli_plot(cli_runs):
    assert cli_runs["codes"]["plot"] == 0
    names = ("ratios_e1", "ratios_e2", "utilisation", "slowdown", "weights", "actions")
    expected = {f"{CLI_TRACE}.{name}.{ext}" for name in names for ext in ("png", "pdf")}
    files = {path.name: path for path in cli_runs["figures"].iterdir()}
    assert set(files) == expected
    assert all(path.stat().st_size > 1000 for path in files.values())
    assert files[f"{CLI_TRACE}.weights.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_plot_sets_the_papers_table2_beside_u_alloc(cli_runs, monkeypatch, tmp_path):
    """plot-coscheduling hands the utilisation figure the paper's Table 2 CPU utilisation (%, the
    job-weighted means of its per-workflow rows) of Slurm, Static and ASA_X at each cluster load."""
    handed = []
    drawn = figures.utilisation_figure

    def spy(summary, trace, published=None):
        handed.append(published)
        return drawn(summary, trace, published)

    monkeypatch.setattr(figures, "utilisation_figure", spy)
    arguments = ["--tables", str(cli_runs["tables"]), "--trace", CLI_TRACE, "--outdir", str(tmp_path)]
    assert main(["plot-coscheduling", *arguments, "--weights", str(cli_runs["weights"])]) == 0
    assert [{key: round(value, 1) for key, value in values.items()} for values in handed] == [
        {
            ("SPACE", 8.0): 64.3,
            ("STATIC", 8.0): 84.9,
            ("ASAX", 8.0): 87.8,
            ("SPACE", 4.0): 58.2,
            ("STATIC", 4.0): 75.3,
            ("ASAX", 4.0): 77.7,
            ("SPACE", 2.0): 52.3,
            ("STATIC", 2.0): 67.8,
            ("ASAX", 2.0): 82.7,
        }
    ]
    assert (tmp_path / f"{CLI_TRACE}.utilisation.png").stat().st_size > 1000


def test_cli_plot_without_weights(cli_runs, tmp_path):
    arguments = ["--tables", str(cli_runs["tables"]), "--trace", CLI_TRACE, "--outdir", str(tmp_path)]
    assert main(["plot-coscheduling", *arguments]) == 0
    assert (tmp_path / f"{CLI_TRACE}.weights.png").exists()  # an empty figure


def test_cli_ablation_configurations_run_and_are_reported(capsys, small_file, tmp_path):
    """Configurations with the ablation keys run (E1 and E2), their options reaching the runs,
    and coscheduling-tables reads them from the runs files' provenance for the ablation table."""
    configurations = {
        "SPACE": {"strategy": "SPACE"},
        "STATIC": {"strategy": "STATIC"},
        "ASAX": {"strategy": "ASAX"},
        "ASAX-unprotected": {"strategy": "ASAX", "protect_reservation": False},
        "ASAX-small": {"strategy": "ASAX", "memory_capacity": 4e5, "interference": "pressure"},
        "ASAX-frozen": {"strategy": "ASAX", "learn": False, "fall_through": False},
    }
    path = small_file(random_workload(7, 40, 8))
    text = json.dumps(configurations)
    code, err, e1 = run_cli(
        capsys, path, "--configurations", text, "--window", "10", "--seeds", "1", "--kappas", "0", "0.1"
    )
    assert code == 0 and "error" not in err
    weights = tmp_path / "weights.parquet"
    e2_options = ("--configurations", text, "--seeds", "1", "--memory", "off", "--kappas", "0", "0.1")
    e2_options += ("--weights", str(weights))
    code, err, e2 = run_cli(capsys, path, *e2_options, experiment="E2", output=tmp_path / "e2.parquet")
    assert code == 0 and "error" not in err
    runs = plain(pd.read_parquet(e1))
    assert read_provenance(e1)["configurations"] == configurations
    # 4 windows x (SPACE once, 5 others at 2 κ)
    assert len(runs) == 4 * (1 + 5 * 2)
    workload = read_workload(path)
    capacity = default_memory_capacity(workload)
    options = {
        "ASAX-unprotected": dict(protect_reservation=False, memory_capacity=capacity),
        "ASAX-small": dict(memory_capacity=4e5, interference="pressure"),
        "ASAX-frozen": dict(learn=False, fall_through=False, memory_capacity=capacity),
    }
    jobs, _ = flush_workload(workload, np.arange(10, 20), 8.0)
    for name, settings in options.items():
        row = runs[(runs["configuration"] == name) & (runs["window"] == 1) & (runs["kappa"] == 0.1)].iloc[0]
        settings = SharingSettings(strategy="ASAX", kappa=0.1, efficiency="assume-cpu-bound", **settings)
        assert_same_metrics(row, run_metrics(simulate_sharing(jobs, settings, seed=[0, 1])))
    replayed = pd.read_parquet(e2)
    assert set(replayed["configuration"]) == set(configurations)
    # the tables: an ablation table beside ASAX, from the provenance of both runs files
    tables, markdown, rows = tmp_path / "tables", tmp_path / "section.md", tmp_path / "rows.csv"
    arguments = ["--outdir", str(tables), "--markdown", str(markdown), "--rows", str(rows)]
    assert main(["coscheduling-tables", str(e1), str(e2), *arguments]) == 0
    sections = markdown_sections(markdown.read_text())
    assert (
        "Means over the loads of each trace's experiment, at its largest κ (where interference matters)."
        in (sections[ABLATIONS_TITLE])
    )
    (table,) = markdown_tables(sections[ABLATIONS_TITLE])
    assert [cells[:2] + cells[3:5] for cells in table[1:]] == [
        [trace, experiment, name, changes]
        for trace, experiment in (("T", "E1"), ("T", "E2"))
        for name, changes in (
            ("ASAX", "(the base)"),
            ("ASAX-unprotected", "protect_reservation False"),
            ("ASAX-small", "interference pressure, memory_capacity 400000.0"),
            ("ASAX-frozen", "fall_through False, learn False"),
        )
    ]
    checked = pd.read_csv(tables / "claims.csv", keep_default_na=False)
    assert len(checked) == 4 * 2 * (2 + 2)  # E1 and E2 at 2 κ each: 4 claims for STATIC and ASAX
    summary = pd.read_csv(tables / "summary.csv")
    assert set(summary["configuration"]) == set(configurations)
    ablated = summary.groupby("configuration")["ablation"].unique().map(list).to_dict()
    assert ablated == {name: [name.startswith("ASAX-")] for name in configurations}
    # the per-trace tables leave the ablations out
    for title in ("### T, E1 (queue flush of 45-job windows)", "### T, E2 (online replay)"):
        for table in markdown_tables(sections[title]):
            assert {cells[2] for cells in table[1:]} <= {"SPACE", "STATIC", "ASAX"}
    # the figures leave them out too (figures._lowest_kappa); they are drawn all the same
    figures_dir = tmp_path / "figures"
    arguments = ["--tables", str(tables), "--trace", "T", "--outdir", str(figures_dir), "--weights", str(weights)]
    assert main(["plot-coscheduling", *arguments]) == 0
    assert len(list(figures_dir.glob("T.*.png"))) == 6


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
