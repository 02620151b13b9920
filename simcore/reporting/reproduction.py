"""The reproduction report: every study's published numbers next to ours.

Each study writes its own section (Markdown) and its rows (paper, table, row,
column, published, ours, difference, and what our value rests on: the trace or
model, the sample's size and kind, and a note); `assemble` puts them together
under one title, in the order the workflow gives.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.reporting.tables import markdown_table

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


def counted(size: float, sample: str) -> str:
    """ "100 resampled variants", "1 resampled variant", "1 sequence of 15 days": the
    sample's noun (the last word before " of " or " (") in the singular for one."""
    if size != 1:
        return f"{size:g} {sample}"
    cut = min((at for at in (sample.find(" of "), sample.find(" (")) if at >= 0), default=len(sample))
    return f"1 {sample[:cut].removesuffix('s')}{sample[cut:]}"


def rests_on(rows: pd.DataFrame) -> list[str]:
    """Per table of one study's rows, a line saying what ours rest on, e.g.
    "Table 2 — ours rest on: KTH-SP2 (100 resampled variants).", and how many
    of its published values have no value of ours (the note column says why)."""
    lines = []
    for table, block in rows.groupby("table", sort=False):
        bases = dict.fromkeys(
            f"{trace} ({counted(sample_size, sample)})" if pd.notna(sample_size) else f"{trace} ({sample})"
            for trace, sample_size, sample in zip(block["trace"], block["sample_size"], block["sample"])
        )
        missing = int(block["ours"].isna().sum())
        lines.append(
            f"- {table} — ours rest on: {'; '.join(bases)}."
            + (f" {missing} of {len(block)} published values have no value of ours (see `note`)." if missing else "")
        )
    return lines


def mean_and_range(mean: float, low: float, high: float, fmt: str = ".2f", scale: float = 1.0) -> str:
    """'mean [p10, p90]': how the reports give a value over seeds, variants or job sets."""
    mean, low, high = (format(scale * value, fmt) for value in (mean, low, high))
    return f"{mean} [{low}, {high}]"


def threshold_label(value) -> str:
    return "none" if pd.isna(value) else f"{value:g} s"


def comparison_table(rows: pd.DataFrame) -> list[str]:
    """Published / ours (difference) per row and column of `rows`, blank where ours has no cell."""
    columns = list(dict.fromkeys(rows["column"]))
    table = []
    for trace, block in rows.groupby("row", sort=False):
        cells = block.set_index("column")
        table.append(
            [
                trace,
                *(
                    f"{cells.at[c, 'published']:+.0f} / {cells.at[c, 'ours']:+.1f} ({cells.at[c, 'difference']:+.1f})"
                    if c in cells.index
                    else ""
                    for c in columns
                ),
            ]
        )
    return [markdown_table(pd.DataFrame(table, columns=["trace", *columns])), ""]


def assemble(sections: list[str], rows: list[pd.DataFrame]) -> tuple[str, pd.DataFrame]:
    """The report (title, then each non-empty section followed by what its
    compared values rest on) and all rows; section k's rows are rows[k]."""
    if len(sections) != len(rows):
        raise ValueError(f"{len(sections)} report sections but {len(rows)} tables of rows: one each, in order")
    parts = [TITLE + "\n"]
    for section, section_rows in zip(sections, rows):
        if section:
            parts.append(section)
        if not section_rows.empty:
            parts.append("\n".join(["**What our values rest on**", "", *rests_on(section_rows), ""]))
    text = "\n".join(parts)
    return text, pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=REPRODUCTION_COLUMNS)
