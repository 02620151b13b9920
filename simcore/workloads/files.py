"""Parquet outputs with provenance, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.engine.workload import EmptyWorkloadError, Workload
from simcore.workloads.progress import progress
from simcore.workloads.resample import WEEK

PROVENANCE_KEY = b"schedsweep"
VARIANT_ROW_GROUPS_KEY = b"schedsweep.variant_row_groups"  # JSON: the variant number of each row group
UNIQUE_COLUMNS = ("job_id", "submit")  # (nearly) one value per job: a dictionary only costs memory


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


def check_writable(path) -> Path:
    """`path` as a Path if a file can be written there: not a directory, and its nearest
    existing folder a directory this process may write in; OSError naming it otherwise.
    Commands check their outputs this way before any work (simcore.workloads.commands)."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"{path}: cannot be written (a directory)")
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise OSError(f"{path}: cannot be written ({folder} is not a directory)")
    if not os.access(folder, os.W_OK):
        raise OSError(f"{path}: cannot be written (no permission to write in {folder})")
    return path


@contextmanager
def atomic_write(path):
    """Yield a temporary path beside `path`, renamed over `path` on success
    and removed on failure, so `path` appears complete or not at all."""
    path = check_writable(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:  # named by the file asked for, not the temporary one
        raise OSError(f"{path}: cannot be written ({error.strerror or error})") from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def stream_sha256(handle) -> str:
    """sha256 of what a binary stream holds, read in blocks."""
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def file_sha256(path) -> str:
    """sha256 of a file as stored."""
    with open(path, "rb") as handle:
        return stream_sha256(handle)


def _named_parquet_files(value) -> Iterator[str]:
    """The existing Parquet files a provenance value names (a path or a list of paths)."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str) and item.endswith(".parquet") and os.path.isfile(item):
            yield item


def trace_lineage(provenance: dict) -> dict[str, str]:
    """{log file: sha256} of every trace an output is drawn from: its own input's, and those
    recorded by the Parquet files its provenance names (each records its own, so one level of
    reading follows the whole chain back to the logs)."""
    lineage = {}
    if provenance.get("input_sha256"):
        lineage[provenance["input"]] = provenance["input_sha256"]
    for value in provenance.values():
        for path in _named_parquet_files(value):
            lineage.update(read_provenance(path).get("traces", {}))
    return dict(sorted(lineage.items()))


def _with_provenance(schema: pa.Schema, provenance: dict) -> pa.Schema:
    """`schema` with `provenance`, the code version and the logs it is drawn from (`traces`:
    {log: sha256}) as JSON in its metadata."""
    metadata = dict(schema.metadata or {})
    lineage = trace_lineage(provenance)  # none for generated workloads, whose seed is their provenance
    metadata[PROVENANCE_KEY] = json.dumps(
        {"code_version": code_version(), **provenance, **({"traces": lineage} if lineage else {})},
        sort_keys=True,
        default=str,
    ).encode()
    return schema.with_metadata(metadata)


def write_parquet(frame, path, provenance: dict) -> None:
    """Write a DataFrame with `provenance` (JSON) in the schema metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(_with_provenance(table.schema, provenance).metadata)
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


def write_variants(variants: Iterable[tuple[int, Workload]], path, provenance: dict) -> None:
    """Resampled variants, (number, Workload) pairs such as resample_variants yields, in one
    Parquet file (column `variant`): each variant is written as it comes, as one row group, so
    that one variant at a time is in memory. A variant without jobs has no rows. The variant
    number of each row group is recorded in the file's metadata for iter_variants."""
    with atomic_write(path) as tmp, ExitStack() as closing:
        writer, numbers = None, []
        for number, workload in variants:
            table = pa.Table.from_pandas(workload.to_frame().assign(variant=number), preserve_index=False)
            if writer is None:
                writer = closing.enter_context(
                    pq.ParquetWriter(
                        tmp,
                        _with_provenance(table.schema, provenance),
                        use_dictionary=[name for name in table.column_names if name not in UNIQUE_COLUMNS],
                    )
                )
            if table.num_rows:
                writer.write_table(table, row_group_size=table.num_rows)
                numbers.append(int(number))
            del workload, table  # freed before the next variant is drawn
        if writer is None:
            raise ValueError(f"{path}: no variants to write")
        writer.add_key_value_metadata({VARIANT_ROW_GROUPS_KEY: json.dumps(numbers)})


def _variant_row_groups(file: pq.ParquetFile, path) -> dict[int, int]:
    """{variant number: its row group} of a write_variants file."""
    numbers = (file.metadata.metadata or {}).get(VARIANT_ROW_GROUPS_KEY)
    if numbers is None:
        raise ValueError(
            f"{path}: no row group per variant (written before schedsweep stored them so); "
            f"rerun `simcore resample` to rewrite it"
        )
    return {number: group for group, number in enumerate(json.loads(numbers))}


def iter_variants(path, numbers=None) -> Iterator[tuple[int, Workload]]:
    """(number, Workload) for the variants of a write_variants file, all or those among `numbers`,
    by increasing number. Each is read from its own row group when asked for, so that one
    variant at a time is in memory and the others are not read."""
    provenance = read_provenance(path)
    source = provenance.get("input", path)
    with reading_parquet(path), pq.ParquetFile(path) as file:
        row_groups = _variant_row_groups(file, path)
        check_variants_present(path, numbers, row_groups.keys())
        chosen = row_groups.keys() if numbers is None else row_groups.keys() & {int(n) for n in numbers}
        for number in sorted(chosen):
            yield (
                number,
                _workload_from_frame(
                    file.read_row_group(row_groups[number]).to_pandas(), provenance, f"{source} variant {number}"
                ),
            )


def check_variants_present(path, numbers, present) -> None:
    """Raise EmptyWorkloadError unless every variant of `numbers` (None: any) is among the
    variants with jobs, `present`."""
    present = sorted(present)
    missing = sorted({int(number) for number in numbers} - set(present)) if numbers is not None else []
    if present and not missing:
        return
    asked = f"variants {number_spans(missing)}" if missing else "any variant"
    held = f"variants with jobs: {number_spans(present)}" if present else "the file has no job"
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
    weeks = read_provenance(variants_path).get("weeks")
    collected, count = None, 0
    numbers = range(int(first), int(stop))
    for number, workload in progress(iter_variants(variants_path, numbers), len(numbers), f"{trace} variants {select}"):
        span = weeks or int(np.ceil((workload.submit.max() + 1) / WEEK))
        frames = study(workload, span, number)
        collected = collected or [[] for _ in frames]
        for parts, frame in zip(collected, frames):
            parts.append(frame.assign(trace=trace, variant=number))
        count += 1
    return [pd.concat(parts, ignore_index=True) for parts in collected], count
