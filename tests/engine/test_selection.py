"""Job selection in the core (Simulation.next_decision / waiting / choose): an agent picks the head.

Choosing, at every decision, the earliest waiting job must give FCFS's schedule exactly, in every
backfill mode, with every estimate and correction: on random workloads and on real traces.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CORRECTIONS, make_workload, options, workloads

import simcore
from simcore.engine.simulation import Simulation

MODES = ("none", "queue", "SPF")


def fcfs_by_selection(workload, **options):
    """The schedule of an agent that always chooses the earliest waiting job."""
    sim = Simulation(workload, "FCFS", **options)
    first = np.zeros(1, dtype=np.int64)
    decisions = 0
    while sim.next_decision():
        assert sim.waiting(first) > 0
        sim.choose(int(first[0]))
        decisions += 1
    return sim.finish(), decisions


@st.composite
def fcfs_cases(draw):
    wl = draw(workloads(max_jobs=40))
    drawn = draw(options(wl[2]))
    return wl, {
        "backfill": draw(st.sampled_from(MODES)),
        "estimate": drawn["estimate"],
        "correction": draw(st.sampled_from(CORRECTIONS)),
    }


@settings(max_examples=400, deadline=None)
@given(fcfs_cases())
def test_earliest_choice_is_fcfs_on_random_workloads(case):
    wl, opts = case
    workload = make_workload(*wl)
    chosen, _ = fcfs_by_selection(workload, **opts)
    expected = simcore.simulate(workload, "FCFS", **opts)
    for name in ("start", "end", "backfilled", "reservation"):
        np.testing.assert_array_equal(chosen.jobs[name], expected.jobs[name], err_msg=f"{name} {opts}")


@pytest.mark.parametrize("backfill", MODES)
def test_earliest_choice_is_fcfs_on_a_real_trace(backfill, pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")
    chosen, decisions = fcfs_by_selection(workload, backfill=backfill)
    np.testing.assert_array_equal(chosen.start, simcore.simulate(workload, "FCFS", backfill=backfill).start)
    assert decisions == len(workload) - int(chosen.jobs["backfilled"].sum())  # one per job not backfilled


def test_a_choice_must_be_a_waiting_job_at_a_pending_decision():
    workload = make_workload([0.0, 0.0, 5.0], [10.0, 10.0, 10.0], [10.0, 10.0, 10.0], [2, 2, 1], [1, 1, 1], 2)
    sim = Simulation(workload)
    with pytest.raises(RuntimeError, match="no decision is pending"):
        sim.choose(0)
    assert sim.next_decision()
    with pytest.raises(ValueError, match="job 2 is not waiting at t = 0.0"):
        sim.choose(2)  # not submitted yet
    sim.choose(1)  # the later of the two: it runs first
    with pytest.raises(RuntimeError, match="no decision is pending"):
        sim.choose(0)
    assert sim.next_decision()  # job 0 waits at t = 0, both processors busy
    sim.choose(0)
    assert sim.next_decision() and sim.waiting(np.zeros(2, dtype=np.int64)) == 1  # job 2, at t = 10
    sim.choose(2)
    assert not sim.next_decision()
    np.testing.assert_array_equal(sim.finish().start, [10.0, 0.0, 20.0])
