"""The studies of the workflow, each registered by its own `workflow/rules/studies/<study>.smk`.

A study declares, in one `Study`, where its traces come from, its category in the HTML report,
its place in the campaign (and in the reproduction report's sections) and the files it
produces; the workflow's targets, the `only` restriction and the reproduction report loop over
the registry, so adding a study touches its own files only (docs/extending.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # settings.py imports this module
    from simcore.campaign.settings import RunSettings

from collections.abc import Callable
from dataclasses import dataclass, field

from simcore.workloads.resample import MIN_RESAMPLE_WEEKS

# Every figure is written twice: PNG for the HTML report, PDF for papers.
FIGURE_FORMATS = ("png", "pdf")
# Where a study's traces come from, in its settings.
TRACE_SOURCES = {
    "own": "its section's `traces` (with its own filter, machine sizes and variants)",
    "campaign": "the campaign's `traces` (the fixed-policy resampling)",
    "model": "its section's `model` (one synthetic workload)",
}


@dataclass(frozen=True)
class Study:
    """One study of the workflow.

    `outputs(root, chosen)` lists the files the study produces under a run's root and settings
    (called only when the study runs there); `rank` orders the studies in the campaign and in the reproduction report;
    `in_artifact` marks the studies of the bandit paper's artifact configuration; `restrict`,
    when given, adapts a run's settings after `only` removed other studies and returns notes
    saying what changed (the dynamic-scheduling study without the learned-policies one);
    `site_logs` marks a study with its own traces that a site's logs (`local_traces`) join;
    `reproduction` False for a study with no paper to compare with (it writes no reproduction
    rows); `resamples` one that resamples its own traces (a study on the campaign's traces always does),
    which a log shorter than MIN_RESAMPLE_WEEKS cannot join (`min_weeks`); `registries`, the
    names a configuration registry (the schema's `x-registry`) takes from the study's code."""

    name: str
    rank: int
    category: str
    outputs: Callable[[str, RunSettings], list[str]]
    traces: str = "own"
    in_artifact: bool = False
    restrict: Callable[[RunSettings], list[str]] | None = None
    site_logs: bool = False
    resamples: bool = False
    reproduction: bool = True
    registries: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def min_weeks(self) -> int:
        """The fewest week indices a trace's submits must touch for this study to run on it."""
        return MIN_RESAMPLE_WEEKS if self.resamples or self.traces == "campaign" else 0

    def __post_init__(self):
        if self.traces not in TRACE_SOURCES:
            raise ValueError(f"study {self.name}: traces={self.traces!r}, expected one of {', '.join(TRACE_SOURCES)}")
        if self.site_logs and self.traces != "own":
            raise ValueError(f"study {self.name}: site_logs needs traces of its own (traces='own')")

    def declared_traces(self, chosen: RunSettings) -> list[str]:
        """The traces (or the model) the study uses under settings `chosen`."""
        if self.traces == "campaign":
            return list(chosen["traces"])
        if self.traces == "model":
            return [chosen[self.name]["model"]]
        return list(chosen[self.name]["traces"])


class StudyRegistry:
    """The registered studies, in rank order."""

    def __init__(self):
        self._studies: dict[str, Study] = {}

    def register(self, study: Study) -> Study:
        if study.name in self._studies:
            raise ValueError(f"study {study.name} is registered twice")
        ranks = {other.rank: other.name for other in self._studies.values()}
        if study.rank in ranks:
            raise ValueError(f"study {study.name}: rank {study.rank} is study {ranks[study.rank]}'s already")
        self._studies[study.name] = study
        return study

    def __getitem__(self, name: str) -> Study:
        return self._studies[name]

    def __iter__(self):
        return iter(sorted(self._studies.values(), key=lambda study: study.rank))

    def registries(self) -> dict[str, tuple[str, ...]]:
        """Every registered study's registries (simcore.campaign.config.check_registry_names)."""
        return {name: names for study in self for name, names in study.registries.items()}

    def names(self, traces: str | None = None, site_logs: bool | None = None) -> tuple[str, ...]:
        """The studies' names in rank order (those whose traces come from `traces`, and those
        taking site logs or not, if given)."""
        return tuple(
            study.name
            for study in self
            if (traces is None or study.traces == traces) and (site_logs is None or study.site_logs == site_logs)
        )


def figure_files(folder: str, figures, traces=None) -> list[str]:
    """A study's figure files in `folder`: `<figure>.<format>`, or `<trace>.<figure>.<format>` of
    every trace when `traces` are given."""
    stems = list(figures) if traces is None else [f"{trace}.{figure}" for trace in traces for figure in figures]
    return [f"{folder}/{stem}.{ext}" for stem in stems for ext in FIGURE_FORMATS]
