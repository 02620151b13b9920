"""What the prediction study's workflow rules (workflow/rules/studies/prediction.smk) ask of
the library: its files under a run's root."""

from __future__ import annotations

from simcore.campaign.settings import RunSettings, variant_chunks
from simcore.campaign.studies import figure_files

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
TRACE_FIGURES = {
    "ecdf_errors": "ECDF of prediction errors (Figure 4)",
    "ecdf_values": "ECDF of predicted values (Figure 5)",
}
FIGURES = {"correlations": "triples' AVEbsld between traces (Figure 3)"}
# The settings listing each dimension of the whole-trace grid, each a `simcore predict-grid` option
GRID_DIMENSIONS = ("learning_rates", "bases", "weightings", "corrections", "backfills")


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and figures under a run's settings `chosen`."""
    return [
        f"{root}/prediction/report.md",
        *figure_files(f"{root}/prediction/plots", TRACE_FIGURES, chosen["prediction"]["traces"]),
        *figure_files(f"{root}/prediction/plots", FIGURES),
    ]


def grid_outputs(kind: str, root: str, chosen: RunSettings, trace: str) -> list[str]:
    """A trace's whole-trace grid runs (or predictions), one file per grid job."""
    return [
        f"{root}/prediction/grid/{trace}/{chunk}.{kind}.parquet"
        for chunk in range(chosen["prediction"]["grid_jobs_per_trace"])
    ]


def grid_runs(root: str, chosen: RunSettings) -> list[str]:
    """Every trace's whole-trace grid runs."""
    return [path for trace in chosen["prediction"]["traces"] for path in grid_outputs("runs", root, chosen, trace)]


def grid_options(chosen: RunSettings) -> str:
    """`simcore predict-grid` options: the grid's values of each dimension."""
    section = chosen["prediction"]
    return " ".join(
        f"--{key.replace('_', '-')} " + " ".join(str(value) for value in section[key]) for key in GRID_DIMENSIONS
    )


def variant_runs(root: str, chosen: RunSettings) -> list[str]:
    """The selected triples' runs on resampled variants, one file per trace and chunk."""
    return [
        f"{root}/prediction/variant_runs/{trace}/{chunk}.parquet"
        for trace in chosen["prediction"]["traces"]
        for chunk in range(len(variant_chunks(chosen, "prediction")))
    ]


def header_size_runs(root: str, chosen: RunSettings) -> list[str]:
    """The study's traces also run at their header's machine size (prediction.header_size)."""
    section = chosen["prediction"]
    return [
        f"{root}/prediction/header_size/{trace}.parquet"
        for trace in section["traces"]
        if trace in section["header_size"]
    ]
