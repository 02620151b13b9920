"""What the job-selection study's workflow rules (workflow/rules/studies/job_selection.smk)
ask of the library: its files under a run's root and the baselines' options."""

from __future__ import annotations

from simcore.campaign.settings import RunSettings


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section."""
    return [f"{root}/job_selection/report.md"]


def baselines_options(chosen: RunSettings) -> str:
    """`simcore rl-baselines` options."""
    section = chosen["job_selection"]
    heads = section["lookahead_heads"]
    return (
        f"--orders {' '.join(section['orders'])} --sequences {section['sequences']} "
        f"--length {section['length']} --seed {section['seed']} --lookahead {' '.join(section['lookahead'])}"
        + ("" if heads is None else f" --lookahead-heads {heads}")
    )
