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

Without backfilling, a pass over a queue of few classes (equal estimate and
processors) looks only at each class's first job in the order
(simcore/engine/_classes.pxd): oldest first for LEXP, WFP3 and UNICEF, newest
first for SEXP, whose ties across instants (keys that round to one value) go
to the oldest job of the tie. The cases below check that such passes happen
and agree with the reference, with thresholds, order switches, estimates and
those rounding ties.
Every comparison is exact.
"""

import numpy as np
import pytest
from reference_sim import reference_simulate
from strategies import run_with_switches

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
    result = simcore.simulate(workload, **options)
    core = result.jobs
    ref = reference_simulate(submit, run, requested, procs, user, m, **options)
    assert np.array_equal(core["start"], np.array(ref["start"], dtype=float)), options
    assert np.array_equal(core["backfilled"].astype(bool), np.array(ref["backfilled"], dtype=bool)), options
    reservation = np.array(ref["reservation"], dtype=float)
    assert np.array_equal(core["reservation"], reservation, equal_nan=True), options
    return result


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


@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_passes_without_backfilling_walk_the_classes(order):
    # the long queues hold few classes (8 requests, a few sizes): once the queue is long
    # (on the four seeds, from 12 % to 91 % of the passes) a pass walks them
    for seed in SEEDS:
        walked = assert_same_schedule(long_queue(seed), order=order, backfill="none")
        assert walked.passes_by_class > walked.passes // 10, (seed, walked.passes_by_class, walked.passes)
        resorted = assert_same_schedule(long_queue(seed), order=order, backfill="queue")
        assert resorted.passes_by_class == 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_class_walk_with_threshold_matches_reference(order, seed):
    # jobs over the threshold start first in position order, then the classes' first jobs
    result = assert_same_schedule(long_queue(seed), order=order, backfill="none", threshold=200.0)
    assert result.passes_by_class > 0


@pytest.mark.parametrize("order", DYNAMIC_ORDERS)
def test_class_walk_with_estimates_matches_reference(order):
    # clairvoyant estimates (a quarter, half or all of the request) make more classes
    assert_same_schedule(long_queue(5), order=order, backfill="none", estimate="clairvoyant")


@pytest.mark.parametrize("seed", SEEDS)
def test_class_walk_across_order_switches_matches_reference(seed):
    # the classes are kept from the first walk on, through static orders and back
    submit, run, requested, procs, user, m = long_queue(seed)
    workload = simcore.Workload.from_arrays(submit, run, requested, procs, m, user=user)
    names = ("SEXP", "FCFS", "LEXP", "SPF", "WFP3", "UNICEF", "SEXP")
    span = max(submit)
    switches = [(span * (i + 1) / (len(names) + 1), name) for i, name in enumerate(names[1:])]
    opts = dict(order=names[0], backfill="none")
    core = run_with_switches(workload, opts, switches)
    ref = reference_simulate(submit, run, requested, procs, user, m, switches=switches, **opts)
    assert np.array_equal(core["start"], np.array(ref["start"], dtype=float))


@pytest.mark.parametrize("threshold", (None, 100.0))
def test_sexp_ties_across_instants_go_to_the_oldest_job(threshold):
    # a request of 2^50 s: (t - r) + e rounds to a multiple of 0.25 s, so jobs of
    # one class submitted 0.1 s apart often have equal SEXP keys, and the oldest
    # of a tie, not the newest, starts first
    rng = np.random.Generator(np.random.PCG64(11))
    jobs = 300
    submit = np.round(np.cumsum(rng.choice((0.0, 0.1, 0.1, 0.2, 0.3), jobs)), 1).tolist()
    requested = rng.choice((2.0**50, 2.0**50 + 4.0), jobs).tolist()
    run = rng.choice((1.0, 2.0, 3.0), jobs).tolist()
    procs = rng.choice((1, 2), jobs).tolist()
    result = assert_same_schedule(
        (submit, run, requested, procs, [0] * jobs, 2), order="SEXP", backfill="none", threshold=threshold
    )
    assert result.passes_by_class > 0
    key = ((max(submit) - np.array(submit)) + np.array(requested)) / np.array(requested)
    # the ties this case is about: fewer keys than instants, at the last submission
    assert len(np.unique(key)) < 0.8 * len(np.unique(submit)), (len(np.unique(key)), len(np.unique(submit)))
