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
from simcore.simulation import BANDIT_ORDERS, simulate

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


WEEK_KEYS = ["trace", "variant", "threshold", "backfill", "week"]


def _against(weekly: pd.DataFrame, baseline: pd.DataFrame, name: str = "FCFS") -> pd.DataFrame:
    """Join every configuration's weekly W with the baseline's (same variant,
    threshold, backfill) as column cumulative_wait_fcfs."""
    joined = weekly.merge(baseline[WEEK_KEYS + ["cumulative_wait"]], on=WEEK_KEYS, suffixes=("", "_fcfs"),
                          how="left")
    if joined["cumulative_wait_fcfs"].isna().any():
        raise ValueError(f"no {name} run to compare with for some variant/threshold/backfill")
    return joined


def _against_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    return _against(weekly, weekly[weekly["order"] == "FCFS"])


def change_vs_fcfs(weekly: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, variant, configuration): the bandit paper's change statistic."""
    joined = _against_fcfs(weekly)
    joined["difference"] = joined["cumulative_wait"] - joined["cumulative_wait_fcfs"]
    grouped = joined.groupby(["trace", "variant"] + CONFIG_COLUMNS, dropna=False, observed=True)
    sums = grouped[["difference", "cumulative_wait_fcfs"]].sum()
    sums["change"] = _ratio(sums["difference"], sums["cumulative_wait_fcfs"])
    return sums[["change"]].reset_index()


def weekly_change_curves(weekly: pd.DataFrame, baseline: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (trace, configuration, week): mean and 10/90th percentiles over
    variants of (W(T_k, P) − W(T_k, B)) / W(T_k, B), B = FCFS or `baseline`."""
    joined = _against_fcfs(weekly) if baseline is None else _against(weekly, baseline, "baseline")
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


STRATEGY_KEYS = ("learner", "period", "threshold", "backfill", "decay", "feedback_jobs", "noise", "credit",
                 "epsilon", "gamma", "window", "candidates")
PERIODS = {"day": 86400.0, "week": 604800.0}


def learner_variant(workload, strategies: dict, base: dict, weeks: int, seed: int):
    """Every strategy {name: options} on one workload, plus the fixed candidate
    orders under each (threshold, backfill) a strategy uses (the FCFS baseline
    and the best order in hindsight). Returns (runs, weekly, choices) frames."""
    from simcore.learners import run_learner
    runs, weekly, choices = [], [], []

    def record(name, threshold, backfill, result):
        wait = result.start - workload.submit
        summary = result.summary()
        summary.pop("kernel_seconds")
        config = {"order": name, "threshold": np.nan if threshold is None else float(threshold),
                  "backfill": backfill}
        runs.append({**config, **summary, "total_wait": float(wait.sum())})
        weekly.append(pd.DataFrame({**config, "week": np.arange(1, weeks + 1),
                                    "cumulative_wait": cumulative_wait_by_week(workload.submit, wait, weeks)}))

    settings = {name: {**base, **options} for name, options in strategies.items()}
    for threshold, backfill in sorted({(s.get("threshold"), s.get("backfill", "queue")) for s in settings.values()},
                                      key=repr):
        for order in dict.fromkeys(["FCFS", *(base.get("candidates") or BANDIT_ORDERS)]):
            record(order, threshold, backfill, simulate(workload, order=order, threshold=threshold,
                                                        backfill=backfill))
    for name, options in settings.items():
        unknown = set(options) - set(STRATEGY_KEYS)
        if unknown:
            raise ValueError(f"strategy {name!r}: unknown keys {sorted(unknown)}")
        options = dict(options)
        period = PERIODS.get(options.get("period", "week"), options.get("period"))
        options.pop("period", None)
        learner = options.pop("learner")
        run = run_learner(workload, learner, period=float(period), seed=seed, **options)
        record(name, options.get("threshold"), options.get("backfill", "queue"), run.result)
        choices.append(run.periods.assign(strategy=name))     # period, order, feedback, cost_<ORDER>
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True), pd.concat(choices, ignore_index=True)


def regret_table(runs: pd.DataFrame, strategies) -> pd.DataFrame:
    """Per (trace, variant, strategy): total wait minus that of the best fixed
    order in hindsight (same variant, threshold and backfill), absolute and
    relative to the best."""
    fixed = runs[~runs["order"].isin(strategies)]
    best = (fixed.groupby(["trace", "variant", "threshold", "backfill"], dropna=False)["total_wait"].min()
            .rename("best_fixed_wait").reset_index())
    learned = runs[runs["order"].isin(strategies)].merge(best, on=["trace", "variant", "threshold", "backfill"],
                                                         how="left")
    best_order = fixed.loc[fixed.groupby(["trace", "variant", "threshold", "backfill"], dropna=False)
                           ["total_wait"].idxmin(), ["trace", "variant", "threshold", "backfill", "order"]]
    learned = learned.merge(best_order.rename(columns={"order": "best_fixed_order"}),
                            on=["trace", "variant", "threshold", "backfill"], how="left")
    learned["regret"] = learned["total_wait"] - learned["best_fixed_wait"]
    learned["relative_regret"] = _ratio(learned["regret"], learned["best_fixed_wait"])
    return learned.rename(columns={"order": "strategy"})[
        ["trace", "variant", "strategy", "threshold", "backfill", "total_wait", "best_fixed_order",
         "best_fixed_wait", "regret", "relative_regret"]]


def regret_curves(weekly: pd.DataFrame, regret: pd.DataFrame) -> pd.DataFrame:
    """Weekly (W(T_k, strategy) − W(T_k, best fixed order)) / W(T_k, best fixed
    order), mean and 10/90th percentiles over variants."""
    best = regret[["trace", "variant", "threshold", "backfill", "best_fixed_order"]].drop_duplicates()
    baseline = weekly.merge(best, left_on=["trace", "variant", "threshold", "backfill", "order"],
                            right_on=["trace", "variant", "threshold", "backfill", "best_fixed_order"])
    learned = weekly[weekly["order"].isin(set(regret["strategy"]))]
    return weekly_change_curves(learned, baseline)


def choice_shares(choices: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, strategy, period start): the share of variants that chose each order."""
    counts = choices.groupby(["trace", "strategy", "start", "order"]).size().rename("count").reset_index()
    totals = counts.groupby(["trace", "strategy", "start"])["count"].transform("sum")
    return counts.assign(share=counts["count"] / totals)
