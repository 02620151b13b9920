"""The elastic study's job sets and grid-site simulation, on hand-computed cases."""

import numpy as np
import pytest

from simcore.engine.workload import Workload
from simcore.studies.elastic.jobsets import JobSetError, job_set, serial_jobs
from simcore.studies.elastic.site import EDF, FCFS, phi, pool_levels, run_site


def workload(submit, run, group, procs=None, wait=None):
    n = len(submit)
    jobs = Workload.from_arrays(submit, run, np.maximum(run, 1), procs or [1] * n, 4, source="hand.swf")
    from dataclasses import replace

    return replace(
        jobs,
        group=np.asarray(group, dtype=np.int64),
        recorded_wait=np.asarray(wait if wait is not None else [np.nan] * n, dtype=float),
    )


def test_vos_shares_types_and_rigid_pool():
    # 3 pre-training jobs, then 4 online ones over 100 s with 1120 s of work: P = round(1120 / 56) = 20
    jobs = workload([0, 0, 0, 0, 50, 60, 100], [10, 10, 10, 100, 1000, 10, 10], [5, 5, 9, 7, 7, 5, 3])
    jobset = job_set(serial_jobs(jobs), np.arange(7), "hand", pre_training=3)
    # work per group: 7 -> 1100, 5 -> 30, 9 -> 10, 3 -> 10: VOs in decreasing work, ties by group number
    assert jobset.groups == (7, 5, 3, 9)
    assert jobset.vo.tolist() == [1, 1, 3, 0, 0, 1, 2]
    np.testing.assert_allclose(jobset.shares, np.array([1100, 30, 10, 10, 0, 0, 0]) / 1150)
    assert jobset.interactive.tolist() == [True, True, True, True, False, True, True]
    assert jobset.rigid_pool == round(1120 / (0.56 * 100))


def test_a_trace_without_groups_or_serial_jobs_is_named():
    with pytest.raises(JobSetError, match=r"hand.swf: no job records its group \(SWF field 13\)"):
        serial_jobs(workload([0, 1], [5, 5], [-1, -1]))
    with pytest.raises(JobSetError, match=r"hand.swf: no serial job"):
        serial_jobs(workload([0, 1], [5, 5], [1, 1], procs=[2, 2]))


def test_phi_and_pool_levels():
    assert phi(0.0) == 0.0 and phi(1e6) == 1.0 and phi(1e9) == 1.0
    assert abs(phi(60.0) - np.log(2) / np.log1p(1e6 / 60)) < 1e-15
    assert pool_levels(20).tolist() == [30, 40]  # P_max = 10 ceil(40 / 10) = 40
    assert pool_levels(57).tolist() == [30, 40, 50, 60, 70, 80, 90, 100, 110, 120]


def hand_set():
    # pre-training: 1 job; online: 4 jobs on 1 core (pool forced below)
    jobs = workload([0, 10, 10, 11, 12], [5, 100, 30, 5, 20], [1, 1, 1, 2, 2])
    return job_set(serial_jobs(jobs), np.arange(5), "hand", pre_training=1)


def test_fcfs_on_one_core():
    jobset = hand_set()
    run = run_site(jobset, FCFS(), 1, jobset.pre_training, len(jobset), model="ORA")
    # t=10: job 1 starts (ends 110); then 2, 3, 4 in submission order
    assert run.start[1:].tolist() == [10, 110, 140, 145]
    assert run.end[1:].tolist() == [110, 140, 145, 165]


def test_edf_on_one_core_uses_the_deadlines():
    jobset = hand_set()
    run = run_site(jobset, EDF(), 1, jobset.pre_training, len(jobset), model="ORA")
    # t=10: jobs 1 (deadline 110) and 2 (40) wait: 2 first; t=40: 3 (16), 4 (32), 1 (110)
    assert run.start[1:].tolist() == [65, 10, 40, 45]


def test_fairness_at_election_counts_the_job_for_its_vo():
    jobset = hand_set()
    run = run_site(jobset, FCFS(), 1, jobset.pre_training, len(jobset), model="ORA")
    # job 1 elected first: only its own p counts -> its VO has everything
    shares = jobset.shares
    vo = jobset.vo[1]
    expected = 1 - max(np.max(np.maximum(shares - np.eye(7)[vo], 0.0)), 0.0) / shares.max()
    assert abs(run.fairness[1] - expected) < 1e-12


def test_est_medians_equal_numpy_over_the_seven_day_window():
    from simcore.studies.elastic.site import WEEK, Estimator

    rng = np.random.default_rng(3)
    n = 400
    jobs = workload(np.sort(rng.uniform(0, 30 * 86400, n)), rng.choice([60.0, 300.0, 5000.0, 86400.0], n), [1] * n)
    jobset = job_set(serial_jobs(jobs), np.arange(n), "random", pre_training=50)
    estimator = Estimator(jobset, "EST")
    ends = jobset.submit + jobset.run
    order = np.argsort(ends, kind="stable")
    t = 0.0
    for step, j in enumerate(order[50:]):  # queried at non-decreasing times, as the simulation does
        estimator.completed_job(int(j), float(ends[j]))
        t = max(t, float(ends[j]) + 3600.0 * (step % 5))
        done = order[50 : 50 + step + 1]
        for kind in (0, 1):
            recent = [jobset.run[k] for k in done if jobset.interactive[k] == kind and ends[k] > t - WEEK]
            expected = float(np.median(recent)) if recent else estimator.fallback[kind]
            assert estimator.median(kind, t) == expected


def test_metrics_leave_out_the_first_and_last_500_online_jobs():
    from simcore.studies.elastic.metrics import measured, run_metrics

    n = 1100 + 200
    jobs = workload(np.arange(n, dtype=float), np.where(np.arange(n) % 2, 100.0, 1000.0), [1] * n)
    jobset = job_set(serial_jobs(jobs), np.arange(n), "metrics", pre_training=200)
    counted = measured(jobset)
    assert counted[0] == 200 + 500 and counted[-1] == n - 501 and len(counted) == 100
    start = jobset.submit.copy()
    start[counted[::2]] += 300.0  # every other counted job waited 300 s: the 1000 s (batch) ones
    metrics = run_metrics(jobset, start)
    assert metrics["W_interactive_mean"] == 1.0 and metrics["delay_interactive_mean"] == 0.0
    assert metrics["W_batch_mean"] == pytest.approx(1000 / 1300, rel=1e-14) and metrics["W_batch_above_0.9"] == 0.0
    assert metrics["interactive_within_2_min"] == 1.0


def test_fairness_from_a_schedule_equals_the_sites_own():
    from simcore.studies.elastic.metrics import fairness_at_starts

    rng = np.random.default_rng(8)
    n = 300
    jobs = workload(np.sort(rng.uniform(0, 86400, n)), rng.choice([30.0, 600.0, 7200.0], n), rng.integers(1, 6, n))
    jobset = job_set(serial_jobs(jobs), np.arange(n), "fair", pre_training=50)
    run = run_site(jobset, FCFS(), 4, jobset.pre_training, n, model="ORA")
    again = fairness_at_starts(jobset, run.start, jobset.pre_training, n)
    np.testing.assert_allclose(again[50:], run.fairness[50:], rtol=0, atol=1e-12)
