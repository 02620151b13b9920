"""The reports' Markdown tables, written by pandas (`DataFrame.to_markdown`, i.e. tabulate).

One layout for every study: tabulate's pipe table without its padding. Each cell is written as
given between ``| `` and `` |``, and the rule below the header gives each column's alignment
(``---`` left, ``--:`` right, ``:-:`` centred), whatever the cells' widths: a changed value
changes its own line of the report only, not the width of a whole column.
"""

from __future__ import annotations

import pandas as pd
from tabulate import DataRow, TableFormat

RULES = {"l": "---", "r": "--:", "c": ":-:"}
PIPES = DataRow("|", "|", "|")


def markdown_table(frame: pd.DataFrame, align: str = "") -> str:
    """`frame` as a Markdown table: its column names are the header, its rows the rows (the index is
    left out), each cell as ``str()`` writes it, so format numbers before. `align`: one letter per
    column, ``l`` left, ``r`` right or ``c`` centred; the columns past its end are left-aligned.
    No newline after the last row."""
    columns = frame.shape[1]
    if len(align) > columns or set(align) - set(RULES):
        raise ValueError(f"align {align!r}: at most {columns} letters, each one of {sorted(RULES)}")
    rule = "|" + "|".join(RULES[letter] for letter in align.ljust(columns, "l")) + "|"
    layout = TableFormat(
        lineabove=None,
        linebelowheader=lambda widths, aligns: rule,
        linebetweenrows=None,
        linebelow=None,
        headerrow=PIPES,
        datarow=PIPES,
        padding=1,
        with_header_hide=None,
    )
    # no alignment and no number parsing: tabulate neither pads nor reformats a cell
    return frame.to_markdown(index=False, tablefmt=layout, disable_numparse=True, stralign=None, numalign=None)
