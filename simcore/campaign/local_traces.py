"""A site's own logs as campaign traces (the campaign decides where each goes and which studies
it joins): an SWF file (plain or gzip) or a Slurm accounting dump
(`sacct --parsable2`, converted by `simcore import-sacct`) given by path, with no catalogue
entry and no URL.

The configuration's `local_traces` names each one::

    local_traces:
      mysite: /data/mysite.sacct                  # the short form: a path
      lab: {path: logs/lab.swf.gz, machine_size: 512, filter: truncate, join: [traces]}
      ours: {path: ours.sacct, slurm_conf: /etc/slurm/slurm.conf, slurm_assoc: ours.assoc}

A local trace joins the campaign's `traces` (the fixed-policy and bandit studies) and the trace
lists of the studies that take a site's logs (the studies registered with `site_logs`), unless
its `join` names fewer; `only=NAME` then restricts every study to it. Its machine size is the
header's unless given, its filter the study's unless given; the sha256 of the file as stored is
the input hash in the provenance of every output drawn from it. With `slurm_conf` (and, when it
weighs fair share, `slurm_assoc`: `sshare -a -l -P`), the recorded-schedule study also simulates
the log in the Slurm mode under the site's own configuration and variants of it
(docs/slurm_mode.md, docs/recorded_schedule.md).
"""

from __future__ import annotations

import gzip
import shlex
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

from simcore.campaign.layout import FETCHED_LOG, split_conversion
from simcore.engine.swf import FILTER_MODES, SwfFormatError, detect_format, parse_swf
from simcore.workloads.slurm_assoc import read_associations
from simcore.workloads.slurm_conf import read_slurm_conf

FORMATS = ("swf", "sacct")
CAMPAIGN_TRACES = "traces"  # in `join`: the campaign's traces, which the fixed-policy and bandit studies use
KEYS = ("path", "format", "machine_size", "filter", "join", "sacct", "slurm_conf", "slurm_assoc")


def local_traces(
    declared: dict | None,
    catalogue: dict,
    models: dict,
    site_studies,
    search=(),
) -> dict[str, dict]:
    """{name: entry} of the configuration's `local_traces`, each checked (a ValueError names
    the key) and completed: path, format, machine_size (None: the header's), filter (None: the
    study's), join (what it joins: `traces` and study names) and sacct (`simcore import-sacct`
    options). A relative path is taken from the working directory, else from the first of the
    `search` directories that has it (the workflow's own, for the files it ships)."""
    entries = {}
    for name, entry in (declared or {}).items():
        key = f"config: local_traces.{name}"
        if name in catalogue or name in models:
            raise ValueError(f"{key}: {name} is already a {'catalogue trace' if name in catalogue else 'model'}")
        entry = {"path": entry} if isinstance(entry, str) else dict(entry or {})
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            raise ValueError(f"{key}.{unknown[0]}: not a key of a local trace; known are {', '.join(KEYS)}")
        if "path" not in entry:
            raise ValueError(f"{key}: needs `path`, the SWF file or sacct dump")
        path = _found(entry["path"], search, f"{key}.path")
        form = entry.get("format") or detect_format(path)
        if form not in FORMATS:
            raise ValueError(f"{key}.format: {form!r}, expected one of {', '.join(FORMATS)}")
        if entry.get("filter") not in (None, *FILTER_MODES):
            raise ValueError(f"{key}.filter: {entry['filter']!r}, expected one of {', '.join(FILTER_MODES)}")
        size = entry.get("machine_size")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
            raise ValueError(f"{key}.machine_size: a positive number of processors, got {size!r}")
        joinable = (CAMPAIGN_TRACES, *site_studies)
        join = list(entry.get("join", joinable))
        for target in join:
            if target not in joinable:
                raise ValueError(
                    f"{key}.join: {target!r} is neither `traces` nor a study taking site logs "
                    f"({', '.join(site_studies)})"
                )
        sacct = dict(entry.get("sacct") or {})
        if sacct and form != "sacct":
            raise ValueError(f"{key}.sacct: import options for a sacct dump, but {path} is {form}")
        entries[name] = {
            "path": str(path),
            "format": form,
            "machine_size": size,
            "filter": entry.get("filter"),
            "join": join,
            "sacct": sacct,
            **_site_slurm(entry, search, key),
        }
    return entries


def _found(given, search, key: str) -> Path:
    """A path as given, else under the first `search` directory that has it."""
    path = Path(given)
    if not path.is_absolute() and not path.is_file():
        path = next((base / path for base in map(Path, search) if (base / path).is_file()), path)
    if not path.is_file():
        raise ValueError(f"{key}: {path} is not a file")
    return path


def _site_slurm(entry: dict, search, key: str) -> dict:
    """slurm_conf and slurm_assoc (paths, or None), each read now so that a bad file stops the run
    before anything runs."""
    conf = assoc = None
    if entry.get("slurm_conf"):
        conf = _found(entry["slurm_conf"], search, f"{key}.slurm_conf")
        try:
            fair_share = read_slurm_conf(conf).priority["weight_fairshare"] > 0
        except ValueError as error:
            raise ValueError(f"{key}.slurm_conf: {error}") from None
        if fair_share and not entry.get("slurm_assoc"):
            raise ValueError(
                f"{key}.slurm_assoc: {conf} weighs fair share (PriorityWeightFairshare): give the association "
                "tree (`sshare -a -l -P > FILE`)"
            )
    if entry.get("slurm_assoc"):
        if conf is None:
            raise ValueError(f"{key}.slurm_assoc: the association tree is for the Slurm mode: give slurm_conf too")
        assoc = _found(entry["slurm_assoc"], search, f"{key}.slurm_assoc")
        try:
            read_associations(assoc)
        except ValueError as error:
            raise ValueError(f"{key}.slurm_assoc: {error}") from None
    return {"slurm_conf": conf and str(conf), "slurm_assoc": assoc and str(assoc)}


def submit_span(entry: dict) -> tuple[float, float] | None:
    """(first, last) submit time in seconds of a local trace's jobs, counted from the origin its
    SWF form has (the file's own; a dump's first submit, as `simcore import-sacct` writes it), read
    when the workflow is planned so that a log too short for a study is known before any job runs.
    None when the file cannot be read that far: its conversion or filter then says why."""
    path = entry["path"]
    try:
        if entry["format"] == "swf":
            submit = parse_swf(path).fields[:, 1]
        else:
            submit = _sacct_submits(path)
    except (SwfFormatError, pa.ArrowException, OSError, ValueError, KeyError):
        return None
    submit = submit[submit >= 0]
    if len(submit) == 0:
        return None
    if entry["format"] == "sacct":
        submit = submit - submit.min()
    return float(submit.min()), float(submit.max())


def _sacct_submits(path) -> np.ndarray:
    """The Submit (else Eligible) times of a sacct dump's lines, epoch seconds as if UTC (a span
    is all that is asked of them); unreadable or unknown times are left out."""
    with open(path, "rb") as handle:
        gzipped = handle.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if gzipped else open(path, "rb") as handle:
        header = handle.readline().decode("utf-8", "replace").rstrip("\r\n").split("|")
    column = next(name for wanted in ("submit", "eligible") for name in header if name.lower() == wanted)
    with gzip.open(path, "rb") if gzipped else open(path, "rb") as handle:
        table = csv.read_csv(
            handle,
            parse_options=csv.ParseOptions(delimiter="|", quote_char=False, invalid_row_handler=lambda row: "skip"),
            convert_options=csv.ConvertOptions(include_columns=[column], column_types={column: pa.string()}),
        )
    times = pc.strptime(table[column], format="%Y-%m-%dT%H:%M:%S", unit="s", error_is_null=True).drop_null()
    return times.cast(pa.int64()).to_numpy(zero_copy_only=False).astype(np.float64)


def joined(entries: dict, target: str) -> list[str]:
    """The local traces that join `target` (`traces` or a study's name)."""
    return [name for name, entry in entries.items() if target in entry["join"]]


def import_options(sacct: dict) -> str:
    """`simcore import-sacct` options from a local trace's `sacct` mapping: key -> --key value
    (underscores become dashes; a list repeats the option; true is a flag)."""
    words = []
    for key, value in sacct.items():
        option = "--" + key.replace("_", "-")
        for item in value if isinstance(value, list) else [value]:
            if item is True:
                words.append(option)
            elif item is not False and item is not None:
                words += [option, shlex.quote(str(item))]
    return " ".join(words)


def log_file(trace: str, entries: dict) -> str:
    """The SWF log a trace is filtered from: a local SWF file where it lies (its own sha256 then
    names the workload), anything else below resources/traces/ (fetched from the archive, or
    converted from a sacct dump). A converted trace (`T+mode`) is filtered from T's log."""
    trace = split_conversion(trace)[0]
    entry = entries.get(trace)
    if entry is not None and entry["format"] == "swf":
        return entry["path"]
    return FETCHED_LOG.format(trace=trace)


def filter_options(trace: str, section: dict, entries: dict) -> str:
    """`simcore filter` options of a trace: the filter and machine size of `section` (the
    campaign's or a study's settings), a local trace's own where it gives them, and for a
    converted sacct dump the dump as the workload's source (its sha256 in the provenance); a
    converted trace (`T+mode`, simcore.campaign.layout) is T's under filter mode `mode`."""
    trace, mode = split_conversion(trace)
    entry = entries.get(trace, {})
    size = section.get("machine_size", {}).get(trace) or entry.get("machine_size")
    options = f"--filter {mode or entry.get('filter') or section['filter']}"
    if size:
        options += f" --machine-size {size}"
    if entry.get("format") == "sacct":
        options += f" --source {shlex.quote(entry['path'])}"
    return options
