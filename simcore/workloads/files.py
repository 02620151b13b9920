"""Parquet outputs with provenance, written atomically."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.engine.workload import EmptyWorkloadError
from simcore.workloads.resample import WEEK

PROVENANCE_KEY = b"schedsweep"


class ParquetReadError(ValueError):
    """A Parquet file that cannot be read (not Parquet, truncated, a corrupt page); names the file."""


@contextmanager
def reading_parquet(path):
    """Turn pyarrow's errors while reading `path` into one ParquetReadError line naming the file.

    A missing or unreadable file keeps its own OSError, which names the file already."""
    try:
        yield
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (pa.ArrowException, OSError) as error:
        reason = " ".join(str(error).split())
        raise ParquetReadError(f"{path}: not a readable Parquet file ({reason})") from None


def read_parquet(path, **options) -> pd.DataFrame:
    """pandas.read_parquet(path, **options); an unreadable file is a ParquetReadError naming it."""
    with reading_parquet(path):
        return pd.read_parquet(path, **options)


def _file_mode() -> int:
    """Permissions of a newly created file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()  # mkstemp's 0600 is replaced by this before the rename


@lru_cache(maxsize=1)
def code_version() -> str:
    """Package version, plus the git commit when running from a checkout."""
    from simcore import __version__

    def git(*arguments) -> str:
        return subprocess.run(
            ["git", *arguments], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return f"{__version__}+g{commit}{'.dirty' if dirty else ''}"
    except (OSError, subprocess.SubprocessError):
        return __version__


@contextmanager
def atomic_write(path):
    """Yield a temporary path beside `path`, renamed over `path` on success
    and removed on failure, so `path` appears complete or not at all."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_parquet(frame, path, provenance: dict) -> None:
    """Write a DataFrame with `provenance` (JSON) in the schema metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[PROVENANCE_KEY] = json.dumps(
        {"code_version": code_version(), **provenance}, sort_keys=True, default=str
    ).encode()
    table = table.replace_schema_metadata(metadata)
    with atomic_write(path) as tmp:
        pq.write_table(table, tmp)


def read_provenance(path) -> dict:
    with reading_parquet(path):
        metadata = pq.read_schema(path).metadata or {}
    return json.loads(metadata.get(PROVENANCE_KEY, b"{}"))


def workload_provenance(workload) -> dict:
    return {
        "input": workload.source,
        "input_sha256": workload.source_sha256,
        "machine_size": workload.machine_size,
        "filter": workload.filter_mode,
        "filter_counts": workload.filter_counts,
        "jobs": len(workload),
    }


def write_workload(workload, path, extra: dict | None = None) -> None:
    """A filtered or generated workload as Parquet, readable by read_workload."""
    write_parquet(workload.to_frame(), path, {**workload_provenance(workload), **(extra or {})})


def _workload_from_frame(frame, provenance: dict, source: str):
    from simcore.engine.workload import Workload

    workload = Workload(
        job_id=frame["job_id"].to_numpy(np.int64),
        submit=frame["submit"].to_numpy(np.float64),
        run=frame["run"].to_numpy(np.float64),
        requested=frame["requested"].to_numpy(np.float64),
        procs=frame["procs"].to_numpy(np.int64),
        user=frame["user"].to_numpy(np.int64),
        machine_size=int(provenance["machine_size"]),
        source=source,
        source_sha256=provenance.get("input_sha256"),
        filter_mode=provenance.get("filter"),
        filter_counts=provenance.get("filter_counts") or {},
        # files written before these columns existed record neither
        efficiency=frame["efficiency"].to_numpy(np.float64) if "efficiency" in frame else None,
        memory=frame["memory"].to_numpy(np.float64) if "memory" in frame else None,
        group=frame["group"].to_numpy(np.int64) if "group" in frame else None,
        recorded_wait=frame["recorded_wait"].to_numpy(np.float64) if "recorded_wait" in frame else None,
    )
    workload.validate()
    return workload


def read_workload(path):
    """The Workload stored by write_workload (or `simcore filter`)."""
    provenance = read_provenance(path)
    if "machine_size" not in provenance:
        raise ValueError(f"{path}: not a workload file (no machine size in its provenance)")
    frame = read_parquet(path)
    if frame.empty:
        raise EmptyWorkloadError(f"{path}: the workload file has no job")
    return _workload_from_frame(frame, provenance, provenance.get("input", str(path)))


def write_variants(variants: dict, path, provenance: dict) -> None:
    """Resampled variants {number: Workload} in one Parquet file (column `variant`)."""
    frames = [workload.to_frame().assign(variant=number) for number, workload in variants.items()]
    write_parquet(pd.concat(frames, ignore_index=True), path, provenance)


def read_variants(path, numbers=None) -> dict:
    """{variant number: Workload} from write_variants, optionally only `numbers`."""
    provenance = read_provenance(path)
    filters = [("variant", "in", list(numbers))] if numbers is not None else None
    with reading_parquet(path):
        frame = pq.read_table(path, filters=filters).to_pandas()
    check_variants_present(path, numbers, frame["variant"].unique())
    return {
        int(number): _workload_from_frame(
            part.reset_index(drop=True), provenance, f"{provenance.get('input', path)} variant {number}"
        )
        for number, part in frame.groupby("variant", sort=True)
    }


def check_variants_present(path, numbers, found) -> None:
    """Raise EmptyWorkloadError unless every variant of `numbers` (None: any) has a job in `found`."""
    missing = sorted(set(numbers) - set(found)) if numbers is not None else []
    if len(found) and not missing:
        return
    present = np.unique(read_parquet(path, columns=["variant"])["variant"])
    asked = f"variants {number_spans(missing)}" if missing else "any variant"
    held = f"variants with jobs: {number_spans(present)}" if len(present) else "the file has no job"
    raise EmptyWorkloadError(f"{path}: no job of {asked} in the file ({held})")


def number_spans(numbers) -> str:
    """Sorted integers as runs: [0, 1, 2, 5] -> '0..2, 5'."""
    spans = []
    for number in map(int, numbers):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{first}..{last}" if last > first else f"{first}" for first, last in spans)


def read_all(paths) -> pd.DataFrame:
    """The Parquet files concatenated."""
    return pd.concat([read_parquet(path) for path in paths], ignore_index=True)


def write_csv(frame: pd.DataFrame, path) -> None:
    with atomic_write(path) as tmp:
        frame.to_csv(tmp, index=False)


def write_text(path, text: str) -> None:
    with atomic_write(path) as tmp:
        tmp.write_text(text)


def map_variants(variants_path, select: str, trace: str, study) -> tuple[list[pd.DataFrame], int]:
    """Run `study(workload, weeks, number)` -> frames on the variants FIRST:STOP
    of a variants file; each returned frame concatenated over variants, tagged
    with trace and variant. Returns (frames, number of variants)."""
    first, _, stop = select.partition(":")
    variants = read_variants(variants_path, range(int(first), int(stop)))
    weeks = read_provenance(variants_path).get("weeks")
    collected = None
    for number, workload in variants.items():
        span = weeks or int(np.ceil((workload.submit.max() + 1) / WEEK))
        frames = study(workload, span, number)
        collected = collected or [[] for _ in frames]
        for parts, frame in zip(collected, frames):
            parts.append(frame.assign(trace=trace, variant=number))
    return [pd.concat(parts, ignore_index=True) for parts in collected], len(variants)
