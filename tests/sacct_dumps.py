"""Generated sacct dumps with known jobs: the round-trip tests of `simcore import-sacct` and its
benchmark (benchmarks/bench_sacct.py) both use them.

A dump has the header and fields of SACCT_COMMAND, and every form that the importer reads: array
tasks (`123_4`) and heterogeneous components (`123+1`), job steps (`123.batch`, `123.0`,
`123.extern`), every ended state (`CANCELLED by UID` before and after the start), jobs not ended
at dump time, time limits in each Slurm form plus `UNLIMITED` and `Partition_Limit`, ReqMem per CPU
(`Mc`), per node (`Gn`) and per job (`M`, `K`, `G`), several partitions, users and groups. Times are
UTC. The truth returned is what the SWF must hold for each ended job, in the dump's order.

`fields` chooses other fields of sacct's (ALIAS_FIELDS: NCPUS, NNodes, TimelimitRaw, UID, GID,
Eligible, Elapsed, ElapsedRaw, Suspended), with the values sacct gives them: NNodes the requested
nodes of a job never allocated any, Eligible the submit time (no job is held), Elapsed the run time,
UID and GID numbers in the order of the user and group names.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from simcore.workloads.sacct import SACCT_COMMAND

FIELDS = SACCT_COMMAND.split("--format=")[1].split(",")
# FIELDS under sacct's other names, where a field has one, and the fields the importer checks with
ALIAS_FIELDS = [
    {"AllocCPUS": "NCPUS", "AllocNodes": "NNodes", "Timelimit": "TimelimitRaw", "User": "UID", "Group": "GID"}.get(
        name, name
    )
    for name in FIELDS
] + ["Eligible", "Elapsed", "Suspended"]
CORES_PER_NODE = 32
PARTITIONS = ("batch", "debug", "gpu", "long")
ENDED = ("COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED")
ENDED_SHARE = (0.62, 0.08, 0.06, 0.01, 0.02, 0.005, 0.005, 0.01)  # the rest: cancelled
NOT_ENDED = ("PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING")
STATUS = {"COMPLETED": 1, "CANCELLED": 5}  # every other ended state: 0
START = np.datetime64("2026-01-05T00:00:00", "s")
LIMIT_MINUTES = np.array([5, 10, 30, 60, 90, 120, 240, 480, 720, 1440, 2880, 4320, 10080])
MEMORY_PER_CPU_MB = np.array([512, 1024, 2000, 2048, 4000, 4096, 8192])
STEPS = (".batch", ".extern", ".0")


def time_limit_forms(minutes: int) -> list[str]:
    """The Slurm forms of a limit of `minutes` (sacct prints the first two; users type the rest)."""
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    forms = [f"{minutes // 60:02d}:{mins:02d}:00", f"{days}-{hours:02d}:{mins:02d}:00", f"{minutes}:00", f"{minutes}"]
    forms.append(f"{days}-{hours:02d}:{mins:02d}")
    if mins == 0:
        forms.append(f"{days}-{hours}")
    return forms


def _memory_text(per_cpu_mb: np.ndarray, cpus: np.ndarray, nodes: np.ndarray, form: np.ndarray) -> list[str]:
    """ReqMem of each job in form 0 per CPU (`Mc`), 1 per node (`Gn`/`Mn`), 2 total in M, 3 in K, 4 in G."""
    per_node = per_cpu_mb * (cpus // np.maximum(nodes, 1))
    total = per_cpu_mb * cpus
    texts = []
    for mb, node_mb, job_mb, kind in zip(per_cpu_mb.tolist(), per_node.tolist(), total.tolist(), form.tolist()):
        if kind == 0:
            texts.append(f"{mb}Mc")
        elif kind == 1:
            texts.append(f"{node_mb // 1024}Gn" if node_mb % 1024 == 0 else f"{node_mb}Mn")
        elif kind == 2:
            texts.append(f"{job_mb}M")
        elif kind == 3:
            texts.append(f"{job_mb * 1024}K")
        else:
            texts.append(f"{job_mb // 1024}G" if job_mb % 1024 == 0 else f"{job_mb}")  # no unit: MB
    return texts


def _times(seconds: np.ndarray) -> np.ndarray:
    return np.datetime_as_string(START + seconds.astype("timedelta64[s]"), unit="s")


def duration_text(seconds) -> list[str]:
    """sacct's [D-]HH:MM:SS of each number of seconds."""
    texts = []
    for total in np.asarray(seconds).tolist():
        days, rest = divmod(int(total), 86400)
        clock = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
        texts.append(f"{days}-{clock}" if days else clock)
    return texts


def _numbers_in_name_order(names: np.ndarray, first: int) -> np.ndarray:
    """`first`, `first` + 1, ... for `names` in their sorted order (UID and GID that sort as the names)."""
    unique, codes = np.unique(names, return_inverse=True)
    return (first + np.arange(len(unique)))[codes].astype(str)


def _lines(columns: dict, rows: np.ndarray, fields=FIELDS) -> np.ndarray:
    """The dump lines of `rows` of `columns`, fields in the order of `fields`."""
    return np.array(["|".join(values) for values in zip(*(columns[name][rows].tolist() for name in fields))])


def generate_dump(jobs: int, seed: int, steps: float = 0.3, not_ended: float = 0.02, fields=FIELDS) -> tuple[str, dict]:
    """(dump text, truth) for `jobs` Slurm jobs; `steps` of the ended jobs that ran have step lines
    (about three each) and `not_ended` of the jobs are still pending or running. The truth has, for
    each ended job in the dump's order, the job id and what the SWF must hold (times in seconds
    from START, -1 where unknown), and the counts of skipped step and not-ended lines. `fields`:
    the dump's fields (FIELDS, the importer's; ALIAS_FIELDS; any of both)."""
    rng = np.random.default_rng(seed)
    job_id = 1000 + np.arange(jobs) * 3 + rng.integers(0, 3, jobs)  # increasing, with gaps
    submit = np.sort(rng.integers(0, 90 * 86400, jobs))
    kind = rng.choice(3, jobs, p=[0.8, 0.15, 0.05])  # plain, array task, heterogeneous component
    shown = np.where(
        kind == 1,
        np.char.add(np.char.add((job_id - 1).astype(str), "_"), (job_id % 7).astype(str)),
        np.where(kind == 2, np.char.add(np.char.add((job_id - 2).astype(str), "+"), (job_id % 2).astype(str)), ""),
    )
    shown = np.where(kind == 0, job_id.astype(str), shown)
    states = np.array([*ENDED, "CANCELLED"])
    state = states[rng.choice(len(states), jobs, p=[*ENDED_SHARE, 1 - sum(ENDED_SHARE)])]
    pending = rng.random(jobs) < not_ended
    state = np.where(pending, np.array(NOT_ENDED)[rng.integers(0, len(NOT_ENDED), jobs)], state)
    never = (state == "CANCELLED") & (rng.random(jobs) < 0.4)

    nodes = np.where(rng.random(jobs) < 0.7, 1, 2 ** rng.integers(1, 6, jobs))
    cpus = np.where(nodes == 1, 2 ** rng.integers(0, 6, jobs), nodes * CORES_PER_NODE)
    wait = rng.integers(0, 7200, jobs)
    limit_minutes = LIMIT_MINUTES[rng.integers(0, len(LIMIT_MINUTES), jobs)]
    run = np.minimum(rng.integers(1, 2 * 86400, jobs), limit_minutes * 60)
    start, end = submit + wait, submit + wait + run
    per_cpu = MEMORY_PER_CPU_MB[rng.integers(0, len(MEMORY_PER_CPU_MB), jobs)]

    limit_kind = rng.choice(3, jobs, p=[0.94, 0.03, 0.03])  # a limit, UNLIMITED, Partition_Limit
    forms = {minutes: time_limit_forms(int(minutes)) for minutes in LIMIT_MINUTES}
    form = rng.integers(0, 6, jobs)
    limit_text = [
        "UNLIMITED" if how == 1 else "Partition_Limit" if how == 2 else forms[m][f % len(forms[m])]
        for m, how, f in zip(limit_minutes.tolist(), limit_kind.tolist(), form.tolist())
    ]
    partition = np.array(PARTITIONS)[rng.choice(len(PARTITIONS), jobs, p=[0.6, 0.15, 0.15, 0.1])]
    user_number = np.minimum(rng.zipf(1.6, jobs), 300)
    user = np.char.add("user", user_number.astype(str))
    group = np.char.add("grp", (user_number % 17).astype(str))
    memory_text = _memory_text(per_cpu, cpus, nodes, rng.integers(0, 5, jobs))

    not_started = never | np.isin(state, ("PENDING",))
    running = np.isin(state, ("RUNNING", "SUSPENDED", "RESIZING"))
    start_text = np.where(not_started, "Unknown", _times(start))
    # a job cancelled while pending: Start = End = the cancel time, half of them so, half Unknown
    cancel_time = _times(submit + wait // 2)
    start_text = np.where(never & (job_id % 2 == 0), cancel_time, start_text)
    end_text = np.where(never, cancel_time, np.where(running | (state == "PENDING"), "Unknown", _times(end)))
    alloc_cpus = np.where(not_started, 0, cpus)
    alloc_nodes = np.where(not_started, 0, nodes)
    state_text = np.where(state == "CANCELLED", np.char.add("CANCELLED by ", (user_number + 5000).astype(str)), state)

    columns = {
        "Cluster": np.full(jobs, "simcluster"),
        "JobID": shown,
        "JobIDRaw": job_id.astype(str),
        "User": user,
        "Group": group,
        "Partition": np.where(never & (job_id % 3 == 0), np.char.add(partition, ",debug"), partition),
        "State": state_text,
        "Submit": _times(submit),
        "Start": start_text,
        "End": end_text,
        "Timelimit": np.array(limit_text),
        "AllocCPUS": alloc_cpus.astype(str),
        "ReqCPUS": cpus.astype(str),
        "AllocNodes": alloc_nodes.astype(str),
        "ReqNodes": nodes.astype(str),
        "ReqMem": np.array(memory_text),
        "Account": np.char.add("proj", (user_number % 5).astype(str)),  # from the user: no random draw
        # from the job id (no random draw); sacct prints this for a job never allocated nodes
        "NodeList": np.where(not_started, "None assigned", np.char.add("n", (job_id % 8 + 1).astype(str))),
    }
    if list(fields) != FIELDS:  # sacct's other fields, from the same jobs (no random draw)
        ran_for = np.where(~not_started & ~running & (state != "PENDING"), run, 0)
        columns |= {
            "NCPUS": columns["AllocCPUS"],
            "NNodes": np.where(alloc_nodes > 0, alloc_nodes, nodes).astype(str),
            "TimelimitRaw": np.where(
                limit_kind == 1, "UNLIMITED", np.where(limit_kind == 2, "Partition_Limit", limit_minutes.astype(str))
            ),
            "UID": _numbers_in_name_order(user, 5000),
            "GID": _numbers_in_name_order(group, 100),
            "Eligible": columns["Submit"],
            "Elapsed": np.array(duration_text(ran_for)),
            "ElapsedRaw": ran_for.astype(str),
            "Suspended": np.full(jobs, "00:00:00"),
        }
    with_steps = np.flatnonzero(~pending & ~never & (rng.random(jobs) < steps))
    blocks, owners = [_lines(columns, np.arange(jobs), fields)], [np.arange(jobs) * 4]
    for rank, suffix in enumerate(STEPS, start=1):
        step = {name: column[with_steps] for name, column in columns.items()}
        step.update(
            JobID=np.char.add(step["JobID"], suffix),
            JobIDRaw=np.char.add(step["JobIDRaw"], suffix),
            User=np.full(len(with_steps), ""),
            Group=np.full(len(with_steps), ""),
            ReqMem=np.full(len(with_steps), ""),
        )
        blocks.append(_lines(step, np.arange(len(with_steps)), fields))
        owners.append(with_steps * 4 + rank)  # a job's steps follow it
    lines = np.concatenate(blocks)[np.argsort(np.concatenate(owners), kind="stable")]
    text = "|".join(fields) + "\n" + "\n".join(lines.tolist()) + "\n"

    ended = ~pending
    ran = ended & ~never
    truth = {
        "job_id": job_id[ended],
        "submit": submit[ended],
        "wait": np.where(ran, wait, -1)[ended],
        "run": np.where(ran, run, -1)[ended],
        "alloc_procs": np.where(ran, cpus, -1)[ended],
        "req_procs": cpus[ended],
        "alloc_nodes": np.where(ran, nodes, -1)[ended],
        "req_nodes": nodes[ended],
        "requested_time": np.where(limit_kind == 0, limit_minutes * 60, -1)[ended],
        "memory_kb": (per_cpu * 1024)[ended],
        "status": np.array([STATUS.get(name, 0) for name in state[ended].tolist()]),
        "user": user[ended],
        "group": group[ended],
        "partition": partition[ended],
        "job_steps": len(with_steps) * len(STEPS),
        "not_ended": int(pending.sum()),
        "array_tasks": int((kind[ended] == 1).sum()),
        "het_components": int((kind[ended] == 2).sum()),
        "lines": len(lines),
    }
    return text, truth


def dump_lines_for(lines: int, seed: int = 0) -> tuple[str, dict]:
    """A generated dump of at least about `lines` lines (header excluded): 1.8 lines a job."""
    jobs = int(lines / 1.8)
    return generate_dump(jobs, seed)


if __name__ == "__main__":  # python tests/sacct_dumps.py DUMP LINES SEED: write a dump, print its line count
    path, lines, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    text, truth = dump_lines_for(lines, seed)
    Path(path).write_text(text)
    print(truth["lines"])
