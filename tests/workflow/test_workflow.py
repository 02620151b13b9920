"""The Snakemake workflow, run for real on small configurations.

Each run works in its own temporary directory (`--directory`), reads traces
through the tests' trace directory (conftest.PWA) and never touches the network.
"""

import copy
import gzip
import hashlib
import importlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import PWA, REPO, mirror_with

from simcore.reporting.reproduction import REPRODUCTION_COLUMNS
from simcore.workloads.catalogue import FetchError, fetch_trace, load_catalogue
from simcore.workloads.files import read_provenance

pytestmark = [pytest.mark.workflow, pytest.mark.xdist_group("tiny_run")]

# as a user runs it: the default profile is found beside the Snakefile (profiles/default)
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]


def load_config(path: Path) -> dict:
    """A configuration file, with the catalogue and the local mirror as absolute paths
    (the runs work in temporary directories)."""
    config = yaml.safe_load(path.read_text())
    return {**config, "catalogue": str(REPO / "config" / "pwa_catalogue.yaml"), "pwa_mirror": str(PWA)}


# The small end-to-end configuration (.test/config/config.yaml, see .test/README.md).
TINY = load_config(REPO / ".test" / "config" / "config.yaml")
CAMPAIGN = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
STRATEGIES = ["Full-W", "eps-D", "UCB1-D", "Full-W-artifact"]
ARTIFACT_TABLES = {"Table 2 (artifact configuration)", "Table 3 (artifact configuration)"}
# request and clairvoyant x 2 variants, (AVE2 + 2 x 2 x 2 regressions) x 2 corrections x 2 variants
TINY_TRIPLES = 4 + (1 + 8) * 2 * 2


def run_snakemake(workdir: Path, config: dict, *args, base=TINY, check=True, **popen):
    """Snakemake in workdir on `config` merged onto `base` (TINY, or CAMPAIGN: config/config.yaml)."""
    workdir.mkdir(parents=True, exist_ok=True)
    configfile = workdir / "test-config.yaml"
    full = copy.deepcopy(base)
    for key, value in config.items():  # sections are merged one level deep, like `--config`
        full[key] = {**full[key], **value} if isinstance(value, dict) and key in full else value
    configfile.write_text(yaml.safe_dump(full, sort_keys=False))
    command = SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(configfile), "--cores", "2", *args]
    if popen:  # started, not waited for: its output goes to a file beside workdir, as no one reads a pipe
        with open(workdir.with_name(workdir.name + ".log"), "a") as log:
            return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, **popen)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if check:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def digests(root: Path) -> dict:
    files = [
        path
        for path in sorted(root.rglob("*"))
        if path.is_file() and "logs" not in path.parts and path.suffix in (".parquet", ".csv", ".md")
    ]
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest() for path in files}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    mirror_with(*TINY["traces"])  # the configuration's real traces: every other study's are among them
    workdir = tmp_path_factory.mktemp("tiny")
    run_snakemake(workdir, TINY)
    return workdir


def test_end_to_end_outputs_and_schemas(tiny_run):
    results = tiny_run / "results"
    for trace in TINY["traces"]:
        summary = pd.read_parquet(results / "summary" / f"{trace}.runs.parquet")
        assert set(summary["variant"]) == {0, 1, 2}
        assert set(summary["order"]) == {"FCFS", "SPF", "LQF", "SAF"}
        assert len(summary) == 3 * 4 * 2
        assert {
            "trace",
            "variant",
            "order",
            "threshold",
            "backfill",
            "jobs",
            "avg_wait",
            "max_wait",
            "avg_bsld",
            "avg_ppbsld",
            "backfilled",
        } <= set(summary.columns)
        assert (summary["jobs"] > 0).all()
        curves = pd.read_parquet(results / "summary" / f"{trace}.curves.parquet")
        assert set(curves["week"]) == set(range(1, 9))
        assert (curves.loc[curves["order"] == "FCFS", "mean"] == 0).all()
        for plot in ("cumulative_wait", "bsld"):
            for ext in ("png", "pdf"):
                assert (results / "plots" / f"{trace}.{plot}.{ext}").stat().st_size > 10_000
        provenance = read_provenance(results / "traces" / f"{trace}.parquet")
        assert provenance["filter"] == "strict" and provenance["filter_counts"]["kept"] > 0
        variants = read_provenance(results / "variants" / f"{trace}.parquet")
        assert variants["base_seed"] == 0 and variants["weeks"] == 8 and variants["variants"] == 3
    table = pd.read_csv(results / "tables" / "fixed_policy.csv")
    assert {"trace", "order", "threshold", "backfill", "mean", "p10", "p90", "variants"} <= set(table.columns)
    reproduction = pd.read_csv(results / "reproduction.csv")
    assert list(reproduction.columns) == REPRODUCTION_COLUMNS
    # every row names what ours rests on; a row without ours or a sample size says why
    assert reproduction[["trace", "sample"]].notna().all().all()
    assert reproduction.loc[reproduction["ours"].isna() | reproduction["sample_size"].isna(), "note"].notna().all()
    papers = {"bandit-2017", "prediction-sc15", "thesis-ch3", "thesis-ch4", "asax-2024", "elastic-2009"}
    assert set(reproduction["paper"]) == papers
    reproduction = reproduction[reproduction["paper"] == "bandit-2017"]
    assert set(reproduction["row"]) == {"KTH-SP2", "UniLu-Gaia"}
    assert set(reproduction["table"]) == {"Table 2", "Table 3"} | ARTIFACT_TABLES
    compared = reproduction[reproduction["table"] == "Table 2"].dropna(subset=["ours"])
    assert set(compared["column"]) == {"LPF (ours: SPF)", "SQF (ours: LQF)", "LAF (ours: SAF)"}
    assert "label" in (results / "reproduction.md").read_text().lower()


def test_site_policies_outputs(tiny_run):
    """fixed_policy.site_policies: every (trace, variant, policy) run, the change table and figure,
    the fair-share factors, and the section inside the fixed-policy one of the reproduction report."""
    results = tiny_run / "results"
    policies = TINY["fixed_policy"]["site_policies"]
    runs = pd.read_parquet(results / "summary" / "site_policies.parquet")
    assert len(runs) == len(TINY["traces"]) * 3 * len(policies)
    assert set(runs["policy"]) == set(policies)
    conservative = runs[runs["policy"] == "conservative"]
    assert (conservative["reservations"] == "all").all() and (conservative["reservations_made"] > 0).all()
    table = pd.read_csv(results / "tables" / "site_policies.csv")
    assert set(zip(table["trace"], table["policy"])) == {(t, p) for t in TINY["traces"] for p in policies}
    assert (table.loc[table["policy"] == "EASY-FCFS", "avg_wait_change"] == 0).all()
    shares = pd.read_parquet(results / "summary" / "fair_share.parquet")
    assert set(shares["policy"]) == {"MF-fairshare"} and set(shares["trace"]) == set(TINY["traces"])
    assert read_provenance(results / "summary" / "site_policies.parquet")["policies"] == policies
    for ext in ("png", "pdf"):
        assert (results / "plots" / f"site_policies.{ext}").stat().st_size > 10_000
    section = (results / "fixed_policy" / "report.md").read_text()
    assert "## Site policies: reservation depth and multifactor priority against EASY-FCFS" in section
    assert "## Site policies" in (results / "reproduction.md").read_text()


def test_bandit_study_outputs(tiny_run):
    results = tiny_run / "results"
    for trace in TINY["traces"]:
        table = pd.read_csv(results / "summary" / f"{trace}.bandit.csv")
        assert table["order"].tolist() == STRATEGIES and (table["variants"] == 3).all()
        regret = pd.read_parquet(results / "summary" / f"{trace}.bandit.regret.parquet")
        assert len(regret) == 3 * len(STRATEGIES)
        runs = pd.read_parquet(results / "summary" / f"{trace}.bandit.runs.parquet")
        fixed = runs[runs["order"].isin(["FCFS", "SPF", "LQF", "SAF"])]
        for _, row in regret.iterrows():
            same = fixed[
                (fixed["variant"] == row["variant"])
                & (fixed["backfill"] == row["backfill"])
                & (fixed["threshold"] == row["threshold"])
            ]
            assert row["best_fixed_wait"] == same["total_wait"].min()
            assert row["regret"] == row["total_wait"] - row["best_fixed_wait"]
        shares = pd.read_parquet(results / "summary" / f"{trace}.bandit.shares.parquet")
        sums = shares.groupby(["strategy", "start"])["share"].sum()
        assert ((sums - 1).abs() < 1e-12).all()
        for plot in ("strategies", "regret", "choices"):
            assert (results / "plots" / f"{trace}.{plot}.png").stat().st_size > 10_000
    reproduction = pd.read_csv(results / "reproduction.csv")
    table3 = reproduction[reproduction["table"] == "Table 3"]
    assert set(table3["column"]) == {"Full week", "eps-greedy day", "Full week (artifact variant)"}
    assert "Table 3" in (results / "reproduction.md").read_text()


def test_artifact_configuration_rows_beside_the_default_ones(tiny_run):
    results = tiny_run / "results"
    artifact = results / "artifact"
    for trace in TINY["traces"]:
        runs = pd.read_parquet(artifact / "summary" / f"{trace}.runs.parquet")
        assert (
            set(runs["variant"]) == {0, 1} and set(runs["threshold"]) == {200000} and set(runs["backfill"]) == {"LQF"}
        )
        variants = read_provenance(artifact / "variants" / f"{trace}.parquet")
        assert variants["weeks"] == 6 and variants["variants"] == 2
        strategies = pd.read_csv(artifact / "summary" / f"{trace}.bandit.csv")
        assert strategies["order"].tolist() == ["Full-W", "eps-D"] and set(strategies["backfill"]) == {"LQF"}
    reproduction = pd.read_csv(results / "reproduction.csv")
    reproduction = reproduction[reproduction["paper"] == "bandit-2017"]
    rows = {table: block.dropna(subset=["ours"]) for table, block in reproduction.groupby("table")}
    table2, table2_artifact = rows["Table 2"], rows["Table 2 (artifact configuration)"]
    assert set(table2_artifact["row"]) == {"KTH-SP2", "UniLu-Gaia"}
    # like with like: the same published cells, each from its own configuration's runs
    keys = ["row", "column", "published"]
    assert table2_artifact[keys].values.tolist() == table2[keys].values.tolist()
    assert (table2_artifact["ours"].values != table2["ours"].values).all()
    assert set(rows["Table 3 (artifact configuration)"]["column"]) == {"Full week", "eps-greedy day"}
    text = (results / "reproduction.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## Bandit policy selection")]
    assert [heading.split(":")[0] for heading in headings] == [
        "## Bandit policy selection (2017), Table 2",
        "## Bandit policy selection (2017), Table 3",
        "## Bandit policy selection (2017), Table 2 (artifact configuration)",
        "## Bandit policy selection (2017), Table 3 (artifact configuration)",
    ]
    assert "Differences of these rows with it: threshold 144000 s (artifact: 200000 s)" in text
    assert "2 variants of 6 weeks by the `user-weeks` resampler (artifact: 60 of its own construction" in text


def test_artifact_configuration_is_planned_beside_the_campaign(tmp_path):
    done = run_snakemake(tmp_path, {}, "--dry-run", "--printshellcmds", "--config", "only=[KTH-SP2]", base=CAMPAIGN)
    output = done.stdout
    # 60 variants of the artifact's construction: 6 sweep jobs of 10 variants and 12 learner jobs of 5
    assert "--variants 60 --base-seed 0 --method artifact" in output
    assert len(set(re.findall(r"results/artifact/sweep/KTH-SP2/(\d+)\.runs\.parquet", output))) == 6
    assert len(set(re.findall(r"results/artifact/bandit/KTH-SP2/(\d+)\.runs\.parquet", output))) == 12
    assert "--thresholds 200000 --backfills LQF" in output
    assert "--threshold 200000 --backfill LQF --weeks interior --method artifact --configuration artifact" in output
    report = re.search(r"simcore report .*--workloads-csv results/tables/.*", output).group(0)  # the campaign's
    sections = re.search(r"--sections (.*?) --section-rows", report).group(1).split()
    assert sections[:5] == [
        "results/fixed_policy/report.md",
        "results/bandit/report.md",
        "results/artifact/fixed_policy/report.md",
        "results/artifact/bandit/report.md",
        "results/prediction/report.md",
    ]
    # the target alone: the artifact root's jobs and the trace they need, nothing of the campaign's
    done = run_snakemake(tmp_path, {}, "bandit_artifact", "--dry-run", "--printshellcmds", base=CAMPAIGN)
    roots = set(re.findall(r"wildcards: root=([\w/]+)", done.stdout))
    assert roots == {"results/artifact"}
    assert "results/sweep/" not in done.stdout and "results/prediction/" not in done.stdout


def test_prediction_study_outputs(tiny_run):
    from simcore.studies.prediction.study import TRIPLE, loto_best

    results = tiny_run / "results"
    traces = TINY["prediction"]["traces"]
    for trace in traces:
        provenance = read_provenance(results / "prediction" / "traces" / f"{trace}.parquet")
        assert provenance["filter"] == "truncate"
        for plot in ("ecdf_errors", "ecdf_values"):
            assert (results / "prediction" / "plots" / f"{trace}.{plot}.png").stat().st_size > 10_000
    grid = pd.read_parquet(results / "prediction" / "grid.parquet")
    assert grid.groupby("trace").size().to_dict() == {trace: TINY_TRIPLES for trace in traces}
    assert not grid[["trace", *TRIPLE]].duplicated().any()
    selection = pd.read_csv(results / "prediction" / "selection.csv").set_index("trace")
    for trace, other in (traces, traces[::-1]):
        chosen = tuple(selection.loc[trace, ["cv_predictor", "cv_correction", "cv_backfill"]])
        assert chosen == loto_best(grid, trace) == loto_best(grid[grid["trace"] == other], trace)
        assert chosen[0] != "clairvoyant"
    variants = pd.read_csv(results / "prediction" / "tables" / "variants.csv")
    assert (variants["variants"] == 2).all() and set(variants["trace"]) == set(traces)
    assert (results / "prediction" / "plots" / "correlations.png").stat().st_size > 10_000
    reproduction = pd.read_csv(results / "reproduction.csv")
    ours = reproduction[reproduction["paper"] == "prediction-sc15"].set_index(["table", "row", "column"])
    # the project's specification asks for within 5 % of the published EASY and clairvoyant values
    for column in ("easy", "clairvoyant"):
        row = ours.loc[("Table 1", "KTH-SP2", column)]
        assert abs(row["ours"] - row["published"]) <= 0.05 * row["published"], (column, row)
    assert "Running-time prediction" in (results / "reproduction.md").read_text()


def test_simple_policies_study_outputs(tiny_run):
    results = tiny_run / "results" / "simple_policies"
    text = read_provenance(tiny_run / "results" / "simple_policies" / "traces" / "KTH-SP2.parquet")
    assert text["filter"] == "truncate"
    # the log again through Batsim's converter (simple_policies.conversions): its own trace and rows
    converted = read_provenance(tiny_run / "results" / "simple_policies" / "traces" / "KTH-SP2+batsim.parquet")
    assert converted["filter"] == "batsim" and converted["input_sha256"] == text["input_sha256"]
    runs = pd.read_parquet(results / "tables" / "runs.parquet")
    assert len(runs) == 2 * 2 * 4 and set(runs["order"]) == {"FCFS", "SPF", "SQF", "SAF"}
    assert runs.groupby("trace").size().to_dict() == {"KTH-SP2": 8, "KTH-SP2+batsim": 8}
    for name in ("KTH-SP2", "KTH-SP2+batsim"):
        provenance = read_provenance(results / "sweep" / name / "0.runs.parquet")
        trace = pd.read_parquet(tiny_run / "results" / "simple_policies" / "traces" / f"{name}.parquet")
        assert provenance["threshold"] == 3 * trace["requested"].max()
    curves = pd.read_parquet(results / "tables" / "curves.parquet")
    assert set(curves["week"]) == set(range(1, 9))
    for figure in ("KTH-SP2.objectives", "KTH-SP2+batsim.objectives", "delayed", "categories", "backfilled"):
        assert (results / "plots" / f"{figure}.png").stat().st_size > 10_000
    reproduction = pd.read_csv(tiny_run / "results" / "reproduction.csv")
    thesis = reproduction[reproduction["paper"] == "thesis-ch4"]
    assert set(thesis["table"]) == {"Table 4.3", "Table 4.4", "Section 4.3"}
    assert set(thesis.loc[thesis["table"] == "Table 4.4", "row"]) == {"KTH-SP2", "KTH-SP2 (Batsim conversion)"}
    assert "Thesis, chapter 4" in (tiny_run / "results" / "reproduction.md").read_text()


def test_learned_functions_outputs(tiny_run):
    results = tiny_run / "results" / "learned_policies"
    scores = pd.concat([pd.read_parquet(results / "scores" / f"{chunk}.parquet") for chunk in range(2)])
    assert sorted(scores["tuple"].unique()) == [0, 1, 2] and len(scores) == 3 * 32
    functions = pd.read_csv(results / "functions.csv")
    assert functions["mae"].is_monotonic_increasing and len(functions) > 100
    assert list(pd.read_csv(results / "spread.csv")["trials"]) == [100, 400]
    assert (results / "plots" / "scores.png").stat().st_size > 10_000
    reproduction = pd.read_csv(tiny_run / "results" / "reproduction.csv")
    table32 = reproduction[reproduction["table"] == "Table 3.2"]
    # F1-F4, MAE and submit-time weight each; the tiny setup (m = 128, 400 trials) is not the thesis's
    assert len(table32) == 4 * 2 and table32["ours"].isna().all()
    assert table32["note"].str.startswith("the thesis scored tuples on m = 256").all()


def test_dynamic_scheduling_outputs(tiny_run):
    results = tiny_run / "results" / "dynamic_scheduling"
    medians = pd.read_csv(results / "tables" / "medians.csv")
    assert medians[["trace", "published_as", "sequences"]].drop_duplicates().values.tolist() == [
        ["lublin-256", "model-256", 2],
        ["KTH-SP2", "KTH-SP2", 3],
    ]
    assert (medians["days"] == 15).all()
    assert list(medians.columns[5:]) == ["FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1", "L1", "L2"]
    assert read_provenance(results / "traces" / "KTH-SP2.parquet")["filter"] == "truncate"
    functions = pd.read_csv(tiny_run / "results" / "learned_policies" / "functions.csv")
    learned = pd.read_parquet(results / "runs" / "KTH-SP2" / "0.parquet").drop_duplicates("policy")
    assert learned.set_index("policy").loc["L1", "function"] == functions.loc[0, "function"]
    for setting in ("actual", "estimates", "backfilling"):
        assert (results / "plots" / f"{setting}.png").stat().st_size > 10_000
    reproduction = pd.read_csv(tiny_run / "results" / "reproduction.csv")
    table33 = reproduction[reproduction["table"] == "Table 3.3"]
    # the model's rows (m = 256), without values: the demo's small model has 2 sequences, not the thesis's 50
    assert len(table33) == 3 * 8 and table33["ours"].isna().all()
    assert (table33["note"] == "the thesis used 50 sequences of 15 days; this run has 2 sequences of 15 days").all()
    assert "Thesis, section 3.3" in (tiny_run / "results" / "reproduction.md").read_text()


def test_coscheduling_outputs(tiny_run):
    results = tiny_run / "results" / "coscheduling"
    flush = pd.read_parquet(results / "runs" / "KTH-SP2" / "E1.parquet")
    # 8 windows x 3 loads x (SPACE + 2 x (STATIC, HEADROOM, ASAX, ASAX-warm)), one seed
    assert len(flush) == 8 * 3 * (1 + 2 * 4)
    assert flush["configuration"].unique().tolist() == ["SPACE", "STATIC", "ASAX", "HEADROOM", "ASAX-warm"]
    assert read_provenance(results / "runs" / "KTH-SP2" / "E1.parquet")["efficiency"] == "assume-cpu-bound"
    model = read_provenance(results / "runs" / "lublin-256" / "E2.parquet")
    assert model["efficiency_source"].startswith("the fitted gaia profile")
    summary = pd.read_csv(results / "tables" / "summary.csv")
    assert set(summary["experiment"]) == {"E1", "E2"}
    assert set(summary["trace"]) == {"lublin-256", "KTH-SP2", "ASA_X-queue"}  # the paper's own queue too
    queue = summary[summary["trace"] == "ASA_X-queue"]
    assert set(queue["load"]) == {8.0, 4.0, 2.0} and set(queue["experiment"]) == {"E1"}
    classes = pd.read_parquet(results / "runs" / "ASA_X-queue" / "classes.parquet")
    assert set(classes["workflow"]) == {"Montage", "BLAST", "Statistics", "Synthetic"}
    claims = pd.read_csv(results / "tables" / "claims.csv")
    assert set(claims["claim"]) == {"wait", "response", "utilisation", "runtime"}
    assert set(claims["configuration"]) == {"STATIC", "ASAX"}
    assert set(claims["outcome"]) <= {"holds", "fails", "undetermined"}
    # a reason exactly where a claim does not hold
    assert (claims["reason"].fillna("") != "").eq(claims["outcome"] != "holds").all()
    # the queue runs its sharing configurations on first fit, SPACE on EASY, each size three times
    queue_runs = pd.read_parquet(results / "runs" / "ASA_X-queue" / "E1.parquet")
    schedulers = queue_runs.groupby("strategy")["scheduler"].unique().map(set).to_dict()
    assert schedulers["SPACE"] == {"easy"} and schedulers["STATIC"] >= {"first-fit"}
    assert set(queue_runs["window"]) == {0, 1, 2}
    space = summary[summary["configuration"] == "SPACE"]
    assert (space["mean_wait_ratio"].dropna() == 1.0).all()
    weights = pd.read_parquet(results / "weights" / "lublin-256.parquet")
    assert {"trace", "load", "kappa", "configuration", "seed", "round", "CPU", "MEM", "TYPE", "PHASE"} <= set(
        weights.columns
    )
    assert len(weights) and (abs(weights[["CPU", "MEM", "TYPE", "PHASE"]].sum(axis=1) - 1) < 1e-12).all()
    for figure in ("ratios_e1", "ratios_e2", "utilisation", "slowdown", "weights", "actions"):
        assert (results / "plots" / f"lublin-256.{figure}.png").stat().st_size > 10_000
    reproduction = pd.read_csv(tiny_run / "results" / "reproduction.csv")
    rows = reproduction[reproduction["paper"] == "asax-2024"]
    # per trace, load and compared strategy: wait, response, utilisation gain and runtime change; the paper's
    # queue: Table 2's job-weighted U (3 sizes x SPACE, STATIC, ASAX), Table 3 (the same x 3 columns),
    # Table 2 per workflow (the same x 4 workflows x 3 columns)
    assert len(rows[rows["trace"] != "ASA_X-queue"]) == 2 * 3 * 2 * 4
    assert len(rows[rows["trace"] == "ASA_X-queue"]) == 3 * 3 + 3 * 3 * 3 + 3 * 3 * 4 * 3
    assert "absolute hours" in (tiny_run / "results" / "reproduction.md").read_text()


def test_coscheduling_runs_for_one_trace(tiny_run, tmp_path):
    run_snakemake(tmp_path, {}, "coscheduling", "--config", "only=[KTH-SP2]")
    for name in ("runs/KTH-SP2/E1.parquet", "runs/KTH-SP2/E2.parquet"):
        assert (tmp_path / "results" / "coscheduling" / name).read_bytes() == (
            tiny_run / "results" / "coscheduling" / name
        ).read_bytes()
    assert not (tmp_path / "results" / "coscheduling" / "runs" / "lublin-256").exists()


def test_elastic_outputs(tiny_run):
    results = tiny_run / "results" / "elastic"
    kth = pd.read_parquet(results / "runs" / "KTH-SP2" / "2.parquet")
    same_pool = [f"{policy} on the pool of {run}" for run in ("ELA-EST-0.5", "ELA-ORA-1") for policy in ("FCFS", "EDF")]
    baselines = ["FCFS", "EDF", "FCFS P_max", *same_pool, "NAT"]
    assert kth["run"].tolist() == ["RIG-EST-0.5", "ELA-EST-0.5", "ELA-ORA-1", *baselines]  # one seed
    elastic = kth[kth["kind"] == "ELA"]
    assert set(kth["jobset"]) == {"KTH-SP2 set 2"} and (elastic["mean_pool"] > elastic["load_pool"]).all()
    assert set(kth["rigid_pool"]) == {100}  # the site's own processors (rigid_pool: site, the default)
    model = read_provenance(results / "runs" / "lublin-256" / "1.parquet")
    assert model["vo_source"].startswith("the fitted lpc-egee VO profile") and model["time_compression"] == 5
    assert model["rigid_pool_rule"] == "load" and model["rigid_pool"] == model["load_pool"]
    summary = pd.read_csv(results / "tables" / "summary.csv")
    assert summary.set_index(["trace", "run"]).loc[("KTH-SP2", "RIG-EST-0.5"), "runs"] == 2  # two sets, one seed
    sets = pd.read_csv(results / "tables" / "job_sets.csv")
    assert sets["jobset"].tolist() == ["lublin-256 set 1", "KTH-SP2 set 1", "KTH-SP2 set 2"]
    for figure in ("responsiveness", "pool", "utilisation", "fairness"):
        for trace in ("KTH-SP2", "lublin-256"):
            assert (results / "plots" / f"{trace}.{figure}.png").stat().st_size > 10_000
    reproduction = pd.read_csv(tiny_run / "results" / "reproduction.csv")
    rows = reproduction[reproduction["paper"] == "elastic-2009"]
    assert set(rows["row"].str.split().str[0]) == {"KTH-SP2"}  # the profiled model has none
    report = (tiny_run / "results" / "reproduction.md").read_text()
    assert "SARSA + ESN" in report and "submissions compressed 5 times" in report


def test_rl_baselines_outputs(tiny_run):
    results = tiny_run / "results" / "job_selection"
    runs = pd.read_parquet(results / "runs" / "KTH-SP2.parquet")
    assert len(runs) == 2 * 3 * 5  # both backfill modes x 3 sequences x (3 orders + the lookahead and its base)
    provenance = read_provenance(results / "runs" / "KTH-SP2.parquet")
    assert provenance["seed"] == 1 and provenance["lookahead"] == ["FCFS"] and provenance["lookahead_heads"] == 8
    by_order = runs.pivot_table(index=["backfill", "sequence"], columns="order", values="avg_bsld")
    assert (by_order["lookahead-FCFS"] <= by_order["FCFS"] + 1e-9).all()  # FCFS's first slot is EASY-FCFS
    summary = pd.read_csv(results / "tables" / "summary.csv")
    assert set(summary["trace"]) == {"lublin-256", "KTH-SP2"} and (summary["sequences"] == 3).all()
    assert "## Job selection" in (tiny_run / "results" / "reproduction.md").read_text()


def test_elastic_runs_for_one_trace(tiny_run, tmp_path):
    run_snakemake(tmp_path, {}, "elastic", "--config", "only=[KTH-SP2]")
    for name in ("runs/KTH-SP2/1.parquet", "series/KTH-SP2/2.parquet", "pools/KTH-SP2/1.parquet"):
        assert (tmp_path / "results" / "elastic" / name).read_bytes() == (
            tiny_run / "results" / "elastic" / name
        ).read_bytes()
    assert not (tmp_path / "results" / "elastic" / "runs" / "lublin-256").exists()


def test_dynamic_scheduling_runs_for_one_trace(tiny_run, tmp_path):
    config = {**TINY, "dynamic_scheduling": {**TINY["dynamic_scheduling"], "traces": ["KTH-SP2"]}}
    run_snakemake(tmp_path, config, "dynamic_scheduling")
    for chunk in range(2):  # a trace's runs do not depend on the other traces
        name = f"dynamic_scheduling/runs/KTH-SP2/{chunk}.parquet"
        assert (tmp_path / "results" / name).read_bytes() == (tiny_run / "results" / name).read_bytes()
    assert pd.read_csv(tmp_path / "results" / "dynamic_scheduling" / "tables" / "medians.csv")["trace"].unique() == [
        "KTH-SP2"
    ]


def test_prediction_study_runs_for_one_trace(tiny_run, tmp_path):
    config = {**TINY, "prediction": {**TINY["prediction"], "traces": ["KTH-SP2"]}}
    run_snakemake(tmp_path, config, "prediction")
    results = tmp_path / "results" / "prediction"
    for chunk in range(2):  # the whole-trace grid does not depend on the other traces
        name = f"grid/KTH-SP2/{chunk}.runs.parquet"
        assert (results / name).read_bytes() == (tiny_run / "results" / "prediction" / name).read_bytes()
    selection = pd.read_csv(results / "selection.csv")
    assert selection["cv_predictor"].isna().all()  # nothing to cross-validate on
    assert selection["eloss_predictor"].tolist() == ["reg:linear/squared/large_area@1"]
    assert "Needs at least two traces" in (results / "report.md").read_text()


def test_html_report_has_figures_and_tables(tiny_run):
    report = tiny_run / "report.html"
    run_snakemake(tiny_run, TINY, "--report", str(report))
    html = report.read_text(errors="replace")
    for name in (
        "reproduction.md",
        "fixed_policy.csv",
        "KTH-SP2.cumulative_wait.png",
        "UniLu-Gaia.bsld.png",
        "KTH-SP2.ecdf_errors.png",
        "correlations.png",
        "report.md",
    ):
        assert name in html, name
    assert '"caption": ""' not in html  # every entry has its caption, rendered
    assert "KTH-SP2: cumulative waiting time of each fixed queue order" in html  # for its own trace
    for study in ("prediction", "simple policies", "learned functions", "dynamic scheduling", "co-scheduling"):
        assert f"report section: {study}" in html  # the five report.md, told apart
    assert "KTH-SP2.ratios_e1.png" in html


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
# The report is one page whose view is the app's state (no URL per result): this opens a
# figure's page as a click on it does, once the app has rendered.
SHOW_FIGURE = """<script>setTimeout(function () {
  var path = Object.keys(results).find(function (p) { return p.endsWith("FIGURE"); });
  app.setView({navbarMode: "resultinfo", content: "img", contentPath: results[path].data_uri, resultPath: path});
}, 500);</script>
</body>"""


def screenshot(html: Path, png: Path) -> np.ndarray:
    """The page as headless Chromium draws it at 1280 x 900, scripts run (RGB, 0-1)."""
    subprocess.run(
        [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900"]
        + [f"--user-data-dir={png.parent / 'chromium'}", "--virtual-time-budget=10000", f"--screenshot={png}"]
        + [html.as_uri()],
        capture_output=True,
        timeout=180,
        check=True,
    )
    return matplotlib.image.imread(png)[..., :3]


@pytest.mark.skipif(
    BROWSER is None and os.environ.get("REQUIRE_BROWSER") != "1",
    reason="no Chromium here (Debian: apt-get install chromium); CI sets REQUIRE_BROWSER=1",
)
def test_the_report_opens_in_a_browser_on_its_start_page_and_a_figure(tiny_run, tmp_path):
    assert BROWSER, "REQUIRE_BROWSER=1 but no chromium on PATH"
    report = tmp_path / "report.html"
    run_snakemake(tiny_run, TINY, "--report", str(report))
    start = screenshot(report, tmp_path / "start.png")
    figure_page = tmp_path / "figure.html"
    html = report.read_text(errors="replace")
    at = html.rindex("</body>")
    figure_page.write_text(html[:at] + SHOW_FIGURE.replace("FIGURE", "KTH-SP2.cumulative_wait.png") + html[at + 7 :])
    figure = screenshot(figure_page, tmp_path / "figure.png")

    def colours(pixels):
        return len(np.unique(pixels.reshape(-1, 3), axis=0))

    for page in (start, figure):  # drawn, not a blank or loading screen
        assert page.shape == (900, 1280, 3) and colours(page) > 200

    # right of the navigation bar: the workflow's grey graph, then the figure and its coloured
    # lines (on the tiny run: 0.08 % then 0.47 % of the pixels saturated; demo 0.07 %, 1.0 %)
    def coloured(pixels):
        return ((pixels.max(axis=-1) - pixels.min(axis=-1)) > 0.25).mean()

    graph, shown = start[:, 400:], figure[:, 400:]
    assert coloured(shown) > 3 * coloured(graph), (coloured(shown), coloured(graph))
    assert colours(shown) > colours(graph)


# A study's figures through common.smk's helpers: their captions are <study>_<figure>.rst
FIGURE_HELPER = re.compile(r'figure_outputs?\(\s*"(\w+)",\s*"[^"]*",\s*\w+_rules\.(\w+)(?:,\s*"(\w+)")?')


def test_every_report_entry_has_a_caption():
    captions = []
    for rules in sorted((REPO / "workflow" / "rules").rglob("*.smk")):
        text = rules.read_text()
        for start in (match.end() for match in re.finditer(r"\breport\(", text)):
            depth, end = 1, start
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            caption = re.search(r'caption=f?"(?:\.\./)+report/([\w.{}]+\.rst)"', text[start:end])
            assert caption, f"{rules.name}: report({text[start:end][:60]}...) has no caption"
            if "{" not in caption.group(1):  # the helpers' own: counted at their calls below
                captions.append(caption.group(1))
        for study, mapping, name in FIGURE_HELPER.findall(text):
            labels = getattr(importlib.import_module(f"simcore.studies.{study}.rules"), mapping)
            captions += [f"{study}_{figure}.rst" for figure in ([name] if name else labels)]
    assert len(captions) >= 20
    shipped = {path.name for path in (REPO / "workflow" / "report").glob("*.rst")}
    assert set(captions) == shipped  # every caption exists, and every caption file is used


def test_workloads_table_counts_filtered_jobs(tiny_run):
    workloads = pd.read_csv(tiny_run / "results" / "tables" / "workloads.csv").set_index("trace")
    assert workloads.at["KTH-SP2", "jobs"] == 27992 and workloads.at["UniLu-Gaia", "jobs"] == 50359
    assert workloads.at["KTH-SP2", "run_over_request"] == 475 and workloads.at["KTH-SP2", "job_lines"] == 28476


def test_cost_table_counts_every_job_of_the_run(tiny_run):
    results = tiny_run / "results"
    benchmarks = sorted((results / "benchmarks").rglob("*.tsv"))
    cost = pd.read_csv(results / "cost.csv")
    assert cost["jobs"].sum() == len(benchmarks) > 0
    studies = {"traces", "fixed_policy", "bandit", "prediction", "simple_policies", "learned_policies"}
    others = {"dynamic_scheduling", "coscheduling", "elastic", "job_selection", "recorded_schedule", "report"}
    assert studies | others == set(cost["study"])
    assert (cost["wall_s"] > 0).any() and set(TINY["traces"]) <= set(cost["trace"])
    assert "On 56 cores with perfect packing" in (results / "cost.md").read_text()


def test_rerun_does_nothing_and_resampling_is_deterministic(tiny_run, tmp_path):
    done = run_snakemake(tiny_run, TINY)
    assert "Nothing to be done" in done.stdout + done.stderr
    again = tmp_path / "again"
    names = ("variants/KTH-SP2.parquet", "summary/KTH-SP2.runs.parquet", "summary/KTH-SP2.curves.parquet")
    run_snakemake(again, {**TINY, "only": ["KTH-SP2"]}, *(f"results/{name}" for name in names))  # KTH-SP2 alone
    for name in names:
        assert (again / "results" / name).read_bytes() == (tiny_run / "results" / name).read_bytes(), name


def interrupt(workdir: Path, config: dict, when: Path, how: signal.Signals):
    """Start the workflow and send `how` to Snakemake and its jobs as soon as `when` exists."""
    process = run_snakemake(workdir, config, start_new_session=True)
    deadline = time.time() + 300
    while not when.exists() and process.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, how)
    process.wait(timeout=300)


def test_interrupted_run_resumes_to_identical_outputs(tiny_run, tmp_path):
    config = {**TINY, "only": ["KTH-SP2"]}  # every study on KTH-SP2 alone
    workdir = tmp_path / "interrupted"
    results = workdir / "results"
    # Ctrl-C (SIGINT to the terminal's process group) mid-campaign; the same command again
    # resumes (the default profile's rerun-incomplete), until a hard kill of everything
    interrupt(workdir, config, results / "sweep" / "KTH-SP2" / "0.runs.parquet", signal.SIGINT)
    assert not (results / "reproduction.md").exists()
    interrupt(workdir, config, results / "summary" / "KTH-SP2.runs.parquet", signal.SIGKILL)
    assert not (results / "reproduction.md").exists()
    run_snakemake(workdir, config, "--unlock")  # a hard kill leaves Snakemake's lock behind
    run_snakemake(workdir, config)
    expected = {
        name: digest
        for name, digest in digests(tiny_run / "results").items()
        # the prediction study's choice and the learned functions depend on the other traces
        if "KTH-SP2" in name and not name.startswith(("prediction/", "dynamic_scheduling/"))
    }
    resumed = {name: digest for name, digest in digests(results).items() if name in expected}
    assert resumed == expected


def child_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_full_campaign_dry_run_is_small_and_fast(tmp_path):
    # CPU time rather than wall time: the same on a busy machine (6.5 s of wall time idle)
    began = child_cpu_seconds()
    done = run_snakemake(tmp_path, {}, "--dry-run", base=CAMPAIGN)
    elapsed = child_cpu_seconds() - began
    assert elapsed < 10, f"dry run took {elapsed:.1f} CPU s"
    total = [line for line in done.stdout.splitlines() if line.startswith("total")]
    assert total and int(total[0].split()[-1]) <= 10_000, total
    stated = re.search(r"the full campaign's (\d+) jobs", (REPO / "README.md").read_text())
    assert stated and int(stated[1]) == int(total[0].split()[-1]), "README.md's job count is stale"


def test_lint_is_clean():
    done = subprocess.run(SNAKEMAKE + ["--lint"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0 and "good condition" in done.stdout + done.stderr, done.stdout + done.stderr


def rejected(workdir: Path, config: dict):
    """A dry run of the campaign with `config` merged in, expected to fail."""
    return run_snakemake(workdir, config, "--dry-run", base=CAMPAIGN, check=False)


def test_invalid_configuration_is_rejected_before_anything_runs(tmp_path):
    done = rejected(tmp_path, {"filter": "loose"})
    assert done.returncode != 0
    assert "filter" in done.stdout + done.stderr
    done = rejected(tmp_path, {"traces": ["NOPE-1999"]})
    assert done.returncode != 0 and "unknown traces ['NOPE-1999']" in done.stdout + done.stderr
    done = rejected(tmp_path, {"fixed_policy": {"orders": ["FCFS", "NOPE"]}})
    assert done.returncode != 0 and "orders[1]: 'NOPE' is not among the orders" in done.stdout + done.stderr
    done = rejected(tmp_path, {"fixed_policy": {"ordrs": ["FCFS"]}})  # one line, not the schema
    output = done.stdout + done.stderr
    assert "config: fixed_policy: Additional properties are not allowed ('ordrs' was unexpected)" in output
    assert len(output.splitlines()) < 15, output
    done = rejected(tmp_path, {"traces": ["NASA-iPSC"]})
    assert done.returncode != 0 and "trace NASA-iPSC cannot be used: no requested times" in done.stdout + done.stderr
    done = rejected(tmp_path, {"prediction": {"learning_rates": [0]}})
    assert done.returncode != 0 and "learning_rates" in done.stdout + done.stderr
    done = rejected(tmp_path, {"prediction": {"traces": ["NOPE-2000"]}})
    assert done.returncode != 0 and "unknown traces ['NOPE-2000']" in done.stdout + done.stderr
    done = rejected(tmp_path, {"dynamic_scheduling": {"policies": ["FCFS", "F9"]}})
    assert done.returncode != 0 and "F9" in done.stdout + done.stderr
    done = rejected(tmp_path, {"bandit": {"strategies": {"TS-D": {"learner": "thompson"}}}})
    assert done.returncode != 0 and "'thompson' is not among the learners (random, full" in done.stdout + done.stderr
    # the Table 2 comparison needs a setting the sweep runs, or it would vanish from the report
    done = rejected(tmp_path, {"reproduction": {"threshold": 7200}})
    assert done.returncode != 0
    assert "reproduction.threshold is 7200, which fixed_policy.thresholds [None, 144000] does not run" in (
        done.stdout + done.stderr
    )
    done = rejected(tmp_path, {"reproduction": {"backfill": "SPF"}})
    assert done.returncode != 0 and "reproduction.backfill is 'SPF'" in done.stdout + done.stderr
    # the artifact configuration: validated by the schema, its compared setting one it runs
    done = rejected(tmp_path, {"bandit_artifact": {"variants": 0}})
    assert done.returncode != 0 and "bandit_artifact" in done.stdout + done.stderr
    done = rejected(tmp_path, {"bandit_artifact": {"reproduction": {"threshold": 200000, "backfill": "queue"}}})
    assert done.returncode != 0
    assert (
        "bandit_artifact.reproduction.backfill is 'queue', which bandit_artifact.fixed_policy.backfills "
        "['LQF'] does not run"
    ) in done.stdout + done.stderr


def test_nested_command_line_overrides_are_typed(tmp_path):
    done = run_snakemake(
        tmp_path,
        {},
        "--dry-run",
        "--config",
        "learned_policies={tuples: 20}",
        "reproduction={threshold: null}",
        base=CAMPAIGN,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


# ---- fetch -----------------------------------------------------------------


def catalogue_entry(name="KTH-SP2"):
    return load_catalogue(REPO / "config" / "pwa_catalogue.yaml")[name]


def test_fetch_from_mirror_verifies_checksum(tmp_path, pwa_trace):
    trace = pwa_trace("KTH-SP2")
    destination = tmp_path / "resources" / "KTH-SP2.swf.gz"
    source = fetch_trace("KTH-SP2", catalogue_entry(), destination, mirror=trace.parent)
    assert source == str(trace)
    assert destination.read_bytes() == trace.read_bytes()


def test_checksum_mismatch_fails_and_caches_nothing(tmp_path, pwa_trace):
    trace = pwa_trace("KTH-SP2")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    original = gzip.decompress(trace.read_bytes())
    (mirror / trace.name).write_bytes(gzip.compress(original + b"; tampered\n"))
    destination = tmp_path / "resources" / "KTH-SP2.swf.gz"
    with pytest.raises(FetchError, match="checksum mismatch for KTH-SP2"):
        fetch_trace("KTH-SP2", catalogue_entry(), destination, mirror=mirror)
    assert list(destination.parent.iterdir()) == []


def test_unreachable_sources_fail_at_once_saying_how_to_provide_the_file(tmp_path):
    entry = {**catalogue_entry(), "url": "http://127.0.0.1:9/KTH-SP2-1996-2.1-cln.swf.gz"}
    began = time.perf_counter()
    with pytest.raises(FetchError) as error:
        fetch_trace("KTH-SP2", entry, tmp_path / "KTH-SP2.swf.gz", mirror=tmp_path / "empty-mirror")
    assert time.perf_counter() - began < 10
    message = str(error.value)
    assert "cannot obtain trace KTH-SP2" in message and "--config pwa_mirror=DIR" in message
    assert not (tmp_path / "KTH-SP2.swf.gz").exists()


def test_malformed_trace_fails_with_a_clear_message(tmp_path):
    broken = b"; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 oops\n"
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "BROKEN.swf.gz").write_bytes(gzip.compress(broken))
    catalogue = tmp_path / "catalogue.yaml"
    catalogue.write_text(
        yaml.safe_dump(
            {
                "traces": {
                    "BROKEN": {
                        "file": "BROKEN.swf.gz",
                        "url": "http://127.0.0.1:9/BROKEN.swf.gz",
                        "swf_sha256": hashlib.sha256(broken).hexdigest(),
                        "machine_size": 8,
                    }
                }
            }
        )
    )
    done = run_snakemake(
        tmp_path,
        {
            **TINY,
            "catalogue": str(catalogue),
            "pwa_mirror": str(mirror),
            "traces": ["BROKEN"],
            "prediction": {"traces": ["lublin-128"]},
            "simple_policies": {"traces": ["lublin-128"]},
            "dynamic_scheduling": {"traces": ["lublin-128"]},
            "coscheduling": {"traces": ["lublin-128"], "profiles": {"lublin-128": "gaia"}},
            "elastic": {"traces": ["lublin-128"], "profiles": {"lublin-128": "lpc-egee"}},
            "job_selection": {"traces": ["lublin-128"]},
            "recorded_schedule": {"traces": ["BROKEN"]},
        },
        check=False,
    )
    assert done.returncode != 0
    # the campaign's filter or the recorded-schedule study's, whichever ran first, says why
    logs = [tmp_path / "logs/filter_trace/BROKEN.log", tmp_path / "logs/study_trace/recorded_schedule/BROKEN.log"]
    assert any("line 3: field 4 is not a finite number: 'oops'" in log.read_text() for log in logs if log.exists())
    assert not (tmp_path / "results" / "traces" / "BROKEN.parquet").exists()
