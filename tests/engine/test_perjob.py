"""The per-job arrays are listed once (simcore/engine/_core.pyx's PER_JOB, _perjob.pxd): an array
added there is allocated, set before submission, copied by a fork, borrowed by a fork's fork and
renewed by a restart a fork borrows from, with no other change, and results() gives it."""

import numpy as np
import pytest
from strategies import make_workload

from simcore.engine import _core, _selection
from simcore.engine.simulation import Simulation, episode_cores

ADDED = ("added", np.float64, 7.0, True)


@pytest.fixture
def added_array(monkeypatch):
    monkeypatch.setattr(_core, "PER_JOB", _core.PER_JOB + (ADDED,))


def random_workload(seed, jobs=300, machine=32):
    rng = np.random.Generator(np.random.PCG64(seed))
    submit = np.sort(rng.uniform(0.0, 2e4, jobs)).round()
    requested = rng.uniform(10.0, 4000.0, jobs).round()
    run = np.minimum(requested, rng.uniform(1.0, 4000.0, jobs).round())
    procs = rng.integers(1, machine + 1, jobs)
    return make_workload(submit, run, requested, procs, rng.integers(0, 5, jobs), machine)


def same(first, second):
    assert first.jobs.keys() == second.jobs.keys()
    for name, values in first.jobs.items():
        np.testing.assert_array_equal(values, second.jobs[name], err_msg=name)


def test_the_event_loop_reads_the_rows_it_names():
    assert [row[0] for row in _core.PER_JOB[:10]] == [
        "estimate", "initial_estimate", "estimated_end", "start", "end",
        "reservation", "state", "order_at_start", "backfilled", "corrections",
    ]  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [{"order": "SAF"}, {"order": "FCFS", "reservations": 3}])
def test_an_added_array_goes_through_forks(added_array, seed, options):
    workload = random_workload(seed)
    expected = Simulation(workload, **options).finish()
    assert (expected.jobs["added"] == 7.0).all()
    first, second = np.quantile(workload.submit, [0.3, 0.6])
    original = Simulation(workload, **options)
    original.run_until(first)
    fork = original.fork()
    original.run_until(second)
    fork.run_until(second)
    grandchild = fork.fork()  # borrows from the fork, which borrows from the original
    for sim in (grandchild, fork, original):
        same(sim.finish(), expected)


def test_an_added_array_survives_a_restart_a_fork_borrows_from(added_array):
    workload = random_workload(99, jobs=600)
    cores = episode_cores(workload, 1, 200, "FCFS", "queue", "request")
    batch = _selection.SelectionBatch(cores, _selection.SelectionSettings(4, [60.0], 1e5))
    first_slots = np.zeros(1, dtype=np.int64)
    batch.step(first_slots, np.array([300]))
    for _ in range(120):
        batch.step(first_slots, np.array([-1]))
    fork = cores[0].fork()
    batch.step(first_slots, np.array([0]))  # the original restarts on another episode
    while _selection.next_decision(fork):
        window = np.zeros(1, dtype=np.int64)
        _selection.waiting_jobs(fork, window)
        _selection.choose_head(fork, int(window[0]))
    results = fork.results()
    assert (results["added"] == 7.0).all() and not np.isnan(results["start"]).any()
