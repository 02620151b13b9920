"""The field's baselines on RLScheduler-style episodes (docs/job_selection.md): each order of the
registry and the thesis's functions, run by the core through JobSelection-v0's episodes of a trace,
in both backfill modes, beside RLScheduler's published table."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from simcore.studies.job_selection.env import JobSelectionEnv, episode_reward
from simcore.studies.job_selection.lookahead import LookaheadPolicy

SEQUENCES = 10  # as RLScheduler's evaluation: 10 sequences of 1,024 jobs (its starts: docs/job_selection.md §4)
SEQUENCE_JOBS = 1024
SEED = 1
MODES = {"none": "without backfilling", "easy": "with backfilling"}
DEFAULT_ORDERS = ("FCFS", "WFP3", "UNICEF", "SPF", "F1", "SQF", "SAF")
LOOKAHEAD = "lookahead"  # its rows' order label: lookahead-<base order>
COMMITTED = "committed"  # the base order alone through the env (the first slot): committed-<base order>


def sequence_starts(jobs: int, sequences: int = SEQUENCES, length: int = SEQUENCE_JOBS, seed: int = SEED):
    """The episodes' first positions: uniform draws from `default_rng(seed)` over the whole trace
    (not RLScheduler's draws, which lie in the trace's first 10,000 jobs)."""
    if jobs < length:
        raise ValueError(f"{jobs} jobs, fewer than one sequence of {length}")
    return np.random.default_rng(seed).integers(0, jobs - length + 1, sequences)


def evaluate_orders(
    workload,
    trace: str,
    orders=DEFAULT_ORDERS,
    sequences: int = SEQUENCES,
    length: int = SEQUENCE_JOBS,
    seed: int = SEED,
    lookahead=(),
    heads: int | None = None,
) -> pd.DataFrame:
    """One row per (backfill mode, sequence, order): the average bounded slowdown and the
    utilisation of the order's EASY (or no-backfilling) schedule of the sequence; then one per
    lookahead base order (`lookahead`, named orders), labelled `lookahead-<base>`: the lookahead
    baseline's schedule over its first `heads` slots (simcore.studies.job_selection.lookahead), and
    one labelled `committed-<base>`: the base order alone through the env (its first slot at every
    decision, each pick a commitment), the schedule the lookahead never scores worse than."""
    rows = []
    for backfill in MODES:
        envs = {
            reward: JobSelectionEnv(
                workload, sequence_length=length, backfill=backfill, reward=reward, baselines=orders
            )
            for reward in ("bsld", "utilisation")
        }
        searches = {
            base: JobSelectionEnv(workload, sequence_length=length, backfill=backfill, window_order=base)
            for base in lookahead
        }
        policies = {LOOKAHEAD: LookaheadPolicy(heads), COMMITTED: lambda _: 0}
        for number, start in enumerate(sequence_starts(len(envs["bsld"].workload), sequences, length, seed)):
            scores = {}
            for reward, env in envs.items():
                env.reset(options={"start": int(start)})
                terminated = False
                while not terminated:  # the first slot: the episode's end carries the baselines
                    _, _, terminated, _, info = env.step(0)
                scores[reward] = info["baselines"]
            for (base, env), (kind, policy) in itertools.product(searches.items(), policies.items()):
                env.reset(options={"start": int(start)})
                terminated = False
                while not terminated:
                    _, bsld, terminated, _, info = env.step(policy(env))
                scores["bsld"][f"{kind}-{base}"] = bsld
                scores["utilisation"][f"{kind}-{base}"] = float(
                    episode_reward(env.episode, info["start"], "utilisation")
                )
            rows += [
                {
                    "trace": trace,
                    "backfill": backfill,
                    "sequence": number,
                    "start": int(start),
                    "order": order,
                    "avg_bsld": -scores["bsld"][order],
                    "utilisation": scores["utilisation"][order],
                }
                for order in scores["bsld"]
            ]
    return pd.DataFrame(rows)


def summary_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace, mode and order: the mean over the sequences (RLScheduler's statistic)."""
    grouped = runs.groupby(["trace", "backfill", "order"], sort=False)
    return grouped[["avg_bsld", "utilisation"]].mean().assign(sequences=grouped.size()).reset_index()
