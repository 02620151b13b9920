"""Reading and filtering Standard Workload Format logs (SEMANTICS §1)."""

from __future__ import annotations

import gzip
import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simcore.engine._swf import SwfFormatError, tokenize
from simcore.engine.workload import EmptyWorkloadError, Workload

FILTER_MODES = ("strict", "truncate", "batsim")
# The `batsim` mode's requested time: max(BATSIM_WALLTIME_FACTOR x run, f9), the default of Batsim's
# standard converter (swf_to_batsim_workload_compute_only.py, --job_walltime_factor)
BATSIM_WALLTIME_FACTOR = 2.0

# SWF columns (0-based) used by the simulator.
JOB_ID, SUBMIT, WAIT, RUN, ALLOC_PROCS, CPU_TIME, USED_MEMORY = 0, 1, 2, 3, 4, 5, 6
REQ_PROCS, REQ_TIME, REQ_MEMORY, STATUS, USER, GROUP = 7, 8, 9, 10, 11, 12

# Filter rules in the order SEMANTICS §1 applies them; a dropped job is
# counted under the first rule that drops it.
FILTER_RULES = (
    "procs_over_machine",  # f5 > m or f8 > m (batsim: f5 > m)
    "no_procs",  # q <= 0
    "negative_submit",  # f2 < 0
    "bad_run_time",  # f4 < 0 (strict, batsim: also f4 == 0)
    "no_requested_time",  # f9 <= 0 (not batsim: its request is at least 2 x f4)
    "run_over_request",  # f9 < f4, strict only
)

_LEADING_INT = re.compile(r"^\s*(-?\d+)")


def parse_header(lines) -> dict:
    """`; Key: value` comment lines to {key: value}; the first occurrence wins."""
    header = {}
    for _, text in lines:
        key, sep, value = text.partition(":")
        key = key.strip()
        if sep and key and " " not in key and key not in header:
            header[key] = value.strip()
    return header


def header_machine_size(header: dict) -> int | None:
    """MaxProcs if present and > 0, else MaxNodes (case-insensitive keys)."""
    lowered = {key.lower(): value for key, value in header.items()}
    for key in ("maxprocs", "maxnodes"):
        match = _LEADING_INT.match(lowered.get(key, ""))
        if match and int(match.group(1)) > 0:
            return int(match.group(1))
    return None


def looks_like_sacct(first_line: bytes) -> bool:
    """`first_line` is the header of a Slurm accounting dump (`sacct --parsable2`): names separated
    by `|`, State and JobID or JobIDRaw among them (in any case)."""
    names = {name.strip().lower() for name in first_line.decode("utf-8", "replace").strip().split("|")}
    return "state" in names and bool(names & {"jobid", "jobidraw"})


def detect_format(path) -> str:
    """ "sacct" when the file's first line (gunzipped if need be) is a `sacct --parsable2` header
    (looks_like_sacct), else "swf"."""
    with open(path, "rb") as handle:
        first = handle.readline(65536)
    if first[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as handle:
                first = handle.readline(65536)
        except (OSError, EOFError):  # not a readable gzip file: the SWF reader says so
            return "swf"
    return "sacct" if looks_like_sacct(first) else "swf"


def sacct_dump_error(source: str) -> str:
    """The error of an SWF reader given a sacct dump: the command that converts it."""
    name = source[: -len(".gz")] if source.endswith(".gz") else source
    stem = str(Path(name).with_suffix("")) if Path(name).suffix else name
    return (
        f"{source}: a Slurm accounting dump (sacct), not an SWF log: convert it first with "
        f"`simcore import-sacct {shlex.quote(source)} -o {shlex.quote(stem + '.swf.gz')}`"
    )


def read_bytes(path) -> tuple[bytes, str]:
    """The text of a plain or gzip file, and the sha256 of the file as stored."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw), hashlib.sha256(raw).hexdigest()
        except (OSError, EOFError) as error:
            raise SwfFormatError(f"{path}: not a readable gzip file ({error})") from None
    return raw, hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True, eq=False)
class SwfLog:
    """A parsed, not yet filtered SWF log."""

    source: str
    sha256: str
    fields: np.ndarray  # (jobs, 18) float64
    line_numbers: np.ndarray  # line of each job in the file
    header: dict
    header_lines: tuple[str, ...]  # the text after `;` of each comment line before the first job line

    def resolved_machine_size(self, machine_size: int | None = None) -> int:
        """`machine_size` if given (checked), else the header's."""
        if machine_size is None:
            machine_size = header_machine_size(self.header)
            if machine_size is None:
                raise SwfFormatError(
                    f"{self.source}: the header has no positive MaxProcs or MaxNodes; "
                    "give the machine size explicitly (machine_size= / --machine-size)"
                )
        elif machine_size <= 0:
            raise ValueError(f"machine size must be positive, got {machine_size}")
        return machine_size

    def filter_counts(self, machine_size: int | None = None, filter: str = "strict") -> dict:
        """The per-rule counts of a filter (SEMANTICS §1), without building the workload."""
        return apply_filter(self.fields, self.resolved_machine_size(machine_size), filter)[2]

    def workload(self, machine_size: int | None = None, filter: str = "strict") -> Workload:
        """Filter (SEMANTICS §1) and sort by (submit, id); `machine_size`
        overrides the header."""
        if filter not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {filter!r}; choose one of {', '.join(FILTER_MODES)}")
        machine_size = self.resolved_machine_size(machine_size)
        fields = self.fields
        keep, jobs, counts = apply_filter(fields, machine_size, filter)
        if counts["kept"] == 0:
            raise EmptyWorkloadError(
                f"{self.source}: no job left after the {filter} filter ({describe_filter_counts(counts)})"
            )
        kept = fields[keep]
        order = np.lexsort((kept[:, JOB_ID], kept[:, SUBMIT]))
        workload = Workload(
            job_id=kept[order, JOB_ID].astype(np.int64),
            submit=kept[order, SUBMIT].copy(),
            run=jobs.run[keep][order],
            requested=jobs.requested[keep][order],
            procs=jobs.procs[keep][order].astype(np.int64),
            user=kept[order, USER].astype(np.int64),
            machine_size=int(machine_size),
            source=self.source,
            source_sha256=self.sha256,
            filter_mode=filter,
            filter_counts=counts,
            header=self.header,
            efficiency=efficiency(kept)[order],
            memory=memory_per_processor(kept)[order],
            group=kept[order, GROUP].astype(np.int64),
            recorded_wait=np.where(kept[order, WAIT] >= 0, kept[order, WAIT], np.nan),
        )
        workload.validate()
        return workload


def parse_swf(path) -> SwfLog:
    """Parse an SWF log (plain or gzip). Raises SwfFormatError naming the
    file and line for malformed input."""
    source = str(path)
    text, sha256 = read_bytes(path)
    if text.startswith(b"PAR1"):
        raise SwfFormatError(f"{source}: this is a Parquet file (a filtered workload?), not an SWF log")
    if looks_like_sacct(text[:65536].split(b"\n", 1)[0]):
        raise SwfFormatError(sacct_dump_error(source))
    fields, line_numbers, header_lines = tokenize(np.frombuffer(text, dtype=np.uint8), source)
    if len(fields) == 0:
        raise SwfFormatError(f"{source}: no job lines (empty or comment-only file)")
    duplicate = _first_duplicate(fields[:, JOB_ID])
    if duplicate is not None:
        raise SwfFormatError(
            f"{source}, line {line_numbers[duplicate]}: job id {int(fields[duplicate, JOB_ID])} appears twice"
        )
    return SwfLog(
        source, sha256, fields, line_numbers, parse_header(header_lines), tuple(text for _, text in header_lines)
    )


def read_swf(path, machine_size: int | None = None, filter: str = "strict") -> Workload:
    """Read an SWF log (plain or gzip), filter it and sort it by (submit, id)."""
    return parse_swf(path).workload(machine_size, filter)


@dataclass(frozen=True)
class FilteredJobs:
    """Every job line's simulated run time, requested time and processors under a filter mode."""

    run: np.ndarray
    requested: np.ndarray
    procs: np.ndarray


def apply_filter(fields: np.ndarray, machine_size: int, mode: str):
    """(keep mask, FilteredJobs, counts) per SEMANTICS §1."""
    alloc, req_procs = fields[:, ALLOC_PROCS], fields[:, REQ_PROCS]
    run, requested = fields[:, RUN], fields[:, REQ_TIME]
    batsim = mode == "batsim"
    procs = alloc if batsim else np.where(req_procs > 0, req_procs, alloc)
    never = np.zeros(len(fields), dtype=bool)
    rules = (
        (alloc > machine_size) | ((req_procs > machine_size) & (not batsim)),
        procs <= 0,
        fields[:, SUBMIT] < 0,
        (run < 0) if mode == "truncate" else (run <= 0),
        never if batsim else requested <= 0,
        (requested < run) if mode == "strict" else never,
    )
    keep = np.ones(len(fields), dtype=bool)
    counts = {"lines": int(len(fields))}
    for name, drop in zip(FILTER_RULES, rules):
        dropped = keep & drop
        counts[name] = int(dropped.sum())
        keep &= ~drop
    if batsim:
        # Batsim's standard converter: the job computes floor(f4) + 1 s under a walltime of
        # max(2 f4, f9), so it is never killed
        jobs = FilteredJobs(np.floor(run) + 1.0, np.maximum(BATSIM_WALLTIME_FACTOR * run, requested), procs)
        counts["truncated"] = 0
    else:
        jobs = FilteredJobs(np.minimum(run, requested), requested.copy(), procs)
        counts["truncated"] = int((keep & (requested < run)).sum())
    counts["kept"] = int(keep.sum())
    return keep, jobs, counts


def describe_filter_counts(counts: dict) -> str:
    """'18,239 job lines; dropped: no_requested_time 18,239' from apply_filter's counts."""
    dropped = ", ".join(f"{rule} {counts[rule]:,}" for rule in FILTER_RULES if counts[rule])
    return f"{counts['lines']:,} job lines; dropped: {dropped}"


def efficiency(fields: np.ndarray) -> np.ndarray:
    """CPU time over run time (f6/f4) clipped to [0, 1]; NaN unless both are positive."""
    cpu, run = fields[:, CPU_TIME], fields[:, RUN]
    known = (cpu > 0) & (run > 0)
    ratio = np.divide(cpu, run, out=np.full(len(fields), np.nan), where=known)
    return np.clip(ratio, 0.0, 1.0)


def memory_per_processor(fields: np.ndarray) -> np.ndarray:
    """Used memory (f7), else requested memory (f10), in KB per processor; NaN if neither."""
    used, requested = fields[:, USED_MEMORY], fields[:, REQ_MEMORY]
    return np.where(used > 0, used, np.where(requested > 0, requested, np.nan))


def _first_duplicate(ids: np.ndarray):
    order = np.argsort(ids, kind="stable")
    same = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    return None if len(same) == 0 else int(order[same[0] + 1])
