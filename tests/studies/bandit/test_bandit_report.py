"""The bandit study's comparison with the paper's Table 3, in the campaign's configuration
and in the published artifact's."""

import pandas as pd

from simcore.studies.bandit.report import reproduction_section, table3_rows


def strategies_table(trace: str, strategies: dict) -> pd.DataFrame:
    """A tables/bandit.csv: strategy name -> mean change against FCFS."""
    return pd.DataFrame(
        {
            "trace": trace,
            "order": list(strategies),
            "threshold": 144000.0,
            "backfill": "queue",
            "mean": list(strategies.values()),
            "p10": -0.5,
            "p90": 0.5,
            "variants": 10,
        }
    )


def test_default_rows_keep_artifact_variants_as_their_own_columns():
    table = strategies_table("KTH-SP2", {"Full-W": -0.10, "Full-W-artifact": -0.12})
    rows = table3_rows(table)
    assert set(rows["table"]) == {"Table 3"}
    assert rows.set_index("column")["ours"].to_dict() == {"Full week": -10.0, "Full week (artifact variant)": -12.0}


def test_artifact_configuration_rows_are_labelled_apart():
    table = strategies_table("KTH-SP2", {"Full-W": -0.11, "eps-D": -0.09})
    rows = table3_rows(table, "artifact")
    assert set(rows["table"]) == {"Table 3 (artifact configuration)"}
    assert list(rows["column"]) == ["Full week", "eps-greedy day"]  # the paper's columns, no variant suffix
    assert rows.set_index("column")["published"].to_dict() == {"Full week": -12.0, "eps-greedy day": -10.0}
    text = reproduction_section(rows, "artifact")
    assert "## Bandit policy selection (2017), Table 3 (artifact configuration)" in text
    assert "threshold 200,000 s" in text and "What remains different from the artifact" in text
    assert "## Bandit policy selection (2017), Table 3: selection" in reproduction_section(table3_rows(table))
