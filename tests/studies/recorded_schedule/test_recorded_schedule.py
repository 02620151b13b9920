"""The recorded-schedule study: the comparison of per-job waits (hand-computed cases), its weeks,
and on real traces that it recognises the policy a schedule was made by."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from simcore import read_swf
from simcore.engine.simulation import simulate
from simcore.engine.workload import Workload
from simcore.studies.recorded_schedule.study import (
    AGREEMENT_COLUMNS,
    MIN_WEEK_JOBS,
    best_policies,
    compare_schedules,
    run_recorded_schedule,
    wait_agreement,
)
from simcore.workloads.resample import WEEK

POLICIES = {
    "EASY-FCFS": {"order": "FCFS"},
    "conservative": {"order": "FCFS", "reservations": "all"},
    "SPF": {"order": "SPF"},
}


def test_identical_waits_agree_fully():
    waits = np.array([0.0, 10.0, 20.0, 30.0])
    agreement = wait_agreement(waits, waits.copy())
    assert agreement["ks"] == 0.0
    assert agreement["spearman"] == 1.0
    assert agreement["mean_error"] == agreement["p90_error"] == 0.0
    assert agreement["jobs"] == 4
    assert tuple(agreement) == AGREEMENT_COLUMNS


def test_hand_computed_errors_and_distance():
    recorded = np.array([1.0, 2.0, 3.0, 4.0])
    simulated = np.array([1.0, 2.0, 3.0, 10.0])
    agreement = wait_agreement(recorded, simulated)
    # the empirical CDFs differ on [4, 10): 1 against 3/4
    assert agreement["ks"] == pytest.approx(0.25)
    assert agreement["spearman"] == pytest.approx(1.0)  # the same ranking
    assert agreement["mean_error"] == pytest.approx(6.0 / 4)
    assert agreement["mean_relative_error"] == pytest.approx(1.5 / 2.5)
    # numpy's linear 90th percentile: 3.7 recorded, 3 + 0.7 * 7 = 7.9 simulated
    assert agreement["p90_error"] == pytest.approx(7.9 - 3.7)


def test_disjoint_waits_are_at_distance_one_and_reversed_ranks_correlate_negatively():
    agreement = wait_agreement(np.array([0.0, 1.0, 2.0]), np.array([30.0, 20.0, 10.0]))
    assert agreement["ks"] == 1.0
    assert agreement["spearman"] == pytest.approx(-1.0)


def test_constant_waits_have_no_correlation_and_no_relative_error():
    agreement = wait_agreement(np.zeros(5), np.arange(5.0))
    assert np.isnan(agreement["spearman"])  # nothing to rank: not a made-up 0
    assert np.isnan(agreement["mean_relative_error"]) and np.isnan(agreement["p90_relative_error"])


def workload_with(recorded_wait, submit):
    jobs = len(submit)
    return Workload(
        job_id=np.arange(1, jobs + 1),
        submit=np.asarray(submit, dtype=float),
        run=np.full(jobs, 100.0),
        requested=np.full(jobs, 200.0),
        procs=np.ones(jobs, dtype=np.int64),
        user=np.ones(jobs, dtype=np.int64),
        machine_size=4,
        recorded_wait=np.asarray(recorded_wait, dtype=float),
    )


def test_weeks_with_few_jobs_are_left_out_and_unrecorded_waits_are_counted():
    # week 0: MIN_WEEK_JOBS jobs; week 1: one job fewer; plus 3 jobs without a recorded wait
    submit = [10.0 * k for k in range(MIN_WEEK_JOBS)] + [WEEK + 10.0 * k for k in range(MIN_WEEK_JOBS - 1 + 3)]
    recorded = [5.0] * (2 * MIN_WEEK_JOBS - 1) + [np.nan] * 3
    workload = workload_with(recorded, submit)
    whole, weekly = compare_schedules(workload, np.full(len(submit), 5.0))
    assert whole["jobs"] == 2 * MIN_WEEK_JOBS - 1 and whole["unrecorded_jobs"] == 3
    assert list(weekly["week"]) == [0] and whole["weeks"] == 1 and whole["short_weeks"] == 1
    assert weekly["ks"].iloc[0] == 0.0


def test_a_log_without_waits_is_refused_by_name():
    workload = dataclasses.replace(workload_with([np.nan] * 3, [0.0, 1.0, 2.0]), source="site.swf")
    with pytest.raises(ValueError, match=r"site.swf: the log records no job's wait \(SWF field 3\)"):
        compare_schedules(workload, np.zeros(3))


def runs_of(traces_and_scores):
    return pd.DataFrame(
        [
            {
                "trace": trace,
                "policy": policy,
                "weekly_ks": weekly,
                "ks": whole,
                "spearman": rho,
                "mean_relative_error": 0.0,
            }
            for trace, policy, weekly, whole, rho in traces_and_scores
        ]
    )


def test_the_closest_policy_ties_and_falls_back_to_the_whole_trace():
    runs = runs_of(
        [
            ("A", "p", 0.3, 0.5, 0.1),
            ("A", "q", 0.2, 0.9, 0.1),
            ("B", "p", 0.2, 0.2, 0.5),
            ("B", "q", 0.2 + 1e-16, 0.2, 0.7),  # a tie but for rounding: the larger correlation wins
            ("C", "p", np.nan, 0.4, 0.0),  # no week with enough jobs: the whole trace's distance
            ("C", "q", np.nan, 0.3, 0.0),
        ]
    )
    best = best_policies(runs).set_index("trace")
    assert best.loc["A", "best"] == "q" and best.loc["A", "margin"] == pytest.approx(0.1)
    assert best.loc["B", "best"] == "q" and best.loc["B", "margin"] == pytest.approx(0.0, abs=1e-15)
    assert best.loc["C", "best"] == "q" and best.loc["C", "score"] == pytest.approx(0.3)


@pytest.mark.parametrize("trace", ["KTH-SP2", "SDSC-SP2"])
@pytest.mark.parametrize("truth", ["EASY-FCFS", "conservative"])
def test_a_schedule_made_by_a_policy_is_recognised_as_that_policy(pwa_trace, trace, truth):
    """The comparison can tell policies apart: recorded waits replaced by one policy's own
    simulated waits make that policy the closest, at distance 0 and correlation 1."""
    workload = read_swf(pwa_trace(trace), filter="truncate")
    made = simulate(workload, **POLICIES[truth])
    workload = dataclasses.replace(workload, recorded_wait=made.start - workload.submit)
    runs, weekly = run_recorded_schedule(workload, POLICIES)
    runs = runs.assign(trace=trace)
    row = runs.set_index("policy").loc[truth]
    assert row["ks"] == 0.0 and row["weekly_ks"] == 0.0 and row["mean_error"] == 0.0
    assert row["spearman"] == pytest.approx(1.0)
    best = best_policies(runs).iloc[0]
    assert best["best"] == truth and best["margin"] > 0.01
    assert set(weekly["policy"]) == set(POLICIES) and (weekly["jobs"] >= MIN_WEEK_JOBS).all()


def test_real_trace_runs_are_deterministic(pwa_trace):
    workload = read_swf(pwa_trace("KTH-SP2"), filter="truncate")
    first = run_recorded_schedule(workload, POLICIES)
    second = run_recorded_schedule(workload, POLICIES)
    for a, b in zip(first, second):
        pd.testing.assert_frame_equal(a, b)
