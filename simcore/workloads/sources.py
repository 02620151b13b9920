"""Where a workload comes from, for tools that take one by name (the Gymnasium environments):
a `Workload`, a filtered Parquet file, or a catalogue trace read from a local mirror or fetched
once into a cache, verified by the sha256 of its text."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from simcore.engine.swf import read_swf
from simcore.engine.workload import Workload
from simcore.workloads.catalogue import FetchError, content_sha256, fetch_trace, load_catalogue
from simcore.workloads.files import read_workload

REPOSITORY = Path(__file__).resolve().parents[2]
DEFAULT_CATALOGUE = REPOSITORY / "config" / "pwa_catalogue.yaml"
DOWNLOAD_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schedsweep" / "traces"


def default_mirror() -> Path:
    """$SCHEDSWEEP_PWA, else ../shared/pwa beside the repository (the tests' convention)."""
    return Path(os.environ.get("SCHEDSWEEP_PWA") or REPOSITORY.parent / "shared" / "pwa")


def trace_file(name: str, catalogue=DEFAULT_CATALOGUE, mirror=None) -> Path:
    """The SWF file of catalogue trace `name`, verified by the sha256 of its text.

    Read in place from a mirror directory that holds it; otherwise fetched (from a mirror URL,
    then the archive) into ~/.cache/schedsweep/traces once.
    """
    traces = load_catalogue(catalogue)
    if name not in traces:
        raise ValueError(
            f"{name!r} is neither an existing workload file nor a trace of {catalogue} "
            f"(known: {', '.join(sorted(traces))})"
        )
    entry = traces[name]
    mirror = default_mirror() if mirror is None else mirror
    if "://" not in str(mirror):
        local = Path(mirror) / entry["file"]
        if local.is_file():
            if content_sha256(local) != entry["swf_sha256"]:
                raise FetchError(f"{local}: its SWF text does not have the sha256 the catalogue gives for {name}")
            return local
    cached = DOWNLOAD_CACHE / entry["file"]
    if not cached.is_file():
        fetch_trace(name, entry, cached, mirror=mirror)
    return cached


def with_machine_size(workload: Workload, machine_size: int) -> Workload:
    """The workload on `machine_size` processors; jobs wider than the machine are dropped (as E2 does)."""
    kept = workload.take(np.flatnonzero(workload.procs <= machine_size))
    resized = replace(kept, machine_size=int(machine_size))
    resized.validate()
    return resized


def load_workload(
    workload, machine_size: int | None = None, filter_mode: str = "truncate", pwa_mirror=None, catalogue=None
) -> Workload:
    """A `Workload`, a filtered Parquet file or a catalogue trace name, as a Workload.

    `filter_mode` applies to trace names only (a Parquet file is filtered already);
    `machine_size` replaces the workload's own, dropping wider jobs.
    """
    if isinstance(workload, Workload):
        loaded = workload
    elif Path(workload).is_file():
        loaded = read_workload(workload)
    else:
        path = trace_file(str(workload), catalogue or DEFAULT_CATALOGUE, pwa_mirror)
        loaded = read_swf(path, filter=filter_mode)
    if machine_size is not None:
        loaded = with_machine_size(loaded, machine_size)
    if len(loaded) == 0:
        raise ValueError(f"{loaded.source}: the workload has no job")
    return loaded
