"""A native vector env of JobSelection-v0: N independent episodes stepped by one call into the core
(`_core.step_selection`), with Gymnasium's next-step autoreset. Registered as the vector entry
point of `schedsweep/JobSelection-v0`:

    envs = gymnasium.make_vec("schedsweep/JobSelection-v0", num_envs=64, vectorization_mode="vector_entry_point")

Sub-env i's episodes are drawn from `default_rng(seed + i)` (`reset(seed=[...])`: one seed each).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from simcore.engine import _core
from simcore.engine.simulation import Simulation
from simcore.studies.job_selection.env import HORIZONS, LOG_TOP, JobSelectionEnv, episode_reward


class JobSelectionVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` episodes of JobSelectionEnv(**options), stepped together in C."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, **options):
        self.single = JobSelectionEnv(**options)  # the options, the workload and the spaces
        self.num_envs = num_envs
        self.single_observation_space = self.single.observation_space
        self.single_action_space = self.single.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        window = self.single.window
        self._obs = np.zeros((num_envs, *self.single_observation_space.shape), dtype=np.float32)
        self._slots = np.full((num_envs, window), -1, dtype=np.int64)
        self._filled = np.zeros(num_envs, dtype=np.int64)
        self._needs_reset = np.zeros(num_envs, dtype=bool)
        self._episodes: list = [None] * num_envs
        self._simulations: list = [None] * num_envs  # the wrappers
        self._cores: list = [None] * num_envs
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]

    def _start_episode(self, i: int) -> None:
        env = self.single
        length = env.sequence_length or len(env.workload)
        start = int(self._rngs[i].integers(0, len(env.workload) - length + 1))
        episode = env.workload.take(np.arange(start, start + length))
        simulation = Simulation(episode, env.window_order, backfill=env.core_backfill, estimate=env.estimate)
        self._episodes[i], self._simulations[i], self._cores[i] = episode, simulation, simulation._core

    def _run(self, heads: np.ndarray) -> None:
        _core.step_selection(self._cores, heads, self._obs, self._slots, HORIZONS, LOG_TOP, self._filled)

    def action_masks(self) -> np.ndarray:
        """(num_envs, window): the filled slots; a finished sub-env (reset at the next step) has
        slot 0 valid, its action being ignored."""
        masks = np.arange(self.single.window)[None, :] < self._filled[:, None]
        masks[self._filled < 0, 0] = True
        return masks

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
        for i in range(self.num_envs):
            self._start_episode(i)
        self._needs_reset[:] = False
        self._run(np.full(self.num_envs, -1, dtype=np.int64))
        return self._obs.copy(), {"action_mask": self.action_masks()}

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.int64)
        active = ~self._needs_reset
        window = self.single.window
        inside = (actions >= 0) & (actions < window)
        heads = np.where(inside, self._slots[np.arange(self.num_envs), np.clip(actions, 0, window - 1)], -1)
        invalid = active & (heads < 0)
        if invalid.any():
            i = int(np.flatnonzero(invalid)[0])
            raise ValueError(f"environment {i}: action {actions[i]} is not valid; {self._filled[i]} slots are filled")
        heads[~active] = -1
        for i in np.flatnonzero(self._needs_reset):
            self._start_episode(i)
        self._run(heads)
        terminated = self._filled < 0
        rewards = np.zeros(self.num_envs)
        for i in np.flatnonzero(terminated):
            start = self._simulations[i].finish().start
            rewards[i] = episode_reward(self._episodes[i], start, self.single.reward_name)
        self._needs_reset = terminated.copy()
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._obs.copy(), rewards, terminated, truncated, {"action_mask": self.action_masks()}
