"""The core trusts nothing it is given: a workload built around Workload.from_arrays (directly or
with dataclasses.replace) and out-of-range codes are clear errors, the core's job arrays are its own
copies, and no malformed input crashes the interpreter (a fuzz test in a subprocess)."""

import textwrap
from dataclasses import replace

import numpy as np
import pytest
from conftest import assert_fuzz_run_is_clean
from simcore.engine._selection import (
    SelectionBatch,
    SelectionSettings,
    choose_head,
    first_by_order,
    next_decision,
)

import simcore
from simcore.engine import _core, _jobs
from simcore.engine.predictors import make_predictor
from simcore.engine.simulation import core_jobs


def workload(n=40, seed=0):
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 500, n).astype(float)
    return simcore.Workload.from_arrays(
        submit=np.sort(rng.integers(0, 400, n)).astype(float),
        run=run,
        requested=run * rng.choice([1.0, 1.5, 3.0], n),
        procs=rng.integers(1, 9, n),
        machine_size=8,
        user=rng.integers(0, 4, n),
    )


def core(jobs=None, order=0, threshold=None, backfill=_core.BACKFILL_QUEUE, correction=0, function=None, **options):
    jobs = core_jobs(workload()) if jobs is None else jobs
    return _core.Simulation(
        jobs, order, threshold, backfill, make_predictor("request", len(jobs)), correction, function, **options
    )


def starts(simulation):
    simulation.run_until(np.inf)
    return simulation.results()["start"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda w: {"procs": np.where(np.arange(len(w)) == 3, 9, w.procs)}, r"processor request must be in \[1, 8\]"),
        (lambda w: {"submit": w.submit[::-1].copy()}, "sorted by submit time"),
        (lambda w: {"submit": np.where(np.arange(len(w)) == 5, np.nan, w.submit)}, "submit time is not finite"),
        (lambda w: {"run": -w.run}, "run time must be finite and >= 0"),
        (lambda w: {"requested": w.requested[:-1]}, r"'requested' has shape \(39,\)"),
        (lambda w: {"machine_size": 0}, "machine size must be positive"),
        (lambda w: {"machine_size": 8.5}, "machine size must be positive, a whole number"),
        (lambda w: {"procs": np.where(np.arange(len(w)) == 3, 2.5, w.procs)}, r"'procs' must be a whole number"),
        (lambda w: {"user": np.where(np.arange(len(w)) == 3, 0.5, w.user)}, r"'user' must be a whole number"),
    ],
    ids=[
        "q > m",
        "unsorted",
        "NaN submit",
        "negative run",
        "lengths",
        "no machine",
        "fractional machine",
        "fractional procs",
        "fractional user",
    ],
)
def test_a_replaced_workload_is_checked_by_the_simulation(change, message):
    base = workload()
    broken = replace(base, **change(base))
    with pytest.raises(simcore.WorkloadError, match=message):
        simcore.simulate(broken)
    with pytest.raises(simcore.WorkloadError, match=message):
        simcore.Simulation(broken, order="SPF")


@pytest.mark.parametrize("field", ["procs", "user", "job_id"])
def test_arrays_with_a_fractional_count_are_refused_not_truncated(field):
    arrays = {"submit": [0.0, 1.0, 2.0], "run": [5.0] * 3, "requested": [9.0] * 3, "procs": [1, 2, 3]}
    arrays[field] = [1, 2.5, 3]
    with pytest.raises(simcore.WorkloadError, match=rf"<arrays>: job 2: '{field}' must be a whole number, got 2\.5"):
        simcore.Workload.from_arrays(**arrays, machine_size=8)


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"run": [5.0, 20.0]}, r"job 1: requested time 10.0 must be finite and >= its run time 20.0"),
        ({"user": [0, 3]}, r"job 1: user index 3 must be in \[0, 2\)"),
        ({"procs": [1, 0]}, r"job 1: processor request 0 must be in \[1, 4\]"),
        ({"submit": [1.0, 0.0]}, "job 1: submit time 0.0 is before the previous job's 1.0"),
        ({"submit": [0.0, np.inf]}, "job 1: submit time inf is not finite"),
        ({"run": [np.nan, 1.0]}, "job 0: run time nan must be finite"),
        ({"procs": [1]}, "'procs' has 1 jobs, 'submit' has 2"),
        ({"machine_size": 0}, "machine size must be >= 1"),
        ({"n_users": 0}, "n_users must be >= 1"),
    ],
)
def test_the_core_checks_its_job_arrays(arrays, message):
    given = {
        "submit": [0.0, 0.0],
        "run": [5.0, 6.0],
        "requested": [10.0, 10.0],
        "procs": [1, 4],
        "user": [0, 1],
        "n_users": 2,
        "machine_size": 4,
    }
    given.update(arrays)
    for name, dtype in (("submit", float), ("run", float), ("requested", float), ("procs", np.int64)):
        given[name] = np.array(given[name], dtype=dtype)
    given["user"] = np.array(given["user"], dtype=np.intc)
    with pytest.raises(ValueError, match=message):
        _jobs.Jobs(**given)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"order": 99}, r"queue order code 99 is not a queue order: allowed are 0 to \d+"),
        ({"order": -1}, "queue order code -1 is not a queue order"),
        ({"backfill": -3}, r"backfill \(or -2: none, -1: queue order\) code -3"),
        ({"backfill": 99}, "backfill .* code 99 is not a queue order"),
        ({"correction": 3}, r"correction code 3 is not in 0 to 2 \(request, incremental, doubling\)"),
        ({"threshold": float("nan")}, "threshold must be None or a finite number >= 0"),
        ({"threshold": -1.0}, "threshold must be None or a finite number >= 0"),
        ({"order": simcore.ORDERS.index("FUNCTION")}, "the order FUNCTION needs a priority function"),
        ({"function": (0.0,) * 7}, "a priority function has 8 parameters, got 7"),
        ({"function": (4.0, 0, 0, 0, 0, 1, 1, 1)}, "priority function parameter 0 is 4.0, a code in 0 to 3"),
        ({"function": (0, 0, 0, 0, 2.5, 1, 1, 1)}, "priority function parameter 4 is 2.5, a code in 0 to 2"),
        ({"function": (0, 0, 0, 0, 0, 1, np.inf, 1)}, "priority function coefficient 2 is inf"),
        ({"episode_jobs": -2}, "episodes of -2 jobs in a workload of 40"),
        ({"episode_jobs": 41}, "episodes of 41 jobs in a workload of 40"),
    ],
)
def test_the_core_range_checks_its_codes(options, message):
    with pytest.raises(ValueError, match=message):
        core(**options)


def test_a_bad_order_switch_is_refused_and_changes_nothing():
    expected = starts(core())
    simulation = core()
    simulation.run_until(200.0)
    with pytest.raises(ValueError, match="queue order code 77"):
        simulation.set_order(77)
    with pytest.raises(ValueError, match="FUNCTION needs a priority function"):
        simulation.set_order(simcore.ORDERS.index("FUNCTION"))
    assert simulation.order == 0
    np.testing.assert_array_equal(starts(simulation), expected)


def test_observation_and_order_queries_check_their_arguments():
    simulation = core()
    settings = SelectionSettings(4, np.ones(3), 3600.0)
    with pytest.raises(ValueError, match="an observation of 4 slots has 29 values: got 10 values and 4 slots"):
        settings.advance_and_observe(simulation, np.zeros(10, np.float32), np.zeros(4, np.int64))
    for arguments, message in [
        ((0, np.ones(3), 3600.0), "at least one slot and one horizon, got 0 slots and 3 horizons"),
        ((4, [], 3600.0), "at least one slot and one horizon, got 4 slots and 0 horizons"),
        ((4, np.ones(3), 0.0), "log_top and tau must be positive numbers of seconds, got 0.0 and 10.0"),
        ((4, np.ones(3), 3600.0, "bsld", 0.0), "log_top and tau must be positive"),
        ((4, np.ones(3), 3600.0, "nope"), "reward 'nope': choose one of bsld, wait, turnaround"),
    ]:
        with pytest.raises(ValueError, match=message):
            SelectionSettings(*arguments)
    assert next_decision(simulation)
    with pytest.raises(ValueError, match="job 1000 is not waiting"):
        first_by_order(simulation, 0, np.array([1000], dtype=np.int64))
    with pytest.raises(ValueError, match="queue order code 55"):
        first_by_order(simulation, 55, np.zeros(1, dtype=np.int64))


def test_a_selection_batch_checks_its_simulations_and_its_steps():
    jobs = core_jobs(workload())
    cores = [core(jobs, episode_jobs=10) for _ in range(2)]
    settings = SelectionSettings(4, np.ones(3), 3600.0)
    batch = SelectionBatch(cores, settings)
    first = np.zeros(2, np.int64)
    assert batch.step(first, first) == -1
    assert batch.observations.shape == (2, 29) and not batch.observations.flags.writeable
    assert (batch.filled >= 1).all()
    with pytest.raises(ValueError, match="2 actions and 1 restarts for 2 simulations"):
        batch.step(first, first[:1])
    with pytest.raises(ValueError, match="an episode of 10 jobs cannot start at position 1000000 of 40"):
        batch.step(first, np.array([0, 10**6]))
    observations = batch.observations.copy()
    none = np.full(2, -1, np.int64)
    assert batch.step(np.array([0, batch.filled[1]]), none) == 1  # not a filled slot: nothing changes
    np.testing.assert_array_equal(batch.observations, observations)
    choose_head(cores[0], int(batch.slots[0, 0]))  # driven outside the batch: no decision is pending
    with pytest.raises(RuntimeError, match="no decision is pending"):
        batch.step(first, none)
    with pytest.raises(ValueError, match="got one Simulation twice"):
        SelectionBatch([cores[0], cores[0]], settings)
    with pytest.raises(TypeError, match="a SelectionBatch steps Simulations"):
        SelectionBatch([cores[0], "core"], settings)
    with pytest.raises(ValueError, match="threads must be >= 1"):
        SelectionBatch(cores, settings, 0)


def test_the_core_keeps_its_own_copy_of_the_jobs():
    """Changing the caller's arrays between segments does not change the schedule."""
    base = workload(200, seed=3)
    estimates = base.requested * 0.7
    expected = simcore.Simulation(base, order="SPF", estimate=estimates.copy()).finish()
    mine = replace(base, submit=base.submit.copy(), requested=base.requested.copy(), procs=base.procs.copy())
    simulation = simcore.Simulation(mine, order="SPF", estimate=estimates)
    simulation.run_until(float(np.median(base.submit)))
    mine.submit[:] = 0.0
    mine.requested[:] = 1.0
    mine.procs[:] = 1
    estimates[:] = 1e9
    np.testing.assert_array_equal(simulation.finish().start, expected.start)


def test_calling_init_again_changes_nothing():
    expected = starts(core())
    simulation = core()
    simulation.run_until(150.0)
    other = core_jobs(workload(5, seed=9))
    simulation.__init__(other, 1, None, -2, make_predictor("request", 5), 0)
    np.testing.assert_array_equal(starts(simulation), expected)


FUZZ = textwrap.dedent(
    """
    import sys
    from dataclasses import replace

    import numpy as np

    import simcore
    rng = np.random.default_rng(int(sys.argv[1]))
    SPECIALS = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e300, -1e300]
    ORDERS = [order for order in simcore.ORDERS if order != "FUNCTION"]
    clean = 0

    def malformed(w):
        n, m = len(w), w.machine_size
        fields = {}
        for _ in range(rng.integers(1, 4)):
            kind = rng.integers(0, 9)
            j = rng.integers(0, n)
            if kind == 0:
                fields["procs"] = w.procs.copy()
                fields["procs"][j] = rng.choice([0, -5, m + 1, 10**12])
            elif kind in (1, 2, 3):
                name = ("submit", "run", "requested")[kind - 1]
                fields[name] = getattr(w, name).copy()
                fields[name][j] = rng.choice(SPECIALS)
            elif kind == 4:
                fields["submit"] = rng.permutation(w.submit)
            elif kind == 5:
                name = str(rng.choice(["submit", "run", "requested", "procs", "user"]))
                fields[name] = getattr(w, name)[: rng.integers(0, n)]
            elif kind == 6:
                fields["machine_size"] = int(rng.choice([0, -3, 1]))
            elif kind == 7:
                fields["run"] = w.requested * 5.0
            else:
                fields["procs"] = w.procs.astype(float) + 0.5
        return replace(w, **fields)

    for case in range(150):
        n = int(rng.integers(1, 25))
        run = rng.integers(0, 50, n).astype(float)
        w = simcore.Workload.from_arrays(
            np.sort(rng.integers(0, 60, n)).astype(float), run, run + rng.integers(1, 30, n),
            rng.integers(1, 5, n), 4, user=rng.integers(0, 3, n),
        )
        if rng.random() < 0.8:
            w = malformed(w)
        estimate = rng.choice(["request", "clairvoyant", "ave2", "regression", "array"])
        if estimate == "array":
            estimate = rng.choice([1.0, 5.0, np.nan], len(w.submit))
        try:
            sim = simcore.Simulation(
                w, order=str(rng.choice(ORDERS)), backfill=str(rng.choice(simcore.BACKFILLS)),
                threshold=rng.choice([None, 0.0, 10.0]), estimate=estimate,
                correction=str(rng.choice(simcore.CORRECTIONS)),
            )
            sim.run_until(float(rng.integers(0, 80)))
            sim.set_order(str(rng.choice(ORDERS)))
            sim.finish()
        except (ValueError, TypeError):
            clean += 1
    print("clean errors", clean)
    """
)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_malformed_workloads_never_crash_the_interpreter(seed, tmp_path):
    """Random malformed workloads through the Python API, in a subprocess: a crash or a
    hang there is a failure here, and only clean Python errors may come out."""
    assert_fuzz_run_is_clean(FUZZ, seed, tmp_path)
