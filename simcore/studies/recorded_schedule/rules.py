"""What the recorded-schedule study's workflow rules (workflow/rules/studies/recorded_schedule.smk)
ask of the library: its files under a run's root, its policies and the Slurm mode's variants."""

from __future__ import annotations

import json

from simcore.campaign.settings import RunSettings
from simcore.campaign.studies import figure_files
from simcore.engine.policies import check_policies
from simcore.studies.recorded_schedule.slurm import check_slurm_variants

# The study's figures (its figures.py draws them), named here so that planning needs no matplotlib
FIGURES = ("recorded_schedule",)


def policies_json(chosen: RunSettings) -> str:
    """The study's policies, checked when the DAG is planned, as its commands take them."""
    key = "recorded_schedule.policies"
    try:
        policies = check_policies(chosen["recorded_schedule"]["policies"], key)
    except ValueError as error:
        raise ValueError(f"config: {error}") from None
    if not policies:
        raise ValueError(f"config: {key}: no policy to compare with the recorded schedules")
    return json.dumps(policies)


def slurm_variants_json(chosen: RunSettings) -> str:
    """The Slurm mode's variants, checked when the DAG is planned, as its command takes them."""
    try:
        return json.dumps(
            check_slurm_variants(chosen["recorded_schedule"]["slurm_variants"], "recorded_schedule.slurm_variants")
        )
    except ValueError as error:
        raise ValueError(f"config: {error}") from None


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's summary, table, section and figure."""
    return [
        f"{root}/recorded_schedule/summary.parquet",
        f"{root}/tables/recorded_schedule.csv",
        f"{root}/recorded_schedule/report.md",
        *figure_files(f"{root}/plots", FIGURES),
    ]
