"""What a campaign costs: Snakemake's benchmark files summed per study and trace.

Every rule writes ``<root>/benchmarks/<study>/<rule>/[<trace>/]<...>.tsv`` (the trace
preparation rules ``results/benchmarks/traces/<rule>/<trace>...``): one row per run
with wall time ``s``, ``cpu_time`` and ``max_rss`` (MB). Snakemake samples a job's
CPU time and memory every few seconds, so both are lower bounds for short jobs; a
simulation job is single-threaded and CPU-bound, so its wall time on an idle
machine is its CPU time, and the projection to more cores uses wall time.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.reporting.tables import markdown_table

ALL_TRACES = "all"
# Benchmark folders beside the studies': the trace preparation and the reproduction report.
PREPARATION = ("traces", "report")
COST_COLUMNS = ["study", "trace", "jobs", "wall_s", "cpu_s", "max_rss_mb", "longest_job_s"]


def _trace_of(parts, traces: set[str]) -> str:
    """The trace a benchmark file is about: the first path component below the rule
    (the file's stem included) that names one of `traces`, else every trace."""
    return next((part for part in parts if part in traces), ALL_TRACES)


def read_benchmarks(directory, traces, studies=None, other_traces=()) -> pd.DataFrame:
    """One row per job: study, rule, trace, wall_s, cpu_s, max_rss_mb (NaN when
    Snakemake sampled nothing). Only this run's jobs count: with `studies`, the files of other
    study folders (and of the trace preparation and report folders, PREPARATION) are left out, and
    so is any file whose path names one of `other_traces` (an earlier run's, e.g. before `only`)."""
    traces, other_traces = set(traces), set(other_traces)
    rows = []
    directory = Path(directory)
    for path in sorted(directory.rglob("*.tsv")):
        study, rule, *rest = path.relative_to(directory).with_suffix("").parts
        if studies is not None and study not in (*studies, *PREPARATION):
            continue
        if other_traces.intersection(rest):
            continue
        try:
            frame = pd.read_csv(path, sep="\t")
        except (ValueError, OSError) as error:
            raise ValueError(f"{path}: unreadable benchmark file ({error})") from None
        missing = {"s", "cpu_time", "max_rss"} - set(frame.columns)
        if missing:
            raise ValueError(f"{path}: not a Snakemake benchmark file (no column {sorted(missing)})")
        for _, run in frame.iterrows():
            rows.append(
                {
                    "study": study,
                    "rule": rule,
                    "trace": _trace_of(rest, traces),
                    "wall_s": pd.to_numeric(run["s"], errors="coerce"),
                    "cpu_s": pd.to_numeric(run["cpu_time"], errors="coerce"),
                    "max_rss_mb": pd.to_numeric(run["max_rss"], errors="coerce"),
                }
            )
    return pd.DataFrame(rows, columns=["study", "rule", "trace", "wall_s", "cpu_s", "max_rss_mb"])


def cost_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs, summed wall and CPU seconds, peak memory and the longest job per study and trace."""
    if jobs.empty:
        return pd.DataFrame(columns=COST_COLUMNS)
    grouped = jobs.groupby(["study", "trace"], sort=True)
    table = grouped.agg(
        jobs=("wall_s", "size"),
        wall_s=("wall_s", "sum"),
        cpu_s=("cpu_s", "sum"),
        max_rss_mb=("max_rss_mb", "max"),
        longest_job_s=("wall_s", "max"),
    ).reset_index()
    return table[COST_COLUMNS]


def projected_hours(table: pd.DataFrame, cores: int) -> float:
    """Wall hours on `cores` cores with perfect packing: the summed wall time shared
    by the cores, and never less than the longest job."""
    if table.empty:
        return 0.0
    return max(table["wall_s"].sum() / cores, table["longest_job_s"].max()) / 3600


def cost_markdown(table: pd.DataFrame, cores: tuple[int, ...] = (2, 56)) -> str:
    total_wall, total_cpu = table["wall_s"].sum(), table["cpu_s"].sum()
    lines = [
        "# What this run cost",
        "",
        "From Snakemake's benchmark files (`benchmarks/`), summed per study and trace. "
        "*wall* is each job's elapsed time; *CPU* is Snakemake's sampled CPU time, a lower bound "
        "for jobs of a few seconds. The jobs are single-threaded, so on an idle machine wall ≈ CPU.",
        "",
        f"**Total:** {len(table) and int(table['jobs'].sum())} jobs, {total_wall / 3600:.2f} h of job wall "
        f"time, {total_cpu / 3600:.2f} h of sampled CPU time. "
        + " ".join(f"On {count} cores with perfect packing: {projected_hours(table, count):.2f} h." for count in cores),
        "",
        markdown_table(
            pd.DataFrame(
                {
                    "study": table["study"],
                    "trace": table["trace"],
                    "jobs": table["jobs"],
                    "wall (s)": table["wall_s"].map("{:.1f}".format),
                    "CPU (s)": table["cpu_s"].map("{:.1f}".format),
                    "peak RSS (MB)": table["max_rss_mb"].map("{:.0f}".format),
                    "longest job (s)": table["longest_job_s"].map("{:.1f}".format),
                }
            ),
            "llrrrrr",
        ),
    ]
    return "\n".join(lines) + "\n"
