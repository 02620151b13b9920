"""What the elastic study's workflow rules (workflow/rules/studies/elastic.smk) ask of the
library: its files under a run's root, each trace's job sets and the runs' options."""

from __future__ import annotations

import json

from simcore.campaign.settings import RunSettings
from simcore.campaign.studies import figure_files

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
FIGURES = {
    "responsiveness": "inverse CDF of the responsiveness W per type (figure)",
    "pool": "pool size over time (figure)",
    "utilisation": "utilisation U(T) over time (figure)",
    "fairness": "fairness over time against NAT (figure)",
}


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and each trace's figures."""
    return [
        f"{root}/elastic/report.md",
        *figure_files(f"{root}/elastic/plots", FIGURES, chosen["elastic"]["traces"]),
    ]


def job_sets(section: dict, trace: str) -> list[str]:
    """The job sets of a trace: "1".."N" (the first N consecutive sets), the listed set numbers,
    or "all" (every serial job)."""
    chosen = section["job_sets"].get(trace, 1)
    if chosen == "all":
        return ["all"]
    return [str(k) for k in (chosen if isinstance(chosen, list) else range(1, chosen + 1))]


def run_options(base_seed: int, chosen: RunSettings, trace: str) -> str:
    """`simcore elastic-run` options of a trace's job sets."""
    section = chosen["elastic"]
    profile = section["profiles"].get(trace)
    return " ".join(
        [
            f"--set-jobs {section['set_jobs']} --pre-training {section['pre_training']}",
            f"--monitoring {section['monitoring']}",
            f"--time-compression {section['time_compression'].get(trace, 1)}",
            f"--seeds {section['seeds']}",
            f"--rigid-pool {section['rigid_pool'].get(trace, 'site')}",
            f"--runs '{json.dumps(section['runs'])}'",  # in the config's order
            f"--vo-profile {profile} --profile-seed {base_seed}" if profile else "",
        ]
    )


def runs(root: str, chosen: RunSettings) -> list[str]:
    """Every trace's job-set runs."""
    section = chosen["elastic"]
    return [
        f"{root}/elastic/runs/{trace}/{jobset}.parquet"
        for trace in section["traces"]
        for jobset in job_sets(section, trace)
    ]


def first_job_set(kind: str, root: str, chosen: RunSettings, trace: str) -> str:
    """A trace's first job set's file of one kind (series, pools), which its figures draw."""
    return f"{root}/elastic/{kind}/{trace}/{job_sets(chosen['elastic'], trace)[0]}.parquet"
