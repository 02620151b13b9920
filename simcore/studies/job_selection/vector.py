"""A native vector env of JobSelection-v0: N independent episodes stepped by one call into the core
(`_core.step_selection`, which also restarts the finished ones in place), with Gymnasium's
next-step autoreset. Registered as the vector entry point of `schedsweep/JobSelection-v0`:

    envs = gymnasium.make_vec("schedsweep/JobSelection-v0", num_envs=64, vectorization_mode="vector_entry_point")

Sub-env i's episodes are drawn from `default_rng(seed + i)` (`reset(seed=[...])`: one seed each).
`threads=2` steps the sub-envs on two OpenMP threads (the same results); do not fork the process
(e.g. multiprocessing's "fork" start method) after a multi-threaded step: OpenMP does not survive it.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from simcore.engine import _core
from simcore.engine.metrics import TAU
from simcore.engine.simulation import episode_cores
from simcore.studies.job_selection.env import HORIZONS, LOG_TOP, REWARDS, JobSelectionEnv


class JobSelectionVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` episodes of JobSelectionEnv(**options), stepped together in C."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, threads: int = 1, **options):
        if threads < 1:
            raise ValueError(f"threads {threads}: at least 1")
        self.single = env = JobSelectionEnv(**options)  # the options, the workload and the spaces
        unsupported = {
            "observation": env.layout != "default",
            "dense": env.dense,
            "baselines": bool(env.baselines),
        }
        if any(unsupported.values()):
            names = ", ".join(name for name, given in unsupported.items() if given)
            raise ValueError(
                f"the native vector env has the default observation, final rewards and no baselines "
                f"(given: {names}); use vectorization_mode='sync' or 'async' for these options"
            )
        self.num_envs = num_envs
        self.threads = threads
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.length = env.sequence_length or len(env.workload)
        self._cores = episode_cores(
            env.workload, num_envs, self.length, env.window_order, env.core_backfill, env.estimate
        )
        self._obs = np.zeros((num_envs, *self.single_observation_space.shape), dtype=np.float32)
        self._slots = np.full((num_envs, env.window), -1, dtype=np.int64)
        self._masks = np.zeros((num_envs, env.window), dtype=bool)
        self._filled = np.zeros(num_envs, dtype=np.int64)
        self._rewards = np.zeros(num_envs)
        self._firsts = np.zeros(num_envs, dtype=np.int64)  # each sub-env's episode: its first job
        self._needs_reset = np.zeros(num_envs, dtype=bool)
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]

    def _run(self, actions: np.ndarray, restart: np.ndarray) -> None:
        """One core call: the sub-envs in `restart` start a new episode, the others take `actions`."""
        positions = len(self.single.workload) - self.length + 1
        for i in np.flatnonzero(restart):
            self._firsts[i] = self._rngs[i].integers(0, positions)
        restarts = np.where(restart, self._firsts, -1)
        invalid = _core.step_selection(
            self._cores, actions, restarts, self._obs, self._slots, self._masks.view(np.uint8),
            HORIZONS, LOG_TOP, self._filled, self._rewards, REWARDS.index(self.single.reward_name), TAU, self.threads,
        )  # fmt: skip
        if invalid >= 0:
            raise ValueError(
                f"environment {invalid}: action {actions[invalid]} is not valid; "
                f"{self._filled[invalid]} slots are filled"
            )

    def action_masks(self) -> np.ndarray:
        """(num_envs, window): the filled slots; a finished sub-env (reset at the next step) has
        slot 0 valid, its action being ignored."""
        return self._masks.copy()

    def reset(self, *, seed=None, options=None):
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}")
        seeds = None
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
            self._rngs = [np.random.default_rng(s) for s in seeds]
        super().reset(seed=None if seeds is None else int(seeds[0]))
        self._run(np.zeros(self.num_envs, dtype=np.int64), np.ones(self.num_envs, dtype=bool))
        self._needs_reset[:] = False
        return self._obs.copy(), {"action_mask": self.action_masks()}

    def step(self, actions):
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        self._run(actions, self._needs_reset)
        terminated = self._filled < 0
        self._needs_reset = terminated
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._obs.copy(), self._rewards.copy(), terminated, truncated, {"action_mask": self.action_masks()}
