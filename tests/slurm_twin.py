"""The "real Slurm twin" workloads of .ci/slurm-twin: seeded `sleep` jobs submitted to real Slurm 22.05
clusters brought up side by side on one host, observed while they run, and dumped once they are done,
so that the Slurm mode of the simulator (docs/slurm_mode.md) can be compared with what the real
slurmctld did, job by job. The committed outputs of one run are in tests/fixtures/slurm_twin/.

    python3 tests/slurm_twin.py clusters [NAME ...]            # name, shape and nodes of each cluster
    python3 tests/slurm_twin.py conf --cluster NAME --dir DIR --port PORT --munge-socket SOCK
    python3 tests/slurm_twin.py accounts --cluster NAME        # sacctmgr: its accounts and users
    python3 tests/slurm_twin.py plan --seed S --shape SHAPE --out plan.json
    python3 tests/slurm_twin.py submit --plan plan.json --record submitted.json --jobs-dir DIR [--start-at EPOCH]
    python3 tests/slurm_twin.py snapshot --out snapshots.jsonl [--sprio] [--sshare] [--until-done submitted.json]
    python3 tests/slurm_twin.py finish --record submitted.json --out DIR [--sshare] [--snapshots snapshots.jsonl]
    python3 tests/slurm_twin.py fixtures --from OUT_DIR --to tests/fixtures/slurm_twin

Every command but `clusters`, `conf` and `plan` talks to the cluster that SLURM_CONF names.

The clusters (CLUSTERS) and their shapes (SHAPES): `conf` writes a cluster's slurm.conf (the paths
below DIR, slurmctld on PORT and slurmd of node k on PORT + k, all at 127.0.0.1). `plan` designs the
workload of a shape from a seed: the same seed and shape give the same jobs, so clusters of one shape
(one32 and builtin1; many32, mf32 and builtin32) run the same workload and differ only in their
scheduler settings. `submit` submits each job at its offset from --start-at (all clusters started with
the same one get their jobs at the same instants), as its user, and records what it asked for.
`snapshot` appends, every --every seconds, squeue's (and sprio's, sshare's) view to a JSON-lines file.
`finish` waits until sacct shows every job ended and writes the dump (SACCT_COMMAND's fields with
DUMP_EXTRA appended), `scontrol show config`, `sshare -a -l -P` (multifactor clusters) and a summary.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

# --- the clusters ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """Nodes n1..n<nodes>, each with `cpus` CPUs and `memory` MB; partitions (name, first node,
    last node), the first one the default; users (name, account or None, weight in the plan);
    mem_requests: every job asks --mem (per node)."""

    name: str
    nodes: int
    cpus: int
    memory: int
    partitions: tuple = (("batch", 1, 0),)  # last node 0: the last node of the shape
    users: tuple = (("root", None, 1.0),)
    mem_requests: bool = False

    def partition_nodes(self, name: str) -> tuple[int, int]:
        for part, first, last in self.partitions:
            if part == name:
                return first, last or self.nodes
        raise KeyError(name)

    def node_names(self) -> list[str]:
        return [f"n{i}" for i in range(1, self.nodes + 1)]


# Accounts of the fair-share shape and their shares (sacctmgr Fairshare=), below root.
ACCOUNTS = {"acct_a": 70, "acct_b": 30}
FAIR_USERS = (("root", "acct_a", 0.3), ("schedsweep2", "acct_a", 0.3), ("schedsweep3", "acct_b", 0.4))

SHAPES = {
    shape.name: shape
    for shape in (
        Shape("1x32", nodes=1, cpus=32, memory=4000),
        Shape("32x1", nodes=32, cpus=1, memory=4000),
        Shape("8x4-fair", nodes=8, cpus=4, memory=4000, users=FAIR_USERS),
        Shape("4x8-mem", nodes=4, cpus=8, memory=8000, mem_requests=True),
        Shape("16x2-parts", nodes=16, cpus=2, memory=4000, partitions=(("wide", 1, 16), ("narrow", 1, 8))),
    )
}

MULTIFACTOR_ZERO = (
    "PriorityWeightAssoc=0",
    "PriorityWeightPartition=0",
    "PriorityWeightQOS=0",
    "PriorityFavorSmall=NO",
)


@dataclass(frozen=True)
class Cluster:
    """A cluster: its shape and the slurm.conf lines that make its scheduler."""

    name: str
    shape: str
    scheduler: str = "sched/backfill"
    bf_interval: int | None = 1  # None: Slurm's default (30 s)
    select_parameters: str = "CR_Core"
    priority: tuple = ("PriorityType=priority/basic",)
    enforce: str | None = None  # AccountingStorageEnforce
    about: str = ""

    @property
    def multifactor(self) -> bool:
        return "PriorityType=priority/multifactor" in self.priority

    @property
    def fair_share(self) -> bool:
        return any(line.startswith("PriorityWeightFairshare=") and not line.endswith("=0") for line in self.priority)


CLUSTERS = {
    cluster.name: cluster
    for cluster in (
        Cluster("one32", "1x32", about="one node of 32 CPUs, sched/backfill bf_interval=1, priority/basic"),
        Cluster("many32", "32x1", about="32 one-CPU nodes, sched/backfill bf_interval=1, priority/basic"),
        Cluster(
            "mf32",
            "32x1",
            priority=(
                "PriorityType=priority/multifactor",
                "PriorityWeightAge=1000",
                "PriorityWeightJobSize=1000",
                "PriorityWeightFairshare=0",
                *MULTIFACTOR_ZERO,
                "PriorityMaxAge=00:10:00",
                "PriorityCalcPeriod=1",
            ),
            about="32 one-CPU nodes, priority/multifactor (age 1000, job size 1000), sched/backfill bf_interval=1",
        ),
        Cluster(
            "fair",
            "8x4-fair",
            priority=(
                "PriorityType=priority/multifactor",
                "PriorityWeightFairshare=10000",
                "PriorityWeightAge=1000",
                "PriorityWeightJobSize=0",
                *MULTIFACTOR_ZERO,
                "PriorityMaxAge=00:10:00",
                "PriorityDecayHalfLife=00:05:00",
                "PriorityCalcPeriod=1",
            ),
            enforce="associations",
            about="8 nodes x 4 CPUs, priority/multifactor (fair share 10000, age 1000), 3 users in 2 accounts",
        ),
        Cluster(
            "mem",
            "4x8-mem",
            bf_interval=None,
            select_parameters="CR_Core_Memory",
            about="4 nodes x 8 CPUs x 8000 MB, CR_Core_Memory, jobs ask --mem, default bf_interval (30 s)",
        ),
        Cluster("parts", "16x2-parts", about="16 nodes x 2 CPUs, partitions wide (n1-n16) and narrow (n1-n8)"),
        Cluster("builtin1", "1x32", scheduler="sched/builtin", bf_interval=None, about="one32 with sched/builtin"),
        Cluster("builtin32", "32x1", scheduler="sched/builtin", bf_interval=None, about="many32 with sched/builtin"),
    )
}


def node_list(first: int, last: int) -> str:
    return f"n{first}" if first == last else f"n[{first}-{last}]"


def slurm_conf(cluster: Cluster, directory: Path, port: int, munge_socket: str, host: str) -> str:
    """The slurm.conf of `cluster`: state, logs and pid files below `directory` (the slurmd's in
    directory/node, which each slurmd sees as its own directory/nodes/NAME through a bind mount)."""
    shape = SHAPES[cluster.shape]
    d = directory
    scheduler_parameters = [f"bf_interval={cluster.bf_interval}"] if cluster.bf_interval else []
    lines = [
        f"# Written by schedsweep's tests/slurm_twin.py for .ci/slurm-twin: {cluster.about}",
        f"ClusterName={cluster.name}",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        f"AuthInfo=socket={munge_socket}",
        "CredType=cred/munge",
        "MpiDefault=none",
        "# no cgroups (containers): plain process tracking, no task confinement",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "# accounting: the one slurmdbd of the host (127.0.0.1, default port); its munge socket:",
        "AccountingStorageType=accounting_storage/slurmdbd",
        "AccountingStorageHost=127.0.0.1",
        f"AccountingStoragePass={munge_socket}",
        *([f"AccountingStorageEnforce={cluster.enforce}"] if cluster.enforce else []),
        "JobCompType=jobcomp/none",
        "# jobs past their limit are killed at once",
        "KillWait=2",
        "OverTimeLimit=0",
        "MinJobAge=86400",
        "ReturnToService=2",
        "# nodes are taken as configured (more CPUs than the host has: the jobs are sleeps)",
        "SlurmdParameters=config_overrides",
        f"SchedulerType={cluster.scheduler}",
        *([f"SchedulerParameters={','.join(scheduler_parameters)}"] if scheduler_parameters else []),
        "SelectType=select/cons_tres",
        f"SelectTypeParameters={cluster.select_parameters}",
        *cluster.priority,
        f"StateSaveLocation={d}/state",
        f"SlurmctldPidFile={d}/slurmctld.pid",
        f"SlurmctldLogFile={d}/log/slurmctld.log",
        "SlurmctldDebug=debug",
        "DebugFlags=Backfill" + (",Priority" if cluster.multifactor else ""),
        "# each slurmd mounts its own directory (nodes/NAME) here",
        f"SlurmdSpoolDir={d}/node/spool",
        f"SlurmdPidFile={d}/node/slurmd.pid",
        f"SlurmdLogFile={d}/node/slurmd.log",
        "SlurmdDebug=info",
    ]
    for i, name in enumerate(shape.node_names(), start=1):
        lines.append(
            f"NodeName={name} NodeHostname={cluster.name}-{name} NodeAddr=127.0.0.1 Port={port + i} "
            f"CPUs={shape.cpus} RealMemory={shape.memory} State=UNKNOWN"
        )
    for k, (part, first, last) in enumerate(shape.partitions):
        nodes = node_list(first, last or shape.nodes)
        default = "YES" if k == 0 else "NO"
        lines.append(f"PartitionName={part} Nodes={nodes} Default={default} MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


# --- the plan -------------------------------------------------------------------------------------------

JOBS = (50, 60)  # jobs in a plan
LIMITS = (1, 2, 3, 4)  # minutes
LIMIT_WEIGHTS = (35, 30, 20, 15)
SPREAD = 240  # s: submission offsets within
EXCEEDING = (3, 4)  # jobs that sleep past their limit
EXCLUSIVE = (1, 3)  # --exclusive jobs: on one node (it waits for the whole node), on several
NODE_COUNT_SHARE = 0.15  # multi-node shapes: share of jobs that ask -N
MIN_PEAK_QUEUE = 22  # the plan's estimated peak of pending jobs (EASY backfilling, see estimate)
MAX_MAKESPAN = 440  # s: the plan's estimated end of the last job without backfilling
# Submission phases: (share of the jobs, from s, to s, sleep skew (see _sleep), most CPUs or None).
# Jobs that fill the machine, a burst of small short jobs that wait behind them, then the rest.
PHASES = (
    ((0.25, 0.35), 0, 15, 1.0, None),
    ((0.35, 0.45), 15, 75, 3.0, 4),
    (None, 75, SPREAD, 2.0, None),
)
KILL_LAG = 15  # s: a job past its limit is killed up to 30 s late (slurmctld checks limits every 30 s)


def _cpus(rng: random.Random, capacity: int) -> int:
    """CPUs skewed small: mostly 1-4, some up to the partition's capacity."""
    r = rng.random()
    if r < 0.45:
        cpus = 1
    elif r < 0.67:
        cpus = 2
    elif r < 0.82:
        cpus = rng.randint(3, 4)
    elif r < 0.92:
        cpus = rng.randint(5, 8)
    elif r < 0.98:
        cpus = rng.randint(9, 16)
    else:
        cpus = rng.randint(17, 32)
    return min(cpus, capacity)


def _offsets(rng: random.Random, n: int) -> list[tuple[int, int]]:
    """Submission offsets over SPREAD seconds, each with its phase (an index of PHASES), in order."""
    counts = [round(n * rng.uniform(*share)) for share, _, _, _, _ in PHASES[:-1]]
    counts.append(n - sum(counts))
    offsets = []
    for phase, ((_, begin, end, _, _), count) in enumerate(zip(PHASES, counts)):
        offsets += [(int(round(rng.uniform(begin, end))), phase) for _ in range(count)]
    offsets[0] = (0, 0)
    return sorted(offsets)


def _sleep(rng: random.Random, limit: int, cpus: int, skew: float) -> int:
    """Seconds a job sleeps within its limit (of `limit` minutes): from 10 s, short ones the more
    likely the larger `skew`; jobs of more than 4 CPUs at most 90 s."""
    longest = limit * 60 - 5 if cpus <= 4 else min(limit * 60 - 5, 90)
    return 10 + int((longest - 10) * rng.random() ** skew)


def design(rng: random.Random, shape: Shape) -> list[dict]:
    """The jobs of a plan (see make_plan): offsets, users and accounts, partitions, CPUs and node
    counts, memory, --exclusive, limits and sleeps. A few small jobs sleep past their limit; the
    exclusive ones sleep 10-40 s; one job asks at least half of its partition's CPUs."""
    n = rng.randint(*JOBS)
    offsets = _offsets(rng, n)
    exclusive_count = EXCLUSIVE[0] if shape.nodes == 1 else EXCLUSIVE[1]
    exceeding, exclusive, big = _pick(rng, n, rng.randint(*EXCEEDING), exclusive_count, 1)
    users = [u for u, _, _ in shape.users]
    weights = [w for _, _, w in shape.users]
    jobs = []
    for k, (offset, phase) in enumerate(offsets):
        _, _, _, skew, most_cpus = PHASES[phase]
        user_index = rng.choices(range(len(users)), weights)[0]
        user, account, _ = shape.users[user_index]
        partition = shape.partitions[0][0]
        if len(shape.partitions) > 1:
            partition = rng.choice([p for p, _, _ in shape.partitions])
        first, last = shape.partition_nodes(partition)
        part_nodes = last - first + 1
        capacity = part_nodes * shape.cpus
        if k in big:
            cpus = rng.randint(capacity // 2, capacity)
        elif k in exceeding:
            cpus = rng.randint(1, min(2, capacity))
        else:
            cpus = _cpus(rng, min(capacity, most_cpus or capacity))
        nodes = None
        if part_nodes > 1 and cpus >= 2 and rng.random() < NODE_COUNT_SHARE:
            low = max(2, math.ceil(cpus / shape.cpus))
            high = min(part_nodes, cpus)
            if low <= high:
                nodes = rng.randint(low, high)
        limit = rng.choices(LIMITS, LIMIT_WEIGHTS)[0]
        if k in exceeding:
            sleep = limit * 60 + rng.randint(20, 90)
        elif k in exclusive:
            sleep = rng.randint(10, 40)
        else:
            sleep = _sleep(rng, limit, cpus, skew)
        mem = None
        if shape.mem_requests:
            share = shape.memory // shape.cpus  # MB per CPU
            if rng.random() < 0.35:  # memory-heavy: more than its CPUs' share of a node's memory
                mem = rng.choice([2500, 3500, 4500, 5500, 6500])
            else:
                mem = min(rng.choice([250, 500, 1000]) * min(cpus, shape.cpus), share * shape.cpus)
        jobs.append(
            {
                "index": k,
                "offset": offset,
                "phase": phase,
                "user": user,
                "account": account,
                "partition": partition,
                "cpus": cpus,
                "nodes": nodes,
                "mem_mb": mem,
                "exclusive": k in exclusive,
                "limit_min": limit,
                "sleep": sleep,
                "exceeds_limit": sleep > limit * 60,
            }
        )
    return jobs


def _pick(rng: random.Random, n: int, *counts: int) -> list[set]:
    """Disjoint random sets of job indices of the sizes `counts`."""
    chosen = rng.sample(range(n), sum(counts))
    sets, at = [], 0
    for count in counts:
        sets.append(set(chosen[at : at + count]))
        at += count
    return sets


def job_slots(job: dict, shape: Shape) -> int:
    """A job's size in the CPU pool of `estimate`: its CPUs; the whole nodes it needs when
    exclusive; with memory requests, at least the CPUs' worth of the memory it holds."""
    nodes_used = max(job["nodes"] or 1, math.ceil(job["cpus"] / shape.cpus))
    if job["exclusive"]:
        return nodes_used * shape.cpus
    slots = job["cpus"]
    if job["mem_mb"]:
        slots = max(slots, nodes_used * math.ceil(job["mem_mb"] / (shape.memory / shape.cpus)))
    return min(slots, shape.nodes * shape.cpus)


def estimate(jobs: list[dict], shape: Shape) -> dict:
    """A crude estimate of a plan on one pool of the shape's CPUs (nodes, partitions and memory
    ignored but for job_slots), jobs running their sleep (at most their limit + KILL_LAG), in
    submission order: `fcfs` starts jobs in that order only (no backfilling: the builtin clusters);
    `easy` lets a later job start if it does not delay the first waiting one (EASY backfilling: less
    than Slurm's backfill, which reserves for every waiting job, so its queue is no longer than
    Slurm's); `greedy` starts every job that fits (the shortest queue of all). The peak pending queue
    and the end of the last job (s) of each."""
    capacity = shape.nodes * shape.cpus
    order = sorted(jobs, key=lambda j: (j["offset"], j["index"]))
    out = {}
    for policy in ("fcfs", "easy", "greedy"):
        pending: list[dict] = []
        running: list[tuple[int, int, int]] = []  # (end, slots, limit end)
        free, peak, last_end, t, i = capacity, 0, 0, 0, 0
        while i < len(order) or pending or running:
            for end, slots, _ in [r for r in running if r[0] <= t]:
                free += slots
                last_end = max(last_end, end)
            running = [r for r in running if r[0] > t]
            while i < len(order) and order[i]["offset"] <= t:
                pending.append(order[i])
                i += 1
            still: list[dict] = []
            shadow, extra = None, 0  # the first waiting job's reserved start, and the CPUs it leaves
            for job in pending:
                slots = job_slots(job, shape)
                limit = job["limit_min"] * 60
                fits = slots <= free
                if still and policy == "fcfs":
                    fits = False
                elif still and policy == "easy" and fits:
                    fits = t + limit <= shadow or slots <= extra
                if fits:
                    free -= slots
                    if shadow is not None and t + limit > shadow:
                        extra -= slots
                    run = min(job["sleep"], limit + KILL_LAG)
                    running.append((t + max(run, 1), slots, t + limit))
                    continue
                if not still and policy == "easy":  # the reservation: when enough CPUs free by limits
                    available = free
                    for _, held, until in sorted(running, key=lambda r: r[2]):
                        available += held
                        if available >= slots:
                            shadow, extra = until, available - slots
                            break
                still.append(job)
            pending = still
            peak = max(peak, len(pending))
            t += 1
        out[policy] = {"peak_queue": peak, "makespan": last_end}
    return out


def make_plan(seed: int, shape_name: str) -> dict:
    """The first design (attempts 0, 1, ... of the seed) whose estimate has a greedy peak queue of at
    least MIN_PEAK_QUEUE and ends within MAX_MAKESPAN without backfilling."""
    shape = SHAPES[shape_name]
    for attempt in range(10000):
        rng = random.Random(f"slurm-twin:{seed}:{shape_name}:{attempt}")
        jobs = design(rng, shape)
        est = estimate(jobs, shape)
        if est["easy"]["peak_queue"] >= MIN_PEAK_QUEUE and est["fcfs"]["makespan"] <= MAX_MAKESPAN:
            break
    else:
        raise SystemExit(f"FAIL: no plan for shape {shape_name} and seed {seed} meets the estimate's bounds")
    return {
        "about": "A seeded workload of sleep jobs for .ci/slurm-twin (tests/slurm_twin.py plan)",
        "seed": seed,
        "attempt": attempt,
        "shape": asdict(shape),
        "accounts": ACCOUNTS if any(a for _, a, _ in shape.users) else {},
        "estimate": est,
        "jobs": jobs,
    }


# --- running Slurm's commands ---------------------------------------------------------------------------


def _env() -> dict:
    return {**os.environ, "TZ": "UTC", "SLURM_TIME_FORMAT": "standard"}


def run(command: list[str], check: bool = True) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=_env())
    if check and done.returncode != 0:
        raise SystemExit(f"FAIL: {shlex.join(command)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def conf_path() -> str:
    path = os.environ.get("SLURM_CONF")
    if not path:
        raise SystemExit("FAIL: SLURM_CONF is not set: it names the cluster's slurm.conf")
    return path


def sbatch_options(job: dict, jobs_dir: str, cluster: str) -> list[str]:
    options = [
        "--parsable",
        f"--job-name={cluster}-{job['index']}",
        f"--output={jobs_dir}/{cluster}-%j.out",
        f"--chdir={jobs_dir}",
        f"--ntasks={job['cpus']}",
        f"--time={job['limit_min']}",
        f"--partition={job['partition']}",
    ]
    if job["account"]:
        options.append(f"--account={job['account']}")
    if job["nodes"]:
        options.append(f"--nodes={job['nodes']}")
    if job["mem_mb"]:
        options.append(f"--mem={job['mem_mb']}M")
    if job["exclusive"]:
        options.append("--exclusive")
    return [*options, f"--wrap=sleep {job['sleep']}"]


def submit(plan: dict, jobs_dir: str, start_at: float | None) -> dict:
    cluster = _conf_value("ClusterName")
    began = start_at if start_at is not None else time.time()
    conf = conf_path()
    jobs = []
    for job in plan["jobs"]:
        delay = began + job["offset"] - time.time()
        if delay > 0:
            time.sleep(delay)
        options = sbatch_options(job, jobs_dir, cluster)
        command = ["sbatch", *options]
        if job["user"] != "root":
            command = ["runuser", "-u", job["user"], "--", "env", f"SLURM_CONF={conf}", *command]
        before = time.time()
        answer = run(command).strip()
        after = time.time()
        job_id = int(answer.split(";")[0])
        jobs.append(
            {
                **job,
                "job_id": job_id,
                "sbatch": shlex.join(["sbatch", *options]),
                "submitted_at": round(before - began, 3),
                "submit_epoch": round(before, 3),
                "sbatch_seconds": round(after - before, 3),
            }
        )
        print(f"  {cluster}: job {job['index']:2d} -> {job_id} at +{before - began:6.1f} s: {shlex.join(options)}",
              flush=True)  # fmt: skip
    return {
        "about": "What tests/slurm_twin.py submit submitted (the plan's jobs, their Slurm ids and times)",
        "cluster": cluster,
        "slurm": run(["sinfo", "--version"]).strip(),
        "start_at": round(began, 3),
        "start_at_utc": datetime.fromtimestamp(began, UTC).isoformat(timespec="milliseconds"),
        "plan_seed": plan["seed"],
        "shape": plan["shape"]["name"],
        "jobs": jobs,
    }


def _conf_value(key: str) -> str:
    text = Path(conf_path()).read_text()
    match = re.search(rf"^{key}=(\S+)", text, re.MULTILINE | re.IGNORECASE)
    if not match:
        raise SystemExit(f"FAIL: no {key}= in {conf_path()}")
    return match.group(1)


# --- snapshots ------------------------------------------------------------------------------------------

SQUEUE_FORMAT = "%i %Q %T %S %r"
SPRIO_FORMAT = "%i %r %u %Y %a %A %j %J %f %F %P %Q %N"


def _mem_available_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return -1


def snapshot_once(sprio: bool, sshare: bool) -> dict:
    """squeue's view (and sprio's, sshare's) now; a command that fails leaves its error in `errors`."""
    t = time.time()
    entry: dict = {"t": round(t, 3), "utc": datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")}
    errors = {}
    commands = {"squeue": ["squeue", "--noheader", "-o", SQUEUE_FORMAT]}
    if sprio:
        commands["sprio"] = ["sprio", "--noheader", "-o", SPRIO_FORMAT]
    if sshare:
        commands["sshare"] = ["sshare", "-a", "-l", "-P"]
    for name, command in commands.items():
        done = subprocess.run(command, capture_output=True, text=True, env=_env())
        if name != "sshare":
            entry[f"{name}_format"] = command[-1]
        entry[name] = done.stdout.splitlines()
        if done.returncode != 0:
            errors[name] = done.stderr.strip() or f"exit status {done.returncode}"
    if errors:
        entry["errors"] = errors
    entry["mem_available_mb"] = _mem_available_mb()
    entry["loadavg"] = Path("/proc/loadavg").read_text().split()[0]
    return entry


def snapshots(out: Path, every: float, sprio: bool, sshare: bool, until_done: Path | None, timeout: float) -> int:
    """Snapshots every `every` s until `until_done` exists (submission over) and no job is left,
    or `timeout` s; the number taken."""
    deadline = time.monotonic() + timeout
    taken = 0
    with out.open("a") as sink:
        while True:
            began = time.monotonic()
            entry = snapshot_once(sprio, sshare)
            sink.write(json.dumps(entry) + "\n")
            sink.flush()
            taken += 1
            if until_done is not None and until_done.exists() and not entry["squeue"]:
                return taken
            if time.monotonic() > deadline:
                return taken
            time.sleep(max(0.0, every - (time.monotonic() - began)))


# --- finishing ------------------------------------------------------------------------------------------

DUMP_EXTRA = ("Account", "NodeList")
FINAL = ("COMPLETED", "TIMEOUT", "CANCELLED", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "DEADLINE")


def dump_command() -> str:
    """The importer's SACCT_COMMAND with DUMP_EXTRA appended to its --format."""
    from simcore.workloads.sacct import SACCT_COMMAND

    match = re.search(r"--format=(\S+)", SACCT_COMMAND)
    if not match:
        raise SystemExit(f"FAIL: no --format= in the importer's SACCT_COMMAND: {SACCT_COMMAND}")
    fields = match.group(1).split(",")
    fields += [name for name in DUMP_EXTRA if name not in fields]
    return SACCT_COMMAND.replace(match.group(0), "--format=" + ",".join(fields))


def read_dump(text: str) -> list[dict]:
    lines = text.splitlines()
    names = lines[0].split("|")
    return [dict(zip(names, line.split("|"), strict=True)) for line in lines[1:] if line]


def _epoch(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def peak_queue(rows: list[dict]) -> tuple[int, str]:
    """The most jobs pending at once (submitted, not yet started; at each instant after all its
    events), and the first instant it was reached."""
    events: dict[float, int] = {}
    for row in rows:
        submit, start = _epoch(row["Submit"]), _epoch(row["Start"])
        if submit is None:
            continue
        events[submit] = events.get(submit, 0) + 1
        if start is not None:
            events[start] = events.get(start, 0) - 1
    pending, peak, when = 0, 0, ""
    for t in sorted(events):
        pending += events[t]
        if pending > peak:
            peak, when = pending, datetime.fromtimestamp(t, UTC).isoformat()
    return peak, when


def snapshot_peak(path: Path) -> tuple[int, int, int]:
    """The most PENDING jobs in one snapshot of a JSON-lines file, the snapshots, and the least
    MemAvailable (MB) they saw."""
    peak, count, memory = 0, 0, -1
    if path.exists():
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            count += 1
            peak = max(peak, sum(1 for row in entry["squeue"] if row.split()[2:3] == ["PENDING"]))
            if entry.get("mem_available_mb", -1) >= 0:
                memory = entry["mem_available_mb"] if memory < 0 else min(memory, entry["mem_available_mb"])
    return peak, count, memory


def finish(record: dict, out: Path, timeout: float, sshare: bool, snapshots_file: Path | None = None) -> dict:
    ids = {str(job["job_id"]) for job in record["jobs"]}
    deadline = time.monotonic() + timeout
    while True:
        queued = set(run(["squeue", "--noheader", "--format=%i"]).split()) & ids
        if not queued:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: {record['cluster']}: jobs still queued after {timeout:.0f} s: {sorted(queued)}")
        time.sleep(2)
    command = dump_command()
    while True:  # slurmdbd stores asynchronously
        text = run(["bash", "-c", command])
        shown = {row["JobIDRaw"]: row["State"] for row in read_dump(text)}
        missing = sorted(job for job in ids if not shown.get(job, "").startswith(FINAL))
        if not missing:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: {record['cluster']}: sacct does not show jobs {missing} ended")
        time.sleep(2)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sacct.txt").write_text(text)
    (out / "sacct_command.txt").write_text(f"TZ=UTC {command}\n")
    (out / "scontrol_show_config.txt").write_text(run(["scontrol", "show", "config"]))
    if sshare:
        (out / "sshare.txt").write_text(run(["sshare", "-a", "-l", "-P"]))
    rows = [row for row in read_dump(text) if row["JobIDRaw"] in ids]
    peak, when = peak_queue(rows)
    starts = [_epoch(row["Submit"]) for row in rows]
    ends = [_epoch(row["End"]) for row in rows]
    states: dict[str, int] = {}
    for row in rows:
        state = row["State"].split()[0]
        states[state] = states.get(state, 0) + 1
    summary = {
        "cluster": record["cluster"],
        "jobs": len(rows),
        "states": states,
        "peak_queue": peak,
        "peak_queue_at": when,
        "first_submit": datetime.fromtimestamp(min(starts), UTC).isoformat(),
        "last_end": datetime.fromtimestamp(max(ends), UTC).isoformat(),
        "wall_seconds": round(max(ends) - min(starts)),
    }
    if snapshots_file is not None:
        peak, count, memory = snapshot_peak(snapshots_file)
        summary.update(snapshots=count, snapshot_peak_queue=peak, least_mem_available_mb=memory)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


# --- accounts -------------------------------------------------------------------------------------------


def accounts(cluster: Cluster) -> list[list[str]]:
    """The sacctmgr commands that make a cluster's accounts and users (none for one-user shapes)."""
    shape = SHAPES[cluster.shape]
    if not any(account for _, account, _ in shape.users):
        return []
    commands = [
        ["sacctmgr", "-i", "add", "account", name, f"Cluster={cluster.name}", f"Fairshare={share}",
         "Description=slurm-twin", "Organization=schedsweep"]
        for name, share in ACCOUNTS.items()
    ]  # fmt: skip
    for user, account, _ in shape.users:
        commands.append(["sacctmgr", "-i", "add", "user", user, f"Account={account}", f"Cluster={cluster.name}"])
    return commands


# --- fixtures -------------------------------------------------------------------------------------------

# What tests/fixtures/slurm_twin/CLUSTER/ keeps of an output directory, and of slurmctld.log the lines
# that say what the scheduler did (the main scheduler, backfill cycles, priorities, submissions,
# starts, ends, time limits); plugin loading and node registration at start-up are left out, and so
# are the backfill plan's node state changes (LOG_DROP: `_handle_planned`, some 1800 lines a cluster).
FIXTURE_FILES = (
    "slurm.conf",
    "plan.json",
    "submitted.json",
    "sacct.txt",
    "sacct_command.txt",
    "snapshots.jsonl",
    "scontrol_show_config.txt",
    "sshare.txt",
    "associations.txt",
    "summary.json",
)
LOG_KEEP = re.compile(
    r"sched|backfill|BACKFILL|priority|PRIO|JobId=|Time limit|_job_complete|SchedulerParameters|slurmctld version"
)
LOG_DROP = re.compile(r"_handle_planned: BACKFILL: (set|cleared):")
FIXTURE_LIMIT = 2_000_000  # bytes per cluster


def copy_fixtures(source: Path, target: Path) -> list[str]:
    """Copy the outputs of .ci/slurm-twin (source/CLUSTER/...) to target/CLUSTER/, slurmctld.log
    trimmed to LOG_KEEP's lines; a line per cluster (files, bytes)."""
    lines = []
    for directory in sorted(path for path in source.iterdir() if (path / "summary.json").exists()):
        out = target / directory.name
        out.mkdir(parents=True, exist_ok=True)
        for name in FIXTURE_FILES:
            if (directory / name).exists():
                (out / name).write_bytes((directory / name).read_bytes())
        log = (directory / "slurmctld.log").read_text(errors="replace").splitlines(keepends=True)
        kept = [line for line in log if LOG_KEEP.search(line) and not LOG_DROP.search(line)]
        (out / "slurmctld.log").write_text("".join(kept))
        size = sum(path.stat().st_size for path in out.iterdir())
        if size > FIXTURE_LIMIT:
            raise SystemExit(f"FAIL: {out}: {size} bytes, more than {FIXTURE_LIMIT}")
        lines.append(
            f"{directory.name}: {len(list(out.iterdir()))} files, {size} bytes (log: {len(kept)} of {len(log)} lines)"
        )
    if (source / "run.txt").exists():
        (target / "run.txt").write_bytes((source / "run.txt").read_bytes())
    return lines


# --- the command line -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("clusters", help="name, shape, node count, users of each cluster (all, or those named)")
    p.add_argument("names", nargs="*")
    p = sub.add_parser("conf", help="write DIR/slurm.conf and DIR/nodes.txt of a cluster")
    p.add_argument("--cluster", required=True, choices=sorted(CLUSTERS))
    p.add_argument("--dir", required=True, type=Path)
    p.add_argument("--port", required=True, type=int, help="slurmctld's; node k's slurmd gets PORT + k")
    p.add_argument("--munge-socket", required=True)
    p.add_argument("--host", default=socket.gethostname().split(".")[0])
    p = sub.add_parser("accounts", help="add the cluster's accounts and users with sacctmgr")
    p.add_argument("--cluster", required=True, choices=sorted(CLUSTERS))
    p = sub.add_parser("plan", help="design a seeded workload for a shape")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--shape", required=True, help=f"one of {', '.join(SHAPES)}, or a cluster's name")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("submit", help="submit a plan's jobs at their offsets")
    p.add_argument("--plan", type=Path, required=True)
    p.add_argument("--record", type=Path, required=True)
    p.add_argument("--jobs-dir", required=True, help="job output and working directory (mode 1777)")
    p.add_argument("--start-at", type=float, help="epoch seconds of offset 0 (default: now)")
    p = sub.add_parser("snapshot", help="append squeue (sprio, sshare) snapshots to a JSON-lines file")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--every", type=float, default=10.0)
    p.add_argument("--sprio", action="store_true")
    p.add_argument("--sshare", action="store_true")
    p.add_argument("--until-done", type=Path, help="stop once this file exists and no job is queued")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--once", action="store_true")
    p = sub.add_parser("finish", help="wait for the jobs to end, dump sacct, sshare, scontrol show config")
    p.add_argument("--record", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--timeout", type=float, default=1200.0)
    p.add_argument("--sshare", action="store_true")
    p.add_argument("--snapshots", type=Path, help="the snapshots file: its peak queue goes into the summary")
    p = sub.add_parser("fixtures", help="copy an output directory to fixtures, slurmctld.log trimmed")
    p.add_argument("--from", dest="source", type=Path, required=True)
    p.add_argument("--to", dest="target", type=Path, required=True)
    args = parser.parse_args(argv)

    if args.command == "clusters":
        for name in args.names or CLUSTERS:
            if name not in CLUSTERS:
                raise SystemExit(f"FAIL: no cluster {name} (there are {', '.join(CLUSTERS)})")
            cluster = CLUSTERS[name]
            shape = SHAPES[cluster.shape]
            users = ",".join(u for u, _, _ in shape.users)
            flags = ("multifactor" if cluster.multifactor else "basic") + (",fairshare" if cluster.fair_share else "")
            print(name, shape.name, shape.nodes, users, flags)
    elif args.command == "conf":
        cluster = CLUSTERS[args.cluster]
        args.dir.mkdir(parents=True, exist_ok=True)
        conf = slurm_conf(cluster, args.dir.resolve(), args.port, args.munge_socket, args.host)
        (args.dir / "slurm.conf").write_text(conf)
        (args.dir / "nodes.txt").write_text("\n".join(SHAPES[cluster.shape].node_names()) + "\n")
    elif args.command == "accounts":
        for command in accounts(CLUSTERS[args.cluster]):
            run(command)
    elif args.command == "plan":
        shape = CLUSTERS[args.shape].shape if args.shape in CLUSTERS else args.shape
        if shape not in SHAPES:
            raise SystemExit(
                f"FAIL: no shape {args.shape} (shapes: {', '.join(SHAPES)}; clusters: {', '.join(CLUSTERS)})"
            )
        plan = make_plan(args.seed, shape)
        args.out.write_text(json.dumps(plan, indent=1) + "\n")
        est = plan["estimate"]
        print(
            f"plan {args.out}: shape {shape}, seed {args.seed} (attempt {plan['attempt']}), {len(plan['jobs'])} jobs; "
            f"estimated peak queue {est['greedy']['peak_queue']} (greedy), {est['easy']['peak_queue']} (EASY), "
            f"{est['fcfs']['peak_queue']} (FCFS); last end {est['greedy']['makespan']}, {est['easy']['makespan']}, "
            f"{est['fcfs']['makespan']} s"
        )
    elif args.command == "submit":
        plan = json.loads(args.plan.read_text())
        record = submit(plan, args.jobs_dir, args.start_at)
        tmp = args.record.with_suffix(".partial")
        tmp.write_text(json.dumps(record, indent=1) + "\n")
        tmp.replace(args.record)
    elif args.command == "snapshot":
        if args.once:
            with args.out.open("a") as sink:
                sink.write(json.dumps(snapshot_once(args.sprio, args.sshare)) + "\n")
        else:
            taken = snapshots(args.out, args.every, args.sprio, args.sshare, args.until_done, args.timeout)
            print(f"{taken} snapshots in {args.out}")
    elif args.command == "finish":
        record = json.loads(args.record.read_text())
        summary = finish(record, args.out, args.timeout, args.sshare, args.snapshots)
        print(json.dumps(summary))
    elif args.command == "fixtures":
        for line in copy_fixtures(args.source, args.target):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
