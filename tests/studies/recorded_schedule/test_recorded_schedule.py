"""The recorded-schedule study: the comparison of per-job waits (hand-computed cases), its weeks,
the verdict (closest, few jobs, tie), its section and figure, and on real traces that it recognises
the policy a schedule was made by."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.lines import Line2D

from simcore import read_swf
from simcore.cli import main
from simcore.engine.simulation import simulate
from simcore.engine.workload import Workload
from simcore.reporting.style import plt, save
from simcore.studies.recorded_schedule.figures import recorded_schedule_figure
from simcore.studies.recorded_schedule.report import recorded_schedule_markdown
from simcore.studies.recorded_schedule.study import (
    AGREEMENT_COLUMNS,
    MIN_VERDICT_JOBS,
    MIN_WEEK_JOBS,
    VERDICTS,
    best_policies,
    compare_schedules,
    run_recorded_schedule,
    wait_agreement,
)
from simcore.workloads.resample import WEEK

SACCT_DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "sacct" / "slurm-accounting.sacct"

POLICIES = {
    "EASY-FCFS": {"order": "FCFS"},
    "conservative": {"order": "FCFS", "reservations": "all"},
    "SPF": {"order": "SPF"},
}


def test_identical_waits_agree_fully():
    waits = np.array([0.0, 10.0, 20.0, 30.0])
    agreement = wait_agreement(waits, waits.copy())
    assert agreement["ks"] == 0.0
    assert agreement["spearman"] == 1.0
    assert agreement["mean_error"] == agreement["p90_error"] == 0.0
    assert agreement["jobs"] == 4
    assert tuple(agreement) == AGREEMENT_COLUMNS


def test_hand_computed_errors_and_distance():
    recorded = np.array([1.0, 2.0, 3.0, 4.0])
    simulated = np.array([1.0, 2.0, 3.0, 10.0])
    agreement = wait_agreement(recorded, simulated)
    # the empirical CDFs differ on [4, 10): 1 against 3/4
    assert agreement["ks"] == pytest.approx(0.25)
    assert agreement["spearman"] == pytest.approx(1.0)  # the same ranking
    assert agreement["mean_error"] == pytest.approx(6.0 / 4)
    assert agreement["mean_relative_error"] == pytest.approx(1.5 / 2.5)
    # numpy's linear 90th percentile: 3.7 recorded, 3 + 0.7 * 7 = 7.9 simulated
    assert agreement["p90_error"] == pytest.approx(7.9 - 3.7)


def test_disjoint_waits_are_at_distance_one_and_reversed_ranks_correlate_negatively():
    agreement = wait_agreement(np.array([0.0, 1.0, 2.0]), np.array([30.0, 20.0, 10.0]))
    assert agreement["ks"] == 1.0
    assert agreement["spearman"] == pytest.approx(-1.0)


def test_constant_waits_have_no_correlation_and_no_relative_error():
    agreement = wait_agreement(np.zeros(5), np.arange(5.0))
    assert np.isnan(agreement["spearman"])  # nothing to rank: not a made-up 0
    assert np.isnan(agreement["mean_relative_error"]) and np.isnan(agreement["p90_relative_error"])


def workload_with(recorded_wait, submit):
    jobs = len(submit)
    return Workload(
        job_id=np.arange(1, jobs + 1),
        submit=np.asarray(submit, dtype=float),
        run=np.full(jobs, 100.0),
        requested=np.full(jobs, 200.0),
        procs=np.ones(jobs, dtype=np.int64),
        user=np.ones(jobs, dtype=np.int64),
        machine_size=4,
        recorded_wait=np.asarray(recorded_wait, dtype=float),
    )


def test_weeks_with_few_jobs_are_left_out_and_unrecorded_waits_are_counted():
    # week 0: MIN_WEEK_JOBS jobs; week 1: one job fewer; plus 3 jobs without a recorded wait
    submit = [10.0 * k for k in range(MIN_WEEK_JOBS)] + [WEEK + 10.0 * k for k in range(MIN_WEEK_JOBS - 1 + 3)]
    recorded = [5.0] * (2 * MIN_WEEK_JOBS - 1) + [np.nan] * 3
    workload = workload_with(recorded, submit)
    whole, weekly = compare_schedules(workload, np.full(len(submit), 5.0))
    assert whole["jobs"] == 2 * MIN_WEEK_JOBS - 1 and whole["unrecorded_jobs"] == 3
    assert list(weekly["week"]) == [0] and whole["weeks"] == 1 and whole["short_weeks"] == 1
    assert weekly["ks"].iloc[0] == 0.0


def test_the_schedule_is_judged_job_by_job_beside_the_distribution():
    """Waits shifted among the jobs keep their distribution (KS 0) while every job starts
    elsewhere: the per-job agreement tells them apart."""
    submit = [100.0 * k for k in range(8)]
    recorded = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0]
    workload = workload_with(recorded, submit)
    whole, _ = compare_schedules(workload, np.array(recorded[::-1]))
    assert whole["ks"] == 0.0
    # |delta| 70, 50, 30, 10, 10, 30, 50, 70: none within 5 s, two within 30 s (10 s), mean 40 s; the
    # starts (100 k + wait) keep their order: tau 1
    assert whole["start_within_5s"] == 0.0 and whole["start_within_30s"] == 0.5
    assert whole["start_mean_abs_delta"] == 40.0 and whole["start_kendall_tau"] == pytest.approx(1.0)
    same, _ = compare_schedules(workload, np.array(recorded))
    assert same["start_within_5s"] == 1.0 and same["start_mean_abs_delta"] == 0.0


def test_a_log_without_waits_is_refused_by_name():
    workload = dataclasses.replace(workload_with([np.nan] * 3, [0.0, 1.0, 2.0]), source="site.swf")
    with pytest.raises(ValueError, match=r"site.swf: the log records no job's wait \(SWF field 3\)"):
        compare_schedules(workload, np.zeros(3))


def runs_of(traces_and_scores, jobs: int = 1000):
    return pd.DataFrame(
        [
            {
                "trace": trace,
                "policy": policy,
                "jobs": jobs,
                "weekly_ks": weekly,
                "ks": whole,
                "spearman": rho,
                "mean_relative_error": 0.0,
            }
            for trace, policy, weekly, whole, rho in traces_and_scores
        ]
    )


def test_the_closest_policy_ties_and_falls_back_to_the_whole_trace():
    runs = runs_of(
        [
            ("A", "p", 0.3, 0.5, 0.1),
            ("A", "q", 0.2, 0.9, 0.1),
            ("B", "p", 0.2, 0.2, 0.5),
            ("B", "q", 0.2 + 1e-16, 0.2, 0.7),  # a tie but for rounding: the larger correlation wins
            ("C", "p", np.nan, 0.4, 0.0),  # no week with enough jobs: the whole trace's distance
            ("C", "q", np.nan, 0.3, 0.0),
        ]
    )
    best = best_policies(runs).set_index("trace")
    assert best.loc["A", "best"] == "q" and best.loc["A", "margin"] == pytest.approx(0.1)
    assert best.loc["B", "best"] == "q" and best.loc["B", "margin"] == pytest.approx(0.0, abs=1e-15)
    assert best.loc["C", "best"] == "q" and best.loc["C", "score"] == pytest.approx(0.3)
    # the ranking's columns stay; the verdict says which first policies are the closest
    assert best["verdict"].tolist() == ["closest", "tie", "closest"] and set(best["verdict"]) <= set(VERDICTS)
    assert best.loc["B", "tied"] == "q, p" and best.loc["A", "tied"] == "q"


def test_the_verdict_names_the_closest_policy_with_its_runner_up_and_margin():
    best = best_policies(runs_of([("A", "p", 0.3, 0.5, 0.1), ("A", "q", 0.2, 0.9, 0.1)])).iloc[0]
    assert best["verdict"] == "closest" and best["jobs"] == 1000
    assert best["verdict_text"] == "q is closest (KS 0.200; runner-up p 0.300, margin 0.100)"


def test_a_tie_is_no_verdict_and_lists_every_tied_policy_by_correlation():
    runs = runs_of(
        [
            ("T", "p", 0.25, 0.2, 0.5),
            ("T", "q", 0.25 + 1e-16, 0.2, 0.7),
            ("T", "r", 0.25, 0.2, 0.6),
            ("T", "s", 0.4, 0.2, 0.9),
        ]
    )
    best = best_policies(runs).iloc[0]
    assert best["verdict"] == "tie" and best["best"] == "q" and best["runner_up"] == "r"
    assert best["verdict_text"] == "no verdict: q, r and p tie at KS 0.250"
    assert "closest" not in best["verdict_text"]


@pytest.mark.parametrize(("jobs", "verdict"), [(MIN_VERDICT_JOBS - 1, "few jobs"), (MIN_VERDICT_JOBS, "closest")])
def test_fewer_than_the_threshold_of_jobs_is_no_verdict_even_with_a_clear_first(jobs, verdict):
    runs = runs_of([("S", "p", 0.1, 0.1, 0.9), ("S", "q", 0.6, 0.6, 0.1)], jobs=jobs)
    best = best_policies(runs).iloc[0]
    assert best["verdict"] == verdict and best["best"] == "p" and best["margin"] == pytest.approx(0.5)
    if verdict == "few jobs":
        assert (
            best["verdict_text"] == f"no verdict: {jobs} jobs (fewer than 100); p is first at KS 0.100, q next at 0.600"
        )
    assert MIN_VERDICT_JOBS == 100


def test_few_jobs_and_a_tie_say_both():
    runs = runs_of([("S", "EASY-FCFS", 0.273, 0.3, 0.9), ("S", "EASY-SJBF", 0.273, 0.3, 0.8)], jobs=11)
    best = best_policies(runs).iloc[0]
    assert best["verdict"] == "few jobs"
    assert best["verdict_text"] == "no verdict: 11 jobs (fewer than 100); EASY-FCFS and EASY-SJBF tie at KS 0.273"


def section_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """`runs_of` with the columns the section prints."""
    return runs.assign(
        unrecorded_jobs=0,
        weeks=1,
        recorded_mean=10.0,
        recorded_p90=20.0,
        simulated_mean=8.0,
        simulated_p90=15.0,
        p90_relative_error=-0.25,
        weekly_spearman=0.5,
        start_within_5s=0.25,
        start_within_30s=0.5,
        start_kendall_tau=0.875,
    )


def test_the_section_gives_each_verdict_and_the_causes_of_disagreement():
    runs = pd.concat(
        [
            runs_of([("site", "p", 0.2, 0.2, 0.9), ("site", "q", 0.3, 0.3, 0.1)]),
            runs_of([("tiny", "p", 0.273, 0.273, 0.9), ("tiny", "q", 0.273, 0.273, 0.8)], jobs=11),
        ],
        ignore_index=True,
    )
    runs = section_runs(runs)
    text = recorded_schedule_markdown(runs, best_policies(runs), {"p": {"order": "FCFS"}, "q": {"order": "SPF"}})
    rows = [line for line in text.splitlines() if line.startswith("| site |") or line.startswith("| tiny |")]
    assert rows[0].startswith("| site | 1,000 | p is closest |")
    assert rows[1].startswith("| tiny | 11 | no verdict: 11 jobs (fewer than 100); p and q tie at KS 0.273 |")
    assert "No verdict: 11 jobs (fewer than 100); p and q tie at KS 0.273." in text
    assert "Verdict: p is closest (KS 0.200; runner-up q 0.300, margin 0.100)." in text
    # each policy judged job by job beside the distances
    assert "| ±5 s | ±30 s | start τ |" in text and "| 25 % | 50 % | 0.875 |" in text
    assert "tiny | p" not in text.split("### tiny")[0]  # the table names no closest policy for tiny
    # the causes beside the policy: memory and node granularity among them
    assert "not nodes or memory" in text and "whole nodes" in text and "wait for memory" in text
    assert "user limits" in text or "per-user limits" in text


def weekly_of(trace: str, weeks, policies, jobs: int = 11) -> pd.DataFrame:
    """Weekly rows: the recorded mean 10 s, policy k's simulated mean 8 s (all alike but the last, 5 s)."""
    return pd.DataFrame(
        [
            {
                "trace": trace,
                "policy": policy,
                "week": week,
                "jobs": jobs,
                "recorded_mean": 10.0,
                "simulated_mean": 5.0 if k == len(policies) - 1 else 8.0,
            }
            for week in weeks
            for k, policy in enumerate(policies)
        ]
    )


def test_a_one_week_trace_draws_a_visible_dot_per_series_side_by_side(tmp_path):
    policies = ["EASY-FCFS", "EASY-SJBF", "conservative", "MF-small"]
    figure = recorded_schedule_figure(weekly_of("slurm-ci", [0], policies))
    axis = figure.axes[0]
    dots = [line for line in axis.get_lines() if line.get_marker() == "o"]
    assert [dot.get_label() for dot in dots] == ["recorded", *policies]
    # one dot each, at its own x (equal means stay visible), large enough to see
    assert [float(dot.get_xdata()[0]) for dot in dots] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert all(dot.get_markersize() >= 5 for dot in dots)
    assert [float(dot.get_ydata()[0]) for dot in dots] == [10.0, 8.0, 8.0, 8.0, 5.0]
    # no range of weeks around the one: the axis names the series, and a note says why
    assert [label.get_text() for label in axis.get_xticklabels()] == ["recorded", *policies]
    low, high = axis.get_xlim()
    assert -1 < low < 0 and 4 < high < 5
    assert axis.get_xlabel() == f"week 0, 11 jobs:\nthe log's only week of {MIN_WEEK_JOBS} jobs or more"
    save(figure, [tmp_path / "one_week.png"])
    assert (tmp_path / "one_week.png").stat().st_size > 0


def test_a_several_week_trace_keeps_its_lines_and_the_legend_draws_lines_beside_a_one_week_panel():
    policies = ["EASY-FCFS", "conservative"]
    weekly = pd.concat([weekly_of("slurm-ci", [0], policies), weekly_of("site", range(6), policies, jobs=50)])
    figure = recorded_schedule_figure(weekly)
    one, several = figure.axes[:2]
    assert one.get_xlabel().startswith("week 0, 11 jobs") and several.get_xlabel() == "week of submission"
    lines = [line for line in several.get_lines() if len(line.get_xdata()) == 6]
    assert [line.get_label() for line in lines] == ["recorded", *policies]
    handles = figure.legends[0].legend_handles
    assert all(isinstance(handle, Line2D) and handle.get_linestyle() == "-" for handle in handles)
    plt.close(figure)


def test_a_trace_without_a_week_of_enough_jobs_gets_a_panel_saying_so(tmp_path):
    """Nine jobs in one week and three in the next: no weekly row, the tables command still writes
    its figure (a panel per trace of the runs) and the verdict says the jobs are too few."""
    submit = [100.0 * k for k in range(MIN_WEEK_JOBS - 1)] + [WEEK + 100.0 * k for k in range(3)]
    workload = workload_with(np.full(len(submit), 30.0), submit)
    runs, weekly = run_recorded_schedule(workload, POLICIES)
    assert weekly.empty and (runs["weeks"] == 0).all()
    paths = {name: tmp_path / name for name in ("runs.parquet", "weekly.parquet")}
    runs.assign(trace="tiny").to_parquet(paths["runs.parquet"])
    weekly.assign(trace="tiny").to_parquet(paths["weekly.parquet"])
    policies = json.dumps(POLICIES)
    outputs = {name: str(tmp_path / name) for name in ("summary.parquet", "best.csv", "report.md", "f.png")}
    arguments = [
        "recorded-schedule-tables",
        "--runs",
        str(paths["runs.parquet"]),
        "--weekly",
        str(paths["weekly.parquet"]),
    ]
    arguments += ["--policies", policies, "--summary", outputs["summary.parquet"], "--table-csv", outputs["best.csv"]]
    arguments += ["--section", outputs["report.md"], "--figure", outputs["f.png"]]
    assert main(arguments) == 0
    assert Path(outputs["f.png"]).stat().st_size > 0
    assert pd.read_csv(outputs["best.csv"])["verdict"].tolist() == ["few jobs"]
    figure = recorded_schedule_figure(weekly.assign(trace="tiny"), ["tiny"], list(POLICIES))
    assert [text.get_text() for text in figure.axes[0].texts] == [
        f"no week of {MIN_WEEK_JOBS} jobs or more:\nthe whole trace's comparison is in the report"
    ]
    assert figure.legends == []
    plt.close(figure)


def test_ci_slurm_dump_gets_no_verdict_for_its_11_jobs(tmp_path):
    """CI's Slurm dump as `simcore import-sacct` converts it: 11 jobs that ran, one week; the policies
    that give it the same schedule tie, and 11 jobs are too few for a verdict anyway."""
    swf = tmp_path / "slurm-ci.swf"
    assert main(["import-sacct", str(SACCT_DUMP), "-o", str(swf)]) == 0
    workload = read_swf(swf, filter="truncate")
    runs, weekly = run_recorded_schedule(workload, POLICIES)
    best = best_policies(runs.assign(trace="slurm-ci")).iloc[0]
    assert best["jobs"] == 11 and best["verdict"] == "few jobs"
    assert best["verdict_text"].startswith("no verdict: 11 jobs (fewer than 100); EASY-FCFS and conservative tie")
    assert weekly["week"].unique().tolist() == [0]
    figure = recorded_schedule_figure(weekly.assign(trace="slurm-ci"))
    assert len([line for line in figure.axes[0].get_lines() if line.get_marker() == "o"]) == 1 + len(POLICIES)
    plt.close(figure)


@pytest.mark.parametrize("trace", ["KTH-SP2", "SDSC-SP2"])
@pytest.mark.parametrize("truth", ["EASY-FCFS", "conservative"])
def test_a_schedule_made_by_a_policy_is_recognised_as_that_policy(pwa_trace, trace, truth):
    """The comparison can tell policies apart: recorded waits replaced by one policy's own
    simulated waits make that policy the closest, at distance 0 and correlation 1."""
    workload = read_swf(pwa_trace(trace), filter="truncate")
    made = simulate(workload, **POLICIES[truth])
    workload = dataclasses.replace(workload, recorded_wait=made.start - workload.submit)
    runs, weekly = run_recorded_schedule(workload, POLICIES)
    runs = runs.assign(trace=trace)
    row = runs.set_index("policy").loc[truth]
    assert row["ks"] == 0.0 and row["weekly_ks"] == 0.0 and row["mean_error"] == 0.0
    assert row["spearman"] == pytest.approx(1.0)
    best = best_policies(runs).iloc[0]
    assert best["best"] == truth and best["margin"] > 0.01 and best["verdict"] == "closest"
    assert set(weekly["policy"]) == set(POLICIES) and (weekly["jobs"] >= MIN_WEEK_JOBS).all()


def test_real_trace_runs_are_deterministic(pwa_trace):
    workload = read_swf(pwa_trace("KTH-SP2"), filter="truncate")
    first = run_recorded_schedule(workload, POLICIES)
    second = run_recorded_schedule(workload, POLICIES)
    for a, b in zip(first, second):
        pd.testing.assert_frame_equal(a, b)
