"""The reproduction report: every study's published numbers next to ours.

Each study writes its own section (Markdown) and its rows (paper, table, row,
column, published, ours, difference); `assemble` puts them together under one
title, in the order the workflow gives.
"""

from __future__ import annotations

import pandas as pd

REPRODUCTION_COLUMNS = ["paper", "table", "row", "column", "published", "ours", "difference"]
TITLE = "# Reproduction report"


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
