"""The lookahead baseline (docs/job_selection.md §6): one step of lookahead over forks of the
simulation, a rollout of the window order. At each decision it tries each of the first `heads`
waiting jobs as the head, finishes each try's episode choosing the window order's first job at every
later decision (in C, on a fork: `JobSelectionEnv.rollout_rewards`), and takes the job whose episode
scores best; ties go to the earlier slot, the order's own choice first.

Taking the order's own choice is always one of the tries, and a try's score is that of the order's
rollout from the next decision, so on these deterministic episodes the lookahead never scores worse
than the window order driving the env alone (first slot at every decision: for FCFS that is EASY-FCFS
exactly; for another order, that order with commitment to its pick). It is an upper reference for a
learned policy that sees the same window, not a policy an agent could run: it simulates the future.
"""

from __future__ import annotations

import numpy as np


class LookaheadPolicy:
    """A policy for JobSelection-v0 (`policy(env) -> slot`): the best of the first `heads` slots
    (None: every filled slot) by the final reward of its rollout."""

    def __init__(self, heads: int | None = None):
        if heads is not None and heads < 1:
            raise ValueError(f"heads {heads}: at least one slot, or None for all")
        self.heads = heads

    def __call__(self, env) -> int:
        return int(np.argmax(env.unwrapped.rollout_rewards(self.heads)))
