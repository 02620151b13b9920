"""JobSelection-v0 (simcore/studies/job_selection/env.py): Gymnasium's checker, masks and invalid
actions, determinism, and exactness: always choosing the first slot (the earliest waiting job) gives
the core's FCFS on the same slice, job for job, in both backfill modes."""

import re

import gymnasium
import numpy as np
import pytest
from conftest import mirror_with
from gymnasium.utils.env_checker import check_env

import simcore
import simcore.envs
from simcore.engine.policies import NAMED_ORDERS
from simcore.studies.job_selection.env import JobSelectionEnv, OrderPolicy

CORE_BACKFILL = {"easy": "queue", "none": "none"}


def burst_workload():
    """40 jobs at t = 0 on 8 processors: every decision has many waiting jobs, so that the checker's
    unmasked draws (its action space is seeded) fall on filled slots."""
    rng = np.random.default_rng(3)
    run = rng.integers(10, 1000, 40).astype(float)
    return simcore.Workload.from_arrays(np.zeros(40), run, run * 2, rng.integers(1, 9, 40), 8)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"backfill": "none"},
        {"backfill_order": "SPF", "reward": "wait"},
        {"dense": True, "reward": "slowdown"},
        {"reward": "utilisation", "window_order": "SAF"},
        {"dense": True, "reward": "turnaround", "estimate": "ave2"},
    ],
)
def test_gymnasium_checker(options):
    env = JobSelectionEnv(burst_workload(), window=8, sequence_length=40, **options)
    env.action_space.seed(0)
    check_env(env)


def first_slot_episode(env, **reset):
    obs, info = env.reset(**reset)
    terminated = False
    while not terminated:
        assert info["action_mask"][0] and info["waiting"] >= 1
        obs, reward, terminated, truncated, info = env.step(0)
        assert not truncated
    return reward, info


@pytest.mark.parametrize("backfill", ["easy", "none"])
def test_first_slot_is_the_cores_fcfs_on_a_real_trace(backfill):
    env = JobSelectionEnv("SDSC-SP2", backfill=backfill, filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2"))
    for seed in range(20):
        reward, info = first_slot_episode(env, seed=seed)
        expected = simcore.simulate(env.episode, "FCFS", backfill=CORE_BACKFILL[backfill])
        np.testing.assert_array_equal(info["start"], expected.start)
        assert reward == -expected.summary()["avg_bsld"]


@pytest.mark.parametrize("backfill", ["easy", "none"])
def test_baselines_are_the_cores_runs_and_the_window_follows_its_order(backfill):
    """The end's baselines are the core's own runs of each order on the episode, with the env's
    reward; with the window in SPF's order, its jobs' estimates never decrease. (A chosen head is a
    commitment, so choosing the first slot in another order than FCFS is not EASY with that order:
    EASY re-picks its head at each pass, and a job submitted later may overtake it.)"""
    orders = list(NAMED_ORDERS)
    env = JobSelectionEnv(
        "SDSC-SP2", backfill=backfill, filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2"), baselines=orders
    )
    for seed in range(3):
        _, info = first_slot_episode(env, seed=seed)
        for order in orders:
            run = simcore.simulate(env.episode, order, backfill=CORE_BACKFILL[backfill])
            assert info["baselines"][order] == -run.summary()["avg_bsld"], order
        assert info["baselines"]["FCFS"] == -info["metrics"]["avg_bsld"]
    ordered = JobSelectionEnv(
        "SDSC-SP2", backfill=backfill, window_order="SPF", filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2")
    )
    obs, info = ordered.reset(seed=0)
    terminated, checked = False, 0
    while not terminated:
        jobs = info["jobs"][info["jobs"] >= 0]
        estimates = ordered.sim._core.estimates[jobs]
        assert (np.diff(estimates) >= 0).all()
        checked += len(jobs) > 1
        obs, _, terminated, _, info = ordered.step(0)
    assert checked > 10


def test_same_seed_same_episode_and_masked_random_choices():
    env = JobSelectionEnv()

    def episode(seed):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        seen, terminated = [obs], False
        while not terminated:
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            seen.append(obs)
        return seen, reward, info["start"]

    first, again = episode(4), episode(4)
    assert all(np.array_equal(a, b) for a, b in zip(first[0], again[0])) and len(first[0]) == len(again[0])
    assert first[1] == again[1] and np.array_equal(first[2], again[2])
    assert not np.array_equal(episode(5)[2], first[2])


def test_invalid_actions_and_the_end():
    env = JobSelectionEnv(burst_workload(), window=8, sequence_length=40)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    for outside in (8, -1, 1.5):  # not in the action space
        with pytest.raises(ValueError, match=re.escape(f"action {outside!r} is not in the action space")):
            env.step(outside)
    reward, info = first_slot_episode(env, seed=0)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    assert reward < 0 and info["metrics"]["jobs"] == 40


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_registered_and_vectorised(mode):
    envs = gymnasium.make_vec("schedsweep/JobSelection-v0", num_envs=2, vectorization_mode=mode)
    try:
        obs, info = envs.reset(seed=[1, 2])
        assert obs.shape == (2, *envs.single_observation_space.shape)
        for _ in range(10):
            assert info["action_mask"].shape == (2, 128) and info["action_mask"][:, 0].all()
            obs, rewards, terminated, truncated, info = envs.step([0, 0])
    finally:
        envs.close()


def reference_observation(env) -> np.ndarray:
    """The observation of the module's table, computed in numpy from the core's state."""
    core, w = env.sim._core, env.episode
    m, now, window = float(w.machine_size), core.now, env.window

    def ls(seconds):
        return np.minimum(1.0, np.log1p(np.maximum(seconds, 0.0) / 60.0) / np.log1p(1e6 / 60.0))

    waiting = np.flatnonzero(~np.isnan(w.submit) & (w.submit <= now) & np.isnan(core.start_times))
    jobs = waiting[:window]
    per_slot = np.zeros((window, 6))
    per_slot[: len(jobs)] = np.column_stack(
        [
            np.ones(len(jobs)),
            ls(now - w.submit[jobs]),
            ls(w.requested[jobs]),
            w.procs[jobs] / m,
            w.procs[jobs] <= core.free_procs,
            ls(core.estimates[jobs]),
        ]
    )
    started = ~np.isnan(core.start_times)
    running = np.flatnonzero(started & (core.end_times > now))
    remaining = core.estimated_ends[running] - now
    horizons = np.array([60.0, 600.0, 3600.0, 36000.0, 360000.0])
    freed = (w.procs[running][None, :] * (remaining[None, :] <= horizons[:, None])).sum(axis=1)
    done = np.count_nonzero(started & (core.end_times <= now)) / len(w)
    machine = np.concatenate([[core.free_procs / m], freed / m, [done]])
    return np.concatenate([per_slot.ravel(), machine]).astype(np.float32)


def test_the_cores_observation_equals_the_numpy_reference():
    env = JobSelectionEnv("SDSC-SP2", window=16, filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2"))
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            np.testing.assert_allclose(obs, reference_observation(env), rtol=1e-6, atol=1e-7)
            obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


@pytest.mark.parametrize(
    "threads, options",
    [
        (1, {}),
        (2, {"estimate": "ave2", "reward": "turnaround"}),
        (2, {"backfill": "none", "reward": "wait", "window": 16}),
        (1, {"reward": "slowdown", "backfill_order": "SPF"}),
        (2, {"reward": "utilisation", "window_order": "SAF"}),
    ],
)
def test_the_native_vector_env_is_the_single_env_episode_for_episode(threads, options):
    """Every observation and mask of the vector env's episodes (restarted in place by the core,
    stepped on `threads` threads) equals the single env's on the same episodes, and so does the
    final reward (the core's sum in job order against numpy's pairwise one: to 1e-12)."""
    vec = gymnasium.make_vec(
        "schedsweep/JobSelection-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        workload="SDSC-SP2",
        filter_mode="strict",
        pwa_mirror=mirror_with("SDSC-SP2"),
        threads=threads,
        **options,
    )
    single = JobSelectionEnv("SDSC-SP2", filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2"), **options)
    obs, info = vec.reset(seed=10)
    episodes = [[] for _ in range(3)]  # per sub-env: (actions, observations, reward) per episode
    current = [([], [obs[i]]) for i in range(3)]
    resetting = np.zeros(3, dtype=bool)
    policy = np.random.default_rng(0)
    for _ in range(700):
        chosen = np.array([policy.choice(np.flatnonzero(mask)) for mask in info["action_mask"]])
        obs, reward, terminated, truncated, info = vec.step(chosen)
        for i in range(3):
            if resetting[i]:  # next-step autoreset: this step started a new episode
                current[i] = ([], [obs[i]])
                continue
            current[i][0].append(int(chosen[i]))
            if terminated[i]:
                episodes[i].append((*current[i], reward[i]))
            else:
                current[i][1].append(obs[i])
        resetting = terminated
    length = single.sequence_length
    for i in range(3):
        draws = np.random.default_rng(10 + i)
        assert len(episodes[i]) >= 2
        for chosen, observations, reward in episodes[i]:
            start = int(draws.integers(0, len(single.workload) - length + 1))
            single_obs, single_info = single.reset(options={"start": start})
            for k, action in enumerate(chosen):
                np.testing.assert_array_equal(single_obs, observations[k])
                single_obs, single_reward, done, _, single_info = single.step(action)
                assert done == (k == len(chosen) - 1)
            assert single_reward == pytest.approx(reward, rel=1e-12)
    with pytest.raises(ValueError, match="the native vector env has the default observation"):
        gymnasium.make_vec(
            "schedsweep/JobSelection-v0", num_envs=2, vectorization_mode="vector_entry_point", dense=True
        )
    with pytest.raises(ValueError, match="environment 0: action 200 is not valid"):
        vec.step(np.array([200, 0, 0]))
    vec.close()


@pytest.mark.parametrize("reward", ["bsld", "wait", "turnaround", "slowdown"])
def test_dense_rewards_add_up_to_the_final_one(reward):
    final = JobSelectionEnv(burst_workload(), window=8, sequence_length=40, reward=reward)
    dense = JobSelectionEnv(burst_workload(), window=8, sequence_length=40, reward=reward, dense=True)
    expected, _ = first_slot_episode(final, seed=0)
    obs, info = dense.reset(seed=0)
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        obs, step_reward, terminated, _, info = dense.step(0)
        total += step_reward
        steps += step_reward != 0
    assert total == pytest.approx(expected, rel=1e-12) and steps > 1
    with pytest.raises(ValueError, match="dense rewards are per job"):
        JobSelectionEnv(burst_workload(), reward="utilisation", dense=True)


def test_the_rlscheduler_layout():
    workload = burst_workload()
    env = JobSelectionEnv(workload, window=8, sequence_length=40, observation="rlscheduler")
    assert env.observation_space.shape == (8 * 8,)
    env.action_space.seed(0)
    check_env(env)
    obs, info = env.reset(options={"start": 0})
    obs, *_ = env.step(0)  # the first job starts; the next waiting ones fill the window
    rows = obs.reshape(8, 8)
    jobs = env._slots[: env._filled]
    assert len(jobs) == 8  # 40 jobs at t = 0: the window is full
    longest = workload.run.max()
    np.testing.assert_allclose(rows[:, 1], np.minimum(workload.requested[jobs] / longest, 1 - 1e-5), rtol=1e-6)
    np.testing.assert_allclose(rows[:, 2], np.minimum(workload.procs[jobs] / 8, 1 - 1e-5), rtol=1e-6)
    assert (rows[:, 0] == 0).all() and (rows[:, 4] == 0).all()  # no wait at t = 0; every job user 0
    assert (rows[:, [3, 5, 6]] == np.float32(1 - 1e-5)).all()  # memory, group, executable: unknown
    free = env.sim._core.free_procs
    np.testing.assert_array_equal(rows[:, 7], np.where(workload.procs[jobs] <= free, np.float32(1 - 1e-5), 1e-5))
    env = JobSelectionEnv(workload, window=64, sequence_length=40, observation="rlscheduler")
    obs, info = env.reset(options={"start": 0})
    padding = obs.reshape(64, 8)[info["waiting"] :]
    assert len(padding) and (padding == np.array([0, 1, 1, 1, 1, 1, 1, 0], dtype=np.float32)).all()


@pytest.mark.parametrize("order, key", [("SPF", "estimate"), ("LQF", "procs"), ("FCFS", "position")])
def test_order_policies_pick_the_orders_first_job_of_the_window(order, key):
    env = JobSelectionEnv("SDSC-SP2", filter_mode="strict", pwa_mirror=mirror_with("SDSC-SP2"), window=32)
    policy = OrderPolicy(order)
    obs, info = env.reset(seed=1)
    terminated, checked = False, 0
    while not terminated:
        jobs = info["jobs"][info["jobs"] >= 0]
        values = {
            "estimate": env.sim._core.estimates[jobs],
            "procs": -env.episode.procs[jobs],
            "position": np.arange(len(jobs)),
        }[key]
        action = policy(env)
        assert action == int(np.argmin(values))  # the first of equal keys
        checked += len(jobs) > 1
        obs, _, terminated, _, info = env.step(action)
    assert checked > 20
    with pytest.raises(ValueError, match="order 'NOPE'"):
        OrderPolicy("NOPE")


MULTIFACTOR_WINDOW = {"window_order": "MULTIFACTOR"}


@pytest.mark.parametrize("seed", range(5))
def test_a_multifactor_window_passes_the_checker_unseeded(seed):
    """MULTIFACTOR as the window order (docs/semantics.md, "Multifactor priority": default
    parameters, usage from the episode's first job): the checker with the action space unseeded."""
    env = gymnasium.make("schedsweep/JobSelection-v0", **MULTIFACTOR_WINDOW).unwrapped
    env.reset(seed=seed)
    check_env(env)


def unmasked_multifactor_run(seed, steps=3000):
    env, rng, trace = (
        gymnasium.make("schedsweep/JobSelection-v0", **MULTIFACTOR_WINDOW),
        np.random.default_rng(seed),
        [],
    )
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        trace.append((obs.tobytes(), reward, info["invalid_actions"]))
        if terminated or truncated:
            obs, _ = env.reset()
    return trace


def test_a_multifactor_window_takes_unmasked_actions_deterministically():
    first = unmasked_multifactor_run(4)
    assert first == unmasked_multifactor_run(4)
    assert first != unmasked_multifactor_run(5)
    assert first[-1][2] > 0  # the agent did pick empty slots


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_a_multifactor_window_runs_vectorised(mode):
    envs = gymnasium.make_vec("schedsweep/JobSelection-v0", num_envs=3, vectorization_mode=mode, **MULTIFACTOR_WINDOW)
    rng = np.random.default_rng(0)
    envs.reset(seed=1)
    for _ in range(1000):
        obs, reward, terminated, truncated, info = envs.step(rng.integers(envs.single_action_space.n, size=3))
        assert np.isfinite(reward).all() and envs.observation_space.contains(obs)
    envs.close()
