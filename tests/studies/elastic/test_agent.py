"""The SARSA learner of the elastic study: reward and target arithmetic, the pool rules, determinism."""

import numpy as np
from test_site import serial_jobs, workload

from simcore.studies.elastic.agent import ETA, GAMMA, Decision, Learner, response, train_and_run
from simcore.studies.elastic.esn import Readout, Reservoir
from simcore.studies.elastic.jobsets import job_set
from simcore.studies.elastic.site import POOL_MIN, STABILITY, pool_levels


def test_responsiveness_w():
    assert response(100.0, 0.0) == 1.0
    assert response(100.0, 300.0) == 0.25
    assert response(0.0, 0.0) == 1.0  # both zero
    assert response(0.0, 50.0) == 0.0


def test_sarsa_target_and_the_last_decision():
    learner = Learner(Reservoir.generate(19, 0), Readout(), 0.5, False, seed=0, pool_top=10)
    z0, z1 = np.linspace(0, 1, 16), np.linspace(1, 2, 16)
    z0[0] = z1[0] = 1.0
    learner.record.decisions = [Decision(z0, 0.4, reward=0.9), Decision(z1, 0.6, reward=0.3)]
    learner._learn(0)
    expected = 0.4 + ETA * (0.9 + GAMMA * 0.6 - 0.4)  # 0.476
    np.testing.assert_allclose(learner.readout.c, z0 * expected, rtol=0, atol=1e-15)
    learner.finish()
    np.testing.assert_allclose(learner.readout.c, z0 * expected + z1 * (0.6 + ETA * (0.3 - 0.6)), atol=1e-15)
    assert learner.record.examples == 2


def busy_set(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 20 * 86400, n))
    run = rng.choice([60.0, 600.0, 3600.0, 36000.0], n)
    jobs = workload(submit, run, rng.integers(1, 9, n))
    return job_set(serial_jobs(jobs), np.arange(n), "busy", pre_training=500)


def test_pool_rules_hold_in_elastic_runs():
    jobs = busy_set()
    levels = pool_levels(jobs.rigid_pool)
    run, _ = train_and_run(jobs, 0.5, True, "EST", seed=1, levels=levels)
    times, sizes = np.array(run.pool_times), np.array(run.pool_sizes)
    assert len(sizes) > 2  # the pool did change
    assert (sizes[1:] >= POOL_MIN).all() and set(sizes[1:]) <= set(levels.tolist())
    assert (np.diff(times[1:]) >= STABILITY).all()
    online = np.arange(jobs.pre_training, len(jobs))
    for j in online:  # the pool in force when j started holds every job running then
        pool = sizes[np.searchsorted(times, run.start[j], side="right") - 1]
        running = np.sum((run.start[online] <= run.start[j]) & (run.end[online] > run.start[j]))
        assert running <= pool


def test_same_seed_same_decisions():
    jobs = busy_set(seed=1)
    first, record = train_and_run(jobs, 1.0, False, "ORA", seed=4)
    again, record_again = train_and_run(jobs, 1.0, False, "ORA", seed=4)
    np.testing.assert_array_equal(first.start, again.start)
    assert [d.value for d in record.decisions] == [d.value for d in record_again.decisions]
    other, _ = train_and_run(jobs, 1.0, False, "ORA", seed=5)
    assert not np.array_equal(first.start, other.start)
