"""A Gymnasium environment over the co-scheduling simulation: one step per sharing decision.

`CoSchedulingEnv` is a view of `SharingRun` with strategy EXTERNAL (sharing.py): the C event
loop runs between decisions and pauses at each *case* of docs/coscheduling.md §5.5, where the
agent picks the guest's quota level. Registered as ``schedsweep/CoScheduling-v0`` by
`simcore.envs`; conventions: docs/environments.md.
"""

from __future__ import annotations

import operator
from dataclasses import replace
from functools import lru_cache

import gymnasium
import numpy as np

from simcore.engine.actions import carried_out, check_invalid_action
from simcore.engine.workload import Workload
from simcore.studies.coscheduling.sharing import (
    SharingResult,
    SharingRun,
    SharingSettings,
    default_memory_capacity,
)
from simcore.studies.coscheduling.study import run_metrics
from simcore.workloads.example import example_workload as generic_example_workload
from simcore.workloads.sources import load_workload

REWARDS = ("loss", "utilisation")
RUN_SEED = 0  # the run's generator only serves the C learner, which EXTERNAL never calls

PHASE_MAX = 2.0  # a donor slowed by an earlier guest can pass its estimate
HAPPINESS_MAX = 10.0  # well above the H1/H2 boundary (1.1); infinite when the donor's work is done
SCALED_MAX = 10.0  # waits, shadow distance (in longest requests) and queue length (in machines)


@lru_cache(maxsize=1)
def example_workload() -> Workload:
    """The package's generated example workload (truncate filter) with Gaia-like efficiency and memory."""
    from simcore.workloads.sharing_profiles import apply_profile  # needs scipy, only for the example

    generated = generic_example_workload("truncate")
    return apply_profile(replace(generated, source="simcore example workload"), "gaia", seed=0)


class CoSchedulingEnv(gymnasium.Env):
    """Co-scheduling (docs/coscheduling.md) with the agent choosing each guest's CPU quota.

    One step per *case*: a waiting job (the guest) and a running job in no pair (the donor) with
    at least one admissible quota level k >= 1 (§3, §5.5). The action is the level k of quota
    k/K (0: do not pair; the walk then tries the next donor). Between cases the C event loop
    runs: completions, submissions, EASY backfilling and the pairs already decided.

    Observation (float32, shape 14 + K); t = now, m = processors, e_max = the workload's
    longest requested time; every entry is clipped to [0, high]:

    | index | meaning | normalisation | high |
    |---|---|---|---|
    | 0 | donor CPU efficiency u_a | as is | 1 |
    | 1 | donor memory per processor | / capacity M (0: unknown or memory off) | 1 |
    | 2 | donor sequential (u_a q_a < 1.5) | 0 or 1 | 1 |
    | 3 | donor phase (t - s_a) / e_a | as is | 2 |
    | 4 | donor happiness Hp (§5.2) | as is (infinite when its work is done) | 10 |
    | 5 | donor processors q_a | / m | 1 |
    | 6 | guest processors q_b | / m | 1 |
    | 7 | guest estimate e_b | / e_max | 1 |
    | 8 | guest wait t - r_b | / e_max | 10 |
    | 9 | idle processors | / m | 1 |
    | 10 | running jobs in no pair | / m | 1 |
    | 11 | waiting jobs (the guest included) | / m | 10 |
    | 12 | shadow distance T - t of the reservation | / e_max | 10 |
    | 13 | extra processors of the reservation | / m | 1 |
    | 14 + k | loss of level k (§5.5; 0 for k = 0) | as is | 1 |

    When no case is pending (the end, or a run without any case) the observation is all zeros.

    Action: Discrete(K). `action_masks()` (and ``info["action_mask"]``) marks the admissible
    levels, level 0 always; any other action of the space is taken as `invalid_action` says (docs/environments.md,
    "Invalid actions": by default level 0).

    Reward: ``"loss"`` (default): minus the §5.5 loss of the chosen level, in [-1, 0], the
    signal the paper's Hedge learner minimises (never pairing costs nothing, so it alone does
    not reward sharing); ``"utilisation"``: 0 at every step but the last, which gives the
    episode's held-processor utilisation ``held_utilisation`` = sum(u q W) / processor-seconds
    holding a job, in [0, 1] (0 if no processor was ever busy).

    Episode: the whole workload (``episode_jobs=None``), or `episode_jobs` consecutive jobs
    starting at a position drawn from ``self.np_random`` at reset (or ``options={"start": i}``),
    run on the same machine with their logged submit times. It terminates when every job of it
    is done. A run without any case still gives one step: reset returns the zero observation
    with only level 0 valid, and step(0) terminates it with reward 0 ("loss") or its
    held-processor utilisation ("utilisation").

    Info: ``time``, ``donor`` and ``guest`` (positions in ``self.episode_workload``, -1 when no
    case is pending), ``case`` (the core's `case_state()`, unclipped), ``action_mask``,
    ``decisions`` and ``pairs`` so far. At the end also ``metrics``: the study's `run_metrics`
    (docs/coscheduling.md §7: mean_wait, mean_response, makespan, guests, mean_slowdown, ...) of
    the episode, its learner fields (cases, mean_loss, histogram) counting the agent's
    decisions; and ``self.result`` holds the run's `SharingResult`.

    Arguments: `workload` (None: the package's example workload; a Workload, a filtered Parquet file
    or a trace name of the catalogue, read with `filter_mode` from `pwa_mirror` and `catalogue`, at
    `machine_size` if given), `levels` (K, the quota levels), `kappa` (the interference factor κ),
    `memory` and `memory_capacity` (the memory check, M in KB per processor; None: the 99th
    percentile of the trace's known values, rounded up to a GiB), `loss` (the §5.5 loss),
    `efficiency` (``"require"``: a trace that records no CPU time is an error;
    ``"assume-cpu-bound"``: every efficiency 1), `episode_jobs`, `reward`, `invalid_action` and
    `invalid_penalty` (an action the mask does not allow: docs/environments.md, "Invalid actions").

    Version History (docs/environments.md, "Versions"):

    - v0 (2026-11-23): initial version. Since then, with the same observations, rewards and
      episodes (measured by the same seeded masked random actions on the example workload against the code of
    2026-11-24 (commit 1cf7643)): an action the mask does not allow is taken as
      `invalid_action` says instead of raising ValueError (2026-11-26); the metric
      ``alloc_utilisation`` of ``info["metrics"]`` is named ``held_utilisation`` (same value), beside
      the paper's allocation utilisations (2026-11-26).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        workload=None,
        *,
        levels: int = 10,
        kappa: float = 0.0,
        memory: bool = True,
        memory_capacity: float | None = None,
        loss: str = "degradation",
        efficiency: str = "require",
        episode_jobs: int | None = None,
        reward: str = "loss",
        machine_size: int | None = None,
        filter_mode: str = "truncate",
        pwa_mirror=None,
        catalogue=None,
        invalid_action: str = "first_valid",
        invalid_penalty: float = 0.0,
    ):
        self.invalid_penalty = check_invalid_action(invalid_action, invalid_penalty)
        self.invalid_action = invalid_action
        self.workload = load_workload(
            example_workload() if workload is None else workload, machine_size, filter_mode, pwa_mirror, catalogue
        )
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose one of {', '.join(REWARDS)}")
        if episode_jobs is not None and not 1 <= episode_jobs <= len(self.workload):
            raise ValueError(f"episode_jobs must be in [1, {len(self.workload)}] or None, got {episode_jobs}")
        # M is a property of the trace: a slice must not get its own 99th percentile.
        if memory and memory_capacity is None:
            memory_capacity = default_memory_capacity(self.workload)
        self.settings = SharingSettings(
            strategy="EXTERNAL",
            levels=levels,
            kappa=kappa,
            memory=memory,
            memory_capacity=memory_capacity,
            loss=loss,
            efficiency=efficiency,
        )
        self.episode_jobs = episode_jobs
        self.reward = reward
        self.longest_request = float(np.max(self.workload.requested))
        self.action_space = gymnasium.spaces.Discrete(levels)
        high = np.array(
            [1, 1, 1, PHASE_MAX, HAPPINESS_MAX, 1, 1, 1, SCALED_MAX, 1, 1, SCALED_MAX, SCALED_MAX, 1] + [1] * levels,
            dtype=np.float32,
        )
        self.observation_space = gymnasium.spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        self._high = high.astype(np.float64)
        self.episode_workload: Workload | None = None
        self.result: SharingResult | None = None
        self._run: SharingRun | None = None
        self._case: dict | None = None
        self.decisions = 0
        self.pairs = 0
        self._mask = np.arange(levels) == 0
        self._losses = np.zeros(levels)

    # -- the Gymnasium API ----------------------------------------------------

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        start = self._episode_start(options or {})
        if self.episode_jobs is None:
            self.episode_workload = self.workload
        else:
            self.episode_workload = self.workload.take(np.arange(start, start + self.episode_jobs))
        self._run = SharingRun(self.episode_workload, self.settings, seed=RUN_SEED)
        self.result = None
        self.decisions = 0  # cases decided in this episode
        self.invalid_actions = 0
        self.pairs = 0  # of which with a level k >= 1: guests started
        self._advance()
        return self._observation(), self._info()

    def step(self, action):
        if self._run is None or self.result is not None:
            raise RuntimeError("no episode is running: call reset()")
        level, invalid = carried_out(action, self.action_space, self._mask, self.invalid_action)
        self.invalid_actions += invalid
        if level is None:  # skip: the same case again, at a cost
            return self._observation(), -self.invalid_penalty, False, False, self._info()
        loss = 0.0
        if self._case is not None:
            loss = float(self._losses[level])
            self._run.decide(level)
            self.decisions += 1
            self.pairs += int(level > 0)
            self._advance()
        terminated = self._case is None
        info = self._info()
        if terminated:
            self.result = self._run.result()
            info["metrics"] = run_metrics(self.result)  # its learner fields count the agent's decisions
        if self.reward == "loss":
            reward = -loss
        elif terminated and self.result.busy_area > 0:
            reward = info["metrics"]["held_utilisation"]
        else:
            reward = 0.0
        return self._observation(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """Admissible levels of the pending case (only level 0 when none is pending)."""
        return self._mask.copy()

    # -- internals --------------------------------------------------------------

    def _episode_start(self, options: dict) -> int:
        unknown = set(options) - {"start"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; the only one is 'start'")
        if self.episode_jobs is None:
            if "start" in options:
                raise ValueError("options['start'] needs episode_jobs: the episode is the whole workload")
            return 0
        last = len(self.workload) - self.episode_jobs
        if "start" not in options:
            return int(self.np_random.integers(0, last + 1))
        start = operator.index(options["start"])
        if not 0 <= start <= last:
            raise ValueError(f"options['start'] must be in [0, {last}] for episodes of {self.episode_jobs} jobs")
        return start

    def _advance(self) -> None:
        """Run the C loop to the next case and read it (the core's accessors need a pending case)."""
        if self._run.advance():
            core = self._run.core
            self._case = core.case_state()
            self._mask = core.case_mask()
            self._losses = core.case_losses()
        else:
            self._case = None
            self._mask = np.arange(self.settings.levels) == 0
            self._losses = np.zeros(self.settings.levels)

    def _observation(self) -> np.ndarray:
        if self._case is None:
            return np.zeros(self.observation_space.shape, dtype=np.float32)
        case, machine, scale = self._case, self._case["machine_size"], self.longest_request
        raw = np.array(
            [
                case["donor_cpu"],
                case["donor_memory"],
                case["donor_sequential"],
                case["donor_phase"],
                case["donor_happiness"],
                case["donor_procs"] / machine,
                case["guest_procs"] / machine,
                case["guest_estimate"] / scale,
                case["guest_wait"] / scale,
                case["free_procs"] / machine,
                case["unpaired_running"] / machine,
                case["waiting"] / machine,
                case["shadow_in"] / scale,
                case["extra"] / machine,
                *self._losses,
            ]
        )
        # two ufuncs: np.clip's Python dispatch costs several µs a step
        np.maximum(raw, 0.0, out=raw)
        return np.minimum(raw, self._high, out=raw).astype(np.float32)

    def _info(self) -> dict:
        case = self._case
        return {
            "time": float(self._run.core.now),
            "donor": -1 if case is None else case["donor"],
            "guest": -1 if case is None else case["guest"],
            "case": {} if case is None else dict(case),
            "action_mask": self._mask.copy(),
            "decisions": self.decisions,
            "pairs": self.pairs,
            "invalid_actions": self.invalid_actions,
        }
