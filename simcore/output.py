"""Parquet outputs with provenance, written atomically."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PROVENANCE_KEY = b"schedsweep"


@lru_cache(maxsize=1)
def code_version() -> str:
    """Package version, plus the git commit when running from a checkout."""
    from simcore import __version__
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=Path(__file__).parent, capture_output=True, text=True,
                               timeout=5, check=True).stdout.strip()
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
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_parquet(frame, path, provenance: dict) -> None:
    """Write a DataFrame with `provenance` (JSON) in the schema metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[PROVENANCE_KEY] = json.dumps({"code_version": code_version(), **provenance},
                                          sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata(metadata)
    with atomic_write(path) as tmp:
        pq.write_table(table, tmp)


def read_provenance(path) -> dict:
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
