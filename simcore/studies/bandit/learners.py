"""Online selection of the queue order, one decision per period (SEMANTICS §7).

A learner sees the history of periods before k and picks the order of period
k. `run_learner` drives one simulation in segments: choose, run the period,
give the learner its feedback, repeat until every job has completed.

Feedback of period t (SEMANTICS §7 and the artifact's variants):
- exact (full/noisy): each candidate simulated alone from an empty machine on
  the period's feedback job set: the jobs *submitted* in the period (the
  paper's text, default), or the jobs *started* in it plus those still
  waiting at its end (the artifact); `w(t; P)` is the sum of their waits,
  each multiplied by rho ~ U[1 - noise, 1 + noise] for `noisy`;
- bandit (the others): the jobs that *finished* in the period (the text,
  default) or that *started* in it (the artifact), `l(t)` of them with total
  wait `w(t)`, credited to the order that was in force.

Beyond the paper, UCB1, EXP3 and sliding-window UCB turn a period's bandit
feedback into a reward in [0, 1]: with `c = w(t) / l(t)` the period's mean
wait and `M` the largest mean wait of any period so far (this one included),
`reward = 1 - c / M` (1 when M = 0). A period in which no job finished gives
no feedback. To add a learner: subclass Learner and add it to LEARNERS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcore.engine.policies import BANDIT_ORDERS, EASY_FCFS, NAMED_ORDERS, Policy
from simcore.engine.simulation import Simulation, simulate_orders

DAY = 86400.0
WEEK = 7 * DAY


@dataclass
class Feedback:
    """What period t revealed."""

    chosen: int  # index of the order in force
    jobs: int  # l(t): jobs credited to the chosen order
    wait: float  # w(t): their total wait
    candidate_waits: np.ndarray | None = None  # w(t; P) per candidate (exact feedback)


class Learner:
    """Base class. `needs_simulation`: wants exact per-candidate feedback."""

    needs_simulation = False

    def __init__(self, candidates, rng: np.random.Generator, decay: float = 1.0, **options):
        if options:
            raise ValueError(f"{type(self).__name__}: unknown options {sorted(options)}")
        if not 0 < decay <= 1:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.candidates = list(candidates)
        self.rng = rng
        self.decay = decay
        self.default = self.candidates.index("FCFS") if "FCFS" in self.candidates else 0

    def choose(self, period: int) -> int:
        raise NotImplementedError

    def observe(self, period: int, feedback: Feedback) -> None:
        pass

    def costs(self) -> np.ndarray:
        """Current estimated cost per candidate (NaN: none yet), for the record."""
        return np.full(len(self.candidates), np.nan)

    def _argmin(self, costs: np.ndarray) -> int:
        """Lowest defined cost, ties to the earliest candidate; the default if none."""
        defined = ~np.isnan(costs)
        if not defined.any():
            return self.default
        return int(np.flatnonzero(costs == np.min(costs[defined]))[0])


class RandomLearner(Learner):
    """Uniformly at random every period."""

    def choose(self, period):
        return int(self.rng.integers(len(self.candidates)))


class FullFeedback(Learner):
    """argmin_P Σ_{t<k} λ^(k-1-t) w(t; P), from exact simulations."""

    needs_simulation = True

    def __init__(self, candidates, rng, decay=1.0, **options):
        super().__init__(candidates, rng, decay, **options)
        self.total = np.full(len(self.candidates), np.nan)

    def choose(self, period):
        return self._argmin(self.total)

    def observe(self, period, feedback):
        previous = np.nan_to_num(self.total, nan=0.0)
        self.total = self.decay * previous + feedback.candidate_waits

    def costs(self):
        return self.total.copy()


class NoisyFeedback(FullFeedback):
    """Full feedback with every job's wait scaled by rho ~ U[1 - noise, 1 + noise]
    (the run driver applies the noise; see run_learner)."""


class EpsilonGreedy(Learner):
    """Bandit feedback: cost(P) = Σ λ^(k-1-t) w(t) / Σ l(t) over the periods
    P was used; explore uniformly with probability epsilon."""

    def __init__(self, candidates, rng, decay=1.0, epsilon=0.5, **options):
        super().__init__(candidates, rng, decay, **options)
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        self.epsilon = epsilon
        self.discounted_wait = np.zeros(len(self.candidates))
        self.jobs = np.zeros(len(self.candidates))

    def choose(self, period):
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(len(self.candidates)))
        return self._argmin(self.costs())

    def observe(self, period, feedback):
        self.discounted_wait *= self.decay
        self.discounted_wait[feedback.chosen] += feedback.wait
        self.jobs[feedback.chosen] += feedback.jobs

    def costs(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.jobs > 0, self.discounted_wait / self.jobs, np.nan)


class _NormalizedRewards(Learner):
    """Bandit feedback turned into rewards in [0, 1] (see the module docstring)."""

    def __init__(self, candidates, rng, decay=1.0, **options):
        super().__init__(candidates, rng, decay, **options)
        self.largest_mean_wait = 0.0

    def reward(self, feedback: Feedback) -> float | None:
        if feedback.jobs == 0:
            return None
        mean_wait = feedback.wait / feedback.jobs
        self.largest_mean_wait = max(self.largest_mean_wait, mean_wait)
        return 1.0 if self.largest_mean_wait == 0 else 1.0 - mean_wait / self.largest_mean_wait


class UCB1(_NormalizedRewards):
    """Auer et al.'s UCB1 on the normalized rewards: play each order once, then
    the largest mean + sqrt(2 ln n / n_P)."""

    def __init__(self, candidates, rng, decay=1.0, **options):
        super().__init__(candidates, rng, decay, **options)
        self.plays = np.zeros(len(self.candidates))
        self.rewards = np.zeros(len(self.candidates))

    def choose(self, period):
        unplayed = np.flatnonzero(self.plays == 0)
        if len(unplayed):
            return int(unplayed[0])
        index = self.rewards / self.plays + np.sqrt(2.0 * math.log(self.plays.sum()) / self.plays)
        return int(np.argmax(index))

    def observe(self, period, feedback):
        reward = self.reward(feedback)
        if reward is not None:
            self.plays[feedback.chosen] += 1
            self.rewards[feedback.chosen] += reward

    def costs(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.plays > 0, 1.0 - self.rewards / self.plays, np.nan)


class SlidingWindowUCB(_NormalizedRewards):
    """Garivier and Moulines' sliding-window UCB for non-stationary workloads:
    UCB1 on the last `window` periods with feedback only."""

    def __init__(self, candidates, rng, decay=1.0, window=8, **options):
        super().__init__(candidates, rng, decay, **options)
        if (
            not (isinstance(window, (int, np.integer)) or (isinstance(window, float) and window.is_integer()))
            or window < 1
        ):
            raise ValueError(f"window must be >= 1, a whole number of periods; got {window}")
        self.window = int(window)
        self.history: list[tuple[int, float]] = []

    def _statistics(self):
        plays = np.zeros(len(self.candidates))
        rewards = np.zeros(len(self.candidates))
        for chosen, reward in self.history[-self.window :]:
            plays[chosen] += 1
            rewards[chosen] += reward
        return plays, rewards

    def choose(self, period):
        plays, rewards = self._statistics()
        unplayed = np.flatnonzero(plays == 0)
        if len(unplayed):
            return int(unplayed[0])
        index = rewards / plays + np.sqrt(2.0 * math.log(min(len(self.history), self.window)) / plays)
        return int(np.argmax(index))

    def observe(self, period, feedback):
        reward = self.reward(feedback)
        if reward is not None:
            self.history.append((feedback.chosen, reward))

    def costs(self):
        plays, rewards = self._statistics()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(plays > 0, 1.0 - rewards / plays, np.nan)


class EXP3(_NormalizedRewards):
    """Auer et al.'s EXP3 on the normalized rewards, exploration rate gamma."""

    def __init__(self, candidates, rng, decay=1.0, gamma=0.1, **options):
        super().__init__(candidates, rng, decay, **options)
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.gamma = gamma
        self.log_weights = np.zeros(len(self.candidates))

    def probabilities(self) -> np.ndarray:
        weights = np.exp(self.log_weights - self.log_weights.max())
        k = len(self.candidates)
        return (1 - self.gamma) * weights / weights.sum() + self.gamma / k

    def choose(self, period):
        return int(self.rng.choice(len(self.candidates), p=self.probabilities()))

    def observe(self, period, feedback):
        reward = self.reward(feedback)
        if reward is not None:
            chosen = feedback.chosen
            estimate = reward / self.probabilities()[chosen]
            self.log_weights[chosen] += self.gamma * estimate / len(self.candidates)

    def costs(self):
        return 1.0 - self.probabilities()


LEARNERS = {
    "random": RandomLearner,
    "full": FullFeedback,
    "noisy": NoisyFeedback,
    "epsilon-greedy": EpsilonGreedy,
    "ucb1": UCB1,
    "exp3": EXP3,
    "sw-ucb": SlidingWindowUCB,
}
FEEDBACK_SETS = ("submitted", "started")
CREDITS = ("finished", "started")


@dataclass
class LearnerRun:
    result: object  # SimulationResult of the whole run
    periods: pd.DataFrame  # one row per period: order chosen, feedback, cost estimates


def _exact_waits(workload, jobs: np.ndarray, candidates, policy: Policy, rng, noise) -> np.ndarray:
    """w(t; P) per candidate: the jobs alone on an empty machine under each order, with the run's
    `policy` otherwise."""
    waits = np.zeros(len(candidates))
    if len(jobs) == 0:
        return waits
    subset = workload.take(jobs)
    for index, result in enumerate(simulate_orders(subset, candidates, policy)):
        wait = result.start - subset.submit
        if noise:
            wait = wait * rng.uniform(1.0 - noise, 1.0 + noise, size=len(wait))
        waits[index] = wait.sum()
    return waits


def run_learner(
    workload,
    learner: str,
    period: float = WEEK,
    candidates=None,
    policy: Policy = EASY_FCFS,
    seed: int = 0,
    decay: float = 1.0,
    feedback_jobs: str = "submitted",
    noise: float | None = None,
    credit: str = "finished",
    **options,
) -> LearnerRun:
    """Simulate `workload` under `policy` with the order chosen per period by `learner` (the
    policy's own order is not used), for the run and for the exact feedback's simulations; with
    MULTIFACTOR among the candidates its parameters are the policy's, else the defaults."""
    if learner not in LEARNERS:
        raise ValueError(f"unknown learner {learner!r}; choose one of {', '.join(LEARNERS)}")
    if feedback_jobs not in FEEDBACK_SETS:
        raise ValueError(f"unknown feedback job set {feedback_jobs!r}; choose {' or '.join(FEEDBACK_SETS)}")
    if credit not in CREDITS:
        raise ValueError(f"unknown credit {credit!r}; choose {' or '.join(CREDITS)}")
    if not (period > 0 and math.isfinite(period)):
        raise ValueError(f"period must be positive and finite (seconds), got {period}")
    candidates = list(BANDIT_ORDERS if candidates is None else candidates)
    unknown = [order for order in candidates if order not in NAMED_ORDERS]
    if not candidates or unknown:
        raise ValueError(
            f"candidates must be a non-empty list of queue orders ({', '.join(NAMED_ORDERS)}); got {candidates}"
        )
    if noise is not None and not 0 <= noise < 1:
        raise ValueError(f"noise must be in [0, 1), got {noise}")
    rng = np.random.default_rng(seed)
    chooser = LEARNERS[learner](candidates, rng, decay, **options)
    if noise is None:
        noise = 0.15 if learner == "noisy" else 0.0
    if "MULTIFACTOR" in candidates:  # usage tracked from the start, whatever is chosen first
        policy = policy.tracking_fair_share()
    sim = Simulation(workload, policy=policy.with_order(candidates[chooser.default]))
    submit = workload.submit
    rows, k = [], int(np.floor(submit.min() / period)) if len(submit) else 0
    finished = len(workload) == 0
    while not finished:
        chosen = chooser.choose(k)
        costs = chooser.costs()  # the estimates this decision was made on
        sim.set_order(candidates[chosen])
        begin, end = k * period, (k + 1) * period
        finished = sim.run_until(end)
        start, stop = sim.start_times, sim.end_times
        if credit == "finished":
            credited = (stop >= begin) & (stop < end)
        else:
            credited = (start >= begin) & (start < end)
        wait = float(np.sum(start[credited] - submit[credited]))
        feedback = Feedback(chosen, int(credited.sum()), wait)
        if chooser.needs_simulation:
            if feedback_jobs == "submitted":
                jobs = np.flatnonzero((submit >= begin) & (submit < end))
            else:
                jobs = np.flatnonzero(((start >= begin) & (start < end)) | ((submit < end) & np.isnan(start)))
            feedback.candidate_waits = _exact_waits(workload, jobs, candidates, policy, rng, noise)
        chooser.observe(k, feedback)
        rows.append(
            {
                "period": k,
                "start": begin,
                "order": candidates[chosen],
                "jobs": feedback.jobs,
                "wait": feedback.wait,
                **{f"cost_{order}": cost for order, cost in zip(candidates, costs)},
            }
        )
        k += 1
    return LearnerRun(sim.finish(), pd.DataFrame(rows))
