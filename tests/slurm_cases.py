"""Random Slurm-mode cases (docs/slurm_mode.md): a cluster, jobs and options drawn from one
seed, covering every node shape and option, for the kernel-vs-reference tests and their
benchmark. Every job fits its partition when the partition is empty."""

import numpy as np
from simcore.engine._slurm import SlurmRun


def _fits_alone(cluster: dict, job: dict, options: dict) -> bool:
    one = {key: [value] for key, value in job.items()}
    try:
        SlurmRun(cluster, one, options)
    except ValueError:
        return False
    return True


def random_cluster(rng: np.random.Generator) -> dict:
    n = int(rng.integers(1, 9))
    shape = rng.integers(3)
    if shape == 0:  # one node size
        cpus = [int(rng.choice([1, 2, 4, 8, 16, 32]))] * n
    elif shape == 1:  # many one-CPU nodes
        n = int(rng.integers(4, 17))
        cpus = [1] * n
    else:  # mixed
        cpus = [int(c) for c in rng.choice([1, 2, 4, 8], size=n)]
    n = len(cpus)
    memory = [int(m) for m in rng.choice([1000, 2000, 4000], size=n)]
    weight = [int(w) for w in rng.choice([1, 1, 1, 5], size=n)] if rng.random() < 0.3 else [1] * n
    n_parts = int(rng.choice([1, 1, 2, 3]))
    partitions = [list(range(n))]
    for _ in range(n_parts - 1):
        members = sorted(int(i) for i in rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        partitions.append(members)
    tiers = [int(t) for t in rng.choice([1, 1, 2], size=n_parts)]
    return {"cpus": cpus, "memory": memory, "weight": weight, "partitions": partitions, "tiers": tiers}


def random_options(rng: np.random.Generator) -> dict:
    max_job_test = int(rng.choice([1, 2, 5, 500]))
    return {
        "memory_consumable": bool(rng.random() < 0.4),
        "whole_nodes": bool(rng.random() < 0.1),
        "backfill": bool(rng.random() < 0.85),
        "bf_interval": int(rng.choice([1, 5, 30, 60])),
        "bf_resolution": int(rng.choice([1, 10, 60])),
        "bf_window": int(rng.choice([300, 3600, 86400])),
        "bf_max_job_test": max_job_test,
        "bf_job_part_count_reserve": int(rng.choice([0, 0, 1, 2])),
        "bf_node_space_size": int(rng.choice([2, 4, max_job_test, 500])),
        "default_queue_depth": int(rng.choice([0, 1, 3, 100])),
        "start_delay": int(rng.choice([0, 0, 1, 2])),
        "bf_phase": int(rng.integers(0, 31)),
        "sched_interval": int(rng.choice([0, 60, 60, 17])),
        "multifactor": bool(rng.random() < 0.4),
        "priority_weight_age": int(rng.choice([0, 1000, 100000])),
        "priority_max_age": int(rng.choice([0, 600, 604800])),
        "priority_calc_period": int(rng.choice([1, 60, 300])),
        "priority_calc_origin": int(rng.integers(-50, 101)),
    }


def random_jobs(rng: np.random.Generator, cluster: dict, options: dict) -> dict:
    count = int(rng.integers(3, 41))
    fifo = rng.random() < 0.5
    rows = []
    submit = 0
    while len(rows) < count:
        part = int(rng.integers(len(cluster["partitions"])))
        members = cluster["partitions"][part]
        capacity = sum(cluster["cpus"][i] for i in members)
        cpus = int(rng.integers(1, capacity + 1)) if rng.random() < 0.3 else int(rng.integers(1, min(capacity, 4) + 1))
        nodes = 0
        if rng.random() < 0.25:
            nodes = int(rng.integers(1, min(len(members), cpus) + 1))
        mem, per_cpu = 0, False
        if rng.random() < 0.6:
            per_cpu = bool(rng.random() < 0.4)
            mem = int(rng.choice([100, 250, 500])) if per_cpu else int(rng.choice([200, 500, 1000, 3000]))
        limit = int(rng.choice([60, 120, 180, 300, 600, 3600]))
        run = int(rng.integers(0, limit + 1)) if rng.random() < 0.9 else limit + int(rng.integers(1, 100))
        job = {
            "submit": submit,
            "run": run,
            "limit": limit,
            "cpus": cpus,
            "nodes": nodes,
            "mem": mem,
            "mem_per_cpu": per_cpu,
            "exclusive": bool(rng.random() < 0.1),
            "partition": part,
            "priority": -len(rows) if fifo else int(rng.integers(0, 4)),
        }
        if not _fits_alone(cluster, job, options):
            continue
        rows.append(job)
        submit += int(rng.choice([0, 0, 1, 5, 17, 40, 90]))
    jobs = {key: [row[key] for row in rows] for key in rows[0]}
    if options["multifactor"]:  # weighted factors as a site's would be: fractions of weights, some equal
        for key in ("weighted_fairshare", "weighted_job_size", "weighted_partition"):
            jobs[key] = [float(x) for x in rng.choice([0.0, 0.5, 123.25, 1000.0 / 3, 2500.0], size=len(rows))]
    return jobs


def random_case(seed: int) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng)
    options = random_options(rng)
    return cluster, random_jobs(rng, cluster, options), options
