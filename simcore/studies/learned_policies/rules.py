"""What the learned-policies study's workflow rules (workflow/rules/studies/learned_policies.smk)
ask of the library: its files under a run's root and its jobs' tuple ranges."""

from __future__ import annotations

from simcore.campaign import layout
from simcore.campaign.settings import RunSettings


def outputs(root: str, chosen: RunSettings) -> list[str]:
    """The study's report section and its figure."""
    return [f"{root}/learned_policies/report.md", f"{root}/learned_policies/plots/scores.png"]


def tuple_chunks(chosen: RunSettings) -> list[tuple[int, int]]:
    """Tuple ranges (first, stop), one trial-scores job each."""
    section = chosen["learned_policies"]
    size = section["tuples_per_job"]
    return [(first, min(first + size, section["tuples"])) for first in range(0, section["tuples"], size)]


def tuple_range(chosen: RunSettings, chunk: int) -> str:
    """A trial-scores job's tuples, `first:stop`."""
    return "{}:{}".format(*tuple_chunks(chosen)[chunk])


def score_files(root: str, chosen: RunSettings) -> list[str]:
    """The trial scores, one file per trial-scores job."""
    return [f"{root}/learned_policies/scores/{chunk}.parquet" for chunk in range(len(tuple_chunks(chosen)))]


def model_workload(chosen: RunSettings) -> str:
    """The model workload the trials run on (`learned_policies.model`)."""
    return layout.TRACE.format(trace=chosen["learned_policies"]["model"])
