"""The native vector env of JobSelection-v0 (`JobSelectionVectorEnv`) takes every action of its
space as the single env does (docs/environments.md, "Invalid actions"), the decision made in C by
`SelectionBatch.step`: an unmasked random agent runs 10,000 steps in each mode, and every sub-env's
episodes are the single env's driven with the same actions (observations, masks, rewards and the
count of invalid actions); "skip" leaves the sub-env as it was and gives the penalty, "raise"
refuses before anything changes."""

import gymnasium
import numpy as np
import pytest

import simcore.envs  # noqa: F401  (registers the environments)
from simcore.studies.job_selection.env import JobSelectionEnv

ENV_ID = "schedsweep/JobSelection-v0"
PENALTY = 0.5


def vector_env(mode, n=3, threads=1):
    return gymnasium.make_vec(
        ENV_ID,
        num_envs=n,
        vectorization_mode="vector_entry_point",
        threads=threads,
        invalid_action=mode,
        invalid_penalty=PENALTY,
    )


def unmasked_run(mode, steps, seed=7, n=3, threads=1):
    """An unmasked random agent over the vector env: per sub-env, its episodes, each the first
    observation and mask, then per step (action taken, observation, reward, terminated, invalid
    count, mask). With "raise", an invalid action is refused (checked) and replaced by slot 0."""
    vec = vector_env(mode, n, threads)
    window = vec.single_action_space.n
    obs, info = vec.reset(seed=seed)
    assert (info["invalid_actions"] == 0).all()
    rng = np.random.default_rng(seed)
    episodes = [[((obs[i], info["action_mask"][i]), [])] for i in range(n)]
    resetting = np.zeros(n, dtype=bool)
    invalid_taken = 0
    for _ in range(steps):
        actions = rng.integers(window, size=n)
        invalid = ~info["action_mask"][np.arange(n), actions] & ~resetting
        invalid_taken += int(invalid.sum())
        if mode == "raise" and invalid.any():
            first = int(np.flatnonzero(invalid)[0])
            with pytest.raises(ValueError, match=f"environment {first}: action {actions[first]} is not valid; "):
                vec.step(actions)
            np.testing.assert_array_equal(vec.unwrapped._batch.observations, obs)  # nothing changed
            actions = np.where(invalid, 0, actions)
        before, before_mask, before_count = obs, info["action_mask"], info["invalid_actions"]
        obs, reward, terminated, truncated, info = vec.step(actions)
        assert not truncated.any()
        for i in range(n):
            if resetting[i]:  # next-step autoreset: this step started a new episode, the action ignored
                assert info["invalid_actions"][i] == 0
                episodes[i].append(((obs[i], info["action_mask"][i]), []))
                continue
            if invalid[i] and mode == "skip":  # the sub-env stays as it was, at a cost
                np.testing.assert_array_equal(obs[i], before[i])
                np.testing.assert_array_equal(info["action_mask"][i], before_mask[i])
                assert reward[i] == -PENALTY and not terminated[i]
            expected = before_count[i] + (invalid[i] and mode != "raise")
            assert info["invalid_actions"][i] == expected
            count, mask = info["invalid_actions"][i], info["action_mask"][i]
            step = (int(actions[i]), obs[i], reward[i], terminated[i], count, mask)
            episodes[i][-1][1].append(step)
        resetting = terminated
    vec.close()
    assert invalid_taken > steps  # the agent did take invalid actions, and the env went on
    return episodes


def replay_on_the_single_env(episodes, mode, seed=7):
    """Each sub-env's episodes on the single env (same starts, same actions) equal the vector env's."""
    single = JobSelectionEnv(invalid_action=mode, invalid_penalty=PENALTY)
    positions = len(single.workload) - single.sequence_length + 1
    finished = 0
    for i, runs in enumerate(episodes):
        draws = np.random.default_rng(seed + i)
        for (first_obs, first_mask), steps in runs:
            obs, info = single.reset(options={"start": int(draws.integers(0, positions))})
            np.testing.assert_array_equal(obs, first_obs)
            np.testing.assert_array_equal(info["action_mask"], first_mask)
            for action, vec_obs, vec_reward, vec_terminated, vec_invalid, vec_mask in steps:
                obs, reward, terminated, _, info = single.step(action)
                np.testing.assert_array_equal(obs, vec_obs)
                np.testing.assert_array_equal(info["action_mask"], vec_mask)
                assert terminated == vec_terminated and info["invalid_actions"] == vec_invalid
                if terminated:  # the core sums in job order, numpy pairwise
                    assert reward == pytest.approx(vec_reward, rel=1e-12)
                    finished += 1
                else:
                    assert reward == vec_reward
    return finished


@pytest.mark.parametrize("mode", ["first_valid", "skip", "raise"])
def test_an_unmasked_random_agent_runs_ten_thousand_steps_as_the_single_env(mode):
    episodes = unmasked_run(mode, 10_000)
    assert replay_on_the_single_env(episodes, mode) >= 3  # whole episodes among them


def test_two_threads_give_the_same_run():
    for mode in ("first_valid", "skip"):
        one, two = unmasked_run(mode, 600, threads=1), unmasked_run(mode, 600, threads=2)
        for a, b in zip(one, two, strict=True):
            assert len(a) == len(b)
            for (first_a, steps_a), (first_b, steps_b) in zip(a, b, strict=True):
                np.testing.assert_array_equal(first_a[0], first_b[0])
                for x, y in zip(steps_a, steps_b, strict=True):
                    assert x[0] == y[0] and x[2] == y[2] and x[4] == y[4]
                    np.testing.assert_array_equal(x[1], y[1])


def test_a_masked_agent_runs_the_same_in_every_mode():
    runs = []
    for mode in ("first_valid", "skip", "raise"):
        vec, rng, trace = vector_env(mode), np.random.default_rng(1), []
        obs, info = vec.reset(seed=4)
        for _ in range(500):
            actions = np.argmax(rng.random(info["action_mask"].shape) * info["action_mask"], axis=1)
            obs, reward, terminated, _, info = vec.step(actions)
            assert (info["invalid_actions"] == 0).all()
            trace.append((obs, reward, terminated))
        runs.append(trace)
    for other in runs[1:]:
        for (a, r, t), (b, s, u) in zip(runs[0], other, strict=True):
            assert np.array_equal(a, b) and np.array_equal(r, s) and np.array_equal(t, u)


@pytest.mark.parametrize("mode", ["first_valid", "skip", "raise"])
def test_an_action_outside_the_space_is_an_error_in_every_mode(mode):
    vec = vector_env(mode)
    obs, _ = vec.reset(seed=0)
    for actions, message in (
        ([0, 128, 0], "environment 1: action 128 is not valid: not in the action space"),
        ([0, 0, -1], "environment 2: action -1 is not valid: not in the action space"),
        ([0.5, 0, 0], "are not in the action space"),
    ):
        with pytest.raises(ValueError, match=message):
            vec.step(np.array(actions))
        np.testing.assert_array_equal(vec.unwrapped._batch.observations, obs)
    with pytest.raises(ValueError, match="invalid_action 'wait'"):
        vector_env("wait")
    vec.close()


def test_each_episode_starts_where_its_draw_says_through_refusals_and_unseeded_resets():
    """Sub-env i's episodes start at the successive draws of default_rng(seed + i), one per episode,
    whether it restarts at a step (after a refused one, which draws nothing) or at reset()."""
    options = {"window": 8, "sequence_length": 12, "invalid_action": "raise"}
    vec = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", **options)
    single = JobSelectionEnv(**options)
    obs, _ = vec.reset(seed=20)
    firsts = [[obs[i]] for i in range(3)]
    restarting = np.zeros(3, dtype=bool)  # the sub-envs that ended at the last step
    resets = refused = 0
    for _ in range(400):
        if restarting.any() and resets < 5:  # right after an episode's end: reset instead
            obs, _ = vec.reset()
            resets += 1
            for i in range(3):
                firsts[i].append(obs[i])
            restarting[:] = False
            continue
        if restarting.any() and refused < 5:  # a refused step at a restart: nothing drawn
            with pytest.raises(ValueError, match="not in the action space"):
                vec.step(np.full(3, 8))
            refused += 1
        obs, _, terminated, _, _ = vec.step(np.zeros(3, dtype=np.int64))
        for i in np.flatnonzero(restarting):
            firsts[i].append(obs[i])
        restarting = terminated
    assert resets == refused == 5
    positions = len(single.workload) - single.sequence_length + 1
    for i in range(3):
        draws = np.random.default_rng(20 + i)
        for first in firsts[i]:
            expected, _ = single.reset(options={"start": int(draws.integers(0, positions))})
            np.testing.assert_array_equal(first, expected)
    vec.close()
