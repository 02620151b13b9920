"""The fixed-policy study's tables and its section of the reproduction report
(the bandit paper's Table 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.simulation import ORDERS
from simcore.reporting.published import BANDIT_TABLE2, BANDIT_TABLE2_LABELS, bandit_order
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, comparison_table, reproduction_row, threshold_label


def fixed_policy_markdown(table: pd.DataFrame) -> str:
    """Change of cumulative wait against FCFS (%), mean [p10, p90], one block
    per (threshold, backfill), traces as rows and orders as columns."""
    lines = [
        "# Fixed policies: change of cumulative waiting time against EASY-FCFS",
        "",
        "Mean over resampled variants, with the 10th and 90th percentiles in brackets, in %. "
        "Order names mean what they say (SEMANTICS §3).",
        "",
    ]
    groups = table.groupby(["threshold", "backfill"], dropna=False, sort=True)
    for (threshold, backfill), block in sorted(groups, key=lambda item: (not pd.isna(item[0][0]), item[0])):
        orders = [order for order in ORDERS if order != "FCFS" and order in set(block["order"])]
        lines += [
            f"## Threshold {threshold_label(threshold)}, backfill {backfill}",
            "",
            "| trace | variants | " + " | ".join(orders) + " |",
            "|---|--:|" + "--:|" * len(orders),
        ]
        for trace, rows in block.groupby("trace", sort=False):
            cells = rows.set_index("order")
            lines.append(
                f"| {trace} | {int(cells['variants'].iloc[0])} | "
                + " | ".join(
                    f"{100 * cells.at[order, 'mean']:+.1f} [{100 * cells.at[order, 'p10']:+.0f}, "
                    f"{100 * cells.at[order, 'p90']:+.0f}]"
                    for order in orders
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def table2_rows(table: pd.DataFrame, threshold, backfill: str) -> pd.DataFrame:
    """Our fixed-policy means next to the paper's Table 2, like for like:
    the paper's column "LPF" is compared with our SPF, and so on."""
    chosen = table[
        (table["backfill"] == backfill)
        & (table["threshold"].isna() if threshold is None else table["threshold"] == threshold)
    ]
    rows = []
    for trace, published in BANDIT_TABLE2.items():
        ours_by_trace = chosen[chosen["trace"] == trace].set_index("order")
        ours_by_order = ours_by_trace["mean"]
        if ours_by_order.empty:
            ran = table[table["trace"] == trace]
            if not ran.empty:
                # a table that silently vanished would read as "nothing to compare"
                settings = sorted({(threshold_label(t), b) for t, b in zip(ran["threshold"], ran["backfill"])})
                raise ValueError(
                    f"{trace} has published Table 2 numbers and fixed-policy runs, but none with "
                    f"threshold {threshold_label(threshold)} and backfill {backfill!r}; "
                    f"its runs have (threshold, backfill) in {settings}"
                )
            continue
        for label, value in zip(BANDIT_TABLE2_LABELS, published):
            order = bandit_order(label)
            ours = 100 * ours_by_order[order] if order in ours_by_order else np.nan
            rows.append(
                reproduction_row(
                    "bandit-2017",
                    "Table 2",
                    trace,
                    f"{label} (ours: {order})" if order != label else label,
                    value,
                    ours,
                    trace=trace,
                    sample_size=ours_by_trace["variants"].iloc[0],
                    sample="resampled variants",
                    note="" if order in ours_by_order else f"{order} was not run",
                )
            )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def reproduction_section(rows: pd.DataFrame, threshold, backfill: str) -> str:
    """The bandit paper's Table 2 next to ours; says so when no trace has published numbers."""
    if rows.empty:
        return (
            "No trace of the bandit-paper studies has published numbers to compare with "
            "(the demo runs model workloads); see tables/fixed_policy.md for its results.\n"
        )
    lines = [
        "## Bandit policy selection (2017), Table 2: fixed policies against EASY-FCFS",
        "",
        f"Change of cumulative waiting time against EASY-FCFS in %, mean over resampled variants; "
        f"our runs use threshold {threshold_label(threshold)} and backfill `{backfill}`.",
        "",
        "**Labels.** The paper's simulator inverted three pairs of names (REPRODUCE.md §2): its "
        '"LPF", "LQF" and "LAF" columns ran what SEMANTICS.md calls SPF, SQF and SAF, and vice '
        "versa. Each column below keeps the paper's label and is compared with the order that the "
        "paper actually ran (shown as *ours: …*).",
        "",
        "Each cell: published / ours (difference in points).",
        "",
    ]
    return "\n".join(lines + comparison_table(rows))
