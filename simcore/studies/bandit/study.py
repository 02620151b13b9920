"""Online policy selection on resampled variants: each learner strategy run
period by period, beside the fixed candidate orders it chooses from; regret
against the best fixed order in hindsight and the orders chosen per period."""

from __future__ import annotations

import pandas as pd

from simcore.engine.simulation import BANDIT_ORDERS, simulate
from simcore.reporting.cumulative_wait import configuration, ratio, run_record, weekly_change_curves
from simcore.studies.bandit.learners import run_learner

STRATEGY_KEYS = (
    "learner",
    "period",
    "threshold",
    "backfill",
    "decay",
    "feedback_jobs",
    "noise",
    "credit",
    "epsilon",
    "gamma",
    "window",
    "candidates",
    "reservations",
    "multifactor",
)
PERIODS = {"day": 86400.0, "week": 604800.0}


def learner_variant(workload, strategies: dict, base: dict, weeks: int, seed: int):
    """Every strategy {name: options} on one workload, plus the fixed candidate
    orders under each (threshold, backfill) a strategy uses (the FCFS baseline
    and the best order in hindsight). Returns (runs, weekly, choices) frames."""
    runs, weekly, choices = [], [], []

    def record(name, threshold, backfill, result):
        run, weeks_frame = run_record(workload, result, configuration(name, threshold, backfill), weeks)
        runs.append(run)
        weekly.append(weeks_frame)

    settings = {name: {**base, **options} for name, options in strategies.items()}
    for threshold, backfill in sorted(
        {(s.get("threshold"), s.get("backfill", "queue")) for s in settings.values()}, key=repr
    ):
        for order in dict.fromkeys(["FCFS", *(base.get("candidates") or BANDIT_ORDERS)]):
            result = simulate(
                workload,
                order=order,
                threshold=threshold,
                backfill=backfill,
                reservations=base.get("reservations", 1),
                multifactor=base.get("multifactor"),
            )
            record(order, threshold, backfill, result)
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
        choices.append(run.periods.assign(strategy=name))  # period, order, feedback, cost_<ORDER>
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True), pd.concat(choices, ignore_index=True)


def regret_table(runs: pd.DataFrame, strategies) -> pd.DataFrame:
    """Per (trace, variant, strategy): total wait minus that of the best fixed
    order in hindsight (same variant, threshold and backfill), absolute and
    relative to the best."""
    fixed = runs[~runs["order"].isin(strategies)]
    best = (
        fixed.groupby(["trace", "variant", "threshold", "backfill"], dropna=False)["total_wait"]
        .min()
        .rename("best_fixed_wait")
        .reset_index()
    )
    learned = runs[runs["order"].isin(strategies)].merge(
        best, on=["trace", "variant", "threshold", "backfill"], how="left"
    )
    best_order = fixed.loc[
        fixed.groupby(["trace", "variant", "threshold", "backfill"], dropna=False)["total_wait"].idxmin(),
        ["trace", "variant", "threshold", "backfill", "order"],
    ]
    learned = learned.merge(
        best_order.rename(columns={"order": "best_fixed_order"}),
        on=["trace", "variant", "threshold", "backfill"],
        how="left",
    )
    learned["regret"] = learned["total_wait"] - learned["best_fixed_wait"]
    learned["relative_regret"] = ratio(learned["regret"], learned["best_fixed_wait"])
    return learned.rename(columns={"order": "strategy"})[
        [
            "trace",
            "variant",
            "strategy",
            "threshold",
            "backfill",
            "total_wait",
            "best_fixed_order",
            "best_fixed_wait",
            "regret",
            "relative_regret",
        ]
    ]


def regret_curves(weekly: pd.DataFrame, regret: pd.DataFrame) -> pd.DataFrame:
    """Weekly (W(T_k, strategy) − W(T_k, best fixed order)) / W(T_k, best fixed
    order), mean and 10/90th percentiles over variants."""
    best = regret[["trace", "variant", "threshold", "backfill", "best_fixed_order"]].drop_duplicates()
    baseline = weekly.merge(
        best,
        left_on=["trace", "variant", "threshold", "backfill", "order"],
        right_on=["trace", "variant", "threshold", "backfill", "best_fixed_order"],
    )
    learned = weekly[weekly["order"].isin(set(regret["strategy"]))]
    return weekly_change_curves(learned, baseline)


def choice_shares(choices: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, strategy, period start): the share of variants that chose each order."""
    counts = choices.groupby(["trace", "strategy", "start", "order"]).size().rename("count").reset_index()
    totals = counts.groupby(["trace", "strategy", "start"])["count"].transform("sum")
    return counts.assign(share=counts["count"] / totals)
