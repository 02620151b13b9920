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
from simcore.engine.predictors import make_predictor
from simcore.engine.simulation import (
    CORRECTIONS,
    NAMED_ORDERS,
    backfill_code,
    core_jobs,
    order_code,
    reservation_depth,
)

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
