"""The simple-policies study (the thesis's chapter 4): Proposition 1, the
per-variant measurements and their aggregation."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import COMMON, CORRECTIONS, ESTIMATE_NAMES, make_workload, workloads

import simcore
from simcore.engine.metrics import job_metrics
from simcore.studies.simple_policies.report import factor_off, reproduction_rows, simple_policies_markdown
from simcore.studies.simple_policies.rules import study_traces, trace_workloads
from simcore.studies.simple_policies.study import (
    CATEGORIES,
    TOP_DELAYED,
    gains_table,
    premature,
    slowdown_categories,
    study_variant,
    summary_table,
    threshold_for,
    weekly_cumulative_means,
    weekly_curves,
)
from simcore.workloads.resample import WEEK


@settings(max_examples=300, **COMMON)
@given(wl=workloads(max_jobs=60), estimate=st.sampled_from(ESTIMATE_NAMES), correction=st.sampled_from(CORRECTIONS))
def test_proposition_1_sqf_without_threshold_never_backfills(wl, estimate, correction):
    """Thesis, section 4.3.4: with the queue sorted by SQF and no threshold,
    aggressive backfilling never starts a job, whatever the estimates."""
    result = simcore.simulate(
        make_workload(*wl), order="SQF", threshold=None, backfill="queue", estimate=estimate, correction=correction
    )
    assert not result.jobs["backfilled"].any()


def test_a_threshold_lets_sqf_backfill():
    """The proposition needs "no threshold": a job promoted by the threshold
    breaks the SQF order, and smaller jobs can then be backfilled."""
    # m = 4; a 4-processor job holds the machine until t = 100 while jobs of 3, 2
    # and 1 processors arrive. Without a threshold, SQF starts the 1- and the
    # 2-processor jobs at t = 100 and the 3-processor job must wait: nothing is
    # backfilled. With threshold 5, all three are over it and go in FCFS order:
    # the 3-processor job starts, the 2-processor job is blocked, and the
    # 1-processor job is backfilled beside them.
    w = simcore.Workload.from_arrays(
        submit=[0, 1, 2, 3],
        run=[100, 1000, 1000, 10],
        requested=[100, 1000, 1000, 10],
        procs=[4, 3, 2, 1],
        machine_size=4,
    )
    plain = simcore.simulate(w, order="SQF", threshold=None, backfill="queue")
    assert not plain.jobs["backfilled"].any()
    promoted = simcore.simulate(w, order="SQF", threshold=5, backfill="queue")
    assert promoted.jobs["backfilled"].any()


def small_workload(seed=0, n=400):
    rng = np.random.default_rng(seed)
    requested = rng.integers(60, 20000, n).astype(float)
    run = np.where(rng.uniform(0, 1, n) < 0.2, np.floor(requested / 150), np.floor(requested * rng.uniform(0, 1, n)))
    return simcore.Workload.from_arrays(
        submit=np.sort(rng.integers(0, 3 * int(WEEK), n)).astype(float),
        run=run,
        requested=requested,
        procs=rng.integers(1, 17, n),
        machine_size=32,
        user=rng.integers(0, 6, n),
    )


def test_definitions():
    w = simcore.Workload.from_arrays(
        submit=[0, 0, 0, 0], run=[0, 10, 10, 11], requested=[50, 1000, 999, 2000], procs=[1, 1, 1, 1], machine_size=4
    )
    assert premature(w).tolist() == [True, True, False, True]
    assert threshold_for(w, 3) == 6000.0
    categories = slowdown_categories(np.array([1.0, 1.0, 1.5, 9.99, 10.0, 99.9, 100.0, 5000.0]))
    assert categories == {"1": 2, "1-10": 2, "10-100": 2, "100+": 2}
    assert tuple(categories) == CATEGORIES


def test_weekly_cumulative_means_by_completion_week():
    end = np.array([10.0, WEEK + 5, WEEK + 6, 3 * WEEK + 1])
    means = weekly_cumulative_means(end, {"x": np.array([1.0, 2.0, 3.0, 10.0])}, weeks=4)["x"]
    np.testing.assert_allclose(means, [1.0, 2.0, 2.0, 4.0])
    assert np.isnan(weekly_cumulative_means(np.array([WEEK + 1]), {"x": np.array([1.0])}, 2)["x"][0])


def test_study_variant_measures_what_the_core_schedules():
    w = small_workload()
    threshold = threshold_for(w, 3)
    runs, weekly, delayed = study_variant(w, ["FCFS", "SAF"], threshold, "queue", weeks=4)
    direct = simcore.simulate(w, order="SAF", threshold=threshold, backfill="queue")
    metrics = job_metrics(w, direct.start)
    saf = runs.set_index("order").loc["SAF"]
    assert saf["avg_bsld"] == direct.summary()["avg_bsld"]
    assert saf["backfilled"] == direct.jobs["backfilled"].sum()
    assert sum(saf[f"bsld_{c}"] for c in CATEGORIES) == len(w)
    mask = premature(w)
    assert saf["premature_ratio"] == pytest.approx(metrics["bsld"][mask].mean() / metrics["bsld"][~mask].mean())
    last = weekly[(weekly["order"] == "SAF")].iloc[-1]
    assert last["bsld"] == pytest.approx(metrics["bsld"].mean())  # every job has finished by the last week
    top = delayed[delayed["order"] == "SAF"]
    assert len(top) == TOP_DELAYED and top["bsld"].is_monotonic_decreasing
    assert top["bsld"].iloc[-1] >= np.sort(metrics["bsld"])[-TOP_DELAYED]


def test_aggregation_and_report():
    frames = []
    for variant in range(3):
        runs, _, _ = study_variant(small_workload(variant), ["FCFS", "SQF", "SAF"], 60000.0, "queue", weeks=4)
        frames.append(runs.assign(trace="KTH-SP2", variant=variant))
    runs = pd.concat(frames, ignore_index=True)
    gains = gains_table(runs).set_index("order")
    assert gains.loc["FCFS", "change_bsld_mean"] == 0.0
    per_variant = [
        100 * (f.set_index("order").at["SAF", "avg_bsld"] / f.set_index("order").at["FCFS", "avg_bsld"] - 1)
        for f in frames
    ]
    assert gains.loc["SAF", "change_bsld_mean"] == pytest.approx(np.mean(per_variant))
    summary = summary_table(runs)
    premature_share = pd.DataFrame([{"trace": "KTH-SP2", "jobs": 400, "premature_pct": 12.0}])
    rows = reproduction_rows(premature_share, summary, gains_table(runs)).set_index(["table", "column"])
    assert rows.loc[("Table 4.3", "premature jobs (%)"), "published"] == 12.4
    assert rows.loc[("Table 4.4", "SQF"), "published"] == 9.31
    assert rows.loc[("Section 4.3", "SAF AVEbsld gain over FCFS (%)"), "ours"] == pytest.approx(
        -gains.loc["SAF", "change_bsld_mean"]
    )
    markdown = simple_policies_markdown(premature_share, summary, gains_table(runs), 3)
    assert "| KTH-SP2 | 12.4 | 12.0 |" in markdown and "9.31 /" in markdown
    assert "Each log runs twice" not in markdown  # no Batsim rows, nothing said about them
    weekly = pd.DataFrame(
        {
            "trace": "t",
            "order": "FCFS",
            "variant": [0, 1, 0, 1],
            "week": [1, 1, 2, 2],
            "wait": [1.0, 3.0, 2.0, 4.0],
            "bsld": 1.0,
            "ppbsld": 1.0,
        }
    )
    curves = weekly_curves(weekly)
    assert curves["wait_mean"].tolist() == [2.0, 3.0]


def test_each_log_runs_again_under_each_conversion_but_no_model():
    chosen = {
        "models": ["lublin-128"],
        "simple_policies": {"traces": ["KTH-SP2", "lublin-128"], "conversions": ["batsim"]},
    }
    assert study_traces(chosen) == ["KTH-SP2", "lublin-128", "KTH-SP2+batsim"]
    assert trace_workloads("results", chosen) == [
        "results/simple_policies/traces/KTH-SP2.parquet",
        "results/traces/lublin-128.parquet",
        "results/simple_policies/traces/KTH-SP2+batsim.parquet",
    ]


def test_the_report_has_a_row_per_trace_and_preparation():
    """Both preparations of KTH-SP2 compared with the same published cells, labelled apart, and
    how far each is off the thesis."""
    frames = []
    for trace in ("KTH-SP2", "KTH-SP2+batsim"):
        for variant in range(2):
            runs, _, _ = study_variant(small_workload(variant), ["FCFS", "SAF"], 60000.0, "queue", weeks=4)
            frames.append(runs.assign(trace=trace, variant=variant))
    runs = pd.concat(frames, ignore_index=True)
    summary, gains = summary_table(runs), gains_table(runs)
    premature_share = pd.DataFrame(
        [
            {"trace": "KTH-SP2", "jobs": 400, "premature_pct": 12.0},
            {"trace": "KTH-SP2+batsim", "jobs": 390, "premature_pct": 8.0},
        ]
    )
    rows = reproduction_rows(premature_share, summary, gains)
    table44 = rows[rows["table"] == "Table 4.4"].set_index(["row", "column"])
    assert table44.loc[("KTH-SP2 (Batsim conversion)", "SAF"), "published"] == 11.41
    assert table44.loc[("KTH-SP2", "SAF"), "trace"] == "KTH-SP2"
    assert set(rows.loc[rows["table"] == "Section 4.3", "row"]) == {"best trace", "best trace (Batsim conversion)"}
    markdown = simple_policies_markdown(premature_share, summary, gains, 3)
    assert "| KTH-SP2 (Batsim conversion) | 12.4 | 8.0 |" in markdown
    assert "| KTH-SP2 (Batsim conversion) | 8.69 / " in markdown
    assert "text: geometric mean" in markdown and "Batsim conversion: geometric mean" in markdown
    assert "Each log runs twice" in markdown


def test_factor_off_is_symmetric():
    assert factor_off(pd.Series([2.0, 4.0]), pd.Series([4.0, 2.0])).tolist() == [2.0, 2.0]
