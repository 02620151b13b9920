"""A simulated schedule as an SWF log (`simcore simulate --schedule-out`, docs/schedules.md).

The log's header and job lines as read, with the simulation's outcome in the fields that hold
one: field 3 (wait) is the simulated start minus the submit time, field 4 (run time) the time
the job ran in the simulation, which is the requested time for a job the truncate filter kept
though it ran past it (SEMANTICS §1: killed at its limit). Jobs the filter dropped are not in
the schedule; header lines say how many, by rule, and which policy ran. Nothing in the file
depends on when it was written, so a rerun gives the same bytes, gzip included."""

from __future__ import annotations

import gzip

import numpy as np

from simcore.engine.simulation import SimulationResult
from simcore.engine.swf import FILTER_RULES, JOB_ID, RUN, WAIT, SwfLog
from simcore.workloads.files import atomic_write, code_version


def swf_number(value: float) -> str:
    """A field as SWF writes it: an integral value without a decimal point, any other value
    in the shortest form that reads back as the same float."""
    return str(int(value)) if value.is_integer() else repr(value)


def log_rows(log: SwfLog, job_ids: np.ndarray) -> np.ndarray:
    """The row of `log.fields` of each job id (ids are unique in a parsed log)."""
    ids = log.fields[:, JOB_ID]
    by_id = np.argsort(ids, kind="stable")
    found = by_id[np.minimum(np.searchsorted(ids[by_id], job_ids), len(ids) - 1)]
    missing = ids[found] != job_ids
    if missing.any():
        raise ValueError(f"{log.source}: no job {int(job_ids[np.argmax(missing)])} (a workload of another log?)")
    return found


def schedule_header(log: SwfLog, result: SimulationResult, truncated: int) -> list[str]:
    """The log's header lines, then what this schedule is: simulator, policy, filter, field 4."""
    workload, counts = result.workload, result.workload.filter_counts
    dropped = ", ".join(f"{rule} {counts[rule]:,}" for rule in FILTER_RULES if counts.get(rule))
    policy = " ".join(f"{key}={value}" for key, value in result.options.items())
    return [
        *(f";{text}" for text in log.header_lines),
        ";",
        f"; SimcoreSchedule: simulated by simcore {code_version()}; field 3 (wait) is the simulated start "
        "minus the submit time, field 4 see SimcoreRunTime, the other fields are as read",
        f"; SimcorePolicy: {policy}",
        f"; SimcoreFilter: {workload.filter_mode} filter, machine size {workload.machine_size}: "
        f"{len(workload):,} jobs of {counts.get('lines', len(workload)):,} job lines; "
        f"not in this schedule: {dropped or 'none'}",
        f"; SimcoreRunTime: field 4 is the time run in the simulation: the requested time (field 9) for the "
        f"{truncated:,} jobs that ran past it (killed at the limit), else as read",
    ]


def write_schedule_swf(log: SwfLog, result: SimulationResult, path) -> None:
    """Write the schedule of `result`, simulated on a workload filtered from `log`, as SWF (gzip
    if `path` ends in .gz): one line per simulated job, in the workload's order (submit, id)."""
    workload = result.workload
    fields = log.fields[log_rows(log, workload.job_id)]  # a copy: the log keeps its fields
    truncated = int(np.count_nonzero(fields[:, RUN] != workload.run))
    fields[:, WAIT] = result.start - workload.submit
    fields[:, RUN] = workload.run  # min(run, requested): what the simulator ran (SEMANTICS §1)
    lines = schedule_header(log, result, truncated)
    lines += (" ".join(map(swf_number, row)) for row in fields.tolist())
    text = ("\n".join(lines) + "\n").encode()
    with atomic_write(path) as tmp:
        # mtime 0 and no file name in the gzip header: the bytes depend on the schedule alone
        tmp.write_bytes(gzip.compress(text, mtime=0) if str(path).endswith(".gz") else text)
