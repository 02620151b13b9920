"""Queue disciplines sites use, against EASY-FCFS on the fixed-policy study's variants: reservation
depth up to conservative backfilling and a multifactor priority with fair share after Slurm's
(docs/semantics.md, "Reservation depth" and "Multifactor priority": neither is Slurm's own).

A site policy is a named Policy (simcore.engine.policies), a mapping in the configuration's
`fixed_policy.site_policies`, one of them EASY-FCFS itself (order FCFS and nothing else), the
baseline of every comparison.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.policies import Policy
from simcore.engine.simulation import simulate
from simcore.reporting.tables import markdown_table

# the compared metrics: column, label, unit
METRICS = (
    ("avg_wait", "mean wait", "s"),
    ("avg_bsld", "AVEbsld", ""),
    ("p90_wait", "90th-percentile wait", "s"),
)


def run_site_policies(workload, policies: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every policy on one workload: (runs, fair shares). A run's row has its options, the three
    METRICS and its reservation and priority counts; the fair shares are each MULTIFACTOR run's
    users' factors at its last computation."""
    runs, shares = [], []
    for name, options in policies.items():
        policy = Policy.of(options, name)
        result = simulate(workload, policy=policy)
        summary = result.summary()
        wait = result.start - workload.submit
        runs.append(
            {
                "policy": name,
                **policy.columns(),
                "avg_wait": summary["avg_wait"],
                "avg_bsld": summary["avg_bsld"],
                "p90_wait": float(np.percentile(wait, 90)),
                "utilization": summary["utilization"],
                "reservations_made": result.reservations_made,
                "jobs_reserved": result.jobs_reserved,
                "priority_computations": result.priority_computations,
            }
        )
        if result.fair_share is not None:
            factors = result.fair_share_by_user()
            shares.append(pd.DataFrame({"policy": name, "user": list(factors), "fair_share": list(factors.values())}))
    empty = pd.DataFrame({"policy": pd.Series(dtype=str), "user": pd.Series(dtype=np.int64), "fair_share": []})
    return pd.DataFrame(runs), pd.concat(shares, ignore_index=True) if shares else empty


def site_change_table(runs: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Per (trace, policy): each metric's mean over variants and its relative change against the
    baseline policy on the same variant, mean and 10th/90th percentiles over variants."""
    keys = ["trace", "variant"]
    base = runs[runs["policy"] == baseline][keys + [m for m, _, _ in METRICS]]
    joined = runs.merge(base, on=keys, suffixes=("", "_base"), how="left")
    if joined[[f"{m}_base" for m, _, _ in METRICS]].isna().any().any():
        raise ValueError(f"some variant has no run of the baseline policy {baseline!r}")
    rows = []
    for (trace, policy), block in joined.groupby(["trace", "policy"], sort=False):
        row = {"trace": trace, "policy": policy, "variants": len(block)}
        for metric, _, _ in METRICS:
            values, base_values = block[metric].to_numpy(), block[f"{metric}_base"].to_numpy()
            # against a baseline of 0: no change if 0 too, else undefined (NaN, shown n/a)
            change = np.divide(
                values - base_values,
                base_values,
                out=np.where(values == 0, 0.0, np.nan),
                where=base_values != 0,
            )
            row[metric] = block[metric].mean()
            row[f"{metric}_change"] = change.mean()
            row[f"{metric}_change_p10"], row[f"{metric}_change_p90"] = np.percentile(change, [10, 90])
        row["reservations_made"] = block["reservations_made"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def site_policies_markdown(table: pd.DataFrame, policies: dict, baseline: str) -> str:
    """The report's section: one table per trace, a policy per row, each metric's mean and its
    change against EASY-FCFS (mean [p10, p90] over variants)."""
    lines = [
        "## Site policies: reservation depth and multifactor priority against EASY-FCFS",
        "",
        "Queue disciplines production sites use, on the fixed-policy study's resampled variants: EASY-FCFS "
        "(one reservation), 2 and 5 reservations, conservative backfilling (every waiting job holds one) "
        "and a multifactor priority after Slurm's; none of them is Slurm's own backfill cycle or its exact "
        'priority formula (docs/semantics.md, "Reservation depth" and "Multifactor priority"). Each cell: '
        "the mean over variants, then the change against EASY-FCFS on the same variant in %, "
        "mean [10th, 90th percentile] over variants. No paper publishes these numbers: "
        "nothing to compare with, they are ours.",
        "",
        "Policies: "
        + "; ".join(f"**{name}** {Policy.of(options).describe()}" for name, options in policies.items())
        + ".",
        "",
    ]
    for trace, block in table.groupby("trace", sort=False):
        rows = []
        for _, row in block.iterrows():
            cells = [row["policy"], str(int(row["variants"]))]
            for metric, _, unit in METRICS:
                value = f"{row[metric]:,.0f} {unit}".strip() if unit else f"{row[metric]:.2f}"
                if row["policy"] == baseline:
                    cells.append(value)
                elif np.isnan(row[f"{metric}_change"]):
                    cells.append(f"{value} (n/a: EASY-FCFS's is 0)")
                else:
                    cells.append(
                        f"{value} ({100 * row[f'{metric}_change']:+.1f} % "
                        f"[{100 * row[f'{metric}_change_p10']:+.0f}, {100 * row[f'{metric}_change_p90']:+.0f}])"
                    )
            rows.append(cells)
        columns = ["policy", "variants", *(label for _, label, _ in METRICS)]
        lines += [f"### {trace}", "", markdown_table(pd.DataFrame(rows, columns=columns), "lr" + "r" * 3), ""]
    return "\n".join(lines)


def site_policies_figure(table: pd.DataFrame, baseline: str):
    """Change against EASY-FCFS per policy, one panel per metric, one marker per trace with its
    10-90th percentile range over variants."""
    from simcore.reporting.style import colours_for, plt, shared_legend

    policies = [policy for policy in dict.fromkeys(table["policy"]) if policy != baseline]
    traces = list(dict.fromkeys(table["trace"]))
    colours = colours_for(traces)
    figure, axes = plt.subplots(len(METRICS), 1, figsize=(7.0, 2.4 * len(METRICS)), sharex=True, squeeze=False)
    width = 0.7 / max(1, len(traces))
    for axis, (metric, label, _) in zip(axes[:, 0], METRICS):
        for k, trace in enumerate(traces):
            rows = table[table["trace"] == trace].set_index("policy").reindex(policies)
            x = np.arange(len(policies)) - 0.35 + width * (k + 0.5)
            mean = 100 * rows[f"{metric}_change"].to_numpy()
            low = mean - 100 * rows[f"{metric}_change_p10"].to_numpy()
            high = 100 * rows[f"{metric}_change_p90"].to_numpy() - mean
            axis.errorbar(
                x, mean, yerr=[low, high], fmt="o", markersize=4, capsize=2, color=colours[trace], label=trace
            )
        axis.axhline(0.0, color="0.4", linewidth=0.8)
        axis.set_ylabel(f"{label}\nvs EASY-FCFS (%)")
        axis.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xticks(np.arange(len(policies)), policies, rotation=20, ha="right")
    axes[-1, 0].set_xlabel("site policy")
    shared_legend(figure, axes[:, 0], "trace", traces)
    figure.suptitle("Site policies against EASY-FCFS: mean and 10-90th percentiles over variants")
    return figure
