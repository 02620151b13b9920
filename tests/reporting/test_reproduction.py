"""The reproduction report's rows say what our values rest on."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, assemble, counted, reproduction_row


def row(**changes):
    arguments = {
        "paper": "p",
        "table": "Table 1",
        "row": "KTH-SP2",
        "column": "FCFS",
        "published": 10,
        "ours": 12.5,
        "trace": "KTH-SP2",
        "sample_size": 100,
        "sample": "resampled variants",
    } | changes
    return reproduction_row(*(arguments.pop(k) for k in REPRODUCTION_COLUMNS[:5]), arguments.pop("ours"), **arguments)


def test_a_row_names_what_ours_rests_on():
    built = row()
    assert list(built) == REPRODUCTION_COLUMNS
    assert built["difference"] == 2.5 and built["note"] == ""
    assert (built["trace"], built["sample_size"], built["sample"]) == ("KTH-SP2", 100, "resampled variants")


@pytest.mark.parametrize("changes", [{"ours": np.nan}, {"ours": None}, {"sample_size": np.nan}])
def test_a_row_without_ours_or_sample_size_must_say_why(changes):
    with pytest.raises(ValueError, match="needs a note"):
        row(**changes)
    assert row(**changes, note="not run")["note"] == "not run"


def test_assemble_says_per_table_what_ours_rest_on():
    rows = pd.DataFrame(
        [
            row(),
            row(row="SDSC-SP2", trace="SDSC-SP2", sample_size=50),
            row(table="Table 8", ours=np.nan, note="log unnamed", sample_size=1, sample="whole trace"),
        ]
    )
    text, assembled = assemble(["## A study\n", ""], [rows, rows.iloc[:0]])
    assert list(assembled.columns) == REPRODUCTION_COLUMNS and len(assembled) == 3
    assert "- Table 1 — ours rest on: KTH-SP2 (100 resampled variants); SDSC-SP2 (50 resampled variants)." in text
    assert "- Table 8 — ours rest on: KTH-SP2 (1 whole trace). 1 of 1 published values have no value of ours" in text
    with pytest.raises(ValueError, match="2 report sections but 1 tables of rows"):
        assemble(["a", "b"], [rows])


@pytest.mark.parametrize(
    "size, sample, expected",
    [
        (100, "resampled variants", "100 resampled variants"),
        (1, "resampled variants", "1 resampled variant"),
        (1, "trace pairs", "1 trace pair"),
        (1, "sequences of 15 days", "1 sequence of 15 days"),
        (1, "runs (seeds x job sets)", "1 run (seeds x job sets)"),
        (2.5, "sequences of 15 days", "2.5 sequences of 15 days"),
    ],
)
def test_a_sample_of_one_is_named_in_the_singular(size, sample, expected):
    assert counted(size, sample) == expected


def test_every_study_builds_its_rows_with_reproduction_row():
    """A row built by hand could leave out what ours rests on: no module but
    reproduction.py spells the row's "difference" itself."""
    package = Path(simcore.__file__).parent
    by_hand = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "reproduction.py" and re.search(r"[\"']difference[\"']\s*:", path.read_text())
    ]
    assert by_hand == []
