"""The fixed-policy study's comparison with the bandit paper's Table 2 never vanishes in silence."""

import numpy as np
import pandas as pd
import pytest

from simcore.reporting.published import BANDIT_TABLE2_LABELS, bandit_order
from simcore.studies.fixed_policy.report import reproduction_section, table2_rows


def fixed_policy_table(trace: str, threshold, backfill: str) -> pd.DataFrame:
    """A tables/fixed_policy.csv with every order of Table 2 at one setting."""
    orders = sorted({bandit_order(label) for label in BANDIT_TABLE2_LABELS})
    return pd.DataFrame(
        {
            "trace": trace,
            "threshold": threshold,
            "backfill": backfill,
            "order": orders,
            "variants": 10,
            "mean": np.linspace(-0.3, 0.2, len(orders)),
            "p10": -0.5,
            "p90": 0.5,
        }
    )


def test_the_setting_compared_gives_one_row_per_published_column():
    table = fixed_policy_table("KTH-SP2", 144000.0, "queue")
    rows = table2_rows(table, 144000, "queue")
    assert len(rows) == len(BANDIT_TABLE2_LABELS) and set(rows["row"]) == {"KTH-SP2"}
    assert rows["ours"].notna().all()
    assert "Table 2" in reproduction_section(rows, 144000, "queue")


def test_runs_without_the_compared_setting_are_an_error_naming_what_ran():
    table = fixed_policy_table("KTH-SP2", np.nan, "queue")
    with pytest.raises(ValueError, match=r"KTH-SP2 .* none with threshold 144000 s .*\[\('none', 'queue'\)\]"):
        table2_rows(table, 144000, "queue")


def test_traces_without_published_numbers_give_no_rows():
    rows = table2_rows(fixed_policy_table("lublin-256", 144000.0, "queue"), 144000, "queue")
    assert rows.empty
    assert "No trace of the bandit-paper studies has published numbers" in reproduction_section(rows, 144000, "queue")
