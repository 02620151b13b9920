"""What the co-scheduling study's workflow rules (workflow/rules/studies/coscheduling.smk) ask
of the library: its files under a run's root and the options of its commands."""

from __future__ import annotations

import json

from simcore.campaign.settings import RunSettings
from simcore.campaign.studies import figure_files

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
FIGURES = {
    "ratios_e1": "E1 ratios to SPACE against load (figure)",
    "ratios_e2": "E2 ratios to SPACE against load (figure)",
    "utilisation": "utilisation of allocated capacity (figure)",
    "slowdown": "ECDF of the sharing slowdown (figure)",
    "weights": "ASAX expert weights over rounds (figure)",
    "actions": "quota levels chosen by ASAX (figure)",
}


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and each trace's figures."""
    return [
        f"{root}/coscheduling/report.md",
        *figure_files(f"{root}/coscheduling/plots", FIGURES, chosen["coscheduling"]["traces"]),
    ]


def configurations_options(section: dict) -> str:
    """The configurations (in the config's order), κ and seeds, as `simcore` options."""
    return " ".join(
        [
            f"--configurations '{json.dumps(section['configurations'])}'",
            "--kappas " + " ".join(str(kappa) for kappa in section["kappas"]),
            f"--seeds {section['seeds']}",
        ]
    )


def run_options(base_seed: int, chosen: RunSettings, trace: str) -> str:
    """`simcore coscheduling-run` options shared by E1 and E2 for one trace."""
    section = chosen["coscheduling"]
    capacity = section["memory_capacity"].get(trace)
    profile = section["profiles"].get(trace)
    return " ".join(
        [
            configurations_options(section),
            f"--memory {section['memory'].get(trace, 'on')}",
            f"--memory-capacity {capacity}" if capacity else "",
            f"--efficiency {section['efficiency'].get(trace, 'require')}",
            f"--profile {profile} --profile-seed {base_seed}" if profile else "",
        ]
    )


def queue_options(chosen: RunSettings) -> str:
    """`simcore coscheduling-paper-queue` options: the configurations, κ, seeds and walltimes, and the
    queue's own settings the config gives (the command's defaults are the paper's)."""
    section = chosen["coscheduling"]
    queue = section["paper_queue"]
    given = {
        "--queue-configurations": f"'{json.dumps(queue['configurations'])}'" if "configurations" in queue else None,
        "--scheduler": queue.get("scheduler"),
        "--repetitions": queue.get("repetitions"),
        "--learner": queue.get("learner"),
    }
    return " ".join(
        [
            configurations_options(section),
            f"--walltime-factor {queue['walltime_factor']}",
            *(f"{flag} {value}" for flag, value in given.items() if value is not None),
        ]
    )


def queue_file(name: str, root: str, chosen: RunSettings) -> list[str]:
    """The paper queue's file `name` (E1.parquet, classes.parquet), when the study runs the
    queue (`paper_queue`)."""
    return [f"{root}/coscheduling/runs/ASA_X-queue/{name}"] if chosen["coscheduling"]["paper_queue"] else []


def runs(root: str, chosen: RunSettings) -> list[str]:
    """Every trace's E1 and E2 runs, and the paper queue's."""
    return [
        f"{root}/coscheduling/runs/{trace}/{experiment}.parquet"
        for trace in chosen["coscheduling"]["traces"]
        for experiment in ("E1", "E2")
    ] + queue_file("E1.parquet", root, chosen)
