"""The reproduction report: every study's published numbers next to ours.

Each study writes its own section (Markdown) and its rows (paper, table, row,
column, published, ours, difference, and what our value rests on: the trace or
model, the sample's size and kind, and a note); `assemble` puts them together
under one title, in the order the workflow gives.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

REPRODUCTION_COLUMNS = [
    "paper",
    "table",
    "row",
    "column",
    "published",
    "ours",
    "difference",
    "trace",
    "sample_size",
    "sample",
    "note",
]
TITLE = "# Reproduction report"


def reproduction_row(
    paper: str,
    table: str,
    row: str,
    column: str,
    published,
    ours,
    *,
    trace: str,
    sample_size,
    sample: str,
    note: str = "",
) -> dict:
    """One row of the report: a published value, ours, and what ours rests on
    (`trace`: the trace or model it comes from; `sample_size` `sample`: e.g.
    50 "sequences of 15 days", 100 "resampled variants"). A row without `ours`
    or without a sample size must say why in `note`, or it would read as a
    comparison that silently failed."""
    ours = float(ours) if ours is not None else np.nan
    sample_size = float(sample_size) if sample_size is not None else np.nan
    if (np.isnan(ours) or np.isnan(sample_size)) and not note:
        raise ValueError(f"{paper} {table} {row!r} {column!r}: a row without ours or a sample size needs a note")
    return {
        "paper": paper,
        "table": table,
        "row": row,
        "column": column,
        "published": float(published),
        "ours": ours,
        "difference": ours - float(published),
        "trace": trace,
        "sample_size": sample_size,
        "sample": sample,
        "note": note,
    }


def rests_on(rows: pd.DataFrame) -> str:
    """One line saying what a table's values rest on, e.g. "Ours rest on: KTH-SP2
    (100 resampled variants); SDSC-SP2 (100 resampled variants)."; empty without rows."""
    if rows.empty:
        return ""
    bases = dict.fromkeys(
        f"{trace} ({sample_size:g} {sample})" if pd.notna(sample_size) else f"{trace} ({sample})"
        for trace, sample_size, sample in zip(rows["trace"], rows["sample_size"], rows["sample"])
    )
    return "Ours rest on: " + "; ".join(bases) + "."


def threshold_label(value) -> str:
    return "none" if pd.isna(value) else f"{value:g} s"


def comparison_table(rows: pd.DataFrame) -> list[str]:
    columns = list(dict.fromkeys(rows["column"]))
    lines = ["| trace | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for trace, block in rows.groupby("row", sort=False):
        cells = block.set_index("column")
        lines.append(
            f"| {trace} | "
            + " | ".join(
                f"{cells.at[c, 'published']:+.0f} / {cells.at[c, 'ours']:+.1f} ({cells.at[c, 'difference']:+.1f})"
                if c in cells.index
                else ""
                for c in columns
            )
            + " |"
        )
    return lines + [""]


def assemble(sections: list[str], rows: list[pd.DataFrame]) -> tuple[str, pd.DataFrame]:
    """The report (title, then each non-empty section) and all rows."""
    text = "\n".join([TITLE + "\n", *(section for section in sections if section)])
    return text, pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=REPRODUCTION_COLUMNS)
