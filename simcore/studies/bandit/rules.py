"""What the bandit study's workflow rules (workflow/rules/studies/bandit.smk) ask of the
library: its files under a run's root and the learners' options."""

from __future__ import annotations

import json

from simcore.campaign.settings import RunSettings
from simcore.campaign.studies import figure_files
from simcore.studies.bandit.learners import LEARNERS

# The study's figures (its figures.py draws them) and their labels in the HTML report, named here so
# that planning needs no matplotlib
FIGURES = {
    "strategies": "strategies against EASY-FCFS (figure)",
    "regret": "regret against the best fixed order (figure)",
    "choices": "orders chosen over time (figure)",
}
# The names the configuration's `learners` registry (x-registry in the schema) takes from the code
REGISTRIES = {"learners": tuple(LEARNERS)}


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's figures and Table 3 under a run's settings `chosen`."""
    return [
        *figure_files(f"{root}/plots", FIGURES, chosen["traces"]),
        f"{root}/tables/bandit.md",
    ]


def strategies_json(chosen: RunSettings) -> str:
    """The `bandit` section's strategies as `simcore learn --strategies` reads them."""
    return json.dumps(chosen["bandit"]["strategies"], sort_keys=True)


def base_json(chosen: RunSettings) -> str:
    """The `bandit` section's base policy as `simcore learn --base` reads it."""
    return json.dumps(chosen["bandit"]["base"], sort_keys=True)


def seed(chosen: RunSettings) -> int:
    """The learners' seed (0 unless the `bandit` section gives one)."""
    return chosen["bandit"].get("seed", 0)


def strategy_names(chosen: RunSettings) -> list[str]:
    """The strategies' names, in the config's order."""
    return list(chosen["bandit"]["strategies"])


def strategy_learners(chosen: RunSettings) -> list[str]:
    """Each strategy's learner, in the same order."""
    return [spec["learner"] for spec in chosen["bandit"]["strategies"].values()]
