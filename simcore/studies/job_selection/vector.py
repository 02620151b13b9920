"""A native vector env of JobSelection-v0: N independent episodes stepped by one call into the core,
registered as the vector entry point of `schedsweep/JobSelection-v0`:

    envs = gymnasium.make_vec("schedsweep/JobSelection-v0", num_envs=64, vectorization_mode="vector_entry_point")
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from simcore.engine._selection import SelectionBatch
from simcore.engine.simulation import episode_cores
from simcore.studies.job_selection.env import JobSelectionEnv

INT64 = np.dtype(np.int64)


class JobSelectionVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` episodes of JobSelectionEnv(**options), stepped together in C by one call
    (`simcore.engine._selection.SelectionBatch`), which also restarts the finished ones in place.

    Action: MultiDiscrete, one slot per sub-env, as JobSelectionEnv's; `action_masks()` and
    ``info["action_mask"]`` (num_envs, window) mark the filled slots. A finished sub-env has slot 0
    marked: its next action is ignored (see Episode). Any other action of the space that is not a
    filled slot is taken as `invalid_action` says, as in JobSelectionEnv (docs/environments.md,
    "Invalid actions"): ``"first_valid"`` (the default) takes slot 0; ``"skip"`` leaves that sub-env
    as it is (the same observation and mask) with reward -`invalid_penalty`; ``"raise"`` raises
    ValueError naming the sub-env, before anything has changed. The core decides this in C. An
    action outside the space is a ValueError naming the sub-env in every mode.

    Observation: (num_envs, 6 window + 7) float32, a row per sub-env, each JobSelectionEnv's
    ``"default"`` observation (its table); zeros in the step that ends an episode.

    Reward: JobSelectionEnv's final reward, 0 but in the step that ends an episode. The core sums
    it in job order, the single env with numpy's pairwise sum: equal to about 1e-12.

    Episode: JobSelectionEnv's; sub-env i's starts are drawn from ``default_rng(seed + i)``
    (``reset(seed=[...])``: one seed each). Next-step autoreset: the step after an episode's end
    starts the next one and ignores the action. Nothing truncates an episode.

    Info: ``action_mask`` and ``invalid_actions`` (num_envs,): each sub-env's invalid actions in its
    current episode (in the step that ends an episode, that episode's; 0 again in the step that
    restarts it).

    Arguments: `num_envs`; `threads` (default 1), the OpenMP threads that step the sub-envs (the
    same results; 2 needs two idle cores, or it is much slower, and the process must not fork after
    a multi-threaded step, e.g. multiprocessing's "fork" start method: OpenMP does not survive it);
    and JobSelectionEnv's arguments, with the default observation, final rewards and no baselines
    (other options raise ValueError naming them: use ``vectorization_mode="sync"`` or
    ``"async"``); `invalid_action` and `invalid_penalty` as JobSelectionEnv's.
    """

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
        cores = episode_cores(env.workload, num_envs, self.length, env.window_order, env.core_backfill, env.estimate)
        self._batch = SelectionBatch(cores, env.selection, threads, env.invalid_action, env.invalid_penalty)
        self._firsts = np.zeros(num_envs, dtype=np.int64)  # each sub-env's episode: its first job
        self._ended = False  # whether an episode ended at the last step (the done sub-envs restart)
        self._no_restarts = np.full(num_envs, -1, dtype=np.int64)  # never written
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]

    def _run(self, actions: np.ndarray, restart: np.ndarray | None) -> None:
        """One core call: the sub-envs in `restart` (None: none) start a new episode at the start
        drawn for it, the others take `actions`."""
        restarts = self._no_restarts if restart is None else np.where(restart, self._firsts, -1)
        invalid = self._batch.step(actions, restarts)
        if invalid >= 0:  # nothing has changed
            self._refuse(actions, invalid)

    def _draw(self, envs) -> None:
        """The start of the next episode of each sub-env in `envs`, drawn from its generator as soon
        as its episode ends (a refused step then has nothing to undo); one draw per episode, in
        order, whenever the draw is made."""
        positions = len(self.single.workload) - self.length + 1
        for i in envs:
            self._firsts[i] = self._rngs[i].integers(0, positions)

    def _refuse(self, actions: np.ndarray, invalid: int) -> None:
        """The ValueError of a step the core refused (sub-env `invalid`'s action), nothing changed."""
        action = actions[invalid]
        if not 0 <= action < self.single.window:
            raise ValueError(
                f"environment {invalid}: action {action} is not valid: not in the action space "
                f"(slots 0 to {self.single.window - 1})"
            )
        raise ValueError(
            f"environment {invalid}: action {action} is not valid; {self._batch.filled[invalid]} slots are filled"
        )

    def action_masks(self) -> np.ndarray:
        """(num_envs, window): the filled slots; a finished sub-env (reset at the next step) has
        slot 0 valid, its action being ignored."""
        return self._batch.masks.copy()

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
        # a sub-env whose episode ended at the last step has its next start drawn already
        drawn = self._batch.filled < 0 if self._ended and seeds is None else np.zeros(self.num_envs, dtype=bool)
        self._draw(np.flatnonzero(~drawn))
        self._run(np.zeros(self.num_envs, dtype=np.int64), np.ones(self.num_envs, dtype=bool))
        self._ended = False
        return self._batch.observations.copy(), {
            "action_mask": self.action_masks(),
            "invalid_actions": self._batch.invalid_actions.copy(),
        }

    def step(self, actions):
        if type(actions) is not np.ndarray or actions.dtype is not INT64:
            given = np.asarray(actions)
            actions = np.ascontiguousarray(given, dtype=np.int64)
            if given.dtype.kind not in "iub" and not np.array_equal(actions, given):
                raise ValueError(f"actions {given!r} are not in the action space {self.action_space}")
        elif not actions.flags.c_contiguous:
            actions = np.ascontiguousarray(actions)
        self._run(actions, self._batch.filled < 0 if self._ended else None)  # the done ones restart
        terminated = self._batch.filled < 0
        self._ended = self._batch.done > 0
        if self._ended:
            self._draw(np.flatnonzero(terminated))
        return (
            self._batch.observations.copy(),
            self._batch.rewards.copy(),
            terminated,
            np.zeros(self.num_envs, dtype=bool),
            {"action_mask": self._batch.masks.copy(), "invalid_actions": self._batch.invalid_actions.copy()},
        )
