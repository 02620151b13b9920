"""The job sets of the elastic study (docs/elastic.md §1): the serial jobs of a trace, their type
(interactive below 900 s of execution), their virtual organisation (the six groups with the most
work, then "rest"), the target shares and the load-matched rigid pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.engine.workload import Workload

INTERACTIVE_BELOW = 900.0  # seconds of execution
NAMED_VOS = 6  # the groups with the largest work; every other group is "rest"
VOS = NAMED_VOS + 1
PAPER_UTILISATION = 0.56  # LAL's, which the rigid pool reproduces
PRE_TRAINING_JOBS = 2000
SET_JOBS = 11500  # 2,000 pre-training + 9,500 online, the paper's size


class JobSetError(ValueError):
    """A trace the elastic study cannot use; the message names it."""


@dataclass(frozen=True)
class JobSet:
    """Serial jobs in (r, id) order: the first `pre_training` train the learner, the rest run online."""

    name: str
    job_id: np.ndarray
    submit: np.ndarray
    run: np.ndarray  # p_j = min(f4, f9)
    vo: np.ndarray  # 0..5 the named VOs by decreasing work, 6 "rest"
    interactive: np.ndarray
    recorded_wait: np.ndarray  # the log's own wait (f3), NaN where unknown
    shares: np.ndarray  # target share w_k of each VO: its share of the set's work
    groups: tuple  # the SWF group of each named VO
    pre_training: int
    rigid_pool: int

    def __len__(self) -> int:
        return len(self.submit)

    @property
    def online(self) -> slice:
        return slice(self.pre_training, len(self))


def serial_jobs(workload: Workload) -> Workload:
    """The one-processor jobs, checked: the study needs groups (SWF field 13) and serial jobs."""
    serial = workload.take(np.flatnonzero(workload.procs == 1))
    if len(serial) == 0:
        raise JobSetError(f"{workload.source}: no serial job (q = 1): the elastic study schedules serial jobs")
    if np.all(serial.group < 0):
        raise JobSetError(
            f"{workload.source}: no job records its group (SWF field 13): the elastic study needs the "
            "virtual organisations"
        )
    return serial


def rigid_pool(submit: np.ndarray, run: np.ndarray) -> int:
    """round(Σ p / (0.56 (r_last - r_first))) over the online jobs, at least one core."""
    span = float(submit[-1] - submit[0])
    if span <= 0:
        raise JobSetError("the online jobs are all submitted at one instant: no load to match a pool to")
    return max(1, round(float(run.sum()) / (PAPER_UTILISATION * span)))


def job_set(serial: Workload, indices: np.ndarray, name: str, pre_training: int = PRE_TRAINING_JOBS) -> JobSet:
    """The job set of the serial jobs at `indices` (workload order): VOs and shares over the set."""
    jobs = serial.take(indices)
    if pre_training < 1:
        raise JobSetError(f"{name}: {pre_training} pre-training jobs: EST's fallback medians need at least one")
    if len(jobs) <= pre_training:
        raise JobSetError(f"{name}: {len(jobs)} jobs, not more than the {pre_training} pre-training jobs")
    work = np.maximum(jobs.run, 0.0)
    groups, group_of = np.unique(jobs.group, return_inverse=True)
    work_by_group = np.bincount(group_of, weights=work, minlength=len(groups))
    ranked = np.argsort(-work_by_group, kind="stable")[:NAMED_VOS]  # ties: the smaller group number
    vo_of_group = np.full(len(groups), NAMED_VOS)
    vo_of_group[ranked] = np.arange(len(ranked))
    vo = vo_of_group[group_of]
    shares = np.bincount(vo, weights=work, minlength=VOS) / max(work.sum(), 1e-300)
    online = slice(pre_training, len(jobs))
    return JobSet(
        name=name,
        job_id=jobs.job_id,
        submit=jobs.submit,
        run=work,
        vo=vo,
        interactive=work < INTERACTIVE_BELOW,
        recorded_wait=jobs.recorded_wait,
        shares=shares,
        groups=tuple(int(g) for g in groups[ranked]),
        pre_training=pre_training,
        rigid_pool=rigid_pool(jobs.submit[online], work[online]),
    )


def consecutive_sets(
    workload: Workload,
    trace: str,
    size: int = SET_JOBS,
    count: int | None = None,
    pre_training: int = PRE_TRAINING_JOBS,
) -> list[JobSet]:
    """The trace's serial jobs cut in (r, id) order into consecutive sets of `size` jobs."""
    serial = serial_jobs(workload)
    available = len(serial) // size
    if available == 0:
        raise JobSetError(f"{workload.source}: {len(serial)} serial jobs, fewer than one set of {size}")
    count = available if count is None else min(count, available)
    return [
        job_set(serial, np.arange(k * size, (k + 1) * size), f"{trace} set {k + 1}", pre_training) for k in range(count)
    ]


def whole_set(workload: Workload, trace: str, pre_training: int = PRE_TRAINING_JOBS) -> JobSet:
    """All serial jobs of the trace as one set (the replication on UniLu-Gaia)."""
    serial = serial_jobs(workload)
    return job_set(serial, np.arange(len(serial)), f"{trace} all serial jobs", pre_training)
