"""The thesis's dynamic scheduling experiments (section 3.3): priority
functions, sequences, the policy sweep and Table 3.3."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simcore
from simcore.engine.priority import THESIS_FUNCTIONS, PriorityFunction
from simcore.reporting.published import THESIS_TABLE33
from simcore.studies.dynamic_scheduling.report import dynamic_markdown, reproduction_rows
from simcore.studies.dynamic_scheduling.study import (
    SETTINGS,
    best_ratios,
    learned_functions,
    median_table,
    policies,
    run_sequences,
    sequences,
)
from simcore.workloads.lublin import lublin_workload

DAY = 86400.0


@pytest.fixture(scope="module")
def model():
    return lublin_workload(6000, 128, seed=5)


def workload_at(submits, machine_size=4):
    n = len(submits)
    return simcore.Workload.from_arrays(
        submits, np.full(n, 10.0), np.full(n, 20.0), np.ones(n, dtype=int), machine_size
    )


# -- priority functions ---------------------------------------------------------


def test_thesis_functions_read_as_table_3_2():
    p, q, r = 100.0, 4.0, 1000.0
    assert THESIS_FUNCTIONS["F1"](p, q, r) == pytest.approx(2 * 4 + 870 * 3)
    assert THESIS_FUNCTIONS["F2"](p, q, r) == pytest.approx(10 * 4 + 2.56e4 * 3)
    assert THESIS_FUNCTIONS["F3"](p, q, r) == pytest.approx(400 + 6.86e6 * 3)
    assert THESIS_FUNCTIONS["F4"](p, q, r) == pytest.approx(100 * 2 + 5.30e5 * 3)
    assert str(THESIS_FUNCTIONS["F1"]) == "(1·log10(p)) × (1·q) + (870·log10(r))"


@pytest.mark.parametrize(
    "form, theta, message",
    [
        (("log", "id", "exp", "*", "+"), (1, 1, 1), "form"),
        (("log", "id", "log", "-", "+"), (1, 1, 1), "form"),
        (("log", "id", "log", "*"), (1, 1, 1), "form"),
        (("log", "id", "log", "*", "+"), (1, 1), "three finite"),
        (("log", "id", "log", "*", "+"), (1, 1, math.inf), "three finite"),
    ],
)
def test_priority_function_rejects_bad_definitions(form, theta, message):
    with pytest.raises(ValueError, match=message):
        PriorityFunction(form, theta)


def test_function_order_needs_a_function(model):
    with pytest.raises(ValueError, match="needs a priority function"):
        simcore.simulate(model, order="FUNCTION")
    with pytest.raises(ValueError, match="needs a priority function"):
        simcore.simulate(model, order="FCFS", backfill="FUNCTION")


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.sampled_from(list(THESIS_FUNCTIONS)), st.sampled_from(("actual", "estimates")))
def test_function_order_starts_jobs_by_smallest_value(name, setting):
    """Without backfilling, whenever a job starts, no waiting job that was
    submitted by then has a smaller value of the function (ties: position)."""
    w = lublin_workload(300, 64, seed=11)
    function = THESIS_FUNCTIONS[name]
    start = simcore.simulate(w, order="FUNCTION", function=function, **SETTINGS[setting]).start
    estimate = np.maximum(1.0, np.minimum(w.run, w.requested)) if setting == "actual" else np.maximum(1.0, w.requested)
    value = function(estimate, w.procs.astype(float), w.submit)
    for j in range(len(w)):
        waiting = (w.submit <= start[j]) & (start > start[j])
        assert not np.any(waiting & (value < value[j])), (name, j)


def test_nan_priorities_count_as_infinite():
    # 0 / 0 everywhere: every key is NaN, so the queue falls back to position order
    w = workload_at([0.0, 0.0, 1.0, 1.0], machine_size=1)
    nan_everywhere = PriorityFunction(("id", "id", "id", "*", "/"), (0.0, 1.0, 0.0))
    result = simcore.simulate(w, order="FUNCTION", function=nan_everywhere, backfill="none")
    assert result.start.tolist() == simcore.simulate(w, order="FCFS", backfill="none").start.tolist()


def test_unicef_counts_a_one_processor_job_as_two():
    # equal waits and estimates: UNICEF's w / (log2(max(q, 2)) e) ties q = 1 with q = 2, so position
    # decides (log2(1) = 0 would have put the 1-processor job first)
    w = simcore.Workload.from_arrays([0.0, 1.0, 1.0], [10.0] * 3, [10.0] * 3, [2, 2, 1], 2)
    assert simcore.simulate(w, order="UNICEF", backfill="none").start.tolist() == [0.0, 10.0, 20.0]
    # and larger jobs wait: q = 4 after q = 2 although it came first
    w = simcore.Workload.from_arrays([0.0, 1.0, 2.0], [10.0] * 3, [10.0] * 3, [4, 4, 2], 4)
    assert simcore.simulate(w, order="UNICEF", backfill="none").start.tolist() == [0.0, 20.0, 10.0]


# -- sequences ------------------------------------------------------------------


def test_sequences_are_complete_non_overlapping_windows():
    submits = [0.0, 10.0, DAY + 1, 2 * DAY + 7, 4.5 * DAY, 5 * DAY]
    got = list(sequences(workload_at(submits), days=1))
    # five whole days up to the last submission (whose job falls after them); day 3 has no job
    assert [number for number, _, _ in got] == [0, 1, 2, 4]
    assert [start for _, start, _ in got] == [0.0, DAY, 2 * DAY, 4 * DAY]
    assert [part.submit.tolist() for _, _, part in got] == [[0.0, 10.0], [1.0], [7.0], [0.5 * DAY]]
    assert [len(part) for _, _, part in sequences(workload_at(submits), days=1, limit=2)] == [2, 1]


def test_sequences_cover_every_job_of_their_windows(model):
    covered = 0
    for _number, start, part in sequences(model, days=2):
        assert part.submit.min() >= 0 and part.submit.max() < 2 * DAY
        assert np.array_equal(part.job_id, model.job_id[(model.submit >= start) & (model.submit < start + 2 * DAY)])
        covered += len(part)
    windows = int((model.submit[-1] - model.submit[0]) // (2 * DAY))
    assert covered == np.sum(model.submit < model.submit[0] + windows * 2 * DAY)


# -- policies and the sweep -----------------------------------------------------

FUNCTIONS = pd.DataFrame(
    {
        "phi_p": ["log", "id"],
        "phi_q": ["id", "sqrt"],
        "phi_r": ["log", "log"],
        "op1": ["*", "*"],
        "op2": ["+", "+"],
        "theta1": [1.0, 2.0],
        "theta2": [1.0, 1.0],
        "theta3": [332.0, 5e5],
        "mae": [0.1, 0.2],
        "simplified": ["log10(p)·q + 332·log10(r)", "p·sqrt(q) + 2.5e+05·log10(r)"],
    }
)


def test_policies_name_orders_thesis_and_learned_functions():
    learned = learned_functions(FUNCTIONS, 2)
    assert learned["L2"] == PriorityFunction(("id", "sqrt", "log", "*", "+"), (2.0, 1.0, 5e5))
    table = policies(["FCFS", "UNICEF", "F2", "L1"], learned)
    assert table == {
        "FCFS": ("FCFS", None),
        "UNICEF": ("UNICEF", None),
        "F2": ("FUNCTION", THESIS_FUNCTIONS["F2"]),
        "L1": ("FUNCTION", learned["L1"]),
    }
    with pytest.raises(ValueError, match="unknown policy 'L3'"):
        policies(["L3"], learned)
    with pytest.raises(ValueError, match="3 learned functions"):
        learned_functions(FUNCTIONS, 3)


def test_sweep_runs_every_policy_setting_and_sequence(model):
    named = policies(["FCFS", "WFP3", "SPF", "F2", "L1"], learned_functions(FUNCTIONS, 1))
    runs = run_sequences(model, named, list(SETTINGS), days=5)
    count = len(list(sequences(model, 5)))
    assert len(runs) == count * 3 * 5
    for (number, setting, policy), row in runs.set_index(["sequence", "setting", "policy"]).head(16).iterrows():
        _, _, part = next(s for s in sequences(model, 5) if s[0] == number)
        order, function = named[policy]
        direct = simcore.simulate(part, order=order, function=function, **SETTINGS[setting]).summary()
        assert row["avg_bsld"] == direct["avg_bsld"] and row["jobs"] == direct["jobs"]
    by = runs.set_index(["sequence", "policy", "setting"])["avg_bsld"].unstack()
    # FCFS ignores running times: the same schedule with actual times and with estimates
    fcfs = by.xs("FCFS", level="policy")
    assert (fcfs["actual"] == fcfs["estimates"]).all()
    assert (runs.loc[runs["setting"] != "backfilling", "backfilled"] == 0).all()


def test_parts_share_out_the_sequences(model):
    named = policies(["FCFS", "F1"], {})
    whole = run_sequences(model, named, ["actual"], days=3, limit=5)
    parts = pd.concat([run_sequences(model, named, ["actual"], 3, 5, part, 3) for part in range(3)])
    assert sorted(whole["sequence"].unique()) == sorted(parts["sequence"].unique()) == [0, 1, 2, 3, 4]
    pd.testing.assert_frame_equal(
        parts.sort_values(["sequence", "policy"]).reset_index(drop=True),
        whole.sort_values(["sequence", "policy"]).reset_index(drop=True),
    )


# -- Table 3.3 and the report ---------------------------------------------------


def constructed_runs(sequences=3, days=15.0, traces=(("lublin-256-long", "model-256"), ("KTH-SP2", "KTH-SP2"))):
    rows = []
    for trace, published_as in traces:
        for sequence in range(sequences):
            for setting in SETTINGS:
                for k, policy in enumerate(["FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1", "L1"]):
                    rows.append(
                        {
                            "trace": trace,
                            "published_as": published_as,
                            "days": days,
                            "sequence": sequence,
                            "setting": setting,
                            "policy": policy,
                            "avg_bsld": 100.0 / (k + 1) + sequence,
                            "function": "x" if policy[0] in "FL" and policy != "FCFS" else "",
                        }
                    )
    return pd.DataFrame(rows)


def test_medians_ratios_and_reproduction_rows():
    runs = constructed_runs()
    medians = median_table(runs)
    assert list(medians.columns[:5]) == ["trace", "published_as", "setting", "sequences", "days"]
    assert (medians["sequences"] == 3).all() and (medians["days"] == 15).all() and len(medians) == 6
    assert medians.loc[0, "FCFS"] == 101.0 and medians.loc[0, "L1"] == pytest.approx(100 / 9 + 1)
    ratios = best_ratios(medians, {"thesis F1-F4": ["F1", "F2", "F3", "F4"]})
    assert ratios.loc[0, "best_hand_engineered"] == 26.0 and ratios.loc[0, "best_function"] == 13.5
    rows = reproduction_rows(medians)
    # only the model has thesis values (KTH-SP2 is not in Table 3.3): 3 settings x 8 policies
    assert len(rows) == 24 and set(rows["row"]) == {
        "model-256, actual",
        "model-256, estimates",
        "model-256, backfilling",
    }
    # 3 sequences are not the thesis's 50: no value of ours stands beside the model's
    fcfs = rows[(rows["row"] == "model-256, actual") & (rows["column"] == "FCFS")].iloc[0]
    assert fcfs["published"] == THESIS_TABLE33[("model-256", "actual")][0] and np.isnan(fcfs["ours"])
    assert fcfs["note"] == "the thesis used 50 sequences of 15 days; this run has 3 sequences of 15 days"
    assert (fcfs["trace"], fcfs["sample_size"], fcfs["sample"]) == ("lublin-256-long", 3, "sequences of 15 days")
    text = dynamic_markdown(medians, ratios, runs, FUNCTIONS)
    assert "| lublin-256-long | 3 | 101.00 |" in text
    assert "lublin-256-long is not compared with the thesis's model-256: the thesis used 50 sequences" in text
    assert "| L1 | x | log10(p)·q + 332·log10(r) |" in text


def test_a_model_run_like_the_thesis_fills_its_rows():
    medians = median_table(constructed_runs(sequences=50))
    rows = reproduction_rows(medians)
    assert rows["ours"].notna().all() and (rows["note"] == "").all()
    assert (rows["sample_size"] == 50).all() and (rows["sample"] == "sequences of 15 days").all()
    text = dynamic_markdown(medians, best_ratios(medians, {}), constructed_runs(sequences=50), FUNCTIONS)
    assert "| lublin-256-long | 50 | 124.50 (7830.58) |" in text and "not compared" not in text
    assert "sequences of 15 days (the thesis: 15)" in text


@pytest.mark.parametrize(
    "sequences, days, traces, note",
    [
        # a demo-sized model (the small lublin-256) has too few sequences for the model rows
        (4, 15.0, (("lublin-256", "model-256"),), "the thesis used 50 sequences of 15 days; this run has 4 sequences"),
        (50, 7.0, (("lublin-256-long", "model-256"),), "this run has 50 sequences of 7 days"),
        # a log counts all its sequences, as the thesis's did, but they must be 15 days long
        (4, 7.0, (("CTC-SP2", "CTC-SP2"),), "the thesis used sequences of 15 days; this run has 4 sequences of 7 days"),
    ],
)
def test_a_run_unlike_the_thesis_has_no_value_but_a_note(sequences, days, traces, note):
    rows = reproduction_rows(median_table(constructed_runs(sequences, days, traces)))
    assert len(rows) and rows["ours"].isna().all()
    assert rows["note"].str.contains(note, regex=False).all()


def test_a_log_with_all_its_15_day_sequences_is_compared():
    rows = reproduction_rows(median_table(constructed_runs(4, 15.0, (("CTC-SP2", "CTC-SP2"),))))
    assert len(rows) and rows["ours"].notna().all() and (rows["sample_size"] == 4).all()
