"""Fixed-policy sweeps over trace variants and their aggregation.

The bandit paper's statistic (REPRODUCE.md §2): with W(T, P) the cumulative
waiting time of the jobs submitted before T under policy P, and T_k the end
of week k of a variant (k = 1..K, weeks counted from the variant's origin),

    change(P) = Σ_k (W(T_k, P) − W(T_k, FCFS)) / Σ_k W(T_k, FCFS),

computed per variant against EASY-FCFS with the same threshold and backfill
variant, then summarized over variants by the mean and the 10th/90th
percentiles.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pandas as pd

from simcore.resample import WEEK
from simcore.simulation import simulate

CONFIG_COLUMNS = ["order", "threshold", "backfill"]
SUMMARY_COLUMNS = ["jobs", "avg_wait", "max_wait", "avg_bsld", "avg_ppbsld", "avg_flow", "utilization",
                   "backfilled", "total_wait"]


def cumulative_wait_by_week(submit: np.ndarray, wait: np.ndarray, weeks: int) -> np.ndarray:
    """W(T_k) for T_k = k·WEEK, k = 1..weeks: total wait of jobs submitted before T_k."""
    week_of_job = np.minimum(np.floor(submit / WEEK).astype(np.int64), weeks - 1)
    per_week = np.bincount(week_of_job, weights=wait, minlength=weeks)[:weeks]
    return np.cumsum(per_week)


def sweep_variant(workload, orders, thresholds, backfills, weeks: int, estimate="request"):
    """Every (order, threshold, backfill) on one workload: (runs, weekly) frames."""
    runs, weekly = [], []
    for order, threshold, backfill in product(orders, thresholds, backfills):
        result = simulate(workload, order=order, threshold=threshold, backfill=backfill, estimate=estimate)
        wait = result.start - workload.submit
        summary = result.summary()
        summary.pop("kernel_seconds")
        summary["total_wait"] = float(wait.sum())
        config = {"order": order, "threshold": np.nan if threshold is None else float(threshold),
                  "backfill": backfill}
        runs.append({**config, **summary})
        weekly.append(pd.DataFrame({**config, "week": np.arange(1, weeks + 1),
                                    "cumulative_wait": cumulative_wait_by_week(workload.submit, wait, weeks)}))
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True)


def _against_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    """Join every configuration's weekly W with FCFS's (same variant, threshold, backfill)."""
    keys = ["trace", "variant", "threshold", "backfill", "week"]
    fcfs = weekly[weekly["order"] == "FCFS"][keys + ["cumulative_wait"]]
    joined = weekly.merge(fcfs, on=keys, suffixes=("", "_fcfs"), how="left")
    if joined["cumulative_wait_fcfs"].isna().any():
        raise ValueError("the sweep has no FCFS run to compare with for some variant/threshold/backfill")
    return joined


def change_vs_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, variant, configuration): the bandit paper's change statistic."""
    joined = _against_fcfs(weekly)
    joined["difference"] = joined["cumulative_wait"] - joined["cumulative_wait_fcfs"]
    grouped = joined.groupby(["trace", "variant"] + CONFIG_COLUMNS, dropna=False, observed=True)
    sums = grouped[["difference", "cumulative_wait_fcfs"]].sum()
    sums["change"] = _ratio(sums["difference"], sums["cumulative_wait_fcfs"])
    return sums[["change"]].reset_index()


def weekly_change_curves(weekly: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, configuration, week): mean and 10/90th percentiles over
    variants of (W(T_k, P) − W(T_k, FCFS)) / W(T_k, FCFS), for the plots."""
    joined = _against_fcfs(weekly)
    base = joined["cumulative_wait_fcfs"]
    joined["change"] = _ratio(joined["cumulative_wait"] - base, base)
    return _percentiles(joined, ["trace"] + CONFIG_COLUMNS + ["week"], "change")


def _ratio(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    """numerator / denominator, 0 where nothing waited under FCFS yet."""
    return numerator.div(denominator.where(denominator > 0)).fillna(0.0)


def _percentiles(frame: pd.DataFrame, keys, column) -> pd.DataFrame:
    grouped = frame.groupby(keys, dropna=False, observed=True)[column]
    return pd.DataFrame({
        "mean": grouped.mean(),
        "p10": grouped.quantile(0.10),
        "p90": grouped.quantile(0.90),
        "variants": grouped.size(),
    }).reset_index()


def fixed_policy_table(weekly: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: per trace and configuration, the change against
    FCFS (a fraction) as mean and 10th/90th percentiles over variants."""
    return _percentiles(change_vs_fcfs(weekly), ["trace"] + CONFIG_COLUMNS, "change")
