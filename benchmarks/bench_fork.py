"""Cost of Simulation.fork mid-way through a whole trace, and of the lookahead baseline per episode.

    python benchmarks/bench_fork.py [--traces CEA-Curie SDSC-SP2] [--pwa-mirror DIR] [--episodes 3]

Forks: each trace (strict filter) is simulated to the submission of its middle job (and, EASY-FCFS,
to the one of 100 evenly spaced submissions with the longest queue), then forked
`--forks` times (each fork dropped before the next); the table gives the median time of one fork
beside what it copies (waiting and running jobs) and, as the peer measured in the same run, the
time to make a new Simulation of the same trace, which is O(jobs) (it validates nothing more, the
jobs being shared). EASY-FCFS, and the same cut with the `ave2` and `regression` predictors (the
regression predictor's state is per job: its fork is O(jobs) by design).

Lookahead: JobSelection-v0 episodes of 1,024 jobs (the rl_baselines study's), EASY and no
backfilling, the lookahead over every filled slot of the 128-slot window with base FCFS, against the
same episode driven by the first slot alone, seconds per episode (mean over `--episodes` episodes
drawn by `default_rng(0)`).
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial
from pathlib import Path

import numpy as np

import simcore
from simcore.engine.simulation import Simulation, core_jobs
from simcore.studies.job_selection.env import JobSelectionEnv
from simcore.studies.job_selection.lookahead import LookaheadPolicy

REPO = Path(__file__).resolve().parent.parent
FILES = {
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
}


def median_seconds(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def busiest(workload, jobs) -> float:
    """The submission instant, among 100 evenly spaced in job order, with the most waiting jobs."""
    sim = Simulation(workload, "FCFS", jobs=jobs)
    best, most = 0.0, -1
    for position in np.linspace(0, len(workload) - 1, 100).astype(int):
        sim.run_until(float(workload.submit[position]))
        waiting = sim.waiting(np.zeros(0, dtype=np.int64))
        if waiting > most:
            best, most = float(workload.submit[position]), waiting
    return best


def fork_rows(name: str, path: Path, forks: int) -> list[str]:
    workload = simcore.read_swf(path, filter="strict")
    jobs = core_jobs(workload)
    rows = []
    cuts = [
        ("middle", float(workload.submit[len(workload) // 2]), "request"),
        ("longest queue", busiest(workload, jobs), "request"),
    ]
    cuts += [("middle", cuts[0][1], "ave2"), ("middle", cuts[0][1], "regression")]
    for cut, instant, estimate in cuts:
        sim = Simulation(workload, "FCFS", estimate=estimate, jobs=jobs)
        sim.run_until(instant)
        waiting = sim.waiting(np.zeros(0, dtype=np.int64))
        running = int(np.sum(sim.end_times >= instant))  # started before the instant (NaN: not started)
        fork = median_seconds(sim.fork, forks)
        made = median_seconds(partial(Simulation, workload, "FCFS", estimate=estimate, jobs=jobs), max(forks // 10, 5))
        check = sim.fork().finish().start
        assert np.array_equal(check, sim.finish().start, equal_nan=True)
        rows.append(
            f"| {name} | {len(workload):,} | {cut} | {estimate} | {waiting:,} | {running:,} | {fork * 1e6:,.0f} | "
            f"{made * 1e6:,.0f} | {made / fork:,.0f}× |"
        )
    return rows


def lookahead_rows(name: str, mirror: Path, episodes: int) -> list[str]:
    rows = []
    for backfill in ("easy", "none"):
        env = JobSelectionEnv(name, sequence_length=1024, backfill=backfill, pwa_mirror=mirror)
        starts = np.random.default_rng(0).integers(0, len(env.workload) - 1024, episodes)
        timings = {}
        for label, policy in (("first slot", lambda _: 0), ("lookahead", LookaheadPolicy())):
            began = time.perf_counter()
            decisions = 0
            for start in starts:
                env.reset(options={"start": int(start)})
                terminated = False
                while not terminated:
                    terminated = env.step(policy(env))[2]
                    decisions += 1
            timings[label] = ((time.perf_counter() - began) / episodes, decisions / episodes)
        (alone, _), (searched, decisions) = timings["first slot"], timings["lookahead"]
        rows.append(
            f"| {name} | {backfill} | {decisions:,.0f} | {alone:.3f} | {searched:.3f} | {searched / alone:,.0f}× |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", nargs="+", default=["CEA-Curie", "SDSC-SP2"], choices=list(FILES))
    parser.add_argument("--lookahead-traces", nargs="*", default=["SDSC-SP2", "HPC2N"], choices=list(FILES))
    parser.add_argument("--pwa-mirror", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--forks", type=int, default=200)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    print("| trace | jobs | cut | estimate | waiting | running | fork (µs) | new Simulation (µs) | ratio |")
    print("|---|--:|---|---|--:|--:|--:|--:|--:|")
    for name in args.traces:
        print("\n".join(fork_rows(name, args.pwa_mirror / FILES[name], args.forks)), flush=True)
    print()
    print("| trace | backfill | decisions / episode | first slot (s / episode) | lookahead (s / episode) | ratio |")
    print("|---|---|--:|--:|--:|--:|")
    for name in args.lookahead_traces:
        print("\n".join(lookahead_rows(name, args.pwa_mirror, args.episodes)), flush=True)


if __name__ == "__main__":
    main()
