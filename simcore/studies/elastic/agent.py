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

from simcore.studies.elastic.esn import Readout, Reservoir, features
from simcore.studies.elastic.jobsets import JobSet
from simcore.studies.elastic.site import ACTION_INPUTS, EDF, STATE_INPUTS, Policy, Site, run_site

EPSILON = 0.05
GAMMA = 0.8
ETA = 0.2
SWEEPS = 5


def response(run: float, wait: float) -> float:
    """W_j = p / (p + wait), 1 when both are 0."""
    total = run + wait
    return run / total if total > 0 else 1.0


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
    """SARSA with the ESN; `lam` weighs W against fairness (rigid) or utilisation (elastic)."""

    def __init__(self, reservoir: Reservoir, readout: Readout, lam: float, elastic: bool, seed: int, pool_top: int):
        self.reservoir = reservoir
        self.readout = readout
        self.lam = lam
        self.elastic = elastic
        self.pool_top = pool_top
        self.explore = np.random.default_rng([seed, 1])
        self.state = np.zeros(reservoir.units)
        self.record = Record()
        self.job_decision: dict[int, int] = {}
        self.fairness: dict[int, float] = {}  # F_j at j's election
        self.utilisation: dict[int, float] = {}  # U(T_t) at j's election (the elastic reward's)

    # -- inputs ------------------------------------------------------------------------

    def _inputs(self, site: Site, jobs: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """One row per (job, level), jobs in queue order and levels ascending within a job;
        an empty `jobs` is the "no job" action of a pool-only decision."""
        state = site.state_inputs()
        actions = site.action_inputs(jobs) if len(jobs) else np.zeros((1, ACTION_INPUTS))
        rows = np.repeat(actions, len(levels) if self.elastic else 1, axis=0)
        parts = [np.broadcast_to(state, (len(rows), STATE_INPUTS)), rows]
        if self.elastic:
            parts.append(np.tile(levels / self.pool_top, len(actions))[:, None])
        return np.hstack(parts)

    def _decide(self, inputs: np.ndarray) -> int:
        values = self.readout.values(self.reservoir.tentative_readout(self.state, inputs))
        if self.explore.random() < EPSILON:
            chosen = int(self.explore.integers(len(inputs)))
        else:
            chosen = int(np.argmax(values))  # the first of equal values: earliest job, smaller level
        self.state = self.reservoir.step(self.state, inputs[chosen])
        z = features(self.state[self.reservoir.readout_units])
        self._add(Decision(z, float(self.readout.values(z[None, 1:])[0])))
        return chosen

    # -- the Policy interface ----------------------------------------------------------

    def choose(self, site: Site, levels: np.ndarray) -> tuple[int, int]:
        queue = np.asarray(site.queue, dtype=np.int64)
        chosen = self._decide(self._inputs(site, queue, levels))
        per_job = len(levels) if self.elastic else 1
        j = int(queue[chosen // per_job])
        self._elected(site, j)
        return j, int(levels[chosen % per_job]) if self.elastic else site.pool

    def choose_pool(self, site: Site, levels: np.ndarray) -> int:
        level = int(levels[self._decide(self._inputs(site, np.zeros(0, dtype=np.int64), levels))])
        # no job is waiting: full responsiveness (decided)
        self._reward(len(self.record.decisions) - 1, self.lam + (1 - self.lam) * site.utilisation())
        return level

    def completed(self, site: Site, j: int) -> None:
        t = self.job_decision.pop(j, None)
        if t is None:
            return
        jobs = site.jobs
        w = response(float(jobs.run[j]), float(site.result.start[j] - jobs.submit[j]))
        fairness, utilisation = self.fairness.pop(j), self.utilisation.pop(j)
        self._reward(t, self.lam * w + (1 - self.lam) * (utilisation if self.elastic else fairness))

    def _elected(self, site: Site, j: int) -> None:
        """What j's reward needs from the instant it is elected."""
        self.job_decision[j] = len(self.record.decisions) - 1
        self.fairness[j] = site.fairness_of(j)
        self.utilisation[j] = site.utilisation()

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
    """EDF drives the decisions; the reservoir and the rewards are recorded as the learner's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edf = EDF()

    def choose(self, site: Site, levels: np.ndarray) -> tuple[int, int]:
        j, _ = self.edf.choose(site, levels)
        inputs = self._inputs(site, np.array([j]), np.array([site.pool]))[0]
        self.state = self.reservoir.step(self.state, inputs)
        self.record.decisions.append(Decision(features(self.state[self.reservoir.readout_units]), 0.0))
        self._elected(site, j)
        return j, site.pool

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


def train_and_run(
    jobs: JobSet,
    lam: float,
    elastic: bool,
    model: str,
    seed: int,
    levels: np.ndarray | None = None,
) -> tuple:
    """Pre-train on the first jobs with EDF on the rigid pool, then run the online jobs (rigid or
    elastic from the rigid pool). Returns (the online SiteRun, the learner's record)."""
    inputs = STATE_INPUTS + ACTION_INPUTS + (1 if elastic else 0)
    reservoir = Reservoir.generate(inputs, seed)
    readout = Readout()
    top = int(levels[-1]) if elastic else jobs.rigid_pool
    pre = PreTraining(reservoir, readout, lam, elastic, seed, top)
    run_site(jobs, pre, jobs.rigid_pool, 0, jobs.pre_training, model, pool_top=top)
    pre.sweeps()
    learner = Learner(reservoir, readout, lam, elastic, seed, top)
    online = run_site(jobs, learner, jobs.rigid_pool, jobs.pre_training, len(jobs), model, levels if elastic else None)
    learner.finish()
    return online, learner.record
