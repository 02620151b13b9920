"""The implementations of docs/slurm_mode.md that the Slurm-mode tests check, and input helpers.

SCHEDULERS maps a name to a function slurm_schedule(cluster, jobs, options) -> dict (the entry point of
tests/slurm_reference.py); tests parametrize over it, so every implementation added here is checked by
the same hand-computed cases.
"""

import numpy as np
import slurm_reference
from simcore.engine._slurm import SlurmRun


def kernel_schedule(cluster: dict, jobs: dict, options: dict) -> dict:
    """simcore/engine/_slurm.pyx behind the reference's entry point: the kernel takes jobs in
    submission order (ties in the given order), so they are sorted for it and mapped back."""
    order = np.argsort(np.asarray(jobs["submit"]), kind="stable")
    n = len(order)
    given = {key: [values[i] for i in order] for key, values in jobs.items()}
    given.setdefault("priority", [0] * n)
    start, backfilled, offsets, nodes, cpus = SlurmRun(cluster, given, options).run()
    result = {"start": [0] * n, "nodes": [[]] * n, "cpus": [[]] * n, "backfilled": [False] * n}
    for k, job in enumerate(order):
        result["start"][job] = int(start[k])
        result["nodes"][job] = nodes[offsets[k] : offsets[k + 1]].tolist()
        result["cpus"][job] = cpus[offsets[k] : offsets[k + 1]].tolist()
        result["backfilled"][job] = bool(backfilled[k])
    return result


SCHEDULERS = {"reference": slurm_reference.slurm_schedule, "kernel": kernel_schedule}

# docs/slurm_mode.md section 1 (options) with Slurm's defaults; bf_node_space_size defaults to bf_max_job_test;
# multifactor (section 3) and fair share (section 3.1) are off by default; sched_interval (section 4) is Slurm's 60 s
DEFAULT_OPTIONS = {
    "memory_consumable": False,
    "whole_nodes": False,
    "backfill": True,
    "bf_interval": 30,
    "bf_resolution": 60,
    "bf_window": 86400,
    "bf_max_job_test": 500,
    "bf_job_part_count_reserve": 0,
    "bf_node_space_size": 500,
    "default_queue_depth": 100,
    "start_delay": 0,
    "bf_phase": 0,
    **slurm_reference.OPTIONAL_OPTIONS,  # multifactor and the periodic pass, as the spec defaults them
}

JOB_DEFAULTS = {"nodes": 0, "mem": 0, "mem_per_cpu": False, "exclusive": False, "partition": 0}
JOB_REQUIRED = ("submit", "run", "limit", "cpus")
JOB_KEYS = ("submit", "run", "limit", "cpus", "nodes", "mem", "partition", "priority", "mem_per_cpu", "exclusive")
# section 1: priority/multifactor's weighted factors, optional columns (0.0 when absent); the fair-share term
# comes from section 3.1
JOB_FLOAT_KEYS = ("weighted_job_size", "weighted_partition")


def default_options(**overrides) -> dict:
    """The options dict with the spec's defaults, some overridden."""
    unknown = set(overrides) - set(DEFAULT_OPTIONS)
    if unknown:
        raise KeyError(f"unknown options {sorted(unknown)}")
    return {**DEFAULT_OPTIONS, **overrides}


def make_jobs(rows) -> dict:
    """The jobs dict (one list per field) from a list of small dicts.

    Each row needs submit, run, limit and cpus; the rest default to nodes 0, mem 0, mem_per_cpu False,
    exclusive False, partition 0 and priority = -index (FIFO, as priority/basic gives).  The weighted
    factors (weighted_job_size, weighted_partition) are columns only when some row gives them (0.0 for
    the other rows)."""
    float_keys = [key for key in JOB_FLOAT_KEYS if any(key in row for row in rows)]
    jobs = {key: [] for key in (*JOB_KEYS, *float_keys)}
    for index, row in enumerate(rows):
        unknown = set(row) - set(JOB_KEYS) - set(JOB_FLOAT_KEYS)
        if unknown:
            raise KeyError(f"job {index}: unknown fields {sorted(unknown)}")
        full = {**JOB_DEFAULTS, "priority": -index, **{key: 0.0 for key in float_keys}, **row}
        for key in jobs:
            jobs[key].append(full[key])
    return jobs
