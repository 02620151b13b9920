"""What the simple-policies study's workflow rules (workflow/rules/studies/simple_policies.smk)
ask of the library: its files under a run's root."""

from __future__ import annotations

from simcore.campaign.layout import converted_trace, study_workload
from simcore.campaign.settings import RunSettings, variant_chunks
from simcore.campaign.studies import figure_files

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
TRACE_FIGURES = {"objectives": "cumulative weekly means of three objectives (Figure 4.1)"}
FIGURES = {
    "delayed": "processors of the most delayed jobs (Figure 4.2)",
    "categories": "jobs per slowdown category (Figure 4.3)",
    "backfilled": "backfilled jobs per variant (Figure 4.4)",
}


def study_traces(chosen: RunSettings) -> list[str]:
    """The traces as run: each under the study's filter, then each log again under each of the
    section's `conversions` (`T+mode`, simcore.campaign.layout: Batsim's converter for the thesis's
    pipeline; a model is generated, so it has none)."""
    section = chosen["simple_policies"]
    logs = [trace for trace in section["traces"] if trace not in chosen["models"]]
    return [*section["traces"], *(converted_trace(trace, mode) for mode in section["conversions"] for trace in logs)]


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and figures under a run's settings `chosen`."""
    return [
        f"{root}/simple_policies/report.md",
        *figure_files(f"{root}/simple_policies/plots", TRACE_FIGURES, study_traces(chosen)),
        *figure_files(f"{root}/simple_policies/plots", FIGURES),
    ]


def sweep_outputs(kind: str, root: str, chosen: RunSettings) -> list[str]:
    """The sweep's files of one kind (runs, weekly, delayed), one per trace and chunk."""
    return [
        f"{root}/simple_policies/sweep/{trace}/{chunk}.{kind}.parquet"
        for trace in study_traces(chosen)
        for chunk in range(len(variant_chunks(chosen, "simple_policies")))
    ]


def trace_workloads(root: str, chosen: RunSettings) -> list[str]:
    """The filtered trace of every trace as run (for the share of premature jobs)."""
    return [study_workload("simple_policies", trace, chosen["models"]) for trace in study_traces(chosen)]
