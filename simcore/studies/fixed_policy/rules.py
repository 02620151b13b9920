"""What the fixed-policy study's workflow rules (workflow/rules/studies/fixed_policy.smk) ask
of the library: its files under a run's root."""

from __future__ import annotations

import json

from simcore.campaign.settings import RunSettings, variant_chunks
from simcore.campaign.studies import figure_files
from simcore.engine.policies import check_policies

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
FIGURES = {
    "cumulative_wait": "cumulative waiting time against EASY-FCFS (figure)",
    "bsld": "AVEbsld per queue order (figure)",
}


def site_policies(chosen: RunSettings) -> dict:
    """The run's site policies, checked when the DAG is planned rather than when a sweep job
    reaches them; {} for none."""
    try:
        return check_policies(chosen["fixed_policy"].get("site_policies"), "fixed_policy.site_policies")
    except ValueError as error:
        raise ValueError(f"config: {error}") from None


def site_policies_json(chosen: RunSettings) -> str:
    """The site policies as `simcore sweep-site-policies --policies` takes them."""
    return json.dumps(site_policies(chosen))


def site_policies_section(root: str, chosen: RunSettings) -> str | list:
    """The site policies' report section, which Table 2's section appends (none without them)."""
    return f"{root}/fixed_policy/site_policies.md" if site_policies(chosen) else []


def site_policy_sweeps(kind: str, root: str, chosen: RunSettings) -> list[str]:
    """The site-policy sweep's files of one kind (site_policies, fair_share), one per trace and chunk."""
    return [
        f"{root}/sweep/{trace}/{chunk}.{kind}.parquet"
        for trace in chosen["traces"]
        for chunk in range(len(variant_chunks(chosen, "fixed_policy")))
    ]


def thresholds(chosen: RunSettings) -> list[str]:
    """The sweep's starvation thresholds as `simcore sweep --thresholds` takes them (none: no threshold)."""
    return ["none" if value is None else str(value) for value in chosen["fixed_policy"]["thresholds"]]


def reproduction_threshold(chosen: RunSettings) -> str:
    """The threshold of the policies Table 2 compares (`reproduction.threshold`; none: no threshold)."""
    threshold = chosen["reproduction"]["threshold"]
    return "none" if threshold is None else str(threshold)


def weeks_compared(chosen: RunSettings) -> str | int:
    """The weeks Table 2 averages: the resampled weeks, or the interior ones when not set."""
    return chosen["resample"].get("weeks") or "interior"


def resample_method(chosen: RunSettings) -> str:
    """How the run's variants are resampled (`resample.method`)."""
    return chosen["resample"]["method"]


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's summaries, figures and Table 2 under a run's settings `chosen`, and its site
    policies' when it has some."""
    traces = chosen["traces"]
    site_policy_files = [
        f"{root}/summary/site_policies.parquet",
        f"{root}/summary/fair_share.parquet",
        f"{root}/tables/site_policies.csv",
        f"{root}/plots/site_policies.png",
        f"{root}/plots/site_policies.pdf",
    ]
    return [
        *(f"{root}/summary/{trace}.runs.parquet" for trace in traces),
        *figure_files(f"{root}/plots", FIGURES, traces),
        f"{root}/tables/fixed_policy.csv",
        f"{root}/tables/fixed_policy.md",
        *(site_policy_files if site_policies(chosen) else []),
    ]
