"""The paper's claims judged on size (simcore.studies.coscheduling.claims): the band,
the three outcomes, the paper's values from the published tables, and every claim flipped across
its thresholds on real runs of the paper's queue."""

import math

import numpy as np
import pandas as pd
import pytest

from simcore.studies.coscheduling.claims import (
    CLAIM_COLUMNS,
    CLAIM_FACTOR,
    CLAIMS,
    band,
    claims,
    judge,
    paper_at,
    paper_value,
)
from simcore.studies.coscheduling.paper_queue import queue_runs, table2_weighted_mean
from simcore.studies.coscheduling.study import Sweep


def test_band_and_judge():
    assert band(-50.0) == (-100.0, -25.0) and band(20.0) == (10.0, 40.0)
    assert judge(-40.0, -30.0, -50.0) == "holds"
    assert judge(-24.0, -20.0, -50.0) == "fails"  # all of it short of half the paper's saving
    assert judge(-30.0, -20.0, -50.0) == "undetermined"  # straddles -25
    assert judge(41.0, 45.0, 20.0) == "fails" and judge(10.0, 40.0, 20.0) == "holds"
    assert judge(5.0, 6.0, -20.0) == "fails"  # the wrong sign
    assert judge(math.nan, math.nan, 10.0) == "undetermined" and judge(1.0, 2.0, 0.0) == "undetermined"


def test_paper_values_come_from_the_published_tables():
    # Table 3: wait 3.5 -> 1.7 h (Static at 64 cores), response 4.4 -> 3.5 h (ASA_X)
    assert paper_value("wait", "STATIC", "8x") == pytest.approx(100 * (1.7 / 3.5 - 1))
    assert paper_value("response", "ASAX", "8x") == pytest.approx(100 * (3.5 / 4.4 - 1))
    # Table 2's job-weighted utilisations (the issue's 64.3 / 84.9 / 87.8 % at 64 cores) and runtime change
    weighted = {
        (name, label): table2_weighted_mean(name, label)
        for name in ("SPACE", "STATIC", "ASAX")
        for label in ("8x", "4x", "2x")
    }
    expected = {
        ("SPACE", "8x"): 64.3, ("SPACE", "4x"): 58.2, ("SPACE", "2x"): 52.3,
        ("STATIC", "8x"): 84.9, ("STATIC", "4x"): 75.3, ("STATIC", "2x"): 67.8,
        ("ASAX", "8x"): 87.8, ("ASAX", "4x"): 77.7, ("ASAX", "2x"): 82.7,
    }  # fmt: skip
    assert {key: round(value, 1) for key, value in weighted.items()} == expected
    assert paper_value("utilisation", "ASAX", "2x") == pytest.approx(weighted[("ASAX", "2x")] - 52.3, abs=0.05)
    assert paper_value("runtime", "STATIC", "4x") == 19.0
    # at a load the paper did not run: the mean of its three sizes, said so
    value, source = paper_at("runtime", "ASAX", 0.7)
    assert value == pytest.approx((3 + 9 + 5) / 3) and source == "mean of its sizes"
    assert paper_at("runtime", "ASAX", 8.0) == (3.0, "at 8x")


@pytest.fixture(scope="module")
def queue():
    configurations = {"SPACE": {"strategy": "SPACE"}, "STATIC": {"strategy": "STATIC"}, "ASAX": {"strategy": "ASAX"}}
    runs, _ = queue_runs(Sweep(configurations, (), (0.0,), 2), repetitions=2)
    return runs.assign(trace="ASA_X-queue")


def test_claims_on_the_queue_have_every_claim_and_strategy(queue):
    table = claims(queue)
    assert list(table.columns) == CLAIM_COLUMNS
    assert len(table) == 3 * len(CLAIMS) * 2  # 3 sizes, 4 claims, STATIC and ASAX
    assert set(table["outcome"]) <= {"holds", "fails", "undetermined"}
    assert (table.loc[table["outcome"] == "holds", "reason"] == "").all()
    assert (table.loc[table["outcome"] != "holds", "reason"] != "").all()
    # STATIC is deterministic: its interval is its value; ASAX's is over its 2 seeds x 2 repetitions
    static = table[table["configuration"] == "STATIC"]
    assert (static["low"] == static["ours"]).all() and (static["high"] == static["ours"]).all()
    assert "over 4 paired runs" in table.loc[table["configuration"] == "ASAX", "evidence"].iloc[0]


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_every_claim_flips_across_its_thresholds_on_a_real_run(queue, claim):
    """Move STATIC's measured value (the column the claim reads) to just inside and just outside each
    end of the band around the paper's value: holds, then fails, at both ends. No claim holds whatever
    the runs say."""
    column = CLAIMS[claim][1]
    static = (queue["configuration"] == "STATIC") & (queue["load"] == 8.0)
    space = queue[(queue["configuration"] == "SPACE") & (queue["load"] == 8.0)]
    paper = paper_value(claim, "STATIC", "8x")
    lowest, highest = band(paper)
    inside, outside = (
        (lowest + 0.01 * abs(lowest), highest - 0.01 * abs(highest)),
        (
            lowest - 0.01 * abs(lowest),
            highest + 0.01 * abs(highest),
        ),
    )
    for target, expected in [(value, "holds") for value in inside] + [(value, "fails") for value in outside]:
        changed = queue.copy()
        changed.loc[static, :] = _with_measure(changed.loc[static], space, claim, column, target)
        row = claims(changed).set_index(["load", "claim", "configuration"]).loc[(8.0, claim, "STATIC")]
        assert row["outcome"] == expected, (claim, target, row["evidence"])
        assert row["ours"] == pytest.approx(target)


def _with_measure(rows: pd.DataFrame, space: pd.DataFrame, claim: str, column: str, target: float) -> pd.DataFrame:
    """STATIC's runs changed so that the claim's measure of each equals `target`."""
    rows = rows.copy()
    base = space.set_index("window")
    if column.endswith("_ratio"):
        metric = column.removesuffix("_ratio")
        rows[metric] = base.loc[rows["window"], metric].to_numpy() * (1 + target / 100)
    elif column == "allocation_utilisation_gain":
        rows["allocation_utilisation"] = base.loc[rows["window"], "allocation_utilisation"].to_numpy() + target / 100
    else:  # runtime change: 100 (mean slowdown - 1)
        rows["mean_slowdown"] = np.full(len(rows), 1 + target / 100)
    return rows


def test_the_factor_is_stated_in_the_evidence(queue):
    row = claims(queue).iloc[0]
    assert f"within ×{CLAIM_FACTOR:g}" in row["evidence"] and row["paper_source"] == "at 8x"
