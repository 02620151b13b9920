"""Steps and episodes per second of JobSelection-v0, single and native vector env, against
RLScheduler's own environment (DIR-LAB/deep-batch-scheduler, SC20) measured in the same run.

    python benchmarks/bench_job_selection.py [--traces SDSC-SP2 HPC2N] [--seconds 3]
        [--rlscheduler CHECKOUT --rlscheduler-python PYTHON]

Each row runs episodes back to back for `--seconds` wall seconds, resets included, and counts the
decisions (steps) and the finished episodes. Episodes are 256 jobs from a start drawn by the env
(RLScheduler's own draw for its rows), EASY backfilling, window 128, final bounded-slowdown reward.
A last table replays each whole trace as one episode with the first slot (FCFS).
Policies: **first** (slot 0 / the first valid row: no policy cost) and **masked random** (uniform
over the valid actions, numpy; for the vector env one draw for all the sub-envs). The vector env
runs on one thread and on two (`threads=2`: two idle cores needed, or it is much slower).

The peer: RLScheduler's `HPCSimPickJobs.HPCEnv` from a checkout of its repository, run by
`--rlscheduler-python` (a Python with gym 0.17.x, numpy and scipy: its code needs the old gym API
and Python <= 3.8 for gym 0.17's pins) in a subprocess. Its module imports TensorFlow without
using it: the driver puts an empty module under that name first. It reads the trace as plain SWF
(this script writes the mirror's file decompressed to a temporary directory) and is driven the
way its own training loop drives it (`seed`, `my_init`, `reset`, `step`); its valid actions are the
rows that are not padding. Its backfilling is not EASY (see docs/job_selection.md), so the rows
compare speed, not schedules.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np

import simcore.envs  # noqa: F401  (registers the environments)
from simcore.studies.job_selection.env import JobSelectionEnv

REPO = Path(__file__).resolve().parent.parent
FILES = {"SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz", "HPC2N": "HPC2N-2002-2.2-cln.swf.gz"}
VECTOR_RUNS = ((1, 1), (16, 1), (64, 1), (64, 2), (256, 1), (256, 2))  # (sub-envs, OpenMP threads)

PEER_DRIVER = r"""
import json, sys, time, types
import numpy as np
sys.modules["tensorflow"] = types.ModuleType("tensorflow")  # imported by the module, never used
checkout, trace, seconds, policy = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
sys.path.insert(0, checkout)
import HPCSimPickJobs as rls
env = rls.HPCEnv(backfil=True, job_score_type=0)
env.seed(0)
env.my_init(workload_file=trace)
rng = np.random.default_rng(0)
padding = np.array([0] + [1] * (rls.JOB_FEATURES - 2) + [0])
steps = episodes = 0
began = time.perf_counter()
while time.perf_counter() - began < seconds:
    observation, _ = env.reset()
    while True:
        rows = np.asarray(observation).reshape(rls.MAX_QUEUE_SIZE, rls.JOB_FEATURES)
        valid = np.flatnonzero(~((rows == padding).all(axis=1) | (rows == 1).all(axis=1)))
        action = int(valid[0]) if policy == "first" else int(rng.choice(valid))
        observation, reward, done, *_ = env.step(action)
        steps += 1
        if done:
            episodes += 1
            break
print(json.dumps({"steps": steps, "episodes": episodes, "seconds": time.perf_counter() - began}))
"""


def single_env(trace: str, policy: str, seconds: float, mirror: Path) -> tuple[int, int, float]:
    env = JobSelectionEnv(trace, filter_mode="strict", pwa_mirror=mirror)
    rng = np.random.default_rng(0)
    steps = episodes = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        observation, info = env.reset(seed=episodes)
        terminated = False
        while not terminated:
            action = 0 if policy == "first" else int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            steps += 1
        episodes += 1
    return steps, episodes, time.perf_counter() - began


def replay(trace: str, mirror: Path) -> tuple[int, int, float]:
    """The whole trace as one episode, the first slot at every decision (FCFS), EASY."""
    env = JobSelectionEnv(trace, sequence_length=None, filter_mode="strict", pwa_mirror=mirror)
    began = time.perf_counter()
    env.reset(seed=0)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, info = env.step(0)
        steps += 1
    return len(env.workload), steps, time.perf_counter() - began


def vector_env(trace: str, policy: str, seconds: float, mirror: Path, n: int, threads: int) -> tuple[int, int, float]:
    envs = gymnasium.make_vec(
        "schedsweep/JobSelection-v0",
        num_envs=n,
        vectorization_mode="vector_entry_point",
        workload=trace,
        filter_mode="strict",
        pwa_mirror=mirror,
        threads=threads,
    )
    rng = np.random.default_rng(0)
    observation, info = envs.reset(seed=0)
    steps = episodes = 0
    first = np.zeros(n, dtype=np.int64)
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        if policy == "first":
            actions = first
        else:  # a uniform valid slot per sub-env: the largest of uniform draws over the mask
            actions = np.argmax(rng.random(info["action_mask"].shape) * info["action_mask"], axis=1)
        observation, reward, terminated, truncated, info = envs.step(actions)
        steps += n
        episodes += int(terminated.sum())
    envs.close()
    return steps, episodes, time.perf_counter() - began


def peer(trace: str, policy: str, seconds: float, mirror: Path, checkout: Path, python: str, scratch: Path):
    swf = scratch / f"{trace}.swf"
    if not swf.exists():
        swf.write_bytes(gzip.decompress((mirror / FILES[trace]).read_bytes()))
    driver = scratch / "drive_rlscheduler.py"
    driver.write_text(PEER_DRIVER)
    done = subprocess.run(
        [python, str(driver), str(checkout), str(swf), str(seconds), policy],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"RLScheduler's env failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["steps"], result["episodes"], result["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=list(FILES), choices=list(FILES))
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--pwa-mirror", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--rlscheduler", type=Path, help="a checkout of DIR-LAB/deep-batch-scheduler")
    parser.add_argument("--rlscheduler-python", default="python3", help="a Python with gym 0.17.x")
    args = parser.parse_args()
    print("| trace | env | N | threads | policy | steps/s | episodes/s | steps / RLScheduler's |")
    print("|---|---|--:|--:|---|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as scratch:
        for trace in args.traces:
            for policy in ("first", "masked random"):
                rows = []
                if args.rlscheduler:
                    measured = peer(
                        trace,
                        policy.split()[-1],
                        args.seconds,
                        args.pwa_mirror,
                        args.rlscheduler,
                        args.rlscheduler_python,
                        Path(scratch),
                    )
                    rows.append(("RLScheduler (gym 0.17)", 1, 1, measured))
                rows.append(("JobSelection-v0", 1, 1, single_env(trace, policy, args.seconds, args.pwa_mirror)))
                for n, threads in VECTOR_RUNS:
                    measured = vector_env(trace, policy, args.seconds, args.pwa_mirror, n, threads)
                    rows.append(("JobSelection-v0, native vector", n, threads, measured))
                peer_rate = rows[0][3][0] / rows[0][3][2] if args.rlscheduler else None
                for name, n, threads, (steps, episodes, seconds) in rows:
                    ratio = f"{steps / seconds / peer_rate:.1f}" if peer_rate else "-"
                    print(
                        f"| {trace} | {name} | {n} | {threads} | {policy} | {steps / seconds:,.0f} | "
                        f"{episodes / seconds:,.1f} | {ratio} |"
                    )
        print("\n| trace | jobs | decisions | whole-trace replay, s |\n|---|--:|--:|--:|")
        for trace in args.traces:
            jobs, steps, seconds = replay(trace, args.pwa_mirror)
            print(f"| {trace} | {jobs:,} | {steps:,} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
