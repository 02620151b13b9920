"""Dynamic scheduling experiments (the thesis's section 3.3; seed 004).

A workload is cut into non-overlapping sequences of `days` days. Each sequence
is simulated alone, from an empty machine, its clock starting when its window
opens (so r in the learned functions is the time since then), with every
policy under three settings: decisions on the actual run times without
backfilling, on the users' requests without backfilling, and on the requests
with aggressive backfilling. The output is one AVEbsld per (sequence,
setting, policy); Table 3.3 is their median.
Decisions: docs/semantics.md, "Dynamic scheduling experiments".
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from simcore.engine.policies import NAMED_ORDERS
from simcore.engine.priority import THESIS_FUNCTIONS, PriorityFunction
from simcore.engine.simulation import simulate
from simcore.reporting.published import THESIS_TABLE33, THESIS_TABLE33_POLICIES

DAY = 86400.0
SETTINGS = {
    "actual": {"estimate": "clairvoyant", "backfill": "none"},
    "estimates": {"estimate": "request", "backfill": "none"},
    "backfilling": {"estimate": "request", "backfill": "queue"},
}
SETTING_TITLES = {
    "actual": "actual run times",
    "estimates": "user estimates",
    "backfilling": "user estimates, aggressive backfilling",
}
HAND_ENGINEERED = ("FCFS", "WFP3", "UNICEF", "SPF")


def learned_functions(functions: pd.DataFrame, count: int) -> dict[str, PriorityFunction]:
    """Our regression's best `count` functions (fit_family's ranking) as L1, L2, ..."""
    if len(functions) < count:
        raise ValueError(f"{count} learned functions asked for, the fit ranked {len(functions)}")
    return {
        f"L{k + 1}": PriorityFunction(
            (row.phi_p, row.phi_q, row.phi_r, row.op1, row.op2), (row.theta1, row.theta2, row.theta3)
        )
        for k, row in enumerate(functions.head(count).itertuples(index=False))
    }


def policies(names, learned: dict[str, PriorityFunction]) -> dict[str, tuple[str, PriorityFunction | None]]:
    """name -> (queue order, priority function or None): queue orders by
    name, the thesis's F1-F4, and the learned functions in `learned`."""
    table = {}
    for name in names:
        function = THESIS_FUNCTIONS.get(name) or learned.get(name)
        if function is None and name not in NAMED_ORDERS:
            raise ValueError(
                f"unknown policy {name!r}: a queue order ({', '.join(NAMED_ORDERS)}), "
                f"one of the thesis's {', '.join(THESIS_FUNCTIONS)} or a learned L1, L2, ..."
            )
        table[name] = ("FUNCTION", function) if function is not None else (name, None)
    return table


def sequences(workload, days: float, limit: int | None = None):
    """(number, window start, workload) of the non-overlapping windows of
    `days` days from the first submission, the last window ending by the last
    submission; windows without jobs are skipped. Submit times are counted
    from the window's start."""
    length = days * DAY
    if len(workload) == 0:
        return
    first = workload.submit[0]
    count = int((workload.submit[-1] - first) // length)
    if limit is not None:
        count = min(count, limit)
    edges = first + length * np.arange(count + 1)
    bounds = np.searchsorted(workload.submit, edges, side="left")
    for number in range(count):
        if bounds[number + 1] > bounds[number]:
            part = workload.take(np.arange(bounds[number], bounds[number + 1]))
            yield number, float(edges[number]), replace(part, submit=part.submit - edges[number])


def run_sequences(
    workload, named_policies: dict, settings, days: float, limit: int | None = None, part: int = 0, parts: int = 1
) -> pd.DataFrame:
    """Every policy under every setting on the sequences numbered part, part +
    parts, ... (a share of the trace's sequences, for one job)."""
    rows = []
    for number, start, sequence in sequences(workload, days, limit):
        if number % parts != part:
            continue
        for setting in settings:
            for name, (order, function) in named_policies.items():
                summary = simulate(sequence, order=order, function=function, **SETTINGS[setting]).summary()
                rows.append(
                    {
                        "sequence": number,
                        "window_start": start,
                        "setting": setting,
                        "policy": name,
                        "jobs": summary["jobs"],
                        "avg_bsld": summary["avg_bsld"],
                        "avg_wait": summary["avg_wait"],
                        "backfilled": summary["backfilled"],
                    }
                )
    return pd.DataFrame(
        rows, columns=["sequence", "window_start", "setting", "policy", "jobs", "avg_bsld", "avg_wait", "backfilled"]
    )


def median_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 3.3: per (trace, setting), the number of sequences, their length in
    days and the median AVEbsld of each policy (a column each, in the runs'
    policy order)."""
    order = list(dict.fromkeys(runs["policy"]))
    keys = ["trace", "published_as", "days", "setting"]
    medians = runs.pivot_table(index=keys, columns="policy", values="avg_bsld", aggfunc="median", sort=False)[order]
    counts = runs.groupby(keys, sort=False)["sequence"].nunique()
    table = medians.assign(sequences=counts).reset_index()
    return table[["trace", "published_as", "setting", "sequences", "days", *order]]


def published_row(published_as: str, setting: str) -> dict[str, float]:
    """The thesis's Table 3.3 row of an experiment ({} when it has none)."""
    values = THESIS_TABLE33.get((published_as, setting))
    return dict(zip(THESIS_TABLE33_POLICIES, values)) if values else {}


def best_ratios(medians: pd.DataFrame, groups: dict[str, list[str]]) -> pd.DataFrame:
    """Per group of functions (label -> policies) and experiment: the best
    hand-engineered median over the group's best median (the thesis reports
    e.g. "between 7.22 and 84.18 times better")."""
    rows = []
    for label, functions in groups.items():
        for _, row in medians.iterrows():
            hand = [row[p] for p in HAND_ENGINEERED if p in row.index]
            learned = [row[f] for f in functions if f in row.index]
            if hand and learned:
                rows.append(
                    {
                        "trace": row["trace"],
                        "setting": row["setting"],
                        "functions": label,
                        "best_hand_engineered": min(hand),
                        "best_function": min(learned),
                        "ratio": min(hand) / min(learned),
                    }
                )
    return pd.DataFrame(
        rows, columns=["trace", "setting", "functions", "best_hand_engineered", "best_function", "ratio"]
    )
