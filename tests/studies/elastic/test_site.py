"""The elastic study's job sets and grid-site simulation, on hand-computed cases."""

from dataclasses import replace

import numpy as np
import pytest

from simcore.engine.workload import Workload
from simcore.studies.elastic.jobsets import (
    JobSetError,
    consecutive_sets,
    job_set,
    monitoring_users,
    rank_sets,
    serial_jobs,
)
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
    assert jobset.load_pool == round(1120 / (0.56 * 100))


def test_a_trace_without_groups_or_serial_jobs_is_named():
    with pytest.raises(JobSetError, match=r"hand.swf: no job records its group \(SWF field 13\)"):
        serial_jobs(workload([0, 1], [5, 5], [-1, -1]))
    with pytest.raises(JobSetError, match=r"hand.swf: no serial job"):
        serial_jobs(workload([0, 1], [5, 5], [1, 1], procs=[2, 2]))


def test_phi_and_pool_levels():
    assert phi(0.0) == 0.0 and phi(1e6) == 1.0 and phi(1e9) == 1.0
    assert abs(phi(60.0) - np.log(2) / np.log1p(1e6 / 60)) < 1e-15
    # floor: 30/81 of P_rig rounded to a multiple of 10, at least 10; P_max = 10 ceil(2 P_rig / 10)
    assert pool_levels(20).tolist() == [10, 20, 30, 40]
    assert pool_levels(57).tolist() == [20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]
    assert pool_levels(81)[0] == 30  # the paper's 30 cores of 81
    assert pool_levels(127).tolist() == list(range(50, 261, 10))  # UniLu-Gaia's P_rig
    assert pool_levels(4).tolist() == [10]


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


def test_consecutive_sets_and_the_whole_set():
    from simcore.studies.elastic.jobsets import consecutive_sets, whole_set

    n = 70  # every third job parallel: 47 serial jobs, two sets of 20 and 7 left over
    procs = [2 if k % 3 == 2 else 1 for k in range(n)]
    jobs = workload(np.arange(n, dtype=float) * 10, [50.0] * n, [1 + k % 4 for k in range(n)], procs=procs)
    serial_ids = jobs.job_id[np.asarray(procs) == 1]
    sets = consecutive_sets(jobs, "hand", size=20, pre_training=5)
    assert [s.name for s in sets] == ["hand set 1", "hand set 2"]
    assert sets[0].job_id.tolist() == serial_ids[:20].tolist() and sets[1].job_id.tolist() == serial_ids[20:40].tolist()
    assert len(consecutive_sets(jobs, "hand", size=20, count=1, pre_training=5)) == 1
    everything = whole_set(jobs, "hand", pre_training=5)
    assert everything.job_id.tolist() == serial_ids.tolist() and everything.name == "hand all serial jobs"
    with pytest.raises(JobSetError, match="47 serial jobs, fewer than one set of 50"):
        consecutive_sets(jobs, "hand", size=50)


def eq3_parts(site):
    """Eq. 3's parts at a decision: the run time of the jobs completed since the run's start, and the
    pool's area since then."""
    return site.completed_work, site.pool_area


class Recorder(FCFS):
    """FCFS that keeps, at each decision, the time, the inputs and each running job's frozen e_j."""

    def __init__(self):
        self.seen = []

    def choose(self, site, levels):
        queue = np.asarray(site.queue)
        self.seen.append((site.t, site.state_inputs(), site.action_inputs(queue), dict(site.expected), eq3_parts(site)))
        return super().choose(site, levels)


def est_set():
    # pre-training: batch 1000 and 3000 s (median 2000), interactive 100 s; online on 1 core:
    # job 3 (batch 5000 s) at t=10, 4 (batch 1000 s) at 20, 5 (interactive 300 s, VO of group 2) at 30
    jobs = workload([0, 0, 0, 10, 20, 30], [1000, 3000, 100, 5000, 1000, 300], [1, 1, 2, 1, 1, 2])
    return job_set(serial_jobs(jobs), np.arange(6), "est", pre_training=3)


def test_state_and_action_inputs_and_frozen_estimates():
    jobset = est_set()
    policy = Recorder()
    run_site(jobset, policy, 1, jobset.pre_training, len(jobset), model="EST")
    (t0, state0, action0, _, _), (t1, state1, action1, expected1, _), _ = policy.seen
    assert t0 == 10 and t1 == 5010  # job 3 first, then job 4 when job 3 ends
    # the first decision: nothing runs, job 3 waits alone with e = 2000 (the pre-training batch median)
    vo3 = jobset.vo[3]
    np.testing.assert_array_equal(state0[:4], [0.0, 0.0, phi(2000.0), 1.0])
    np.testing.assert_array_equal(state0[4:], np.eye(7)[vo3])
    assert action0.shape == (1, 8) and action0[0, 0] == 0.0 and action0[0, -1] == phi(2000.0)
    assert action0[0, 1:-1].tolist() == np.eye(7)[vo3][:6].tolist()  # VO one-hot without "rest"
    # the second: job 3 completed (EST batch median now 5000 over the last 7 days), 4 and 5 wait
    assert expected1 == {}  # nothing runs at t = 5010
    assert action1[:, -1].tolist() == [phi(5000.0), phi(100.0)]  # batch: 5000; interactive: fallback 100
    np.testing.assert_allclose(state1[2], phi((5000.0 + 100.0) / 1))  # backlog over the pool
    np.testing.assert_array_equal(state1[4:], (np.eye(7)[jobset.vo[4]] + np.eye(7)[jobset.vo[5]]) / 2)


def test_running_estimates_are_frozen_at_their_start():
    jobset = est_set()
    policy = Recorder()
    run_site(jobset, policy, 2, jobset.pre_training, len(jobset), model="EST")
    # 2 cores: job 3 starts at 10 (e = 2000), job 4 at 20 (e = 2000); job 5 waits until 1020
    (_, _, _, before, _), (_, _, _, running, _), (t, state, _, at_third, _) = policy.seen
    assert running == {3: 2000.0} and t == 1020 and at_third == {3: 2000.0}
    # job 4's completion changed the batch median to 1000, yet job 3 keeps its e = 2000:
    # remaining 2000 - (1020 - 10) = 990, workload over the 2 cores, time to a free core 990
    np.testing.assert_allclose(state[:2], [phi(990.0 / 2), phi(990.0)])


def test_completed_work_and_pool_area_since_the_run_start():
    jobset = hand_set()
    policy = Recorder()
    run_site(jobset, policy, 2, jobset.pre_training, len(jobset), model="ORA")
    at = {t: parts for t, _, _, _, parts in policy.seen}
    # 2 cores from t = 10: jobs 1 (100 s) and 2 (30 s) start at 10 (nothing done, no area yet);
    # job 2 ends at 40 (work 30, area 2 x 30), job 3 (5 s) ends at 45 (35, 2 x 35)
    assert at[10] == (0.0, 0.0) and at[40] == (30.0, 60.0) and at[45] == (35.0, 70.0)


def test_fairness_is_one_before_any_work():
    jobs = workload([0, 10, 20], [5, 0, 50], [1, 1, 2])
    jobset = job_set(serial_jobs(jobs), np.arange(3), "empty", pre_training=1)
    run = run_site(jobset, FCFS(), 2, jobset.pre_training, len(jobset), model="ORA")
    assert run.fairness[1] == 1.0  # the first election, of a job with p = 0: nothing delivered at all
    # then group 2 (50 of the 55 s of work) has everything, group 1 nothing of its 5/55
    assert run.fairness[2] == pytest.approx(1 - (5 / 55) / (50 / 55), abs=1e-15)


def test_monitoring_like_users_are_removed_and_counted_per_set():
    """User 1: 300 jobs of 5 s (a median under a minute, under 1 % of the work): removed. User 2: a
    median of 30 s but 5 % of the work: kept. User 3: hours-long jobs: kept."""
    rng = np.random.default_rng(0)
    users = np.r_[np.full(300, 1), np.full(300, 2), np.full(600, 3)]
    run = np.r_[np.full(300, 5.0), np.where(np.arange(300) < 200, 30.0, 1800.0), rng.uniform(3600, 36000, 600)]
    order = rng.permutation(len(users))
    submit = np.sort(rng.uniform(0, 30 * 86400, len(users)))
    jobs = Workload.from_arrays(submit, run[order], run[order] + 10, np.ones(len(users), int), 64, source="t")
    jobs = replace(jobs, user=users[order], group=users[order])
    assert monitoring_users(serial_jobs(jobs)).tolist() == [1]
    (removed,) = consecutive_sets(jobs, "t", size=900, pre_training=100)
    (kept,) = consecutive_sets(jobs, "t", size=900, pre_training=100, monitoring="keep")
    assert (removed.monitoring_jobs, kept.monitoring_jobs) == (300, 0)
    assert 1 not in set(users[order][np.isin(jobs.job_id, removed.job_id)])
    with pytest.raises(ValueError, match="monitoring 'drop': choose one of remove, keep"):
        consecutive_sets(jobs, "t", size=900, monitoring="drop")
    (row,) = rank_sets([removed])
    assert row["monitoring_jobs_removed"] == 300 and row["online_jobs"] == 800
    assert removed.load_pool < 20 and (row["rank"], row["excluded"]) == (0, f"P_load {removed.load_pool} < 20")
