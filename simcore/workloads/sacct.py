"""Slurm accounting (`sacct`) dumps converted to SWF logs: `simcore import-sacct`.

The dump
--------
Made on the cluster with (SACCT_COMMAND):

    SLURM_TIME_FORMAT=standard sacct --allusers --allocations --parsable2 \\
        --starttime 1970-01-01 --endtime now \\
        --format=Cluster,JobID,JobIDRaw,User,Group,Partition,State,Submit,Start,End,Timelimit,\\
AllocCPUS,ReqCPUS,AllocNodes,ReqNodes,ReqMem,Account > dump.txt

`--parsable2` separates fields with `|` and truncates nothing. The header line that sacct prints
first is required (no `--noheader`): fields are found by name, in any order, and in any case (sacct
matches --format names in any case and prints its own; `allocnodes` is AllocNodes). Other fields
are ignored, and so is the empty last field of `--parsable`. `SLURM_TIME_FORMAT=standard` keeps the
timestamps in ISO form (`2026-11-26T13:17:07`) whatever the site's setting. A gzip dump is read as
is. A dump whose last line has no newline was cut short: that line is bad (`unterminated_line`).

The fields (FIELD_NAMES; sacct's names from its field table, src/sacct/sacct.c, Slurm 22.05)
-----------------------------------------------------------------------------------------
Each field is read from the first of its names the header has. Needed (REQUIRED_FIELDS, and a
processor count): a dump without one is refused, naming what is missing, the header's names nearest
to it (difflib) and the header (whole names).

- JobIDRaw, else JobID. JobID is the job id of a plain job only: an array task's is `123_4` and a
  heterogeneous component's `123+1`, whose job ids only JobIDRaw gives (the last task of an array
  keeps the array's id, the others get new ones), so without JobIDRaw such a line is bad
  (`no_raw_job_id`) rather than given an id of our making.
- State. Start. End.
- Submit, else Eligible: the time a job became eligible, later than its submission when it was
  held, waited for a dependency or a --begin time, or is an array task; waits are then shorter.
- Timelimit, else TimelimitRaw (minutes, UNLIMITED, Partition_Limit).
- A processor count: with --count cpus, AllocCPUS (or NCPUS, the same field in sacct) or ReqCPUS;
  with --count nodes, AllocNodes (or NNodes) or ReqNodes.

Optional, and what follows when absent (each said by a header line `; Note: field F: ...` and
printed by the command; a dump with all of DUMP_FIELDS under their own names has none):
- AllocCPUS (and NCPUS): allocated processors -1 (the simulator uses the requested ones); an
  inferred machine size is the peak of the requested processors of the jobs running at once.
- ReqCPUS (counting CPUs), ReqNodes (counting nodes): requested processors -1 (the simulator uses
  the allocated ones).
- AllocNodes. NNodes stands in for it, but sacct shows a job that was never allocated any node
  its requested nodes there (AllocNodes 0), as it does its requested CPUs in AllocCPUS (Slurm
  22.05): with NNodes or no node count, a job never started when its Start is unknown, its
  AllocCPUS is 0 or its Start equals its End (what Slurm gives a job cancelled while pending; a
  job that ran less than a second is taken for one). Without node counts, MaxNodes is not written.
- ReqMem: requested memory -1. Partition: one partition, and --partition or PART= values are
  refused. User (else UID), Group (else GID): -1; from UID or GID, ties in the numbering go by the
  number's text. Account: the Slurm mode cannot simulate fair share. Cluster: the Computer line
  is the dump's file name. JobID: no counts of array tasks and heterogeneous components.
- Elapsed (else ElapsedRaw, seconds): checked against End - Start of each job that ran. Slurm's
  Elapsed is End - Start less the time the job was suspended: more is a bad line
  (`elapsed_mismatch`, naming both), less is counted (`suspended`, written only when some are)
  and the run time stays End - Start. With Suspended in the dump too, Elapsed + Suspended must
  equal End - Start. Times are whole seconds: no rounding is allowed for. In the hour a return
  from daylight saving time repeats, a local time is read as the earlier instant (below), which a
  job ending in it shows as a mismatch: dump in UTC (`TZ=UTC sacct ...`) where the zone has one.

The rules (each one's count is in the SWF header and printed by the command)
--------------------------------------------------------------------------
- Jobs. One SWF job per Slurm job id (JobIDRaw): each task of a job array (`123_4`) and each
  component of a heterogeneous job (`123+1`) is a job of its own. Job step lines (JobIDRaw with a
  `.`: `123.batch`, `123.0`, `123.extern`, present when the dump was made without `--allocations`)
  are skipped (`job_steps`); so are blank lines (`blank_lines`). SWF ids are 1..N in the order of
  (Submit, JobIDRaw): the Slurm ids are not written into the SWF, the k-th job is the k-th in that
  order, and SacctImport.slurm_job_ids lists them in SWF order. A Slurm id twice in the dump is a
  bad line (`duplicate_job`; `sacct --duplicates` dumps list a requeued job's earlier runs, which
  end as REQUEUED and are excluded below).
- States (field 11). COMPLETED: 1. FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE,
  and PREEMPTED (ended by the system, not by its owner): 0. CANCELLED (`CANCELLED by 1234`): 5.
  A job that has not ended at dump time (PENDING, RUNNING, SUSPENDED, REQUEUED: the last record of
  a requeued job that waits again, RESIZING and the other transient states of NOT_ENDED) is
  excluded and counted (`not_ended`, and `not_ended_<STATE>` per state present). Any other state is a bad
  line.
- Never-started jobs. A job whose Start is unknown (`Unknown`, `None`, empty) or that had no CPU
  or no node allocated (AllocCPUS or AllocNodes 0: Slurm gives a job cancelled while pending
  Start = End = the cancel time, and Slurm 22.05 its requested CPUs as AllocCPUS, but no node;
  without AllocNodes, Start = End says it: the fields above) never ran: its wait, run time and
  allocated processors are -1, which the simulator's filter drops (`bad_run_time`) and counts
  (`never_started`, `cancelled_before_start`). Any other job ran: wait = Start - Submit, run time
  = End - Start (`cancelled_after_start` for CANCELLED).
- Time limits (field 9) in every Slurm form: `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM`,
  `D-HH:MM:SS` (sacct prints `[D-]HH:MM:SS`). `UNLIMITED` and `Partition_Limit` become the
  --partition-limit of the job's partition when one is given (`time_limit_from_option`), else -1
  (`unlimited_time_limit`, `partition_time_limit`), as does an empty limit (`no_time_limit`):
  the simulator's filter drops jobs without a requested time (`no_requested_time`).
- Timestamps: ISO `YYYY-MM-DDTHH:MM:SS` in the dump host's local time (--timezone, default UTC; in
  the hour that a return from daylight saving time repeats, the earlier instant), or `Unknown`,
  `None`, empty. Submit must be known (`unknown_submit`); a job that ran needs a known End
  (`unknown_end`). Start before Submit or End before Start is an impossible time
  (`impossible_time`).
- Memory (field 10, KB per processor) from ReqMem: a number with an optional unit K, M, G, T, P
  (powers of 1024; no unit: MB, as Slurm). Slurm before 21.08 suffixes `c` (per CPU, `4000Mc`) or
  `n` (per node, `4Gn`); Slurm 21.08 and later print the job's total (its TRES memory) without a
  suffix. The job's total (per CPU x CPUs, per node x nodes, or the total; the allocated CPUs and
  nodes of a job that ran, the requested ones of one that did not) is divided by its processors
  (field 5 of a job that ran, else field 8). `0` or empty: -1 (`no_memory_request`). Used memory
  (field 7) and CPU time (field 6) are not in allocation lines: -1.
- Processors: CPUs by default (--count cpus: AllocCPUS field 5, ReqCPUS field 8), or whole nodes
  (--count nodes --cores-per-node N: AllocNodes x N, ReqNodes x N). sacct prints node counts over
  1024 with a unit (`1.50K`), which is read.
- Partitions (field 16): numbered 1.. in the order of their names, listed in the header
  (`; Partitions: 1 batch, 2 gpu`). A job that never ran and was submitted to several (`a,b`)
  counts in the first. --partition (repeatable) keeps those partitions' jobs (`other_partitions`).
  MaxProcs is --machine-size (a number, or PART=N per chosen partition, summed), else inferred:
  the peak number of processors allocated at the same time in the chosen partitions. MaxNodes is
  always inferred the same way from AllocNodes (or NNodes; not written without either). The header
  says which.
- Users and groups (fields 12, 13): numbered 1.. in the order of their first submission, ties by
  name. Queue, executable, preceding job and think time: -1.
- Header: Version 2.2, Computer (the Cluster names, else the dump's file name), Conversion (the
  dump's file name and sha256, the options), MaxJobs, MaxRecords, UnixStartTime (the first
  submission, epoch s; submit times count from it), TimeZoneString, StartTime, EndTime, MaxNodes,
  MaxProcs, MaxPartitions, Partitions, the Slurm mode's requests that no field holds
  (SLURM_REQUESTS: SlurmReqNodes, SlurmExclusive, SlurmTimeout, SlurmMemPerNode, by SWF job number;
  each only when some job has it), a Note per rule, a `Note: field F:` line per field read
  from another of its names or absent (field_notes), and a `SacctCount.<rule>` line per count.
  No date of the conversion: the same dump and options give the same bytes. `.gz` output is gzip
  with mtime 0.
- Bad lines: a line with fewer (`truncated_line`) or more (`extra_fields`) fields than the header,
  a last line without a newline (`unterminated_line`), an unknown state, an impossible time, an
  Elapsed that End - Start contradicts, an unreadable number, time, duration, time limit or memory
  size is one SacctFormatError line `FILE, line N: field F: what is wrong (got 'value')` (the
  field's name as the header has it; `FILE, line N: no newline at the end of the file: ...` for a
  dump cut short), and nothing is written; with skip_bad_lines
  (--skip-bad-lines) such lines are skipped and counted per reason (`skipped_<reason>`).

The split: parse_sacct (the dump to columns and counts, no SWF), swf_fields (the SWF table and
header), write_swf (the file, atomically); import_sacct chains them.
"""

from __future__ import annotations

import difflib
import gzip
import re
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from simcore.workloads.files import atomic_write, file_sha256

# The fields of the dump the README shows (SACCT_COMMAND), in its order.
DUMP_FIELDS = (
    "Cluster",
    "JobID",
    "JobIDRaw",
    "User",
    "Group",
    "Partition",
    "State",
    "Submit",
    "Start",
    "End",
    "Timelimit",
    "AllocCPUS",
    "ReqCPUS",
    "AllocNodes",
    "ReqNodes",
    "ReqMem",
    "Account",
    "NodeList",
)
SACCT_COMMAND = (
    "SLURM_TIME_FORMAT=standard sacct --allusers --allocations --parsable2 --starttime 1970-01-01 --endtime now "
    "--format=" + ",".join(DUMP_FIELDS)
)
# Each field the importer reads, and the names of sacct's field table (src/sacct/sacct.c) it is read
# from: the first one in the header (names compared in any case, as sacct's --format does).
FIELD_NAMES = {
    "JobIDRaw": ("JobIDRaw", "JobID"),  # JobID only for plain jobs (not array tasks, het components)
    "State": ("State",),
    "Submit": ("Submit", "Eligible"),  # Eligible only when the dump has no Submit
    "Start": ("Start",),
    "End": ("End",),
    "Timelimit": ("Timelimit", "TimelimitRaw"),  # TimelimitRaw: minutes
    "AllocCPUS": ("AllocCPUS", "NCPUS"),  # the same field in sacct
    "ReqCPUS": ("ReqCPUS",),
    "AllocNodes": ("AllocNodes", "NNodes"),  # NNodes: the request of a job that never started
    "ReqNodes": ("ReqNodes",),
    "ReqMem": ("ReqMem",),
    "Partition": ("Partition",),
    "User": ("User", "UID"),
    "Group": ("Group", "GID"),
    "Account": ("Account",),  # the Slurm mode's fair share: jobs are charged to (account, user)
    "NodeList": ("NodeList",),  # the Slurm mode's one-step replay starts each job on its own nodes
    "Elapsed": ("Elapsed", "ElapsedRaw"),  # checked against End - Start
    "Suspended": ("Suspended",),  # checked with Elapsed
    "Cluster": ("Cluster",),
    "JobID": ("JobID",),
}
# The fields the conversion cannot do without, and the processor counts of each --count (one of them).
REQUIRED_FIELDS = ("JobIDRaw", "State", "Submit", "Start", "End", "Timelimit")
COUNT_FIELDS = {"cpus": ("AllocCPUS", "ReqCPUS"), "nodes": ("AllocNodes", "ReqNodes")}

# SWF status (field 11) of each state of a job that has ended.
STATUS = {
    "COMPLETED": 1,
    "FAILED": 0,
    "TIMEOUT": 0,
    "NODE_FAIL": 0,
    "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0,
    "DEADLINE": 0,
    "PREEMPTED": 0,  # ended by the system, not by its owner
    "CANCELLED": 5,
}
# States of a job that had not ended when the dump was made (Slurm's job_state_string).
NOT_ENDED = (
    "PENDING",
    "RUNNING",
    "SUSPENDED",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "SPECIAL_EXIT",
    "RESIZING",
    "COMPLETING",
    "CONFIGURING",
    "STAGE_OUT",
    "SIGNALING",
    "STOPPED",
    "RESV_DEL_HOLD",
    "REVOKED",
)
COUNT_MODES = ("cpus", "nodes")
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"
UNKNOWN_TIMES = ("Unknown", "None", "")
UNIT_POWERS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}  # of 1024
_TIME_LIMIT = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)([cn]?)$")
_COUNT = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)$")
_MINUTES = re.compile(r"^\d+$")  # TimelimitRaw
_DURATION = r"^(?:(?P<days>\d+)-)?(?P<hours>\d+):(?P<minutes>\d\d):(?P<seconds>\d\d)$"  # Elapsed, Suspended
# Time-limit kinds (SacctDump.time_limit_kind).
LIMITED, UNLIMITED, PARTITION_LIMIT, NO_LIMIT = 0, 1, 2, 3
# ReqMem kinds (SacctDump.memory_kind): the number is for the whole job, per CPU or per node.
PER_JOB, PER_CPU, PER_NODE = 0, 1, 2
SWF_FIELDS = 18
UNTERMINATED = "no newline at the end of the file: the dump is cut short (an interrupted copy?)"
# What SacctDump.checks counts (printed by the command, not written into the SWF).
CHECKS = {
    "elapsed_checked": "jobs that ran whose End - Start was checked against Elapsed",
    "never_started_start_is_end": "jobs taken as never started for Start = End (no AllocNodes field)",
}


class SacctFormatError(ValueError):
    """A sacct dump that cannot be converted; one line, `FILE, line N: field F: what (got 'value')`."""


@dataclass(frozen=True, eq=False)
class SacctDump:
    """The jobs of a sacct dump kept for the SWF, one numpy column each (in the dump's order), and
    the counts of the rules (module docstring). Times are epoch seconds, NaN when unknown."""

    source: str
    sha256: str
    timezone: str
    line: np.ndarray  # line of each job in the dump
    job_id: np.ndarray  # JobIDRaw, int64
    status: np.ndarray  # SWF status 1, 0, 5
    timed_out: np.ndarray  # bool: State TIMEOUT (Slurm killed it at a time-limit check)
    started: np.ndarray  # bool: the job ran
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    alloc_cpus: np.ndarray  # int64, and the three below
    req_cpus: np.ndarray
    alloc_nodes: np.ndarray
    req_nodes: np.ndarray
    time_limit: np.ndarray  # seconds, NaN unless LIMITED
    time_limit_kind: np.ndarray  # LIMITED, UNLIMITED, PARTITION_LIMIT, NO_LIMIT
    memory_mb: np.ndarray  # ReqMem in MB, NaN when not requested
    memory_kind: np.ndarray  # PER_JOB, PER_CPU, PER_NODE
    partition: np.ndarray  # index into partitions
    partitions: tuple  # names, sorted
    user: np.ndarray  # 1-based, in order of first submission
    users: tuple  # names, user k is users[k - 1]
    group: np.ndarray
    groups: tuple
    account: np.ndarray  # 1-based, in order of first submission; -1 without the field
    accounts: tuple
    node_list: np.ndarray  # 1-based: the job's NodeList is node_lists[k - 1]; -1 without the field
    node_lists: tuple
    clusters: tuple  # names in the Cluster field, if any
    counts: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)  # FIELD_NAMES key -> the header name read, None if absent
    checks: dict = field(default_factory=dict)  # what the cross-checks found (not in the SWF header)


@dataclass(frozen=True, eq=False)
class SacctImport:
    """What import_sacct wrote: the SWF file, its header, the counts of the rules, and the Slurm
    job id of each SWF job (SWF job k is slurm_job_ids[k - 1])."""

    output: Path
    jobs: int
    header: dict
    counts: dict
    slurm_job_ids: np.ndarray
    machine_size: int
    notes: dict = field(default_factory=dict)  # field_notes(): field -> what its name or absence implies
    checks: dict = field(default_factory=dict)  # SacctDump.checks


def import_sacct(
    path,
    output,
    *,
    timezone: str = "UTC",
    partitions=None,
    machine_size=None,
    count: str = "cpus",
    cores_per_node: int | None = None,
    skip_bad_lines: bool = False,
    partition_limit=None,
) -> SacctImport:
    """Convert the sacct dump `path` into the SWF log `output` (`.gz`: gzip); the rules are the
    module docstring's. `machine_size`: processors, an int or {partition: processors}
    (default: inferred); `partition_limit`: the time limit in seconds of UNLIMITED and
    Partition_Limit jobs, a number or {partition: seconds}."""
    check_count(count, cores_per_node)
    dump = parse_sacct(path, timezone=timezone, partitions=partitions, skip_bad_lines=skip_bad_lines, count=count)
    fields, header_lines, header, counts, size = swf_fields(
        dump, count=count, cores_per_node=cores_per_node, machine_size=machine_size, partition_limit=partition_limit
    )
    write_swf(fields, header_lines, output)
    order = swf_order(dump)
    notes = field_notes(dump, count)
    return SacctImport(Path(output), len(fields), header, counts, dump.job_id[order], size, notes, dict(dump.checks))


def check_count(count: str, cores_per_node: int | None) -> None:
    if count not in COUNT_MODES:
        raise ValueError(f"unknown processor count {count!r}; choose one of {', '.join(COUNT_MODES)}")
    if count == "nodes" and not (cores_per_node and cores_per_node > 0):
        raise ValueError("counting processors in nodes needs the cores per node (cores_per_node= / --cores-per-node)")
    if count == "cpus" and cores_per_node is not None:
        raise ValueError("cores per node are used only when counting nodes (count='nodes' / --count nodes)")


# --- the dump to columns ------------------------------------------------------------------------------------


def _header_names(path, source: str) -> list[str]:
    with _open_text(path) as stream:
        first = stream.readline()
    text = first.decode(errors="replace").rstrip("\r\n")
    if not first:
        raise SacctFormatError(f"{source}: empty file, not a sacct dump")
    names = text.split("|")
    if not first.endswith((b"\n", b"\r")):
        raise SacctFormatError(f"{source}, line 1: {UNTERMINATED} (got {whole_names(names)})")
    return names


def whole_names(names, budget: int = 240) -> str:
    """`A|B|C|... (+N more)`: header names joined by `|`, elided by whole names past `budget` characters."""
    shown, length = [], 0
    for number, name in enumerate(names):
        if shown and length + len(name) + 1 > budget and number < len(names) - 1:
            return "|".join(shown) + f"|... (+{len(names) - number} more)"
        shown.append(name)
        length += len(name) + 1
    return "|".join(shown)


def _one_of(names) -> str:
    """ "A", "A or B", "A, B or C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _nearest(wanted, names: list[str]) -> str:
    """The header names most like any of `wanted` (difflib, case-insensitive), or `none`."""
    by_lower = {}
    for name in names:
        by_lower.setdefault(name.lower(), name)
    found = [match for name in wanted for match in difflib.get_close_matches(name.lower(), by_lower, n=3, cutoff=0.6)]
    return ", ".join(by_lower[match] for match in dict.fromkeys(found)) or "none"


def header_fields(names: list[str], source: str, count: str = "cpus") -> dict:
    """{FIELD_NAMES key: column index in the header, or None}; a SacctFormatError names what is
    missing, the header names nearest to it and the header (whole names)."""
    position = {}
    for number, name in enumerate(names):
        position.setdefault(name.strip().lower(), number)
    found = {
        key: next((position[name.lower()] for name in aliases if name.lower() in position), None)
        for key, aliases in FIELD_NAMES.items()
    }
    if all(number is None for number in found.values()):
        raise SacctFormatError(
            f"{source}, line 1: not the header line of a sacct --parsable2 dump (made with --noheader, or without "
            f"--parsable2?): no field the importer reads (got {whole_names(names)}); dump with: {SACCT_COMMAND}"
        )
    problems = [
        f"field {_one_of(FIELD_NAMES[key])}: missing (nearest in the header: {_nearest(FIELD_NAMES[key], names)})"
        for key in REQUIRED_FIELDS
        if found[key] is None
    ]
    counted = COUNT_FIELDS[count]
    if all(found[key] is None for key in counted):
        wanted = [name for key in counted for name in FIELD_NAMES[key]]
        why = (
            "a CPU count is needed (or --count nodes with AllocNodes, NNodes or ReqNodes)"
            if count == "cpus"
            else "--count nodes needs a node count"
        )
        problems.append(f"field {_one_of(wanted)}: missing: {why} (nearest in the header: {_nearest(wanted, names)})")
    if problems:
        raise SacctFormatError(
            f"{source}, line 1: {'; '.join(problems)}; the header's {len(names)} fields: {whole_names(names)}; "
            f"dump with: {SACCT_COMMAND}"
        )
    return found


def _open_text(path):
    """The dump's bytes, gunzipped if it is a gzip file (by its first bytes, not its name)."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


class _Tail:
    """A binary stream that keeps the last bytes read (the end of the dump, gunzipped or not)."""

    KEEP = 65536

    def __init__(self, stream):
        self.stream, self.tail = stream, b""

    def read(self, size=-1):
        data = self.stream.read(size)
        if data:
            self.tail = (self.tail + data)[-self.KEEP :] if len(data) < self.KEEP else data[-self.KEEP :]
        return data

    @property
    def closed(self):
        return self.stream.closed

    def readable(self):
        return True

    def seekable(self):
        return False

    def close(self):
        self.stream.close()


def _read_table(path, names: list[str], wanted: list[int]):
    """The columns at the header positions `wanted`, as strings named `c<position>`; the lines with
    the wrong number of fields as (line number, fields, text), lines numbered from 1, the header's;
    and the last bytes of the dump."""
    invalid = []

    def invalid_row(row):
        invalid.append((row.number, row.actual_columns, row.text))
        return "skip"

    with _open_text(path) as stream:
        tail = _Tail(stream)
        table = pa_csv.read_csv(
            tail,
            # one thread: pyarrow numbers the invalid lines only then (and 1M lines take ~1 s)
            read_options=pa_csv.ReadOptions(
                use_threads=False, column_names=[f"c{number}" for number in range(len(names))], skip_rows=1
            ),
            parse_options=pa_csv.ParseOptions(
                delimiter="|",
                quote_char=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=False,  # a blank line keeps its row, so rows map to lines
                invalid_row_handler=invalid_row,
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={f"c{number}": pa.string() for number in wanted},
                include_columns=[f"c{number}" for number in wanted],
                strings_can_be_null=False,
            ),
        )
    return table, invalid, tail.tail


def _row_lines(rows: int, invalid_lines) -> np.ndarray:
    """The line of each row: rows follow the header (line 1), skipping the lines read as invalid."""
    taken = np.zeros(rows + len(invalid_lines) + 2, dtype=bool)
    taken[:2] = True
    taken[np.asarray(invalid_lines, dtype=np.int64)] = True
    return np.flatnonzero(~taken)[:rows]


class _Rows:
    """The rows still kept, and the bad-line rule: raise on the first bad row, or skip and count.
    `columns`: {field: the dump's column}; `shown`: {field: its name in the dump's header}."""

    def __init__(self, source: str, columns: dict, shown: dict, lines: np.ndarray, skip_bad_lines: bool, counts):
        self.source, self.columns, self.shown, self.lines, self.skip = source, columns, shown, lines, skip_bad_lines
        self.keep = np.ones(len(lines), dtype=bool)
        self.counts = counts

    def exclude(self, rule: str, mask: np.ndarray) -> None:
        """Drop the kept rows of `mask` under `rule` (not an error)."""
        dropped = mask & self.keep
        self.counts[rule] = self.counts.get(rule, 0) + int(dropped.sum())
        self.keep &= ~dropped

    def reject(self, reason: str, column: str, bad: np.ndarray, what) -> None:
        """Bad kept rows of `bad`: an error naming the first one's line, or skipped under `reason`.
        `what` is the message, or a function of the row giving it."""
        bad = bad & self.keep
        if not bad.any():
            return
        if not self.skip:
            row = int(np.argmax(bad))
            message = what(row) if callable(what) else what
            value = self.columns[column][row].as_py()
            raise SacctFormatError(
                f"{self.source}, line {self.lines[row]}: field {self.shown[column]}: {message} (got {value!r})"
            )
        self.counts[f"skipped_{reason}"] = self.counts.get(f"skipped_{reason}", 0) + int(bad.sum())
        self.keep &= ~bad

    def value(self, column: str, row: int) -> str:
        """`Name value` of a field of a row, for messages."""
        return f"{self.shown[column]} {self.columns[column][row].as_py()}"


def _decode(column: pa.ChunkedArray, parse, width: int = 1):
    """parse(text) of each value, computed once per distinct value (the dump repeats few):
    (values (rows, width), bad mask); parse returns a tuple of `width` numbers, or None for a bad
    value."""
    encoded = column.combine_chunks().dictionary_encode()
    parsed = [parse(text) for text in encoded.dictionary.to_pylist()]
    table = np.array([value if value is not None else (np.nan,) * width for value in parsed], dtype=np.float64)
    table = table.reshape(len(parsed), width)  # (0, width) for a dump without job lines
    bad = np.array([value is None for value in parsed], dtype=bool)
    indices = encoded.indices.to_numpy()
    return table[indices], bad[indices]


def parse_time_limit(text: str):
    """(seconds, kind) of a Slurm time limit; None if unreadable."""
    if text in ("UNLIMITED", "INFINITE"):
        return (np.nan, UNLIMITED)
    if text == "Partition_Limit":
        return (np.nan, PARTITION_LIMIT)
    if text == "":
        return (np.nan, NO_LIMIT)
    match = _TIME_LIMIT.match(text)
    if not match:
        return None
    days, first, second, third = match.groups()
    if days is not None:  # D-HH, D-HH:MM, D-HH:MM:SS
        hours, minutes, seconds = int(first), int(second or 0), int(third or 0)
        return (int(days) * 86400 + hours * 3600 + minutes * 60 + seconds, LIMITED)
    if third is not None:  # HH:MM:SS
        return (int(first) * 3600 + int(second) * 60 + int(third), LIMITED)
    if second is not None:  # MM:SS
        return (int(first) * 60 + int(second), LIMITED)
    return (int(first) * 60, LIMITED)  # minutes


def parse_time_limit_seconds(text: str) -> float:
    """Seconds of a Slurm time limit (an option's value); ValueError unless it is a finite limit."""
    parsed = parse_time_limit(text.strip())
    if parsed is None or parsed[1] != LIMITED or parsed[0] <= 0:
        raise ValueError(f"{text!r}: a time limit such as 90 (minutes), 1:30:00 or 2-00:00:00")
    return float(parsed[0])


def parse_memory(text: str):
    """(MB, kind) of a ReqMem value, MB NaN when none was requested (empty or 0); None if unreadable."""
    if text == "":
        return (np.nan, PER_JOB)
    match = _MEMORY.match(text)
    if not match:
        return None
    number, unit, suffix = match.groups()
    if float(number) == 0:
        return (np.nan, PER_JOB)
    kind = {"": PER_JOB, "c": PER_CPU, "n": PER_NODE}[suffix]
    return (float(number) * 1024.0 ** (UNIT_POWERS[unit or "M"] - 2), kind)  # no unit: MB


def parse_count(text: str):
    """(count,) of a CPU or node count (sacct prints `1.50K` for 1,536 nodes); None if unreadable."""
    match = _COUNT.match(text)
    if not match:
        return None
    return (np.floor(float(match.group(1)) * 1024.0 ** UNIT_POWERS[match.group(2)] + 0.5),)


def _timestamps(column: pa.ChunkedArray, timezone: str):
    """(epoch seconds, NaN unless known; bad mask) of a timestamp column in `timezone`."""
    parsed = pc.strptime(column, format=TIMESTAMP_FORMAT, unit="s", error_is_null=True)
    if timezone != "UTC":
        parsed = pc.assume_timezone(parsed, timezone=timezone, ambiguous="earliest", nonexistent="latest")
    seconds = parsed.cast(pa.int64()).to_numpy(zero_copy_only=False)
    known = pc.is_valid(parsed).to_numpy(zero_copy_only=False)
    unknown = pc.is_in(column, value_set=pa.array(UNKNOWN_TIMES)).to_numpy(zero_copy_only=False)
    values = np.where(known, seconds.astype(np.float64) if len(seconds) else seconds, np.nan)
    return values.astype(np.float64), ~known & ~unknown


def check_timezone(timezone: str) -> str:
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {timezone!r} (an IANA name such as UTC or Europe/Paris)") from None
    return timezone


def _names_in_order(codes: np.ndarray, names: list, submit: np.ndarray):
    """1-based numbers of `names` (indexed by `codes`) in order of first submission, ties by name;
    and the names of numbers 1.."""
    first = np.full(len(names), np.inf)
    np.minimum.at(first, codes, submit)
    present = np.unique(codes)
    order = sorted(present.tolist(), key=lambda code: (first[code], names[code]))
    number = np.zeros(len(names), dtype=np.int64)
    number[order] = np.arange(1, len(order) + 1)
    return number[codes], tuple(names[code] for code in order)


def parse_time_limit_raw(text: str):
    """(seconds, kind) of a TimelimitRaw value (minutes, UNLIMITED, Partition_Limit or empty); None
    if unreadable."""
    if _MINUTES.match(text):
        return (int(text) * 60, LIMITED)
    return parse_time_limit(text) if text in ("UNLIMITED", "INFINITE", "Partition_Limit", "") else None


def _durations(column: pa.ChunkedArray, raw: bool):
    """(seconds, NaN when empty or INVALID; bad mask) of a duration column: sacct's [D-]HH:MM:SS
    (Elapsed, Suspended), or a number of seconds (`raw`: ElapsedRaw)."""
    unset = pc.is_in(column, value_set=pa.array(["", "INVALID"])).to_numpy(zero_copy_only=False)
    if raw:
        readable = pc.match_substring_regex(column, r"^\d+$")
        seconds = pc.cast(pc.if_else(readable, column, "0"), pa.int64()).to_numpy(zero_copy_only=False)
    else:
        parts = pc.extract_regex(column, _DURATION)
        readable = pc.is_valid(parts)
        seconds = 0
        for name, unit in (("days", 86400), ("hours", 3600), ("minutes", 60), ("seconds", 1)):
            text = pc.struct_field(parts, name)
            text = pc.fill_null(pc.if_else(pc.equal(text, ""), "0", text), "0")
            seconds = seconds + pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False) * unit
    readable = readable.to_numpy(zero_copy_only=False) if len(column) else np.zeros(0, dtype=bool)
    values = np.where(readable & ~unset, np.asarray(seconds, dtype=np.float64), np.nan)
    return values, ~readable & ~unset


def parse_sacct(
    path, *, timezone: str = "UTC", partitions=None, skip_bad_lines: bool = False, count: str = "cpus"
) -> SacctDump:
    """The jobs of a sacct dump to convert, as columns, with the counts of the rules (module
    docstring). Raises SacctFormatError naming the file, line and field of a bad line unless
    `skip_bad_lines`; `count` (cpus, nodes) says which processor counts the dump must have."""
    source = str(path)
    check_timezone(timezone)
    if count not in COUNT_MODES:
        raise ValueError(f"unknown processor count {count!r}; choose one of {', '.join(COUNT_MODES)}")
    names = _header_names(path, source)
    found = header_fields(names, source, count)
    shown = {key: names[number] for key, number in found.items() if number is not None}
    if partitions and "Partition" not in shown:
        raise ValueError(f"{source}: no Partition field in the dump, so no partition {', '.join(partitions)} to keep")
    table, invalid, tail = _read_table(path, names, sorted({number for number in found.values() if number is not None}))
    columns = {key: table.column(f"c{number}") for key, number in found.items() if number is not None}
    counts = {"lines": table.num_rows + len(invalid)}
    unterminated = not tail.endswith((b"\n", b"\r"))
    drop_last_row = False
    if unterminated:  # the dump is cut short: its last line is bad
        last_line = counts["lines"] + 1
        if not skip_bad_lines:
            text = tail.rsplit(b"\n", 1)[-1].decode(errors="replace")
            raise SacctFormatError(f"{source}, line {last_line}: {UNTERMINATED} (got {text[:200]!r})")
        drop_last_row = not any(line == last_line for line, _, _ in invalid)
        invalid = [item for item in invalid if item[0] != last_line]
    if invalid:
        if not skip_bad_lines:
            line, fields, text = min(invalid)
            column = names[fields] if fields < len(names) else names[-1]
            what = (
                f"truncated line: {fields} of the header's {len(names)} fields"
                if fields < len(names)
                else f"{fields} fields where the header has {len(names)} (a '|' inside a value?)"
            )
            raise SacctFormatError(f"{source}, line {line}: field {column}: {what} (got {text[:200]!r})")
        short = sum(fields < len(names) for _, fields, _ in invalid)
        counts["skipped_truncated_line"] = short
        counts["skipped_extra_fields"] = len(invalid) - short
    if unterminated:
        counts["skipped_unterminated_line"] = 1
    lines = _row_lines(table.num_rows, [line for line, _, _ in invalid])
    rows = _Rows(source, columns, shown, lines, skip_bad_lines, counts)
    if drop_last_row and len(rows.keep):
        rows.keep[-1] = False

    job_id_text = columns["JobIDRaw"]
    state_text = columns["State"]
    rows.exclude(
        "blank_lines",
        pc.and_(pc.equal(job_id_text, ""), pc.equal(state_text, "")).to_numpy(zero_copy_only=False),
    )
    rows.exclude("job_steps", pc.match_substring(job_id_text, ".").to_numpy(zero_copy_only=False))

    # "CANCELLED by 1234" is CANCELLED
    state_codes = {name: code for code, name in enumerate((*STATUS, *NOT_ENDED))}
    states, bad_state = _decode(state_text, lambda text: _state_code(text, state_codes))
    rows.reject("unknown_state", "State", bad_state, "unknown job state")
    state = np.nan_to_num(states[:, 0], nan=-1).astype(np.int64)
    not_ended = state >= len(STATUS)
    counts["not_ended"] = int((not_ended & rows.keep).sum())
    for code, name in enumerate(NOT_ENDED, start=len(STATUS)):
        if (state[rows.keep] == code).any():  # the states present only
            counts[f"not_ended_{name}"] = int((state[rows.keep] == code).sum())
    rows.keep &= ~not_ended

    if "Partition" in columns:
        partition_encoded = columns["Partition"].combine_chunks().dictionary_encode()
        partition_names = [text.split(",")[0] for text in partition_encoded.dictionary.to_pylist()]
        partition_codes = partition_encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    else:  # one partition
        partition_names, partition_codes = [""], np.zeros(len(rows.keep), dtype=np.int64)
    if partitions:
        chosen = set(partitions)
        kept_names = {partition_names[code] for code in np.unique(partition_codes[rows.keep])}
        absent = sorted(chosen - kept_names)
        if absent:
            raise ValueError(
                f"{source}: no ended job in partition {', '.join(absent)} "
                f"(partitions of the dump: {', '.join(sorted(kept_names)) or 'none'})"
            )
        in_chosen = np.array([name in chosen for name in partition_names], dtype=bool)
        rows.exclude("other_partitions", ~in_chosen[partition_codes])

    if found["JobIDRaw"] == found["JobID"]:  # JobID standing in: the job id of a plain job only
        rows.reject(
            "no_raw_job_id",
            "JobIDRaw",
            pc.match_substring_regex(job_id_text, r"^\d+[_+]").to_numpy(zero_copy_only=False),
            "an array task or heterogeneous job component, whose job id only JobIDRaw gives (dump JobIDRaw)",
        )
    rows.reject(
        "bad_job_id",
        "JobIDRaw",
        ~pc.match_substring_regex(job_id_text, r"^\d+$").to_numpy(zero_copy_only=False),
        "not a job id",
    )
    times = {}
    for name in ("Submit", "Start", "End"):
        times[name], bad = _timestamps(columns[name], timezone)
        rows.reject("bad_time", name, bad, f"not a time {TIMESTAMP_FORMAT.replace('%', '')}, Unknown or None")
    unknown_submit = "unknown submit time" if shown["Submit"].lower() == "submit" else "unknown eligible time"
    rows.reject("unknown_submit", "Submit", np.isnan(times["Submit"]), unknown_submit)
    numbers = {}
    for name in ("AllocCPUS", "ReqCPUS", "AllocNodes", "ReqNodes"):
        if name not in columns:
            numbers[name] = np.zeros(len(rows.keep), dtype=np.int64)
            continue
        values, bad = _decode(columns[name], parse_count)
        rows.reject("bad_number", name, bad, "not a count")
        numbers[name] = np.nan_to_num(values[:, 0], nan=0).astype(np.int64)
    if shown["Timelimit"].lower() == "timelimitraw":
        limits, bad = _decode(columns["Timelimit"], parse_time_limit_raw, 2)
        rows.reject("bad_time_limit", "Timelimit", bad, "not a time limit (minutes, UNLIMITED, Partition_Limit)")
    else:
        limits, bad = _decode(columns["Timelimit"], parse_time_limit, 2)
        rows.reject("bad_time_limit", "Timelimit", bad, "not a time limit ([D-]HH:MM:SS, MM:SS, MM, UNLIMITED)")
    if "ReqMem" in columns:
        memory, bad = _decode(columns["ReqMem"], parse_memory, 2)
        rows.reject("bad_memory", "ReqMem", bad, "not a memory size (a number, a unit K M G T P, a suffix c or n)")
    else:
        memory = np.column_stack([np.full(len(rows.keep), np.nan), np.full(len(rows.keep), PER_JOB)])

    submit, start, end = times["Submit"], times["Start"], times["End"]
    # Slurm gives a job cancelled while pending Start = End = the cancel time and, from 22.05 on,
    # AllocCPUS = its request: no node allocated is what says it never ran. NNodes, like AllocCPUS,
    # shows the request of a job that never ran: without AllocNodes, Start = End says it.
    started = ~np.isnan(start)
    if "AllocCPUS" in columns:
        started &= numbers["AllocCPUS"] > 0
    if shown.get("AllocNodes", "").lower() == "allocnodes":
        start_is_end = np.zeros(len(started), dtype=bool)
        started &= numbers["AllocNodes"] > 0
    else:
        start_is_end = started & (start == end)
        started &= ~start_is_end
    rows.reject("unknown_end", "End", started & np.isnan(end), "unknown end of a job that ran")
    with np.errstate(invalid="ignore"):
        rows.reject(
            "impossible_time",
            "Start",
            started & (start < submit),
            lambda row: (
                f"start before {'submit' if shown['Submit'].lower() == 'submit' else 'eligible'} "
                f"({rows.value('Submit', row)})"
            ),
        )
        rows.reject(
            "impossible_time",
            "End",
            started & (end < start),
            lambda row: f"end before start ({rows.value('Start', row)})",
        )
    suspended = _check_elapsed(rows, started, start, end)

    job_ids = np.full(len(rows.keep), -1, dtype=np.int64)
    job_ids[rows.keep] = pc.cast(pc.filter(job_id_text, pa.array(rows.keep)), pa.int64()).to_numpy(zero_copy_only=False)
    _reject_duplicates(rows, job_ids)

    keep = rows.keep
    status = np.array(list(STATUS.values()), dtype=np.int64)[state[keep]]
    timed_out = state[keep] == list(STATUS).index("TIMEOUT")
    started = started[keep]
    submit = submit[keep]
    cancelled = status == STATUS["CANCELLED"]
    counts["never_started"] = int((~started).sum())
    counts["cancelled_before_start"] = int((cancelled & ~started).sum())
    counts["cancelled_after_start"] = int((cancelled & started).sum())
    kinds = limits[keep, 1].astype(np.int64)
    for rule, kind in (("unlimited_time_limit", UNLIMITED), ("partition_time_limit", PARTITION_LIMIT)):
        counts[rule] = int((kinds == kind).sum())
    counts["no_time_limit"] = int((kinds == NO_LIMIT).sum())
    counts["no_memory_request"] = int(np.isnan(memory[keep, 0]).sum())
    if "JobID" in columns:
        job_id_shown = pc.filter(columns["JobID"], pa.array(keep))
        counts["array_tasks"] = int(pc.sum(pc.match_substring(job_id_shown, "_")).as_py() or 0)
        counts["het_components"] = int(pc.sum(pc.match_substring(job_id_shown, "+")).as_py() or 0)
    checks = {}
    if suspended is not None:
        checked, suspended = suspended
        if (suspended & keep).any():  # only then: a dump with Elapsed converts to the same SWF as one without
            counts["suspended"] = int((suspended & keep).sum())
        checks["elapsed_checked"] = int((checked & keep).sum())
    if shown.get("AllocNodes", "").lower() != "allocnodes":
        checks["never_started_start_is_end"] = int((start_is_end & keep).sum())

    used_partitions = sorted({partition_names[code] for code in np.unique(partition_codes[keep])})
    partition_number = np.array(
        [used_partitions.index(name) if name in used_partitions else -1 for name in partition_names]
    )
    user, users = _names_from(columns.get("User"), keep, submit)
    group, groups = _names_from(columns.get("Group"), keep, submit)
    account, accounts = _names_from(columns.get("Account"), keep, submit)
    node_list, node_lists = _names_from(columns.get("NodeList"), keep, submit)
    clusters = ()
    if "Cluster" in columns:
        clusters = tuple(sorted(set(pc.unique(pc.filter(columns["Cluster"], pa.array(keep))).to_pylist()) - {""}))
    return SacctDump(
        source=source,
        sha256=file_sha256(path),
        timezone=timezone,
        line=rows.lines[keep],
        job_id=job_ids[keep],
        status=status,
        timed_out=timed_out,
        started=started,
        submit=submit,
        start=np.where(started, start[keep], np.nan),
        end=np.where(started, end[keep], np.nan),
        alloc_cpus=numbers["AllocCPUS"][keep],
        req_cpus=numbers["ReqCPUS"][keep],
        alloc_nodes=numbers["AllocNodes"][keep],
        req_nodes=numbers["ReqNodes"][keep],
        time_limit=limits[keep, 0],
        time_limit_kind=kinds,
        memory_mb=memory[keep, 0],
        memory_kind=np.nan_to_num(memory[keep, 1]).astype(np.int64),
        partition=partition_number[partition_codes[keep]],
        partitions=tuple(used_partitions),
        user=user,
        users=users,
        group=group,
        groups=groups,
        account=account,
        accounts=accounts,
        node_list=node_list,
        node_lists=node_lists,
        clusters=clusters,
        counts=counts,
        fields={key: shown.get(key) for key in FIELD_NAMES},
        checks=checks,
    )


def _check_elapsed(rows: _Rows, started: np.ndarray, start: np.ndarray, end: np.ndarray):
    """Elapsed (sacct: End - Start less the time suspended) against End - Start of the jobs that ran:
    more is a bad line (`elapsed_mismatch`), less is time suspended, and with Suspended in the dump
    Elapsed + Suspended must be End - Start. None without Elapsed, else (checked, suspended) masks."""
    if "Elapsed" not in rows.columns:
        return None
    raw = rows.shown["Elapsed"].lower() == "elapsedraw"
    elapsed, bad = _durations(rows.columns["Elapsed"], raw)
    form = "a number of seconds" if raw else "[D-]HH:MM:SS"
    rows.reject("bad_elapsed", "Elapsed", bad, f"not a duration ({form})")
    run = end - start
    checked = started & ~np.isnan(elapsed) & ~np.isnan(run)

    def both(row: int) -> str:
        return f"End - Start, {int(run[row])} s ({rows.value('Start', row)}, {rows.value('End', row)})"

    if "Suspended" in rows.columns:
        suspended, bad = _durations(rows.columns["Suspended"], False)
        rows.reject("bad_elapsed", "Suspended", bad, "not a duration ([D-]HH:MM:SS)")
        suspended = np.nan_to_num(suspended)
        rows.reject(
            "elapsed_mismatch",
            "Elapsed",
            checked & (elapsed + suspended != run),
            lambda row: (
                f"{int(elapsed[row])} s, plus {rows.shown['Suspended']} {int(suspended[row])} s, is not {both(row)}"
            ),
        )
        return checked, checked & (suspended > 0)
    with np.errstate(invalid="ignore"):
        rows.reject(
            "elapsed_mismatch",
            "Elapsed",
            checked & (elapsed > run),
            lambda row: f"{int(elapsed[row])} s, more than {both(row)}",
        )
        return checked, checked & (elapsed < run)


def _state_code(text: str, codes: dict):
    name = "CANCELLED" if text.startswith("CANCELLED by ") else text
    return (codes[name],) if name in codes else None


def _names_from(column: pa.ChunkedArray | None, keep: np.ndarray, submit: np.ndarray):
    """The 1-based number of each kept job's name in `column` (User, Group), and the names; -1 and
    none without the column."""
    if column is None:
        return np.full(int(keep.sum()), -1, dtype=np.int64), ()
    encoded = pc.filter(column, pa.array(keep)).combine_chunks().dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return _names_in_order(codes, encoded.dictionary.to_pylist(), submit)


def _reject_duplicates(rows: _Rows, job_ids: np.ndarray) -> None:
    """A Slurm job id on two kept lines: the later line is bad."""
    kept = np.flatnonzero(rows.keep)
    order = kept[np.argsort(job_ids[kept], kind="stable")]
    repeated = np.flatnonzero(job_ids[order][1:] == job_ids[order][:-1])
    if len(repeated) == 0:
        return
    later = np.zeros(len(rows.keep), dtype=bool)
    later[order[repeated + 1]] = True
    first_line = {}
    for position in repeated:
        first_line.setdefault(int(order[position + 1]), rows.lines[order[position]])
    rows.reject(
        "duplicate_job",
        "JobIDRaw",
        later,
        lambda row: f"this job id is on line {first_line[row]} already",
    )


# --- the SWF table -------------------------------------------------------------------------------------------


def swf_order(dump: SacctDump) -> np.ndarray:
    """The dump's jobs in SWF order: by (Submit, JobIDRaw)."""
    return np.lexsort((dump.job_id, dump.submit))


def _peak(start: np.ndarray, end: np.ndarray, amount: np.ndarray) -> int:
    """The most of `amount` in use at once over the intervals [start, end) (an end before a start
    at the same second)."""
    if len(start) == 0:
        return 0
    times = np.concatenate([end, start])
    change = np.concatenate([-amount, amount])
    order = np.lexsort((change, times))
    return int(max(0, np.cumsum(change[order]).max()))


def _per_partition(option, partitions: tuple, what: str, named: bool = True) -> np.ndarray:
    """An option's value per partition (a number for all, or {partition: number}); NaN where unset.
    `named`: the dump has a Partition field."""
    if option is None:
        return np.full(len(partitions), np.nan)
    if isinstance(option, dict):
        if not named:
            raise ValueError(f"{what} per partition, but the dump has no Partition field: give one value for all")
        unknown = sorted(set(option) - set(partitions))
        if unknown:
            raise ValueError(
                f"{what} for partition {', '.join(unknown)}, which has no job to write "
                f"(partitions: {', '.join(partitions)})"
            )
        return np.array([option.get(name, np.nan) for name in partitions], dtype=np.float64)
    return np.full(len(partitions), float(option))


def swf_fields(
    dump: SacctDump,
    *,
    count: str = "cpus",
    cores_per_node: int | None = None,
    machine_size=None,
    partition_limit=None,
):
    """(fields (jobs, 18) int64 in SWF order, header lines, header {key: value}, counts, machine size)."""
    check_count(count, cores_per_node)
    allocated_known, requested_known = (_has(dump, name) for name in COUNT_FIELDS[count])
    if not (allocated_known or requested_known):
        wanted = [name for key in COUNT_FIELDS[count] for name in FIELD_NAMES[key]]
        raise ValueError(f"{dump.source}: counting {count} needs {_one_of(wanted)}, which the dump has not")
    jobs = len(dump.job_id)
    if jobs == 0:
        raise ValueError(f"{dump.source}: no ended job to write ({_describe(dump.counts) or 'no job line'})")
    order = swf_order(dump)
    counts = dict(dump.counts)
    started = dump.started[order]
    submit, start, end = dump.submit[order], dump.start[order], dump.end[order]
    alloc_cpus, req_cpus = dump.alloc_cpus[order], dump.req_cpus[order]
    alloc_nodes, req_nodes = dump.alloc_nodes[order], dump.req_nodes[order]
    partition = dump.partition[order]
    if count == "cpus":
        allocated, requested = alloc_cpus, req_cpus
    else:
        allocated, requested = alloc_nodes * cores_per_node, req_nodes * cores_per_node
    allocated = np.where(started & (allocated > 0), allocated, -1)
    requested = np.where(requested > 0, requested, -1)

    first = float(submit.min())
    fields = np.full((jobs, SWF_FIELDS), -1, dtype=np.int64)
    fields[:, 0] = np.arange(1, jobs + 1)
    fields[:, 1] = submit - first
    fields[:, 2] = np.where(started, start - submit, -1)
    fields[:, 3] = np.where(started, end - start, -1)
    fields[:, 4] = allocated
    fields[:, 7] = requested

    kind = dump.time_limit_kind[order]
    limit = dump.time_limit[order]
    named = _has(dump, "Partition")
    fallback = _per_partition(partition_limit, dump.partitions, "a time limit", named)[partition]
    open_ended = (kind == UNLIMITED) | (kind == PARTITION_LIMIT)
    substituted = open_ended & ~np.isnan(fallback)
    counts["time_limit_from_option"] = int(substituted.sum())
    limit = np.where(substituted, fallback, limit)
    fields[:, 8] = np.where(np.isnan(limit), -1, limit)

    memory, memory_kind = dump.memory_mb[order], dump.memory_kind[order]
    # a count the dump lacks: the other one stands in (ReqMem per CPU or per node, to a job's total)
    cpus = np.where(
        started,
        alloc_cpus if _has(dump, "AllocCPUS") else req_cpus,
        req_cpus if _has(dump, "ReqCPUS") else alloc_cpus,
    )
    nodes = np.where(
        started,
        alloc_nodes if _has(dump, "AllocNodes") else req_nodes,
        req_nodes if _has(dump, "ReqNodes") else alloc_nodes,
    )
    total_kb = memory * 1024.0 * np.select([memory_kind == PER_CPU, memory_kind == PER_NODE], [cpus, nodes], 1)
    processors = np.where(allocated > 0, allocated, requested)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_processor = np.floor(total_kb / processors + 0.5)
    fields[:, 9] = np.where(np.isfinite(per_processor) & (processors > 0) & (per_processor > 0), per_processor, -1)

    fields[:, 10] = dump.status[order]
    fields[:, 11] = dump.user[order]
    fields[:, 12] = dump.group[order]
    fields[:, 15] = partition + 1
    counts["jobs"] = jobs

    ran = started & (fields[:, 3] >= 0)
    sizes = _per_partition(machine_size, dump.partitions, "a machine size", named)
    if machine_size is None:
        if allocated_known:
            size = _peak(start[ran], end[ran], allocated[ran])
            size_note = "inferred: the peak number of processors allocated at the same time"
        else:
            size = _peak(start[ran], end[ran], np.maximum(requested, 0)[ran])
            size_note = "inferred: the peak number of processors requested by the jobs running at the same time"
        if size <= 0:
            raise ValueError(f"{dump.source}: no job ran, so the machine size cannot be inferred: give it")
    else:
        if np.isnan(sizes).any():
            unset = [name for name, size in zip(dump.partitions, sizes) if np.isnan(size)]
            raise ValueError(f"no machine size for partition {', '.join(unset)} (give PART=N for each, or one N)")
        size = int(sizes.sum()) if isinstance(machine_size, dict) else int(machine_size)
        if size <= 0:
            raise ValueError(f"machine size must be positive, got {size}")
        size_note = "given"
    max_nodes = None
    if _has(dump, "AllocNodes"):
        max_nodes = _peak(start[ran], end[ran], np.where(alloc_nodes > 0, alloc_nodes, 0)[ran])
    options = {"count": count, "cores_per_node": cores_per_node, "machine_size": machine_size}
    options["partition_limit"] = partition_limit
    last = float(np.nanmax(np.concatenate([submit, end])))
    machine = (max_nodes, size, size_note)
    requests = slurm_requests(dump, order)
    header_lines, header = _header(dump, counts, (first, last), options, machine, field_notes(dump, count), requests)
    return fields, header_lines, header, counts, size


# The Slurm mode's requests no SWF field holds (docs/slurm_accounting.md): header lines naming SWF
# job numbers, written only when some job has one
SLURM_REQUESTS = {
    "SlurmReqNodes": "JOB:N for each job that asked for N > 1 nodes (-N; sacct's ReqNodes)",
    "SlurmExclusive": "the jobs allocated more CPUs than they asked (--exclusive, or whole nodes)",
    "SlurmTimeout": "the jobs Slurm killed at their time limit (State TIMEOUT): they would have run on",
    "SlurmMemPerNode": "JOB:MB, the memory a job asked for on each node (a bare ReqMem over ReqNodes: Slurm "
    "22.05 prints --mem times the node count); a request per CPU is field 10's",
}


def slurm_memory(dump: SacctDump) -> tuple[np.ndarray, np.ndarray]:
    """Each job's memory request as the Slurm mode takes it: (MB, per CPU) where ReqMem says per
    CPU (`Mc`), else (MB per node, False): a per-node value (`Mn`) as it is, a bare one over ReqNodes
    (Slurm 22.05 prints --mem times the requested node count, 1 without -N; seen on the CI's twin
    clusters). 0 where the job asked for none."""
    asked = np.isfinite(dump.memory_mb) & (dump.memory_mb > 0)
    memory = np.where(asked, dump.memory_mb, 0)
    per_job = dump.memory_kind == PER_JOB
    memory = np.where(per_job, memory // np.maximum(dump.req_nodes, 1), memory)
    return memory.astype(np.int64), asked & (dump.memory_kind == PER_CPU)


def slurm_requests(dump: SacctDump, order: np.ndarray) -> list[tuple[str, str]]:
    """[(SLURM_REQUESTS key, value)] of the jobs in SWF order (numbered 1..N) that have one."""
    number = np.arange(1, len(order) + 1)
    req_nodes, req_cpus, alloc_cpus = dump.req_nodes[order], dump.req_cpus[order], dump.alloc_cpus[order]
    memory, per_cpu = (values[order] for values in slurm_memory(dump))
    per_node = (memory > 0) & ~per_cpu  # a request per CPU is SWF's own field 10
    values = {
        "SlurmReqNodes": [f"{k}:{n}" for k, n in zip(number[req_nodes > 1], req_nodes[req_nodes > 1])],
        "SlurmExclusive": [str(k) for k in number[dump.started[order] & (req_cpus > 0) & (alloc_cpus > req_cpus)]],
        "SlurmTimeout": [str(k) for k in number[dump.timed_out[order]]],
        "SlurmMemPerNode": [f"{k}:{mb}" for k, mb in zip(number[per_node], memory[per_node])],
    }
    return [(key, " ".join(listed)) for key, listed in values.items() if listed]


def _has(dump: SacctDump, key: str) -> bool:
    """The dump has field `key` under one of its names (FIELD_NAMES)."""
    return dump.fields.get(key, key) is not None


def field_notes(dump: SacctDump, count: str = "cpus") -> dict:
    """{field: what it means for the SWF} for each field of DUMP_FIELDS read from another of its
    names, or absent, and for Elapsed when it shows suspended jobs; written as header lines
    `; Note: field F: ...`. A dump with DUMP_FIELDS under their own names has none."""
    shown = {key: dump.fields.get(key, key) for key in FIELD_NAMES}
    notes = {}

    def other(key: str) -> bool:
        return shown[key] is not None and shown[key].lower() != key.lower()

    never = ["no Start"]
    if shown["AllocCPUS"] is not None:
        never.append(f"{shown['AllocCPUS']} 0")
    if shown["AllocNodes"] is not None and not other("AllocNodes"):
        never.append("AllocNodes 0")
    else:
        never.append(f"Start = End ({dump.checks.get('never_started_start_is_end', 0)} jobs)")
    never = (
        f"a job never started when it has {_one_of(never)} (Slurm 22.05 gives one cancelled while pending Start = End)"
    )
    if other("JobIDRaw"):
        notes["JobIDRaw"] = (
            "read from JobID, the job id of a plain job; an array task or heterogeneous job component, whose job "
            "id only JobIDRaw gives, is a bad line (no_raw_job_id)"
        )
    if other("Submit"):
        notes["Submit"] = (
            "read from Eligible (the dump has no Submit): a job's submit time (field 2) is the time it became "
            "eligible, so its wait (field 3) leaves out the time it was held or waited for a dependency or its "
            "begin time"
        )
    if other("Timelimit"):
        notes["Timelimit"] = "read from TimelimitRaw, in minutes"
    if other("AllocCPUS"):
        notes["AllocCPUS"] = "read from NCPUS, the same count in sacct"
    elif shown["AllocCPUS"] is None:
        notes["AllocCPUS"] = "not in the dump (nor NCPUS)" + (
            ": allocated processors (field 5) -1, which the simulator replaces with the requested ones; the "
            "machine size, unless given, is the peak number of CPUs requested by the jobs running at the same time"
            if count == "cpus"
            else ""
        )
    if shown["ReqCPUS"] is None and count == "cpus":
        notes["ReqCPUS"] = (
            "not in the dump: requested processors (field 8) -1, which the simulator replaces with the allocated ones"
        )
    if other("AllocNodes"):
        notes["AllocNodes"] = (
            f"read from NNodes, the nodes allocated to a job that ran, but those requested by one that did not: {never}"
        )
    elif shown["AllocNodes"] is None:
        notes["AllocNodes"] = (
            "not in the dump (nor NNodes): MaxNodes unknown; "
            + (
                "allocated processors (field 5) -1, which the simulator replaces with the requested ones, and the "
                "machine size, unless given, is the peak number of processors requested by the jobs running at once; "
                if count == "nodes"
                else ""
            )
            + never
        )
    if shown["ReqNodes"] is None and count == "nodes":
        notes["ReqNodes"] = (
            "not in the dump: requested processors (field 8) -1, which the simulator replaces with the allocated ones"
        )
    if shown["ReqMem"] is None:
        notes["ReqMem"] = "not in the dump: requested memory (field 10) -1"
    if shown["Partition"] is None:
        notes["Partition"] = "not in the dump: every job is in partition 1 (field 16)"
    for key, number, alias in (("User", 12, "UID"), ("Group", 13, "GID")):
        if other(key):
            notes[key] = f"read from {alias}: {key.lower()}s numbered in order of first submission, ties by {alias}"
        elif shown[key] is None:
            notes[key] = f"not in the dump (nor {alias}): {key.lower()} (field {number}) -1"
    if dump.counts.get("suspended"):
        suspended = dump.counts["suspended"]
        notes["Elapsed"] = (
            f"less than End - Start for {suspended} job{'s' if suspended != 1 else ''}, by the time suspended, which "
            "Elapsed leaves out and the run time (field 4), End - Start, includes"
        )
    return notes


def _local_time(epoch: float, timezone: str) -> str:
    return datetime.fromtimestamp(epoch, zoneinfo.ZoneInfo(timezone)).isoformat()


def _header(dump: SacctDump, counts: dict, span: tuple, options: dict, machine: tuple, field_notes: dict, requests):
    """The SWF header lines and {key: value}: `span` is the first submission and the last event,
    `machine` (MaxNodes or None, MaxProcs, how MaxProcs was found), `field_notes` field_notes(),
    `requests` slurm_requests()."""
    first, last = span
    max_nodes, size, size_note = machine
    given = ", ".join(f"{name}={value}" for name, value in options.items() if value is not None)
    chosen = ", ".join(f"{number} {name}" for number, name in enumerate(dump.partitions, start=1))
    if not _has(dump, "Partition"):
        chosen = "1 (the dump has no Partition field)"
    entries = [
        ("Version", "2.2"),
        ("Computer", ", ".join(dump.clusters) or Path(dump.source).name),
        ("Installation", "Slurm accounting (sacct)"),
        (
            "Conversion",
            f"simcore import-sacct from {Path(dump.source).name} (sha256 {dump.sha256}); "
            f"timezone={dump.timezone}, {given}",
        ),
        ("MaxJobs", str(counts["jobs"])),
        ("MaxRecords", str(counts["jobs"])),
        ("UnixStartTime", str(int(first))),
        ("TimeZoneString", dump.timezone),
        ("StartTime", _local_time(first, dump.timezone)),
        ("EndTime", _local_time(last, dump.timezone)),
        ("MaxNodes", f"{max_nodes} (inferred: the peak number of nodes allocated at the same time)"),
        ("MaxProcs", f"{size} ({size_note})"),
        ("MaxPartitions", str(len(dump.partitions))),
        ("Partitions", chosen),
        *requests,
    ]
    if max_nodes is None:  # no node counts
        entries = [(key, value) for key, value in entries if key != "MaxNodes"]
    notes = [
        "one job per Slurm job id (JobIDRaw): each array task and each heterogeneous job component is a job of "
        "its own; job steps skipped; job ids renumbered 1..N in order of (Submit, JobIDRaw)",
        "status 1 COMPLETED; 0 FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED; "
        "5 CANCELLED; jobs not ended at dump time (PENDING, RUNNING, SUSPENDED, REQUEUED, ...) excluded",
        "a job that never ran (no Start, or no CPU or node allocated) has wait, run time and allocated processors -1: "
        "the simulator's filter drops it (bad_run_time)",
        "UNLIMITED or Partition_Limit time limits without a partition limit given are -1: the simulator's "
        "filter drops them (no_requested_time)",
        f"processors counted in {'CPUs' if options['count'] == 'cpus' else 'nodes x cores per node'}; requested "
        "memory in KB per processor (from ReqMem); used memory and CPU time unknown (-1)",
        "users and groups numbered in order of first submission, ties by name",
        *(f"{key} (an extension for the Slurm mode): {SLURM_REQUESTS[key]}" for key, _ in requests),
    ]
    lines = [f"; {key}: {value}" for key, value in entries]
    notes += [f"field {key}: {note}" for key, note in field_notes.items()]
    lines += [f"; Note: {note}" for note in notes]
    lines += [f"; SacctCount.{rule}: {number}" for rule, number in counts.items()]
    header = dict(entries) | {f"SacctCount.{rule}": str(number) for rule, number in counts.items()}
    return lines, header


def _describe(counts: dict) -> str:
    return ", ".join(f"{rule} {number:,}" for rule, number in counts.items() if number)


def write_swf(fields: np.ndarray, header_lines: list[str], output) -> None:
    """The SWF text, header then one line per job, written atomically; gzip (mtime 0) for a `.gz` name."""
    table = pa.table({f"f{number}": fields[:, number] for number in range(fields.shape[1])})
    sink = pa.BufferOutputStream()
    pa_csv.write_csv(
        table,
        sink,
        write_options=pa_csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )
    body = sink.getvalue()
    compressed = str(output).endswith(".gz")
    with atomic_write(output) as tmp, open(tmp, "wb") as raw:
        # level 6, gzip's own default: level 9 takes twice as long (4 s on 1M lines) for 2 % less
        stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) if compressed else raw
        stream.write(("\n".join(header_lines) + "\n").encode())
        stream.write(body)
        if compressed:
            stream.close()
