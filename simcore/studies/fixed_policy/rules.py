"""What the fixed-policy study's workflow rules (workflow/rules/studies/fixed_policy.smk) ask
of the library: its files under a run's root."""

from __future__ import annotations

from simcore.campaign.studies import figure_files
from simcore.studies.fixed_policy.figures import FIGURES


def outputs(root: str, chosen: dict) -> list[str]:
    """The study's summaries, figures and Table 2 under a run's settings `chosen`."""
    traces = chosen["traces"]
    return [
        *(f"{root}/summary/{trace}.runs.parquet" for trace in traces),
        *figure_files(f"{root}/plots", FIGURES, traces),
        f"{root}/tables/fixed_policy.csv",
        f"{root}/tables/fixed_policy.md",
    ]
