"""Online policy selection (SEMANTICS §7, simcore/learners.py).

1. learner arithmetic, checked by hand on Feedback objects (full feedback
   with decay, epsilon-greedy, UCB1, EXP3, sliding-window UCB);
2. constructed workloads whose best order is known (SPF);
3. exact feedback checked against separately composed simulations, for both
   feedback job sets ("submitted", "started");
4. bandit feedback (the `jobs`/`wait` columns) checked against the run, for
   both credits ("finished", "started");
5. the policy in force: `order_at_start` of every job is the order chosen for
   the period containing its start;
6. bit-for-bit reproducibility, and different seeds giving different choices;
7. clear ValueErrors for bad arguments;
8. a real trace (KTH-SP2, 20 resampled weeks): full feedback beats FCFS.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import COMMON, make_workload, workloads

import simcore
from simcore.engine.policies import Policy
from simcore.studies.bandit.learners import (
    DAY,
    EXP3,
    LEARNERS,
    UCB1,
    WEEK,
    EpsilonGreedy,
    Feedback,
    FullFeedback,
    Learner,
    NoisyFeedback,
    RandomLearner,
    SlidingWindowUCB,
    run_learner,
)

ORDERS = simcore.BANDIT_ORDERS


# ---------------------------------------------------------------- helpers ---


def rng(seed=0):
    return np.random.default_rng(seed)


def fb(chosen, jobs=0, wait=0.0, waits=None):
    return Feedback(chosen, jobs, wait, None if waits is None else np.asarray(waits, dtype=float))


def random_workload(seed, n=60, m=8, span=10000.0):
    """Overloaded random workload: queues spill over many periods of 2000 s."""
    g = np.random.default_rng(seed)
    submit = np.sort(np.round(g.uniform(0, span, n)))
    requested = g.choice([60.0, 300.0, 900.0, 1800.0, 3600.0], n)
    run = np.round(requested * g.uniform(0.05, 1.2, n))  # some jobs are killed
    procs = g.integers(1, m + 1, n)
    user = g.integers(0, 3, n)
    return simcore.Workload.from_arrays(submit, run, requested, procs, m, user=user)


LEARNER_OPTIONS = {
    "random": {},
    "full": {},
    "noisy": {},
    "epsilon-greedy": {"epsilon": 0.5},
    "ucb1": {},
    "exp3": {"gamma": 0.3},
    "sw-ucb": {"window": 4},
}


SPF_PERIOD = 10000.0


def spf_workload(periods, period=SPF_PERIOD, m=4):
    """Every period: a blocker at kΔ (10 s), five short jobs (10 s) at kΔ+1, a
    long job (1000 s) at kΔ+2, five short jobs at kΔ+3; every job needs the
    whole machine (no backfilling) and requests its exact run time. Each
    period's jobs complete well within it (1110 s of work).

    By hand, per period: FCFS and LCFS make 5 short jobs wait behind the long
    one (total wait 5588 s); SPF runs the 10 short jobs first (145 + 385 + 108
    = 638 s)."""
    submit, run = [], []
    for k in range(periods):
        base = k * period
        submit += [base] + [base + 1] * 5 + [base + 2] + [base + 3] * 5
        run += [10.0] + [10.0] * 5 + [1000.0] + [10.0] * 5
    n = len(submit)
    return simcore.Workload.from_arrays(submit, run, run, [m] * n, m)


SPF_CANDIDATES = ["FCFS", "LCFS", "LPF", "SEXP", "SPF"]  # SPF the unique best, and last


def total_wait(result, workload):
    return float(np.sum(result.start - workload.submit))


def wait_sum(workload, jobs, order, threshold=None, backfill="queue"):
    """Σ wait of `jobs` simulated alone, from an empty machine, under `order`."""
    if len(jobs) == 0:
        return 0.0
    subset = workload.take(jobs)
    result = simcore.simulate(subset, order=order, threshold=threshold, backfill=backfill)
    return float(np.sum(result.start - subset.submit))


def cost_columns(candidates):
    return [f"cost_{order}" for order in candidates]


def in_period(values, k, period):
    begin, end = k * period, (k + 1) * period
    return (values >= begin) & (values < end)


# ------------------------------------------------ 1. learner arithmetic ---


def test_full_feedback_decay_costs_and_argmin():
    lam = 0.5
    learner = FullFeedback(["FCFS", "SPF", "SAF"], rng(), decay=lam)
    assert np.isnan(learner.costs()).all()
    assert learner.choose(0) == 0  # no history: FCFS
    waits = [[10.0, 4.0, 8.0], [6.0, 10.0, 2.0], [4.0, 2.0, 3.0]]
    expected_costs = [
        [10.0, 4.0, 8.0],  # k = 1
        [lam * 10 + 6, lam * 4 + 10, lam * 8 + 2],  # k = 2: 11, 12, 6
        [
            lam**2 * 10 + lam * 6 + 4,  # k = 3: 9.5
            lam**2 * 4 + lam * 10 + 2,  #        8
            lam**2 * 8 + lam * 2 + 3,
        ],  #        6
    ]
    expected_choice = [1, 2, 2]
    for t, w in enumerate(waits):
        learner.observe(t, fb(0, waits=w))
        np.testing.assert_allclose(learner.costs(), expected_costs[t], rtol=0, atol=1e-12)
        assert learner.choose(t + 1) == expected_choice[t]
    # Σ λ^(k-1-t) w(t;P) explicitly
    k = len(waits)
    direct = sum(lam ** (k - 1 - t) * np.array(w) for t, w in enumerate(waits))
    np.testing.assert_allclose(learner.costs(), direct, rtol=1e-15)
    # costs() is a record, not a handle on the state
    learner.costs()[:] = -1
    np.testing.assert_allclose(learner.costs(), direct, rtol=1e-15)


def test_full_feedback_default_decay_is_plain_sum():
    learner = FullFeedback(["FCFS", "SPF"], rng())
    for w in ([3.0, 5.0], [4.0, 1.0], [0.0, 2.0]):
        learner.observe(0, fb(0, waits=w))
    np.testing.assert_array_equal(learner.costs(), [7.0, 8.0])
    assert learner.choose(3) == 0


def test_full_feedback_ties_and_default():
    # ties go to the earliest candidate, even when FCFS is among them later
    learner = FullFeedback(["SPF", "FCFS", "SAF"], rng())
    assert learner.choose(0) == 1  # no history: FCFS, wherever it is
    learner.observe(0, fb(0, waits=[3.0, 3.0, 3.0]))
    assert learner.choose(1) == 0
    learner = FullFeedback(["FCFS", "SPF", "SAF"], rng())
    learner.observe(0, fb(0, waits=[5.0, 3.0, 3.0]))
    assert learner.choose(1) == 1
    # FCFS not a candidate: the first candidate
    learner = FullFeedback(["SPF", "SAF"], rng())
    assert learner.choose(0) == 0
    learner = EpsilonGreedy(["LPF", "SAF"], rng(), epsilon=0.0)
    assert learner.choose(0) == 0


def test_noisy_feedback_is_full_feedback_arithmetic():
    learner = NoisyFeedback(["FCFS", "SPF"], rng(), decay=0.5)
    assert learner.needs_simulation and FullFeedback.needs_simulation
    learner.observe(0, fb(0, waits=[4.0, 2.0]))
    learner.observe(1, fb(0, waits=[1.0, 2.0]))
    np.testing.assert_array_equal(learner.costs(), [3.0, 3.0])
    assert learner.choose(2) == 0
    for name in ("random", "epsilon-greedy", "ucb1", "exp3", "sw-ucb"):
        assert not LEARNERS[name].needs_simulation


def test_epsilon_greedy_hand_computed_costs():
    lam = 0.5
    learner = EpsilonGreedy(["SPF", "FCFS", "SAF", "LPF"], rng(), decay=lam, epsilon=0.0)
    nan = np.nan
    assert np.isnan(learner.costs()).all()
    assert learner.choose(0) == 1  # nothing defined: FCFS
    steps = [
        # (feedback, costs after, choice after)
        (fb(1, jobs=4, wait=40.0), [nan, 10.0, nan, nan], 1),
        # FCFS: λ·40/4 = 5; SPF: 16/2 = 8
        (fb(0, jobs=2, wait=16.0), [8.0, 5.0, nan, nan], 1),
        # SAF used but finished no job: still undefined; every wait decays
        (fb(2, jobs=0, wait=0.0), [4.0, 2.5, nan, nan], 1),
        # SPF: (λ²·16 + 8) / (2 + 8) = 1.2 (denominator NOT discounted) < FCFS: λ³·40/4 = 1.25.
        # (A discounted denominator would give 12 / 8.5 = 1.41 and choose FCFS.)
        (fb(0, jobs=8, wait=8.0), [1.2, 1.25, nan, nan], 0),
    ]
    for t, (feedback, costs, choice) in enumerate(steps):
        learner.observe(t, feedback)
        np.testing.assert_allclose(learner.costs(), costs, rtol=1e-14, equal_nan=True)
        assert learner.choose(t + 1) == choice


def test_epsilon_greedy_undefined_costs_fall_back_to_fcfs():
    learner = EpsilonGreedy(["SPF", "SAF", "FCFS"], rng(), epsilon=0.0)
    learner.observe(0, fb(0, jobs=0, wait=0.0))  # SPF used, finished nothing
    learner.observe(1, fb(1, jobs=0, wait=0.0))
    assert np.isnan(learner.costs()).all()
    assert learner.choose(2) == 2
    # equal defined costs: earliest candidate
    learner.observe(2, fb(1, jobs=2, wait=6.0))
    learner.observe(3, fb(0, jobs=1, wait=3.0))
    np.testing.assert_array_equal(learner.costs()[:2], [3.0, 3.0])
    assert learner.choose(4) == 0


def test_epsilon_greedy_exploration_frequencies():
    n = 20000
    learner = EpsilonGreedy(["FCFS", "SPF", "SAF", "LPF"], rng(7), epsilon=1.0)
    learner.observe(0, fb(1, jobs=10, wait=1.0))  # SPF is by far the greedy choice
    counts = np.bincount([learner.choose(k) for k in range(n)], minlength=4) / n
    np.testing.assert_allclose(counts, 0.25, atol=0.015)
    # epsilon = 0.4: the argmin gets 0.6 + 0.4/4, the others 0.1 each
    learner = EpsilonGreedy(["FCFS", "SPF", "SAF", "LPF"], rng(8), epsilon=0.4)
    learner.observe(0, fb(1, jobs=10, wait=1.0))
    counts = np.bincount([learner.choose(k) for k in range(n)], minlength=4) / n
    np.testing.assert_allclose(counts, [0.1, 0.7, 0.1, 0.1], atol=0.015)
    # epsilon = 0: never explores
    learner = EpsilonGreedy(["FCFS", "SPF", "SAF", "LPF"], rng(9), epsilon=0.0)
    learner.observe(0, fb(1, jobs=10, wait=1.0))
    assert {learner.choose(k) for k in range(2000)} == {1}


def test_ucb1_plays_each_arm_then_the_index():
    learner = UCB1(["FCFS", "SPF", "SAF"], rng())
    nan = np.nan
    assert learner.choose(0) == 0
    # t0: mean wait c = 10, M = 10 -> reward 1 - 10/10 = 0
    learner.observe(0, fb(0, jobs=2, wait=20.0))
    np.testing.assert_allclose(learner.costs(), [1.0, nan, nan], equal_nan=True)
    assert learner.choose(1) == 1
    # t1: c = 5, M = 10 -> reward 0.5
    learner.observe(1, fb(1, jobs=4, wait=20.0))
    np.testing.assert_allclose(learner.costs(), [1.0, 0.5, nan], equal_nan=True)
    assert learner.choose(2) == 2
    # t2: no job finished -> no feedback, SAF still unplayed
    learner.observe(2, fb(2, jobs=0, wait=0.0))
    np.testing.assert_allclose(learner.costs(), [1.0, 0.5, nan], equal_nan=True)
    assert learner.choose(3) == 2
    # t3: c = 40 raises M to 40 -> reward 0
    learner.observe(3, fb(2, jobs=1, wait=40.0))
    np.testing.assert_allclose(learner.costs(), [1.0, 0.5, 1.0])
    n = 3
    index = np.array([0.0, 0.5, 0.0]) + np.sqrt(2 * math.log(n) / np.ones(3))
    assert learner.choose(4) == int(np.argmax(index)) == 1
    # t4: c = 10 with M = 40 (the later, larger mean wait) -> reward 0.75
    learner.observe(4, fb(1, jobs=1, wait=10.0))
    np.testing.assert_allclose(learner.costs(), [1.0, 1 - 1.25 / 2, 1.0])
    # t5: c = 0 -> reward 1
    learner.observe(5, fb(0, jobs=5, wait=0.0))
    np.testing.assert_allclose(learner.costs(), [0.5, 0.375, 1.0])
    plays = np.array([2.0, 2.0, 1.0])
    rewards = np.array([1.0, 1.25, 0.0])
    index = rewards / plays + np.sqrt(2 * math.log(plays.sum()) / plays)
    assert learner.choose(6) == int(np.argmax(index)) == 1


def test_normalized_reward_is_one_when_every_mean_wait_is_zero():
    learner = UCB1(["FCFS", "SPF"], rng())
    learner.observe(0, fb(0, jobs=3, wait=0.0))
    np.testing.assert_allclose(learner.costs(), [0.0, np.nan], equal_nan=True)
    assert learner.reward(fb(1, jobs=2, wait=0.0)) == 1.0
    assert learner.reward(fb(1, jobs=0, wait=0.0)) is None
    assert learner.reward(fb(1, jobs=2, wait=8.0)) == 0.0  # M becomes 4
    assert learner.reward(fb(1, jobs=1, wait=1.0)) == 0.75


def test_exp3_probabilities_and_update():
    gamma, K = 0.3, 3
    learner = EXP3(["FCFS", "SPF", "SAF"], rng(), gamma=gamma)
    np.testing.assert_allclose(learner.probabilities(), [1 / 3] * 3)
    # t0: c = 10 = M -> reward 0 -> weights unchanged
    learner.observe(0, fb(1, jobs=2, wait=20.0))
    np.testing.assert_allclose(learner.probabilities(), [1 / 3] * 3)
    # t1: c = 5, M = 10 -> reward 0.5, estimate 0.5 / (1/3), log weight += gamma * 1.5 / 3
    learner.observe(1, fb(2, jobs=1, wait=5.0))
    w = np.exp([0.0, 0.0, gamma * 1.5 / K])
    p1 = (1 - gamma) * w / w.sum() + gamma / K
    np.testing.assert_allclose(learner.probabilities(), p1, rtol=1e-14)
    np.testing.assert_allclose(learner.costs(), 1 - p1, rtol=1e-14)
    # t2: no job finished -> no update
    learner.observe(2, fb(0, jobs=0, wait=0.0))
    np.testing.assert_allclose(learner.probabilities(), p1, rtol=1e-14)
    # t3: c = 2, M = 10 -> reward 0.8, estimate 0.8 / p1[0]
    learner.observe(3, fb(0, jobs=2, wait=4.0))
    log_w = np.array([gamma * (0.8 / p1[0]) / K, 0.0, gamma * 1.5 / K])
    w = np.exp(log_w)
    p3 = (1 - gamma) * w / w.sum() + gamma / K
    probabilities = learner.probabilities()
    np.testing.assert_allclose(probabilities, p3, rtol=1e-14)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-14)
    assert (probabilities >= gamma / K - 1e-15).all()
    # choose() draws from these probabilities
    n = 20000
    counts = np.bincount([learner.choose(k) for k in range(n)], minlength=3) / n
    np.testing.assert_allclose(counts, p3, atol=0.015)


def test_exp3_probabilities_sum_to_one_under_long_feedback():
    g = np.random.default_rng(3)
    for gamma in (0.01, 0.1, 1.0):
        learner = EXP3(list(ORDERS), rng(), gamma=gamma)
        for t in range(300):
            learner.observe(t, fb(int(g.integers(12)), jobs=int(g.integers(0, 5)), wait=float(g.uniform(0, 1e5))))
            p = learner.probabilities()
            assert np.isfinite(p).all()
            assert p.sum() == pytest.approx(1.0, abs=1e-12)
            assert (p >= gamma / 12 - 1e-15).all()
        if gamma == 1.0:
            np.testing.assert_allclose(p, 1 / 12)  # pure exploration


def test_sliding_window_ucb_forgets_old_feedback():
    nan = np.nan
    learner = SlidingWindowUCB(["FCFS", "SPF", "SAF"], rng(), window=2)
    learner.observe(0, fb(0, jobs=1, wait=10.0))  # M = 10, reward 0
    learner.observe(1, fb(1, jobs=1, wait=5.0))  # reward 0.5
    np.testing.assert_allclose(learner.costs(), [1.0, 0.5, nan], equal_nan=True)
    assert learner.choose(2) == 2
    learner.observe(2, fb(2, jobs=1, wait=0.0))  # reward 1; FCFS's period leaves the window
    np.testing.assert_allclose(learner.costs(), [nan, 0.5, 0.0], equal_nan=True)
    assert learner.choose(3) == 0  # unplayed within the window
    learner.observe(3, fb(0, jobs=0, wait=0.0))  # no feedback: the window does not move
    np.testing.assert_allclose(learner.costs(), [nan, 0.5, 0.0], equal_nan=True)
    learner.observe(4, fb(0, jobs=2, wait=10.0))  # c = 5, M = 10: reward 0.5
    np.testing.assert_allclose(learner.costs(), [0.5, nan, 0.0], equal_nan=True)
    assert learner.choose(5) == 1
    learner.observe(5, fb(1, jobs=1, wait=2.5))  # reward 0.75
    np.testing.assert_allclose(learner.costs(), [0.5, 0.25, nan], equal_nan=True)
    assert learner.choose(6) == 2


def test_sliding_window_index_and_large_window_is_ucb1():
    learner = SlidingWindowUCB(["FCFS", "SPF"], rng(), window=3)
    for t, feedback in enumerate([fb(0, 1, 10.0), fb(1, 1, 5.0), fb(1, 1, 2.0), fb(0, 1, 8.0)]):
        learner.observe(t, feedback)
    # window holds rewards (SPF 0.5), (SPF 0.8), (FCFS 0.2)
    np.testing.assert_allclose(learner.costs(), [0.8, 1 - 1.3 / 2])
    plays, rewards = np.array([1.0, 2.0]), np.array([0.2, 1.3])
    index = rewards / plays + np.sqrt(2 * math.log(3) / plays)
    assert learner.choose(4) == int(np.argmax(index))
    # a window longer than the history: exactly UCB1
    g = np.random.default_rng(11)
    ucb, sw = UCB1(list(ORDERS), rng()), SlidingWindowUCB(list(ORDERS), rng(), window=1000)
    for t in range(200):
        assert ucb.choose(t) == sw.choose(t)
        feedback = fb(ucb.choose(t), jobs=int(g.integers(0, 4)), wait=float(g.uniform(0, 1e4)))
        ucb.observe(t, feedback)
        sw.observe(t, feedback)
        np.testing.assert_allclose(ucb.costs(), sw.costs(), rtol=1e-12, equal_nan=True)


def test_random_learner_is_uniform():
    learner = RandomLearner(["FCFS", "SPF", "SAF", "LPF", "SQF"], rng(5))
    counts = np.bincount([learner.choose(k) for k in range(20000)], minlength=5) / 20000
    np.testing.assert_allclose(counts, 0.2, atol=0.015)
    assert np.isnan(learner.costs()).all()


# --------------------------------------- 2. workloads with a known best ---


def test_spf_workload_is_what_the_docstring_says():
    w = spf_workload(1)
    waits = {order: wait_sum(w, np.arange(len(w)), order) for order in ORDERS}
    assert waits["FCFS"] == waits["LCFS"] == 5588.0
    assert waits["SPF"] == 638.0
    assert min(waits.values()) == 638.0
    assert min(waits[o] for o in SPF_CANDIDATES if o != "SPF") >= 5000.0


@pytest.mark.parametrize("learner", ["full", "noisy"])
def test_exact_feedback_picks_the_known_best_order(learner):
    w = spf_workload(8)
    run = run_learner(w, learner, period=SPF_PERIOD, candidates=SPF_CANDIDATES, seed=3)
    orders = run.periods["order"].tolist()
    assert run.periods["period"].tolist() == list(range(8))
    assert orders[0] == "FCFS"
    assert orders[1:] == ["SPF"] * 7
    fcfs = simcore.simulate(w, order="FCFS")
    assert total_wait(run.result, w) <= total_wait(fcfs, w)
    assert total_wait(run.result, w) == 5588.0 + 7 * 638.0


def test_full_feedback_with_all_orders_picks_the_earliest_best():
    # SPF, LEXP, SRF and SAF tie at 638 s per period; SPF is the earliest of them
    w = spf_workload(4)
    run = run_learner(w, "full", period=SPF_PERIOD)
    assert run.periods["order"].tolist() == ["FCFS", "SPF", "SPF", "SPF"]
    costs = run.periods.loc[3, cost_columns(ORDERS)].to_numpy(dtype=float)
    assert costs[ORDERS.index("SPF")] == 3 * 638.0
    assert costs[ORDERS.index("FCFS")] == 3 * 5588.0


def test_epsilon_greedy_settles_on_a_better_order_than_fcfs():
    periods = 40
    w = spf_workload(periods)
    run = run_learner(w, "epsilon-greedy", period=SPF_PERIOD, candidates=SPF_CANDIDATES, epsilon=0.3, seed=1)
    p = run.periods
    late = p["order"].iloc[periods // 2 :]
    assert (late == "SPF").mean() >= 0.5
    final = p[cost_columns(SPF_CANDIDATES)].iloc[-1].to_numpy(dtype=float)
    assert SPF_CANDIDATES[int(np.nanargmin(final))] == "SPF"
    # every period finishes its own 12 jobs: the bandit costs are mean waits
    assert (p["jobs"] == 12).all()
    assert final[SPF_CANDIDATES.index("SPF")] == pytest.approx(638.0 / 12)
    assert final[SPF_CANDIDATES.index("FCFS")] == pytest.approx(5588.0 / 12)
    assert total_wait(run.result, w) < total_wait(simcore.simulate(w, order="FCFS"), w)


def test_epsilon_greedy_without_exploration_never_leaves_fcfs():
    # §7: with epsilon = 0 only FCFS (used in the first period) ever gets a defined
    # cost, so the greedy choice stays FCFS however much better SPF would be.
    w = spf_workload(10)
    run = run_learner(w, "epsilon-greedy", period=SPF_PERIOD, candidates=SPF_CANDIDATES, epsilon=0.0)
    assert (run.periods["order"] == "FCFS").all()
    assert run.periods[cost_columns(SPF_CANDIDATES[1:])].isna().all().all()


def test_ucb1_run_plays_each_order_once_first():
    w = spf_workload(12)
    run = run_learner(w, "ucb1", period=SPF_PERIOD, candidates=SPF_CANDIDATES)
    assert run.periods["order"].tolist()[:5] == SPF_CANDIDATES
    assert run.periods["order"].iloc[5] == "SPF"  # the best mean reward, equal bonuses


# ------------------------------------------- 3. exact feedback vs. hand ---


def expected_exact_costs(w, periods, period, candidates, job_set, decay, threshold, backfill):
    """Cost columns of every row: Σ_{t<k} λ^(k-1-t) w(t;P), from composed simulations."""
    rows, total = [], np.full(len(candidates), np.nan)
    for k in periods["period"]:
        rows.append(total.copy())
        jobs = job_set(k)
        waits = np.array([wait_sum(w, jobs, order, threshold, backfill) for order in candidates])
        total = waits if np.isnan(total).all() else decay * total + waits
    return np.array(rows)


def submitted_in(w, period):
    return lambda k: np.flatnonzero(in_period(w.submit, k, period))


def started_or_waiting(w, start, period):
    """Jobs started in period k, plus those submitted before its end and still waiting then."""

    def jobs(k):
        end = (k + 1) * period
        return np.flatnonzero(in_period(start, k, period) | ((w.submit < end) & (start >= end)))

    return jobs


EXACT_CASES = [
    # seed, candidates, decay, threshold, backfill
    (1, None, 1.0, None, "queue"),
    (2, ["SPF", "LAF", "FCFS", "SEXP"], 0.5, None, "queue"),
    (3, ["LCFS", "SAF", "LRF"], 0.8, 600.0, "SPF"),
    (4, None, 0.9, 1200.0, "none"),
]


@pytest.mark.parametrize("feedback_jobs", ["submitted", "started"])
@pytest.mark.parametrize("seed, candidates, decay, threshold, backfill", EXACT_CASES)
def test_exact_feedback_matches_composed_simulations(seed, candidates, decay, threshold, backfill, feedback_jobs):
    period = 2000.0
    w = random_workload(seed)
    run = run_learner(
        w,
        "full",
        period=period,
        candidates=candidates,
        decay=decay,
        policy=Policy(threshold=threshold, backfill=backfill),
        feedback_jobs=feedback_jobs,
    )
    names = list(ORDERS if candidates is None else candidates)
    p = run.periods
    assert len(p) >= 6  # the queue spills over several periods
    if feedback_jobs == "submitted":
        job_set = submitted_in(w, period)
    else:
        job_set = started_or_waiting(w, run.result.start, period)
        # the "started" sets differ from the submitted sets on this overloaded workload
        assert any(not np.array_equal(job_set(k), submitted_in(w, period)(k)) for k in p["period"])
    expected = expected_exact_costs(w, p, period, names, job_set, decay, threshold, backfill)
    got = p[cost_columns(names)].to_numpy(dtype=float)
    assert np.isnan(got[0]).all()
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    # each period's order is the argmin of the costs it records (ties: earliest; none: FCFS)
    default = names.index("FCFS") if "FCFS" in names else 0
    for row, order in zip(got, p["order"]):
        best = default if np.isnan(row).all() else int(np.flatnonzero(row == np.nanmin(row))[0])
        assert order == names[best]


def test_noisy_feedback_scales_each_period_within_the_noise():
    period = 2000.0
    w = random_workload(5)
    candidates = ["FCFS", "SPF", "LPF", "SAF"]
    full = run_learner(w, "full", period=period, candidates=candidates)
    noisy = run_learner(w, "noisy", period=period, candidates=candidates, seed=4)
    # the submitted sets do not depend on the choices: compare period by period
    exact = np.array(
        [[wait_sum(w, submitted_in(w, period)(k), o) for o in candidates] for k in noisy.periods["period"]]
    )
    cols = cost_columns(candidates)
    noisy_costs = noisy.periods[cols].to_numpy(dtype=float)
    noisy_waits = np.diff(np.vstack([np.zeros(len(candidates)), np.nan_to_num(noisy_costs[1:])]), axis=0)
    exact = exact[: len(noisy_waits)]
    assert (noisy_waits >= 0.85 * exact - 1e-6).all() and (noisy_waits <= 1.15 * exact + 1e-6).all()
    assert not np.allclose(noisy_waits, exact)  # the noise is applied
    # without noise, noisy is full, bit for bit
    quiet = run_learner(w, "noisy", period=period, candidates=candidates, seed=4, noise=0.0)
    pd.testing.assert_frame_equal(quiet.periods, full.periods)
    # explicit noise on full
    loud = run_learner(w, "full", period=period, candidates=candidates, seed=4, noise=0.15)
    pd.testing.assert_frame_equal(loud.periods, noisy.periods)


def test_noisy_feedback_draws_one_factor_per_job():
    """rho is drawn per job (and candidate), not once per period: on periods of 31
    jobs with similar waits, the period's noisy/exact ratio has a standard
    deviation near 0.0866 / sqrt(22) ~ 0.018, not 0.0866 (one draw per period)."""
    period, n_periods = 1000.0, 60
    submit = np.repeat(np.arange(n_periods) * period, 31)
    w = simcore.Workload.from_arrays(
        submit, np.full(len(submit), 10.0), np.full(len(submit), 10.0), np.ones(len(submit)), 1
    )
    exact = sum(10.0 * i for i in range(31))
    run = run_learner(w, "noisy", period=period, candidates=["FCFS"], seed=2)
    cumulative = run.periods["cost_FCFS"].to_numpy(dtype=float)[1:]
    ratios = np.diff(np.concatenate([[0.0], cumulative])) / exact
    assert len(ratios) == n_periods - 1
    assert ((ratios >= 0.85) & (ratios <= 1.15)).all()
    assert abs(ratios.mean() - 1) < 0.02
    assert 0.005 < ratios.std() < 0.045


# ------------------------------------------- 4-5. the run, period by period ---


def check_bandit_columns(run, w, period, credit):
    start, end = run.result.jobs["start"], run.result.jobs["end"]
    credited_time = end if credit == "finished" else start
    p = run.periods
    for k, jobs, wait in zip(p["period"], p["jobs"], p["wait"]):
        mask = in_period(credited_time, k, period)
        assert jobs == int(mask.sum()), k
        assert wait == pytest.approx(float(np.sum(start[mask] - w.submit[mask])), rel=1e-12, abs=1e-9), k
    # every job is credited exactly once
    assert p["jobs"].sum() == len(w)


def check_periods_frame(run, w, period):
    p = run.periods
    first = int(np.floor(w.submit.min() / period))
    assert p["period"].tolist() == list(range(first, first + len(p)))
    np.testing.assert_array_equal(p["start"].to_numpy(), p["period"].to_numpy() * period)
    # the run stops in the period where the last job ends
    last_end = np.max(run.result.jobs["end"])
    assert p["start"].iloc[-1] <= last_end < p["start"].iloc[-1] + period
    assert not np.isnan(run.result.start).any()


def check_order_in_force(run, period):
    start = run.result.jobs["start"]
    codes = run.result.jobs["order_at_start"]
    p = run.periods
    seen = np.zeros(len(start), dtype=bool)
    for k, order in zip(p["period"], p["order"]):
        mask = in_period(start, k, period)
        assert not seen[mask].any()
        seen |= mask
        got = [ORDERS[c] for c in codes[mask]]
        assert got == [order] * int(mask.sum()), (k, order, got)
    assert seen.all()


@pytest.mark.parametrize("credit", ["finished", "started"])
@pytest.mark.parametrize(
    "learner, options",
    [
        ("epsilon-greedy", {"epsilon": 0.5}),
        ("epsilon-greedy", {"epsilon": 0.0}),
        ("ucb1", {}),
        ("exp3", {"gamma": 0.5}),
        ("sw-ucb", {"window": 3}),
        ("random", {}),
    ],
)
def test_bandit_columns_and_order_in_force(learner, options, credit):
    period = 1500.0
    for seed in (1, 2):
        w = random_workload(seed + 10)
        run = run_learner(
            w, learner, period=period, credit=credit, seed=seed, policy=Policy(threshold=900.0), **options
        )
        check_periods_frame(run, w, period)
        check_bandit_columns(run, w, period, credit)
        check_order_in_force(run, period)
        if learner != "epsilon-greedy" or options["epsilon"] > 0:
            assert run.periods["order"].nunique() > 1  # the test sees switches


def test_epsilon_greedy_costs_follow_the_run_columns():
    """The cost columns of epsilon-greedy are recomputed from the run's own jobs/wait/order."""
    period, lam = 1500.0, 0.7
    w = random_workload(21)
    run = run_learner(
        w, "epsilon-greedy", period=period, epsilon=0.6, decay=lam, seed=5, candidates=["FCFS", "SPF", "LAF", "SEXP"]
    )
    names = ["FCFS", "SPF", "LAF", "SEXP"]
    p = run.periods
    wait, jobs = np.zeros(4), np.zeros(4)
    for _, row in p.iterrows():
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.where(jobs > 0, wait / jobs, np.nan)
        np.testing.assert_allclose(row[cost_columns(names)].to_numpy(dtype=float), expected, rtol=1e-12, equal_nan=True)
        wait *= lam
        i = names.index(row["order"])
        wait[i] += row["wait"]
        jobs[i] += row["jobs"]


@pytest.mark.parametrize(
    "learner, options",
    [
        ("random", {}),
        ("epsilon-greedy", {"epsilon": 0.3}),
        ("epsilon-greedy", {"epsilon": 0.0}),
        ("ucb1", {}),
        ("exp3", {"gamma": 0.2}),
        ("sw-ucb", {"window": 2}),
    ],
)
def test_bandit_run_replays_through_the_learner(learner, options):
    """Feeding the run's own (order, jobs, wait) rows to a fresh learner with the
    same seed reproduces every choice and every recorded cost: the driver draws
    nothing else from the generator and hands the learner exactly these columns."""
    period, seed, decay = 1500.0, 6, 0.8
    candidates = ["SAF", "FCFS", "LPF", "SEXP", "LCFS"]
    w = random_workload(61)
    run = run_learner(w, learner, period=period, candidates=candidates, seed=seed, decay=decay, **options)
    fresh = LEARNERS[learner](candidates, np.random.default_rng(seed), decay, **options)
    for _, row in run.periods.iterrows():
        k = int(row["period"])
        chosen = fresh.choose(k)
        assert candidates[chosen] == row["order"], k
        np.testing.assert_allclose(
            row[cost_columns(candidates)].to_numpy(dtype=float), fresh.costs(), rtol=1e-12, equal_nan=True
        )
        fresh.observe(k, Feedback(chosen, int(row["jobs"]), float(row["wait"])))


@pytest.mark.parametrize("learner", sorted(LEARNER_OPTIONS))
@pytest.mark.parametrize("order", ["FCFS", "SEXP", "LEXP"])
def test_single_candidate_run_is_the_plain_simulation(learner, order):
    """Period boundaries are not events (§2): with one candidate the segmented run
    is the plain simulation, bit for bit, even for orders whose keys change with time."""
    w = random_workload(71)
    run = run_learner(
        w, learner, period=700.0, candidates=[order], policy=Policy(threshold=1000.0), **LEARNER_OPTIONS[learner]
    )
    plain = simcore.simulate(w, order=order, threshold=1000.0)
    assert len(run.periods) > 10
    assert (run.periods["order"] == order).all()
    for key in ("start", "end", "backfilled", "order_at_start", "reservation"):
        np.testing.assert_array_equal(run.result.jobs[key], plain.jobs[key])
    assert run.result.passes == plain.passes


def test_first_period_uses_the_first_candidate_without_fcfs():
    w = random_workload(72)
    run = run_learner(w, "full", period=2000.0, candidates=["LPF", "SPF", "LAF"])
    assert run.periods["order"].iloc[0] == "LPF"
    check_order_in_force(run, 2000.0)


def test_empty_workload_runs_no_period():
    w = simcore.Workload.from_arrays([], [], [], [], 4)
    for learner in LEARNERS:
        run = run_learner(w, learner)
        assert len(run.periods) == 0 and len(run.result.start) == 0


@pytest.mark.parametrize("learner", ["full", "noisy"])
def test_exact_learners_run_columns_and_order_in_force(learner):
    period = 2000.0
    w = random_workload(31)
    for credit in ("finished", "started"):
        run = run_learner(w, learner, period=period, credit=credit, feedback_jobs="started")
        check_periods_frame(run, w, period)
        check_bandit_columns(run, w, period, credit)
        check_order_in_force(run, period)
        assert run.periods["order"].nunique() > 1


@settings(max_examples=60, **COMMON)
@given(
    wl=workloads(max_jobs=30),
    n_periods=st.integers(1, 25),
    credit=st.sampled_from(["finished", "started"]),
    seed=st.integers(0, 3),
    threshold=st.sampled_from([None, 0.0, 10.0]),
)
def test_random_runs_period_bookkeeping(wl, n_periods, credit, seed, threshold):
    """Odd workloads (ties, zero-length jobs, killed jobs, fractional instants,
    fractional periods): every job credited once, starts under its period's order."""
    w = make_workload(*wl)
    span = float(w.submit.max() - w.submit.min() + np.sum(w.run) + 1.0)
    period = max(0.5, span / n_periods)
    run = run_learner(w, "random", period=period, credit=credit, seed=seed, policy=Policy(threshold=threshold))
    check_periods_frame(run, w, period)
    check_bandit_columns(run, w, period, credit)
    check_order_in_force(run, period)


# ------------------------------------------------- 6. reproducibility ---


def test_every_learner_is_listed():
    assert set(LEARNERS) == set(LEARNER_OPTIONS)
    assert all(issubclass(cls, Learner) for cls in LEARNERS.values())


@pytest.mark.parametrize("learner", sorted(LEARNER_OPTIONS))
def test_same_seed_same_run(learner):
    w = random_workload(41)
    runs = [run_learner(w, learner, period=1000.0, seed=12, **LEARNER_OPTIONS[learner]) for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].periods, runs[1].periods, check_exact=True)
    for key in ("start", "end", "order_at_start", "backfilled"):
        np.testing.assert_array_equal(runs[0].result.jobs[key], runs[1].result.jobs[key])


@pytest.mark.parametrize("learner", ["random", "epsilon-greedy", "exp3", "noisy"])
def test_other_seed_other_choices(learner):
    # 120 periods of a long random workload with near-ties between orders
    w = random_workload(51, n=400, m=16, span=120 * 500.0)
    options = dict(period=500.0, **LEARNER_OPTIONS[learner])
    a = run_learner(w, learner, seed=0, **options)
    b = run_learner(w, learner, seed=1, **options)
    assert len(a.periods) >= 100
    assert a.periods["order"].tolist() != b.periods["order"].tolist()
    assert not np.array_equal(a.result.start, b.result.start)


@pytest.mark.parametrize("learner", ["full", "ucb1", "sw-ucb"])
def test_deterministic_learners_ignore_the_seed(learner):
    w = random_workload(52)
    a = run_learner(w, learner, period=1000.0, seed=0)
    b = run_learner(w, learner, period=1000.0, seed=99)
    pd.testing.assert_frame_equal(a.periods, b.periods, check_exact=True)


# -------------------------------------------------------------- 7. errors ---

BAD_ARGUMENTS = [
    ("greedy", {}, r"unknown learner 'greedy'; choose one of random, full"),
    ("full", {"epsilon": 0.1}, r"FullFeedback: unknown options \['epsilon'\]"),
    ("epsilon-greedy", {"epsillon": 0.1}, r"EpsilonGreedy: unknown options \['epsillon'\]"),
    ("ucb1", {"window": 3}, r"UCB1: unknown options \['window'\]"),
    ("exp3", {"epsilon": 0.1}, r"EXP3: unknown options \['epsilon'\]"),
    ("random", {"gamma": 0.1}, r"RandomLearner: unknown options \['gamma'\]"),
    ("epsilon-greedy", {"epsilon": -0.1}, r"epsilon must be in \[0, 1\], got -0.1"),
    ("epsilon-greedy", {"epsilon": 1.5}, r"epsilon must be in \[0, 1\], got 1.5"),
    ("epsilon-greedy", {"epsilon": float("nan")}, r"epsilon must be in \[0, 1\]"),
    ("exp3", {"gamma": 0.0}, r"gamma must be in \(0, 1\], got 0"),
    ("exp3", {"gamma": 1.01}, r"gamma must be in \(0, 1\]"),
    ("exp3", {"gamma": float("nan")}, r"gamma must be in \(0, 1\]"),
    ("sw-ucb", {"window": 0}, r"window must be >= 1, a whole number of periods; got 0"),
    ("sw-ucb", {"window": -3}, r"window must be >= 1"),
    ("sw-ucb", {"window": 0.5}, r"window must be >= 1"),
    ("sw-ucb", {"window": float("nan")}, r"window"),
    ("sw-ucb", {"window": float("inf")}, r"window"),
    ("sw-ucb", {"window": 2.5}, r"window"),
    ("full", {"decay": 0.0}, r"decay must be in \(0, 1\], got 0"),
    ("epsilon-greedy", {"decay": 1.5}, r"decay must be in \(0, 1\]"),
    ("full", {"decay": -0.5}, r"decay must be in \(0, 1\]"),
    ("full", {"decay": float("nan")}, r"decay must be in \(0, 1\]"),
    ("full", {"period": 0}, r"period must be positive and finite \(seconds\), got 0"),
    ("full", {"period": -DAY}, r"period must be positive"),
    ("full", {"period": float("nan")}, r"period must be positive"),
    ("full", {"period": float("inf")}, r"period"),
    ("full", {"feedback_jobs": "finished"}, r"unknown feedback job set 'finished'; choose submitted or started"),
    ("epsilon-greedy", {"credit": "ended"}, r"unknown credit 'ended'; choose finished or started"),
]


@pytest.mark.parametrize(
    "learner, kwargs, message",
    BAD_ARGUMENTS,
    ids=[
        f"{learner}-" + ("-".join(f"{key}={value}" for key, value in kwargs.items()) or "learner")
        for learner, kwargs, _ in BAD_ARGUMENTS
    ],
)
def test_bad_arguments_are_clear_errors(learner, kwargs, message):
    w = spf_workload(2)
    with pytest.raises(ValueError, match=message):
        run_learner(w, learner, **kwargs)


@pytest.mark.parametrize(
    "cls, kwargs, message",
    [
        (EpsilonGreedy, {"epsilon": 2.0}, "epsilon must be in"),
        (EXP3, {"gamma": -1.0}, "gamma must be in"),
        (SlidingWindowUCB, {"window": 0}, "window must be >= 1"),
        (FullFeedback, {"decay": 0.0}, "decay must be in"),
        (UCB1, {"epsilon": 0.1}, r"UCB1: unknown options \['epsilon'\]"),
    ],
)
def test_bad_learner_construction(cls, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cls(list(ORDERS), rng(), **kwargs)


@pytest.mark.parametrize(
    "learner, candidates",
    [
        ("epsilon-greedy", ["FCFS", "FIFO"]),  # never chosen with epsilon = 0
        ("full", ["FCFS", "FIFO"]),
        ("full", []),
    ],
    ids=["epsilon-greedy-unknown-order", "full-unknown-order", "full-no-candidate"],
)
def test_bad_candidates_are_clear_errors(learner, candidates):
    options = {"epsilon": 0.0} if learner == "epsilon-greedy" else {}
    with pytest.raises(ValueError, match=r"FIFO|candidate"):
        run_learner(spf_workload(3), learner, period=SPF_PERIOD, candidates=candidates, **options)


@pytest.mark.parametrize("noise", [-0.1, float("nan"), 1.5])
def test_bad_noise_is_a_clear_error(noise):
    with pytest.raises(ValueError, match="noise"):
        run_learner(spf_workload(2), "noisy", period=SPF_PERIOD, noise=noise)


# ----------------------------------------------------------- 8. real trace ---


def test_kth_full_feedback_beats_fcfs(pwa_trace):
    from simcore.workloads.resample import resample

    w = simcore.read_swf(pwa_trace("KTH-SP2"))
    v, _ = resample(w, 0, weeks=20)
    run = run_learner(v, "full", period=WEEK, policy=Policy(threshold=144000))
    fcfs = simcore.simulate(v, order="FCFS", threshold=144000)
    assert len(run.periods) >= 20
    assert run.periods["order"].iloc[0] == "FCFS"
    assert run.periods["order"].iloc[1:].ne("FCFS").any()
    assert run.periods["jobs"].sum() == len(v)
    assert total_wait(run.result, v) < total_wait(fcfs, v)


def test_multifactor_candidate_and_reservation_depth_replay_as_chosen(pwa_trace):
    """MULTIFACTOR among the candidates, conservative backfilling: the run is the simulation that
    switches to each chosen order at its period with the fair-share state kept from the start, and
    the exact feedback simulates each candidate with the same depth and parameters."""
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict").take(np.arange(1500))
    candidates = ["FCFS", "SPF", "MULTIFACTOR"]
    multifactor = {"weight_fairshare": 10000, "calc_period": 600}
    run = run_learner(
        workload,
        "full",
        period=86400.0,
        candidates=candidates,
        policy=Policy(reservations="all", multifactor=multifactor),
    )
    assert set(run.periods["order"]) > {"FCFS"}  # it switched at least once
    replay = simcore.Simulation(workload, order="FCFS", reservations="all", multifactor=multifactor)
    for _, period in run.periods.iterrows():
        replay.set_order(period["order"])
        replay.run_until(period["start"] + 86400.0)
    expected = replay.finish()
    np.testing.assert_array_equal(run.result.start, expected.start)
    assert run.result.reservations_made == expected.reservations_made > 0
    np.testing.assert_array_equal(run.result.fair_share, expected.fair_share)
    # the second period's costs: the first period's jobs alone under each candidate, same policy
    first = np.flatnonzero(in_period(workload.submit, int(run.periods["period"].iloc[0]), 86400.0))
    subset = workload.take(first)
    for order in candidates:
        alone = simcore.simulate(subset, order, reservations="all", multifactor=multifactor)
        assert run.periods[f"cost_{order}"].iloc[1] == np.sum(alone.start - subset.submit)
