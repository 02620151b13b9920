"""Learned scheduling functions (the thesis's chapter 3): trial scores in the
core, the function family and its weighted regression."""

from functools import partial

import numpy as np
import pandas as pd
import pytest
from simcore.studies.learned_policies._trials import trial_scores

from simcore.cli import main
from simcore.engine.priority import evaluate
from simcore.studies.learned_policies import study
from simcore.studies.learned_policies.study import draw_tuples, family, fit_family, score_spread, score_tuples
from simcore.workloads.files import write_workload
from simcore.workloads.lublin import lublin_workload
from simcore.workloads.progress import progress


def test_two_job_queue_by_hand():
    """m = 1, no warm-up, Q = {A: 10 s, B: 1000 s} both released at 0.
    A first: bsld A = 1, B = 1010/1000, mean 1.005; B first: B = 1,
    A = 1010/10 = 101, mean 51. score(A) = n_A 1.005 / (n_A 1.005 + n_B 51)."""
    scores, first = trial_scores([0.0, 0.0], [10.0, 1000.0], [1, 1], 0, 1, 1000, 7)
    assert first.sum() == 1000 and 400 < first[0] < 600
    expected = first[0] * 1.005 / (first[0] * 1.005 + first[1] * 51.0)
    assert scores[0] == pytest.approx(expected) and scores.sum() == pytest.approx(1.0)


def test_warm_up_runs_first_and_nothing_is_backfilled():
    """m = 3; the warm-up job holds 2 processors over 0..100; Q (released at 1):
    big (3 processors, 10 s) and small (1 processor, 10 s). Big first: big is
    blocked until 100 and, without backfilling, small waits behind it
    (110..120): bslds 10.9 and 11.9. Small first: small runs at once (bsld 1),
    big at 100 (10.9)."""
    scores, first = trial_scores([0.0, 1.0, 1.0], [100.0, 10.0, 10.0], [2, 3, 1], 1, 3, 400, 3)
    big_first, small_first = (10.9 + 11.9) / 2, (10.9 + 1.0) / 2
    total = first[0] * big_first + first[1] * small_first
    np.testing.assert_allclose(scores, [first[0] * big_first / total, first[1] * small_first / total])


def test_determinism_and_errors():
    w = lublin_workload(2000, 64, 1)
    release, run, procs = draw_tuples(w, 1, 5)[0]
    a = trial_scores(release, run, procs, 16, 64, 3000, 11)
    b = trial_scores(release, run, procs, 16, 64, 3000, 11)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], trial_scores(release, run, procs, 16, 64, 3000, 12)[0])
    with pytest.raises(ValueError, match="needs 65 processors"):
        trial_scores([0.0, 1.0], [1.0, 1.0], [65, 1], 0, 64, 10, 0)
    with pytest.raises(ValueError, match="sorted by release"):
        trial_scores([5.0, 1.0], [1.0, 1.0], [1, 1], 0, 64, 10, 0)


def test_scores_converge_with_more_trials():
    w = lublin_workload(2000, 256, 2)
    release, run, procs = draw_tuples(w, 1, 0)[0]
    spread = score_spread(release, run, procs, 256, [500, 8000], repeats=4, seed=0)
    assert spread["normalized_std"].iloc[1] < spread["normalized_std"].iloc[0] / 2


def test_score_tuples_chunks_agree_with_one_run():
    w = lublin_workload(3000, 128, 3)
    tuples = draw_tuples(w, 4, 9)
    whole = score_tuples(tuples, 128, 500, 1)
    parts = pd.concat(
        [score_tuples(tuples[:2], 128, 500, 1, range(0, 2)), score_tuples(tuples[2:], 128, 500, 1, range(2, 4))],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(whole, parts)
    assert len(whole) == 4 * 32 and np.allclose(whole.groupby("tuple")["score"].sum(), 1.0)


def test_trial_scores_logs_its_progress_per_tuple(tmp_path, capsys, monkeypatch):
    """`simcore trial-scores`: a line on stderr after each tuple of the chunk, named by the model
    and the chunk, with the time left but on the last; the scores are those of score_tuples."""
    path, output = tmp_path / "lublin-128.parquet", tmp_path / "scores.parquet"
    workload = lublin_workload(3000, 128, 3)
    write_workload(workload, path, {"command": "test"})
    monkeypatch.setattr(study, "progress", partial(progress, every=0))  # a line after every tuple
    argv = ["trial-scores", str(path), "--tuples", "6", "--select", "2:6", "--trials", "50", "--seed", "9"]
    assert main([*argv, "--output", str(output)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(", ")[0] for line in lines] == [
        f"lublin-128 tuples 2:6: {done}/4 ({25 * done} %)" for done in range(1, 5)
    ]
    assert [line.endswith("elapsed") for line in lines] == [False, False, False, True]
    assert all(line.endswith(" left") for line in lines[:-1])
    scores = pd.read_parquet(output)
    direct = score_tuples(draw_tuples(workload, 6, 9)[2:6], 128, 50, 9, range(2, 6))
    pd.testing.assert_frame_equal(scores.drop(columns=["model", "machine_size", "trials"]), direct)


def test_family_and_precedence():
    forms = family()
    assert len(forms) == 576 and len(set(forms)) == 576
    p, q, r = np.array([2.0]), np.array([3.0]), np.array([4.0])
    assert evaluate(("id", "id", "id", "+", "*"), [1, 1, 1], p, q, r) == 2 + 3 * 4
    assert evaluate(("id", "id", "id", "*", "+"), [1, 1, 1], p, q, r) == 2 * 3 + 4
    assert evaluate(("id", "id", "id", "/", "/"), [1, 1, 1], p, q, r) == pytest.approx(2 / 3 / 4)
    assert evaluate(("log", "id", "log", "*", "+"), [1, 1, 1], p * 50, q / 3, r * 0) == 2.0  # r floored at 1


def test_regression_recovers_a_member_of_the_family():
    rng = np.random.default_rng(0)
    p, q, r = rng.uniform(1, 1e4, 400), rng.integers(1, 256, 400).astype(float), rng.uniform(1, 1e5, 400)
    truth = ("log", "id", "log", "*", "+")
    scores = pd.DataFrame({"p": p, "q": q, "r": r, "score": evaluate(truth, [2e-4, 3e-3, 5e-3], p, q, r)})
    ranked = fit_family(scores, forms=[truth, ("id", "id", "id", "+", "+"), ("inv", "sqrt", "id", "/", "*")])
    assert tuple(ranked.loc[0, ["phi_p", "phi_q", "phi_r", "op1", "op2"]]) == truth
    assert ranked.loc[0, "mae"] < 1e-8
    assert ranked["mae"].is_monotonic_increasing


def test_simplified_form_keeps_the_order():
    from simcore.studies.learned_policies.study import simplified

    assert simplified(("log", "id", "log", "*", "+"), [-0.28, -8e-5, 0.0075]) == "log10(p)·q + 335·log10(r)"
    assert simplified(("log", "id", "log", "*", "+"), [0.28, -8e-5, 0.0075]) is None  # k < 0
    assert simplified(("id", "id", "log", "+", "+"), [1, 1, 1]) is None
    # log10(p) ÷ (θ2·1/q) is log10(p)·q/θ2: k = θ1/θ2
    assert simplified(("log", "inv", "log", "/", "+"), [2.0, 4.0, 1.0]) == "log10(p)·q + 2·log10(r)"


def test_equivalent_forms_are_listed_once():
    from simcore.studies.learned_policies.study import canonical

    assert canonical(("log", "inv", "log", "/", "+")) == ("log", "id", "log", "*", "+")
    assert canonical(("id", "id", "inv", "+", "*")) == ("id", "id", "id", "+", "/")
    assert len({canonical(form) for form in family()}) < 576
    rng = np.random.default_rng(1)
    p, q, r = rng.uniform(1, 1e4, 200), rng.integers(1, 64, 200).astype(float), rng.uniform(1, 1e5, 200)
    scores = pd.DataFrame({"p": p, "q": q, "r": r, "score": 1e-4 * np.log10(p) * q + 5e-3 * np.log10(r)})
    ranked = fit_family(scores, forms=[("log", "id", "log", "*", "+"), ("log", "inv", "log", "/", "+")])
    assert len(ranked) == 1


# -- Table 3.2 beside ours ------------------------------------------------------


def form_scores(machine_size=256, trials=256_000):
    """Scores that the form of the thesis's F3 (p·q + c·log10(r)) fits worse
    than another form (log10(p)·q + c·log10(r), F1's), with the setup columns
    trial-scores writes."""
    rng = np.random.default_rng(2)
    p, q, r = rng.uniform(1, 1e4, 300), rng.integers(1, 64, 300).astype(float), rng.uniform(1, 1e5, 300)
    return pd.DataFrame(
        {
            "model": "lublin-256",
            "machine_size": machine_size,
            "trials": trials,
            "tuple": np.arange(300) % 3,
            "p": p,
            "q": q,
            "r": r,
            "score": 1e-4 * np.log10(p) * q + 5e-3 * np.log10(r),
        }
    )


def test_table_3_2_pairs_a_thesis_function_with_our_fit_of_its_form():
    from simcore.studies.learned_policies.report import learned_markdown, table32_rows, thesis_form_fits

    scores = form_scores()
    # F3's form only: our rank 1 is F3's form, yet it must be compared with F3, not with the thesis's F1
    functions = fit_family(scores, forms=[("log", "id", "log", "*", "+"), ("id", "id", "log", "*", "+")])
    fits = thesis_form_fits(functions).set_index("name")
    assert fits.loc["F1", "our_rank"] == 1 and fits.loc["F3", "our_rank"] == 2
    assert np.isnan(fits.loc["F2", "our_rank"]) and np.isnan(fits.loc["F4", "our_mae"])
    assert fits.loc["F1", "our_weight"] == pytest.approx(50.0, rel=1e-3)
    assert fits.loc["F1", "thesis_weight"] == pytest.approx(8.70e2)
    rows = table32_rows(thesis_form_fits(functions), scores).set_index(["row", "column"])
    f3 = rows.loc[("F3", "MAE")]
    assert f3["ours"] == pytest.approx(functions.loc[1, "mae"]) and f3["note"].endswith("rank 2 of ours")
    assert rows.loc[("F1", "weight of log10(r)"), "ours"] == pytest.approx(50.0, rel=1e-3)
    assert np.isnan(rows.loc[("F2", "MAE"), "ours"]) and "no finite fit" in rows.loc[("F2", "MAE"), "note"]
    assert set(rows["trace"]) == {"lublin-256"} and set(rows["sample_size"]) == {3}
    assert set(rows["sample"]) == {"tuples (|S| = 16, |Q| = 32), 256,000 trials each, m = 256"}
    text = learned_markdown(functions, scores, None)
    assert f"| F3: p·q + 6.86e6·log10(r) | 5.408e-03 | {functions.loc[1, 'simplified']} |" in text
    assert "| F2: sqrt(p)·q + 2.56e4·log10(r) | 5.317e-03 | – | – | – |" in text


def test_table_3_2_rows_of_another_setup_have_no_value_but_a_note():
    from simcore.studies.learned_policies.report import table32_rows, thesis_form_fits

    scores = form_scores(machine_size=128, trials=2000)
    rows = table32_rows(thesis_form_fits(fit_family(scores, forms=[("log", "id", "log", "*", "+")])), scores)
    assert len(rows) == 8 and rows["ours"].isna().all()
    assert (
        rows["note"]
        == "the thesis scored tuples on m = 256 with 256,000 trials; this run has m = 128 with 2,000 trials"
    ).all()
