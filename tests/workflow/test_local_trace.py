"""A site's own log, end to end, as the README's "your own cluster" section runs it: a Slurm
accounting dump given by path (`local_traces`), `only=` that name, and the small end-to-end
configuration's studies: the fixed-policy, bandit and prediction studies run on it, the
recorded-schedule study compares its schedule with the log's, and every Parquet output records
the dump's sha256."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from sacct_dumps import generate_dump
from workflow.test_workflow import run_snakemake

from simcore.workloads.files import file_sha256, read_workload

pytestmark = [pytest.mark.workflow, pytest.mark.xdist_group("tiny_run")]

# the studies a site's log joins, and a file each writes for it
STUDY_FILES = {
    "fixed_policy": "results/tables/fixed_policy.csv",
    "bandit": "results/tables/bandit.csv",
    "prediction": "results/prediction/selection.csv",
    "recorded_schedule": "results/tables/recorded_schedule.csv",
}


@pytest.fixture(scope="module")
def site_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("site")
    dump = workdir / "site.sacct"
    text, truth = generate_dump(3000, seed=11)
    dump.write_text(text)
    done = run_snakemake(workdir, {"local_traces": {"site": str(dump)}, "only": "site"})
    return workdir, dump, truth, done.stdout + done.stderr


def test_only_a_sacct_dump_runs_the_studies_taking_site_logs(site_run):
    workdir, _, _, output = site_run
    assert "only=[site]: every study restricted to these traces (results/)" in output
    for study, path in STUDY_FILES.items():
        assert f"  runs:    {study} on site" in output
        assert "site" in set(pd.read_csv(workdir / path)["trace"]), path
    assert "skipped: learned_policies" in output  # a model's study: not a site's


def test_the_dump_is_converted_and_its_recorded_waits_kept(site_run):
    workdir, dump, truth, _ = site_run
    workload = read_workload(workdir / "results/recorded_schedule/traces/site.parquet")
    assert workload.source == str(dump) and workload.source_sha256 == file_sha256(dump)
    # the dump's Start - Submit of every job the filter kept (job ids are the SWF's, 1..N in submit order)
    swf_wait = dict(zip(range(1, len(truth["wait"]) + 1), np.asarray(truth["wait"], dtype=float)))
    assert workload.recorded_wait.tolist() == [swf_wait[int(job)] for job in workload.job_id]


def test_every_parquet_output_records_the_dumps_sha256(site_run):
    workdir, dump, _, _ = site_run
    lineage = {str(dump): file_sha256(dump)}
    outputs = sorted((workdir / "results").rglob("*.parquet"))
    assert len(outputs) > 20
    for path in outputs:
        provenance = json.loads(pq.read_schema(path).metadata[b"schedsweep"])
        assert provenance.get("traces") == lineage, path


TWIN = Path(__file__).resolve().parent.parent / "fixtures" / "slurm_twin" / "fair"


def test_a_site_log_with_its_slurm_conf_runs_in_the_slurm_mode(tmp_path):
    """A real Slurm cluster's dump given with its slurm.conf and association tree: the
    recorded-schedule study simulates it under the site's configuration and the configured
    variants, and its report section shows them."""
    site = {"path": str(TWIN / "sacct.txt"), "join": ["recorded_schedule"]}
    site |= {"slurm_conf": str(TWIN / "slurm.conf"), "slurm_assoc": str(TWIN / "sshare.txt")}
    run_snakemake(tmp_path, {"local_traces": {"fair": site}, "only": "fair"}, "recorded_schedule")
    rows = pd.read_parquet(tmp_path / "results/recorded_schedule/fair.slurm.parquet")
    assert rows["variant"].tolist() == ["site", "bf_interval=10", "sched/builtin"]
    assert rows.loc[0, "within_5s"] >= 0.80 and rows.loc[0, "replay_within_2s"] >= 0.90
    section = (tmp_path / "results/recorded_schedule/report.md").read_text()
    assert "### Site logs in the Slurm mode" in section and "| sched/builtin | backfill=False |" in section
