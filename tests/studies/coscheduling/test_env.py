"""The co-scheduling Gymnasium environment (simcore/studies/coscheduling/env.py).

1. Gymnasium's checker on the default env and its main options;
2. the same seed gives the same episode, bit for bit; masks, invalid actions, episodes;
3. vector envs (sync and async) through the registered id;
4. exactness: a Hedge learner written here from docs/coscheduling.md §5, driving the env,
   reproduces the core's own ASAX run (starts, ends, quotas, final α), on real-trace slices
   and the example workload; a fixed policy reproduces a direct EXTERNAL run.
"""

import importlib
import math
import re
import warnings
from dataclasses import replace

import gymnasium
import numpy as np
import pytest
from conftest import mirror_with
from gymnasium.utils.env_checker import check_env

import simcore.envs
from simcore.engine.workload import Workload
from simcore.studies.coscheduling.env import CoSchedulingEnv, example_workload
from simcore.studies.coscheduling.sharing import SharingRun, simulate_sharing
from simcore.studies.coscheduling.study import run_metrics
from simcore.workloads.files import write_workload

ENV_ID = "schedsweep/CoScheduling-v0"
MAIN_OPTIONS = {
    "default": {},
    "K=4, kappa=0.1, memory off": dict(levels=4, kappa=0.1, memory=False, efficiency="assume-cpu-bound"),
    "walltime loss, utilisation reward, slices": dict(loss="walltime", reward="utilisation", episode_jobs=300),
}
E2_GAIA_MACHINE = 1008  # UniLu-Gaia's processors at E2's offered load 0.9


@pytest.fixture
def trace_source():
    """Env options reading a real trace from the tests' directory of traces (mirror_with), never downloading."""

    def source(name):
        if name is None:
            return {}  # the example workload
        return dict(workload=name, pwa_mirror=mirror_with(name))

    return source


def same_value(got, expected):
    return got == expected or (isinstance(got, float) and math.isnan(got) and math.isnan(expected))


def masked_random_episode(env, seed, **reset_options):
    """Observations, rewards, infos of one episode under a masked uniform random policy."""
    policy = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed, **reset_options)
    observations, rewards, infos = [obs], [], [info]
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(policy.choice(np.flatnonzero(info["action_mask"])))
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
        infos.append(info)
    return observations, rewards, infos


# ---------------------------------------------------------------- the API ---


@pytest.mark.parametrize("options", MAIN_OPTIONS.values(), ids=MAIN_OPTIONS)
def test_gymnasium_checker(options):
    env = gymnasium.make(ENV_ID, **options)
    # check_env steps with unmasked draws, and an inadmissible level raises ValueError. Seeded
    # with 123, the first draw is 0 (do not pair: always valid); check_env then reseeds with 123
    # itself, so all its draws are fixed, and they are admissible in these configurations.
    env.action_space.seed(123)
    check_env(env.unwrapped)


def test_same_seed_same_episode_bit_for_bit():
    env = CoSchedulingEnv(episode_jobs=400)
    first, again, other = (masked_random_episode(env, seed) for seed in (7, 7, 8))
    assert len(first[0]) == len(again[0]) > 10
    assert all(np.array_equal(a, b) for a, b in zip(first[0], again[0]))
    assert first[1] == again[1]
    assert [info["case"] for info in first[2]] == [info["case"] for info in again[2]]
    metrics, metrics_again = first[2][-1]["metrics"], again[2][-1]["metrics"]
    assert all(same_value(metrics[key], metrics_again[key]) for key in metrics)
    assert first[2][0]["case"] != other[2][0]["case"]  # another seed, another slice


def test_masks_observations_and_invalid_actions():
    env = CoSchedulingEnv(levels=10, invalid_action="raise")
    obs, info = env.reset(seed=0)
    policy = np.random.default_rng(0)
    partial_masks = 0
    terminated = False
    while not terminated:
        mask = env.action_masks()
        assert mask.dtype == bool and mask[0] and np.array_equal(mask, info["action_mask"])
        assert env.observation_space.contains(obs)
        valid = np.flatnonzero(mask).tolist()
        for invalid in np.flatnonzero(~mask):
            message = f"action {invalid} is not valid here; valid actions: {valid}"
            with pytest.raises(ValueError, match=re.escape(message)):
                env.step(invalid)
        for outside in [10, -1, 1.5]:
            with pytest.raises(ValueError, match=re.escape(f"action {outside!r} is not in the action space")):
                env.step(outside)
        partial_masks += not mask.all()
        level = policy.choice(valid)
        loss = obs[14 + level]
        obs, reward, terminated, _, info = env.step(level)
        assert -1.0 <= reward <= 0.0 and np.float32(-reward) == loss
    assert partial_masks > 0
    assert not obs.any() and np.array_equal(env.action_masks(), np.arange(10) == 0)
    metrics = info["metrics"]
    assert metrics["jobs"] == 2000 and metrics["guests"] == info["pairs"] > 0
    assert metrics["cases"] == info["decisions"] == sum(metrics["histogram"])
    assert metrics["mean_response"] > metrics["mean_wait"] >= 0 and metrics["mean_slowdown"] >= 1
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_a_run_without_any_case_is_one_step():
    # Nothing ever waits on 4 processors: no case; reset still returns a valid (zero) observation.
    lone = Workload.from_arrays([0, 10], [5, 5], [10, 10], [2, 2], 4, efficiency=[0.1, 0.1])
    for reward, expected in (("loss", 0.0), ("utilisation", 0.1)):
        env = CoSchedulingEnv(lone, memory=False, reward=reward, invalid_action="raise")
        obs, info = env.reset(seed=0)
        assert not obs.any() and info["case"] == {} and info["donor"] == -1
        assert np.array_equal(info["action_mask"], np.arange(10) == 0)
        with pytest.raises(ValueError, match=r"valid actions: \[0\]"):
            env.step(1)
        obs, got, terminated, _, info = env.step(0)
        assert terminated and got == pytest.approx(expected)
        assert info["metrics"]["mean_wait"] == 0 and info["metrics"]["makespan"] == 15


def test_episode_slices_and_options():
    env = CoSchedulingEnv(episode_jobs=100)
    env.reset(options={"start": 1900})
    assert np.array_equal(env.episode_workload.job_id, example_workload().job_id[1900:])
    for options, message in (({"start": 1901}, r"\[0, 1900\]"), ({"begin": 0}, "unknown reset options")):
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    with pytest.raises(ValueError, match="needs episode_jobs"):
        CoSchedulingEnv().reset(options={"start": 0})
    with pytest.raises(ValueError, match="episode_jobs"):
        CoSchedulingEnv(episode_jobs=2001)
    with pytest.raises(ValueError, match="reward"):
        CoSchedulingEnv(reward="wait")


def test_workload_sources(tmp_path, trace_source):
    path = tmp_path / "example.parquet"
    write_workload(example_workload(), path)
    from_file = CoSchedulingEnv(str(path), machine_size=32)
    assert from_file.workload.machine_size == 32 and from_file.workload.procs.max() == 32
    assert len(from_file.workload) == np.sum(example_workload().procs <= 32)
    gaia = CoSchedulingEnv(**trace_source("UniLu-Gaia"), machine_size=E2_GAIA_MACHINE)
    assert gaia.workload.machine_size == 1008 and gaia.settings.memory_capacity == 2 * 1024 * 1024
    with pytest.raises(ValueError, match="known: .*UniLu-Gaia"):
        CoSchedulingEnv("UniLu")


def test_registration_survives_a_second_import():
    assert ENV_ID in simcore.envs.ENVIRONMENTS and ENV_ID in gymnasium.registry
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium warns when an id is registered again
        importlib.reload(simcore.envs)
    assert gymnasium.spec(ENV_ID).entry_point == simcore.envs.ENVIRONMENTS[ENV_ID]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs(mode):
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, episode_jobs=150)
    policy = np.random.default_rng(0)
    obs, infos = envs.reset(seed=[1, 2])
    finished = np.zeros(2, dtype=bool)
    for _ in range(2000):
        masks = np.array(envs.call("action_masks"))
        assert np.array_equal(masks, infos["action_mask"])
        obs, rewards, terminated, truncated, infos = envs.step([policy.choice(np.flatnonzero(m)) for m in masks])
        assert envs.observation_space.contains(obs) and not truncated.any()
        if terminated.any():
            assert np.array_equal(infos["_metrics"], terminated)
        finished |= terminated
        if finished.all():
            break
    envs.close()
    assert finished.all()


# ---------------------------------------------- Hedge, from the document ---

EXPERTS = ("CPU", "MEM", "TYPE", "PHASE")
SUGGESTED_QUOTA = {  # f* by [Hp bin][metric bin] (docs/coscheduling.md §5.4)
    "CPU": ((0.25, 0, 0), (0.5, 0.25, 0), (0.75, 0.5, 0.25)),
    "MEM": ((0.25, 0, 0), (0.5, 0.25, 0), (0.75, 0.5, 0.25)),
    "TYPE": ((0.25, 0), (0.5, 0.25), (0.75, 0.5)),
    "PHASE": ((0, 0, 0), (0.25, 0.25, 0.5), (0.5, 0.5, 0.75)),
}


def in_order_sum(values):
    """Left to right from 0.0, as the C loops add (sum() compensates from Python 3.12)."""
    total = 0.0
    for value in values:
        total += value
    return total


def leaf_distribution(quota, levels):
    best = min(levels - 1, math.floor(quota * levels + 1e-9))
    neighbours = [k for k in (best - 1, best + 1) if 0 <= k < levels]
    others = levels - 1 - len(neighbours)
    return [0.6 if k == best else 0.3 / len(neighbours) if k in neighbours else 0.1 / others for k in range(levels)]


def metric_bin(value):
    return 0 if value < 0.25 else 1 if value <= 0.75 else 2


class Hedge:
    """The ASAX learner of §5 (shared scope), deciding from the env's case and mask."""

    def __init__(self, levels, seed):
        self.levels = levels
        self.alpha = [1 / 4] * 4
        self.risk = [0.0] * 4
        self.round = 1
        self.draws = np.random.Generator(np.random.PCG64(seed))
        self.cases = 0

    def leaves(self, case):
        happiness = case["donor_happiness"]  # infinite when the donor's work is done: H2
        hp = 0 if happiness < 1.0 else 1 if happiness <= 1.1 else 2
        phase = case["donor_phase"]
        bins = (
            metric_bin(case["donor_cpu"]),
            metric_bin(case["donor_memory"]),
            0 if case["donor_sequential"] else 1,
            0 if phase < 0.25 else 1 if phase < 0.75 else 2,
        )
        return [leaf_distribution(SUGGESTED_QUOTA[name][hp][b], self.levels) for name, b in zip(EXPERTS, bins)]

    def choose(self, leaves, mask):
        mixture = [in_order_sum(a * leaf[k] for a, leaf in zip(self.alpha, leaves)) for k in range(self.levels)]
        kept = [p if admissible else 0.0 for p, admissible in zip(mixture, mask)]
        total = in_order_sum(kept)
        u = self.draws.random()
        cumulative = 0.0
        for k in np.flatnonzero(mask):
            chosen = int(k)
            cumulative += kept[k]
            if u * total < cumulative:
                break
        return chosen

    def learn(self, leaves, chosen, loss):
        self.cases += 1
        self.risk = [r + leaf[chosen] * loss for r, leaf in zip(self.risk, leaves)]
        if max(self.risk) > 1:
            gamma = math.sqrt(2 * math.log(4) / self.round)
            weights = [a * math.exp(-gamma * r) for a, r in zip(self.alpha, self.risk)]
            norm = in_order_sum(weights)
            self.alpha = [w / norm for w in weights]
            self.risk = [0.0] * 4
            self.round += 1


def drive_with_hedge(env, seed, **reset_options):
    learner = Hedge(env.settings.levels, seed)
    obs, info = env.reset(**reset_options)
    terminated = False
    while not terminated:
        leaves = learner.leaves(info["case"]) if info["case"] else None  # no case: a run without any
        level = 0 if leaves is None else learner.choose(leaves, info["action_mask"])
        obs, reward, terminated, _, info = env.step(level)
        if leaves is not None:
            learner.learn(leaves, level, -reward)
    return learner, info["metrics"]


def assert_same_schedule(got, expected):
    assert np.array_equal(got.start, expected.start) and np.array_equal(got.end, expected.end)
    assert np.array_equal(got.donor, expected.donor)
    assert np.array_equal(got.quota, expected.quota, equal_nan=True)


GAIA_SLICES = dict(machine_size=E2_GAIA_MACHINE, episode_jobs=1500)
HEDGE_RUNS = {  # trace (None: the example), env options, slice start, seed, whether any case arises
    "Gaia E2 slice 0": ("UniLu-Gaia", GAIA_SLICES, 0, 3, True),
    "Gaia E2 slice 20000": ("UniLu-Gaia", GAIA_SLICES, 20000, 4, True),
    "Gaia E2 slice 45000 (no case)": ("UniLu-Gaia", GAIA_SLICES, 45000, 0, False),
    "HPC2N slice 45000": ("HPC2N", dict(episode_jobs=1500), 45000, 1, True),
    "example": (None, {}, None, 5, True),
    "example K=4 kappa=0.1 walltime": (None, dict(levels=4, kappa=0.1, loss="walltime"), None, 6, True),
    "example memory off, assumed CPU-bound": (None, dict(memory=False, efficiency="assume-cpu-bound"), None, 7, True),
}


@pytest.mark.parametrize(("trace", "options", "start", "seed", "cases"), HEDGE_RUNS.values(), ids=HEDGE_RUNS)
def test_hedge_through_the_env_reproduces_the_core_asax_run(trace_source, trace, options, start, seed, cases):
    env = CoSchedulingEnv(**trace_source(trace), **options)
    learner, metrics = drive_with_hedge(env, seed, options=None if start is None else {"start": start})
    core = simulate_sharing(env.episode_workload, replace(env.settings, strategy="ASAX"), seed=seed)
    assert_same_schedule(env.result, core)
    assert learner.cases == core.learner["cases"] == env.decisions
    assert np.array_equal(learner.alpha, core.learner["state"]["alpha"])
    assert learner.round == core.learner["state"]["round"]
    # the episode's metrics are the study's, the learner's rounds aside (the env has no learner)
    expected = {**run_metrics(core), "rounds": 0}
    assert metrics.keys() == expected.keys()
    assert all(same_value(metrics[key], expected[key]) for key in metrics)
    if cases:
        assert learner.round > 1 and core.learner["histogram"][1:].sum() > 0  # the learner did learn
    else:
        assert learner.cases == 0 and metrics["guests"] == 0


@pytest.mark.parametrize(
    ("trace", "options"),
    [(None, {}), ("UniLu-Gaia", dict(machine_size=E2_GAIA_MACHINE, episode_jobs=3000))],
    ids=["example", "Gaia E2 slice 0"],
)
def test_largest_level_through_the_env_equals_a_direct_external_run(trace_source, trace, options):
    env = CoSchedulingEnv(**trace_source(trace), **options)
    obs, info = env.reset(options={"start": 0} if "episode_jobs" in options else None)
    decisions = []
    terminated = False
    while not terminated:
        decisions.append(int(np.flatnonzero(info["action_mask"])[-1]))
        obs, reward, terminated, _, info = env.step(decisions[-1])
    direct = SharingRun(env.episode_workload, env.settings)
    replayed = 0
    while direct.advance():
        direct.decide(decisions[replayed])
        replayed += 1
    assert replayed == env.decisions == len(decisions) > 100
    assert_same_schedule(env.result, direct.result())
