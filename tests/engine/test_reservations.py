"""Reservation depth in the core (docs/semantics.md, "Reservation depth").

The depth's walk over the availability profile, run at depth 1 (`profile_walk`), gives EASY's
schedule exactly (start, end, backfilled, reservation and the counts) for every queue order: on
random workloads and on every mirror trace. Depth 0 is `backfill="none"`; depths 1, 2, 5 and all
are checked against the reference simulator in test_core_vs_reference.py; here also the known
properties of conservative backfilling, bad input, forks and the counts' place in the outputs.
"""

import numpy as np
import pytest
from conftest import SIMULABLE_TRACES, TRACE_FILES, mirror_with
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import COMMON, cases, make_workload, with_function, workloads

import simcore
from simcore.engine import _core
from simcore.engine.policies import NAMED_ORDERS, backfill_code, order_code, reservation_depth
from simcore.engine.predictors import make_predictor
from simcore.engine.priority import Multifactor
from simcore.engine.simulation import CORRECTIONS, core_jobs

COMPARED = ("start", "end", "backfilled", "corrections", "order_at_start", "reservation")


def core_run(
    workload,
    order="FCFS",
    threshold=None,
    estimate="request",
    correction="request",
    function=None,
    reservations=1,
    profile_walk=False,
):
    sim = _core.Simulation(
        core_jobs(workload),
        order_code(order),
        threshold,
        backfill_code("queue"),
        make_predictor(estimate, len(workload)),
        CORRECTIONS.index(correction),
        None if function is None else function.params(),
        -1,
        None,
        reservation_depth(reservations) if reservations != "all" else -1,
        profile_walk,
        Multifactor().params() if order == "MULTIFACTOR" else None,
    )
    sim.run_until(np.inf)
    return sim


def assert_same(first, second, context=""):
    one, other = first.results(), second.results()
    for name in COMPARED:
        np.testing.assert_array_equal(one[name], other[name], err_msg=f"{name} {context}")
    assert (first.reservations_made, first.jobs_reserved, first.passes) == (
        second.reservations_made,
        second.jobs_reserved,
        second.passes,
    ), context


@settings(max_examples=1500, **COMMON)
@given(cases())
def test_the_walk_at_depth_one_is_easy_on_random_workloads(case):
    wl, opts = case
    opts = with_function(opts)
    opts.pop("backfill")  # the walk backfills in the queue order
    workload = make_workload(*wl)
    assert_same(core_run(workload, **opts, profile_walk=True), core_run(workload, **opts), str(opts))


@pytest.mark.parametrize("name", SIMULABLE_TRACES)
def test_the_walk_at_depth_one_is_easy_on_every_mirror_trace(name):
    workload = simcore.read_swf(mirror_with(name) / TRACE_FILES[name], filter="strict")
    for order in NAMED_ORDERS:
        assert_same(core_run(workload, order, profile_walk=True), core_run(workload, order), f"{name} {order}")


def conservative_fcfs(wl):
    """EASY-FCFS's conservative variant with exact estimates: run times lifted to >= 1 s (the core
    clips an estimate to >= 1 s, so a shorter job would end before its estimate)."""
    submit, run, requested, procs, user, m = wl
    run = [max(1.0, p) for p in run]
    requested = [max(r, p) for r, p in zip(requested, run)]
    workload = make_workload(submit, run, requested, procs, user, m)
    return workload, simcore.simulate(workload, "FCFS", estimate="clairvoyant", reservations="all")


@settings(max_examples=800, **COMMON)
@given(workloads())
def test_conservative_never_starts_a_job_after_its_first_reservation(wl):
    _, result = conservative_fcfs(wl)
    reserved = ~np.isnan(result.jobs["reservation"])
    assert (result.start[reserved] <= result.jobs["reservation"][reserved]).all()


@settings(max_examples=800, **COMMON)
@given(workloads(), st.floats(0.0, 1.0))
def test_conservative_ignores_the_jobs_submitted_later(wl, at):
    workload, result = conservative_fcfs(wl)
    j = int(at * (len(workload) - 1))
    later_last = np.flatnonzero(workload.submit > workload.submit[j])
    kept = np.arange(len(workload)) if not len(later_last) else np.arange(later_last[0])
    alone = simcore.simulate(workload.take(kept), "FCFS", estimate="clairvoyant", reservations="all")
    assert alone.start[j] == result.start[j]


@settings(max_examples=300, **COMMON)
@given(cases(), st.sampled_from((2, 5, "all")), st.floats(0.0, 1.0))
def test_a_fork_continues_at_any_depth(case, depth, at):
    wl, opts = case
    opts = {**with_function(opts), "backfill": "queue"}
    workload = make_workload(*wl)
    expected = simcore.simulate(workload, **opts, reservations=depth)
    sim = simcore.Simulation(workload, **opts, reservations=depth)
    sim.run_until(float(workload.submit[int(at * (len(workload) - 1))]))
    fork = sim.fork()
    for result in (fork.finish(), sim.finish()):
        np.testing.assert_array_equal(result.start, expected.start)
        assert result.reservations_made == expected.reservations_made


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reservations": -1}, "reservations -1: a depth >= 0"),
        ({"reservations": 1.5}, "reservations 1.5: a depth >= 0"),
        ({"reservations": True}, "reservations True: a depth >= 0"),
        ({"reservations": "ALL"}, "reservations 'ALL': a depth >= 0"),
        ({"reservations": 2, "backfill": "SPF"}, "reservations 2: a depth of 2 or more backfills in the queue order"),
        ({"reservations": "all", "backfill": "none"}, "reservations all: a depth of 2 or more"),
        ({"reservations": 0, "backfill": "SPF"}, "reservations 0 is no backfilling"),
    ],
)
def test_a_bad_depth_is_one_line_naming_the_key(options, message):
    workload = make_workload([0.0, 1.0], [5.0, 5.0], [9.0, 9.0], [1, 2], [0, 0], 2)
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")) as error:
        simcore.simulate(workload, **options)
    assert "\n" not in str(error.value)


def test_depth_zero_is_no_backfilling_and_counts_travel_to_the_summary():
    workload = make_workload([0, 0, 0, 1], [10, 10, 3, 2], [10, 20, 5, 2], [2, 2, 1, 1], [0, 0, 0, 0], 3)
    none = simcore.simulate(workload, backfill="none")
    zero = simcore.simulate(workload, reservations=0)
    np.testing.assert_array_equal(zero.start, none.start)
    assert zero.reservations_made == 0 and zero.summary()["reservations_made"] == 0
    easy = simcore.simulate(workload)
    assert "reservations_made" not in easy.summary() and "reservations" not in easy.options  # EASY as before
    conservative = simcore.simulate(workload, reservations="all")
    assert conservative.options["reservations"] == "all" and conservative.summary()["jobs_reserved"] >= 1
