"""Metrics of a run of the elastic study (docs/elastic.md §10), over the online jobs minus the
first and last 500 (by (r, id)), and the NAT baseline's schedule (the log's recorded waits)."""

from __future__ import annotations

import numpy as np

from simcore.studies.elastic.jobsets import JobSet

EXCLUDED = 500  # jobs left out at each end of the online set
QUICK_START = 120.0  # an interactive job's wait counted as "within 2 minutes"
SAME_POOL = ("FCFS", "EDF")  # the fixed-pool baselines of each elastic run's own mean pool
SAME_POOL_MARK = " on the pool of "  # their names: "EDF on the pool of ELA-EST-0.5"


def same_pool_name(policy: str, run: str) -> str:
    return f"{policy}{SAME_POOL_MARK}{run}"


def measured(jobs: JobSet) -> np.ndarray:
    """Positions of the online jobs that the metrics count."""
    online = np.arange(jobs.pre_training, len(jobs))
    if len(online) <= 2 * EXCLUDED:
        raise ValueError(f"{jobs.name}: {len(online)} online jobs, not more than the {2 * EXCLUDED} left out")
    return online[EXCLUDED:-EXCLUDED]


def nat_start(jobs: JobSet) -> np.ndarray:
    """The recorded schedule: start = r + f3 (NaN where the log does not record the wait)."""
    return jobs.submit + jobs.recorded_wait


def responsiveness(run: np.ndarray, wait: np.ndarray) -> np.ndarray:
    """W = p / (p + wait), 1 where both are 0."""
    total = run + wait
    return np.divide(run, total, out=np.ones_like(total), where=total > 0)


def time_average_pool(times, sizes, end: float) -> float:
    """The pool averaged over [first change record, end]."""
    times = np.append(np.asarray(times, dtype=float), end)
    durations = np.diff(times)
    return (
        float(np.sum(np.asarray(sizes, dtype=float) * durations) / durations.sum())
        if durations.sum() > 0
        else float(sizes[0])
    )


def preferred_pool(times, sizes, end: float) -> float:
    """The pool held the longest over [first change record, end] (the paper's "preferred" pool)."""
    durations = np.diff(np.append(np.asarray(times, dtype=float), end))
    levels, index = np.unique(np.asarray(sizes, dtype=float), return_inverse=True)
    return float(levels[np.argmax(np.bincount(index, weights=durations))])


def run_metrics(jobs: JobSet, start: np.ndarray, fairness: np.ndarray | None = None) -> dict:
    """W per type (mean, std, P(W > 0.9), P(W > 0.98)), interactive delays and fairness."""
    counted = measured(jobs)
    wait = start[counted] - jobs.submit[counted]
    w = responsiveness(jobs.run[counted], wait)
    interactive = jobs.interactive[counted]
    metrics = {"jobs": len(counted)}
    for name, mask in (("interactive", interactive), ("batch", ~interactive)):
        values = w[mask]
        metrics.update(
            {
                f"W_{name}_mean": float(values.mean()) if len(values) else np.nan,
                f"W_{name}_std": float(values.std()) if len(values) else np.nan,
                f"W_{name}_above_0.9": float(np.mean(values > 0.9)) if len(values) else np.nan,
                f"W_{name}_above_0.98": float(np.mean(values > 0.98)) if len(values) else np.nan,
            }
        )
    delays = wait[interactive]
    metrics.update(
        {
            "delay_interactive_mean": float(delays.mean()) if len(delays) else np.nan,
            "delay_interactive_std": float(delays.std()) if len(delays) else np.nan,
            "interactive_within_2_min": float(np.mean(delays < QUICK_START)) if len(delays) else np.nan,
            "fairness_mean": float(np.nanmean(fairness[counted])) if fairness is not None else np.nan,
        }
    )
    return metrics


def fairness_at_starts(jobs: JobSet, start: np.ndarray, first: int, last: int) -> np.ndarray:
    """F of each job of [first, last) at its start, from that schedule alone (NAT's own fairness):
    a VO's delivered core-seconds are Σ clip(t − s_k, 0, p_k) over the run's jobs, with p_j added
    for the job elected (as the site does at an election)."""
    positions = np.arange(first, last)
    starts, work, vo = start[positions], jobs.run[positions], jobs.vo[positions]
    fairness = np.full(len(jobs), np.nan)
    top = np.max(jobs.shares)
    for j, t in zip(positions, starts):
        delivered = np.bincount(vo, weights=np.clip(t - starts, 0.0, work), minlength=len(jobs.shares))
        delivered[jobs.vo[j]] += jobs.run[j]
        total = delivered.sum()
        shares = delivered / total if total > 0 else jobs.shares
        fairness[j] = 1.0 - np.max(np.maximum(jobs.shares - shares, 0.0)) / top
    return fairness
