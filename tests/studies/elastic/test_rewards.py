"""The rewards of the elastic study (rewards.py, docs/elastic.md §5.2), against a reference computed
from the finished run alone: the interval utilisation (our per-interval modification of Eq. 3), Eq. 3
as printed (the cumulative variant), the rigid fairness reward, and when each reward is delivered."""

import numpy as np
import pytest
from test_agent import busy_set
from test_elastic_env import dense_example

from simcore.studies.elastic.rewards import UTILISATIONS, Rewards
from simcore.studies.elastic.site import Policy, pool_levels, run_site


class RandomLevels(Policy):
    """FCFS for the jobs, a uniformly drawn level wherever several are allowed; logs each decision
    (instant, job or -1) and, at each delivered reward, how many decisions had been made."""

    def __init__(self, lam, elastic, utilisation, seed, book=Rewards):
        self.draws = np.random.default_rng(seed)
        self.log = []
        self.delivered = {}  # decision -> (reward, decisions made when it was delivered)
        self.rewards = book(lam, elastic, utilisation, self.deliver)

    def deliver(self, decision, reward):
        assert decision not in self.delivered
        self.delivered[decision] = (reward, len(self.log))

    def level(self, levels):
        return int(self.draws.choice(levels))

    def choose(self, site, levels):
        self.log.append((site.t, site.queue[0]))
        return site.queue[0], self.level(levels)

    def choose_pool(self, site, levels):
        self.log.append((site.t, -1))
        return self.level(levels)


def area(times, values, a, b):
    """∫_a^b of the step function equal to values[i] from times[i] on."""
    edges = np.clip(np.append(times, np.inf), a, b)
    return float(np.sum(np.asarray(values, dtype=float) * np.diff(edges)))


def busy(start, end, a, b):
    """Core-seconds worked in [a, b) by jobs running over [start, end)."""
    return float(np.sum(np.clip(np.minimum(end, b) - np.maximum(start, a), 0.0, None)))


def reference(jobs, run, log, lam, utilisation, elastic):
    """Each decision's reward, from the run's starts, ends and pool steps alone."""
    online = slice(jobs.pre_training, len(jobs))
    start, end = run.start[online], run.end[online]
    instants = np.unique([t for t, _ in log])
    finish = float(np.nanmax(end))
    expected = []
    for t, job in log:
        w = 1.0 if job < 0 else jobs.run[job] / max(jobs.run[job] + run.start[job] - jobs.submit[job], 1e-300)
        if job >= 0 and jobs.run[job] + run.start[job] - jobs.submit[job] == 0:
            w = 1.0
        later = instants[instants > t]
        until = later[0] if len(later) else finish  # the next decision instant, or the run's end
        if not elastic:
            other = run.fairness[job]
        elif utilisation == "interval":
            pool = area(run.pool_times, run.pool_sizes, t, until)
            other = busy(start, end, t, until) / pool if pool > 0 else 1.0
        else:  # Eq. 3 as printed: the work completed by t over the pool's area from the start to `until`
            pool = area(run.pool_times, run.pool_sizes, run.pool_times[0], until)
            other = jobs.run[online][end <= t].sum() / pool if pool > 0 else 1.0
        expected.append(lam * w + (1 - lam) * other)
    return np.array(expected)


CASES = [
    (jobs_of, utilisation, seed)
    for jobs_of in (dense_example, busy_set)
    for utilisation in UTILISATIONS
    for seed in (0, 1)
]


@pytest.mark.parametrize("jobs_of, utilisation, seed", CASES)
def test_elastic_rewards_equal_the_reference_from_the_run(jobs_of, utilisation, seed):
    jobs, lam = jobs_of(), 0.3
    policy = RandomLevels(lam, True, utilisation, seed)
    run = run_site(jobs, policy, jobs.load_pool, jobs.pre_training, len(jobs), "EST", pool_levels(jobs.load_pool))
    assert len(run.pool_sizes) > 3  # the drawn levels did change the pool
    assert sorted(policy.delivered) == list(range(len(policy.log)))  # every decision, once
    delivered = np.array([policy.delivered[n][0] for n in range(len(policy.log))])
    np.testing.assert_allclose(
        delivered, reference(jobs, run, policy.log, lam, utilisation, True), rtol=1e-9, atol=1e-12
    )
    # either U is known only once a decision is made at a later instant (or the run ends)
    times = np.array([t for t, _ in policy.log])
    for n, (_, made) in policy.delivered.items():
        later = np.flatnonzero(times > times[n])
        assert made >= (later[0] + 1 if len(later) else len(times))


class ClosedAtCompletions(Rewards):
    """A planted bug: an open interval also ends at the next completion, not the next decision."""

    def completed(self, site, j):
        if self.open and site.t > self.opened_at[0]:
            self._close(site)
        super().completed(site, j)


class CompletedWork(Rewards):
    """A planted bug: the interval's U counts the work of the jobs completed in it, not the work done."""

    def decided(self, site, decision, job):
        if not self.open or site.t > self.opened_at[0]:
            self.completed_then = site.completed_work
        super().decided(site, decision, job)

    def _close(self, site):
        site.busy_area, real = self.opened_at[1] + site.completed_work - self.completed_then, site.busy_area
        super()._close(site)
        site.busy_area = real


@pytest.mark.parametrize("book", [ClosedAtCompletions, CompletedWork])
def test_the_reference_catches_a_planted_bug(book):
    jobs, lam = dense_example(), 0.3
    policy = RandomLevels(lam, True, "interval", 0, book)
    run = run_site(jobs, policy, jobs.load_pool, jobs.pre_training, len(jobs), "EST", pool_levels(jobs.load_pool))
    delivered = np.array([policy.delivered[n][0] for n in sorted(policy.delivered)])
    expected = reference(jobs, run, policy.log, lam, "interval", True)
    assert len(delivered) != len(expected) or not np.allclose(delivered, expected, rtol=1e-9, atol=1e-12)


def test_rigid_rewards_are_responsiveness_and_fairness_at_election():
    jobs, lam = dense_example(), 0.6
    policy = RandomLevels(lam, False, "interval", 0)  # the utilisation mode does not apply to a rigid pool
    run = run_site(jobs, policy, jobs.load_pool, jobs.pre_training, len(jobs), "EST")
    delivered = np.array([policy.delivered[n][0] for n in range(len(policy.log))])
    np.testing.assert_allclose(delivered, reference(jobs, run, policy.log, lam, None, False), rtol=1e-12)


class KeepPool(Policy):
    """FCFS, the pool kept (the allowed level nearest to it) except at decision `vary`, which takes
    `pick(levels)`; λ = 0, so a reward is U alone. Logs the pool-only decisions offered several
    levels while jobs run, and the level taken at `vary`."""

    def __init__(self, vary=-1, pick=None):
        self.vary, self.pick, self.made = vary, pick, 0
        self.pool_choices, self.varied = [], None
        self.delivered = {}
        self.rewards = Rewards(0.0, True, "interval", self.delivered.__setitem__)

    def level(self, site, levels):
        n, self.made = self.made, self.made + 1
        if n == self.vary:
            self.varied = int(self.pick(levels))
            return self.varied
        return int(levels[np.argmin(np.abs(levels - site.pool))])

    def choose(self, site, levels):
        return site.queue[0], self.level(site, levels)

    def choose_pool(self, site, levels):
        if len(levels) > 1 and site.running:
            self.pool_choices.append(self.made)
        return self.level(site, levels)


def test_the_chosen_level_changes_its_own_interval_reward():
    """Two runs that differ only in the level of one pool-only decision: no job waits, so the work
    of its interval is the same and its U is in the inverse ratio of the pools."""
    jobs = busy_set()
    levels = pool_levels(jobs.load_pool)
    online = (jobs.pre_training, len(jobs))
    probe = KeepPool()
    run_site(jobs, probe, jobs.load_pool, *online, "EST", levels)
    vary = probe.pool_choices[0]
    small, large = KeepPool(vary, np.min), KeepPool(vary, np.max)
    for policy in (small, large):
        run_site(jobs, policy, jobs.load_pool, *online, "EST", levels)
    assert small.varied < large.varied
    assert 0 < large.delivered[vary] < small.delivered[vary]
    assert small.delivered[vary] / large.delivered[vary] == pytest.approx(large.varied / small.varied, rel=1e-12)


def test_an_unknown_utilisation_is_an_error():
    with pytest.raises(ValueError, match="utilisation 'mean'.*interval, cumulative"):
        Rewards(0.5, True, "mean", print)
