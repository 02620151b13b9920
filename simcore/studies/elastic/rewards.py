"""The reward of each decision of a site run (docs/elastic.md §5.2), one bookkeeping for the SARSA
learner and the Gymnasium environments, delivered through `deliver(decision, reward)` as soon as
both of its parts are known.

- Rigid: `λ W_j + (1 − λ) F_j`, F_j at the job's election; known when j completes.
- Elastic: `λ W_j + (1 − λ) U_n`, known at T', the next instant with a decision (or the run's
  end). With ``utilisation="interval"`` (the default, our per-interval modification of the paper's
  Eq. 3), U_n is the work done in `[T_n, T')` over the pool's area there, so the level a decision
  picks is what its own U measures. With ``"cumulative"`` (the paper's Eq. 3 as printed), U_n is
  the run time of the jobs completed by T_n over the pool's area from the run's start to T': one
  decision's level weighs on it only through its interval's share of the whole area (docs/elastic.md
  §8.5 has the measured effect of each). A pool-only decision has W = 1 (no job is waiting).
"""

from __future__ import annotations

from collections.abc import Callable

UTILISATIONS = ("interval", "cumulative")


def response(run: float, wait: float) -> float:
    """W_j = p / (p + wait), 1 when both are 0."""
    total = run + wait
    return run / total if total > 0 else 1.0


class Rewards:
    """Told of a site run's decisions, completions and end (`site.site_decisions` calls it); passes
    each decision's reward to `deliver` once its responsiveness and its other part are known."""

    def __init__(self, lam: float, elastic: bool, utilisation: str, deliver: Callable[[int, float], None]):
        if utilisation not in UTILISATIONS:
            raise ValueError(f"utilisation {utilisation!r}: choose one of {', '.join(UTILISATIONS)}")
        self.lam = lam
        self.elastic = elastic
        self.interval = utilisation == "interval"
        self.deliver = deliver
        self.decision_of_job: dict[int, int] = {}
        self.responsiveness: dict[int, float] = {}  # decision -> W, once known
        self.other: dict[int, float] = {}  # decision -> F or U, once known
        self.open: list[int] = []  # the decisions of the last decision instant: their interval is open
        self.opened_at = (0.0, 0.0, 0.0, 0.0)  # that instant, the site's busy and pool areas and completed work then

    def decided(self, site, decision: int, job: int) -> None:
        """Decision `decision` started `job` (-1: a pool-only decision) at site.t, the pool set."""
        if job >= 0:
            self.decision_of_job[job] = decision
        else:
            self.responsiveness[decision] = 1.0  # no job is waiting
        if not self.elastic:
            self.other[decision] = float(site.result.fairness[job])
        else:
            if self.open and site.t > self.opened_at[0]:
                self._close(site)  # the previous decision instant's interval ends at this one
            if not self.open:
                self.opened_at = (site.t, site.busy_area, site.pool_area, site.completed_work)
            self.open.append(decision)
        self._try(decision)

    def completed(self, site, j: int) -> None:
        decision = self.decision_of_job.pop(j)
        wait = float(site.result.start[j] - site.jobs.submit[j])
        self.responsiveness[decision] = response(float(site.jobs.run[j]), wait)
        self._try(decision)

    def finished(self, site) -> None:
        """The run ended at site.t: the last instant's interval closes (U = 1 if it has no length)."""
        if self.open:
            self._close(site)

    def _close(self, site) -> None:
        _, busy, area, completed = self.opened_at
        if self.interval:
            area = site.pool_area - area
            utilisation = (site.busy_area - busy) / area if area > 0 else 1.0
        else:
            utilisation = completed / site.pool_area if site.pool_area > 0 else 1.0
        for decision in self.open:
            self.other[decision] = utilisation
            self._try(decision)
        self.open = []

    def _try(self, decision: int) -> None:
        if decision in self.responsiveness and decision in self.other:
            w, other = self.responsiveness.pop(decision), self.other.pop(decision)
            self.deliver(decision, self.lam * w + (1 - self.lam) * other)
