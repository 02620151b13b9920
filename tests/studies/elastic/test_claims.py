"""The elastic study's claims (report.claims): computed on a real run of the study, each one
recomputed here independently, each one flipped across its threshold, the ablations left out; and
the committed LPC-EGEE result (docs/results/elastic/) whose claim outcomes are pinned."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO
from test_elastic_study import GRID, PRE_TRAINING, SET_JOBS, grid_workload

from simcore.engine.swf import read_swf
from simcore.studies.elastic import report
from simcore.studies.elastic.jobsets import consecutive_sets, rank_sets
from simcore.studies.elastic.report import CHECKS, claims, elastic_markdown
from simcore.studies.elastic.study import DEFAULT_RUNS, RunSettings, run_jobset, speedups, summary_table

ABLATION = "ELA-EST-0.1-cumulative"
RESULT = REPO / "docs" / "results" / "elastic"


@pytest.fixture(scope="module")
def real():
    """The paper's nine runs and one ablation on the grid workload's set 1, two seeds."""
    (jobs,) = consecutive_sets(grid_workload(), GRID, SET_JOBS, 1, PRE_TRAINING)
    runs = DEFAULT_RUNS | {ABLATION: RunSettings(True, "EST", 0.1, utilisation="cumulative")}
    frame, _, _ = run_jobset(jobs, runs, 2)
    frame.insert(0, "trace", GRID)
    return frame, speedups(frame).assign(trace=GRID)


def outcome(frame, gains) -> dict:
    checked = claims(frame, gains)
    return dict(zip(checked["claim"], checked["holds"]))


def test_every_claim_is_computed_on_a_real_run(real):
    checked = claims(*real)
    assert len(checked) == len(CHECKS)  # NAT, rigid and elastic runs, λ and model pairs: every claim
    assert list(checked.columns) == report.CLAIM_COLUMNS
    for row in checked.itertuples(index=False):
        assert row.paper and row.numbers
        assert (row.reason == "") == row.holds  # a failing claim says why


def learner_means(frame, kind, metric):
    rows = frame[(frame["kind"] == kind) & (frame["reward_utilisation"] == "interval")]
    return rows.groupby("run")[metric].mean()


def test_claims_equal_an_independent_recomputation(real):
    frame, gains = real
    found = outcome(frame, gains)
    nat = frame[frame["run"] == "NAT"]
    w, delay = learner_means(frame, "RIG", "W_interactive_mean"), learner_means(frame, "RIG", "delay_interactive_mean")
    beats_nat = (w > nat["W_interactive_mean"].mean()).all() and (delay < nat["delay_interactive_mean"].mean()).all()
    assert found["RL beats NAT on interactive W and interactive delay (rigid runs)"] == beats_nat
    u_ela = frame.loc[(frame["kind"] == "ELA") & (frame["reward_utilisation"] == "interval"), "utilisation"].mean()
    u_rig = frame.loc[frame["kind"] == "RIG", "utilisation"].mean()
    bands = abs(u_ela - 0.5) <= 0.1 and abs(u_rig - 0.7) <= 0.1
    assert found["utilisation ≈ 0.5 elastic and ≈ 0.7 rigid (± 0.1)"] == bands
    gap = max(abs(w[f"RIG-{model}-0.5"] - w[f"RIG-{model}-1"]) for model in ("ORA", "EST"))
    assert found["λ_s has little effect (rigid runs)"] == (gap <= 0.02)
    paper_runs = gains[gains["run"].isin(["ELA-ORA-0.5", "ELA-ORA-1", "ELA-EST-0.5", "ELA-EST-1"])]
    smallest = (paper_runs.groupby("run")["speedup"].mean() * 100).min()
    assert found["elastic beats rigid on interactive delay by at least 45 % (1 − ELA / RIG)"] == (smallest >= 45)
    delays = frame.groupby(["run", "seed"])["delay_interactive_mean"].first()
    wins = [
        delays[(name, seed)] < delays[(f"{policy} on the pool of {name}", seed)]
        for name in ("ELA-ORA-0.5", "ELA-ORA-1", "ELA-EST-0.5", "ELA-EST-1", "ELA-EST-0.1")
        for seed in (0, 1)
        for policy in ("FCFS", "EDF")
    ]
    numbers = dict(zip(*claims(frame, gains)[["claim", "numbers"]].to_numpy().T))
    assert numbers[
        "elastic RL beats FCFS and EDF on a fixed pool of its own mean size (same cost) on interactive delay"
    ].endswith(f"RL better in {sum(wins)} of {len(wins)} paired runs")


def set_metric(frame, selector, metric, value):
    """`metric` of the rows `selector` picks set to `value` (a function of the frame: per row)."""
    frame = frame.copy()
    chosen = selector(frame)
    frame.loc[chosen, metric] = value(frame)[chosen] if callable(value) else value
    return frame


def of_rigid_pool(ratio):
    return lambda frame: ratio * frame["rigid_pool"]


def rigid(frame):
    return frame["kind"] == "RIG"


def elastic(frame):
    return frame["kind"] == "ELA"


def named(*names):
    return lambda frame: frame["run"].isin(names)


FLIPS = {  # claim: (a change of the real frame under which it holds, one under which it fails)
    "RL beats NAT on interactive W and interactive delay (rigid runs)": (
        [(named("NAT"), "W_interactive_mean", 0.0), (named("NAT"), "delay_interactive_mean", 1e9)],
        [(named("NAT"), "W_interactive_mean", 1.0), (named("NAT"), "delay_interactive_mean", 1e9)],
    ),
    "more interactive waits under 2 minutes with RL than NAT (rigid runs)": (
        [(rigid, "interactive_within_2_min", 0.51), (named("NAT"), "interactive_within_2_min", 0.5)],
        [(rigid, "interactive_within_2_min", 0.5), (named("NAT"), "interactive_within_2_min", 0.5)],
    ),
    "λ_s has little effect (rigid runs)": (
        [(rigid, "W_interactive_mean", 0.5), (named("RIG-ORA-1", "RIG-EST-1"), "W_interactive_mean", 0.519)],
        [(rigid, "W_interactive_mean", 0.5), (named("RIG-ORA-1", "RIG-EST-1"), "W_interactive_mean", 0.521)],
    ),
    "EST ≈ ORA: largest difference of mean interactive W, rigid and elastic": (
        [(rigid, "W_interactive_mean", 0.5), (elastic, "W_interactive_mean", 0.9)],
        [
            (rigid, "W_interactive_mean", 0.5),
            (elastic, "W_interactive_mean", 0.9),
            (named("ELA-EST-1"), "W_interactive_mean", 0.87),
        ],
    ),
    "elastic runs: few interactive waits above 2 minutes, most W above 0.9": (
        [(elastic, "interactive_within_2_min", 0.96), (elastic, "W_interactive_above_0.9", 0.95)],
        [(elastic, "interactive_within_2_min", 0.94), (elastic, "W_interactive_above_0.9", 0.95)],
    ),
    "elastic runs closer to W = 1 than rigid ones ((1 − W) RIG / ELA, same model and λ)": (
        # 0.3 / 0.099 >= 0.75 x 4 and 0.3 / 0.13 >= 0.75 x 3; then 0.3 / 0.11 < 3
        [(rigid, "W_interactive_mean", 0.7), (elastic, "W_interactive_mean", 0.901)]
        + [(rigid, "W_batch_mean", 0.7), (elastic, "W_batch_mean", 0.87)],
        [(rigid, "W_interactive_mean", 0.7), (elastic, "W_interactive_mean", 0.89)]
        + [(rigid, "W_batch_mean", 0.7), (elastic, "W_batch_mean", 0.87)],
    ),
    "the preferred pool is a little above the rigid one": (
        [(elastic, "preferred_pool", of_rigid_pool(1.3))],  # within 0.2 of 90 / 81
        [(elastic, "preferred_pool", of_rigid_pool(1.35))],
    ),
    "utilisation ≈ 0.5 elastic and ≈ 0.7 rigid (± 0.1)": (
        [(elastic, "utilisation", 0.59), (rigid, "utilisation", 0.61)],
        [(elastic, "utilisation", 0.61), (rigid, "utilisation", 0.61)],
    ),
    "the fairness of RL and NAT differ by about 0 (rigid runs)": (
        [(rigid, "fairness_mean", 0.7), (named("NAT"), "fairness_mean", 0.66)],
        [(rigid, "fairness_mean", 0.7), (named("NAT"), "fairness_mean", 0.64)],
    ),
}


@pytest.mark.parametrize("claim", FLIPS)
def test_each_claim_flips_across_its_threshold(real, claim):
    frame, gains = real
    for changes, expected in zip(FLIPS[claim], (True, False)):
        changed = frame
        for selector, metric, value in changes:
            changed = set_metric(changed, selector, metric, value)
        assert outcome(changed, gains)[claim] == expected


def test_the_speedup_and_the_same_pool_claims_flip(real):
    frame, gains = real
    claim = "elastic beats rigid on interactive delay by at least 45 % (1 − ELA / RIG)"
    assert outcome(frame, gains.assign(speedup=0.451))[claim]
    assert not outcome(frame, gains.assign(speedup=0.449))[claim]
    claim = "elastic RL beats FCFS and EDF on a fixed pool of its own mean size (same cost) on interactive delay"
    fixed = frame["matches"] != ""
    assert outcome(
        set_metric(
            set_metric(frame, elastic, "delay_interactive_mean", 100.0),
            lambda f: fixed,
            "delay_interactive_mean",
            101.0,
        ),
        gains,
    )[claim]
    assert not outcome(
        set_metric(
            set_metric(frame, elastic, "delay_interactive_mean", 100.0),
            lambda f: fixed,
            "delay_interactive_mean",
            100.0,
        ),
        gains,
    )[claim]


def test_the_ablations_do_not_enter_the_claims(real):
    frame, gains = real
    ruined = set_metric(frame, named(ABLATION), "W_interactive_mean", 0.0)
    ruined = set_metric(ruined, named(ABLATION), "delay_interactive_mean", 1e12)
    pd.testing.assert_frame_equal(claims(frame, gains), claims(ruined, gains))


def test_claims_are_per_trace_and_need_their_runs(real):
    frame, gains = real
    other = frame[frame["run"].isin(["RIG-EST-1", "FCFS", "EDF"])].assign(trace="U")
    checked = claims(pd.concat([frame, other], ignore_index=True), gains)
    # trace U: no NAT, no elastic run, no λ or model pair: only RL against FCFS and EDF
    assert checked.loc[checked["trace"] == "U", "claim"].tolist() == [
        "RL beats FCFS and EDF on the same rigid pool, interactive W and delay (our ordering claim)"
    ]


# -- the committed result -----------------------------------------------------------------------

PINNED = json.loads((RESULT / "claims.json").read_text()) if (RESULT / "claims.json").exists() else {}


def committed_runs() -> pd.DataFrame:
    return pd.read_parquet(RESULT / "runs.parquet")


def test_the_committed_result_pins_its_claim_outcomes():
    runs = committed_runs()
    gains = speedups(runs).merge(runs[["jobset", "trace"]].drop_duplicates(), on="jobset")
    assert outcome(runs, gains) == PINNED


def test_the_committed_section_is_what_the_tables_write_from_the_committed_runs():
    runs = committed_runs()
    gains = speedups(runs).merge(runs[["jobset", "trace"]].drop_duplicates(), on="jobset")
    summary = pd.concat([summary_table(part).assign(trace=trace) for trace, part in runs.groupby("trace", sort=False)])
    sets = pd.read_csv(RESULT / "job_sets.csv")
    sources = {trace: "the trace's groups" for trace in runs["trace"].unique()}
    assert elastic_markdown(runs, gains, summary, sources, sets) == (RESULT / "report.md").read_text()


def test_the_committed_runs_are_what_the_study_computes(pwa_trace):
    """Two rows of the committed result, recomputed from the mirror's LPC-EGEE: the simulation and
    the learner have not moved."""
    runs = committed_runs()
    number = int(runs["jobset"].iloc[0].rsplit(" ", 1)[-1])
    workload = read_swf(pwa_trace("LPC-EGEE"), filter="truncate")
    jobs = consecutive_sets(workload, "LPC-EGEE", count=number)[-1]
    chosen = {name: DEFAULT_RUNS[name] for name in ("RIG-EST-0.5", "ELA-EST-0.1")}
    frame, _, _ = run_jobset(jobs, chosen, 1)
    for name in chosen:
        ours = frame[(frame["run"] == name) & (frame["seed"] == 0)].iloc[0]
        theirs = runs[(runs["run"] == name) & (runs["seed"] == 0)].iloc[0]
        for metric in ("W_interactive_mean", "delay_interactive_mean", "mean_pool", "utilisation"):
            assert ours[metric] == theirs[metric], (name, metric)
    assert np.isfinite(frame["W_interactive_mean"]).all()


def test_the_configured_lpc_egee_sets_are_the_closest_to_the_papers_workload(pwa_trace):
    ranked = rank_sets(consecutive_sets(read_swf(pwa_trace("LPC-EGEE"), filter="truncate"), "LPC-EGEE"))
    closest = [row["set"] for row in sorted(ranked, key=lambda row: row["rank"]) if row["rank"] > 0]
    configured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["elastic"]["job_sets"]["LPC-EGEE"]
    assert configured == closest[: len(configured)] and len(configured) == 5
    excluded = [row["set"] for row in ranked if row["excluded"]]
    assert excluded == [3] and ranked[2]["rigid_pool"] < 20  # set 3: P_rig 7
    removed = sum(row["monitoring_jobs_removed"] for row in ranked)
    assert 0 < removed < 220_695
