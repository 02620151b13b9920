"""The workloads table: machine size, jobs kept and jobs dropped per filter rule."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.swf import FILTER_RULES
from simcore.reporting.tables import markdown_table


def workloads_table(provenances: dict) -> pd.DataFrame:
    """One row per trace: machine size, jobs kept and jobs dropped per filter rule."""
    rows = []
    for trace, provenance in provenances.items():
        counts = provenance.get("filter_counts") or {}
        rows.append(
            {
                "trace": trace,
                "source": provenance.get("input"),
                "machine_size": provenance["machine_size"],
                "filter": provenance.get("filter") or "none (generated)",
                "jobs": provenance["jobs"],
                **{rule: counts.get(rule, 0) for rule in FILTER_RULES + ("truncated",)},
                "job_lines": counts.get("lines", provenance["jobs"]),
            }
        )
    return pd.DataFrame(rows)


def workloads_markdown(table: pd.DataFrame) -> str:
    columns = ["trace", "machine_size", "filter", "job_lines", *FILTER_RULES, "truncated", "jobs"]
    rows = [
        [f"{row[c]:,}" if isinstance(row[c], (int, np.integer)) else str(row[c]) for c in columns]
        for _, row in table.iterrows()
    ]
    lines = [
        "# Workloads",
        "",
        "Jobs dropped by each filter rule of SEMANTICS §1 (a job counts under the first "
        "rule that drops it), and jobs kept.",
        "",
        markdown_table(pd.DataFrame(rows, columns=columns), "lrl" + "r" * (len(columns) - 3)),
    ]
    return "\n".join(lines) + "\n"
