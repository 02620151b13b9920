"""A site's Slurm from its files (simcore.workloads.slurm_site, docs/slurm_mode.md §7): the cluster
in Slurm's node order, the options from slurm.conf, the jobs of a sacct dump and of an SWF log, the
estimated start delay, the agreement measures, and `simcore simulate --slurm-conf` end to end on
a real dump (tests/fixtures/sacct)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore.engine.slurm import job_arrays, slurm_schedule
from simcore.engine.swf import parse_swf
from simcore.workloads.catalogue import catalogue_slurm_conf, load_catalogue
from simcore.workloads.files import read_provenance
from simcore.workloads.sacct import parse_sacct
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import (
    UNRECORDED,
    SlurmJobs,
    SlurmSite,
    fit_unrecorded_options,
    natural_key,
    schedule_agreement,
    simulate_site,
    slurm_header,
    write_site_schedule_swf,
)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sacct" / "slurm-accounting.sacct"
REPO = Path(__file__).resolve().parents[2]

# The one-node cluster the fixture dump was recorded on (.ci/slurm-smoke with accounting).
SMOKE_CONF = """\
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=host CPUs=4 RealMemory=16000
PartitionName=smoke Nodes=host Default=YES MaxTime=INFINITE State=UP
PartitionName=campaign Nodes=host Default=NO MaxTime=INFINITE State=UP
DefMemPerCPU=100
"""

MIXED_CONF = """\
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=bf_interval=1,default_queue_depth=7
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=1000
PriorityWeightPartition=100
NodeName=n[1-10] CPUs=2 RealMemory=1000 Weight=3
NodeName=big1 CPUs=8 RealMemory=4000
PartitionName=all Nodes=ALL Default=YES PriorityJobFactor=2 PriorityTier=1
PartitionName=small Nodes=n[1-4] MaxTime=10 PriorityJobFactor=1 PriorityTier=5
"""


@pytest.fixture
def conf_file(tmp_path):
    def write(text: str) -> Path:
        path = tmp_path / "slurm.conf"
        path.write_text(text)
        return path

    return write


def test_nodes_take_slurms_natural_order(conf_file):
    site = SlurmSite.from_conf(read_slurm_conf(conf_file(MIXED_CONF)))
    assert site.cluster.node_names == ["big1"] + [f"n{i}" for i in range(1, 11)]  # strnatcmp: n2 before n10
    assert site.cluster.cpus == [8] + [2] * 10
    assert site.cluster.weight == [1] + [3] * 10
    assert site.cluster.partitions == [list(range(11)), [1, 2, 3, 4]]
    assert site.cluster.tiers == [1, 5]
    assert sorted(["n10", "n9", "n1"], key=natural_key) == ["n1", "n9", "n10"]


def test_options_come_from_the_conf(conf_file):
    site = SlurmSite.from_conf(read_slurm_conf(conf_file(MIXED_CONF)))
    options = site.options(start_delay=2)
    assert not options.backfill and options.bf_interval == 1 and options.default_queue_depth == 7
    assert not options.memory_consumable and options.multifactor and options.priority_weight_age == 1000
    assert options.start_delay == 2


def test_job_size_and_partition_factors_count_the_whole_cluster(conf_file):
    site = SlurmSite.from_conf(read_slurm_conf(conf_file(MIXED_CONF)))
    # 28 CPUs and 11 nodes in the cluster: (1/11 + 4/28) / 2 and (3/11 + 6/28) / 2, times 1000;
    # partition factors 2/2 and 1/2, times 100
    size, part = site.weighted_factors(np.array([4, 6]), np.array([0, 3]), np.array([600, 600]), np.array([0, 1]))
    assert size == pytest.approx([(1 / 11 + 4 / 28) / 2 * 1000, (3 / 11 + 6 / 28) / 2 * 1000])
    assert part == pytest.approx([100.0, 50.0])


def test_jobs_of_a_real_dump(conf_file):
    dump = parse_sacct(FIXTURE)
    site = SlurmSite.from_conf(read_slurm_conf(conf_file(SMOKE_CONF)))
    jobs = site.jobs_from_dump(dump)
    ran = dump.started & np.isfinite(dump.start)
    assert len(jobs.job_id) == int(ran.sum()) and jobs.dropped == {"never_started": int((~ran).sum())}
    # times from the UTC midnight before the first submission (Slurm aligns on Unix time)
    assert (np.diff(jobs.columns["submit"]) >= 0).all() and jobs.columns["submit"][0] == jobs.first_submit
    assert jobs.origin % 86400 == 0 and jobs.origin + jobs.first_submit == int(np.nanmin(dump.submit[ran]))
    assert (jobs.columns["limit"] % 60 == 0).all() and (jobs.columns["limit"] >= 60).all()
    # priority/basic: the order of the Slurm job ids
    assert list(np.argsort(-jobs.columns["priority"], kind="stable")) == list(np.argsort(jobs.job_id, kind="stable"))
    # memory as Slurm 22.05 prints it (the job's total) spread over its nodes: all on one node here
    assert (jobs.columns["mem"] > 0).all()


def test_the_fit_recovers_the_delay_and_phase_a_log_was_made_with(conf_file):
    """A log simulated with a 2 s delay and a backfill phase 11 s before the first submission:
    fitting both to it gives them back."""
    conf = conf_file(SMOKE_CONF.replace("sched/backfill", "sched/backfill\nSchedulerParameters=bf_interval=20"))
    site = SlurmSite.from_conf(read_slurm_conf(conf))
    rng = np.random.default_rng(46)
    n = 60
    columns = {
        "submit": np.sort(rng.integers(0, 400, n)) + 1000,
        "run": rng.integers(5, 90, n),
        "limit": rng.choice([60, 120, 180], n),
        "cpus": rng.integers(1, 4, n),
    }
    truth = site.options(start_delay=2, bf_phase=989)
    recorded = slurm_schedule(site.cluster, columns, truth).start
    jobs = SlurmJobs(
        columns=job_arrays(columns),
        recorded_start=recorded,
        recorded_nodes=[None] * n,
        killed_at=np.full(n, UNRECORDED),
        job_id=np.arange(1, n + 1),
        origin=0,
        first_submit=int(columns["submit"][0]),
        dropped={},
    )
    fitted = fit_unrecorded_options(site.cluster, jobs, site.options(), ("start_delay", "bf_phase"))
    assert fitted.start_delay == 2
    again = slurm_schedule(site.cluster, columns, fitted).start
    assert (again == recorded).all()


def test_agreement_measures():
    agreement = schedule_agreement(np.array([0, 10, 20, 30]), np.array([0, 14, 50, 29]))
    assert agreement["within_2s"] == 0.5 and agreement["within_5s"] == 0.75 and agreement["within_30s"] == 1.0
    assert agreement["mean_abs_delta"] == pytest.approx((0 + 4 + 30 + 1) / 4)
    # one pair of six in the other order (jobs 2 and 3): (5 - 1) / 6
    assert agreement["kendall_tau"] == pytest.approx(4 / 6) and agreement["jobs"] == 4


def test_catalogue_machines_read_back():
    catalogue = load_catalogue(REPO / "config" / "pwa_catalogue.yaml")
    for name in ("KTH-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie"):
        entry = catalogue[name]
        text = catalogue_slurm_conf(name, entry)
        assert sum(kind["count"] * kind["cpus"] for kind in entry["nodes"]) >= entry["machine_size"] * 0.98, name
        assert "NodeName=a[1-" in text
    with pytest.raises(ValueError, match="no nodes for CTC-SP2"):
        catalogue_slurm_conf("CTC-SP2", catalogue["CTC-SP2"])


def test_simulate_slurm_conf_end_to_end(conf_file, tmp_path):
    conf = conf_file(SMOKE_CONF)
    table, swf = tmp_path / "jobs.parquet", tmp_path / "schedule.swf"
    command = [sys.executable, "-m", "simcore.cli", "simulate", str(FIXTURE), "--slurm-conf", str(conf)]
    done = subprocess.run([*command, "-o", str(table), "--schedule-out", str(swf)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "vs recorded" in done.stdout
    assert "estimated from the log: slurmctld_start, start_delay, bf_phase" in done.stdout
    rows = pq.read_table(table)
    run = simulate_site(FIXTURE, read_slurm_conf(conf))
    assert rows.column("simulated_start").to_pylist() == run.schedule.start.tolist()
    provenance = read_provenance(table)
    assert "SelectTypeParameters" in provenance["slurm_conf_keys_used"]
    lines = [line for line in swf.read_text().splitlines() if not line.startswith(";")]
    assert len(lines) == len(parse_sacct(FIXTURE).job_id)
    waits = sorted(float(line.split()[2]) for line in lines if float(line.split()[2]) >= 0)
    assert waits == sorted((run.schedule.start - run.jobs.columns["submit"]).astype(float).tolist())
    as_json = subprocess.run([*command, "--json"], capture_output=True, text=True)
    assert json.loads(as_json.stdout)["agreement"] == run.agreement


def test_an_swf_log_under_a_catalogue_machine(tmp_path):
    """A PWA-style SWF log in the Slurm mode: requested processors as CPUs, requested time as the
    limit (whole minutes), the simulated waits written back into the log's own lines."""
    log = tmp_path / "example.swf"
    subprocess.run([sys.executable, "-m", "simcore.cli", "example", "-o", str(log), "--jobs", "300"], check=True)
    conf = tmp_path / "slurm.conf"
    conf.write_text(catalogue_slurm_conf("KTH-SP2", {"nodes": [{"count": 128, "cpus": 1}]}))
    run = simulate_site(log, read_slurm_conf(conf), start_delay=0, bf_phase=0)
    swf = parse_swf(log)
    ran = (swf.fields[:, 3] >= 0) & (swf.fields[:, 7] > 0)
    assert len(run.jobs.job_id) == int(ran.sum())
    assert (run.jobs.columns["limit"] % 60 == 0).all()
    assert (run.schedule.start >= run.jobs.columns["submit"]).all()
    out = tmp_path / "schedule.swf.gz"
    write_site_schedule_swf(run, out)
    written = parse_swf(out)
    rows = {int(job_id): k for k, job_id in enumerate(written.fields[:, 0])}
    for j, job_id in enumerate(run.jobs.job_id):
        assert written.fields[rows[int(job_id)], 2] == run.schedule.start[j] - run.jobs.columns["submit"][j]


def test_import_saccts_slurm_header_lines_are_read_or_refused_naming_the_item(tmp_path):
    swf = tmp_path / "log.swf"
    job = "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
    swf.write_text("; SlurmReqNodes: 1:2 7:4\n; SlurmTimeout: 3 5\n; SlurmExclusive: 2:x\n" + job)
    log = parse_swf(swf)
    assert slurm_header(log, "SlurmReqNodes") == {1: 2, 7: 4} and slurm_header(log, "SlurmTimeout") == {3: 1, 5: 1}
    assert slurm_header(log, "SlurmMemPerNode") == {}
    with pytest.raises(ValueError, match=r"log.swf: header line SlurmExclusive: '2:x' is not JOB or JOB:N"):
        slurm_header(log, "SlurmExclusive")
