"""Every registered environment accepts every action of its space (docs/environments.md,
"Invalid actions"): Gymnasium's check_env passes for any seed, an agent without masks runs, alone or
in sync and async vector envs, the same for the same seed, and an invalid action's effect is
`invalid_action` ("first_valid", "skip" or "raise"), counted in info."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from simcore.engine.actions import carried_out, check_invalid_action
from simcore.envs import ENVIRONMENTS


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_check_env_passes_for_any_seed(env_id, seed):
    env = gymnasium.make(env_id).unwrapped
    env.reset(seed=seed)  # the action space is not seeded: check_env draws whatever actions it likes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_an_unmasked_random_agent_runs_ten_thousand_steps(env_id):
    env = gymnasium.make(env_id)
    env.reset(seed=0)
    rng, invalid = np.random.default_rng(0), 0
    for _ in range(10_000):
        _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        invalid = max(invalid, info["invalid_actions"])
        if terminated or truncated:
            env.reset()
    assert invalid > 0  # it did take invalid actions, and went on


def random_run(env_id, seed, steps=300):
    """Observations and rewards of an unmasked random agent, its actions drawn from `seed`."""
    env, rng, trace = gymnasium.make(env_id), np.random.default_rng(seed), []
    observation, _ = env.reset(seed=seed)
    for _ in range(steps):
        observation, reward, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
        trace.append((observation.copy(), reward))
        if terminated or truncated:
            observation, _ = env.reset()
    return trace


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_an_unmasked_agent_is_deterministic_for_a_seed(env_id):
    first, second = random_run(env_id, 5), random_run(env_id, 5)
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_vector_envs_take_unmasked_actions(env_id, mode):
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    try:
        envs.reset(seed=[1, 2])
        rng = np.random.default_rng(0)
        for _ in range(100):
            _, _, _, _, info = envs.step(rng.integers(envs.single_action_space.n, size=2))
        assert info["invalid_actions"].shape == (2,)
    finally:
        envs.close()


def an_invalid_action(info):
    return int(np.flatnonzero(~info["action_mask"])[0])


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_first_valid_takes_the_first_valid_action_and_counts_it(env_id):
    chosen, masked = gymnasium.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    _, info = chosen.reset(seed=3)
    _, masked_info = masked.reset(seed=3)
    observation, reward, _, _, info = chosen.step(an_invalid_action(info))
    expected = masked.step(int(np.flatnonzero(masked_info["action_mask"])[0]))
    assert np.array_equal(observation, expected[0]) and reward == expected[1]
    assert info["invalid_actions"] == 1 and expected[4]["invalid_actions"] == 0


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_skip_repeats_the_decision_at_a_cost_and_raise_refuses(env_id):
    env = gymnasium.make(env_id, invalid_action="skip", invalid_penalty=2.0).unwrapped
    observation, info = env.reset(seed=3)
    again, reward, terminated, _, info = env.step(an_invalid_action(info))
    assert np.array_equal(again, observation) and reward == -2.0 and not terminated
    assert info["invalid_actions"] == 1 and info["decisions"] == 0
    strict = gymnasium.make(env_id, invalid_action="raise").unwrapped
    _, info = strict.reset(seed=3)
    with pytest.raises(ValueError, match="is not valid here; valid actions"):
        strict.step(an_invalid_action(info))
    with pytest.raises(ValueError, match="is not in the action space"):
        strict.step(strict.action_space.n)


def test_bad_settings_are_one_line_errors():
    with pytest.raises(ValueError, match="invalid_action 'wait': choose one of first_valid, skip, raise"):
        check_invalid_action("wait", 0.0)
    with pytest.raises(ValueError, match="invalid_penalty -1.0: a finite cost >= 0"):
        check_invalid_action("skip", -1)
    space = gymnasium.spaces.Discrete(3)
    assert carried_out(2, space, np.array([True, False, True]), "skip") == (2, False)
    assert carried_out(1, space, np.array([False, False, True]), "first_valid") == (2, True)
    assert carried_out(1, space, np.array([True, False, True]), "skip") == (None, True)
