"""The Slurm mode against real Slurm 22.05 clusters (tests/fixtures/slurm_twin, made by
.ci/slurm-twin): each cluster's sacct dump simulated from its own slurm.conf must put at least 80 %
of the jobs within 5 s of their real start and 95 % within 30 s (issue #46's acceptance), with the
start delay and the backfill phase fitted to the log (docs/slurm_mode.md §7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcore.workloads.sacct import parse_sacct
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import SlurmSite, simulate_site

TWIN = Path(__file__).resolve().parent.parent / "fixtures" / "slurm_twin"
# Every cluster of the fixture run but `fair`: its priorities are mostly fair share, which the
# Slurm mode does not compute yet (docs/slurm_mode.md §3); it is measured, not asserted, below.
CLUSTERS = ("one32", "many32", "mf32", "mem", "parts", "builtin1", "builtin32")


def run_of(cluster: str):
    folder = TWIN / cluster
    return simulate_site(folder / "sacct.txt", read_slurm_conf(folder / "slurm.conf"))


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_simulated_starts_follow_the_real_slurm(cluster):
    agreement = run_of(cluster).agreement
    summary = {key: round(value, 3) for key, value in agreement.items()}
    assert agreement["within_5s"] >= 0.80 and agreement["within_30s"] >= 0.95, summary
    assert agreement["kendall_tau"] >= 0.95, summary


def test_fair_share_is_the_gap():
    """Without fair share the `fair` cluster is far off; the same jobs' order is what fair share
    changes, so this measures the gap rather than hiding it."""
    agreement = run_of("fair").agreement
    assert agreement["within_5s"] < 0.5


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_the_fixture_is_what_its_readme_says(cluster):
    folder = TWIN / cluster
    summary = json.loads((folder / "summary.json").read_text())
    dump = parse_sacct(folder / "sacct.txt")
    assert len(dump.job_id) == summary["jobs"]
    conf = read_slurm_conf(folder / "slurm.conf")
    site = SlurmSite.from_conf(conf)
    jobs = site.jobs_from_dump(dump)
    # every job ran on nodes the conf defines, and its request fits its partition
    assert (jobs.columns["cpus"] >= 1).all() and np.isin(jobs.columns["partition"], range(len(conf.partitions))).all()


def test_memory_per_node_from_a_22_05_dump():
    """sacct 22.05 prints --mem times the requested nodes: mem's job 1 asked --mem=6500M -N 2 and
    shows 13000M (tests/fixtures/slurm_twin/mem/plan.json)."""
    folder = TWIN / "mem"
    site = SlurmSite.from_conf(read_slurm_conf(folder / "slurm.conf"))
    jobs = site.jobs_from_dump(parse_sacct(folder / "sacct.txt"))
    asked = {job["job_id"]: job["mem_mb"] for job in json.loads((folder / "submitted.json").read_text())["jobs"]}
    assert asked[1] == 6500 and len(asked) == len(jobs.job_id)
    assert [int(mem) for mem in jobs.columns["mem"]] == [asked[int(job_id)] for job_id in jobs.job_id]
