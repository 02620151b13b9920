"""Online policy selection on resampled variants: each learner strategy run
period by period, beside the fixed candidate orders it chooses from; regret
against the best fixed order in hindsight and the orders chosen per period."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.policies import BANDIT_ORDERS, KEYS, Policy
from simcore.engine.simulation import simulate
from simcore.reporting.cumulative_wait import (
    change_table,
    configuration,
    ratio,
    run_record,
    weekly_change_curves,
)
from simcore.reporting.published import BANDIT_TABLE2, BANDIT_TABLE2_LABELS, bandit_order
from simcore.studies.bandit.learners import run_learner

# A strategy's options: its learner's, and its policy's (simcore.engine.policies.KEYS but the
# order, which the learner chooses)
LEARNER_KEYS = (
    "learner",
    "period",
    "decay",
    "feedback_jobs",
    "noise",
    "credit",
    "epsilon",
    "gamma",
    "window",
    "candidates",
)
POLICY_KEYS = tuple(key for key in KEYS if key != "order")
PERIODS = {"day": 86400.0, "week": 604800.0}


def strategy_policy(options: dict, where: str) -> Policy:
    """The policy of a strategy's options (its order FCFS, the learner choosing the orders)."""
    return Policy.of({"order": "FCFS", **{key: options[key] for key in POLICY_KEYS if key in options}}, where)


def learner_variant(workload, strategies: dict, base: dict, weeks: int, seed: int):
    """Every strategy {name: options} on one workload, plus the fixed candidate
    orders under each policy (threshold, backfill, depth, ...) a strategy uses (the FCFS
    baseline and the best order in hindsight). Returns (runs, weekly, choices) frames."""
    runs, weekly, choices = [], [], []

    def record(name, policy, result):
        run, weeks_frame = run_record(workload, result, configuration(name, policy.threshold, policy.backfill), weeks)
        runs.append(run)
        weekly.append(weeks_frame)

    settings = {name: {**base, **options} for name, options in strategies.items()}
    for name, options in settings.items():
        unknown = set(options) - set(LEARNER_KEYS) - set(POLICY_KEYS)
        if unknown:
            raise ValueError(f"strategy {name!r}: unknown keys {sorted(unknown)}")
    policies = {name: strategy_policy(options, f"strategy {name}") for name, options in settings.items()}
    # each distinct policy once, in the strategies' order within one (threshold, backfill)
    for policy in sorted(
        dict.fromkeys(policies.values()), key=lambda policy: repr((policy.threshold, policy.backfill))
    ):
        for order in dict.fromkeys(["FCFS", *(base.get("candidates") or BANDIT_ORDERS)]):
            record(order, policy, simulate(workload, policy=policy.with_order(order)))
    for name, options in settings.items():
        learning = {key: value for key, value in options.items() if key in LEARNER_KEYS}
        period = learning.pop("period", "week")
        period = PERIODS.get(period, period)
        learner = learning.pop("learner")
        run = run_learner(workload, learner, period=float(period), policy=policies[name], seed=seed, **learning)
        record(name, policies[name], run.result)
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


def paper_table2(trace: str) -> dict[str, float]:
    """The bandit paper's Table 2 of `trace` by the order each column ran (SEMANTICS §3's names;
    FCFS, the baseline, 0); {} for a trace it has no row for."""
    if trace not in BANDIT_TABLE2:
        return {}
    columns = zip(BANDIT_TABLE2_LABELS, BANDIT_TABLE2[trace])
    return {"FCFS": 0.0} | {bandit_order(label): value for label, value in columns}


def choice_weighted(weekly: pd.DataFrame, choices: pd.DataFrame, strategies) -> pd.DataFrame:
    """Per (trace, strategy): what the orders a learner chose predict for it. Each order's share of
    the strategy's periods (pooled over variants) weighs that order's change of cumulative wait
    against EASY-FCFS: our fixed order on the same variants under the strategy's threshold and
    backfill (`from_ours`), and the paper's Table 2 (`from_paper`, NaN where it has no cell for a
    chosen order or no row for the trace). Changes in %, beside the learner's own (`learner`)."""
    table = change_table(weekly)
    shares = choices.groupby(["trace", "strategy"])["order"].value_counts(normalize=True).rename("share")
    rows = []
    for _, learned in table[table["order"].isin(strategies)].iterrows():
        same_threshold = (table["threshold"] == learned["threshold"]) | (
            table["threshold"].isna() & pd.isna(learned["threshold"])
        )
        same_policy = (table["trace"] == learned["trace"]) & (table["backfill"] == learned["backfill"]) & same_threshold
        ours = table[same_policy].set_index("order")["mean"]
        weights = shares.loc[(learned["trace"], learned["order"])]
        paper = paper_table2(learned["trace"])
        rows.append(
            {
                "trace": learned["trace"],
                "strategy": learned["order"],
                "threshold": learned["threshold"],
                "backfill": learned["backfill"],
                "learner": 100 * learned["mean"],
                "from_ours": 100 * float((weights * ours.reindex(weights.index)).sum(min_count=len(weights))),
                "from_paper": float(sum(weight * paper.get(order, np.nan) for order, weight in weights.items()))
                if paper
                else np.nan,
                **{f"share_{order}": 100 * float(weight) for order, weight in weights.items()},
            }
        )
    return pd.DataFrame(rows)
