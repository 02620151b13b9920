"""Fetching Parallel Workloads Archive traces, verified by checksum.

A trace is taken from the mirror first (a directory or a base URL holding the
archive's file names; a directory may name it NAME.swf.gz instead, as the workflow's
resources/traces/ does), then from its archive URL. The sha256 of the
*uncompressed* SWF text is checked, so any gzip packaging of the same log
verifies; a mismatch leaves nothing behind.
"""

from __future__ import annotations

import gzip
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import yaml

from simcore.workloads.files import atomic_write, stream_sha256

DOWNLOAD_TIMEOUT = 60  # seconds without data before a download is abandoned


class FetchError(RuntimeError):
    """A trace could not be obtained; the message says how to provide it."""


def load_catalogue(path) -> dict:
    """{trace name: entry} with keys file, url, swf_sha256, machine_size and, for a trace the
    campaign cannot use, unusable (why)."""
    with open(path) as handle:
        catalogue = yaml.safe_load(handle)
    traces = catalogue.get("traces") if isinstance(catalogue, dict) else None
    if not isinstance(traces, dict):
        raise ValueError(f"{path}: expected a 'traces' mapping")
    for name, entry in traces.items():
        missing = {"file", "url", "swf_sha256"} - set(entry or {})
        if missing:
            raise ValueError(f"{path}: trace {name!r} lacks {', '.join(sorted(missing))}")
    return traces


def known_traces(catalogue: dict, models) -> str:
    """The trace names a configuration may give, those the campaign cannot use marked with why
    (a catalogue entry's `unusable`), then the models."""
    marked = [
        f"{name} (unusable: {entry['unusable']})" if entry.get("unusable") else name
        for name, entry in sorted(catalogue.items())
    ]
    return ", ".join(marked + sorted(models))


def check_trace_names(names, catalogue: dict, models, key: str, kind: str = "traces") -> None:
    """ValueError naming the configuration `key` when one of `names` is neither a catalogued
    trace nor a model, or is a trace the campaign cannot use."""
    unknown = [name for name in names if name not in catalogue and name not in models]
    if unknown:
        raise ValueError(f"config: {key}unknown {kind} {unknown}; known: {known_traces(catalogue, models)}")
    for name in names:
        if catalogue.get(name, {}).get("unusable"):
            raise ValueError(f"config: {key}trace {name} cannot be used: {catalogue[name]['unusable']}")


def content_sha256(path) -> str:
    """sha256 of the SWF text inside a plain or gzip file."""
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if gzipped else open(path, "rb") as handle:
        return stream_sha256(handle)


def fetched_name(name: str) -> str:
    """The file a catalogue trace is fetched to below resources/traces/ (rule fetch_trace)."""
    return f"{name}.swf.gz"


def _sources(name: str, entry: dict, mirror) -> list[str]:
    """Where trace `name` is looked for: the mirror (under the archive's file name, or a directory
    under the name the workflow fetches it to, such as another checkout's resources/traces), then
    the archive."""
    sources = []
    if mirror:
        mirror = str(mirror)
        if "://" in mirror:
            sources.append(mirror.rstrip("/") + "/" + entry["file"])
        else:
            fetched = Path(mirror) / fetched_name(name)
            sources.append(str(fetched if fetched.is_file() else Path(mirror) / entry["file"]))
    sources.append(entry["url"])
    return sources


def _copy(source: str, destination: Path) -> None:
    if "://" in source:
        with urllib.request.urlopen(source, timeout=DOWNLOAD_TIMEOUT) as response, open(destination, "wb") as out:
            shutil.copyfileobj(response, out)
    else:
        shutil.copyfile(source, destination)


def fetch_trace(name: str, entry: dict, destination, mirror=None) -> str:
    """Put trace `name` at `destination`; return the source it came from."""
    destination = Path(destination)
    failures = []
    for source in _sources(name, entry, mirror):
        try:
            with atomic_write(destination) as tmp:
                _copy(source, tmp)
                found = content_sha256(tmp)
                if found != entry["swf_sha256"]:
                    raise FetchError(
                        f"{source}: checksum mismatch for {name}: the SWF text has sha256 "
                        f"{found}, the catalogue expects {entry['swf_sha256']}"
                    )
            return source
        except FetchError:
            raise
        except (OSError, urllib.error.URLError, EOFError) as error:
            failures.append(f"  {source}: {getattr(error, 'reason', None) or error}")
    raise FetchError(
        f"cannot obtain trace {name}:\n"
        + "\n".join(failures)
        + f"\nProvide it with --config pwa_mirror=DIR (a directory holding {entry['file']}) "
        f"or put the file at {destination} yourself."
    )


def catalogue_slurm_conf(name: str, entry: dict) -> str:
    """A slurm.conf for a catalogued trace's machine (its `nodes`): one partition of every node,
    sched/backfill, select/cons_tres counting cores, Slurm's defaults otherwise. Node kinds are
    named a1.., b1.., c1.. in the catalogue's order."""
    kinds = entry.get("nodes")
    if not kinds:
        raise ValueError(f"the catalogue gives no nodes for {name}: the archive documents none")
    lines = [
        f"# {name}'s machine as the catalogue gives it (simcore.workloads.catalogue.catalogue_slurm_conf)",
        f"ClusterName={name.lower()}",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
    ]
    for kind, nodes in zip("abcdefgh", kinds):
        lines.append(f"NodeName={kind}[1-{nodes['count']}] CPUs={nodes['cpus']}")
    lines.append("PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"
