"""The ASA_X paper's §4.4 queue as a workload (docs/sharing_profiles.md, "The ASA_X paper's queue").

Souza, Pelckmans and Tordsson (arXiv:2401.09706) submit the same 15 workflow jobs three times,
all at once, to a machine of 64, 128 or 256 cores: Montage, BLAST and Statistics at 8, 16, 32 and
64 cores and Synthetic at 16, 32 and 64. :func:`paper_queue` builds those 45 jobs; every number
per job comes from the Slurm column of the paper's Table 2 at the machine's size
(:data:`~simcore.reporting.published.ASAX_TABLE2_WORKFLOWS`):

* CPU efficiency ``u`` = CPU util % / 100;
* memory per processor = mem util % / 100 of the paper's memory per core
  (:data:`NODE_MEMORY_PER_CORE_KB`), rounded to a whole KB;
* run time = the class's mean runtime x (1 + sd x z), where z standardises -log2(cores) over the
  class's sizes (population standard deviation): the wider job runs shorter, and the class's
  mean and relative standard deviation over its jobs are Table 2's exactly;
* requested time = ``walltime_factor`` x run time (an assumption: the paper gives no requests).

Nothing is random.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from simcore.engine.workload import Workload
from simcore.reporting.published import ASAX_LOADS, ASAX_TABLE2_WORKFLOWS, ASAX_WORKFLOWS
from simcore.studies.coscheduling.sharing import simulate_sharing
from simcore.studies.coscheduling.study import allocation_utilisations, memory_allocation_utilisations, run_metrics

# Cluster size (cores) -> the paper's load label: 512 / cores (Table 3).
PAPER_LOAD_LABELS = {cores: label for label, (_, cores) in ASAX_LOADS.items()}
PAPER_QUEUE_SIZES = tuple(PAPER_LOAD_LABELS)
# §4.4: the cores each workflow class requests, in the order of one set's submissions.
WORKFLOW_SIZES = {
    "Montage": (8, 16, 32, 64),
    "BLAST": (8, 16, 32, 64),
    "Statistics": (8, 16, 32, 64),
    "Synthetic": (16, 32, 64),
}
PAPER_QUEUE_SETS = 3  # §4.4: "three times"
DEFAULT_WALLTIME_FACTOR = 2.0
# §4.1: NumaScale nodes of two 24-core Opterons and "185 GB" each; read as GiB, in whole KB per core
# (as SWF records memory). Memory per job is whole KB too, so that a pair filling a core's memory
# exactly (Statistics 5 % + Synthetic 95 % at 64 cores) fits, as the <= test of the model says, and
# no rounding decides it.
NODE_MEMORY_PER_CORE_KB = 185 * 1024 * 1024 // 48
# Table 2's Slurm column is our SPACE strategy.
_SLURM = "SPACE"
_SECONDS_PER_HOUR = 3600.0


def _check_size(cores: int) -> str:
    """The load label of a paper cluster size; ValueError naming the allowed sizes otherwise."""
    if isinstance(cores, bool) or not isinstance(cores, (int, np.integer)) or cores not in PAPER_LOAD_LABELS:
        allowed = ", ".join(map(str, PAPER_QUEUE_SIZES[:-1])) + f" or {PAPER_QUEUE_SIZES[-1]}"
        raise ValueError(f"the ASA_X paper's queue runs on {allowed} cores only, got {cores!r}")
    return PAPER_LOAD_LABELS[cores]


def _check_sets(sets: int) -> None:
    if isinstance(sets, bool) or not isinstance(sets, (int, np.integer)) or sets < 1:
        raise ValueError(f"the queue needs at least one set of the 15 workflow jobs, got sets={sets!r}")


def workflow_classes(cores: int, sets: int = PAPER_QUEUE_SETS) -> np.ndarray:
    """The workflow class of each job of :func:`paper_queue` (same order)."""
    _check_size(cores)
    _check_sets(sets)
    one_set = [name for name in ASAX_WORKFLOWS for _ in WORKFLOW_SIZES[name]]
    return np.array(one_set * sets)


def workflow_run_times(mean_seconds: float, relative_sd: float, sizes) -> np.ndarray:
    """Run times of one class's jobs of `sizes` cores: mean x (1 + relative_sd x z).

    z standardises -log2(size) (population standard deviation), so the wider job runs shorter
    and the run times have exactly this mean and relative (population) standard deviation.
    """
    narrowness = -np.log2(np.asarray(sizes, dtype=np.float64))
    z = (narrowness - narrowness.mean()) / narrowness.std()
    run = mean_seconds * (1.0 + relative_sd * z)
    if not (run > 0).all():
        raise ValueError(f"relative standard deviation {relative_sd} gives a run time <= 0 for sizes {sizes}")
    return run


def paper_queue(cores: int, walltime_factor: float = DEFAULT_WALLTIME_FACTOR, sets: int = PAPER_QUEUE_SETS) -> Workload:
    """The §4.4 queue on `cores` processors: `sets` times the 15 workflow jobs, all submitted at 0.

    Jobs are numbered 1.. in submission order: each set in turn, within it Montage, BLAST,
    Statistics and Synthetic, each from its narrowest size to its widest. A workflow class is
    one user (1 to 4, in that order). See the module docstring for the per-job numbers.
    """
    load = _check_size(cores)
    _check_sets(sets)
    if not (math.isfinite(walltime_factor) and walltime_factor >= 1):
        # below 1 the request would cut the run short: the job would not be the paper's
        raise ValueError(f"walltime_factor must be finite and >= 1, got {walltime_factor!r}")
    procs, run, efficiency, memory, user = [], [], [], [], []
    for number, name in enumerate(ASAX_WORKFLOWS, start=1):
        runtime_h, runtime_sd_percent, cpu_percent, _, memory_percent, _ = ASAX_TABLE2_WORKFLOWS[(_SLURM, load, name)]
        sizes = WORKFLOW_SIZES[name]
        procs.append(sizes)
        run.append(workflow_run_times(runtime_h * _SECONDS_PER_HOUR, runtime_sd_percent / 100.0, sizes))
        efficiency.append(np.full(len(sizes), cpu_percent / 100.0))
        memory.append(np.full(len(sizes), float(round(memory_percent / 100.0 * NODE_MEMORY_PER_CORE_KB))))
        user.append(np.full(len(sizes), number))
    one_set = [np.concatenate(values) for values in (procs, run, efficiency, memory, user)]
    procs, run, efficiency, memory, user = (np.tile(values, sets) for values in one_set)
    return Workload.from_arrays(
        submit=np.zeros(len(procs)),
        run=run,
        requested=walltime_factor * run,
        procs=procs,
        machine_size=cores,
        user=user,
        source=f"ASA_X paper queue (arXiv:2401.09706 §4.4) cores={cores} ({load}) sets={sets} "
        f"walltime_factor={walltime_factor:g}",
        efficiency=efficiency,
        memory=memory,
    )


# -- the study on the queue (docs/coscheduling.md §6) -------------------------------------------

PAPER_QUEUE_TRACE = "ASA_X-queue"  # the queue's name in the study's rows, as a trace's
CLASS_COLUMNS = [
    "load",
    "kappa",
    "configuration",
    "strategy",
    "seed",
    "cores",
    "workflow",
    "jobs",
    "runtime_h",
    "runtime_sd",
    "allocation_utilisation",
    "memory_allocation_utilisation",
    "mean_slowdown",
]


def queue_runs(sweep, walltime_factor: float = DEFAULT_WALLTIME_FACTOR) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every run of `sweep` (its warm configurations left out: the queue is one window) on the queue
    at each of the paper's sizes, memory on with M = the paper's memory per core: (rows as E1's, with
    the paper's load 512 / cores and window 0; per workflow class, the Table 2 analogues)."""
    rows, classes = [], []
    sweep = replace(sweep, memory=True, memory_capacity=float(NODE_MEMORY_PER_CORE_KB))
    for cores in PAPER_QUEUE_SIZES:
        workload = paper_queue(cores, walltime_factor)
        names = workflow_classes(cores)
        load = float(ASAX_LOADS[PAPER_LOAD_LABELS[cores]][0])
        for name, options, kappa, seed, settings in sweep.grid(workload):
            if options.get("warm"):
                continue
            result = simulate_sharing(workload, settings, seed=[seed, cores])
            key = {"load": load, "kappa": kappa, "configuration": name, "strategy": options["strategy"], "seed": seed}
            rows.append({"experiment": "E1", **key, "window": 0, "size_binds": False, **run_metrics(result)})
            runtime = result.end - result.start
            allocation, memory = allocation_utilisations(result), memory_allocation_utilisations(result)
            for workflow in ASAX_WORKFLOWS:
                jobs = names == workflow
                classes.append(
                    {
                        **key,
                        "cores": cores,
                        "workflow": workflow,
                        "jobs": int(jobs.sum()),
                        "runtime_h": float(runtime[jobs].mean() / 3600.0),
                        "runtime_sd": float(runtime[jobs].std() / runtime[jobs].mean()),
                        "allocation_utilisation": float(allocation[jobs].mean()),
                        "memory_allocation_utilisation": float(memory[jobs].mean()),
                        "mean_slowdown": float((runtime[jobs] / workload.run[jobs]).mean()),
                    }
                )
    return pd.DataFrame(rows), pd.DataFrame(classes, columns=CLASS_COLUMNS)
