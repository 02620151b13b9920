"""Gymnasium environments over the elastic study's grid site (docs/elastic.md §2, §4, §5, §8).

`SchedulingEnv` (``schedsweep/GridScheduling-v1``): the scheduling MDP, rigid pool, an action is a
waiting job. `ElasticEnv` (``schedsweep/ElasticProvisioning-v1``): the elastic MDP, an action is a
waiting job and a pool level, or a level alone at a pool-only decision. Both are views of the site's
own loop (`site.site_decisions`, the loop `run_site` drives), one step per decision; their class
docstrings have the spaces, the rewards and the episodes, docs/environments.md the same with an
example and the measurements.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import gymnasium
import numpy as np

from simcore.engine.actions import carried_out, check_invalid_action
from simcore.studies.elastic.jobsets import VOS, JobSet, consecutive_sets, job_set, serial_jobs, whole_set
from simcore.studies.elastic.metrics import EXCLUDED, run_metrics, time_average_pool
from simcore.studies.elastic.rewards import UTILISATIONS, Rewards
from simcore.studies.elastic.site import (
    ACTION_INPUTS,
    MODELS,
    STATE_INPUTS,
    DecisionPoint,
    phi,
    pool_levels,
    site_decisions,
)
from simcore.workloads.example import example_workload
from simcore.workloads.sources import load_workload

EXAMPLE_JOBS = 6000  # about 2,200 serial jobs: enough online jobs for the metrics' exclusions
EXAMPLE_PRE_TRAINING = 500
EPISODES = ("online", "pre-training")
CANDIDATES = ("descriptions", "queue")
SLOT_INPUTS = 1 + ACTION_INPUTS + 1  # occupied, the action inputs, φ(wait)
EST_SLOTS = 2 * VOS
ORA_WINDOW = 32


@lru_cache(maxsize=1)
def example_job_set() -> JobSet:
    """The job set of the package's generated example workload (truncate filter).

    The example records one group for every job; its user numbers stand for the groups, so that
    its serial jobs have the study's seven VOs. 500 pre-training jobs instead of 2,000 (a small set).
    """
    generated = example_workload("truncate", jobs=EXAMPLE_JOBS)
    grouped = replace(generated, group=generated.user.copy(), source="simcore example workload")
    serial = serial_jobs(grouped)
    return job_set(serial, np.arange(len(serial)), "simcore example", pre_training=EXAMPLE_PRE_TRAINING)


def load_job_set(workload, set_number: int | None, filter_mode: str, pwa_mirror) -> JobSet:
    """A JobSet as is; a Workload, Parquet file or trace name cut as the study does (§1): set
    `set_number` (1-based) of the consecutive sets of 11,500 serial jobs, or all serial jobs (None)."""
    if workload is None:
        return example_job_set()
    if isinstance(workload, JobSet):
        return workload
    loaded = load_workload(workload, filter_mode=filter_mode, pwa_mirror=pwa_mirror)
    name = workload if isinstance(workload, str) else loaded.source
    if set_number is None:
        return whole_set(loaded, name)
    sets = consecutive_sets(loaded, name, count=set_number)
    if len(sets) < set_number:
        raise ValueError(f"{name}: {len(sets)} job sets, no set {set_number}")
    return sets[set_number - 1]


class SchedulingEnv(gymnasium.Env):
    """The elastic study's scheduling MDP (docs/elastic.md §2, §4, §5) on its rigid pool (`rigid_pool`), with
    the agent in the place of the SARSA learner: it picks which waiting serial job starts on an
    idle core.

    One step per decision of the site's own loop (an idle core and a waiting job); the loop runs
    to the next decision in between (submissions, completions, the rewards as they become known).

    Action: Discrete(S), the slot whose job starts. The slots (`candidates`):

    - ``"descriptions"`` (EST's default): 14 slots, one per job description (type, VO): slot
      ``7 * type + vo`` (type 1 = interactive, VO 0..6 with 6 = "rest") stands for the *earliest*
      waiting job with that description. Under EST jobs of one description have identical inputs
      (§5.1), so the slots are every distinct candidate the learner scores; a greedy choice among
      equal values goes to the earliest job, which is the slot's. (ε-exploration picking a later
      job of a description is not expressible: use ``"queue"`` with a window as long as the queue.)
    - ``"queue"`` (ORA's only choice, since jobs differ by φ(p_j)): the first `window` waiting jobs
      in (r, id) order; a policy looking past the window (EDF on a long queue) is not expressible.
      With a window at least as long as the queue every candidate of §5 is a slot, and our learner
      through the env makes the direct run's decisions exactly (`agent.EnvAgent`).

    `action_masks()` and ``info["action_mask"]`` mark the slots holding a job (after the end,
    action 0 alone); any other action of the space is taken as `invalid_action` says (docs/environments.md,
    "Invalid actions": by default the first valid one).

    Observation (float64, shape 11 + 10 S, the learner's inputs exactly, every entry in [0, 1];
    zeros after the end):

    | index | meaning | normalisation |
    |---|---|---|
    | 0-10 | the 11 state numbers of §4 (workload, time to a free core, backlog, idle cores, VO shares) | §4 |
    | 11 + 10 s | slot s holds a job | 0 or 1 |
    | 12 + 10 s ... 19 + 10 s | slot s's 8 action inputs of §4 (type, VO one-hot, φ(e_j)) | §4 |
    | 20 + 10 s | slot s's wait t - r_j | φ |

    Reward: the study's reward of a decision (§5.2, `rewards.Rewards`), λ W_j + (1 - λ) F_j, F_j at
    the job's election, known when the job completes. A step's reward is the sum of the rewards that
    became known while the simulation ran from this step's decision to the next one (the last step:
    to the end, so every reward is delivered once); ``info["known_rewards"]`` lists them as
    (decision number, reward) pairs for learners that credit each decision (SARSA).

    Episode: the online jobs of the job set from an empty site (§7), or with
    ``episode="pre-training"`` its first jobs from the same pool (the site of the learner's
    pre-training). It terminates when they are all done; nothing truncates it. It is deterministic
    (no random draw: the seed only seeds ``self.np_random``).

    Info: ``time``, ``decisions``, ``candidates`` (the job of each slot, -1: empty), ``pool``,
    ``action_mask``, ``known_rewards``, ``job`` and ``level`` (the last decision's; job -1 at a
    pool-only decision); at the end ``metrics`` (the study's run_metrics of §10 when the episode is
    the online set and long enough, with ``mean_pool`` and ``utilisation``), and ``self.result`` is
    the SiteRun.

    Arguments: `workload` (None: the package's example; a JobSet; a Workload, Parquet file or trace
    name), `set_number` (with a trace: the 1-based set of 11,500 consecutive serial jobs, §1; None:
    all serial jobs), `filter_mode` and `pwa_mirror` (trace names), `model` (``"EST"`` or ``"ORA"``:
    the execution times the decisions see), `lam` (λ of the reward, in [0, 1]), `episode`
    (``"online"`` or ``"pre-training"``), `candidates` (above; default: descriptions under EST,
    queue under ORA), `window` (the queue's slots), `utilisation` (the elastic reward's U,
    ``"interval"`` or ``"cumulative"``: see ElasticEnv), `rigid_pool` (``"site"``: the site's own cores,
    the default; ``"load"``: the load-matched pool; the elastic MDP starts from the load-matched pool
    whatever it says), `invalid_action` and `invalid_penalty` (an
    action the mask does not allow: docs/environments.md, "Invalid actions").

    Version History (docs/environments.md, "Versions"):

    - v1 (2026-11-28): the pool is the site's own cores (``rigid_pool="site"``; v0 ran on the
      load-matched pool, still ``rigid_pool="load"``, which gives v0's episodes exactly); an action
      the mask does not allow is taken as `invalid_action` says instead of raising ValueError.
    - v0 (2026-11-23): initial version; ``gymnasium.make`` of v0 now raises DeprecatedEnv.
    """

    metadata = {"render_modes": []}
    elastic = False

    def __init__(
        self,
        workload=None,
        *,
        set_number: int | None = 1,
        filter_mode: str = "truncate",
        pwa_mirror=None,
        model: str = "EST",
        lam: float = 0.5,
        episode: str = "online",
        candidates: str | None = None,
        window: int = ORA_WINDOW,
        utilisation: str = "interval",
        rigid_pool: str = "site",
        invalid_action: str = "first_valid",
        invalid_penalty: float = 0.0,
    ):
        self.invalid_penalty = check_invalid_action(invalid_action, invalid_penalty)
        self.invalid_action = invalid_action
        if model not in MODELS:
            raise ValueError(f"model {model!r}: choose one of {', '.join(MODELS)}")
        if episode not in EPISODES:
            raise ValueError(f"episode {episode!r}: choose one of {', '.join(EPISODES)}")
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lam {lam}: λ weighs two rewards in [0, 1], so it must be in [0, 1]")
        if utilisation not in UTILISATIONS:
            raise ValueError(f"utilisation {utilisation!r}: choose one of {', '.join(UTILISATIONS)}")
        self.jobs = load_job_set(workload, set_number, filter_mode, pwa_mirror)
        self.model = model
        self.lam = lam
        self.utilisation = utilisation
        self.episode = episode
        self.candidates = candidates or ("descriptions" if model == "EST" else "queue")
        if self.candidates not in CANDIDATES or (model == "ORA" and self.candidates == "descriptions"):
            raise ValueError(
                f"candidates {candidates!r}: choose one of {', '.join(CANDIDATES)} (ORA: queue, its jobs all differ)"
            )
        self.slots = EST_SLOTS if self.candidates == "descriptions" else int(window)
        if self.slots < 1:
            raise ValueError(f"window {window}: at least one slot")
        online = episode == "online"
        self.first, self.last = (self.jobs.pre_training, len(self.jobs)) if online else (0, self.jobs.pre_training)
        # the rigid MDP runs on the site's cores (or the load-matched pool); the elastic one starts
        # from the load-matched pool, its levels' base (docs/elastic.md §1.4, §8.1)
        self.pool = self.jobs.load_pool if self.elastic else self.jobs.rigid_pool(rigid_pool)
        self.site_levels = pool_levels(self.jobs.load_pool) if self.elastic else None
        self.levels = np.union1d(self.site_levels, [self.pool]) if self.elastic else np.array([self.pool])
        # the inputs' P_max: the elastic learner's pre-training encodes them as its online run will (§7)
        self.pool_top = int(self.levels[-1])
        size = STATE_INPUTS + self.slots * SLOT_INPUTS + (3 if self.elastic else 0)
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), dtype=np.float64)
        self.action_space = gymnasium.spaces.Discrete(self._action_count())
        self._loop = None
        self.point: DecisionPoint | None = None
        self.result = None
        self._slot_jobs = np.full(self.slots, -1, dtype=np.int64)
        self._mask = self._valid_actions()

    def _action_count(self) -> int:
        return self.slots

    # -- the Gymnasium API -----------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}: the episode is fixed by the constructor")
        self._known: list[tuple[int, float]] = []
        rewards = Rewards(self.lam, self.elastic, self.utilisation, lambda *known: self._known.append(known))
        self.decisions = 0
        self.invalid_actions = 0
        self.result = None
        self.last_job, self.last_level = -1, -1
        self._loop = site_decisions(
            self.jobs,
            self.pool,
            self.first,
            self.last,
            self.model,
            self.site_levels,
            rewards,
            self.pool_top,
        )
        self._advance(None)
        return self._observation(), self._info()

    def step(self, action):
        if self.point is None:
            raise RuntimeError("the episode is over: call reset()")
        action, invalid = carried_out(action, self.action_space, self._mask, self.invalid_action)
        self.invalid_actions += invalid
        if action is None:  # skip: the same decision again, at a cost
            return self._observation(), -self.invalid_penalty, False, False, self._info()
        job, level = self._chosen(action)
        self.last_job, self.last_level = job, level
        self.decisions += 1
        self._advance(level if job < 0 else (job, level))
        known, self._known = self._known, []
        reward = float(sum(value for _, value in known))
        info = self._info()
        info["known_rewards"] = known
        terminated = self.point is None
        if terminated:
            info["metrics"] = self._metrics()
        return self._observation(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The valid actions; after the end only action 0 (no decision is pending)."""
        return self._mask.copy()

    def _valid_actions(self) -> np.ndarray:
        mask = np.zeros(self.action_space.n, dtype=bool)
        if self.point is None:
            mask[0] = True
            return mask
        mask[: self.slots] = self._slot_jobs >= 0
        return mask

    # -- the simulation ----------------------------------------------------------------------

    def _advance(self, choice) -> None:
        """Run the site to the next decision (None: the end, then self.result is the SiteRun)."""
        try:
            self.point = next(self._loop) if choice is None else self._loop.send(choice)
        except StopIteration as finished:
            self.point = None
            self.result = finished.value
        # what a decision's step, observation and info read, computed once per decision
        self._slot_jobs = self._fill_slots()
        self._mask = self._valid_actions()

    def _fill_slots(self) -> np.ndarray:
        """The job of each slot (-1: empty) at the pending decision."""
        slots = np.full(self.slots, -1, dtype=np.int64)
        if self.point is None or self.point.pool_only:
            return slots
        queue = np.asarray(self.point.site.queue, dtype=np.int64)
        if self.candidates == "queue":
            slots[: min(len(queue), self.slots)] = queue[: self.slots]
            return slots
        description = 7 * self.jobs.interactive[queue].astype(np.int64) + self.jobs.vo[queue]
        described, earliest = np.unique(description, return_index=True)  # the first of each in queue order
        slots[described] = queue[earliest]
        return slots

    def _chosen(self, action: int) -> tuple[int, int]:
        return int(self._slot_jobs[action]), self.point.site.pool

    # -- observation and info ----------------------------------------------------------------

    def _observation(self) -> np.ndarray:
        observation = np.zeros(self.observation_space.shape)
        if self.point is None:
            return observation
        site = self.point.site
        observation[:STATE_INPUTS] = site.state_inputs()
        candidates = self._slot_jobs
        filled = np.flatnonzero(candidates >= 0)
        per_slot = observation[STATE_INPUTS : STATE_INPUTS + self.slots * SLOT_INPUTS].reshape(self.slots, SLOT_INPUTS)
        if len(filled):
            jobs = candidates[filled]
            per_slot[filled, 0] = 1.0
            per_slot[filled, 1 : 1 + ACTION_INPUTS] = site.action_inputs(jobs)
            per_slot[filled, -1] = phi(site.t - self.jobs.submit[jobs])
        if self.elastic:
            may_change = not np.array_equal(self.point.levels, [site.pool])
            observation[-3:] = (site.pool / site.top, float(may_change), float(self.point.pool_only))
        return np.clip(observation, 0.0, 1.0)

    def _info(self) -> dict:
        site = self.point.site if self.point is not None else None
        return {
            "time": float(site.t) if site is not None else float(np.nanmax(self.result.end)),
            "decisions": self.decisions,
            "candidates": self._slot_jobs.copy(),
            "pool": int(site.pool) if site is not None else int(self.result.pool_sizes[-1]),
            "job": self.last_job,
            "level": self.last_level,
            "action_mask": self.action_masks(),
            "known_rewards": [],
            "invalid_actions": self.invalid_actions,
        }

    def _metrics(self) -> dict:
        """The study's metrics of the run (§10), with the pool's time average and the utilisation."""
        run = self.result
        episode = slice(self.first, self.last)
        end = float(np.nanmax(run.end[episode]))
        mean_pool = time_average_pool(run.pool_times, run.pool_sizes, end)
        area = mean_pool * (end - float(run.pool_times[0]))
        metrics = {
            "decisions": run.decisions,
            "mean_pool": mean_pool,
            "utilisation": float(self.jobs.run[episode].sum() / area) if area > 0 else float("nan"),
        }
        if self.episode == "online" and self.last - self.first > 2 * EXCLUDED:
            metrics.update(run_metrics(self.jobs, run.start, run.fairness))
        return metrics


class ElasticEnv(SchedulingEnv):
    """The elastic study's elastic MDP (docs/elastic.md §8): the agent picks the job that starts
    and the size of the pool, or the size alone when no job waits.

    One step per decision of the site's loop: SchedulingEnv's, and the *pool-only* decisions (the
    queue is empty at a completion instant where the pool may change, §8.3).

    Action: Discrete((S + 1) L), ``slot * L + level``: the slots are SchedulingEnv's
    (`candidates`), slot S is "no job" (valid only at a pool-only decision), and ``level`` indexes
    ``env.levels``, the §8 pool levels and P_load (the initial pool), ascending; when the pool may
    not change only the current pool is valid. `action_masks()` and ``info["action_mask"]`` mark
    the valid actions; any other action of the space is taken as `invalid_action` says (docs/environments.md,
    "Invalid actions": by default the first valid one).

    Observation (float64, shape 14 + 10 S, every entry in [0, 1]; zeros after the end):

    | index | meaning | normalisation |
    |---|---|---|
    | 0 ... 10 + 10 S | SchedulingEnv's observation: the state numbers and the slots | §4 |
    | 11 + 10 S | the current pool | / P_max |
    | 12 + 10 S | the pool may change at this decision (another level is valid) | 0 or 1 |
    | 13 + 10 S | pool-only decision (the queue is empty) | 0 or 1 |

    Reward: λ W_j + (1 - λ) U_t, U_t the utilisation of the interval from the decision to the next
    decision instant (``utilisation="interval"``, our per-interval modification of Eq. 3, §8.5, so
    the level chosen changes its own reward; or ``"cumulative"``, Eq. 3 as printed), known when both
    are (a pool-only decision has W = 1); delivered per step and listed in ``info["known_rewards"]``
    as SchedulingEnv's. A learner that encodes the level as the study's does (its headroom over
    the running jobs, §4) reads the running jobs as pool − idle cores (indices 11 + 10 S and 3).

    Episode: SchedulingEnv's; in the pre-training episode the agent chooses the levels too, as the
    study's pre-training explores them.

    Info: SchedulingEnv's, ``level`` being the pool chosen.

    Arguments: SchedulingEnv's.

    Version History (docs/environments.md, "Versions"):

    - v1 (2026-11-28): the reward's U is the utilisation of the interval the decision governs
      (``utilisation="interval"``) or Eq. 3 as printed (``"cumulative"``), where v0 took U at the
      job's election, which no setting gives any more; the pool levels are §8's levels of the
      load-matched pool (on the example set 3 and 10 cores; v0: 3 and 30), so the pool and idle-core
      entries of the observation are scaled by a different P_max; in the pre-training episode the
      agent chooses the levels too; an action the mask does not allow is taken as `invalid_action`
      says instead of raising ValueError. Measured against v0 (the code of 2026-11-24, commit
      1cf7643) by the same seeded masked random actions on the example set: different observations
      and rewards.
    - v0 (2026-11-23): initial version; ``gymnasium.make`` of v0 now raises DeprecatedEnv.
    """

    elastic = True

    def _action_count(self) -> int:
        return (self.slots + 1) * len(self.levels)

    def _valid_actions(self) -> np.ndarray:
        if self.point is None:
            return super()._valid_actions()
        allowed_levels = np.isin(self.levels, self.point.levels)
        slots = np.append(self._slot_jobs >= 0, self.point.pool_only)
        return np.outer(slots, allowed_levels).ravel()

    def _chosen(self, action: int) -> tuple[int, int]:
        slot, level = divmod(action, len(self.levels))
        job = -1 if slot == self.slots else int(self._slot_jobs[slot])
        return job, int(self.levels[level])
