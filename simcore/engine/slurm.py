"""The Slurm mode (docs/slurm_mode.md): a cluster of nodes scheduled by Slurm 22.05's main
scheduler and backfill cycle. The kernel is _slurm.pyx; this module names its inputs.

    cluster = SlurmCluster(cpus=[32], memory=[64000], partitions=[[0]])
    schedule = slurm_schedule(cluster, jobs, SlurmOptions(bf_interval=1))
    schedule.start, schedule.backfilled, schedule.nodes_of(j)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from simcore.engine._slurm import SlurmRun

JOB_COLUMNS = ("submit", "run", "limit", "cpus", "nodes", "mem", "mem_per_cpu", "exclusive", "partition", "priority")
"""A job's fields (docs/slurm_mode.md §1); `nodes`, `mem`, `mem_per_cpu`, `exclusive` and
`partition` default to 0, `priority` to FIFO (the order of the rows)."""
WEIGHTED_FACTORS = ("weighted_job_size", "weighted_partition")
"""Multifactor's job-size and partition factors, times their weights (doubles, default 0; §3); fair
share is computed by the kernel from each job's `association` (§3.1)."""


@dataclass(frozen=True)
class SlurmCluster:
    """Nodes in Slurm's node-table order (natural order of their names) and the partitions."""

    cpus: list[int]
    memory: list[int] | None = None  # MB per node; None: no memory (nothing asks for any)
    weight: list[int] | None = None  # Slurm's node Weight; None: all equal
    partitions: list[list[int]] = field(default_factory=list)  # node indices; empty: one with every node
    tiers: list[int] | None = None  # PriorityTier per partition; None: all equal
    node_names: list[str] | None = None
    partition_names: list[str] | None = None
    associations: dict | None = None  # fair share's tree: {"parent", "shares", "user"} (§1)

    def arrays(self) -> dict:
        n = len(self.cpus)
        partitions = self.partitions or [list(range(n))]
        return {
            **({"associations": self.associations} if self.associations else {}),
            "cpus": list(self.cpus),
            "memory": list(self.memory) if self.memory is not None else [0] * n,
            "weight": list(self.weight) if self.weight is not None else [1] * n,
            "partitions": [list(p) for p in partitions],
            "tiers": list(self.tiers) if self.tiers is not None else [1] * len(partitions),
        }


@dataclass(frozen=True)
class SlurmOptions:
    """The scheduler's settings, with Slurm 22.05's defaults (times in seconds)."""

    backfill: bool = True  # sched/backfill; False: sched/builtin
    memory_consumable: bool = False  # SelectTypeParameters CR_*_Memory
    whole_nodes: bool = False  # select/linear
    bf_interval: int = 30
    bf_resolution: int = 60
    bf_window: int = 86400
    bf_max_job_test: int = 500
    bf_job_part_count_reserve: int = 0
    bf_node_space_size: int | None = None  # None: bf_max_job_test, as Slurm
    default_queue_depth: int = 100
    sched_interval: int = 60  # slurmctld's periodic full-queue pass (0: none)
    kill_check_period: int = 30  # time limits are checked this often (PERIODIC_TIMEOUT); 0: killed at the limit
    over_time_limit: int = 0  # OverTimeLimit, seconds
    kill_wait: int = 30  # KillWait: the will-run's guess for a job past its limit
    start_delay: int = 0  # seconds between an event and the main scheduler's pass it causes
    batch_sched_delay: int = 3  # submissions' passes come at most this often (SchedulerParameters)
    bf_phase: int = 0  # when a cycle that saw nothing ran (§5)
    multifactor: bool = False  # priority/multifactor: priorities recomputed at the decay instants (§3)
    priority_weight_age: int = 0
    priority_max_age: int = 7 * 86400
    priority_calc_period: int = 300
    priority_calc_origin: int = 0  # slurmctld's start: the decay instants count from it
    priority_weight_fairshare: float = 0  # fair share (§3.1): off at 0
    fair_tree: bool = True  # False: the classic formula (PriorityFlags=NO_FAIR_TREE)
    priority_decay_half_life: int = 7 * 86400  # 0: no decay
    fairshare_dampening: int = 1
    usage_at_job_end: bool = False  # AccountingStorageEnforce with limits: a job's end adds its last usage
    usage_resets: tuple = ()  # PriorityUsageResetPeriod's instants
    # the decay instant after its second's completions, submissions, passes and cycle, not before them:
    # the decay thread's sub-second phase against the scheduler's, which no log records (§3)
    decay_after_passes: bool = False

    def arrays(self) -> dict:
        values = asdict(self)
        if values["bf_node_space_size"] is None:
            values["bf_node_space_size"] = self.bf_max_job_test
        return values


@dataclass(frozen=True)
class SlurmSchedule:
    """Per job: its start, whether the backfill cycle started it, its nodes and CPUs there."""

    start: np.ndarray
    backfilled: np.ndarray
    node_offsets: np.ndarray  # job j's nodes are nodes[node_offsets[j]:node_offsets[j + 1]]
    nodes: np.ndarray
    cpus: np.ndarray

    def nodes_of(self, job: int) -> np.ndarray:
        return self.nodes[self.node_offsets[job] : self.node_offsets[job + 1]]

    def cpus_of(self, job: int) -> np.ndarray:
        return self.cpus[self.node_offsets[job] : self.node_offsets[job + 1]]


def job_arrays(jobs) -> dict:
    """The kernel's job columns from a mapping or DataFrame of JOB_COLUMNS (defaults filled)."""
    n = len(jobs["submit"])
    defaults = {"nodes": 0, "mem": 0, "mem_per_cpu": 0, "exclusive": 0, "partition": 0}
    columns = {}
    for name in JOB_COLUMNS:
        if name in jobs:
            columns[name] = np.asarray(jobs[name], dtype=np.int64)
        elif name == "priority":
            columns[name] = -np.arange(n, dtype=np.int64)
        elif name in defaults:
            columns[name] = np.full(n, defaults[name], dtype=np.int64)
        else:
            raise ValueError(f"jobs: no '{name}' column")
    for name in WEIGHTED_FACTORS:
        if name in jobs:
            columns[name] = np.asarray(jobs[name], dtype=np.float64)
    if "association" in jobs:
        columns["association"] = np.asarray(jobs["association"], dtype=np.int64)
    return columns


def slurm_schedule(cluster: SlurmCluster, jobs, options: SlurmOptions | None = None) -> SlurmSchedule:
    """Simulates the jobs (ordered by submission) on the cluster under the options."""
    options = options or SlurmOptions()
    run = SlurmRun(cluster.arrays(), job_arrays(jobs), options.arrays())
    return SlurmSchedule(*run.run())


REPLAY_TOLERANCE = 2  # seconds: a decision within this of the recorded start is explained (issue #46)


def slurm_replay(
    cluster: SlurmCluster,
    jobs,
    options: SlurmOptions,
    recorded_start: np.ndarray,
    recorded_nodes: list,
    recorded_end: np.ndarray | None = None,
    tolerance: int = REPLAY_TOLERANCE,
) -> np.ndarray:
    """The one-step replay (docs/slurm_mode.md §8): the model runs on the recorded history (each
    job starts as recorded, on its recorded nodes, and ends as recorded) and notes the first instant
    it would itself have started each job; -1 where it never did. recorded_start is negative where
    a job has none; recorded_nodes[j] lists job j's node indices (None: anywhere in its partition);
    recorded_end (negative, or None: the start plus the run time) matters for the jobs Slurm killed,
    whose run time is unbounded (UNTIL_KILLED)."""
    lists = [np.asarray(nodes if nodes is not None else (), dtype=np.int64) for nodes in recorded_nodes]
    replay = {
        "recorded_start": np.asarray(recorded_start, dtype=np.int64),
        "recorded_end": np.full(len(lists), -1) if recorded_end is None else np.asarray(recorded_end, dtype=np.int64),
        "node_offsets": np.concatenate(([0], np.cumsum([len(nodes) for nodes in lists]))).astype(np.int64),
        "nodes": np.concatenate(lists) if lists else np.empty(0, dtype=np.int64),
        "tolerance": tolerance,
    }
    run = SlurmRun(cluster.arrays(), job_arrays(jobs), options.arrays(), replay)
    run.run()
    return run.predicted
