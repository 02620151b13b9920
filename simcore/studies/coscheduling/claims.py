"""The ASA_X paper's claims judged on size (docs/coscheduling.md §8).

Each claim compares a magnitude of ours with the paper's at the same cluster size: the change of the
mean wait and of the mean response against Slurm (Table 3), the gain of the utilisation of allocated
capacity in points (Table 2's job-weighted means: Table 3 cannot be derived from Table 2, and only
Table 2 orders ASA_X at least as high as Static at every size) and the runtime change (Table 2). Ours
is the mean over the paired units (a window or a repetition of the queue, and a learner seed: each
against SPACE on the same jobs) with a 95 % Student interval. The claim *holds* when the whole
interval lies within a factor CLAIM_FACTOR of the paper's value, *fails* when none of it does, and is
*undetermined* otherwise. No claim compares with SPACE's own value (its slowdown is 1 by
construction), so none holds by construction.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simcore.reporting.intervals import UNDETERMINED, interval, within
from simcore.reporting.published import ASAX_LOADS, ASAX_TABLE2, ASAX_TABLE3
from simcore.studies.coscheduling.paper_queue import table2_weighted_mean
from simcore.studies.coscheduling.study import against_space

CLAIM_FACTOR = 2.0  # ours within a factor 2 of the paper's, either way
# claim -> (what it says, our column in against_space's rows, the unit it is compared in)
CLAIMS = {
    "wait": ("mean wait changes against SPACE as the paper's (Table 3)", "mean_wait_ratio", "%"),
    "response": ("mean response changes against SPACE as the paper's (Table 3)", "mean_response_ratio", "%"),
    "utilisation": (
        "utilisation of allocated capacity gains as the paper's (Table 2, job-weighted)",
        "allocation_utilisation_gain",
        "points",
    ),
    "runtime": ("mean runtime changes as the paper's (Table 2)", "runtime_change", "%"),
}
CLAIM_CONFIGURATIONS = ("STATIC", "ASAX")
CLAIM_COLUMNS = [
    "trace",
    "experiment",
    "load",
    "kappa",
    "claim",
    "configuration",
    "ours",
    "low",
    "high",
    "units",
    "paper",
    "paper_source",
    "outcome",
    "evidence",
    "reason",
]
_LABELS = {float(load): label for label, (load, _) in ASAX_LOADS.items()}


def paper_value(claim: str, configuration: str, label: str) -> float:
    """The paper's magnitude of `claim` for a strategy at a load label (8x, 4x, 2x): a change in
    percent, or a gain in points."""
    if claim in ("wait", "response"):
        column = 0 if claim == "wait" else 2
        return 100.0 * (ASAX_TABLE3[(configuration, label)][column] / ASAX_TABLE3[("SPACE", label)][column] - 1.0)
    if claim == "utilisation":
        return table2_weighted_mean(configuration, label) - table2_weighted_mean("SPACE", label)
    return float(ASAX_TABLE2[(configuration, label)][0])


def paper_at(claim: str, configuration: str, load: float) -> tuple[float, str]:
    """The paper's value at an E1 load it ran (8, 4, 2), else its mean over its three sizes (stated)."""
    if load in _LABELS:
        return paper_value(claim, configuration, _LABELS[load]), f"at {_LABELS[load]}"
    return float(np.mean([paper_value(claim, configuration, label) for label in ASAX_LOADS])), "mean of its sizes"


def band(paper: float) -> tuple[float, float]:
    """Values within a factor CLAIM_FACTOR of the paper's, with its sign."""
    ends = (paper / CLAIM_FACTOR, paper * CLAIM_FACTOR)
    return min(ends), max(ends)


def judge(low: float, high: float, paper: float) -> str:
    """holds: the whole interval in the band; fails: none of it; undetermined otherwise."""
    return UNDETERMINED if paper == 0 else within(low, high, *band(paper))


def _ours(claim: str, block: pd.DataFrame) -> np.ndarray:
    column = CLAIMS[claim][1]
    values = block[column].to_numpy(dtype=float)
    return 100.0 * (values - 1.0) if column.endswith("_ratio") else values


def claims(runs: pd.DataFrame, configurations=CLAIM_CONFIGURATIONS) -> pd.DataFrame:
    """Each claim for each of `configurations` (named as the paper's strategies they stand for),
    per trace, experiment, load and κ, from the runs (each against SPACE on the same window)."""
    merged = against_space(runs)
    keys = ["trace", "experiment", "load", "kappa"]
    rows = []
    for key, block in merged[merged["configuration"].isin(configurations)].groupby(keys, sort=False):
        for claim, (_, _, units) in CLAIMS.items():
            for configuration in configurations:
                part = block[block["configuration"] == configuration]
                if part.empty:
                    continue
                ours, low, high = interval(_ours(claim, part))
                paper, source = paper_at(claim, configuration, float(key[2]))
                outcome = judge(low, high, paper)
                lowest, highest = band(paper)
                unit = " points" if units == "points" else " %"
                rows.append(
                    {
                        **dict(zip(keys, key)),
                        "claim": claim,
                        "configuration": configuration,
                        "ours": ours,
                        "low": low,
                        "high": high,
                        "units": units,
                        "paper": paper,
                        "paper_source": source,
                        "outcome": outcome,
                        "evidence": f"{ours:+.1f}{unit} [{low:+.1f}, {high:+.1f}] over {len(part)} paired runs; "
                        f"the paper {paper:+.1f}{unit} ({source}; within ×{CLAIM_FACTOR:g}: "
                        f"{lowest:+.1f} … {highest:+.1f})",
                        "reason": _reason(outcome, ours, paper),
                    }
                )
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def _reason(outcome: str, ours: float, paper: float) -> str:
    if outcome == "holds":
        return ""
    if math.isnan(ours):
        return "no paired run"
    times = ours / paper if paper else math.nan
    size = f"ours is {times:.2f} times the paper's" if times == times else "the paper's value is 0"
    if outcome == "fails":
        return f"{size}: the whole interval is outside ×{CLAIM_FACTOR:g}"
    return f"{size}: the interval straddles a bound of ×{CLAIM_FACTOR:g}"
