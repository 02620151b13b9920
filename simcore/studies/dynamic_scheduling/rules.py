"""What the dynamic-scheduling study's workflow rules
(workflow/rules/studies/dynamic_scheduling.smk) ask of the library: its files under a run's
root, and its settings when `only` leaves out the study that fits the learned functions."""

from __future__ import annotations

from simcore.campaign.settings import RunSettings
from simcore.campaign.studies import figure_files
from simcore.studies.dynamic_scheduling.study import SETTING_TITLES as SETTING_TITLES  # for the rules
from simcore.studies.dynamic_scheduling.study import SETTINGS


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and one figure per setting."""
    return [
        f"{root}/dynamic_scheduling/report.md",
        *figure_files(f"{root}/dynamic_scheduling/plots", SETTINGS),
    ]


def runs(root: str, chosen: RunSettings) -> list[str]:
    """The experiments' runs, one file per trace and job."""
    section = chosen["dynamic_scheduling"]
    return [
        f"{root}/dynamic_scheduling/runs/{trace}/{chunk}.parquet"
        for trace in section["traces"]
        for chunk in range(section["jobs_per_trace"])
    ]


def learned_functions_input(root: str, chosen: RunSettings) -> str | list:
    """The learned functions, where the experiments use some (none: no input)."""
    return f"{root}/learned_policies/functions.csv" if chosen["dynamic_scheduling"]["learned"] else []


def sequences_limit(chosen: RunSettings, trace: str) -> str:
    """`--max-sequences N` when the settings cap the trace's sequences (`max_sequences`), else nothing."""
    limit = chosen["dynamic_scheduling"]["max_sequences"].get(trace)
    return "" if limit is None else f"--max-sequences {limit}"


def without_skipped_learned_functions(chosen: RunSettings) -> list[str]:
    """A run's settings (simcore.campaign.settings) where `only` skipped the learned-policies
    study, which fits the learned functions: the experiments then run their other policies
    only. Changes `chosen` in place and returns the note saying so (none otherwise)."""
    learned = chosen["dynamic_scheduling"]["learned"]
    if not learned or "learned_policies" not in chosen["skipped"]:
        return []
    chosen["dynamic_scheduling"] = {**chosen["dynamic_scheduling"], "learned": 0}
    return [
        f"dynamic_scheduling runs without the learned functions L1-L{learned} "
        "(learned_policies, which fits them, is skipped)"
    ]
