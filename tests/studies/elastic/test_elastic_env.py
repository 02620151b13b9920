"""The elastic study's Gymnasium environments (simcore/studies/elastic/env.py).

1. Gymnasium's checker on both envs and their main options (on a burst job set, see below);
2. the same seed gives the same episode; masks, invalid actions; vector envs, sync and async;
3. exactness: FCFS and EDF choices made through the env reproduce a direct `run_site` run's
   starts, ends and pool changes (rigid and elastic); our SARSA+ESN learner through the env makes
   the direct run's decisions, with exploration when every waiting job is a slot.
"""

import re
from dataclasses import replace

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import simcore.envs
from simcore.engine.workload import Workload
from simcore.studies.elastic.agent import EPSILON, EnvAgent, Learner, pre_train, train_and_run
from simcore.studies.elastic.env import ElasticEnv, SchedulingEnv, example_job_set
from simcore.studies.elastic.jobsets import job_set, load_pool, serial_jobs
from simcore.studies.elastic.site import EDF, FCFS, Policy, pool_levels, run_site

SCHEDULING_ID = "schedsweep/GridScheduling-v1"
ELASTIC_ID = "schedsweep/ElasticProvisioning-v1"


def burst_set():
    """48 pre-training then 48 online jobs, 3 of each (type, VO) at one instant, then 30 spread jobs.

    check_env steps with unmasked draws (fixed: it seeds the action space with 123) and a
    non-candidate raises ValueError: with every description waiting in a burst on P_rig = 3 cores,
    its draws are candidates at the first two decisions (elastic: they must fall on level index 0,
    P_rig < 30, which holds for these action counts; ORA's window of 32 would not)."""
    draws = np.random.default_rng(5)
    submit, run, group = [], [], []
    for burst in (0.0, 20000.0):
        for copy in range(3):
            for interactive in (True, False):
                for g in range(8):  # groups 7 and 8 are both "rest"
                    submit.append(burst)
                    run.append(300.0 + 50 * g if interactive else 2000.0 + 500 * g + 100 * copy)
                    group.append(g + 1)
    for k in range(30):
        submit.append(20000.0 + 3000 * (k + 1))
        run.append(float(draws.integers(100, 4000)))
        group.append(int(draws.integers(1, 9)))
    n = len(submit)
    jobs = Workload.from_arrays(submit, run, np.maximum(run, 1), [1] * n, 64, source="burst")
    jobs = replace(jobs, group=np.asarray(group), recorded_wait=np.full(n, np.nan))
    return job_set(serial_jobs(jobs), np.arange(n), "burst", pre_training=48)


def dense_example():
    """The example set with submissions 20 times denser: P_rig around 50, so several pool levels."""
    jobs = example_job_set()
    submit = jobs.submit / 20
    online = slice(jobs.pre_training, len(jobs))
    return replace(jobs, submit=submit, load_pool=load_pool(submit[online], jobs.run[online]))


MAIN_OPTIONS = {
    "EST": {},
    "ORA, window 30": dict(model="ORA", window=30),
    "pre-training, lam=1": dict(episode="pre-training", lam=1.0),
}


@pytest.mark.parametrize("options", MAIN_OPTIONS.values(), ids=MAIN_OPTIONS)
@pytest.mark.parametrize("env_class", [SchedulingEnv, ElasticEnv])
def test_gymnasium_checker(env_class, options):
    env = env_class(burst_set(), **options)
    env.action_space.seed(123)  # the draw of env_step_passive_checker: 0, a candidate at the first decision
    check_env(env)


def masked_random_episode(env, seed):
    policy = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    observations, rewards, jobs = [obs], [], []
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(int(policy.choice(np.flatnonzero(info["action_mask"]))))
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
        jobs.append((info["job"], info["level"]))
    return observations, rewards, jobs, info


@pytest.mark.parametrize("env_class", [SchedulingEnv, ElasticEnv])
def test_same_seed_same_episode(env_class):
    env = env_class(dense_example())
    first, again = masked_random_episode(env, 7), masked_random_episode(env, 7)
    assert len(first[0]) == len(again[0]) > 100
    assert all(np.array_equal(a, b) for a, b in zip(first[0], again[0]))
    assert first[1] == again[1] and first[2] == again[2]
    assert first[3]["metrics"] == again[3]["metrics"]


@pytest.mark.parametrize("env_class", [SchedulingEnv, ElasticEnv])
def test_masks_observations_rewards_and_invalid_actions(env_class):
    env = env_class(dense_example(), lam=0.5, invalid_action="raise")
    obs, info = env.reset(seed=0)
    policy = np.random.default_rng(0)
    total, known, pool_only = 0.0, 0, 0
    terminated = False
    while not terminated:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,) and np.array_equal(mask, info["action_mask"])
        assert env.observation_space.contains(obs)
        valid = np.flatnonzero(mask).tolist()
        invalid = int(np.flatnonzero(~mask)[0])
        with pytest.raises(ValueError, match=re.escape(f"action {invalid} is not valid here; valid actions: {valid}")):
            env.step(invalid)
        for outside in [env.action_space.n, -1, 1.5]:
            with pytest.raises(ValueError, match=re.escape(f"action {outside!r} is not in the action space")):
                env.step(outside)
        pool_only += bool(env.elastic and obs[-1])
        obs, reward, terminated, _, info = env.step(int(policy.choice(valid)))
        assert reward == pytest.approx(sum(value for _, value in info["known_rewards"]))
        total += reward
        known += len(info["known_rewards"])
    assert known == info["decisions"] == env.result.decisions  # every decision's reward was delivered once
    assert 0 < total <= known
    assert (pool_only > 0) == env.elastic
    assert not obs.any() and info["metrics"]["jobs"] > 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", [SCHEDULING_ID, ELASTIC_ID])
def test_registered_and_vectorised(env_id, mode):
    assert env_id in gymnasium.registry and simcore.envs.ENVIRONMENTS[env_id]
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    try:
        obs, info = envs.reset(seed=[1, 2])
        assert obs.shape == (2, *envs.single_observation_space.shape)
        for _ in range(20):
            masks = info["action_mask"]
            obs, rewards, terminated, truncated, info = envs.step([int(np.flatnonzero(m)[0]) for m in masks])
            assert np.array_equal(np.stack(envs.call("action_masks")), info["action_mask"])
    finally:
        envs.close()


# ---------------------------------------------------------------- exactness ---


class LowestLevel(Policy):
    """FCFS or EDF for the job, the smallest allowed pool level (keeps the elastic pool moving)."""

    def __init__(self, job_policy):
        self.job_policy = job_policy

    def choose(self, site, levels):
        return self.job_policy.choose(site, levels)[0], int(levels[0])

    def choose_pool(self, site, levels):
        return int(levels[0])


def drive(env, direct_run, policy):
    """Make through the env the choices `policy` makes, checking each is a candidate of the window."""
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        point = env.point
        if point.pool_only:
            job, level = -1, policy.choose_pool(point.site, point.levels)
            slot = env.slots
        else:
            job, level = policy.choose(point.site, point.levels)
            slot = int(np.flatnonzero(info["candidates"] == job)[0])
        action = slot * len(env.levels) + int(np.flatnonzero(env.levels == level)[0]) if env.elastic else slot
        obs, _, terminated, _, info = env.step(action)
        assert (info["job"], info["level"]) == (job, level)
    run = env.result
    np.testing.assert_array_equal(run.start, direct_run.start)
    np.testing.assert_array_equal(run.end, direct_run.end)
    np.testing.assert_array_equal(run.fairness, direct_run.fairness)
    assert (run.pool_times, run.pool_sizes, run.decisions) == (
        direct_run.pool_times,
        direct_run.pool_sizes,
        direct_run.decisions,
    )


@pytest.mark.parametrize("job_policy", [FCFS, EDF])
@pytest.mark.parametrize("jobs_of", [example_job_set, dense_example, burst_set])
def test_fcfs_and_edf_through_the_env_reproduce_run_site(jobs_of, job_policy):
    jobs = jobs_of()
    online = (jobs.pre_training, len(jobs))
    rigid = run_site(jobs, job_policy(), jobs.load_pool, *online, model="EST")
    drive(SchedulingEnv(jobs, rigid_pool="load"), rigid, job_policy())
    policy = LowestLevel(job_policy())
    elastic = run_site(jobs, policy, jobs.load_pool, *online, model="EST", levels=pool_levels(jobs.load_pool))
    assert len(elastic.pool_sizes) > 1
    drive(ElasticEnv(jobs), elastic, policy)


def test_fcfs_under_ora_through_the_window():
    jobs = dense_example()
    online = (jobs.pre_training, len(jobs))
    direct = run_site(jobs, FCFS(), jobs.load_pool, *online, model="ORA")
    drive(SchedulingEnv(jobs, model="ORA", window=4, rigid_pool="load"), direct, FCFS())


def test_the_rigid_pool_is_the_sites_own_cores_unless_asked_for_the_load_matched_one():
    jobs = dense_example()
    assert jobs.site_pool != jobs.load_pool
    assert SchedulingEnv(jobs).levels.tolist() == [jobs.site_pool]
    assert SchedulingEnv(jobs, rigid_pool="load").levels.tolist() == [jobs.load_pool]
    elastic = ElasticEnv(jobs)  # the elastic MDP starts from the load-matched pool, its levels' base
    assert elastic.pool == jobs.load_pool and jobs.site_pool not in elastic.levels
    with pytest.raises(ValueError, match="rigid pool 'max': choose one of site, load"):
        SchedulingEnv(jobs, rigid_pool="max")


def learner_through_env(jobs, elastic, model, candidates, epsilon, seed=3):
    """Our SARSA+ESN learner, pre-trained as the study does, run online through the env."""
    levels = pool_levels(jobs.load_pool) if elastic else None  # an elastic pre-training explores them
    top = int(levels[-1]) if elastic else jobs.load_pool
    reservoir, readout = pre_train(jobs, 0.5, elastic, model, seed, top, jobs.load_pool, levels)
    learner = Learner(reservoir, readout, 0.5, elastic, seed, top, epsilon)
    env = (ElasticEnv if elastic else SchedulingEnv)(
        jobs, model=model, lam=0.5, candidates=candidates, window=len(jobs), rigid_pool="load"
    )
    EnvAgent(learner, env).run_episode()
    return env.result, learner


@pytest.mark.parametrize(
    "jobs_of, elastic, model, candidates, epsilon",
    [
        (example_job_set, False, "EST", "queue", EPSILON),  # every waiting job a slot: exploration too
        (dense_example, True, "ORA", "queue", EPSILON),
        (dense_example, True, "EST", "descriptions", 0.0),  # one slot per description: the greedy learner
        (example_job_set, False, "EST", "descriptions", 0.0),
    ],
)
def test_sarsa_through_the_env_makes_the_direct_runs_decisions(jobs_of, elastic, model, candidates, epsilon):
    jobs = jobs_of()
    direct, record = train_and_run(jobs, 0.5, elastic, model, 3, pool_levels(jobs.load_pool), epsilon)
    through, learner = learner_through_env(jobs, elastic, model, candidates, epsilon)
    np.testing.assert_array_equal(through.start, direct.start)
    assert (through.pool_times, through.pool_sizes) == (direct.pool_times, direct.pool_sizes)
    assert len(direct.pool_sizes) > 1 or not elastic
    assert learner.record.examples == record.examples == len(record.decisions)
    np.testing.assert_array_equal([d.z for d in learner.record.decisions], [d.z for d in record.decisions])
    np.testing.assert_array_equal([d.value for d in learner.record.decisions], [d.value for d in record.decisions])
    np.testing.assert_array_equal([d.reward for d in learner.record.decisions], [d.reward for d in record.decisions])
