"""Can stage chains reconcile the ASA_X paper's Table 3 with its Table 2? (docs/coscheduling_stages.md)

Reads resources/published/asax-2024.csv only (pandas; no simcore import, no network; well under
a second) and prints two tables:

1. Per strategy and cluster size: Table 3's response - wait (R - W, the mean run time it implies
   if a workflow is one job), Table 2's job-weighted mean total runtime T (weights 4 Montage,
   4 BLAST, 4 Statistics, 3 Synthetic: one §4.4 set), their ratio, and the in-chain waiting
   X = (R - W) - T that a workflow must spend between its stages if W is its FIRST stage's wait
   and R runs to its LAST stage's end (reading A). Per transition: X over the job-weighted mean
   number of stage-to-stage transitions, fewest (Montage 4 stage groups, Statistics 2 stages:
   23/15) and most (Montage 9 stages, Statistics 4 sub-stages: 51/15). Intervals ([lo, hi]) come
   from the printed precision alone: Table 3 to 0.1 h, Table 2 to 0.01 h.
2. The rigid-area bound under Slurm: if each workflow is ONE job holding its q cores for its whole
   Table 2 run time (the model of simcore/studies/coscheduling/paper_queue.py, whose run-time
   formula is repeated here), the k-th of the 45 jobs to finish cannot finish before the k
   smallest areas q*W fill the m cores, so mean response >= mean_k S_k / m. The largest share f of
   that area with which Table 3's Slurm response is still reachable is R / bound (the bound is
   linear in the area; the run times alone give mean response >= T).

The readings tested in table 1 (n = stage jobs per workflow, job-weighted mean n_bar: 38/15 to
66/15): B, W = the sum of a workflow's stage waits, needs R - W = T (ratio 1); C, W = the mean wait
over all stage jobs and R per workflow, needs X = (n_bar - 1) W, i.e. X/W in [1.53, 3.40]; D, W and
R both means over stage jobs, needs ratio = 1/n_bar in [0.23, 0.40]; A needs only X >= 0.

--simulate (opt-in; imports simcore, about a second): the 45 workflows as stage chains (the stage
profiles assumed in docs/coscheduling_stages.md §3: sequential share s = 0.05, 0.2, 0.5 on 1 core,
0.2 on the workflow's q cores, and the one-job model for comparison) on the co-scheduling core
(SPACE, STATIC, ASAX on FCFS-EASY; STATIC and ASAX also on first fit) and on the EASY engine with
LCFS (later stages ahead), each stage submitted at its predecessor's end by iterating submit times
to a fixed point.

    python benchmarks/stage_chains.py [--simulate]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

CSV = Path(__file__).resolve().parents[1] / "resources" / "published" / "asax-2024.csv"
STRATEGIES = ("Slurm", "Static", "ASA_X")
SIZES = {"Montage": (8, 16, 32, 64), "BLAST": (8, 16, 32, 64), "Statistics": (8, 16, 32, 64), "Synthetic": (16, 32, 64)}
WEIGHTS = {name: len(sizes) for name, sizes in SIZES.items()}  # jobs of a class in one set of 15
SETS = 3
# stage-to-stage transitions per workflow (§4.2): fewest and most the paper's wording allows
TRANSITIONS = {"fewest": {"Montage": 3, "BLAST": 1, "Statistics": 1, "Synthetic": 1},
               "most": {"Montage": 8, "BLAST": 1, "Statistics": 3, "Synthetic": 1}}  # fmt: skip
STAGES = {"fewest": {"Montage": 4, "BLAST": 2, "Statistics": 2, "Synthetic": 2},
          "most": {"Montage": 9, "BLAST": 2, "Statistics": 4, "Synthetic": 2}}  # fmt: skip
T3_HALF, T2_HALF = 0.05, 0.005  # half the last printed digit, hours
ROW = re.compile(r"(?P<strategy>\S+) (?P<cores>\d+) cores \((?P<load>\d+x)\)(?: (?P<workflow>\w+))?$")


def published() -> pd.DataFrame:
    frame = pd.read_csv(CSV)
    parts = frame["row"].str.extract(ROW)
    frame = pd.concat([frame, parts], axis=1)
    frame["cores"] = frame["cores"].astype(int)
    return frame


def table3(frame: pd.DataFrame) -> pd.DataFrame:
    t3 = frame[frame["table"] == "Table 3"].pivot_table(
        index=["strategy", "cores", "load"], columns="column", values="value"
    )
    return t3.rename(columns={"wait h": "W", "response h": "R", "CPU util %": "cpu"})


def table2(frame: pd.DataFrame) -> pd.DataFrame:
    t2 = frame[(frame["table"] == "Table 2 per workflow") & (frame["column"].isin(["runtime h", "runtime sd %"]))]
    return t2.pivot_table(index=["strategy", "cores", "workflow"], columns="column", values="value")


def weighted(per_workflow: pd.Series, weights: dict) -> float:
    return sum(weights[name] * per_workflow[name] for name in weights) / sum(weights.values())


def reconciliation(frame: pd.DataFrame) -> pd.DataFrame:
    t3, t2 = table3(frame), table2(frame)
    fewest = weighted(pd.Series(TRANSITIONS["fewest"]), WEIGHTS)
    most = weighted(pd.Series(TRANSITIONS["most"]), WEIGHTS)
    rows = []
    for strategy in STRATEGIES:
        for (cores, load), values in t3.loc[strategy].iterrows():
            runtime = t2.loc[(strategy, cores), "runtime h"]
            t = weighted(runtime, WEIGHTS)
            gap = values["R"] - values["W"]
            lo, hi = gap - 2 * T3_HALF, gap + 2 * T3_HALF
            x = gap - t
            rows.append(
                {
                    "strategy": strategy,
                    "cores": cores,
                    "load": load,
                    "W": values["W"],
                    "R": values["R"],
                    "R-W": gap,
                    "T2": t,
                    "ratio": gap / t,
                    "ratio lo": lo / (t + T2_HALF),
                    "ratio hi": hi / (t - T2_HALF),
                    "X=R-W-T": x,
                    "X lo": lo - t - T2_HALF,
                    "X hi": hi - t + T2_HALF,
                    "X/W": x / values["W"],
                    "X/W lo": (lo - t - T2_HALF) / (values["W"] + T3_HALF),
                    "X/W hi": (hi - t + T2_HALF) / (values["W"] - T3_HALF),
                    "X/transition": f"{x / most:.2f}..{x / fewest:.2f}",
                }
            )
    table = pd.DataFrame(rows)
    n_lo, n_hi = (weighted(pd.Series(STAGES[key]), WEIGHTS) for key in ("fewest", "most"))
    table["A X>=0"] = table["X hi"] >= 0
    table["B ratio=1"] = (table["ratio lo"] <= 1) & (table["ratio hi"] >= 1)
    table["C X/W=n-1"] = (table["X/W hi"] >= n_lo - 1) & (table["X/W lo"] <= n_hi - 1)
    table["D ratio=1/n"] = (table["ratio lo"] <= 1 / n_lo) & (table["ratio hi"] >= 1 / n_hi)
    return table


def slurm_run_times(mean_h: float, sd_percent: float, sizes) -> np.ndarray:
    """paper_queue.workflow_run_times in hours: mean x (1 + sd x z), z standardised -log2(size)."""
    narrowness = -np.log2(np.asarray(sizes, dtype=float))
    z = (narrowness - narrowness.mean()) / narrowness.std()
    return mean_h * (1.0 + sd_percent / 100.0 * z)


def rigid_bound(frame: pd.DataFrame) -> pd.DataFrame:
    t3, t2 = table3(frame), table2(frame)
    rows = []
    for (cores, load), values in t3.loc["Slurm"].iterrows():
        areas, runs = [], []
        for name, sizes in SIZES.items():
            mean_h, sd = t2.loc[("Slurm", cores, name), ["runtime h", "runtime sd %"]]
            run = slurm_run_times(mean_h, sd, sizes)
            areas += list(np.asarray(sizes) * run) * SETS
            runs += list(run) * SETS
        squashed = np.cumsum(np.sort(areas)) / cores
        bound = max(squashed.mean(), np.mean(runs))
        rows.append(
            {
                "cores": cores,
                "load": load,
                "core-h (45 jobs)": sum(areas),
                "makespan >= h": sum(areas) / cores,
                "mean response >= h": bound,
                "mean wait >= h": bound - np.mean(runs),
                "paper R": values["R"],
                "paper W": values["W"],
                "area share f <=": values["R"] / squashed.mean(),
            }
        )
    return pd.DataFrame(rows)


# -- --simulate: stage chains by fixed-point iteration (docs/coscheduling_stages.md §3) -----------------


def stage_profile(name: str, s: float | None) -> list[tuple[str, float]]:
    """(kind, share of the workflow's run time): p parallel on the workflow's q cores, s sequential
    (on 1 core, or on q with `wide`); s None: the workflow as one job (paper_queue's model)."""
    if s is None:
        return [("p", 1.0)]
    half_p, half_s = (1 - s) / 2, s / 2
    return {
        "BLAST": [("p", 1 - s), ("s", s)],
        "Synthetic": [("s", s), ("p", 1 - s)],
        "Montage": [("p", half_p), ("s", half_s), ("p", half_p), ("s", half_s)],
        "Statistics": [("s", half_s), ("p", half_p), ("s", half_s), ("p", half_p)],
    }[name]


def chain_run(cores: int, strategy: str, s: float | None, wide: bool = False, iterations: int = 200) -> dict:
    """One strategy on the stage-chain queue: submit times iterated until each stage's is its
    predecessor's end (then the schedule is the one a core with dependencies would make: at an
    instant the core handles completions, then submissions, then one pass)."""
    from simcore import simulate
    from simcore.engine.workload import Workload
    from simcore.studies.coscheduling.paper_queue import NODE_MEMORY_PER_CORE_KB, paper_queue, workflow_classes
    from simcore.studies.coscheduling.sharing import SharingSettings, simulate_sharing

    queue, names = paper_queue(cores), workflow_classes(cores)
    rows = [
        (i, k, queue.procs[i] if kind == "p" or wide else 1, share * queue.run[i], queue.efficiency[i], queue.memory[i])
        for i in range(len(queue))
        for k, (kind, share) in enumerate(stage_profile(names[i], s))
    ]
    workflow, stage, procs, run, efficiency, memory = (np.array(column) for column in zip(*rows))
    n = len(rows)
    ids = np.arange(1, n + 1)
    chained = np.r_[False, workflow[1:] == workflow[:-1]]
    predecessor = np.arange(n)[chained] - 1
    submit = np.zeros(n)
    for x in np.flatnonzero(chained):  # first guess: no wait inside a chain
        submit[x] = submit[x - 1] + run[x - 1]
    lcfs = strategy == "SPACE-LCFS"  # the EASY engine, LCFS: a job holds its cores for its run time
    base, _, scheduler = strategy.partition(" ")  # "STATIC first-fit": the paper's Mesos base scheduler
    settings = None
    if not lcfs:
        memory_kb = float(NODE_MEMORY_PER_CORE_KB)
        settings = SharingSettings(base, memory=True, memory_capacity=memory_kb, scheduler=scheduler or "easy")
    iteration, change = 0, np.inf
    while change > 0 and iteration < iterations:
        iteration += 1
        jobs = Workload.from_arrays(
            submit, run, 2 * run, procs, cores, user=workflow + 1, job_id=ids, efficiency=efficiency, memory=memory
        )
        start, end = np.empty(n), np.empty(n)
        if lcfs:
            start[jobs.job_id - 1] = simulate(jobs, order="LCFS").start
            end = start + run
        else:
            result = simulate_sharing(jobs, settings, seed=[0, cores])
            start[jobs.job_id - 1], end[jobs.job_id - 1] = result.start, result.end
        moved = submit.copy()
        moved[chained] = end[predecessor]
        change, submit = np.abs(moved - submit).max(), moved
    last = np.r_[~chained[1:], True]
    hours = 3600.0
    first_wait = start[stage == 0].mean() / hours
    response = end[last].mean() / hours
    total_run = np.bincount(workflow, end - start).mean() / hours
    return {
        "cores": cores,
        "strategy": strategy,
        "stages": "one job" if s is None else f"s={s:g}" + (" seq on q" if wide else ""),
        "iterations": iteration,
        "fixed point": change == 0,
        "W first": first_wait,
        "W stage mean": (start - submit).mean() / hours,
        "W sum": np.bincount(workflow, start - submit).mean() / hours,
        "R": response,
        "T": total_run,
        "X=R-W1-T": response - first_wait - total_run,
        "(R-W1)/T": (response - first_wait) / total_run,
    }


def simulated_chains() -> pd.DataFrame:
    profiles = ((None, False), (0.05, False), (0.2, False), (0.5, False), (0.2, True))
    return pd.DataFrame(
        chain_run(cores, strategy, s, wide)
        for s, wide in profiles
        for cores in (64, 128, 256)
        for strategy in ("SPACE", "STATIC", "ASAX", "SPACE-LCFS", "STATIC first-fit", "ASAX first-fit")
    )


def main() -> None:
    frame = published()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    print("Table 3 (R, W) against Table 2 (T, job-weighted); X = in-chain waiting needed per workflow (reading A)")
    print(reconciliation(frame).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print()
    print("Slurm, one rigid job per workflow (q cores for its whole Table 2 run time): bounds on 45 jobs at t = 0")
    print(rigid_bound(frame).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    if "--simulate" in sys.argv[1:]:
        print()
        print("Stage chains simulated (hours; W first = Table 3's W under reading A)")
        print(simulated_chains().to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
