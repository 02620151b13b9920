"""The SARSA learner with an echo-state-network Q-function (docs/elastic.md §5-7), as a site Policy.

At each decision every candidate (a waiting job, with a pool level when elastic) is scored on the
reservoir's tentative next state; ε-greedy picks one (exploration draws from
`default_rng([seed, 1])`, ties to the earliest job then the smaller level); the chosen candidate's
state is committed. A decision's reward is known when its job completes; its example
`y_t = Q_t + η (r_t + γ Q_{t+1} − Q_t)` joins the readout's training set once decision t+1 exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.studies.elastic.env import SLOT_INPUTS
from simcore.studies.elastic.esn import Readout, Reservoir, features
from simcore.studies.elastic.jobsets import JobSet
from simcore.studies.elastic.rewards import Rewards
from simcore.studies.elastic.site import ACTION_INPUTS, EDF, STATE_INPUTS, Policy, Site, run_site

EPSILON = 0.05
GAMMA = 0.8
ETA = 0.2
SWEEPS = 5
PRE_TRAINING_POOLS = ("explore", "rigid")  # the elastic learner's pre-training pool (docs/elastic.md §7)
# The pool request's input (docs/elastic.md §4, input 20): the headroom (level − running) / P_max, or
# the level / P_max (the former encoding, an ablation: the level tracks the load, so the learner
# learns the load's link to the reward, not the level's effect).
POOL_REQUESTS = ("headroom", "level")
NO_JOB = np.zeros(0, dtype=np.int64)  # the job part of a pool-only decision


@dataclass
class Decision:
    z: np.ndarray
    value: float  # Q_t, recorded at the decision
    reward: float | None = None


@dataclass
class Record:
    """The learner's trace: one entry per decision, and the examples in the order they were added."""

    decisions: list = field(default_factory=list)
    examples: int = 0


class Learner(Policy):
    """SARSA with the ESN; `lam` weighs W against fairness (rigid) or utilisation (elastic, read as
    `utilisation`: "interval" or "cumulative", rewards.py); an elastic learner sees a level as
    `pool_request` ("headroom" or "level", POOL_REQUESTS)."""

    def __init__(
        self,
        reservoir: Reservoir,
        readout: Readout,
        lam: float,
        elastic: bool,
        seed: int,
        pool_top: int,
        epsilon: float = EPSILON,
        utilisation: str = "interval",
        pool_request: str = "headroom",
    ):
        if pool_request not in POOL_REQUESTS:
            raise ValueError(f"pool_request {pool_request!r}: choose one of {', '.join(POOL_REQUESTS)}")
        self.pool_request = pool_request
        self.reservoir = reservoir
        self.readout = readout
        self.lam = lam
        self.elastic = elastic
        self.pool_top = pool_top
        self.epsilon = epsilon
        self.seed = seed
        self.explore = np.random.default_rng([seed, 1])
        self.state = np.zeros(reservoir.units)
        self.record = Record()
        self.rewards = Rewards(lam, elastic, utilisation, self._reward)

    # -- inputs ------------------------------------------------------------------------

    def _job_rows(self, site: Site, jobs: np.ndarray) -> np.ndarray:
        """The action inputs of `jobs` in queue order; no job (a pool-only decision): one row of zeros."""
        return site.action_inputs(jobs) if len(jobs) else np.zeros((1, ACTION_INPUTS))

    def _inputs(self, state: np.ndarray, job_rows: np.ndarray, levels: np.ndarray, running: int) -> np.ndarray:
        """One row per (job row, level), job-major and levels ascending (rigid: the job rows alone);
        `running` jobs run before the decision (the headroom's base)."""
        width = self.reservoir.W_in.shape[1]
        inputs = np.empty((len(job_rows), len(levels) if self.elastic else 1, width))
        inputs[:, :, :STATE_INPUTS] = state
        inputs[:, :, STATE_INPUTS : STATE_INPUTS + ACTION_INPUTS] = job_rows[:, None]
        if self.elastic:
            request = levels - running if self.pool_request == "headroom" else levels
            inputs[:, :, -1] = request / self.pool_top
        return inputs.reshape(-1, width)

    def _decide(self, state: np.ndarray, job_rows: np.ndarray, levels: np.ndarray, running: int) -> int:
        """ε-greedy over the candidates (job row, level) of `_inputs`; commits the chosen one's state."""
        per_row = len(levels) if self.elastic else 1
        candidates = len(job_rows) * per_row
        if self.explore.random() < self.epsilon:
            chosen = int(self.explore.integers(candidates))
        elif candidates == 1:
            chosen = 0  # a lone candidate (most decisions) needs no score
        else:
            chosen = int(self._values(state, job_rows, levels, running).argmax())  # the first of equal values wins
        job, level = divmod(chosen, per_row)
        z = self._commit(state, job_rows[job : job + 1], levels[level : level + 1], running)
        self._add(Decision(z, float(self.readout.values(z[None, 1:])[0])))
        return chosen

    def _commit(self, state: np.ndarray, job_row: np.ndarray, level: np.ndarray, running: int) -> np.ndarray:
        """Step the reservoir on the chosen candidate's inputs; the readout's features z of the new state."""
        self.state = self.reservoir.step(self.state, self._inputs(state, job_row, level, running)[0])
        return features(self.state[self.reservoir.readout_units])

    def _values(self, state: np.ndarray, job_rows: np.ndarray, levels: np.ndarray, running: int) -> np.ndarray:
        """Q of each candidate (job row, level) of `_inputs` on the reservoir's tentative next state.

        Each distinct job row is scored once: BLAS may round identical rows of a product differently,
        and candidates with identical inputs must have identical Q (the tie rule: the earliest job,
        then the smaller level); it also spares EST's repeated descriptions."""
        distinct, row = distinct_rows(job_rows)
        tentative = self.reservoir.tentative_readout(self.state, self._inputs(state, distinct, levels, running))
        return self.readout.values(tentative).reshape(len(distinct), -1)[row].ravel()

    # -- the Policy interface ----------------------------------------------------------

    def choose(self, site: Site, levels: np.ndarray) -> tuple[int, int]:
        queue = np.asarray(site.queue, dtype=np.int64)
        chosen = self._decide(site.state_inputs(), self._job_rows(site, queue), levels, len(site.running))
        per_job = len(levels) if self.elastic else 1
        return int(queue[chosen // per_job]), int(levels[chosen % per_job]) if self.elastic else site.pool

    def choose_pool(self, site: Site, levels: np.ndarray) -> int:
        return int(levels[self._decide(site.state_inputs(), self._job_rows(site, NO_JOB), levels, len(site.running))])

    # -- SARSA ---------------------------------------------------------------------------

    def _add(self, decision: Decision) -> None:
        decisions = self.record.decisions
        decisions.append(decision)
        previous = len(decisions) - 2
        if previous >= 0 and decisions[previous].reward is not None:
            self._learn(previous)

    def _reward(self, t: int, reward: float) -> None:
        self.record.decisions[t].reward = reward
        if t + 1 < len(self.record.decisions):
            self._learn(t)

    def _learn(self, t: int) -> None:
        decisions = self.record.decisions
        q = decisions[t].value
        target = q + ETA * (decisions[t].reward + GAMMA * decisions[t + 1].value - q)
        self.readout.add(decisions[t].z, target)
        self.record.examples += 1

    def finish(self) -> None:
        """The last decision's example, y = Q + η (r − Q), if its reward is known."""
        last = self.record.decisions[-1] if self.record.decisions else None
        if last is not None and last.reward is not None:
            self.readout.add(last.z, last.value + ETA * (last.reward - last.value))
            self.record.examples += 1


class PreTraining(Learner):
    """EDF drives the job decisions; on an elastic site the level of each decision that may change the
    pool is drawn uniformly among the allowed ones (`default_rng([seed, 2])`), so that the readout
    sees pool actions and their rewards before the online run. The reservoir and the rewards are
    recorded as the learner's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edf = EDF()
        self.pool_draws = np.random.default_rng([self.seed, 2])

    def choose(self, site: Site, levels: np.ndarray) -> tuple[int, int]:
        j, _ = self.edf.choose(site, levels)
        return j, self._record(site, np.array([j]), levels)

    def choose_pool(self, site: Site, levels: np.ndarray) -> int:
        return self._record(site, NO_JOB, levels)

    def _record(self, site: Site, job: np.ndarray, levels: np.ndarray) -> int:
        """The level (drawn when several are allowed) and the decision recorded with Q = 0."""
        level = int(self.pool_draws.choice(levels)) if len(levels) > 1 else int(levels[0])
        z = self._commit(site.state_inputs(), self._job_rows(site, job), np.array([level]), len(site.running))
        self.record.decisions.append(Decision(z, 0.0))
        return level

    def _reward(self, t: int, reward: float) -> None:
        self.record.decisions[t].reward = reward  # examples come from the sweeps

    def sweeps(self) -> None:
        """Sweep k refits from scratch on y_t = r_t + γ Q^(k−1)(z_{t+1}), Q^(0) = 0."""
        known = [d for d in self.record.decisions if d.reward is not None]
        if not known:
            return
        Z = np.array([d.z for d in known])
        rewards = np.array([d.reward for d in known])
        after = np.zeros(len(known))
        for _ in range(SWEEPS):
            targets = rewards + GAMMA * after
            self.readout.fit(Z, targets)
            after = np.append(self.readout.values(Z[1:, 1:]), 0.0)  # the last decision has no next
        self.record.examples = len(known)


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows in lexicographic order and each row's index among them: numpy's
    `unique(axis=0, return_inverse=True)` without its slow structured sort."""
    if len(rows) == 1:  # one job waits (an elastic decision among levels): nothing to sort
        return rows, np.zeros(1, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    index = np.empty(len(rows), dtype=np.int64)
    index[order] = np.cumsum(new) - 1
    return ordered[new], index


def pre_train(
    jobs: JobSet,
    lam: float,
    elastic: bool,
    model: str,
    seed: int,
    top: int,
    pool: int,
    levels: np.ndarray | None = None,
    utilisation: str = "interval",
    pool_request: str = "headroom",
) -> tuple[Reservoir, Readout]:
    """The reservoir of `seed` and the readout fitted by the sweeps over an EDF run of the first jobs
    from `pool` cores (inputs divided by `top`, the online run's P_max); with `levels`, the pool is
    explored among them (PreTraining), else it stays as it is."""
    reservoir = Reservoir.generate(STATE_INPUTS + ACTION_INPUTS + (1 if elastic else 0), seed)
    readout = Readout()
    pre = PreTraining(reservoir, readout, lam, elastic, seed, top, utilisation=utilisation, pool_request=pool_request)
    run_site(jobs, pre, pool, 0, jobs.pre_training, model, levels, pool_top=top)
    pre.sweeps()
    return reservoir, readout


def train_and_run(
    jobs: JobSet,
    lam: float,
    elastic: bool,
    model: str,
    seed: int,
    levels: np.ndarray | None = None,
    epsilon: float = EPSILON,
    utilisation: str = "interval",
    pre_training_pool: str = "explore",
    pool_request: str = "headroom",
    rigid_pool: int | None = None,
) -> tuple:
    """Pre-train on the first jobs with EDF, then run the online jobs. A rigid learner runs both on
    `rigid_pool` cores (default: the load-matched pool); an elastic one starts both from the
    load-matched pool, its pre-training pool explored among `levels` (or kept). Returns (the online
    SiteRun, the learner's record)."""
    if pre_training_pool not in PRE_TRAINING_POOLS:
        raise ValueError(f"pre_training_pool {pre_training_pool!r}: choose one of {', '.join(PRE_TRAINING_POOLS)}")
    pool = jobs.load_pool if elastic or rigid_pool is None else rigid_pool
    top = int(levels[-1]) if elastic else pool
    explored = levels if elastic and pre_training_pool == "explore" else None
    reservoir, readout = pre_train(jobs, lam, elastic, model, seed, top, pool, explored, utilisation, pool_request)
    learner = Learner(reservoir, readout, lam, elastic, seed, top, epsilon, utilisation, pool_request)
    online = run_site(jobs, learner, pool, jobs.pre_training, len(jobs), model, levels if elastic else None)
    learner.finish()
    return online, learner.record


class EnvAgent:
    """Our learner driven through `GridScheduling-v1` / `ElasticProvisioning-v1` (env.py): its
    candidates are the valid actions, its inputs read from the observation (the learner's own,
    float64), its rewards from ``info["known_rewards"]``. With every waiting job a slot (a
    ``"queue"`` window as long as the queue) it makes the direct run's decisions, bit for bit."""

    def __init__(self, learner: Learner, env):
        self.learner = learner
        self.env = env.unwrapped

    def act(self, observation: np.ndarray, info: dict) -> int:
        """The valid actions are every (valid slot, allowed level), slot-major: the learner's candidates."""
        env = self.env
        valid = info["action_mask"].reshape(-1, len(env.levels)) if env.elastic else info["action_mask"][:, None]
        slots, levels = np.flatnonzero(valid.any(axis=1)), np.flatnonzero(valid.any(axis=0))
        per_slot = observation[STATE_INPUTS : STATE_INPUTS + env.slots * SLOT_INPUTS].reshape(env.slots, SLOT_INPUTS)
        job_rows = np.vstack([per_slot[:, 1 : 1 + ACTION_INPUTS], np.zeros(ACTION_INPUTS)])[slots]  # last: no job
        # the running jobs: the pool less the idle cores, both over P_max in the observation
        running = round((observation[-3] - observation[3]) * env.pool_top) if env.elastic else 0
        chosen = self.learner._decide(observation[:STATE_INPUTS], job_rows, env.levels[levels], running)
        slot, level = divmod(chosen, len(levels))
        return int(slots[slot] * len(env.levels) + levels[level]) if env.elastic else int(slots[slot])

    def rewarded(self, info: dict) -> None:
        for decision, reward in info["known_rewards"]:
            self.learner._reward(decision, reward)

    def run_episode(self, seed: int | None = None) -> None:
        observation, info = self.env.reset(seed=seed)
        terminated = False
        while not terminated:
            observation, _, terminated, _, info = self.env.step(self.act(observation, info))
            self.rewarded(info)
        self.learner.finish()
