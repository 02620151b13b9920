"""The grid site of the elastic study (docs/elastic.md §2-8): serial jobs, one shared queue, greedy
decisions at each instant, a rigid or an elastic pool of cores, fair-share bookkeeping per VO.

The event loop is Python per decision, numpy per candidate: a decision scores every candidate
(a waiting job, with a pool level when elastic) at once. Policies: the SARSA learner with its
echo-state-network Q-function (agent.py), EDF and FCFS. `run_site` returns per-job starts and ends,
the pool over time and the learner's record.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import deque
from collections.abc import Generator
from dataclasses import dataclass, field

import numpy as np

from simcore.studies.elastic.jobsets import VOS, JobSet
from simcore.studies.elastic.rewards import Rewards

WEEK = 7 * 86400.0
PHI_SCALE = 60.0  # φ(x) = min(1, ln(1 + x/60) / ln(1 + 10^6/60))
PHI_TOP = 1e6
POOL_STEP = 10
PAPER_FLOOR = 30 / 81  # the paper's floor of 30 cores on LAL's 81, scaled to each rigid pool
STABILITY = 900.0  # seconds between two pool changes
STATE_INPUTS = 4 + VOS  # running workload, time to a free core, backlog, idle cores, queue share per VO
ACTION_INPUTS = 1 + (VOS - 1) + 1  # type, VO one-hot without "rest", φ(e)
MODELS = ("ORA", "EST")


def phi(seconds):
    """The encoding of a duration: logarithmic, 1 from about 11.6 days on."""
    return np.minimum(1.0, np.log1p(np.asarray(seconds, dtype=float) / PHI_SCALE) / math.log1p(PHI_TOP / PHI_SCALE))


def pool_floor(rigid_pool: int) -> int:
    """The smallest level: 30/81 of the rigid pool (the paper's 30 of 81 cores) rounded to a multiple
    of 10, at least 10, so that an elastic pool can shrink below the rigid one on every set."""
    return POOL_STEP * max(1, round(PAPER_FLOOR * rigid_pool / POOL_STEP))


def pool_levels(rigid_pool: int) -> np.ndarray:
    """Multiples of 10 in [floor, P_max], P_max = 10 ceil(2 P_rig / 10)."""
    floor = pool_floor(rigid_pool)
    top = POOL_STEP * math.ceil(2 * rigid_pool / POOL_STEP)
    return np.arange(floor, max(top, floor) + 1, POOL_STEP)


class Estimator:
    """e_j of the EST model: the median p of the jobs of the same type completed in the last 7 days,
    else the type's median over the pre-training jobs (ORA: e_j = p_j). Each type's window is kept
    sorted (insertion at a completion, removal at expiry), so a median costs no sort."""

    def __init__(self, jobs: JobSet, model: str):
        self.model = model
        self.jobs = jobs
        pre = slice(0, jobs.pre_training)
        self.fallback = [
            float(np.median(jobs.run[pre][jobs.interactive[pre] == kind]))
            if np.any(jobs.interactive[pre] == kind)
            else float(np.median(jobs.run[pre]))
            for kind in (False, True)
        ]
        self.window = [deque(), deque()]  # (end, p) per type, in completion order
        self.sorted = [[], []]  # the same p, ascending

    def completed_job(self, j: int, end: float) -> None:
        kind = int(self.jobs.interactive[j])
        self.window[kind].append((end, float(self.jobs.run[j])))
        bisect.insort(self.sorted[kind], float(self.jobs.run[j]))

    def median(self, kind: int, t: float) -> float:
        window, values = self.window[kind], self.sorted[kind]
        while window and window[0][0] <= t - WEEK:
            _, p = window.popleft()
            del values[bisect.bisect_left(values, p)]
        if not values:
            return self.fallback[kind]
        middle = len(values) // 2
        return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2

    def estimates(self, jobs: np.ndarray, t: float) -> np.ndarray:
        if self.model == "ORA":
            return self.jobs.run[jobs]
        return np.where(self.jobs.interactive[jobs], self.median(1, t), self.median(0, t))

    def estimate(self, j: int, t: float) -> float:
        """e_j of one job: `estimates` without the arrays."""
        if self.model == "ORA":
            return float(self.jobs.run[j])
        return self.median(int(self.jobs.interactive[j]), t)


@dataclass
class SiteRun:
    """What a run of the site produced: per job, and the pool and utilisation over time."""

    start: np.ndarray
    end: np.ndarray
    fairness: np.ndarray  # F at each job's election (NaN: not elected in this run)
    pool_times: list = field(default_factory=list)
    pool_sizes: list = field(default_factory=list)
    decisions: int = 0
    interactive_waiting: int = 0  # job decisions made while an interactive job waited
    batch_over_interactive: int = 0  # ... of which started a batch job


class Site:
    """The simulation state of one run over jobs[first:last] on a pool (rigid or elastic)."""

    def __init__(
        self,
        jobs: JobSet,
        first: int,
        last: int,
        pool: int,
        levels: np.ndarray | None,
        model: str,
        pool_top: int | None = None,
    ):
        self.jobs = jobs
        self.first, self.last = first, last
        self.pool = pool
        self.levels = levels  # None: rigid
        # P_max, which the inputs divide by: the largest level, else the pool, unless given (an elastic
        # learner's pre-training keeps the rigid pool but encodes its inputs as the elastic run will)
        self.top = pool_top or (int(levels[-1]) if levels is not None else pool)
        self.estimator = Estimator(jobs, model)
        self.t = -math.inf
        self.queue: list[int] = []  # waiting jobs in (r, id) order
        self.queued_vo = np.zeros(VOS, dtype=np.int64)  # waiting jobs per VO
        self.queued_interactive = 0
        self.running: dict[int, float] = {}  # job -> start
        self.expected: dict[int, float] = {}  # job -> e_j at its start
        self.completions: list[tuple[float, int]] = []
        self.next_submission = first
        self.delivered = np.zeros(VOS)  # core-seconds of completed jobs per VO
        self.last_change = -math.inf
        self.n_running_vo = np.zeros(VOS)
        self.start_time_sum_vo = np.zeros(VOS)  # Σ start of running jobs per VO (elapsed = n t - Σ start)
        self.result = SiteRun(np.full(len(jobs), np.nan), np.full(len(jobs), np.nan), np.full(len(jobs), np.nan))
        self.result.pool_times.append(float(jobs.submit[first]))
        self.result.pool_sizes.append(pool)
        self.completed_work = 0.0
        self.pool_area = 0.0  # ∫ P dt since the run's start
        self.busy_area = 0.0  # ∫ running jobs dt: the work done since the run's start
        self.origin = float(jobs.submit[first])
        self.top_share = float(np.max(jobs.shares))
        # the action inputs of every job; φ(e_j) is the job's own under ORA, else filled per decision
        self.job_inputs = np.zeros((len(jobs), ACTION_INPUTS))
        self.job_inputs[:, 0] = jobs.interactive
        named = np.flatnonzero(jobs.vo < VOS - 1)
        self.job_inputs[named, 1 + jobs.vo[named]] = 1.0
        if model == "ORA":
            self.job_inputs[:, -1] = phi(jobs.run)

    # -- bookkeeping -------------------------------------------------------------------

    def advance_clock(self, t: float) -> None:
        if self.t > -math.inf:
            self.pool_area += self.pool * (t - self.t)
            self.busy_area += len(self.running) * (t - self.t)
        self.t = t

    def fairness_of(self, j: int) -> float:
        """F_j at j's election: 1 - D_j / max_k w_k with p_j counted for j's VO."""
        elapsed = self.n_running_vo * self.t - self.start_time_sum_vo
        delivered = self.delivered + elapsed
        delivered[self.jobs.vo[j]] += self.jobs.run[j]
        total = delivered.sum()
        if total <= 0:
            return 1.0  # nothing delivered yet, not even j's work: no VO is behind its share
        shares = delivered / total
        deficit = np.maximum(self.jobs.shares - shares, 0.0).max()
        return 1.0 - deficit / self.top_share

    def idle(self) -> int:
        return self.pool - len(self.running)

    def may_change_pool(self, completed_now: bool) -> bool:
        return self.levels is not None and completed_now and self.t - self.last_change >= STABILITY

    # -- the decision's inputs ----------------------------------------------------------

    def state_inputs(self) -> np.ndarray:
        """The 11 state numbers of docs/elastic.md §4."""
        inputs = np.zeros(STATE_INPUTS)
        running = len(self.running)
        if running:  # `expected` and `running` hold the same jobs in the same order
            expected = np.fromiter(self.expected.values(), dtype=float, count=running)
            starts = np.fromiter(self.running.values(), dtype=float, count=running)
            remaining = np.maximum(expected - (self.t - starts), 0.0)
            inputs[0], inputs[1] = remaining.sum() / self.pool, remaining.min()
        if self.queue:
            inputs[2] = self.estimator.estimates(np.asarray(self.queue), self.t).sum() / self.pool
            inputs[4:] = self.queued_vo / len(self.queue)
        inputs[:3] = phi(inputs[:3])  # φ(0) = 0: nothing running or waiting
        inputs[3] = self.idle() / self.top
        return inputs

    def action_inputs(self, candidates: np.ndarray) -> np.ndarray:
        """Per candidate job: type, VO one-hot (rest = zeros) and φ(e_j)."""
        inputs = self.job_inputs[candidates]
        if self.estimator.model == "EST":
            inputs[:, -1] = phi(self.estimator.estimates(candidates, self.t))
        return inputs

    # -- job life cycle ----------------------------------------------------------------

    def submit(self, j: int) -> None:
        self.queue.append(j)
        self.queued_vo[self.jobs.vo[j]] += 1
        self.queued_interactive += int(self.jobs.interactive[j])

    def start(self, j: int, level: int) -> None:
        """Start waiting job j on an idle core, the pool set to `level` first (elastic)."""
        self.resize(level)
        self.result.fairness[j] = self.fairness_of(j)
        self.queue.remove(j)
        vo = self.jobs.vo[j]
        self.queued_vo[vo] -= 1
        if self.queued_interactive:
            self.result.interactive_waiting += 1
            self.result.batch_over_interactive += int(not self.jobs.interactive[j])
        self.queued_interactive -= int(self.jobs.interactive[j])
        self.running[j] = self.t
        self.expected[j] = self.estimator.estimate(j, self.t)
        self.n_running_vo[vo] += 1
        self.start_time_sum_vo[vo] += self.t
        self.result.start[j] = self.t
        heapq.heappush(self.completions, (self.t + float(self.jobs.run[j]), j))

    def decided(self, j: int, rewards: Rewards | None) -> None:
        """A decision is made: `j` started (-1: a pool-only decision), the pool set."""
        if rewards is not None:
            rewards.decided(self, self.result.decisions, j)
        self.result.decisions += 1

    def resize(self, level: int) -> None:
        """Set the pool to `level` (a change unless it is the current pool)."""
        if level != self.pool:
            self.pool = level
            self.last_change = self.t
            self.result.pool_times.append(self.t)
            self.result.pool_sizes.append(level)

    def complete(self, j: int) -> None:
        start = self.running.pop(j)
        del self.expected[j]
        vo = self.jobs.vo[j]
        self.n_running_vo[vo] -= 1
        self.start_time_sum_vo[vo] -= start
        self.delivered[vo] += self.jobs.run[j]
        self.completed_work += self.jobs.run[j]
        self.estimator.completed_job(j, self.t)
        self.result.end[j] = self.t

    def allowed_levels(self, completed_now: bool, choosing_job: bool) -> np.ndarray:
        """The pool levels a decision may request: the current pool unless a change is permitted."""
        if not self.may_change_pool(completed_now):
            return np.array([self.pool])
        floor = max(int(self.levels[0]), len(self.running) + (1 if choosing_job else 0))
        allowed = self.levels[self.levels >= floor]
        return allowed if len(allowed) else np.array([self.pool])


class Policy:
    """Chooses a waiting job (and a pool level) at each decision; a learner has `rewards`, which the
    site loop keeps up to date."""

    rewards: Rewards | None = None

    def choose(self, site: Site, levels: np.ndarray) -> tuple[int, int]:
        raise NotImplementedError

    def choose_pool(self, site: Site, levels: np.ndarray) -> int:
        return site.pool


class FCFS(Policy):
    def choose(self, site, levels):
        return site.queue[0], site.pool


class EDF(Policy):
    """Earliest deadline r_j + e_j first, ties in (r, id) order; the pool is left as it is."""

    def choose(self, site, levels):
        queue = np.asarray(site.queue, dtype=np.int64)
        deadlines = site.jobs.submit[queue] + site.estimator.estimates(queue, site.t)
        return int(queue[int(np.argmin(deadlines))]), site.pool  # argmin: the first of equal deadlines


@dataclass
class DecisionPoint:
    """A decision the loop of `site_decisions` waits for: a job (and a level among `levels`), or,
    when `pool_only`, a level alone (the queue is empty at a permitted completion instant)."""

    site: Site
    levels: np.ndarray
    pool_only: bool


def site_decisions(
    jobs: JobSet,
    pool: int,
    first: int,
    last: int,
    model: str = "EST",
    levels: np.ndarray | None = None,
    rewards: Rewards | None = None,
    pool_top: int | None = None,
) -> Generator[DecisionPoint, int | tuple[int, int], SiteRun]:
    """The event loop of `run_site`, paused at each decision: it yields a DecisionPoint and is sent
    the choice, `(job, level)` or, for a pool-only decision, the level; it returns the SiteRun.
    `rewards` is told of each completion (before the instant's decisions), each decision and the end."""
    if model not in MODELS:
        raise ValueError(f"model {model!r}: choose one of {', '.join(MODELS)}")
    site = Site(jobs, first, last, pool, levels, model, pool_top)
    while True:
        t = math.inf
        if site.next_submission < last:
            t = float(jobs.submit[site.next_submission])
        if site.completions and site.completions[0][0] < t:
            t = site.completions[0][0]
        if t == math.inf:
            break
        site.advance_clock(t)
        completed_now = False
        while site.completions and site.completions[0][0] == t:
            _, j = heapq.heappop(site.completions)
            site.complete(j)
            if rewards is not None:
                rewards.completed(site, j)
            completed_now = True
        while site.next_submission < last and jobs.submit[site.next_submission] == t:
            site.submit(site.next_submission)
            site.next_submission += 1
        while True:
            if site.queue and site.idle() > 0:
                j, level = yield DecisionPoint(site, site.allowed_levels(completed_now, choosing_job=True), False)
                site.start(j, level)
                site.decided(j, rewards)
            elif not site.queue and site.may_change_pool(completed_now):
                site.resize((yield DecisionPoint(site, site.allowed_levels(completed_now, choosing_job=False), True)))
                site.decided(-1, rewards)
                break
            else:
                break
    if rewards is not None:
        rewards.finished(site)
    return site.result


def run_site(
    jobs: JobSet,
    policy: Policy,
    pool: int,
    first: int,
    last: int,
    model: str = "EST",
    levels: np.ndarray | None = None,
    pool_top: int | None = None,
) -> SiteRun:
    """Jobs [first, last) of the set from an empty site; `levels` makes the pool elastic."""
    loop = site_decisions(jobs, pool, first, last, model, levels, policy.rewards, pool_top)
    try:
        point = next(loop)
        while True:
            if point.pool_only:
                point = loop.send(policy.choose_pool(point.site, point.levels))
            else:
                point = loop.send(policy.choose(point.site, point.levels))
    except StopIteration as finished:
        return finished.value
