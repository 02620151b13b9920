"""What the learned-policies study's workflow rules (workflow/rules/studies/learned_policies.smk)
ask of the library: its files under a run's root and its jobs' tuple ranges."""

from __future__ import annotations


def outputs(root: str, chosen: dict) -> list[str]:
    """The study's report section and its figure."""
    return [f"{root}/learned_policies/report.md", f"{root}/learned_policies/plots/scores.png"]


def tuple_chunks(chosen: dict) -> list[tuple[int, int]]:
    """Tuple ranges (first, stop), one trial-scores job each."""
    section = chosen["learned_policies"]
    size = section["tuples_per_job"]
    return [(first, min(first + size, section["tuples"])) for first in range(0, section["tuples"], size)]
