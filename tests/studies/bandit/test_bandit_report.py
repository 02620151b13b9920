"""The bandit study's comparison with the paper's Table 3, in the campaign's configuration
and in the published artifact's."""

import math

import pandas as pd
import pytest

from simcore.studies.bandit.report import predictions_markdown, reproduction_section, table3_rows
from simcore.studies.bandit.study import choice_weighted


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


def test_a_learner_is_predicted_from_the_fixed_orders_it_chose():
    """KTH-SP2, one variant of one week: FCFS waits 100, SPF 80 (-20 %), SAF 50 (-50 %), the
    learner 60 (-40 %) choosing SPF in one period and SAF in three: -42.5 % from our orders; from
    the paper's Table 2, whose column "LPF" ran SPF (-16) and "LAF" ran SAF (-12): -13 %."""
    weekly = pd.DataFrame(
        {
            "trace": "KTH-SP2",
            "variant": 0,
            "order": ["FCFS", "SPF", "SAF", "Full-W"],
            "threshold": 144000.0,
            "backfill": "queue",
            "week": 1,
            "cumulative_wait": [100.0, 80.0, 50.0, 60.0],
        }
    )
    choices = pd.DataFrame({"trace": "KTH-SP2", "strategy": "Full-W", "order": ["SPF", "SAF", "SAF", "SAF"]})
    predicted = choice_weighted(weekly, choices, ["Full-W"]).set_index("strategy")
    assert predicted.at["Full-W", "learner"] == pytest.approx(-40.0)
    assert predicted.at["Full-W", "from_ours"] == pytest.approx(-42.5)
    assert predicted.at["Full-W", "from_paper"] == pytest.approx(-13.0)
    assert predicted.at["Full-W", "share_SAF"] == pytest.approx(75.0)
    text = predictions_markdown(predicted.reset_index())
    assert "| KTH-SP2 | Full-W | -12 | -40.0 | -42.5 | -13.0 | SAF 75 %, SPF 25 % |" in text


def test_a_chosen_order_the_paper_did_not_run_leaves_its_prediction_open():
    """MULTIFACTOR has no Table 2 column: the prediction from the paper's table is NaN, not a sum
    that silently drops the weight."""
    weekly = pd.DataFrame(
        {
            "trace": "KTH-SP2",
            "variant": 0,
            "order": ["FCFS", "MULTIFACTOR", "Full-W"],
            "threshold": float("nan"),
            "backfill": "queue",
            "week": 1,
            "cumulative_wait": [100.0, 90.0, 95.0],
        }
    )
    choices = pd.DataFrame({"trace": "KTH-SP2", "strategy": "Full-W", "order": ["MULTIFACTOR", "FCFS"]})
    predicted = choice_weighted(weekly, choices, ["Full-W"]).iloc[0]
    assert predicted["from_ours"] == pytest.approx(-5.0)
    assert math.isnan(predicted["from_paper"])
