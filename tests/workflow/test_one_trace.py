"""`--config only=[NAME]`: one trace alone is one trace.

Every study declares the traces it uses (the fixed-policy and bandit studies
`traces`, the prediction, simple-policies and dynamic-scheduling studies their
own `traces`, the learned-policies study its `model`); `only` restricts every
study to the names it lists and skips a study left with none. For every trace
of the catalogue, a dry run of the full campaign restricted to it must plan the
jobs of the studies that use it and nothing else, fetch that trace alone, and
say once which studies it skips. Dry runs take seconds each; two small real
runs check that the reproduction report builds when only some studies run.
"""

import copy
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import PWA, REPO

from simcore.campaign.layout import converted_trace

CAMPAIGN = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
ENTRIES = yaml.safe_load((REPO / "config" / "pwa_catalogue.yaml").read_text())["traces"]
CATALOGUE = [name for name, entry in ENTRIES.items() if "unusable" not in entry]  # NASA-iPSC: no requests
TINY = {
    **yaml.safe_load((REPO / ".test" / "config" / "config.yaml").read_text()),
    "catalogue": str(REPO / "config" / "pwa_catalogue.yaml"),
    "pwa_mirror": str(PWA),
}
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]

# every study the workflow has: one rules file each, which registers it
STUDIES = tuple(path.stem for path in sorted((REPO / "workflow" / "rules" / "studies").glob("*.smk")))
# the rule whose jobs show that a study runs
STUDY_RULES = {
    "fixed_policy": "sweep_fixed_policies",
    "bandit": "learn_strategies",
    "prediction": "predict_grid",
    "simple_policies": "simple_sweep",
    "learned_policies": "trial_scores",
    "dynamic_scheduling": "dynamic_sweep",
    "coscheduling": "coscheduling_flush",
    "elastic": "elastic_run",
    "job_selection": "rl_baselines_run",
    "recorded_schedule": "recorded_schedule_trace",
}


def study_traces(config: dict) -> dict:
    """The traces each study uses, as the configuration declares them: its section's model or
    traces, or else the campaign's."""
    return {
        study: [config[study]["model"]] if "model" in config[study] else config[study].get("traces", config["traces"])
        for study in STUDIES
    }


def users(name: str, config: dict = CAMPAIGN) -> set:
    """The studies that use trace (or model) `name`."""
    return {study for study, traces in study_traces(config).items() if name in traces}


def jobs_for(total: int, per_job: int) -> int:
    return -(-total // per_job)


def expected_jobs(name: str, config: dict = CAMPAIGN) -> dict:
    """Jobs per rule of the campaign restricted to `name` alone, from the configuration."""
    studies = users(name, config)
    fixed, prediction, simple, learned, dynamic, sharing, elastic, selection, recorded = (
        int(study in studies)
        for study in (
            "fixed_policy",
            "prediction",
            "simple_policies",
            "learned_policies",
            "dynamic_scheduling",
            "coscheduling",
            "elastic",
            "job_selection",
            "recorded_schedule",
        )
    )
    job_sets = config["elastic"]["job_sets"].get(name, 1)  # N, a list of set numbers, or all
    elastic_sets = len(job_sets) if isinstance(job_sets, list) else 1 if job_sets == "all" else job_sets
    logged = int(name in CATALOGUE)  # a PWA log is fetched and filtered; a model is generated
    # the simple-policies study runs a log again under each of its conversions (T+mode)
    simple *= 1 + logged * len(config["simple_policies"]["conversions"])
    section = prediction or simple or learned or dynamic or sharing or elastic or selection or recorded
    artifact = config["bandit_artifact"]  # the fixed-policy and bandit studies again, under results/artifact
    site = fixed * int(bool(config["fixed_policy"].get("site_policies")))  # the campaign's run only
    artifact_sweeps = jobs_for(artifact["variants"], artifact["fixed_policy"].get("variants_per_job", 10))
    artifact_learners = jobs_for(artifact["variants"], artifact["bandit"]["variants_per_job"])
    jobs = {
        "fetch_trace": logged * bool(studies),
        "filter_trace": logged * fixed,
        "model_trace": (1 - logged) * bool(studies),
        "study_trace": logged * (prediction + simple + dynamic + sharing + elastic + selection + recorded),
        "resample": 2 * fixed,
        "sweep_fixed_policies": fixed
        * (jobs_for(config["variants"], config["fixed_policy"]["variants_per_job"]) + artifact_sweeps),
        "sweep_site_policies": site * jobs_for(config["variants"], config["fixed_policy"]["variants_per_job"]),
        "site_policy_tables": site,
        "aggregate_fixed_policies": 2 * fixed,
        "plot_fixed_policies": 2 * fixed,
        "learn_strategies": fixed
        * (jobs_for(config["variants"], config["bandit"]["variants_per_job"]) + artifact_learners),
        "aggregate_learners": 2 * fixed,
        "plot_learners": 2 * fixed,
        "resample_study_trace": prediction + simple,
        "predict_grid": prediction * config["prediction"]["grid_jobs_per_trace"],
        "predict_header_size": prediction * int(name in config["prediction"].get("header_size", [])),
        "select_triples": prediction,
        "predict_variants": prediction
        * jobs_for(config["prediction"]["variants"], config["prediction"]["variants_per_job"]),
        "prediction_tables": prediction,
        "plot_predictions": prediction,
        "plot_correlations": prediction,
        "simple_sweep": simple
        * jobs_for(config["simple_policies"]["variants"], config["simple_policies"]["variants_per_job"]),
        "simple_aggregate": int(bool(simple)),
        "simple_trace_plot": simple,
        "simple_summary_plots": int(bool(simple)),
        "trial_scores": learned
        * jobs_for(config["learned_policies"]["tuples"], config["learned_policies"]["tuples_per_job"]),
        "trial_spread": learned,
        "fit_functions": learned,
        "plot_trial_scores": learned,
        "dynamic_sweep": dynamic * config["dynamic_scheduling"]["jobs_per_trace"],
        "dynamic_tables": dynamic,
        "plot_dynamic": dynamic,
        "coscheduling_paper_queue": sharing * int(bool(config["coscheduling"]["paper_queue"])),
        "coscheduling_flush": sharing,
        "coscheduling_replay": sharing,
        "coscheduling_tables": sharing,
        "plot_coscheduling": sharing,
        "elastic_run": elastic * elastic_sets,
        "elastic_tables": elastic,
        "plot_elastic": elastic,
        "rl_baselines_run": selection,
        "rl_baselines_tables": selection,
        "recorded_schedule_trace": recorded,
        "recorded_schedule_tables": recorded,
        "fixed_policy_tables": 2 * fixed,
        "bandit_tables": 2 * fixed,
        "report": int(bool(fixed or section)) + fixed,  # the sections of the studies that run
        "cost": int(bool(fixed or section)) + fixed,  # per root, after its other jobs
        "all": 1,
    }
    return {rule: count for rule, count in jobs.items() if count}


def dry_run(workdir: Path, *args) -> str:
    """A dry run of the campaign (config/config.yaml) with `args`, its whole output."""
    done = subprocess.run(
        SNAKEMAKE
        + [
            "--configfile",
            str(REPO / "config" / "config.yaml"),
            "--directory",
            str(workdir),
            "--dry-run",
            "--printshellcmds",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


JOB = re.compile(r"^(?:local)?rule (\w+):$")


def planned_jobs(output: str) -> list[dict]:
    """The jobs a dry run lists: rule, wildcards, inputs and shell command of each."""
    jobs, job = [], None
    for line in output.splitlines():
        match = JOB.match(line)
        if match:
            job = {"rule": match.group(1), "wildcards": {}, "input": "", "shell": ""}
            jobs.append(job)
        elif job is not None and line.startswith("    "):
            key, _, value = line.strip().partition(": ")
            if key == "wildcards":
                job["wildcards"] = dict(item.split("=", 1) for item in value.split(", "))
            elif key == "input":
                job["input"] = value
        elif job is not None and line.startswith("Shell command: "):
            job["shell"] = line.partition(": ")[2]
        elif job is not None and not line.startswith("["):
            job = None
    return jobs


def job_stats(output: str) -> dict:
    """The dry run's "Job stats" table (its first copy), without the total."""
    lines = output.splitlines()
    stats = {}
    for line in lines[lines.index("Job stats:") + 3 :]:
        rule, count = line.split()
        if rule == "total":
            return stats
        stats[rule] = int(count)
    raise AssertionError("no total in the job stats")


def announced(output: str, kind: str) -> set:
    """The studies the planning message says run ("runs") or are skipped ("skipped")."""
    return set(re.findall(rf"^  {kind}: +(\w+)", output, flags=re.MULTILINE))


@pytest.mark.parametrize("trace", CATALOGUE)
def test_only_one_trace_plans_its_studies_alone(trace, tmp_path):
    output = dry_run(tmp_path, "--config", f"only=[{trace}]")
    jobs = planned_jobs(output)
    counts = Counter(job["rule"] for job in jobs)
    assert dict(counts) == job_stats(output)  # the job listing and the summary agree
    assert dict(counts) == expected_jobs(trace)
    fetched = [job["wildcards"]["trace"] for job in jobs if job["rule"] == "fetch_trace"]
    assert fetched == ([trace] if users(trace) else [])
    # the trace, or the trace converted for the simple-policies study (T+mode)
    conversions = {converted_trace(trace, mode) for mode in CAMPAIGN["simple_policies"]["conversions"]}
    assert {job["wildcards"]["trace"] for job in jobs if "trace" in job["wildcards"]} <= {trace} | conversions
    assert {study for study, rule in STUDY_RULES.items() if counts[rule]} == users(trace)
    # said once, when the DAG is planned: which studies run, which are skipped
    assert output.count(f"only=[{trace}]: every study restricted") == 1
    assert announced(output, "runs") == users(trace)
    assert announced(output, "skipped") == set(STUDIES) - users(trace)
    if not users(trace):
        assert "nothing to do: no study uses these traces" in output


def test_curie_is_also_run_at_its_header_size_and_the_demo_is_not(tmp_path):
    """prediction.header_size: CEA-Curie's Table 6 baselines also at the header's 93,312
    processors (no --machine-size), fed to the report beside the study's 80,640; the
    demo's models are not listed, so it plans no such job."""
    jobs = planned_jobs(dry_run(tmp_path, "--config", "only=[CEA-Curie]"))
    header = [job for job in jobs if job["rule"] == "predict_header_size"]
    assert [job["wildcards"]["trace"] for job in header] == ["CEA-Curie"]
    assert "--machine-size" not in header[0]["shell"] and "--filter truncate" in header[0]["shell"]
    (tables,) = [job for job in jobs if job["rule"] == "prediction_tables"]
    assert "--header-size-runs results/prediction/header_size/CEA-Curie.parquet" in tables["shell"]
    demo = planned_jobs(dry_run(tmp_path, "demo"))
    assert not [job for job in demo if job["rule"] == "predict_header_size"]
    (demo_tables,) = [job for job in demo if job["rule"] == "prediction_tables"]
    assert re.search(r"--header-size-runs +--outdir", demo_tables["shell"])  # none


def test_a_local_swf_trace_at_its_header_size_is_read_where_it_lies(tmp_path, pwa_trace):
    """prediction.header_size naming a site's own SWF file (local_traces): its header-size run
    reads that file by its entry (simcore.campaign.local_traces.log_file), as the study's own
    filtering does, not a resources/traces/ path that nothing produces."""
    log = pwa_trace("KTH-SP2")
    overlay = tmp_path / "site.yaml"
    overlay.write_text(
        yaml.safe_dump({"local_traces": {"mysite": str(log)}, "prediction": {"header_size": ["mysite"]}})
    )
    campaign = str(REPO / "config" / "config.yaml")
    jobs = planned_jobs(dry_run(tmp_path, "--configfile", campaign, str(overlay), "--config", "only=[mysite]"))
    (header,) = [job for job in jobs if job["rule"] == "predict_header_size"]
    assert header["wildcards"]["trace"] == "mysite"
    assert header["input"] == str(log) and str(log) in header["shell"]
    (study_trace,) = [job for job in jobs if job["rule"] == "study_trace" and "prediction" in job["shell"]]
    assert study_trace["input"] == str(log)
    assert not [job for job in jobs if job["rule"] in ("fetch_trace", "import_sacct_trace")]


def test_only_takes_a_single_name(tmp_path):
    """A single name works like a list of one."""
    assert job_stats(dry_run(tmp_path, "--config", "only=KTH-SP2")) == expected_jobs("KTH-SP2")


def test_learned_functions_follow_the_learned_policies_study(tmp_path):
    # the model of the learned-policies study alone: that study alone
    output = dry_run(tmp_path, "--config", "only=[lublin-256]")
    assert job_stats(output) == expected_jobs("lublin-256")
    assert announced(output, "runs") == {"learned_policies"}
    # with it, the dynamic scheduling experiments run the learned functions L1-L4 ...
    output = dry_run(tmp_path, "--config", "only=[lublin-256, CTC-SP2]")
    sweeps = [job for job in planned_jobs(output) if job["rule"] in ("dynamic_sweep", "dynamic_tables")]
    assert len(sweeps) == 3
    for job in sweeps:
        assert "results/learned_policies/functions.csv" in job["input"]
        assert "--functions results/learned_policies/functions.csv" in job["shell"]
    assert "--learned 4" in sweeps[0]["shell"]
    # ... without it, their other policies only, and the message says so
    output = dry_run(tmp_path, "--config", "only=[CTC-SP2]")
    sweeps = [job for job in planned_jobs(output) if job["rule"] in ("dynamic_sweep", "dynamic_tables")]
    assert len(sweeps) == 3
    for job in sweeps:
        assert "learned_policies" not in job["input"] and "--functions" not in job["shell"]
        assert "--policies FCFS WFP3 UNICEF SPF F4 F3 F2 F1" in job["shell"] or job["rule"] == "dynamic_tables"
    assert "dynamic_scheduling runs without the learned functions L1-L4" in output


def test_only_applies_to_the_demo(tmp_path):
    output = dry_run(tmp_path, "demo", "--config", "only=[lublin-256]")
    assert "only=[lublin-256]: every study restricted to these traces (results/demo/)" in output
    # the demo's model is lublin-128, its recorded schedule CI's Slurm's, its elastic workload lal-81
    assert announced(output, "skipped") == {"learned_policies", "recorded_schedule", "elastic"}
    jobs = planned_jobs(output)
    assert {job["wildcards"].get("trace") for job in jobs} <= {"lublin-256", None}
    assert all(job["wildcards"].get("root", "results/demo") == "results/demo" for job in jobs)
    assert "(results/)" not in output  # the campaign's studies are not planned, so not announced


def test_only_names_catalogue_traces_or_models(tmp_path):
    command = SNAKEMAKE + [
        "--configfile",
        str(REPO / "config" / "config.yaml"),
        "--directory",
        str(tmp_path),
        "--dry-run",
        "--config",
    ]
    done = subprocess.run(command + ["only=[KTH-SP2, NOPE-1999]"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "config: only: unknown traces or models ['NOPE-1999']" in done.stdout + done.stderr
    done = subprocess.run(command + ["only=[NASA-iPSC]"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0  # catalogued, but no study can use it
    assert "config: only: trace NASA-iPSC cannot be used: no requested times" in done.stdout + done.stderr
    for bad in ("only=[]", "only=3"):
        done = subprocess.run(command + [bad], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and "config: only: " in done.stdout + done.stderr, bad  # one line naming the key


def test_full_campaign_without_only_plans_every_study(tmp_path):
    output = dry_run(tmp_path, "--quiet", "rules")
    stats = job_stats(output)
    assert all(stats.get(rule) for rule in STUDY_RULES.values())
    assert stats["fetch_trace"] == len(
        {trace for traces in study_traces(CAMPAIGN).values() for trace in traces if trace in CATALOGUE}
    )
    assert "every study restricted" not in output


# ---- real runs: the reproduction report when only some studies run -------------


def run(workdir: Path, config: dict, *args) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    configfile = workdir / "test-config.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))
    done = subprocess.run(
        SNAKEMAKE + ["--configfile", str(configfile), "--directory", str(workdir), "--cores", "2", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.workflow
def test_reproduction_report_builds_from_the_studies_that_run(tmp_path):
    # .test's configuration restricted to lublin-256: the dynamic scheduling experiments, without
    # the learned functions, the co-scheduling and elastic studies; the report from their sections
    alone = tmp_path / "alone"
    run(alone, TINY, "--config", "only=[lublin-256]")
    results = alone / "results"
    assert sorted(path.name for path in results.iterdir()) == [
        "benchmarks",
        "coscheduling",
        "cost.csv",
        "cost.md",
        "dynamic_scheduling",
        "elastic",
        "job_selection",
        "logs",
        "reproduction.csv",
        "reproduction.md",
        "tables",
        "traces",
    ]  # traces: the model; tables: the workloads table, empty (no fixed-policy trace); cost: timings
    assert not (alone / "resources").exists()  # nothing fetched
    medians = pd.read_csv(results / "dynamic_scheduling" / "tables" / "medians.csv")
    assert medians["trace"].unique().tolist() == ["lublin-256"]
    assert list(medians.columns[5:]) == ["FCFS", "WFP3", "UNICEF", "SPF", "F4", "F3", "F2", "F1"]
    reproduction = pd.read_csv(results / "reproduction.csv")
    queue_tables = {
        "Table 2 (the paper's queue, job-weighted means)",
        "Table 3 (the paper's queue; not derivable from its Table 2)",
        "Table 2 (the paper's queue)",
    }
    assert set(reproduction["table"]) == {"Table 3.3", "Table 3 (ratios to Slurm)", "Table 2", *queue_tables}
    # Table 3.3: 3 settings x 8 policies; ASA_X: 3 loads x (STATIC, ASAX) x 4 columns, and its own queue (which
    # runs with the co-scheduling study): Table 2's job-weighted U, 3 sizes x (SPACE, STATIC, ASAX), Table 3 the
    # same x 3 columns, Table 2 per workflow the same x 4 workflows x 3 columns; the elastic study on a model
    # with a fitted VO profile claims no published value
    assert len(reproduction) == 3 * 8 + 3 * 2 * 4 + 3 * 3 + 3 * 3 * 3 + 3 * 3 * 4 * 3
    text = (results / "reproduction.md").read_text()
    assert text.startswith("# Reproduction report")
    assert "Thesis, section 3.3" in text and "## Co-scheduling" in text and "## Bandit policy selection" not in text
    assert "## Responsive scheduling and elastic provisioning" in text

    # the same with lublin-256 as the fixed-policy and bandit studies' trace: rule report, one section
    both = tmp_path / "both"
    config = copy.deepcopy(TINY)
    config["traces"] = ["lublin-256"]
    run(both, config, "--config", "only=[lublin-256]")
    results = both / "results"
    assert (results / "tables" / "fixed_policy.csv").exists() and (results / "plots" / "lublin-256.regret.png").exists()
    assert not (results / "prediction").exists() and not (results / "learned_policies").exists()
    text = (results / "reproduction.md").read_text()
    assert "Thesis, section 3.3" in text and "Running-time prediction" not in text
    for chunk in range(2):  # the sequences' runs do not depend on what else runs
        name = f"dynamic_scheduling/runs/lublin-256/{chunk}.parquet"
        assert (results / name).read_bytes() == (alone / "results" / name).read_bytes()
