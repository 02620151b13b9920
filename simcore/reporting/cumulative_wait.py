"""The bandit paper's statistic: change of cumulative waiting time against a baseline.

The bandit paper's statistic ([bandit] in docs/references.md, Table 2): with W(T, P) the cumulative
waiting time of the jobs submitted before T under policy P, and T_k the end
of week k of a variant (k = 1..K, weeks counted from the variant's origin),

    change(P) = Σ_k (W(T_k, P) − W(T_k, FCFS)) / Σ_k W(T_k, FCFS),

computed per variant against EASY-FCFS with the same threshold and backfill
variant, then summarized over variants by the mean and the 10th/90th
percentiles.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.workloads.resample import WEEK

CONFIG_COLUMNS = ["order", "threshold", "backfill"]


def cumulative_wait_by_week(submit: np.ndarray, wait: np.ndarray, weeks: int) -> np.ndarray:
    """W(T_k) for T_k = k·WEEK, k = 1..weeks: total wait of jobs submitted before T_k."""
    week_of_job = np.minimum(np.floor(submit / WEEK).astype(np.int64), weeks - 1)
    per_week = np.bincount(week_of_job, weights=wait, minlength=weeks)[:weeks]
    return np.cumsum(per_week)


def run_record(workload, result, config: dict, weeks: int) -> tuple[dict, pd.DataFrame]:
    """One run as (summary row, weekly cumulative waits), both tagged with `config`."""
    wait = result.start - workload.submit
    summary = result.summary()
    summary.pop("kernel_seconds")
    summary["total_wait"] = float(wait.sum())
    weekly = pd.DataFrame(
        {
            **config,
            "week": np.arange(1, weeks + 1),
            "cumulative_wait": cumulative_wait_by_week(workload.submit, wait, weeks),
        }
    )
    return {**config, **summary}, weekly


def configuration(order: str, threshold, backfill: str) -> dict:
    """The configuration columns of a run (no threshold: NaN)."""
    return {"order": order, "threshold": np.nan if threshold is None else float(threshold), "backfill": backfill}


WEEK_KEYS = ["trace", "variant", "threshold", "backfill", "week"]


def against(weekly: pd.DataFrame, baseline: pd.DataFrame, name: str = "FCFS") -> pd.DataFrame:
    """Join every configuration's weekly W with the baseline's (same variant,
    threshold, backfill) as column cumulative_wait_fcfs."""
    joined = weekly.merge(baseline[WEEK_KEYS + ["cumulative_wait"]], on=WEEK_KEYS, suffixes=("", "_fcfs"), how="left")
    if joined["cumulative_wait_fcfs"].isna().any():
        raise ValueError(f"no {name} run to compare with for some variant/threshold/backfill")
    return joined


def against_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    return against(weekly, weekly[weekly["order"] == "FCFS"])


def change_vs_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, variant, configuration): the bandit paper's change statistic."""
    joined = against_fcfs(weekly)
    joined["difference"] = joined["cumulative_wait"] - joined["cumulative_wait_fcfs"]
    grouped = joined.groupby(["trace", "variant"] + CONFIG_COLUMNS, dropna=False, observed=True)
    sums = grouped[["difference", "cumulative_wait_fcfs"]].sum()
    sums["change"] = ratio(sums["difference"], sums["cumulative_wait_fcfs"])
    return sums[["change"]].reset_index()


def weekly_change_curves(weekly: pd.DataFrame, baseline: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (trace, configuration, week): mean and 10/90th percentiles over
    variants of (W(T_k, P) − W(T_k, B)) / W(T_k, B), B = FCFS or `baseline`."""
    joined = against_fcfs(weekly) if baseline is None else against(weekly, baseline, "baseline")
    base = joined["cumulative_wait_fcfs"]
    joined["change"] = ratio(joined["cumulative_wait"] - base, base)
    return percentiles(joined, ["trace"] + CONFIG_COLUMNS + ["week"], "change")


def ratio(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    """numerator / denominator, 0 where nothing waited under FCFS yet."""
    return numerator.div(denominator.where(denominator > 0)).fillna(0.0)


def percentiles(frame: pd.DataFrame, keys, column) -> pd.DataFrame:
    grouped = frame.groupby(keys, dropna=False, observed=True)[column]
    return pd.DataFrame(
        {
            "mean": grouped.mean(),
            "p10": grouped.quantile(0.10),
            "p90": grouped.quantile(0.90),
            "variants": grouped.size(),
        }
    ).reset_index()


def change_table(weekly: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: per trace and configuration, the change against
    FCFS (a fraction) as mean and 10th/90th percentiles over variants."""
    return percentiles(change_vs_fcfs(weekly), ["trace"] + CONFIG_COLUMNS, "change")
