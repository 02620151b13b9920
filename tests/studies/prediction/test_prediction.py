"""The running-time prediction study (simcore.studies.prediction.study): the triple grid,
simulations of triples, leave-one-trace-out selection, tables and report rows."""

import numpy as np
import pandas as pd
import pytest
from conftest import HEADER, job_line
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sim import reference_simulate
from simcore.engine._regression import RegressionPredictor, losses

import simcore
from simcore.cli import main as simcore_main
from simcore.studies.prediction.report import prediction_markdown, reproduction_rows
from simcore.studies.prediction.study import (
    E_LOSS,
    EASY,
    EASY_PLUS_PLUS,
    TRIPLE,
    chunk_of_grid,
    correlations,
    evaluate_triples,
    figure_triples,
    header_size_table,
    loto_best,
    make_estimate,
    parse_regression,
    prediction_quality,
    regression_label,
    selection_table,
    table1,
    table6,
    table8,
    triple_grid,
    variant_table,
    variant_triples,
)


def small_workload(seed=0, n=250):
    rng = np.random.default_rng(seed)
    requested = rng.integers(100, 5000, n).astype(float)
    return simcore.Workload.from_arrays(
        submit=np.sort(rng.integers(0, 30000, n)).astype(float),
        run=np.minimum(requested, np.floor(requested * rng.uniform(0, 1, n)) + 1),
        requested=requested,
        procs=rng.integers(1, 9, n),
        user=rng.integers(0, 5, n),
        machine_size=16,
    )


def test_grid_is_the_papers_campaign():
    grid = triple_grid([1.0, 10.0])
    # request and clairvoyant x 2 variants; (AVE2 + 2 x 2 x 5 losses x 2 rates) x 3 corrections x 2 variants
    assert len(grid) == 4 + (1 + 20 * 2) * 3 * 2
    assert not grid.duplicated().any()
    losses_seen = {parse_regression(p)["weighting"] for p in grid["predictor"] if p.startswith("reg:")}
    assert len(losses_seen) == 5
    # chunks partition the grid
    parts = [chunk_of_grid(grid, k, 4) for k in range(4)]
    assert sum(map(len, parts)) == len(grid)
    assert (
        pd.concat(parts)
        .sort_values(TRIPLE)
        .reset_index(drop=True)
        .equals(grid.sort_values(TRIPLE).reset_index(drop=True))
    )
    with pytest.raises(ValueError, match="chunk 4"):
        chunk_of_grid(grid, 4, 4)


def test_labels_round_trip_and_bad_labels_are_named():
    label = regression_label(*E_LOSS, 10.0)
    assert label == "reg:linear/squared/large_area@10"
    assert parse_regression(label) == dict(under="linear", over="squared", weighting="large_area", learning_rate=10.0)
    assert parse_regression("ave2") is None
    assert isinstance(make_estimate(label, 1e-6), RegressionPredictor)
    for bad, message in [
        ("reg:linear/squared", "reg:linear/squared"),
        ("reg:cubic/linear/constant@1", "cubic"),
        ("reg:linear/linear/constant@0", "learning_rate"),
        ("oracle", "oracle"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_estimate(bad, 1e-6)


def test_evaluate_triples_matches_direct_simulations():
    w = small_workload()
    triples = pd.DataFrame(
        [
            EASY,
            ("clairvoyant", "request", "SJBF"),
            EASY_PLUS_PLUS,
            (regression_label(*E_LOSS, 1.0), "doubling", "EASY"),
        ],
        columns=TRIPLE,
    )
    rows, kept = evaluate_triples(w, triples, 1e-6, keep_predictions={EASY_PLUS_PLUS})
    direct = simcore.simulate(w, backfill="SPF", estimate="ave2", correction="incremental")
    assert rows.loc[2, "avg_bsld"] == direct.summary()["avg_bsld"]
    assert rows.loc[2, "corrections"] == direct.jobs["corrections"].sum() > 0
    np.testing.assert_array_equal(kept["ave2"], direct.jobs["initial_estimate"])
    assert list(kept) == ["ave2"]
    clairvoyant = rows.loc[1]
    assert clairvoyant["mae"] == 0.0 and clairvoyant["under_predicted"] == 0.0 and clairvoyant["corrections"] == 0
    regression = simcore.simulate(
        w, backfill="queue", estimate=RegressionPredictor(learning_rate=1.0), correction="doubling"
    )
    assert rows.loc[3, "avg_bsld"] == regression.summary()["avg_bsld"]
    # prediction quality is computed on the clipped estimates the scheduler used
    quality = prediction_quality(regression.jobs["initial_estimate"], w)
    assert rows.loc[3, "mae"] == quality["mae"]
    assert quality["mean_eloss"] == pytest.approx(np.mean(losses(regression.jobs["initial_estimate"], w.run, w.procs)))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    correction=st.sampled_from(["request", "incremental", "doubling"]),
    backfill=st.sampled_from(["queue", "SPF"]),
)
def test_regression_schedules_match_the_reference(seed, correction, backfill):
    """The core schedules a regression's (schedule-dependent) predictions as
    SEMANTICS §5 says: replaying them as fixed predictions in the independent
    reference simulator gives the same schedule, corrections included."""
    w = small_workload(seed, n=120)
    core = simcore.simulate(
        w,
        backfill=backfill,
        correction=correction,
        estimate=RegressionPredictor(weighting="constant", learning_rate=1.0),
    )
    ref = reference_simulate(
        w.submit,
        w.run,
        w.requested,
        w.procs,
        w.user,
        w.machine_size,
        backfill=backfill,
        correction=correction,
        estimate=list(core.jobs["initial_estimate"]),
    )
    np.testing.assert_array_equal(core.jobs["start"], np.array(ref["start"], dtype=float))
    np.testing.assert_array_equal(core.jobs["corrections"], ref["corrections"])


def synthetic_grid():
    """Three traces x, y, z and four triples: B (EASY) is best on x alone, A
    (EASY++) best summed over y and z, C (E-Loss) best on y; D is clairvoyant."""
    values = {"A": (50, 10, 10), "B": (5, 30, 30), "C": (60, 5, 40), "D": (1, 1, 1)}
    triples = {
        "A": EASY_PLUS_PLUS,
        "B": EASY,
        "C": (regression_label(*E_LOSS, 1.0), "incremental", "SJBF"),
        "D": ("clairvoyant", "request", "SJBF"),
    }
    rows = [
        {
            "trace": trace,
            **dict(zip(TRIPLE, triples[name])),
            "avg_bsld": float(v[i]),
            "mae": 100.0 * (i + 1),
            "mean_eloss": 1e5 * (i + 1),
        }
        for name, v in values.items()
        for i, trace in enumerate("xyz")
    ]
    return pd.DataFrame(rows), triples


def test_leave_one_trace_out_never_looks_at_the_evaluated_trace():
    grid, triples = synthetic_grid()
    # sums over the other traces (clairvoyant D excluded): x -> A 20, B 60, C 45; z -> A 60, B 35, C 65
    assert loto_best(grid, "x") == triples["A"]
    assert loto_best(grid, "z") == triples["B"]
    assert loto_best(grid, "y") == triples["B"]
    # the evaluated trace's own values never change its choice
    shaken = grid.copy()
    shaken.loc[shaken["trace"] == "x", "avg_bsld"] = np.random.default_rng(0).uniform(1, 100, 4)
    assert loto_best(shaken, "x") == triples["A"]
    assert loto_best(grid[grid["trace"] == "x"], "x") is None
    # candidates restrict the choice; a triple missing on one training trace is not eligible
    only_c = pd.DataFrame([triples["C"]], columns=TRIPLE)
    assert loto_best(grid, "x", only_c) == triples["C"]
    partial = grid.drop(grid[(grid["trace"] == "y") & (grid["predictor"] == "ave2")].index)
    assert loto_best(partial, "x") == triples["C"]


def test_selection_table_and_single_trace_defaults():
    grid, triples = synthetic_grid()
    selection = selection_table(grid, default_learning_rate=1.0).set_index("trace")
    assert tuple(selection.loc["x", ["cv_predictor", "cv_correction", "cv_backfill"]]) == triples["A"]
    assert selection.loc["x", "cv_avg_bsld"] == 50.0
    assert selection.loc["x", "hindsight_avg_bsld"] == 5.0  # B, in hindsight, clairvoyant excluded
    assert selection.loc["x", "easy_avg_bsld"] == 5.0 and selection.loc["x", "easy_plus_plus_avg_bsld"] == 50.0
    assert selection.loc["x", "eloss_predictor"] == triples["C"][0]
    alone = selection_table(grid[grid["trace"] == "y"], default_learning_rate=3.0).iloc[0]
    assert pd.isna(alone["cv_predictor"]) and np.isnan(alone["cv_avg_bsld"])
    assert alone["eloss_predictor"] == regression_label(*E_LOSS, 3.0)
    on_variants = variant_triples(None, 3.0)
    assert list(on_variants.iloc[-1]) == [regression_label(*E_LOSS, 3.0), "incremental", "SJBF"]
    with_cv = variant_triples(selection.reset_index().iloc[0].to_dict(), 3.0)
    assert not with_cv.duplicated().any()  # x's C-V triple is EASY++, already a baseline
    assert list(map(tuple, with_cv.to_numpy())) == [
        EASY,
        ("request", "request", "SJBF"),
        ("clairvoyant", "request", "EASY"),
        ("clairvoyant", "request", "SJBF"),
        EASY_PLUS_PLUS,
        triples["C"],
    ]


def test_tables_correlations_and_report_rows():
    grid, triples = synthetic_grid()
    grid.loc[grid["trace"] == "x", "trace"] = "KTH-SP2"
    grid = pd.concat(
        [
            grid,
            grid[grid["trace"] == "KTH-SP2"].assign(
                predictor="clairvoyant", correction="request", backfill="EASY", avg_bsld=2.0
            ),
        ],
        ignore_index=True,
    )
    t1 = table1(grid).set_index("trace")
    assert t1.loc["KTH-SP2", "easy"] == 5.0 and t1.loc["KTH-SP2", "clairvoyant"] == 2.0
    assert t1.loc["KTH-SP2", "decrease_pct"] == pytest.approx(60.0)
    t6 = table6(grid).set_index("trace")
    assert t6.loc["y", "learned_sjbf_best"] == 5.0 and t6.loc["y", "learned_sjbf_worst"] == 10.0
    assert np.isnan(t6.loc["y", "learned_easy_best"])  # only baselines ran with EASY
    selection = selection_table(grid, 1.0)
    t8 = table8(grid, selection)
    assert t8[(t8["trace"] == "y") & (t8["technique"] == "AVE2")]["mae"].iloc[0] == 200.0
    assert set(t8["technique"]) == {"AVE2", "E-Loss learning"}  # the grid has no request-SJBF or squared loss
    pearson = correlations(grid).set_index(["trace_a", "trace_b"])
    assert list(pearson["triples"]) == [4, 4, 4]  # the extra clairvoyant EASY row ran on KTH-SP2 only
    assert pearson.loc[("y", "z"), "pearson"] == pytest.approx(np.corrcoef([10, 30, 5, 1], [10, 30, 40, 1])[0, 1])
    tables = {
        "table1": table1(grid),
        "table6": table6(grid),
        "table7": selection,
        "table8": t8,
        "correlations": correlations(grid),
    }
    rows = reproduction_rows(tables)
    kth = rows[rows["row"] == "KTH-SP2"].set_index(["table", "column"])
    assert kth.loc[("Table 1", "easy"), "published"] == 92.6
    assert kth.loc[("Table 1", "easy"), "ours"] == 5.0
    assert kth.loc[("Table 7", "cross-validated triple"), "published"] == 51.4
    assert set(rows[rows["table"] == "Table 1"]["row"]) == {"KTH-SP2"}  # y, z have no published values
    # what every value rests on: one whole trace for Tables 1-8, trace pairs for the correlations
    assert rows[["trace", "sample"]].ne("").all().all() and rows["sample_size"].notna().all()
    assert kth.loc[("Table 1", "easy"), ["trace", "sample_size", "sample"]].tolist() == ["KTH-SP2", 1, "whole trace"]
    table8_notes = rows.loc[rows["table"] == "Table 8", "note"]
    assert (
        len(table8_notes)
        and (table8_notes == "the paper does not name the log its Table 8 comes from; ours is on this trace").all()
    )
    markdown = prediction_markdown(tables)
    assert "| KTH-SP2 | 92.6 | 5.0 |" in markdown and "leave-one-trace-out" in markdown


def test_curie_at_both_machine_sizes_side_by_side():
    """prediction.header_size: the report shows a trace's Table 6 baselines at the
    study's machine size and at its header's, and the header-size row is compared
    with the published value under its own label."""
    baselines = [("clairvoyant", "request", "EASY"), ("clairvoyant", "request", "SJBF"), EASY, EASY_PLUS_PLUS]
    grid = pd.DataFrame(
        [("CEA-Curie", *triple, value) for triple, value in zip(baselines, (70.0, 12.0, 291.7, 433.1))],
        columns=["trace", *TRIPLE, "avg_bsld"],
    )
    header_runs = pd.DataFrame(
        [("CEA-Curie", 93312, *triple, value) for triple, value in zip(baselines, (9.0, 3.0, 25.8, 30.0))],
        columns=["trace", "machine_size", *TRIPLE, "avg_bsld"],
    )
    both = header_size_table(grid, header_runs)
    assert list(both["machine_size"]) == ["study's", "93,312, header"]
    assert list(both["easy"]) == [291.7, 25.8] and list(both["easy_plus_plus"]) == [433.1, 30.0]
    tables = {
        "table1": table1(grid),
        "table6": table6(grid),
        "table7": selection_table(grid, 1.0),
        "table8": pd.DataFrame(columns=["trace", "technique", "predictor", "mae", "mean_eloss"]),
        "correlations": correlations(grid),
        "header_size": both,
    }
    rows = reproduction_rows(tables).set_index(["table", "row", "column"])
    assert rows.loc[("Table 6", "CEA-Curie (93,312, header)", "easy"), ["published", "ours"]].tolist() == [202.1, 25.8]
    assert rows.loc[("Table 6", "CEA-Curie", "easy"), "ours"] == 291.7  # the study's size is Table 6's own row
    markdown = prediction_markdown(tables)
    assert "| CEA-Curie | published | 69.9 | 12.1 | 202.1 | 193.5 |" in markdown
    assert "| CEA-Curie | study's | 70.0 | 12.0 | 291.7 | 433.1 |" in markdown
    assert "| CEA-Curie | 93,312, header | 9.0 | 3.0 | 25.8 | 30.0 |" in markdown
    del tables["header_size"]
    assert "both machine sizes" not in prediction_markdown(tables)


def test_predict_header_size_runs_at_the_headers_machine_size(write_swf, tmp_path):
    """The machine is the header's MaxProcs (8), whatever the study's machine_size says."""
    jobs = [job_line(1, 0, 50, 4, 100), job_line(2, 10, 300, 8, 400), job_line(3, 20, 30, 16, 60)]
    swf = write_swf(HEADER + "".join(jobs))
    runs = tmp_path / "runs.parquet"
    assert simcore_main(["predict-header-size", str(swf), "--trace", "t", "--runs", str(runs)]) == 0
    frame = pd.read_parquet(runs)
    assert set(frame["machine_size"]) == {8} and set(frame["trace"]) == {"t"}
    assert [tuple(triple) for triple in frame[TRIPLE].itertuples(index=False)] == [
        ("clairvoyant", "request", "EASY"),
        ("clairvoyant", "request", "SJBF"),
        EASY,
        EASY_PLUS_PLUS,
    ]


def test_variant_table_reduction_is_per_variant():
    rows = []
    for variant, (easy, other) in enumerate([(10.0, 5.0), (20.0, 5.0)]):
        rows.append({"trace": "t", "variant": variant, **dict(zip(TRIPLE, EASY)), "avg_bsld": easy})
        rows.append({"trace": "t", "variant": variant, **dict(zip(TRIPLE, EASY_PLUS_PLUS)), "avg_bsld": other})
    table = variant_table(pd.DataFrame(rows)).set_index("predictor")
    assert table.loc["ave2", "reduction_mean"] == pytest.approx((50.0 + 75.0) / 2)
    assert table.loc["request", "reduction_mean"] == 0.0
    assert table.loc["ave2", "variants"] == 2


def test_figure_triples_are_in_the_grid():
    grid = triple_grid([0.5, 2.0])
    keys = set(map(tuple, grid[TRIPLE].to_numpy()))
    assert figure_triples([0.5, 2.0]) <= keys


def test_conservative_backfilling_is_a_triple_variant(pwa_trace):
    """prediction.backfills may add CONS: FCFS with every waiting job holding a reservation, the
    triple's estimate and correction as in EASY's triples."""
    from simcore.studies.prediction.study import evaluate_triples

    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict").take(np.arange(2000))
    triples = pd.DataFrame(
        {"predictor": ["ave2", "ave2"], "correction": ["incremental"] * 2, "backfill": ["EASY", "CONS"]}
    )
    rows, _ = evaluate_triples(workload, triples, l2=1e-6)
    conservative = simcore.simulate(workload, estimate="ave2", correction="incremental", reservations="all")
    easy = simcore.simulate(workload, estimate="ave2", correction="incremental")
    assert rows["avg_wait"].tolist() == [easy.summary()["avg_wait"], conservative.summary()["avg_wait"]]
    assert rows["avg_wait"].iloc[0] != rows["avg_wait"].iloc[1]


def test_table6_has_a_learned_range_per_backfill_variant_run():
    from simcore.studies.prediction.study import table6

    rows = [("T", "ave2", "incremental", b, v) for b, v in (("EASY", 3.0), ("SJBF", 2.0))]
    grid = pd.DataFrame(rows, columns=["trace", "predictor", "correction", "backfill", "avg_bsld"])
    assert not any("cons" in column for column in table6(grid).columns)
    conservative = pd.concat([grid, grid.iloc[:1].assign(backfill="CONS", avg_bsld=5.0)], ignore_index=True)
    assert table6(conservative).loc[0, ["learned_cons_best", "learned_cons_worst"]].tolist() == [5.0, 5.0]
