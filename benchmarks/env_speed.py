"""Speed of the co-scheduling Gymnasium environment (schedsweep/CoScheduling-v0) on whole traces.

    python benchmarks/env_speed.py [--traces UniLu-Gaia HPC2N] [--loads 0.7 0.9] [--machine-sizes 400]

For each trace (truncate filter, efficiency and memory as logged) and each machine: the header's
size, one sized for each E2 offered load (study.replay_workload) and any given size, jobs wider
than the machine dropped. One whole-trace episode per row, each timed once:

- **ASAX in C s**: simulate_sharing with strategy ASAX, every decision made in C (the floor);
- **EXTERNAL loop s**: SharingRun with strategy EXTERNAL driven by the masked random policy
  straight from Python, without the environment;
- **env replay s**: env.reset() and every env.step() of the masked random policy to the end;
- **steps/s**, **µs/step**: steps of that replay over its time.

The masked random policy draws a uniform admissible level per case, so its schedule (and its
number of cases) differs from ASAX's. No peer environment simulates co-scheduling, so there is
no peer row; none of the job-selection environments (RLScheduler, sched-rl-gym, CQGym, ...)
publishes steps per second either.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from simcore.studies.coscheduling.env import CoSchedulingEnv
from simcore.studies.coscheduling.sharing import SharingRun, simulate_sharing
from simcore.studies.coscheduling.study import replay_workload
from simcore.workloads.sources import load_workload, with_machine_size

REPO = Path(__file__).resolve().parent.parent
TRACES = ("UniLu-Gaia", "HPC2N")  # the two that log CPU time and memory (docs/coscheduling.md §6)


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> int:
    valid = np.flatnonzero(mask)
    return int(valid[rng.integers(len(valid))])


def seconds(function, *args, **kwargs):
    """Wall-clock seconds of one call, and its value."""
    began = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - began, value


def external_loop(env: CoSchedulingEnv, seed: int) -> int:
    run = SharingRun(env.workload, env.settings)
    rng = np.random.default_rng(seed)
    steps = 0
    while run.advance():
        run.decide(masked_random(run.core.case_mask(), rng))
        steps += 1
    return steps


def env_replay(env: CoSchedulingEnv, seed: int) -> int:
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = 0
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(masked_random(info["action_mask"], rng))
        steps += 1
    return steps


def measure(label: str, env: CoSchedulingEnv, seed: int) -> dict:
    asax_s, asax = seconds(simulate_sharing, env.workload, replace(env.settings, strategy="ASAX"), seed=seed)
    external_s, _ = seconds(external_loop, env, seed)
    replay_s, steps = seconds(env_replay, env, seed)
    return {
        "machine": label,
        "jobs": len(env.workload),
        "asax_cases": asax.learner["cases"],
        "asax_s": asax_s,
        "external_s": external_s,
        "steps": steps,
        "replay_s": replay_s,
    }


def table(rows: list[dict]) -> list[str]:
    lines = [
        "| trace | machine | jobs | ASAX cases | ASAX in C s | EXTERNAL loop s | env steps | env replay s "
        "| steps/s | µs/step |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        per_second = row["steps"] / row["replay_s"]
        lines.append(
            f"| {row['trace']} | {row['machine']} | {row['jobs']:,} | {row['asax_cases']:,} | {row['asax_s']:.3f} "
            f"| {row['external_s']:.3f} | {row['steps']:,} | {row['replay_s']:.3f} | {per_second:,.0f} "
            f"| {1e6 / per_second:.1f} |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", choices=TRACES, default=["UniLu-Gaia"])
    parser.add_argument(
        "--loads", nargs="*", type=float, default=[0.7, 0.9], help="E2 offered loads (default: %(default)s)"
    )
    parser.add_argument("--machine-sizes", nargs="*", type=int, default=[], help="further machine sizes")
    parser.add_argument("--pwa", type=Path, default=REPO.parent / "shared" / "pwa", help="the PWA mirror")
    parser.add_argument("--seed", type=int, default=0, help="of the random policy and the ASAX learner")
    parser.add_argument("--output", type=Path, metavar="FILE", help="also write the table to FILE (Markdown)")
    args = parser.parse_args(argv)

    rows = []
    for trace in args.traces:
        load_s, logged = seconds(load_workload, trace, pwa_mirror=args.pwa)
        print(f"{trace}: read and filtered in {load_s:.2f} s", flush=True)
        machines = {f"header, m = {logged.machine_size}": logged}
        for load in args.loads:
            replayed, _ = replay_workload(logged, load)
            machines[f"E2 load {load:g}, m = {replayed.machine_size}"] = replayed
        for size in args.machine_sizes:
            machines[f"m = {size}"] = with_machine_size(logged, size)
        for label, workload in machines.items():
            row = measure(label, CoSchedulingEnv(workload), args.seed)
            rows.append({"trace": trace, **row})
            print(f"  {label}: {row['steps']:,} steps in {row['replay_s']:.2f} s", flush=True)
    text = "\n".join(table(rows)) + "\n"
    print(text, end="")
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
