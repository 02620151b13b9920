"""Dynamic orders on long queues: the core against the reference simulator.

The core re-sorts a dynamic order's queue (SEXP, LEXP, WFP3, UNICEF) at every
pass starting from the previous pass's order: an insertion sort while the
queue is nearly sorted, qsort after a burst of submissions reorders it. The
agreement tests of test_core_vs_reference.py draw at most 40 jobs, so their
queues never hold more than a few dozen; here hundreds of jobs wait on a small
machine, with keys of different jobs often exactly equal at one pass and not
at the next, so that both paths run and ties must go to the earlier position
whatever the previous order was. Breaking either shows here: ignoring the
position in the insertion sort fails the SEXP cases, skipping the qsort
fallback fails SEXP, LEXP and WFP3 cases.
Every comparison is exact.
"""

import numpy as np
import pytest
from reference_sim import reference_simulate

import simcore

DYNAMIC_ORDERS = ("SEXP", "LEXP", "WFP3", "UNICEF")
# Gaps between submissions: mostly none or short, so that a pass comes every
# few seconds and the queue moves little in between; a few fractional ones
# (inexact instants). Requested times, runs and sizes are powers of two, so
# keys of different jobs are often exactly equal (w / e, (w / e)^3 q and
# w / (log2 q e) are exact), ties that come and go as time passes.
GAPS = (0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 5.0, 0.5, 50.0)
REQUESTED = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
SEEDS = range(4)


def long_queue(seed, jobs=400):
    """(submit, run, requested, procs, user, m): about 5 times the work the
    machine does over the submissions, so the queue grows to hundreds; one
    instant in 25 submits a burst of 10-40 jobs."""
    rng = np.random.Generator(np.random.PCG64(seed))
    m = int(rng.choice((4, 8, 16)))
    submit, t = [], 0.0
    while len(submit) < jobs:
        t += float(rng.choice(GAPS))
        burst = int(rng.integers(10, 41)) if rng.random() < 0.04 else 1
        submit.extend([t] * min(burst, jobs - len(submit)))
    requested = rng.choice(REQUESTED, jobs)
    run = requested * rng.choice((0.25, 0.5, 1.0, 1.0), jobs)
    procs = np.where(rng.random(jobs) < 0.5, rng.choice((1, 2, 4), jobs), rng.integers(1, m + 1, jobs))
    return submit, run.tolist(), requested.tolist(), procs.tolist(), [0] * jobs, m


def assert_same_schedule(wl, **options):
    submit, run, requested, procs, user, m = wl
    workload = simcore.Workload.from_arrays(submit, run, requested, procs, m, user=user)
    core = simcore.simulate(workload, **options).jobs
    ref = reference_simulate(submit, run, requested, procs, user, m, **options)
    assert np.array_equal(core["start"], np.array(ref["start"], dtype=float)), options
    assert np.array_equal(core["backfilled"].astype(bool), np.array(ref["backfilled"], dtype=bool)), options
    reservation = np.array(ref["reservation"], dtype=float)
    assert np.array_equal(core["reservation"], reservation, equal_nan=True), options


def test_queues_are_long():
    # the point of these cases: far more waiting jobs than test_core_vs_reference draws
    for seed in SEEDS:
        submit, run, requested, procs, user, m = wl = long_queue(seed)
        start = simcore.simulate(
            simcore.Workload.from_arrays(submit, run, requested, procs, m, user=user), backfill="none"
        ).start
        waiting_at_last_submit = int(np.sum(start > max(submit)))
        assert waiting_at_last_submit > 150, (seed, waiting_at_last_submit, wl[-1])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("backfill", ("none", "queue"))
@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_dynamic_queue_order_matches_reference(order, backfill, seed):
    assert_same_schedule(long_queue(seed), order=order, backfill=backfill)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_dynamic_backfill_order_matches_reference(order, seed):
    # FCFS heads, the dynamic order picks the backfilled jobs: its list is
    # re-sorted in the backfill walk, from the order of its last walk
    assert_same_schedule(long_queue(seed), order="FCFS", backfill=order)


@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_dynamic_order_with_threshold_and_clairvoyant_estimates(order):
    # estimates = runs: more distinct keys; the threshold takes old jobs out first
    assert_same_schedule(long_queue(7), order=order, backfill="queue", threshold=3600.0, estimate="clairvoyant")
