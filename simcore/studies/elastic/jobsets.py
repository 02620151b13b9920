"""The job sets of the elastic study (docs/elastic.md §1): the serial jobs of a trace without its
monitoring-like users, their type (interactive below 900 s of execution), their virtual
organisation (the six groups with the most work, then "rest"), the target shares, the site's own
cores and the load-matched pool, and how close each set's workload is to the paper's."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.engine.workload import Workload
from simcore.reporting.published import ELASTIC_SHARES, ELASTIC_TABLE1

INTERACTIVE_BELOW = 900.0  # seconds of execution
NAMED_VOS = 6  # the groups with the largest work; every other group is "rest"
VOS = NAMED_VOS + 1
PAPER_UTILISATION = 0.56  # LAL's, which the load-matched pool reproduces
PRE_TRAINING_JOBS = 2000
SET_JOBS = 11500  # 2,000 pre-training + 9,500 online, the paper's size
MIN_LOAD_POOL = 20  # a smaller load-matched pool leaves no room for levels of 10 cores (site.pool_levels)
# The rigid runs' pool (docs/elastic.md §1.4): the site's own cores, as the paper's 81 "for comparison
# with EGEE" (the native scheduler ran on them), or the load-matched pool (the former rule, a variant).
RIGID_POOLS = ("site", "load")
# A monitoring-like user (the paper removed the operations' availability tests, which "consume
# virtually no resource"): the median execution of its serial jobs is below a minute and they hold
# less than 1 % of the trace's serial work.
MONITORING_MEDIAN = 60.0
MONITORING_WORK = 0.01
MONITORING = ("remove", "keep")
# LAL's online workload (Table 1, Section 4.2): its interactive share and its largest VO's share
PAPER_INTERACTIVE_SHARE = ELASTIC_TABLE1["interactive"][0] / (
    ELASTIC_TABLE1["interactive"][0] + ELASTIC_TABLE1["batch"][0]
)
PAPER_TOP_SHARE = max(ELASTIC_SHARES)


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
    load_pool: int  # P_load: the cores that carry the online work at LAL's utilisation; the elastic levels' base
    site_pool: int  # the site's own cores (the log's machine), on which its native scheduler ran
    monitoring_jobs: int = 0  # monitoring-like jobs removed from the trace over the set's span

    def __len__(self) -> int:
        return len(self.submit)

    @property
    def online(self) -> slice:
        return slice(self.pre_training, len(self))

    def rigid_pool(self, rule: str) -> int:
        """The rigid runs' pool under `rule` (RIGID_POOLS)."""
        if rule not in RIGID_POOLS:
            raise ValueError(f"rigid pool {rule!r}: choose one of {', '.join(RIGID_POOLS)}")
        return self.site_pool if rule == "site" else self.load_pool


def monitoring_users(serial: Workload) -> np.ndarray:
    """The users of the serial jobs whose median execution is below MONITORING_MEDIAN and whose
    jobs hold less than MONITORING_WORK of the serial work."""
    work = np.maximum(serial.run, 0.0)
    users, user_of = np.unique(serial.user, return_inverse=True)
    order = np.argsort(user_of, kind="stable")
    medians = np.array([np.median(part) for part in np.split(work[order], np.cumsum(np.bincount(user_of))[:-1])])
    shares = np.bincount(user_of, weights=work, minlength=len(users)) / max(work.sum(), 1e-300)
    return users[(medians < MONITORING_MEDIAN) & (shares < MONITORING_WORK)]


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


def load_pool(submit: np.ndarray, run: np.ndarray) -> int:
    """round(Σ p / (0.56 (r_last - r_first))) over the online jobs, at least one core."""
    span = float(submit[-1] - submit[0])
    if span <= 0:
        raise JobSetError("the online jobs are all submitted at one instant: no load to match a pool to")
    return max(1, round(float(run.sum()) / (PAPER_UTILISATION * span)))


def job_set(
    serial: Workload,
    indices: np.ndarray,
    name: str,
    pre_training: int = PRE_TRAINING_JOBS,
    removed_submits: np.ndarray | None = None,
) -> JobSet:
    """The job set of the serial jobs at `indices` (workload order): VOs and shares over the set;
    `removed_submits`, the submit times of the monitoring-like jobs removed, are counted over its span."""
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
        load_pool=load_pool(jobs.submit[online], work[online]),
        site_pool=int(serial.machine_size),
        monitoring_jobs=0
        if removed_submits is None
        else int(np.count_nonzero((removed_submits >= jobs.submit[0]) & (removed_submits <= jobs.submit[-1]))),
    )


def study_jobs(workload: Workload, monitoring: str = "remove") -> tuple[Workload, np.ndarray]:
    """The serial jobs the sets are cut from, and the submit times of the monitoring-like jobs removed."""
    if monitoring not in MONITORING:
        raise ValueError(f"monitoring {monitoring!r}: choose one of {', '.join(MONITORING)}")
    serial = serial_jobs(workload)
    monitors = np.isin(serial.user, monitoring_users(serial)) if monitoring == "remove" else np.zeros(len(serial), bool)
    return serial.take(np.flatnonzero(~monitors)), serial.submit[monitors]


def consecutive_sets(
    workload: Workload,
    trace: str,
    size: int = SET_JOBS,
    count: int | None = None,
    pre_training: int = PRE_TRAINING_JOBS,
    monitoring: str = "remove",
) -> list[JobSet]:
    """The trace's serial jobs cut in (r, id) order into consecutive sets of `size` jobs."""
    serial, removed = study_jobs(workload, monitoring)
    available = len(serial) // size
    if available == 0:
        raise JobSetError(f"{workload.source}: {len(serial)} serial jobs, fewer than one set of {size}")
    count = available if count is None else min(count, available)
    return [
        job_set(serial, np.arange(k * size, (k + 1) * size), f"{trace} set {k + 1}", pre_training, removed)
        for k in range(count)
    ]


def whole_set(
    workload: Workload, trace: str, pre_training: int = PRE_TRAINING_JOBS, monitoring: str = "remove"
) -> JobSet:
    """All serial jobs of the trace as one set (the replication on UniLu-Gaia)."""
    serial, removed = study_jobs(workload, monitoring)
    return job_set(serial, np.arange(len(serial)), f"{trace} all serial jobs", pre_training, removed)


def set_statistics(jobs: JobSet) -> dict:
    """The online workload of a set beside the paper's (Table 1, Section 4.2): its interactive share
    and medians, its largest VO's share, and their distance to LAL's (|interactive share − 0.47| +
    |largest share − 0.53|, the ranking of `rank_sets`)."""
    online = jobs.online
    run, interactive = jobs.run[online], jobs.interactive[online]
    shares = np.bincount(jobs.vo[online], weights=run, minlength=VOS) / max(run.sum(), 1e-300)
    share, top = float(interactive.mean()), float(shares.max())
    return {
        "jobset": jobs.name,
        "online_jobs": int(len(run)),
        "monitoring_jobs_removed": jobs.monitoring_jobs,
        "interactive_share": share,
        "interactive_median_s": float(np.median(run[interactive])) if interactive.any() else np.nan,
        "batch_median_s": float(np.median(run[~interactive])) if (~interactive).any() else np.nan,
        "largest_vo_share": top,
        "load_pool": jobs.load_pool,
        "site_pool": jobs.site_pool,
        "paper_distance": abs(share - PAPER_INTERACTIVE_SHARE) + abs(top - PAPER_TOP_SHARE),
        "excluded": f"P_load {jobs.load_pool} < {MIN_LOAD_POOL}" if jobs.load_pool < MIN_LOAD_POOL else "",
    }


def rank_sets(sets: list[JobSet]) -> list[dict]:
    """Every set's statistics with its rank by distance to the paper's workload (1: the closest;
    sets with too small a load-matched pool are excluded, rank 0), in set order."""
    rows = [set_statistics(jobs) | {"set": number} for number, jobs in enumerate(sets, start=1)]
    eligible = sorted((row["paper_distance"], row["set"]) for row in rows if not row["excluded"])
    rank = {number: position for position, (_, number) in enumerate(eligible, start=1)}
    return [row | {"rank": rank.get(row["set"], 0)} for row in rows]
