"""Simulation.fork (simcore/engine/_core.pyx): a copy of a running simulation, in C.

Continuing the original and its forks with the same calls gives what one unforked simulation
gives, bit for bit, for every order, threshold, backfill, estimate (named predictors, the
regression predictor, per-job arrays) and correction; what a fork does never reaches the original,
whichever runs first; forks of forks borrow the values their ancestors hold; and a simulation a
fork borrows from can restart (the vector env's episodes) without changing the fork.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import COMMON, cases, make_workload, with_function

import simcore
from simcore.engine import _selection
from simcore.engine.predictors import RegressionPredictor
from simcore.engine.simulation import Simulation, episode_cores
from simcore.studies.job_selection.env import episode_reward

NAMED = [order for order in simcore.ORDERS if order != "FUNCTION"]


def same(first, second):
    assert first.passes == second.passes and first.passes_by_class == second.passes_by_class
    for name, values in first.jobs.items():
        np.testing.assert_array_equal(values, second.jobs[name], err_msg=name)


def cut_instants(workload, cuts):
    """Cut instants among the submissions (events) and between them."""
    submit = workload.submit
    return sorted(float(submit[int(c * (len(submit) - 1))]) + (0.5 if c > 0.5 else 0.0) for c in cuts)


@settings(max_examples=1200, **COMMON)
@given(cases(), st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2), st.sampled_from(NAMED))
def test_forks_continue_as_the_original_and_never_reach_it(case, cuts, switch):
    wl, opts = case
    opts = {"multifactor": {}, **with_function(opts)}  # fair share tracked (and forked): switches may reach it
    if opts["estimate"] == "ave2" and cuts[0] > 0.9:
        opts["estimate"] = RegressionPredictor()  # a predictor with per-job state, by instance
    workload = make_workload(*wl)
    first, second = cut_instants(workload, cuts)

    def fresh_estimate():
        estimate = opts["estimate"]
        return RegressionPredictor() if isinstance(estimate, RegressionPredictor) else estimate

    def unforked():
        sim = Simulation(workload, **{**opts, "estimate": fresh_estimate()})
        sim.run_until(first)
        sim.set_order(switch)
        sim.run_until(second)
        return sim.finish()

    expected = unforked()
    original = Simulation(workload, **{**opts, "estimate": fresh_estimate()})
    original.run_until(first)
    fork = original.fork()
    stray = original.fork()
    stray.set_order(NAMED[(NAMED.index(switch) + 1) % len(NAMED)])  # a fork that goes its own way, first
    stray.finish()
    for sim in (fork, original):
        sim.set_order(switch)
        sim.run_until(second)
    grandchild = fork.fork()  # borrows from the fork, which borrows from the original
    same(grandchild.finish(), expected)
    same(fork.finish(), expected)
    same(original.finish(), expected)


@settings(max_examples=1000, **COMMON)
@given(cases(), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_forks_continue_job_selection_alike(case, seed, at):
    """Random heads; a fork at a random decision, driven with the same heads as the original, and
    another with different ones that must change nothing of the original's."""
    wl, opts = case
    opts = {key: opts[key] for key in ("backfill", "estimate", "correction")}
    opts["backfill"] = opts["backfill"] if opts["backfill"] in ("none", "queue", "SPF") else "queue"
    workload = make_workload(*wl)
    window = np.zeros(len(workload), dtype=np.int64)

    def drive(sim, rng, count=None):
        steps = 0
        while (count is None or steps < count) and sim.next_decision():
            waiting = sim.waiting(window)
            sim.choose(int(window[rng.integers(waiting)]))
            steps += 1
        return sim

    expected = drive(Simulation(workload, "FCFS", **opts), np.random.default_rng(seed)).finish()
    rng = np.random.default_rng(seed)
    original = drive(Simulation(workload, "FCFS", **opts), rng, int(at * len(workload)))
    fork = original.fork()
    drive(original.fork(), np.random.default_rng(seed + 1)).finish()  # other heads
    same_rng = np.random.Generator(np.random.PCG64())
    same_rng.bit_generator.state = rng.bit_generator.state
    same(drive(fork, same_rng).finish(), expected)
    same(drive(original, rng).finish(), expected)


def test_a_restart_leaves_the_values_a_fork_borrows(pwa_trace):
    """The vector env restarts its simulations in place: one a fork borrows from gets new arrays,
    and the fork (and a rollout from the same decision) still finish the first episode."""
    workload = simcore.read_swf(pwa_trace("SDSC-SP2"), filter="strict")
    episode = workload.take(np.arange(1000, 1300))
    selection = _selection.SelectionSettings(8, [60.0, 3600.0], 1e6)
    cores = episode_cores(workload, 1, len(episode), "FCFS", "queue", "request")
    batch = _selection.SelectionBatch(cores, selection)
    first_slots = np.zeros(1, dtype=np.int64)
    batch.step(first_slots, np.array([1000]))
    for _ in range(200):
        batch.step(first_slots, np.array([-1]))
    fork = cores[0].fork()
    reward = np.zeros(1)
    selection.rollout_rewards(cores[0], batch.slots[0, :1].copy(), reward)
    batch.step(first_slots, np.array([5000]))  # the original restarts on another episode
    head = np.zeros(1, dtype=np.int64)
    while _selection.next_decision(fork):
        _selection.waiting_jobs(fork, head)
        _selection.choose_head(fork, int(head[0]))
    expected = simcore.simulate(episode, "FCFS")  # the first slot is EASY-FCFS
    np.testing.assert_array_equal(fork.results()["start"], expected.start)
    assert np.isclose(reward[0], episode_reward(episode, expected.start, "bsld"), rtol=1e-12, atol=0)
