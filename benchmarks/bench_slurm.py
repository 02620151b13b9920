"""Benchmark of the Slurm mode (docs/slurm_mode.md) on whole PWA traces, against the count-only
EASY-FCFS kernel measured in the same run.

    python benchmarks/bench_slurm.py [--traces KTH-SP2 SDSC-BLUE ...] [--pwa DIR] [--output FILE]

Each trace runs node-aware on the machine the catalogue gives (config/pwa_catalogue.yaml `nodes`):
one partition, sched/backfill with Slurm's defaults (bf_interval 30 s, bf_max_job_test 500,
sched_interval 60 s), priority/basic, the requested times as limits (whole minutes). Reported:
the jobs, the Slurm mode's seconds (reading excluded), EASY-FCFS's kernel seconds on the same trace
(strict filter), their ratio, and the backfill cycles run; then the same trace under
priority/multifactor (age 1000, PriorityCalcPeriod 5 min) without and with Fair Tree fair share
(weight 10000; one association per SWF user, all under the root), to show what fair share costs.
See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import simcore
from simcore.engine.slurm import slurm_schedule
from simcore.engine.swf import JOB_ID, USER, parse_swf
from simcore.workloads.catalogue import catalogue_slurm_conf, load_catalogue
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import SlurmSite

REPO = Path(__file__).resolve().parent.parent
TRACES = ("KTH-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie")


def measure(name: str, entry: dict, pwa: Path) -> dict:
    path = pwa / entry["file"]
    with tempfile.TemporaryDirectory() as folder:
        conf_path = Path(folder) / "slurm.conf"
        conf_path.write_text(catalogue_slurm_conf(name, entry))
        site = SlurmSite.from_conf(read_slurm_conf(conf_path))
    log = parse_swf(path)
    jobs = site.jobs_from_swf(log)
    began = time.perf_counter()
    schedule = slurm_schedule(site.cluster, jobs.columns, site.options())
    slurm_seconds = time.perf_counter() - began
    user_of = dict(zip(log.fields[:, JOB_ID].astype(np.int64).tolist(), log.fields[:, USER].tolist()))
    users, association = np.unique([user_of[int(j)] for j in jobs.job_id], return_inverse=True)
    tree = {"parent": [-1] + [0] * len(users), "shares": [1] * (len(users) + 1), "user": [False] + [True] * len(users)}
    cluster = replace(site.cluster, associations=tree)
    columns = {**jobs.columns, "association": association + 1}
    multifactor = replace(site.options(), multifactor=True, priority_weight_age=1000, priority_calc_period=300)
    seconds = {}
    for label, options in (("age", multifactor), ("fair_tree", replace(multifactor, priority_weight_fairshare=10000))):
        began = time.perf_counter()
        slurm_schedule(cluster, columns, options)
        seconds[label] = time.perf_counter() - began
    easy = simcore.simulate(simcore.read_swf(path), policy=simcore.Policy(order="FCFS", backfill="queue"))
    return {
        "trace": name,
        "nodes": len(site.cluster.cpus),
        "jobs": len(jobs.recorded_start),
        "slurm_s": slurm_seconds,
        "easy_s": easy.kernel_seconds,
        "ratio": slurm_seconds / easy.kernel_seconds,
        "backfilled": int(schedule.backfilled.sum()),
        "users": len(users),
        "age_s": seconds["age"],
        "fair_tree_s": seconds["fair_tree"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=list(TRACES))
    parser.add_argument("--pwa", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    catalogue = load_catalogue(REPO / "config" / "pwa_catalogue.yaml")
    rows = [
        "| trace | nodes | jobs | Slurm mode s | EASY-FCFS kernel s | ratio | backfilled | users "
        "| multifactor (age) s | with Fair Tree s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.traces:
        r = measure(name, catalogue[name], args.pwa)
        rows.append(
            f"| {r['trace']} | {r['nodes']:,} | {r['jobs']:,} | {r['slurm_s']:.1f} | {r['easy_s']:.3f} | "
            f"{r['ratio']:,.0f} | {r['backfilled']:,} | {r['users']:,} | {r['age_s']:.1f} | {r['fair_tree_s']:.1f} |"
        )
        print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.output:
        args.output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
