"""The queue orders' registry keeps its promises.

A dynamic order may promise how it ranks the jobs of one class (equal estimate and
processors) at any instant: oldest first (its key never decreases as the submission
time grows) or newest first (never increases). A pass without backfilling then looks
at one job per class (simcore/engine/_classes.pxd), so a wrong promise would change
schedules. Checked here on the kernel's own key functions, rounding included, through
`first_by_order`, which puts the first listed job first on a tie.
"""

import numpy as np
import pytest
from simcore.engine._selection import first_by_order

import simcore
from simcore.engine import _core, _orders
from simcore.engine.predictors import make_predictor
from simcore.engine.simulation import core_jobs

OLDEST_FIRST, NEWEST_FIRST = 1, -1
ORDER_CLASS_RANKS = _orders.ORDER_CLASS_RANKS


def test_the_dynamic_orders_promise_a_class_rank_and_the_static_ones_none():
    assert ORDER_CLASS_RANKS == {
        **{name: 0 for name in simcore.ORDERS},
        "SEXP": NEWEST_FIRST,
        "LEXP": OLDEST_FIRST,
        "WFP3": OLDEST_FIRST,
        "UNICEF": OLDEST_FIRST,
    }


def waiting_pairs(seed, pairs=400):
    """A simulation in which pairs of jobs of one class wait: a job that takes the whole
    machine runs first, then each pair's two jobs arrive at two random instants (often
    close: keys that round alike), with a request of 1 s to 2^45 s and 1-64 processors."""
    rng = np.random.Generator(np.random.PCG64(seed))
    requested = np.repeat(np.exp2(rng.uniform(0.0, 45.0, pairs)).round(rng.integers(0, 4)), 2)
    procs = np.repeat(rng.integers(1, 65, pairs), 2)
    first = rng.uniform(1.0, 1e6, pairs)
    second = first + rng.choice((0.0, 1e-3, 0.1, 1.0, rng.uniform(0.0, 1e6)), pairs)
    submit = np.stack([first, second], axis=1).ravel()
    order = np.argsort(submit, kind="stable")
    submit = np.concatenate([[0.0], submit[order]])
    requested = np.concatenate([[4e6], requested[order]])
    procs = np.concatenate([[64], procs[order]])
    workload = simcore.Workload.from_arrays(submit, requested, requested, procs, 64)
    simulation = _core.Simulation(
        core_jobs(workload), 0, None, _core.BACKFILL_NONE, make_predictor("request", len(workload)), 0
    )
    simulation.run_until(3e6)  # everything submitted, the first job still running
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(1, len(order) + 1)
    return simulation, position.reshape(pairs, 2)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", [name for name, rank in ORDER_CLASS_RANKS.items() if rank])
def test_a_class_rank_holds_for_every_pair_of_one_class(name, seed):
    simulation, pairs = waiting_pairs(seed)
    code = simcore.ORDERS.index(name)
    for older, newer in np.sort(pairs, axis=1):
        # the promised first, listed first: it stays first unless the other's key is smaller
        listed = [older, newer] if ORDER_CLASS_RANKS[name] == OLDEST_FIRST else [newer, older]
        assert first_by_order(simulation, code, np.array(listed, dtype=np.int64)) == 0, (name, listed)


def test_the_check_finds_a_broken_promise():
    # SEXP ranks a class newest first: promising oldest first is caught
    simulation, pairs = waiting_pairs(0)
    code = simcore.ORDERS.index("SEXP")
    firsts = [first_by_order(simulation, code, np.array(pair, dtype=np.int64)) for pair in np.sort(pairs, axis=1)]
    assert 1 in firsts
