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
from simcore.reporting.published import (
    ASAX_LOADS,
    ASAX_TABLE2_WORKFLOW_COLUMNS,
    ASAX_TABLE2_WORKFLOWS,
    ASAX_WORKFLOWS,
)
from simcore.studies.coscheduling.sharing import EXPERTS, SharingSettings, simulate_sharing
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


def table2_weighted_mean(strategy: str, load_label: str, column: str = "CPU util %") -> float:
    """A column of the paper's Table 2 averaged over the 15 jobs of a set (each workflow class
    weighted by its jobs: Montage, BLAST, Statistics 4, Synthetic 3), from the published CSV: the
    strategy's mean over the queue's jobs, what our per-job means are compared with."""
    index = ASAX_TABLE2_WORKFLOW_COLUMNS.index(column)
    total = sum(
        len(WORKFLOW_SIZES[name]) * ASAX_TABLE2_WORKFLOWS[(strategy, load_label, name)][index]
        for name in ASAX_WORKFLOWS
    )
    return total / sum(len(sizes) for sizes in WORKFLOW_SIZES.values())


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
# The paper's Static and ASA_X ran on its Mesos framework: a first fit, no reservation (§3.2, §4.1);
# its Slurm column is EASY. A configuration that names its own scheduler keeps it.
PAPER_SCHEDULER = "first-fit"
# Table 2: "each three times"; the learner carried from run to run in the paper's order (warm)
PAPER_REPETITIONS = 3
CLASS_COLUMNS = [
    "load",
    "kappa",
    "configuration",
    "strategy",
    "seed",
    "window",
    "cores",
    "workflow",
    "jobs",
    "runtime_h",
    "runtime_sd",
    "allocation_utilisation",
    "memory_allocation_utilisation",
    "mean_slowdown",
]


def queue_settings(settings: SharingSettings, options: dict, scheduler: str) -> SharingSettings:
    """A configuration's settings on the queue: the sharing strategies on `scheduler` unless the
    configuration names its own; SPACE (the paper's Slurm) on EASY."""
    if options["strategy"] == "SPACE" or "scheduler" in options:
        return settings
    return replace(settings, scheduler=scheduler)


def queue_runs(
    sweep,
    walltime_factor: float = DEFAULT_WALLTIME_FACTOR,
    scheduler: str = PAPER_SCHEDULER,
    repetitions: int = PAPER_REPETITIONS,
    warm: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every run of `sweep` (its warm configurations left out: `warm` decides for every learner here)
    on the queue at each of the paper's sizes, `repetitions` times each, memory on with M = the
    paper's memory per core: (rows as E1's, with the paper's load 512 / cores and the repetition as
    the window; per workflow class, the Table 2 analogues). With `warm`, a learner is carried from
    run to run in the paper's order: the sizes as Table 2 lists them, each `repetitions` times."""
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ValueError(f"repetitions must be an integer >= 1, got {repetitions!r}")
    rows, classes = [], []
    sweep = replace(sweep, memory=True, memory_capacity=float(NODE_MEMORY_PER_CORE_KB))
    queues = {cores: (paper_queue(cores, walltime_factor), workflow_classes(cores)) for cores in PAPER_QUEUE_SIZES}
    for name, options, kappa, seed, settings in sweep.grid(queues[PAPER_QUEUE_SIZES[0]][0]):
        if options.get("warm"):
            continue
        settings = queue_settings(settings, options, scheduler)
        state = None
        for cores, (workload, names) in queues.items():
            load = float(ASAX_LOADS[PAPER_LOAD_LABELS[cores]][0])
            for repetition in range(repetitions):
                result = simulate_sharing(workload, settings, seed=[seed, cores, repetition], learner_state=state)
                if warm and options["strategy"] == "ASAX":
                    state = result.learner["state"]
                key = {
                    "load": load,
                    "kappa": kappa,
                    "configuration": name,
                    "strategy": options["strategy"],
                    "seed": seed,
                    "window": repetition,
                }
                final = result.learner["state"]
                rows.append(
                    {
                        "experiment": "E1",
                        **key,
                        "size_binds": False,
                        "scheduler": settings.scheduler,
                        "learner_round": int(final["round"]),
                        **{f"alpha_{expert}": float(final["alpha"][i]) for i, expert in enumerate(EXPERTS)},
                        **run_metrics(result),
                    }
                )
                classes += _class_rows(result, names, key | {"cores": cores})
    return pd.DataFrame(rows), pd.DataFrame(classes, columns=CLASS_COLUMNS)


def _class_rows(result, names: np.ndarray, key: dict) -> list[dict]:
    """The Table 2 analogues of one run, per workflow class."""
    runtime = result.end - result.start
    allocation, memory = allocation_utilisations(result), memory_allocation_utilisations(result)
    rows = []
    for workflow in ASAX_WORKFLOWS:
        jobs = names == workflow
        rows.append(
            {
                **key,
                "workflow": workflow,
                "jobs": int(jobs.sum()),
                "runtime_h": float(runtime[jobs].mean() / 3600.0),
                "runtime_sd": float(runtime[jobs].std() / runtime[jobs].mean()),
                "allocation_utilisation": float(allocation[jobs].mean()),
                "memory_allocation_utilisation": float(memory[jobs].mean()),
                "mean_slowdown": float((runtime[jobs] / result.workload.run[jobs]).mean()),
            }
        )
    return rows
