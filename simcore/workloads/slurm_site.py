"""A site's Slurm, simulated: the cluster and the scheduler's options from its slurm.conf, the jobs
from its sacct dump, and how closely a simulated schedule follows the recorded one
(docs/slurm_mode.md §7).

    conf = read_slurm_conf("slurm.conf")
    site = SlurmSite.from_conf(conf)
    jobs = site.jobs_from_dump(parse_sacct("dump.txt"))
    schedule = slurm_schedule(site.cluster, jobs.columns, site.options(start_delay=1))
    schedule_agreement(jobs.recorded_start, schedule.start)
"""

from __future__ import annotations

import calendar
import gzip
import itertools
import math
import re
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
from scipy.stats import kendalltau

from simcore.engine.slurm import REPLAY_TOLERANCE, SlurmCluster, SlurmOptions, slurm_replay, slurm_schedule
from simcore.engine.swf import (
    ALLOC_PROCS,
    JOB_ID,
    REQ_MEMORY,
    REQ_PROCS,
    REQ_TIME,
    RUN,
    SUBMIT,
    WAIT,
    SwfLog,
    detect_format,
    parse_swf,
)
from simcore.workloads.files import atomic_write, code_version
from simcore.workloads.sacct import LIMITED, SacctDump, parse_sacct, slurm_memory, swf_fields, swf_order
from simcore.workloads.schedule import swf_number
from simcore.workloads.slurm_assoc import Associations
from simcore.workloads.slurm_conf import SlurmConf, expand_hostlist

PARTITION = 15  # SWF field 16
UNRECORDED = -(1 << 62)  # the recorded start of a job whose log gives none
UNTIL_KILLED = 1 << 40  # the running time of a job that ran until Slurm killed it (State TIMEOUT)
DAY = 86400
YEAR = 365 * 86400  # Slurm's limit for a job and partition without one (YEAR_MINUTES)
AGREEMENT_TOLERANCES = (2, 5, 30)  # seconds (SLURM.md §5)


def natural_key(name: str) -> tuple:
    """Slurm's node-table order: names compared as strnatcmp does (digit runs as numbers)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


@dataclass(frozen=True)
class SlurmJobs:
    """A dump's jobs that ran, ready for slurm_schedule: the kernel's columns (times in seconds from
    `origin`), the recorded starts and nodes, and each job's Slurm id."""

    columns: dict
    recorded_start: np.ndarray
    recorded_nodes: list  # node indices per job, None where the dump has no NodeList
    killed_at: np.ndarray  # when Slurm killed the job at its time limit (State TIMEOUT), else UNRECORDED
    job_id: np.ndarray
    origin: int  # the UTC midnight before the first submission (Unix time): times count from it
    first_submit: int  # seconds from origin
    dropped: dict  # reason -> jobs left out

    def only_partitions(self, kept: list[int]) -> SlurmJobs:
        """The jobs of the partitions `kept` (indices), the others counted as dropped."""
        keep = np.isin(self.columns["partition"], kept)
        return self._kept(keep, {**self.dropped, "other_partitions": int((~keep).sum())})

    def first(self, count: int) -> SlurmJobs:
        """The first `count` jobs by submission."""
        keep = np.zeros(len(self.job_id), dtype=bool)
        keep[np.argsort(self.columns["submit"], kind="stable")[:count]] = True
        return self._kept(keep, self.dropped)

    def _kept(self, keep: np.ndarray, dropped: dict) -> SlurmJobs:
        return SlurmJobs(
            columns={key: values[keep] for key, values in self.columns.items()},
            recorded_start=self.recorded_start[keep],
            recorded_nodes=[nodes for nodes, kept_ in zip(self.recorded_nodes, keep) if kept_],
            killed_at=self.killed_at[keep],
            job_id=self.job_id[keep],
            origin=self.origin,
            first_submit=self.first_submit,
            dropped=dropped,
        )


@dataclass(frozen=True)
class SlurmSite:
    """A cluster and its scheduler's settings, read from slurm.conf."""

    conf: SlurmConf
    cluster: SlurmCluster
    node_index: dict  # node name -> index in Slurm's node order
    associations: Associations | None = None  # fair share's tree (--slurm-assoc)

    @classmethod
    def from_conf(cls, conf: SlurmConf, associations: Associations | None = None) -> SlurmSite:
        names = sorted(conf.nodes, key=natural_key)
        index = {name: i for i, name in enumerate(names)}
        partitions = list(conf.partitions.values())
        cluster = SlurmCluster(
            cpus=[conf.nodes[name].cpus for name in names],
            memory=[conf.nodes[name].memory_mb for name in names],
            weight=[conf.nodes[name].weight for name in names],
            partitions=[sorted(index[node] for node in part.nodes) for part in partitions],
            tiers=[part.priority_tier for part in partitions],
            node_names=names,
            partition_names=[part.name for part in partitions],
            associations=associations.arrays() if associations else None,
        )
        site = cls(conf, cluster, index, associations)
        if site.fair_share:
            if conf.priority["depth_oblivious"]:
                raise ValueError(f"{conf.path}: PriorityFlags=DEPTH_OBLIVIOUS fair share is not modelled")
            if associations is None:
                raise ValueError(
                    f"{conf.path}: PriorityWeightFairshare={conf.priority['weight_fairshare']} needs the association "
                    "tree: give --slurm-assoc FILE (made with `sshare -a -l -P > FILE`)"
                )
        return site

    @property
    def fair_share(self) -> bool:
        return self.multifactor and self.conf.priority["weight_fairshare"] > 0

    def options(self, **overrides) -> SlurmOptions:
        """The scheduler's options as the conf sets them, with `overrides` (start_delay, bf_phase, ...)."""
        scheduler = self.conf.scheduler
        options = SlurmOptions(
            backfill=self.conf.backfill,
            memory_consumable=self.conf.memory_consumable and self.conf.select_type != "select/linear",
            whole_nodes=self.conf.select_type == "select/linear",
            bf_interval=scheduler["bf_interval"],
            bf_resolution=scheduler["bf_resolution"],
            bf_window=scheduler["bf_window"],
            bf_max_job_test=scheduler["bf_max_job_test"],
            bf_job_part_count_reserve=scheduler["bf_job_part_count_reserve"],
            default_queue_depth=scheduler["default_queue_depth"],
            sched_interval=scheduler["sched_interval"],
            batch_sched_delay=scheduler["batch_sched_delay"],
            over_time_limit=self.conf.over_time_limit,
            kill_wait=self.conf.kill_wait,
            multifactor=self.multifactor,
            priority_weight_age=self.conf.priority["weight_age"],
            priority_max_age=self.conf.priority["max_age"],
            priority_calc_period=self.conf.priority["calc_period"],
            priority_weight_fairshare=self.conf.priority["weight_fairshare"] if self.fair_share else 0,
            fair_tree=self.conf.priority["fair_tree"],
            priority_decay_half_life=self.conf.priority["decay_half_life"] or 0,
            fairshare_dampening=self.conf.priority["dampening"],
            usage_at_job_end=self.conf.enforce_limits,
        )
        return replace(options, **overrides)

    def usage_resets(self, origin: int, until: int) -> tuple:
        """PriorityUsageResetPeriod's instants from slurmctld's start `origin` to `until` (Unix
        times; `_next_reset`: the next day, week (Sunday), month, quarter or year, in UTC)."""
        period = self.conf.priority["usage_reset_period"]
        if period == "none":
            return ()
        if period == "now":
            return (origin,)
        resets, last = [], origin
        while True:
            day = datetime.fromtimestamp(last, UTC).replace(hour=0, minute=0, second=0)
            midnight = calendar.timegm(day.timetuple())
            if period == "daily":
                last = midnight + DAY
            elif period == "weekly":
                last = midnight + DAY * (7 - (day.weekday() + 1) % 7)  # tm_wday: Sunday is 0
            else:
                month = day.month - 1
                if period == "monthly":
                    month += 1
                elif period == "quarterly":
                    month = 3 if month < 3 else 6 if month < 6 else 9 if month < 9 else 12
                else:
                    month = 12
                year = day.year + month // 12
                last = calendar.timegm((year, month % 12 + 1, 1, 0, 0, 0))
            if last > until:
                return tuple(resets)
            resets.append(last)

    @property
    def multifactor(self) -> bool:
        return self.conf.priority["type"] == "priority/multifactor"

    def weighted_factors(self, cpus: np.ndarray, min_nodes: np.ndarray, limit: np.ndarray, partition: np.ndarray):
        """The job-size and partition factors times their weights (docs/slurm_mode.md §3), per job."""
        priority = self.conf.priority
        nodes = len(self.cluster.cpus)
        cluster_cpus = float(sum(self.cluster.cpus))
        min_nodes = np.maximum(min_nodes, 1).astype(np.float64)
        cpus = cpus.astype(np.float64)
        if priority["small_relative_to_time"]:
            size = np.maximum(min_nodes * cluster_cpus / nodes, cpus) / np.maximum(limit // 60, 1) / cluster_cpus
            if priority["favor_small"]:
                size = 1.0 - size
        elif priority["favor_small"]:
            size = ((nodes - min_nodes) / nodes + (cluster_cpus - cpus) / cluster_cpus) / 2
        else:
            size = (min_nodes / nodes + cpus / cluster_cpus) / 2
        size = np.clip(size, 0.0, 1.0) * float(priority["weight_job_size"])
        factors = np.array([p.priority_job_factor for p in self.conf.partitions.values()], dtype=np.float64)
        norm = factors / factors.max() if factors.max() > 0 else np.zeros_like(factors)
        part = norm[partition] * float(priority["weight_partition"])
        return size, part

    def jobs_from_dump(self, dump: SacctDump, priority: np.ndarray | None = None) -> SlurmJobs:
        """The jobs of `dump` that ran, as Slurm asked for them (docs/slurm_mode.md §7). `priority`:
        per dump job (default: priority/basic, the order of the Slurm job ids)."""
        keep = dump.started & np.isfinite(dump.start)
        dropped = {"never_started": int((~keep).sum())}
        order = np.lexsort((dump.job_id, dump.submit))
        order = order[keep[order]]
        # Slurm aligns its windows and resolutions on Unix time (the will-run barrier, bf_resolution):
        # times count from a UTC midnight, which keeps every such alignment
        origin = int(dump.submit[order[0]]) // DAY * DAY
        partitions = [p for p in self.conf.partitions.values()]
        part_index = {p.name: k for k, p in enumerate(partitions)}
        default = part_index[self.conf.default_partition().name]
        n = len(order)
        columns = {key: np.zeros(n, dtype=np.int64) for key in ("submit", "run", "limit", "cpus", "nodes", "mem")}
        columns.update({key: np.zeros(n, dtype=np.int64) for key in ("mem_per_cpu", "exclusive", "partition")})
        memory, per_cpu = slurm_memory(dump)
        if priority is None:
            rank = np.argsort(np.argsort(dump.job_id[order], kind="stable"), kind="stable")
            columns["priority"] = -rank.astype(np.int64)
        else:
            columns["priority"] = np.asarray(priority, dtype=np.int64)[order]
        for row, j in enumerate(order):
            name = dump.partitions[dump.partition[j]] if len(dump.partitions) else None
            p = part_index.get(name, default)
            part = partitions[p]
            columns["partition"][row] = p
            columns["submit"][row] = int(dump.submit[j]) - origin
            # a job Slurm killed at a time-limit check would have run on (§1)
            columns["run"][row] = UNTIL_KILLED if dump.timed_out[j] else int(dump.end[j] - dump.start[j])
            columns["limit"][row] = self._limit(dump, j, part)
            requested = int(dump.req_cpus[j]) if dump.req_cpus[j] > 0 else int(dump.alloc_cpus[j])
            columns["cpus"][row] = requested
            columns["exclusive"][row] = part.exclusive or int(dump.alloc_cpus[j]) > requested
            columns["nodes"][row] = self._node_count(dump, j, part)
            if self.conf.memory_consumable:
                columns["mem"][row], columns["mem_per_cpu"][row] = memory[j], per_cpu[j]
        if self.multifactor:
            size, part = self.weighted_factors(
                columns["cpus"], columns["nodes"], columns["limit"], columns["partition"]
            )
            columns["weighted_job_size"] = size
            columns["weighted_partition"] = part
        if self.fair_share:
            if not dump.accounts:
                raise ValueError(
                    f"{dump.source}: fair share needs each job's Account: dump with the README's sacct command"
                )
            accounts = [dump.accounts[a - 1] if a > 0 else "" for a in dump.account[order].tolist()]
            users = [dump.users[u - 1] if u > 0 else "" for u in dump.user[order].tolist()]
            columns["association"] = self.associations.job_associations(accounts, users, dump.line[order], dump.source)
        return SlurmJobs(
            columns=columns,
            recorded_start=(dump.start[order] - origin).astype(np.int64),
            recorded_nodes=self.recorded_nodes(dump, order),
            killed_at=np.where(dump.timed_out[order], dump.end[order] - origin, UNRECORDED).astype(np.int64),
            job_id=dump.job_id[order],
            origin=origin,
            first_submit=int(columns["submit"][0]),
            dropped=dropped,
        )

    def jobs_from_swf(self, log: SwfLog) -> SlurmJobs:
        """The jobs of an SWF log that ran (run time >= 0 and processors > 0): requested processors
        (else allocated) as CPUs, requested time as the limit, requested memory (KB per processor)
        as memory per CPU; partitions by the names of a `; Partitions: 1 a, 2 b` header line
        (import-sacct writes it), else the default partition; node counts, exclusivity and the jobs
        Slurm killed at their limit from import-sacct's SlurmReqNodes, SlurmExclusive and
        SlurmTimeout header lines (docs/slurm_accounting.md), else none; memory per node from its
        SlurmMemPerNode line, else SWF's per processor."""
        if self.fair_share:
            raise ValueError(f"{log.source}: an SWF log names no accounts, which fair share needs: give the sacct dump")
        fields = log.fields
        cpus = np.where(fields[:, REQ_PROCS] > 0, fields[:, REQ_PROCS], fields[:, ALLOC_PROCS])
        keep = (fields[:, RUN] >= 0) & (cpus > 0)
        dropped = {"not_run_or_no_processors": int((~keep).sum())}
        order = np.lexsort((fields[:, JOB_ID], fields[:, SUBMIT]))
        order = order[keep[order]]
        partitions = list(self.conf.partitions.values())
        part_index = {p.name: k for k, p in enumerate(partitions)}
        default = part_index[self.conf.default_partition().name]
        numbered = dict(re.findall(r"(\d+) (\S+?)(?:,|$)", log.header.get("Partitions", "")))
        n = len(order)
        # from a UTC midnight (as jobs_from_dump), where the header gives the log's Unix start time
        unix_start = int(float(log.header.get("UnixStartTime", 0) or 0))
        first = int(fields[order[0], SUBMIT]) if n else 0
        shift = first - (unix_start + first) % DAY  # that midnight in the log's own times
        columns = {key: np.zeros(n, dtype=np.int64) for key in ("submit", "run", "limit", "cpus", "nodes", "mem")}
        columns.update({key: np.zeros(n, dtype=np.int64) for key in ("mem_per_cpu", "exclusive", "partition")})
        columns["priority"] = -np.argsort(np.argsort(fields[order, JOB_ID], kind="stable"), kind="stable")
        node_count, mem_per_node = slurm_header(log, "SlurmReqNodes"), slurm_header(log, "SlurmMemPerNode")
        exclusive, timed_out = slurm_header(log, "SlurmExclusive"), slurm_header(log, "SlurmTimeout")
        killed_at = np.full(n, UNRECORDED, dtype=np.int64)
        for row, j in enumerate(order):
            job = int(fields[j, JOB_ID])
            p = part_index.get(numbered.get(str(int(fields[j, PARTITION]))), default)
            part = partitions[p]
            columns["partition"][row] = p
            columns["submit"][row] = int(fields[j, SUBMIT]) - shift
            columns["run"][row] = UNTIL_KILLED if job in timed_out else int(fields[j, RUN])
            if job in timed_out and fields[j, WAIT] >= 0:
                killed_at[row] = int(fields[j, SUBMIT] + fields[j, WAIT] + fields[j, RUN]) - shift
            columns["nodes"][row] = node_count.get(job, 0)
            columns["cpus"][row] = int(cpus[j])
            requested = fields[j, REQ_TIME] if fields[j, REQ_TIME] > 0 else math.nan
            columns["limit"][row] = self._limit_of(requested, part)
            columns["exclusive"][row] = part.exclusive or job in exclusive
            if self.conf.memory_consumable and job in mem_per_node:
                columns["mem"][row] = mem_per_node[job]
            elif self.conf.memory_consumable and fields[j, REQ_MEMORY] > 0:
                columns["mem"][row] = max(int(fields[j, REQ_MEMORY]) // 1024, 1)
                columns["mem_per_cpu"][row] = 1
        if self.multifactor:
            columns["weighted_job_size"], columns["weighted_partition"] = self.weighted_factors(
                columns["cpus"], columns["nodes"], columns["limit"], columns["partition"]
            )
        # a job whose wait the log does not give has no recorded start (UNRECORDED)
        waits = fields[order, WAIT]
        recorded = np.where(waits >= 0, fields[order, SUBMIT] + waits - shift, UNRECORDED)
        return SlurmJobs(
            columns=columns,
            recorded_start=recorded.astype(np.int64),
            recorded_nodes=[None] * n,
            killed_at=killed_at,
            job_id=fields[order, JOB_ID].astype(np.int64),
            origin=unix_start + shift,
            first_submit=first - shift,
            dropped=dropped,
        )

    def recorded_nodes(self, dump: SacctDump, rows) -> list:
        """For each of the dump's `rows`, the indices of the nodes the job ran on (its NodeList);
        None without one, or when it names a node this slurm.conf does not have. Each distinct
        NodeList is expanded once (a big log repeats few)."""
        expanded = {}
        for k, text in enumerate(dump.node_lists, start=1):
            names = expand_hostlist(text)
            if names and all(name in self.node_index for name in names):
                expanded[k] = [self.node_index[name] for name in names]
        return [expanded.get(k) for k in dump.node_list[rows].tolist()]

    @staticmethod
    def _limit(dump: SacctDump, j: int, part) -> int:
        limited = dump.time_limit_kind[j] == LIMITED and math.isfinite(dump.time_limit[j])
        return SlurmSite._limit_of(dump.time_limit[j] if limited else math.nan, part)

    @staticmethod
    def _limit_of(seconds: float, part) -> int:
        """Whole minutes, rounded up; the partition's MaxTime caps it, and a job without one takes
        DefaultTime, else MaxTime, else a year (Slurm's YEAR_MINUTES)."""
        part_max = part.max_time if part.max_time is not None else YEAR
        if math.isfinite(seconds):
            return max(min(int(math.ceil(seconds / 60.0)) * 60, part_max), 60)
        return part.default_time or part_max

    def _node_count(self, dump: SacctDump, j: int, part) -> int:
        """The job's -N count, or 0 when it gave none; sacct's ReqNodes is the job's minimum node
        count, which Slurm sets to 1 without -N: 1 is read as no count."""
        requested = int(dump.req_nodes[j]) if dump.req_nodes[j] > 0 else 0
        return requested if requested > 1 else 0


KILL_CHECK_PERIOD = SlurmOptions.kill_check_period  # Slurm's PERIODIC_TIMEOUT


def slurm_header(log: SwfLog, key: str) -> dict[int, int]:
    """import-sacct's `; KEY:` line of SWF job numbers, `JOB` or `JOB:N` each (SLURM_REQUESTS in
    simcore/workloads/sacct.py), as {job: N} (1 for a bare number); {} without the line."""
    values = {}
    for item in log.header.get(key, "").split():
        job, _, value = item.partition(":")
        if not (job.isdigit() and (value or "1").isdigit()):
            raise ValueError(f"{log.source}: header line {key}: {item!r} is not JOB or JOB:N (SWF job numbers)")
        values[int(job)] = int(value or 1)
    return values


def estimated_controller_start(jobs: SlurmJobs) -> int | None:
    """slurmctld's start as the kills show it (docs/slurm_mode.md §7): Slurm kills a job past its
    limit at a check every 30 s from its start, so the jobs it killed end on that grid; the most
    common phase of their ends, at the last such instant at or before the first submission. None
    without a killed job."""
    killed = jobs.killed_at[jobs.killed_at != UNRECORDED]
    if len(killed) == 0:
        return None
    phase = int(np.argmax(np.bincount(killed % KILL_CHECK_PERIOD, minlength=KILL_CHECK_PERIOD)))
    return jobs.first_submit - (jobs.first_submit - phase) % KILL_CHECK_PERIOD


FITTED_DELAYS = range(4)  # seconds tried for the start delay
FIT_JOBS = 2000  # the first jobs of a log the fit simulates


def fit_unrecorded_options(cluster, jobs: SlurmJobs, options: SlurmOptions, fit: tuple) -> SlurmOptions:
    """The options no log records, fitted to the recorded starts (docs/slurm_mode.md §7): each of
    `fit` ("start_delay" in 0-3 s; "bf_phase", the backfill cycle's phase: one of the bf_interval
    seconds before the first submission; "decay_after_passes", whether the decay thread's instant
    comes after its second's passes and cycle) is chosen on the log's first FIT_JOBS jobs, every
    combination tried: first by the one-step replay when the log names every job's nodes (the share
    of recorded starts it explains, §8; a cycle a second off the real one meets the completions in
    the other order, which no rule explains), then by the simulated starts (most within 5 s, then
    within 30 s, then the smallest mean difference)."""
    head = jobs.first(FIT_JOBS)
    known = head.recorded_start != UNRECORDED
    replayable = all(nodes is not None for nodes, ran in zip(head.recorded_nodes, known) if ran)
    delays = FITTED_DELAYS if "start_delay" in fit else (options.start_delay,)
    phases = (options.bf_phase,)
    if "bf_phase" in fit and options.backfill and options.bf_interval > 1:
        phases = range(jobs.first_submit - options.bf_interval, jobs.first_submit)
    orders = (False, True) if "decay_after_passes" in fit and options.multifactor else (options.decay_after_passes,)
    best, chosen = None, options
    for delay, phase, decay_after_passes in itertools.product(delays, phases, orders):
        candidate = replace(options, start_delay=delay, bf_phase=phase, decay_after_passes=decay_after_passes)
        explained = replay_summary(head, replayed_starts(cluster, head, candidate))[EXPLAINED] if replayable else 0
        simulated = slurm_schedule(cluster, head.columns, candidate).start
        a = schedule_agreement(head.recorded_start[known], simulated[known])
        score = (explained, a["within_5s"], a["within_30s"], -a["mean_abs_delta"])
        if best is None or score > best:
            best, chosen = score, candidate
    return chosen


def schedule_agreement(recorded: np.ndarray, simulated: np.ndarray) -> dict:
    """How closely simulated starts follow recorded ones, per job (SLURM.md §5): the share within
    each tolerance, Kendall's tau of the start order, the mean and largest absolute difference."""
    recorded = np.asarray(recorded, dtype=np.float64)
    simulated = np.asarray(simulated, dtype=np.float64)
    delta = np.abs(simulated - recorded)
    result = {f"within_{t}s": float(np.mean(delta <= t)) for t in AGREEMENT_TOLERANCES}
    tau = kendalltau(recorded, simulated).statistic if len(recorded) > 1 else 1.0
    result.update(kendall_tau=float(tau), mean_abs_delta=float(delta.mean()), max_abs_delta=float(delta.max()))
    result["jobs"] = len(recorded)
    return result


@dataclass(frozen=True)
class SiteRun:
    """A trace simulated under a site's slurm.conf: the jobs, the options used, the schedule,
    and how it compares with the recorded starts."""

    site: SlurmSite
    source: SacctDump | SwfLog  # the trace as read
    jobs: SlurmJobs
    options: SlurmOptions
    schedule: object  # SlurmSchedule
    agreement: dict
    estimated: tuple  # the options estimated rather than given

    def table(self) -> pa.Table:
        """One row per job: Slurm (or SWF) id, times from the run's origin (a UTC midnight), recorded
        (null where the log gives none) and simulated starts, whether backfill started it, its nodes."""
        names = self.site.cluster.node_names
        nodes = [",".join(names[i] for i in self.schedule.nodes_of(j)) for j in range(len(self.jobs.recorded_start))]
        unknown = self.jobs.recorded_start == UNRECORDED  # no recorded start: null
        return pa.table(
            {
                "job_id": self.jobs.job_id,
                "submit": self.jobs.columns["submit"],
                "recorded_start": pa.array(self.jobs.recorded_start, mask=unknown),
                "simulated_start": self.schedule.start,
                "delta": pa.array(self.schedule.start - self.jobs.recorded_start, mask=unknown),
                "backfilled": self.schedule.backfilled,
                "nodes": nodes,
            }
        )

    def provenance(self) -> dict:
        return {
            "slurm_conf": self.site.conf.path,
            "slurm_conf_keys_used": list(self.site.conf.keys_used),
            "slurm_assoc": self.site.associations.source if self.site.associations else None,
            "options": asdict(self.options),
            "estimated": list(self.estimated),
            "origin": self.jobs.origin,
            "dropped": self.jobs.dropped,
            "agreement": self.agreement,
        }


def replayed_starts(cluster, jobs: SlurmJobs, options: SlurmOptions) -> np.ndarray:
    """The first instant the one-step replay (docs/slurm_mode.md §8) decided each job's start, the
    recorded history as its state (a killed job ends when Slurm killed it); -1: never."""
    recorded = np.where(jobs.recorded_start == UNRECORDED, -1, jobs.recorded_start)
    killed = jobs.killed_at != UNRECORDED
    return slurm_replay(
        cluster, jobs.columns, options, recorded, jobs.recorded_nodes, recorded_end=np.where(killed, jobs.killed_at, -1)
    )


EXPLAINED = f"explained_within_{REPLAY_TOLERANCE}s"


def replay_summary(jobs: SlurmJobs, predicted: np.ndarray) -> dict:
    """Of the recorded starts, the share the replay's `predicted` starts explain (within
    REPLAY_TOLERANCE seconds), and how the others went (the model early, or later than the
    tolerance or never)."""
    known = jobs.recorded_start != UNRECORDED
    delta = predicted[known] - jobs.recorded_start[known]
    decided = predicted[known] >= 0
    explained = decided & (np.abs(delta) <= REPLAY_TOLERANCE)
    earlier = decided & (delta < -REPLAY_TOLERANCE)
    return {
        EXPLAINED: float(explained.mean()) if known.any() else 1.0,
        "model_earlier": int(earlier.sum()),
        "model_later": int((~explained & ~earlier).sum()),
        "decisions": int(known.sum()),
    }


def replay_agreement(run: SiteRun) -> dict:
    """The one-step replay of a run (docs/slurm_mode.md §8), summed up by replay_summary."""
    return replay_summary(run.jobs, replayed_starts(run.site.cluster, run.jobs, run.options))


def read_trace(trace) -> SacctDump | SwfLog:
    """A sacct dump (the README's command) or an SWF log, told apart by the first line."""
    return parse_sacct(trace) if detect_format(trace) == "sacct" else parse_swf(trace)


def simulate_site(
    trace,
    conf: SlurmConf,
    *,
    associations=None,
    partitions=None,
    slurmctld_start=None,
    start_delay=None,
    bf_phase=None,
    decay_after_passes=None,
):
    """Simulate `trace` (a sacct dump or an SWF log) under `conf` (docs/slurm_mode.md §7), with
    fair share over `associations` (read_associations). Times given as Unix times: slurmctld_start
    (the decay thread's instants, the periodic passes and the time-limit checks count from it;
    default: estimated from the jobs Slurm killed, else the first submission) and bf_phase; it and
    start_delay (seconds) and decay_after_passes (bool), when None, are fitted."""
    site = SlurmSite.from_conf(conf, associations)
    source = read_trace(trace)
    jobs = site.jobs_from_dump(source) if isinstance(source, SacctDump) else site.jobs_from_swf(source)
    if partitions:
        unknown = sorted(set(partitions) - set(site.cluster.partition_names))
        if unknown:
            raise ValueError(
                f"{conf.path}: no partition {', '.join(unknown)} (it has {', '.join(site.cluster.partition_names)})"
            )
        jobs = jobs.only_partitions([site.cluster.partition_names.index(name) for name in partitions])
    from_kills = estimated_controller_start(jobs) if slurmctld_start is None else None
    if slurmctld_start is not None:
        origin = slurmctld_start - jobs.origin
    else:  # from the kills, else the first submission
        origin = jobs.first_submit if from_kills is None else from_kills
    # no schedule ends later than the last submission plus every running time (to a kill at most)
    longest = jobs.columns["limit"] + conf.over_time_limit + KILL_CHECK_PERIOD
    until = jobs.origin + int(jobs.columns["submit"].max() + np.clip(jobs.columns["run"], 1, longest).sum())
    options = site.options(
        start_delay=start_delay or 0,
        bf_phase=jobs.first_submit if bf_phase is None else bf_phase - jobs.origin,
        decay_after_passes=bool(decay_after_passes),
        priority_calc_origin=origin,
        usage_resets=tuple(t - jobs.origin for t in site.usage_resets(origin + jobs.origin, until)),
    )
    recorded = (jobs.recorded_start != UNRECORDED).any()  # else nothing to fit to: the defaults stay
    matters = {  # else every value gives the same schedule
        "start_delay": True,
        "bf_phase": options.backfill and options.bf_interval > 1,
        "decay_after_passes": options.multifactor,
    }
    given = {"start_delay": start_delay, "bf_phase": bf_phase, "decay_after_passes": decay_after_passes}
    fitted = tuple(name for name, value in given.items() if value is None and recorded and matters[name])
    if fitted:
        options = fit_unrecorded_options(site.cluster, jobs, options, fitted)
    estimated = (("slurmctld_start",) if from_kills is not None else ()) + fitted
    schedule = slurm_schedule(site.cluster, jobs.columns, options)
    known = jobs.recorded_start != UNRECORDED
    agreement = schedule_agreement(jobs.recorded_start[known], schedule.start[known]) if known.any() else {}
    return SiteRun(site, source, jobs, options, schedule, agreement, estimated)


def write_site_schedule_swf(run: SiteRun, path) -> None:
    """The simulated schedule as SWF (docs/schedules.md): the trace's job lines (a sacct dump's as
    `simcore import-sacct` converts it) with field 3 the simulated wait; jobs that never ran keep
    their -1. Header lines name the slurm.conf and the options."""
    if isinstance(run.source, SacctDump):
        dump = run.source
        fields, header_lines, *_ = swf_fields(dump)
        ids = dump.job_id[swf_order(dump)]
        header_lines = [line.removeprefix(";") for line in header_lines]
    else:
        log = run.source
        fields, ids, header_lines = log.fields.copy(), log.fields[:, JOB_ID].astype(np.int64), list(log.header_lines)
    row = {int(job_id): k for k, job_id in enumerate(ids)}
    for j, job_id in enumerate(run.jobs.job_id):
        fields[row[int(job_id)], WAIT] = run.schedule.start[j] - run.jobs.columns["submit"][j]
    options = " ".join(f"{key}={value}" for key, value in asdict(run.options).items())
    lines = [
        *(f";{text}" for text in header_lines),
        ";",
        f"; SimcoreSchedule: simulated by simcore {code_version()} in the Slurm mode (docs/slurm_mode.md) "
        f"from {run.site.conf.path}; field 3 (wait) is the simulated start minus the submit time",
        f"; SimcoreSlurmOptions: {options}",
    ]
    lines += (" ".join(map(swf_number, values)) for values in fields.astype(np.float64).tolist())
    text = ("\n".join(lines) + "\n").encode()
    with atomic_write(path) as tmp:
        tmp.write_bytes(gzip.compress(text, mtime=0) if str(path).endswith(".gz") else text)
