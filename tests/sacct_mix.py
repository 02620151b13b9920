"""The job mix of .ci/slurm-accounting: what two users submit to a one-node Slurm with accounting,
the driver that submits it and waits for it, and the check of `simcore import-sacct`'s SWF against
it. The committed fixture tests/fixtures/sacct/ (the sacct dump and the submission record of one
real run) is checked by tests/workloads/test_sacct_fixture.py with the same `check`.

    python3 tests/sacct_mix.py submit --jobs-dir DIR --second-user NAME --record submitted.json
    python3 tests/sacct_mix.py finish --record submitted.json --dump dump.sacct [--alias-dump alias.sacct]
    python3 tests/sacct_mix.py check --record submitted.json --dump dump.sacct --swf dump.swf.gz
    python3 tests/sacct_mix.py same dump.swf.gz alias.swf.gz

`submit` submits MIX (cancelling what it cancels), `finish` waits until every job has ended and
sacct shows it so, records what slurmctld says of each (scontrol), and writes the dump with the
importer's SACCT_COMMAND (more fields appended, which the importer ignores), and with
--alias-dump a second dump of the same jobs whose fields have sacct's other names (ALIAS_FIELDS).
`check` prints one line per mismatch, `FAIL job LABEL (Slurm JOBID) field F: ...`, and exits 1 on
any; `same` prints how two SWF conversions differ (`different`) and exits 1 if they do.

The node declares NODE_CPUS CPUs and DEF_MEM_PER_CPU MB per CPU by default (.ci/slurm-accounting).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from simcore.workloads.sacct import SACCT_COMMAND

NODE_CPUS = 4
DEF_MEM_PER_CPU = 100  # MB, slurm.conf DefMemPerCPU
# Fields dumped besides the importer's: the check reads some, the rest documents the jobs.
EXTRA_FIELDS = (
    "JobName",
    "UID",
    "GID",
    "Account",
    "QOS",
    "Eligible",
    "Elapsed",
    "TimelimitRaw",
    "ExitCode",
    "ReqTRES",
    "AllocTRES",
    "CPUTimeRAW",
)
# The second dump's fields: for each field the importer reads, sacct's other name where it has one
# (NCPUS for AllocCPUS, NNodes for AllocNodes, TimelimitRaw for Timelimit, UID, GID), Elapsed and
# Suspended, which it checks End - Start against, and Eligible, which it ignores beside Submit (the
# eligible time of an array task is later than its submission). In lower case, as `sacct -l`
# lists its fields: sacct matches --format names in any case and prints its own in the header.
ALIAS_FIELDS = (
    "cluster,jobid,jobidraw,uid,gid,partition,state,submit,eligible,start,end,elapsed,suspended,timelimitraw,"
    "ncpus,reqcpus,nnodes,reqnodes,reqmem"
)
STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "CANCELLED": 5}
# Slurm's ways to write a time limit, and how many minutes it keeps (seconds round up).
_LIMIT = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


@dataclass(frozen=True)
class Part:
    """One component's request: tasks, CPUs per task, time limit as typed, memory in MB per node
    (mem) or per CPU (mem_per_cpu), none: DEF_MEM_PER_CPU per CPU."""

    time: str
    ntasks: int = 1
    cpus_per_task: int = 1
    mem: int | None = None
    mem_per_cpu: int | None = None

    @property
    def cpus(self) -> int:
        return self.ntasks * self.cpus_per_task

    @property
    def memory_mb(self) -> int:
        """The component's memory in MB (one node): what ReqMem shows since Slurm 21.08."""
        return self.mem if self.mem is not None else (self.mem_per_cpu or DEF_MEM_PER_CPU) * self.cpus

    def options(self) -> list[str]:
        options = [f"--time={self.time}", f"--ntasks={self.ntasks}", f"--cpus-per-task={self.cpus_per_task}"]
        if self.mem is not None:
            options.append(f"--mem={self.mem}M")
        if self.mem_per_cpu is not None:
            options.append(f"--mem-per-cpu={self.mem_per_cpu}M")
        return options


@dataclass(frozen=True)
class Job:
    """A submission. `user`: "first" (root) or "second"; `parts`: one, or the components of a
    heterogeneous job; `array`: a --array range; `action`: what the driver does to it
    ("cancel_running", "cancel_pending" once it waits for resources, "hold_cancel": submitted
    held and cancelled); `state`: its expected final state; `covers`: what it is in the mix for."""

    label: str
    user: str
    partition: str
    parts: tuple
    command: str
    state: str
    covers: str
    array: str | None = None
    action: str | None = None
    in_accounting: bool = True
    exit_code: str = "0:0"


MIX = (
    Job("timeout", "first", "smoke", (Part("1"),), "sleep 600", "TIMEOUT",
        "--time=1 (minutes); runs past its limit: killed (OverTimeLimit=0, KillWait=2)"),
    Job("cancel_running", "second", "campaign", (Part("5"),), "sleep 600", "CANCELLED",
        "cancelled while running", action="cancel_running"),
    Job("hms", "second", "campaign", (Part("00:01:30", ntasks=2),), "sleep 8", "COMPLETED",
        "--time=HH:MM:SS (90 s: Slurm keeps 2 minutes), --ntasks=2"),
    Job("cancel_pending", "first", "smoke", (Part("2", ntasks=4),), "sleep 1", "CANCELLED",
        "cancelled while pending (4 CPUs, node busy): never started", action="cancel_pending"),
    Job("mmss", "first", "smoke", (Part("0:30"),), "sleep 5", "COMPLETED",
        "--time=MM:SS (30 s: Slurm keeps 1 minute); waits for a CPU"),
    Job("dhms", "first", "campaign", (Part("0-00:02:00", cpus_per_task=2, mem=300),), "sleep 6", "COMPLETED",
        "--time=D-HH:MM:SS, --cpus-per-task=2, --mem (per node)"),
    Job("fails", "second", "smoke", (Part("1"),), "sleep 2; exit 3", "FAILED",
        "exits 3: FAILED, ExitCode 3:0", exit_code="3:0"),
    Job("array", "first", "smoke", (Part("1", mem_per_cpu=50),), "sleep 4", "COMPLETED",
        "--array=0-2: three jobs; --mem-per-cpu", array="0-2"),
    Job("mem_per_cpu", "second", "smoke", (Part("2", ntasks=2, mem_per_cpu=150),), "sleep 3", "COMPLETED",
        "--ntasks=2 with --mem-per-cpu"),
    Job("wide", "second", "campaign", (Part("3", cpus_per_task=3),), "sleep 4", "COMPLETED",
        "--cpus-per-task=3: waits until 3 CPUs are free"),
    Job("held", "first", "smoke", (Part("1"),), "sleep 1", "CANCELLED",
        "--hold, cancelled before it was ever eligible: Slurm never sends it to the database",
        action="hold_cancel", in_accounting=False),
    Job("hetjob", "second", "smoke", (Part("1"), Part("2", ntasks=2)), "sleep 3", "CANCELLED",
        "heterogeneous job (#SBATCH hetjob), two components: it cannot start on one node (the backfill "
        "scheduler places each component on a node of its own), so it is cancelled while pending",
        action="cancel_pending"),
)  # fmt: skip


def limit_seconds(text: str) -> int:
    """The time limit Slurm keeps for `text` (whole minutes, seconds rounded up), in seconds."""
    days, first, second, third = _LIMIT.match(text).groups()
    if days is not None:
        seconds = int(days) * 86400 + int(first) * 3600 + int(second or 0) * 60 + int(third or 0)
    elif third is not None:
        seconds = int(first) * 3600 + int(second) * 60 + int(third)
    elif second is not None:
        seconds = int(first) * 60 + int(second)
    else:
        seconds = int(first) * 60
    return math.ceil(seconds / 60) * 60


def array_tasks(array: str | None) -> list[int | None]:
    if array is None:
        return [None]
    low, high = array.split("-")
    return list(range(int(low), int(high) + 1))


def expected_records(record: dict) -> list[dict]:
    """One expectation per Slurm job (array task, het component) of a submission record, each with
    the JobID sacct shows for it (`123`, `123_4`, `123+1`)."""
    records = []
    for job in record["jobs"]:
        parts = job["parts"]
        for task in array_tasks(job["array"]):
            for offset, part in enumerate(parts):
                if task is not None:
                    shown = f"{job['sbatch_id']}_{task}"
                elif len(parts) > 1:
                    shown = f"{job['sbatch_id']}+{offset}"
                else:
                    shown = str(job["sbatch_id"])
                records.append({"job_id": shown, "job": job, "part": part})
    return records


# --- submitting ---------------------------------------------------------------------------------------------


def _run(command: list[str], **kwargs) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "TZ": "UTC"}, **kwargs)
    if done.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(command)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def _script(job: Job, jobs_dir: Path) -> Path:
    lines = ["#!/bin/sh", f"#SBATCH --job-name={job.label} --partition={job.partition}"]
    lines.append(f"#SBATCH --output={jobs_dir}/%x-%j.out --chdir={jobs_dir}")
    for offset, part in enumerate(job.parts):
        if offset:
            lines += ["#SBATCH hetjob", f"#SBATCH --partition={job.partition}"]
        lines.append("#SBATCH " + " ".join(part.options()))
    path = jobs_dir / f"{job.label}.sh"
    path.write_text("\n".join([*lines, job.command, ""]))
    path.chmod(0o755)
    return path


def _in_state(job_id: int, states: set):
    """A test: squeue shows job `job_id` (every component) in one of `states` ("STATE" or "STATE REASON")."""

    def test() -> bool:
        shown = _run(["squeue", "--noheader", f"--jobs={job_id}", "--format=%T %r"]).splitlines()
        return bool(shown) and all(line in states or line.split()[0] in states for line in shown)

    return test


def _until(what: str, test, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: {what} after {timeout:.0f} s")
        time.sleep(0.25)


def submit(jobs_dir: Path, second_user: str) -> dict:
    """Submit MIX; returns the submission record (JSON-ready)."""
    users = {"first": "root", "second": second_user}
    jobs, began = [], time.time()
    for job in MIX:
        options = ["--parsable"]
        if job.array:
            options.append(f"--array={job.array}")
        if job.action == "hold_cancel":
            options.append("--hold")
        user = users[job.user]
        prefix = [] if user == "root" else ["runuser", "-u", user, "--"]
        script = _script(job, jobs_dir)
        sbatch_id = int(_run([*prefix, "sbatch", *options, str(script)], cwd=jobs_dir).strip().split(";")[0])
        entry = {
            **asdict(job),
            "user_name": user,
            "sbatch_id": sbatch_id,
            "submitted_at": round(time.time() - began, 1),
        }
        entry["parts"] = [
            {**asdict(part), "cpus": part.cpus, "memory_mb": part.memory_mb, "limit_s": limit_seconds(part.time)}
            for part in job.parts
        ]
        jobs.append(entry)
        print(f"  submitted {job.label:15s} as {user:12s} -> {sbatch_id}  ({job.covers})", flush=True)
        if job.action == "cancel_running":
            _until(f"{job.label} ({sbatch_id}) not running", _in_state(sbatch_id, {"RUNNING"}))
            time.sleep(2)
            _run(["scancel", str(sbatch_id)])
            print(f"  cancelled {job.label} ({sbatch_id}) while running", flush=True)
        elif job.action in ("cancel_pending", "hold_cancel"):
            # pending: held, or (eligible, so in the database from its submission) for any reason
            wanted = {"PENDING JobHeldUser"} if job.action == "hold_cancel" else {"PENDING"}
            _until(f"{job.label} ({sbatch_id}) not {' or '.join(wanted)}", _in_state(sbatch_id, wanted))
            time.sleep(1)
            _run(["scancel", str(sbatch_id)])
            print(f"  cancelled {job.label} ({sbatch_id}) while pending", flush=True)
    return {
        "about": "What .ci/slurm-accounting submitted (tests/sacct_mix.py MIX) and what slurmctld said of each job",
        "slurm": _run(["sinfo", "--version"]).strip(),
        "node_cpus": NODE_CPUS,
        "def_mem_per_cpu_mb": DEF_MEM_PER_CPU,
        "jobs": jobs,
    }


# --- waiting, scontrol, the dump ----------------------------------------------------------------------------


def dump_command() -> str:
    """The importer's SACCT_COMMAND with EXTRA_FIELDS appended to its --format."""
    match = re.search(r"--format=(\S+)", SACCT_COMMAND)
    if not match:
        raise SystemExit(f"FAIL: no --format= in the importer's SACCT_COMMAND: {SACCT_COMMAND}")
    fields = match.group(1).split(",")
    fields += [name for name in EXTRA_FIELDS if name not in fields]
    return SACCT_COMMAND.replace(match.group(0), "--format=" + ",".join(fields))


def alias_dump_command() -> str:
    """The importer's SACCT_COMMAND with ALIAS_FIELDS as its --format."""
    return re.sub(r"--format=\S+", "--format=" + ALIAS_FIELDS, SACCT_COMMAND)


def read_dump(text: str) -> list[dict]:
    lines = text.splitlines()
    names = lines[0].split("|")
    return [dict(zip(names, line.split("|"), strict=True)) for line in lines[1:] if line]


def _scontrol_jobs() -> dict:
    """slurmctld's view of every job it still holds (MinJobAge), by the JobID sacct shows."""
    jobs = {}
    for line in _run(["scontrol", "--oneliner", "show", "job"]).splitlines():
        values = dict(item.split("=", 1) for item in line.split() if "=" in item)
        if "ArrayTaskId" in values and values["ArrayTaskId"].isdigit():
            shown = f"{values['ArrayJobId']}_{values['ArrayTaskId']}"
        elif "HetJobId" in values:
            shown = f"{values['HetJobId']}+{values['HetJobOffset']}"
        else:
            shown = values["JobId"]
        keep = ("JobId", "JobState", "UserId", "GroupId", "Partition", "TimeLimit", "NumCPUs", "NumTasks")
        keep += ("CPUs/Task", "SubmitTime", "StartTime", "EndTime", "ExitCode", "TRES", "MinMemoryCPU")
        jobs[shown] = {name: values[name] for name in keep if name in values}
    return jobs


def finish(record: dict, timeout: float) -> str:
    """Wait until every job has ended and sacct shows each final; add scontrol's view to the record;
    the dump's text."""
    expected = {item["job_id"] for item in expected_records(record) if item["job"]["in_accounting"]}
    deadline = time.monotonic() + timeout
    while _run(["squeue", "--noheader", "--format=%i"]).strip():
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: jobs still queued after {timeout:.0f} s:\n{_run(['squeue'])}")
        time.sleep(1)
    record["scontrol"] = _scontrol_jobs()
    final = tuple(STATUS)
    while True:  # slurmdbd stores asynchronously
        text = _run(["bash", "-c", dump_command()])
        shown = {row["JobID"]: row["State"] for row in read_dump(text)}
        if expected <= set(shown) and all(shown[job].startswith(final) for job in expected):
            return text
        if time.monotonic() > deadline:
            missing = sorted(expected - set(shown)) + [
                job for job in expected & set(shown) if not shown[job].startswith(final)
            ]
            raise SystemExit(f"FAIL: sacct does not show jobs {', '.join(missing)} ended after {timeout:.0f} s")
        time.sleep(1)


# --- the check ----------------------------------------------------------------------------------------------

# The SWF header lines that name the dump converted (its file name and sha256) and say which of its
# field names were read (`; Note: field F: ...`): the rest of two conversions of the same jobs, one
# dumped with SACCT_COMMAND, the other with ALIAS_FIELDS, is the same bytes.
DUMP_SPECIFIC = ("; Conversion: ", "; Note: field ")


def different(swf_text: str, other_text: str) -> list[str]:
    """The lines in which two SWF conversions of the same jobs differ, but for DUMP_SPECIFIC ones."""
    first, second = (
        [line for line in text.splitlines() if not line.startswith(DUMP_SPECIFIC)] for text in (swf_text, other_text)
    )
    problems = [
        f"FAIL SWF line {number}: {one!r} vs {two!r}"
        for number, (one, two) in enumerate(zip(first, second), start=1)
        if one != two
    ]
    if len(first) != len(second):
        problems.append(f"FAIL SWF: {len(first)} lines vs {len(second)} (less the dump-specific header lines)")
    return problems


def epoch(text: str) -> int | None:
    """Epoch seconds of an ISO time printed in UTC (TZ=UTC), None for Unknown/None/empty."""
    if text in ("Unknown", "None", "", "N/A"):
        return None
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp())


def memory_mb(text: str) -> float:
    number, unit = re.match(r"^([\d.]+)([KMGT]?)$", text).groups()
    return float(number) * 1024.0 ** ({"K": 1, "M": 2, "G": 3, "T": 4, "": 2}[unit] - 2)


def check(record: dict, dump_text: str, swf_fields, swf_header: dict, slurm_job_ids=None) -> list[str]:
    """Every mismatch between the SWF (`swf_fields` (jobs, 18) and header, as parse_swf reads them),
    the sacct dump's raw values, slurmctld's view (record["scontrol"]) and what was submitted
    (record["jobs"]); one line per mismatch naming the job and the field. `slurm_job_ids`: the
    importer's Slurm id of each SWF job, if known."""
    problems = []
    rows = read_dump(dump_text)
    by_id = {row["JobID"]: row for row in rows}
    items = expected_records(record)
    present = [item for item in items if item["job"]["in_accounting"]]
    for item in items:
        if not item["job"]["in_accounting"] and item["job_id"] in by_id:
            problems.append(f"FAIL job {item['job']['label']} (Slurm {item['job_id']}): in the dump, expected absent")
    wanted = {item["job_id"] for item in present}
    for job_id in sorted(set(by_id) - wanted):
        problems.append(f"FAIL job ? (Slurm {job_id}): in the dump but not submitted by the mix")
    for job_id in sorted(wanted - set(by_id)):
        problems.append(f"FAIL job (Slurm {job_id}): submitted but not in the dump")
    if len(swf_fields) != len(present):
        problems.append(
            f"FAIL SWF: {len(swf_fields)} jobs, expected {len(present)} (one per array task and het component)"
        )
    if problems:
        return problems

    # SWF order: (Submit, JobIDRaw); users and groups numbered by first submission, ties by name
    order = sorted(
        present, key=lambda item: (epoch(by_id[item["job_id"]]["Submit"]), int(by_id[item["job_id"]]["JobIDRaw"]))
    )
    numbering = {}
    for key in ("User", "Group"):
        first = {}
        for item in order:
            row = by_id[item["job_id"]]
            first.setdefault(row[key], epoch(row["Submit"]))
        numbering[key] = {name: k for k, name in enumerate(sorted(first, key=lambda name: (first[name], name)), 1)}
    partitions = sorted({by_id[item["job_id"]]["Partition"] for item in present})
    origin = int(swf_header.get("UnixStartTime", -1))
    if origin != min(epoch(by_id[item["job_id"]]["Submit"]) for item in present):
        problems.append(f"FAIL SWF header: UnixStartTime {origin} is not the first submission")
    if len(numbering["User"]) != 2:
        problems.append(f"FAIL users: {sorted(numbering['User'])}, expected two distinct")

    for k, item in enumerate(order):
        row, job, part = by_id[item["job_id"]], item["job"], item["part"]
        swf = [int(value) for value in swf_fields[k]]
        name = f"FAIL job {job['label']} (Slurm {item['job_id']}, JobIDRaw {row['JobIDRaw']}, SWF {k + 1})"
        ctld = record.get("scontrol", {}).get(item["job_id"])

        def expect(what, got, wanted, name=name):
            if got != wanted:
                problems.append(f"{name} field {what}: {got!r}, expected {wanted!r}")

        expect("SWF id (field 1)", swf[0], k + 1)
        if slurm_job_ids is not None:
            expect("importer's Slurm id", int(slurm_job_ids[k]), int(row["JobIDRaw"]))
        submit, start, end = (epoch(row[key]) for key in ("Submit", "Start", "End"))
        ran = job["action"] != "cancel_pending"
        expect("submit (field 2 + UnixStartTime) vs sacct Submit", swf[1] + origin, submit)
        if ran:
            expect("start (submit + wait, field 3) vs sacct Start", swf[1] + origin + swf[2], start)
            expect("end (submit + wait + run, field 4) vs sacct End", swf[1] + origin + swf[2] + swf[3], end)
            expect("allocated processors (field 5) vs submitted", swf[4], part["cpus"])
            expect("sacct AllocCPUS vs submitted", int(row["AllocCPUS"]), part["cpus"])
        else:
            # Slurm 22.05 writes a job cancelled while pending with Start = End = the cancel time and
            # AllocCPUS = its request: only AllocNodes 0 (and no AllocTRES) says that it never ran
            expect("sacct AllocNodes of a job that never started", row["AllocNodes"], "0")
            expect("sacct Start of a job that never started (None, or End)", row["Start"] in ("None", row["End"]), True)
            expect("wait, run, allocated processors (fields 3-5) of a job that never started", swf[2:5], [-1, -1, -1])
        expect("requested processors (field 8) vs submitted", swf[7], part["cpus"])
        expect("sacct ReqCPUS vs submitted", int(row["ReqCPUS"]), part["cpus"])
        expect("requested time (field 9) vs submitted --time", swf[8], part["limit_s"])
        if "TimelimitRaw" in row:
            expect("sacct TimelimitRaw (minutes) vs submitted --time", int(row["TimelimitRaw"]) * 60, part["limit_s"])
        memory_kb = round(part["memory_mb"] * 1024 / part["cpus"])
        expect("requested memory (field 10, KB per processor) vs submitted", swf[9], memory_kb)
        expect("sacct ReqMem (MB) vs submitted", memory_mb(row["ReqMem"]), float(part["memory_mb"]))
        expect("status (field 11)", swf[10], STATUS[job["state"]])
        expect("sacct State", row["State"].split(" by ")[0], job["state"])
        if "ExitCode" in row:
            expect("sacct ExitCode", row["ExitCode"], job["exit_code"])
        expect("sacct User vs submitting user", row["User"], job["user_name"])
        expect("user (field 12)", swf[11], numbering["User"][row["User"]])
        expect("group (field 13)", swf[12], numbering["Group"][row["Group"]])
        expect("sacct Partition vs submitted", row["Partition"], job["partition"])
        expect("partition (field 16)", swf[15], partitions.index(job["partition"]) + 1)
        if ctld is None:
            problems.append(f"{name} field scontrol: slurmctld's view of the job was not recorded")
            continue
        expect("scontrol SubmitTime vs sacct Submit", epoch(ctld["SubmitTime"]), submit)
        if ran:
            expect("scontrol StartTime vs sacct Start", epoch(ctld["StartTime"]), start)
            expect("scontrol EndTime vs sacct End", epoch(ctld["EndTime"]), end)
            expect("scontrol NumCPUs vs submitted", int(ctld["NumCPUs"]), part["cpus"])
        expect("scontrol JobState", ctld["JobState"], job["state"])
        expect("scontrol UserId", ctld["UserId"].split("(")[0], job["user_name"])
        expect("scontrol Partition", ctld["Partition"], job["partition"])
        expect("scontrol TimeLimit (s)", limit_seconds(ctld["TimeLimit"]), part["limit_s"])
    waited = sum(1 for k, item in enumerate(order) if swf_fields[k][2] >= 1)
    if waited < 3:
        problems.append(f"FAIL mix: only {waited} jobs waited a second or more, expected at least 3")
    return problems


def summary(record: dict, dump_text: str, swf_fields) -> str:
    """A table of the SWF jobs beside their Slurm ids and labels."""
    by_id = {row["JobID"]: row for row in read_dump(dump_text)}
    present = [item for item in expected_records(record) if item["job"]["in_accounting"]]
    order = sorted(
        present, key=lambda item: (epoch(by_id[item["job_id"]]["Submit"]), int(by_id[item["job_id"]]["JobIDRaw"]))
    )
    lines = ["  SWF  Slurm JobID  label            submit wait  run procs req limit  KB/proc status user part"]
    for k, item in enumerate(order):
        f = [int(value) for value in swf_fields[k]]
        lines.append(
            f"  {f[0]:3d}  {item['job_id']:11s}  {item['job']['label']:15s} {f[1]:6d} {f[2]:4d} {f[3]:4d} "
            f"{f[4]:5d} {f[7]:3d} {f[8]:5d} {f[9]:8d} {f[10]:6d} {f[11]:4d} {f[15]:4d}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("submit")
    one.add_argument("--jobs-dir", type=Path, required=True)
    one.add_argument("--second-user", required=True)
    one.add_argument("--record", type=Path, required=True)
    two = sub.add_parser("finish")
    two.add_argument("--record", type=Path, required=True)
    two.add_argument("--dump", type=Path, required=True)
    two.add_argument("--alias-dump", type=Path, help="also dump the jobs with ALIAS_FIELDS")
    two.add_argument("--timeout", type=float, default=240)
    three = sub.add_parser("check")
    three.add_argument("--record", type=Path, required=True)
    three.add_argument("--dump", type=Path, required=True)
    three.add_argument("--swf", type=Path, required=True)
    four = sub.add_parser("same")
    four.add_argument("swf", type=Path, nargs=2)
    args = parser.parse_args(argv)
    if args.command == "same":
        texts = [(gzip.decompress if path.suffix == ".gz" else bytes)(path.read_bytes()).decode() for path in args.swf]
        problems = different(*texts)
        print("\n".join(problems) or f"the same SWF but for its {', '.join(map(repr, DUMP_SPECIFIC))} lines")
        return 1 if problems else 0
    if args.command == "submit":
        record = submit(args.jobs_dir, args.second_user)
        args.record.write_text(json.dumps(record, indent=1) + "\n")
        return 0
    record = json.loads(args.record.read_text())
    if args.command == "finish":
        args.dump.write_text(finish(record, args.timeout))
        if args.alias_dump:  # every job ended and in the database: the same jobs
            args.alias_dump.write_text(_run(["bash", "-c", alias_dump_command()]))
        args.record.write_text(json.dumps(record, indent=1) + "\n")
        return 0
    from simcore.engine.swf import parse_swf

    swf = parse_swf(args.swf)
    dump_text = args.dump.read_text()
    problems = check(record, dump_text, swf.fields, swf.header)
    print(summary(record, dump_text, swf.fields))
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
