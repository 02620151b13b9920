"""CPU and wall time of the elastic study (seed 003) on a set of LPC-EGEE, and the whole study's projection.

    python benchmarks/bench_elastic.py [--runs ELA-EST-0.5 RIG-EST-0.5 ELA-ORA-0.5] [--cores 56] [--quick]

LPC-EGEE (truncate filter) is read from `--pwa-mirror` and cut as the study does (docs/elastic.md
§1); the first set of config/config.yaml's `job_sets` (the closest to the paper's workload) is
11,500 serial jobs, the first 2,000 for pre-training. Each measurement is one call,
timed once in this process: CPU seconds (time.process_time) and wall seconds (time.perf_counter).

1. **Runs.** Each setting of `--runs` (config/config.yaml's `elastic` runs) is one
   `agent.train_and_run`, seed 0: pre-training (EDF on the rigid pool, 5 sweeps) and the online run.
   FCFS, the baseline of the same process, and EDF run the online jobs on the rigid pool as the
   study's baselines do. **decisions**: the online run's, plus the 2,000 pre-training decisions
   for a learner; **µs/decision**: CPU over decisions; **CPU / FCFS**: CPU over FCFS's.
2. **Environments.** One online episode, reset included, of `SchedulingEnv` (GridScheduling-v1)
   and `ElasticEnv` (ElasticProvisioning-v1), EST and their default 14 description slots, driven
   by the masked random policy (uniform over ``info["action_mask"]``, seeded) and by the first
   valid action; their baseline is the same site loop driven by FCFS without the env (`run_site`,
   rigid, or elastic with the §8 levels). Then our SARSA learner (λ = 0.5, EST, seed 0) through the
   env (`agent.EnvAgent` after `agent.pre_train`), with the description slots and with a window of
   the whole set (every waiting job a slot: the direct run's decisions exactly), against
   `train_and_run` without the env. The policies make different decisions, so the episodes differ
   in length: **steps** are the episode's decisions, **steps/s** and **µs/step** use CPU time, and
   **/ baseline** is the CPU per step over the group's first row. The SARSA rows' seconds include
   the pre-training (2,000 EDF decisions), which their steps do not count.
3. **Projection.** The CPU time of the whole study of config/config.yaml's `elastic` section:
   every run x seeds, each costed as the measured run of the same pool and model (else as the
   dearest measured run; the stand-ins are listed), and the baselines of each set (FCFS and EDF on
   the rigid pool, FCFS on P_max, FCFS and EDF per elastic run and seed: the measured FCFS and EDF),
   scaled per job to each set's size. A set of `all` serial jobs (UniLu-Gaia: P_load 129, so longer queues and
   more pool levels) is scaled by its job count too: an estimate, not a measurement. NAT, the
   metrics and the files are not counted. The study runs one job per job set (`simcore
   elastic-run --set K`), so its parallelism is the number of sets: on more cores than sets the
   wall time is the longest set's, not the total over the cores.

`--quick` measures item 1 only, for the first setting of `--runs`. The targets of the elastic
issue (one ELA-EST run ≤ 30 CPU s, the whole study ≤ 1 CPU hour) get a PASS or FAIL line; the
exit code is 0 either way: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import yaml

from simcore.studies.elastic.agent import EnvAgent, Learner, pre_train, train_and_run
from simcore.studies.elastic.env import ElasticEnv, SchedulingEnv
from simcore.studies.elastic.jobsets import consecutive_sets, study_jobs
from simcore.studies.elastic.site import EDF, FCFS, pool_levels, run_site
from simcore.workloads.sources import load_workload

REPO = Path(__file__).resolve().parent.parent
TRACE = "LPC-EGEE"
DEFAULT_RUNS = ("ELA-EST-0.5", "RIG-EST-0.5", "ELA-ORA-0.5")
LAM = 0.5  # the SARSA learner through the environments
TARGET_RUN_S = 30.0
TARGET_STUDY_H = 1.0


def timed(function, *args, **kwargs):
    """CPU seconds, wall seconds and the value of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = function(*args, **kwargs)
    return time.process_time() - cpu, time.perf_counter() - wall, value


def load() -> str:
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


# -- 1. runs --------------------------------------------------------------------------------------


def measure_runs(jobs, runs: dict) -> dict[str, tuple[int, float, float]]:
    """name -> (decisions, CPU s, wall s): FCFS and EDF online, then each learner run."""
    online = (jobs.pre_training, len(jobs))
    costs = {}
    for name, policy in (("FCFS", FCFS()), ("EDF", EDF())):
        cpu, wall, result = timed(run_site, jobs, policy, jobs.rigid_pool("site"), *online, model="EST")
        costs[name] = (result.decisions, cpu, wall)
    for name, spec in runs.items():
        cpu, wall, (result, _) = timed(
            train_and_run,
            jobs,
            spec["lambda"],
            spec["elastic"],
            spec["model"],
            seed=0,
            levels=pool_levels(jobs.load_pool),
            utilisation=spec.get("utilisation", "interval"),
            pre_training_pool=spec.get("pre_training_pool", "explore"),
            pool_request=spec.get("pool_request", "headroom"),
            rigid_pool=jobs.rigid_pool("site"),
        )
        costs[name] = (result.decisions + jobs.pre_training, cpu, wall)
        print(f"  {name}: {cpu:.1f} CPU s", flush=True)
    return costs


def runs_table(costs: dict) -> list[str]:
    fcfs = costs["FCFS"][1]
    lines = ["| run | decisions | CPU s | wall s | µs/decision | CPU / FCFS |", "|---|--:|--:|--:|--:|--:|"]
    for name, (decisions, cpu, wall) in costs.items():
        lines.append(
            f"| {name} | {decisions:,} | {cpu:.2f} | {wall:.2f} | {1e6 * cpu / decisions:,.0f} | {cpu / fcfs:.1f} |"
        )
    return lines


# -- 2. environments ------------------------------------------------------------------------------


def episode(env, choose) -> int:
    """reset() and one step per decision, `choose(mask)` picking the action; the number of steps."""
    _, info = env.reset(seed=0)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, info = env.step(choose(info["action_mask"]))
        steps += 1
    return steps


def masked_random(seed: int):
    rng = np.random.default_rng(seed)

    def choose(mask: np.ndarray) -> int:
        valid = np.flatnonzero(mask)
        return int(valid[rng.integers(len(valid))])

    return choose


def first_valid(mask: np.ndarray) -> int:
    return int(np.argmax(mask))


def sarsa_through_env(jobs, env_class, candidates: str) -> int:
    """Pre-training, then the online episode of our learner through the env; its decisions."""
    elastic = env_class.elastic
    levels = pool_levels(jobs.load_pool) if elastic else None  # an elastic pre-training explores them
    pool = jobs.load_pool if elastic else jobs.rigid_pool("site")  # the envs' pools (docs/elastic.md §1.4)
    top = int(levels[-1]) if elastic else pool
    reservoir, readout = pre_train(jobs, LAM, elastic, "EST", 0, top, pool, levels)
    env = env_class(jobs, lam=LAM, candidates=candidates, window=len(jobs))
    EnvAgent(Learner(reservoir, readout, LAM, elastic, 0, top), env).run_episode()
    return env.result.decisions


def drivers(jobs, env_class) -> tuple[dict, dict]:
    """The env's drivers and the SARSA runs, each dict's baseline first: name -> call returning the steps."""
    online = (jobs.pre_training, len(jobs))
    elastic = env_class.elastic
    levels = pool_levels(jobs.load_pool)
    pool = jobs.load_pool if elastic else jobs.rigid_pool("site")
    policies = {
        "FCFS, run_site (no env)": lambda: (
            run_site(jobs, FCFS(), pool, *online, model="EST", levels=levels if elastic else None).decisions
        ),
        "masked random": lambda: episode(env_class(jobs), masked_random(0)),
        "first valid action": lambda: episode(env_class(jobs), first_valid),
    }
    sarsa = {
        "SARSA, train_and_run (no env)": lambda: (
            train_and_run(jobs, LAM, elastic, "EST", 0, levels, rigid_pool=jobs.rigid_pool("site"))[0].decisions
        ),
        "SARSA, EnvAgent, description slots": lambda: sarsa_through_env(jobs, env_class, "descriptions"),
        "SARSA, EnvAgent, every waiting job a slot": lambda: sarsa_through_env(jobs, env_class, "queue"),
    }
    return policies, sarsa


def measure_envs(jobs) -> list[tuple[str, list]]:
    """Per environment, two groups of (driver, steps, CPU s, wall s), each group's baseline first."""
    groups = []
    for env_class in (SchedulingEnv, ElasticEnv):
        for group in drivers(jobs, env_class):
            rows = []
            for driver, run in group.items():
                cpu, wall, steps = timed(run)
                rows.append((driver, steps, cpu, wall))
                print(f"  {env_class.__name__}, {driver}: {steps:,} steps in {cpu:.1f} CPU s", flush=True)
            groups.append((env_class.__name__, rows))
    return groups


def envs_table(groups: list) -> list[str]:
    lines = [
        "| environment | driver | steps | CPU s | wall s | steps/s | µs/step | / baseline |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for env_name, rows in groups:
        baseline = rows[0][2] / rows[0][1]
        for driver, steps, cpu, wall in rows:
            per_step = cpu / steps
            lines.append(
                f"| {env_name} | {driver} | {steps:,} | {cpu:.2f} | {wall:.2f} | {1 / per_step:,.0f} "
                f"| {1e6 * per_step:,.0f} | {per_step / baseline:.2f} |"
            )
    return lines


# -- 3. projection --------------------------------------------------------------------------------


def stand_in(spec: dict, runs: dict, costs: dict) -> str:
    """The measured run that costs `spec`: the dearest of the same pool and model, else the dearest."""
    same = [name for name, m in runs.items() if (m["elastic"], m["model"]) == (spec["elastic"], spec["model"])]
    return max(same or runs, key=lambda name: costs[name][1])


def projection(
    jobs, costs: dict, study: dict, models: dict, runs: dict, pwa_mirror: Path, cores: int
) -> tuple[list[str], float]:
    """The study's table (per trace) and lines, and its total CPU hours."""
    per_set = 0.0  # CPU s of one set of len(jobs) jobs
    notes = []
    for name, spec in study["runs"].items():
        used = stand_in(spec, runs, costs)
        per_set += study["seeds"] * costs[used][1]
        if used != name:
            notes.append(f"{name} as {used}")
    elastic_runs = sum(spec["elastic"] for spec in study["runs"].values())
    # FCFS on the rigid pool and on P_max, EDF on the rigid pool; FCFS and EDF on each elastic run's own
    # pool, per seed
    fcfs_runs = 1 + (1 if elastic_runs else 0) + elastic_runs * study["seeds"]
    edf_runs = 1 + elastic_runs * study["seeds"]
    per_set += fcfs_runs * costs["FCFS"][1] + edf_runs * costs["EDF"][1]
    lines = ["| trace | job sets | jobs per set | CPU s per set | CPU h |", "|---|--:|--:|--:|--:|"]
    sets = []
    for trace, count in study["job_sets"].items():
        if count == "all" and trace in models:  # a model's jobs are all serial, none monitoring-like
            size, count = models[trace]["jobs"], 1
        elif count == "all":
            workload = load_workload(trace, filter_mode=study["filter"], pwa_mirror=pwa_mirror)
            size = len(study_jobs(workload, study["monitoring"])[0])
            count = 1
        else:
            size = study["set_jobs"]
            count = len(count) if isinstance(count, list) else count
        seconds = per_set * size / len(jobs)
        sets += [seconds] * count
        lines.append(f"| {trace} | {count} | {size:,} | {seconds:,.0f} | {count * seconds / 3600:.2f} |")
    total = sum(sets)
    wall = max(max(sets), total / min(cores, len(sets)))
    lines += [
        "",
        f"Each set: {len(study['runs'])} runs x {study['seeds']} seeds, {fcfs_runs} FCFS and {edf_runs} EDF baselines"
        + (f" (costed as a measured run: {', '.join(notes)})" if notes else "")
        + f"; per job as {jobs.name}.",
        f"Whole study: {total:,.0f} CPU s = {total / 3600:.2f} CPU h. On {cores} cores: {len(sets)} jobs (one per "
        f"job set), at most {min(cores, len(sets))} at once, so about {wall / 60:.1f} min of wall time"
        + (" (the longest set)." if cores >= len(sets) else "."),
    ]
    return lines, total / 3600


def main(argv=None) -> int:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    study = config["elastic"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", choices=list(study["runs"]), default=list(DEFAULT_RUNS))
    parser.add_argument("--pwa-mirror", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--cores", type=int, default=56, help="of the projection (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="item 1 only, the first setting of --runs")
    args = parser.parse_args(argv)
    runs = {name: study["runs"][name] for name in args.runs[: 1 if args.quick else None]}

    print(load())
    read_cpu, _, workload = timed(load_workload, TRACE, filter_mode=study["filter"], pwa_mirror=args.pwa_mirror)
    first = study["job_sets"][TRACE][0]  # the set closest to the paper's workload
    jobs = consecutive_sets(workload, TRACE, count=first, monitoring=study["monitoring"])[-1]
    levels = pool_levels(jobs.load_pool)
    print(
        f"{jobs.name}: {len(jobs):,} jobs ({jobs.pre_training:,} pre-training), rigid pool {jobs.rigid_pool('site')} "
        f"(the site's cores), P_load = {jobs.load_pool}, "
        f"levels {levels[0]}-{levels[-1]}; trace read in {read_cpu:.1f} CPU s",
        flush=True,
    )
    costs = measure_runs(jobs, runs)
    text = ["", *runs_table(costs)]
    for name, spec in runs.items():
        if spec["elastic"] and spec["model"] == "EST":
            cpu = costs[name][1]
            verdict = "PASS" if cpu <= TARGET_RUN_S else "FAIL"
            text.append(f"{verdict}: {name}, pre-training included: {cpu:.1f} CPU s (<= {TARGET_RUN_S:g})")
    if not args.quick:
        text += ["", *envs_table(measure_envs(jobs))]
        lines, hours = projection(jobs, costs, study, config["models"], runs, args.pwa_mirror, args.cores)
        verdict = "PASS" if hours <= TARGET_STUDY_H else "FAIL"
        text += ["", *lines, f"{verdict}: the whole study: {hours:.2f} CPU h (<= {TARGET_STUDY_H:g})"]
    print("\n".join(text))
    print(load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
