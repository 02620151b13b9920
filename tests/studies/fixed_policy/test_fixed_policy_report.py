"""The fixed-policy study's comparison with the bandit paper's Table 2 never vanishes in silence."""

import numpy as np
import pandas as pd
import pytest

from simcore.reporting.published import BANDIT_TABLE2_LABELS, bandit_order
from simcore.studies.fixed_policy.report import ARTIFACT, reproduction_section, table2_rows


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
    assert "Table 2" in reproduction_section(rows, 144000, "queue", 10, 100)


def test_runs_without_the_compared_setting_are_an_error_naming_what_ran():
    table = fixed_policy_table("KTH-SP2", np.nan, "queue")
    with pytest.raises(ValueError, match=r"KTH-SP2 .* none with threshold 144000 s .*\[\('none', 'queue'\)\]"):
        table2_rows(table, 144000, "queue")


def test_traces_without_published_numbers_give_no_rows():
    rows = table2_rows(fixed_policy_table("lublin-256", 144000.0, "queue"), 144000, "queue")
    assert rows.empty
    assert "No trace of the bandit-paper studies has published numbers" in reproduction_section(
        rows, 144000, "queue", 10, 100
    )


def test_artifact_rows_are_labelled_apart_and_compare_its_setting_only():
    # one sweep with the campaign's default setting and the artifact's, different values each
    default = fixed_policy_table("KTH-SP2", 144000.0, "queue")
    artifact = fixed_policy_table("KTH-SP2", 200000.0, "LQF").assign(mean=lambda t: t["mean"] + 0.01)
    table = pd.concat([default, artifact], ignore_index=True)
    ours = table2_rows(table, 144000, "queue")
    theirs = table2_rows(table, 200000, "LQF", "artifact")
    assert set(ours["table"]) == {"Table 2"} and set(theirs["table"]) == {"Table 2 (artifact configuration)"}
    assert list(theirs["column"]) == list(ours["column"])  # the same published cells ...
    assert np.allclose(theirs["ours"] - ours["ours"], 1.0)  # ... each from its own setting's runs
    assert np.allclose(theirs["difference"], theirs["ours"] - theirs["published"])
    # the artifact's setting, not run: an error, not an empty table
    with pytest.raises(ValueError, match="none with threshold 200000 s and backfill 'LQF'"):
        table2_rows(default, 200000, "LQF", "artifact")


def test_section_says_which_configuration_differences_remain():
    table = fixed_policy_table("KTH-SP2", 200000.0, "LQF")
    rows = table2_rows(table, 200000, "LQF", "artifact")
    text = reproduction_section(rows, 200000, "LQF", ARTIFACT["variants"], None, "artifact", "artifact")
    assert "## Bandit policy selection (2017), Table 2 (artifact configuration)" in text
    assert "Differences of these rows with it: none in threshold, backfill or resampling." in text
    assert "cumulative-wait grid" in text
    rows = table2_rows(fixed_policy_table("KTH-SP2", 144000.0, "queue"), 144000, "queue")
    text = reproduction_section(rows, 144000, "queue", 100, 100)
    assert "## Bandit policy selection (2017), Table 2: fixed policies" in text
    assert (
        "threshold 144000 s (artifact: 200000 s); backfill `queue` (artifact: `LQF`, largest processor request "
        "first); 100 variants of 100 weeks by the `user-weeks` resampler (artifact: 60 of its own construction, "
        "100 one-week blocks: our `artifact` method)"
    ) in text
