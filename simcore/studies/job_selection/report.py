"""The job-selection baselines' section of the reproduction report: our EASY runs of each order on
RLScheduler-style episodes beside RLScheduler's published table, with why they differ."""

from __future__ import annotations

import pandas as pd

from simcore.reporting.published import RLSCHEDULER_COLUMNS, RLSCHEDULER_TABLES
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS
from simcore.studies.job_selection.study import MODES

PAPER = "rlscheduler-2020"
OUR_ORDER = {"FCFS": "FCFS", "WFP3": "WFP3", "UNICEF": "UNICEF", "SJF": "SPF", "F1": "F1"}  # its column -> ours
METRICS = {"README, bounded slowdown": "avg_bsld", "README, utilisation": "utilisation"}
DIFFERENCES = (
    "Why the numbers differ from RLScheduler's: its sequences are other draws (its own generator, "
    "starts from position 256) of its own parse of the trace (a -1 request becomes the run time, "
    "negative run times become 10 s, jobs take whole nodes); its backfilling computes the head's "
    "reservation once, from requested times, scans candidates in submission order, needs them to end "
    "before the reservation and has no extra-processors rule, where ours is EASY (semantics.md §4: "
    "the shadow time and extra processors recomputed at every pass); its utilisation divides by "
    "another span. Compare the orderings of the policies, not the values."
)


def reproduction_rows(summary: pd.DataFrame) -> pd.DataFrame:
    """Our mean over the sequences next to each published cell of a trace we ran."""
    rows = []
    for (table, row), published in RLSCHEDULER_TABLES.items():
        trace, mode = row.split(", ")
        backfill = next(key for key, label in MODES.items() if label == mode)
        ours = summary[(summary["trace"] == trace) & (summary["backfill"] == backfill)].set_index("order")
        for column in RLSCHEDULER_COLUMNS:
            order = OUR_ORDER.get(column)
            if order is None or order not in ours.index:
                continue
            value = float(ours.loc[order, METRICS[table]])
            rows.append(
                {
                    "paper": PAPER,
                    "table": table,
                    "row": row,
                    "column": column,
                    "published": published[column],
                    "ours": value,
                    "difference": value - published[column],
                }
            )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def baselines_markdown(summary: pd.DataFrame) -> str:
    lines = [
        "## Job selection: the field's baselines on RLScheduler-style episodes",
        "",
        "Each order run by the core (EASY, or no backfilling) on the episodes JobSelection-v0 draws: "
        "sequences of consecutive jobs, the mean over the sequences of the average bounded slowdown "
        "(τ = 10 s) and of the utilisation; RLScheduler's README values in parentheses where it has the "
        "trace and the policy (its SJF is our SPF; its F1 is the thesis's F1).",
        "",
        DIFFERENCES,
    ]
    for (trace, backfill), block in summary.groupby(["trace", "backfill"], sort=False):
        published = RLSCHEDULER_TABLES.get(("README, bounded slowdown", f"{trace}, {MODES[backfill]}"), {})
        paper_column = {ours: column for column, ours in OUR_ORDER.items()}
        lines += [
            "",
            f"### {trace}, {MODES[backfill]} ({int(block['sequences'].iloc[0])} sequences)",
            "",
            "| order | AVEbsld | utilisation |",
            "|---|--:|--:|",
        ]
        for row in block.itertuples(index=False):
            paper = published.get(paper_column.get(row.order))
            cell = f"{row.avg_bsld:.2f}" + (f" ({paper:.2f})" if paper is not None else "")
            lines.append(f"| {row.order} | {cell} | {row.utilisation:.3f} |")
    return "\n".join(lines + [""])
