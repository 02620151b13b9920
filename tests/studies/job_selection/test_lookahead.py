"""The lookahead baseline (simcore/studies/job_selection/lookahead.py) and what it stands on:
JobSelectionEnv.fork and rollout_rewards. A rollout's reward is the episode the env gives when
driven the same way; a fork steps like its original and leaves it alone; and the lookahead never
scores worse than its base order driving the env alone (a rollout property on deterministic
episodes), here on SDSC-SP2 and HPC2N episodes in both backfill modes."""

import numpy as np
import pandas as pd
import pytest

from simcore.studies.job_selection.env import JobSelectionEnv
from simcore.studies.job_selection.lookahead import LookaheadPolicy
from simcore.studies.job_selection.report import baselines_markdown
from simcore.studies.job_selection.study import evaluate_orders, summary_table
from simcore.workloads.sources import load_workload


def run_episode(env, policy, start):
    env.reset(options={"start": start})
    terminated = False
    while not terminated:
        _, reward, terminated, _, info = env.step(policy(env))
    return reward, info


def make_env(trace, pwa, **options):
    return JobSelectionEnv(trace, sequence_length=200, window=32, pwa_mirror=pwa, **options)


def env_under_way(pwa_trace, seed, steps, **options):
    """An SDSC-SP2 env reset with `seed`, then `steps` decisions taken by the first slot."""
    env = make_env("SDSC-SP2", pwa_trace("SDSC-SP2").parent, **options)
    env.reset(seed=seed)
    for _ in range(steps):
        env.step(0)
    return env


@pytest.mark.parametrize("backfill", ["easy", "none"])
def test_a_fork_steps_like_its_original_and_leaves_it_alone(pwa_trace, backfill):
    env = env_under_way(pwa_trace, 4, 30, backfill=backfill, reward="wait")
    twin = env.fork()
    before = (env._observation(), env.action_masks(), env.sim.now)
    rng = np.random.default_rng(0)
    terminated = False
    while not terminated:  # the fork goes its own way to its end: nothing of it reaches the original
        terminated = twin.step(int(rng.integers(twin.action_space.n)))[2]
    np.testing.assert_array_equal(env._observation(), before[0])
    np.testing.assert_array_equal(env.action_masks(), before[1])
    assert env.sim.now == before[2]
    twin = env.fork()
    actions = np.random.default_rng(1).integers(env.action_space.n, size=10_000)
    for action in actions:
        step, twin_step = env.step(int(action)), twin.step(int(action))
        np.testing.assert_array_equal(step[0], twin_step[0])
        assert step[1:4] == twin_step[1:4]
        if step[2]:
            break
    assert env.reset(seed=None)[0].tobytes() == twin.reset(seed=None)[0].tobytes()  # same generator state


@pytest.mark.parametrize("reward", ["bsld", "wait", "utilisation"])
def test_a_rollout_reward_is_the_episode_the_env_gives(pwa_trace, reward):
    env = env_under_way(pwa_trace, 2, 20, reward=reward, window_order="SPF")
    rewards = env.rollout_rewards()
    assert len(rewards) == env._filled
    for slot in (0, len(rewards) - 1):
        twin = env.fork()
        _, final, terminated, _, _ = twin.step(slot)
        while not terminated:
            _, final, terminated, _, _ = twin.step(0)
        assert np.isclose(rewards[slot], final, rtol=1e-12, atol=1e-12)
    assert len(env.rollout_rewards(3)) == min(3, env._filled)


@pytest.mark.parametrize("trace", ["SDSC-SP2", "HPC2N"])
@pytest.mark.parametrize("backfill", ["easy", "none"])
@pytest.mark.parametrize("base", ["FCFS", "SPF"])
def test_the_lookahead_never_scores_worse_than_its_base_order(pwa_trace, trace, backfill, base):
    pwa = pwa_trace(trace).parent
    env = make_env(trace, pwa, backfill=backfill, window_order=base)
    for start in np.random.default_rng(7).integers(0, len(env.workload) - 200, 3):
        searched, _ = run_episode(env, LookaheadPolicy(), int(start))
        alone, _ = run_episode(env, lambda _: 0, int(start))
        narrow, _ = run_episode(env, LookaheadPolicy(heads=2), int(start))
        assert searched >= alone - 1e-9 and narrow >= alone - 1e-9


def test_rl_baselines_report_the_lookahead_beside_the_orders(pwa_trace):
    workload = load_workload("SDSC-SP2", pwa_mirror=pwa_trace("SDSC-SP2").parent)
    runs = evaluate_orders(workload, "SDSC-SP2", ("FCFS", "SAF"), 2, 300, 1, ("FCFS",), 8)
    assert set(runs["order"]) == {"FCFS", "SAF", "lookahead-FCFS", "committed-FCFS"}
    by_sequence = runs.pivot_table(index=["backfill", "sequence"], columns="order", values="avg_bsld")
    assert (by_sequence["lookahead-FCFS"] <= by_sequence["committed-FCFS"] + 1e-9).all()
    np.testing.assert_allclose(by_sequence["committed-FCFS"], by_sequence["FCFS"], rtol=1e-12)  # EASY-FCFS
    summary = summary_table(runs)
    by_order = summary.set_index(["backfill", "order"])["avg_bsld"]
    assert by_order[("easy", "lookahead-FCFS")] <= by_order[("easy", "FCFS")]  # FCFS's first slot is EASY-FCFS
    text = baselines_markdown(summary)
    assert "| lookahead-FCFS |" in text and "The best lookahead (lookahead-FCFS) is" in text
    assert "Against each base order alone through the env: lookahead-FCFS" in text
    assert isinstance(runs, pd.DataFrame) and runs["utilisation"].between(0, 1).all()
