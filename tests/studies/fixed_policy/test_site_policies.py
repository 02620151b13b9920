"""The site policies (reservation depth, multifactor priority) of the fixed-policy study: their
checks, their runs on a real trace, the change table and its section."""

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.engine.policies import check_policies
from simcore.studies.fixed_policy.site_policies import (
    run_site_policies,
    site_change_table,
    site_policies_markdown,
)

POLICIES = {
    "EASY-FCFS": {"order": "FCFS"},
    "conservative": {"order": "FCFS", "reservations": "all"},
    "MF-age": {"order": "MULTIFACTOR", "multifactor": {"weight_fairshare": 0, "weight_job_size": 0}},
    "MF-fairshare": {"order": "MULTIFACTOR", "multifactor": {"weight_fairshare": 10000, "weight_job_size": 0}},
}


@pytest.mark.parametrize(
    "policies, message",
    [
        ({"A": {"order": "SPF"}}, "fixed_policy.site_policies: one policy must be EASY-FCFS"),
        ({"A": {"order": "FCFS"}, "B": {"ordr": "SPF"}}, "fixed_policy.site_policies.B: a mapping with at least"),
        ({"A": {"order": "FCFS"}, "B": {"order": "SPF", "depth": 2}}, "fixed_policy.site_policies.B.depth: not an"),
        ({"A": {"order": "FCFS"}, "B": {"order": "NOPE"}}, "fixed_policy.site_policies.B.order: 'NOPE' is not"),
        (
            {"A": {"order": "FCFS"}, "B": {"order": "FCFS", "reservations": 2, "backfill": "SPF"}},
            "fixed_policy.site_policies.B: reservations 2: a depth of 2 or more backfills in the queue order",
        ),
        (
            {"A": {"order": "FCFS"}, "B": {"order": "FCFS", "reservations": -1}},
            "fixed_policy.site_policies.B: reservations -1: a depth >= 0",
        ),
        (
            {"A": {"order": "FCFS"}, "B": {"order": "MULTIFACTOR", "multifactor": {"weight_age": -1}}},
            "fixed_policy.site_policies.B: multifactor.weight_age must be a finite number >= 0, got -1",
        ),
        (
            {"A": {"order": "FCFS"}, "B": {"order": "MULTIFACTOR", "multifactor": {"decay_half_life": 0}}},
            "fixed_policy.site_policies.B: multifactor.decay_half_life must be a finite number > 0, got 0",
        ),
    ],
)
def test_bad_policies_are_one_line_errors_naming_the_key(policies, message):
    with pytest.raises(ValueError) as error:
        check_policies(policies, "fixed_policy.site_policies")
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_no_policies_is_nothing_to_run():
    assert check_policies(None, "k") == {} == check_policies({}, "k")


def test_runs_on_a_real_trace(pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict").take(np.arange(3000))
    runs, shares = run_site_policies(workload, check_policies(POLICIES, "fixed_policy.site_policies"))
    runs = runs.set_index("policy")
    easy = simcore.simulate(workload, "FCFS")
    wait = easy.start - workload.submit
    assert runs.at["EASY-FCFS", "avg_wait"] == easy.summary()["avg_wait"]
    assert runs.at["EASY-FCFS", "p90_wait"] == np.percentile(wait, 90)
    # age alone: every age is taken at the same instant, so its order is FCFS's, job for job
    assert (
        runs.loc["MF-age", ["avg_wait", "avg_bsld", "p90_wait"]].tolist()
        == runs.loc["EASY-FCFS", ["avg_wait", "avg_bsld", "p90_wait"]].tolist()
    )
    assert runs.at["conservative", "reservations_made"] > runs.at["EASY-FCFS", "reservations_made"] > 0
    assert runs.at["conservative", "reservations"] == "all"
    assert runs.at["MF-fairshare", "avg_wait"] != runs.at["EASY-FCFS", "avg_wait"]
    assert runs.at["MF-fairshare", "priority_computations"] > 0 == runs.at["conservative", "priority_computations"]
    # one factor per user of the workload per MULTIFACTOR run, in (0, 1]
    users = len(np.unique(workload.user))
    assert shares.groupby("policy").size().to_dict() == {"MF-age": users, "MF-fairshare": users}
    assert ((shares["fair_share"] > 0) & (shares["fair_share"] <= 1)).all()
    assert (shares["fair_share"] < 1).any()


def runs_frame(rows):
    return pd.DataFrame(
        rows, columns=["trace", "variant", "policy", "avg_wait", "avg_bsld", "p90_wait", "reservations_made"]
    )


def test_change_table_against_the_baseline_on_the_same_variant():
    runs = runs_frame(
        [
            ("T", 0, "EASY-FCFS", 100.0, 2.0, 0.0, 5),
            ("T", 0, "conservative", 150.0, 3.0, 0.0, 50),
            ("T", 1, "EASY-FCFS", 200.0, 4.0, 10.0, 7),
            ("T", 1, "conservative", 100.0, 4.0, 20.0, 70),
        ]
    )
    table = site_change_table(runs, "EASY-FCFS").set_index("policy")
    assert table.at["conservative", "avg_wait"] == 125.0
    assert table.at["conservative", "avg_wait_change"] == pytest.approx((0.5 - 0.5) / 2)
    assert table.at["conservative", "avg_wait_change_p90"] == pytest.approx(0.5 - 0.1 * 1.0)
    assert table.at["conservative", "avg_bsld_change"] == pytest.approx(0.25)
    assert table.at["conservative", "p90_wait_change"] == pytest.approx(0.5)  # 0 against 0 is no change
    assert table.at["conservative", "reservations_made"] == 60
    assert table.at["EASY-FCFS", "avg_wait_change"] == 0.0


def test_a_change_against_a_zero_baseline_is_not_made_up():
    runs = runs_frame([("T", 0, "EASY-FCFS", 100.0, 2.0, 0.0, 5), ("T", 0, "MF", 90.0, 2.0, 30.0, 5)])
    table = site_change_table(runs, "EASY-FCFS")
    assert np.isnan(table.set_index("policy").at["MF", "p90_wait_change"])
    section = site_policies_markdown(
        table, {"EASY-FCFS": {"order": "FCFS"}, "MF": {"order": "MULTIFACTOR"}}, "EASY-FCFS"
    )
    assert "30 s (n/a: EASY-FCFS's is 0)" in section
    assert "90 s (-10.0 % [-10, -10])" in section


def test_a_variant_without_its_baseline_run_is_an_error():
    runs = runs_frame([("T", 0, "EASY-FCFS", 100.0, 2.0, 0.0, 5), ("T", 1, "MF", 90.0, 2.0, 30.0, 5)])
    with pytest.raises(ValueError, match="no run of the baseline policy 'EASY-FCFS'"):
        site_change_table(runs, "EASY-FCFS")
