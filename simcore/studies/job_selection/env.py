"""`schedsweep/JobSelection-v0` (`JobSelectionEnv`) and the environments' shared pieces: the agent
picks the head among a window of waiting jobs; the core runs EASY (or no backfilling) to the next
decision and fills the default observation in C (`simcore/engine/_selection.pyx`). The class's
docstring has the spaces, the rewards and the episode; docs/environments.md, section JobSelection-v0,
the same with an example; docs/job_selection.md the core's selection mode.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np

from simcore.engine._selection import JOB_FEATURES as JOB_FEATURES  # the default layout's, for policies
from simcore.engine._selection import SelectionSettings, choose_head, observation_size
from simcore.engine.actions import carried_out, check_invalid_action
from simcore.engine.metrics import TAU, job_metrics
from simcore.engine.policies import NAMED_ORDERS
from simcore.engine.priority import THESIS_FUNCTIONS
from simcore.engine.simulation import Simulation, simulate
from simcore.workloads.example import example_workload
from simcore.workloads.sources import load_workload

HORIZONS = np.array([60.0, 600.0, 3600.0, 36000.0, 360000.0])
MACHINE_FEATURES = observation_size(0, len(HORIZONS))  # the default layout's, after the slots
BACKFILLS = ("easy", "none")
OBSERVATIONS = ("default", "rlscheduler")
BASELINES = NAMED_ORDERS + tuple(THESIS_FUNCTIONS)  # the thesis's functions F1-F4 run as the order FUNCTION
RLS_FEATURES = 8
RLS_MAX_WAIT = 43200.0
RLS_TOP = 1 - 1e-5
RLS_EMPTY = np.array([0, 1, 1, 1, 1, 1, 1, 0], dtype=np.float32)
LOG_TOP = 1e6  # seconds: ls(x) = min(1, ln(1 + x/60) / ln(1 + LOG_TOP/60)) reaches 1 at about 11.6 days


def job_values(workload, start: np.ndarray, reward: str) -> np.ndarray:
    """The per-job metric of a job-level reward (known when the job starts)."""
    per_job = job_metrics(workload, start, TAU)
    run = np.minimum(workload.run, workload.requested)
    return {
        "bsld": per_job["bsld"],
        "wait": per_job["wait"],
        "turnaround": per_job["flow"],
        "slowdown": per_job["flow"] / np.maximum(run, 1e-9),
    }[reward]


def episode_reward(workload, start: np.ndarray, reward: str):
    """Minus the mean of the metric over the episode's jobs, or the utilisation; with 2-D job
    arrays and starts (one episode per row, the vector env), one value per row."""
    if reward == "utilisation":
        run = np.minimum(workload.run, workload.requested)
        span = np.max(start + run, axis=-1) - np.min(workload.submit, axis=-1)
        work = np.sum(workload.procs * run, axis=-1)
        return np.where(span > 0, work / (workload.machine_size * np.where(span > 0, span, 1.0)), 0.0)[()]
    return -np.mean(job_values(workload, start, reward), axis=-1)


class OrderPolicy:
    """A queue order of the registry as a policy: it picks, among the window's jobs, the one the
    order puts first now (its key, as the core computes it; ties to the earlier slot). Through
    the env a chosen head is a commitment, so this is the order's selection with commitment, not
    EASY with that order (the env's `baselines` give that)."""

    def __init__(self, order: str):
        if order not in NAMED_ORDERS:
            raise ValueError(f"order {order!r}: choose among {', '.join(NAMED_ORDERS)}")
        self.order = order

    def __call__(self, env) -> int:
        env = env.unwrapped
        return int(env.sim.first_by_order(self.order, env._slots[: env._filled]))


class JobSelectionEnv(gymnasium.Env):
    """Job selection (docs/job_selection.md) as RLScheduler set it: the agent picks the head, the
    waiting job the scheduler starts next, among a window of waiting jobs.

    One step per *decision*: one is pending when no head is chosen and a job waits. Between
    decisions the core's event loop runs in C (docs/semantics.md): the chosen head starts as soon
    as it fits, and until then no other decision is asked (the head is a commitment) while, with
    `backfill="easy"`, the other waiting jobs backfill around its reservation (EASY). A head that
    fits starts at once, and the next decision is at the same instant.

    Action: Discrete(W), W = `window`: slot s is the s-th waiting job in `window_order`.
    `action_masks()` (and ``info["action_mask"]``) marks the filled slots; any other action of the
    space is taken as `invalid_action` says (docs/environments.md, "Invalid actions": by default the
    first valid one). After the end only slot 0 is marked (a placeholder).

    Observation ``"default"`` (float32, shape 6 W + 7, filled in C by
    `simcore.engine._selection`); t = now, m = processors, ls(x) = min(1, ln(1 + x/60) /
    ln(1 + 10^6/60)), which puts seconds to days on one scale; an empty slot, and the
    observation after the end, are zeros:

    | index | meaning | normalisation |
    |---|---|---|
    | 6 s | slot s holds a waiting job | 0 or 1 |
    | 6 s + 1 | its wait t - r | ls |
    | 6 s + 2 | its requested time | ls |
    | 6 s + 3 | its processors q | / m |
    | 6 s + 4 | it fits now (q <= free processors) | 0 or 1 |
    | 6 s + 5 | its current estimate (the `estimate` predictor's) | ls |
    | 6 W | free processors | / m |
    | 6 W + 1 ... 6 W + 5 | processors freed within 1 min, 10 min, 1 h, 10 h, 100 h (estimated ends) | / m |
    | 6 W + 6 | the episode's jobs completed | / `sequence_length` |

    Observation ``"rlscheduler"`` (RLScheduler's layout, float32, shape 8 W; every entry clipped
    to 1 - 1e-5; an empty slot is [0, 1, 1, 1, 1, 1, 1, 0]):

    | index | meaning | normalisation |
    |---|---|---|
    | 8 s | wait t - r | / 43,200 s |
    | 8 s + 1 | requested time | / the workload's longest run time |
    | 8 s + 2 | processors | / m |
    | 8 s + 3 | requested memory | / the workload's largest (1: unknown) |
    | 8 s + 4 | user | / the largest user number (1: unknown) |
    | 8 s + 5 | group | / the largest group number (1: unknown) |
    | 8 s + 6 | executable | 1 (the workload does not carry it) |
    | 8 s + 7 | fits now | 1 - 1e-5 if q <= free processors, else 1e-5 |

    Reward: final (the default), 0 at every step but the last, which gives minus the mean over
    the episode's jobs of `reward`'s metric, p being the time a job used and w its wait
    (``"bsld"``: max(1, (w + p) / max(p, 10 s)); ``"wait"``: w; ``"turnaround"``: w + p;
    ``"slowdown"``: (w + p) / p), or ``"utilisation"``: sum(q p) / (m (last end - first submit)).
    Dense (`dense=True`, the four job metrics): each step gives minus the growth, since the last
    step, of the sum over the jobs submitted so far of their metric with the wait they have
    reached, over the episode's length; the steps add up to the final reward.

    Episode: `sequence_length` consecutive jobs of the workload from a start drawn from
    ``self.np_random`` at reset (or ``options={"start": i}``), on an empty machine. It terminates
    when every job of it has completed; nothing truncates it.

    Info: ``decisions``, ``time``, ``jobs`` (the job of each slot, a position in
    ``self.episode``, -1 empty), ``waiting`` (the filled slots) and ``action_mask``; at the end
    also ``metrics`` (the core's summary of the episode: avg_bsld, avg_wait, utilization, ...),
    ``start`` (every job's start) and ``baselines`` (the reward of each order of `baselines`, run
    by the core on the same episode). The observation, ``jobs`` and ``action_mask`` (and
    `action_masks()`) are new arrays at every call, the caller's to keep and change: none is a view
    of the env's state, which Gymnasium's contract forbids (check_env: two calls must not share
    data). The speed is elsewhere: the mask is a row of a read-only table (row f: the first f
    slots) rather than rewritten, the core is called directly, and a filled slot costs one
    comparison.

    Arguments: `workload` (None: the package's example workload; a Workload, a filtered Parquet file
    or a trace name of the catalogue, read with `filter_mode` from `pwa_mirror`), `window`,
    `window_order` (a queue order of the registry), `backfill` (``"easy"`` or ``"none"``),
    `backfill_order` (with easy, the order the other jobs are tried in; None: the window's),
    `sequence_length` (None: the whole workload), `estimate` (a predictor of the registry), `reward`
    (one of `simcore.engine._selection.REWARDS`), `dense`, `observation`, `baselines` (orders of the
    registry and the thesis's functions F1-F4), `invalid_action` and `invalid_penalty` (an action
    the mask does not allow: docs/environments.md, "Invalid actions").

    Version History (docs/environments.md, "Versions"):

    - v0 (2026-11-23): initial version. Since then, with the same observations, rewards and
      episodes (measured by the same seeded masked random actions on the example workload against the code of
    2026-11-24 (commit 1cf7643)): an action the mask does not allow is taken as
      `invalid_action` says instead of raising ValueError (2026-11-26); `fork()` and
      `rollout_rewards(heads)` (2026-11-26).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        workload=None,
        *,
        window: int = 128,
        sequence_length: int | None = 256,
        backfill: str = "easy",
        backfill_order: str | None = None,
        window_order: str = "FCFS",
        reward: str = "bsld",
        baselines: tuple = (),
        dense: bool = False,
        observation: str = "default",
        estimate: str = "request",
        filter_mode: str = "strict",
        pwa_mirror=None,
        invalid_action: str = "first_valid",
        invalid_penalty: float = 0.0,
    ):
        self.invalid_penalty = check_invalid_action(invalid_action, invalid_penalty)
        if backfill not in BACKFILLS:
            raise ValueError(f"backfill {backfill!r}: choose one of {', '.join(BACKFILLS)}")
        for name, orders, known in (
            ("backfill_order", [backfill_order], NAMED_ORDERS),
            ("window_order", [window_order], NAMED_ORDERS),
            ("baselines", baselines, BASELINES),
        ):
            unknown = [order for order in orders if order is not None and order not in known]
            if unknown:
                raise ValueError(f"{name}: unknown orders {unknown}; choose among {', '.join(known)}")
        if window < 1:
            raise ValueError(f"window {window}: at least one slot")
        self.selection = SelectionSettings(window, HORIZONS, LOG_TOP, reward, TAU)  # checks the reward
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation {observation!r}: choose one of {', '.join(OBSERVATIONS)}")
        if dense and reward == "utilisation":
            raise ValueError("dense rewards are per job: not for the utilisation, known only at the end")
        self.workload = (
            example_workload(filter_mode)
            if workload is None
            else load_workload(workload, filter_mode=filter_mode, pwa_mirror=pwa_mirror)
        )
        if sequence_length is not None and not 1 <= sequence_length <= len(self.workload):
            raise ValueError(f"sequence_length {sequence_length}: between 1 and the {len(self.workload)} jobs")
        self.window = window
        self.sequence_length = sequence_length
        self.core_backfill = "none" if backfill == "none" else (backfill_order or "queue")
        self.window_order = window_order
        self.reward_name = reward
        self.baselines = tuple(baselines)
        self.dense = dense
        self.estimate = estimate
        self.invalid_action = invalid_action
        self.layout = observation
        size = window * RLS_FEATURES if observation == "rlscheduler" else self.selection.observation_size
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self._scales = self._rlscheduler_scales()
        self.action_space = gymnasium.spaces.Discrete(window)
        self._slots = np.zeros(window, dtype=np.int64)
        self._buffer = np.zeros(self.selection.observation_size, dtype=np.float32)
        self._filled = 0
        self._pending = False
        # row f: the first f slots (the mask when f are filled); read-only, shared by nobody
        self._masks = np.tri(window + 1, window, -1, dtype=bool)
        self._masks.flags.writeable = False
        self._mask = self._masks[1]  # the filled slots (action_masks)
        self._default = observation == "default"
        self._advance_and_observe = self.selection.advance_and_observe
        self.episode = None
        self.sim = None

    # -- the Gymnasium API ---------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        length = self.sequence_length or len(self.workload)
        start = options.pop("start", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; known: start")
        if start is None:
            start = int(self.np_random.integers(0, len(self.workload) - length + 1))
        if not 0 <= start <= len(self.workload) - length:
            raise ValueError(f"start {start}: between 0 and {len(self.workload) - length}")
        self.episode = self.workload.take(np.arange(start, start + length))
        self.sim = Simulation(self.episode, self.window_order, backfill=self.core_backfill, estimate=self.estimate)
        self.decisions = 0
        self.invalid_actions = 0
        self._accrued_before = 0.0  # dense: the jobs' metric reached at the last step
        self._advance()
        return self._observation(), self._info()

    def step(self, action):
        if not self._pending:
            raise RuntimeError("the episode is over: call reset()")
        if type(action) is int and 0 <= action < self._filled:
            pass  # the common case, first: a filled slot (the mask) costs one comparison
        else:
            action, invalid = carried_out(action, self.action_space, self._mask, self.invalid_action)
            self.invalid_actions += invalid
            if action is None:  # skip: the same decision again, at a cost
                return self._observation(), -self.invalid_penalty, False, False, self._info()
        choose_head(self.sim._core, self._slots.item(action))  # the core directly: one call a step
        self.decisions += 1
        self._advance()
        info = self._info()
        if self._pending:
            return (
                self._buffer.copy() if self._default else self._observation(),
                self._dense_reward() if self.dense else 0.0,
                False,
                False,
                info,
            )
        reward = self._dense_reward() if self.dense else 0.0
        result = self.sim.finish()
        if not self.dense:
            reward = float(episode_reward(self.episode, result.start, self.reward_name))
        info["metrics"] = result.summary()
        info["start"] = result.start
        info["baselines"] = {  # each order run by the core on the same sequence, the same reward
            order: float(episode_reward(self.episode, self.baseline_run(order).start, self.reward_name))
            for order in self.baselines
        }
        return self._observation(), reward, True, False, info

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()  # writable, the caller's

    # -- lookahead -------------------------------------------------------------------------

    def fork(self) -> JobSelectionEnv:
        """An independent copy of this environment at the pending decision: its simulation forked
        in C (`Simulation.fork`), its buffers and random generator copied. Step both with the same
        actions and they give the same observations and rewards; stepping one never changes the
        other."""
        if self.sim is None:
            raise RuntimeError("nothing to fork: call reset() first")
        twin = copy.copy(self)
        twin.sim = self.sim.fork()
        twin._slots, twin._buffer = self._slots.copy(), self._buffer.copy()  # the mask: a read-only row
        twin._np_random = copy.deepcopy(self._np_random)
        return twin

    def rollout_rewards(self, heads: int | None = None) -> np.ndarray:
        """For each of the first `heads` filled slots (None: all): the episode's final reward if
        that slot is the action now and the first slot is at every later decision (the window
        order's rollout), each on a fork, in C. The environment itself does not move."""
        if self.sim is None or not self._pending:
            raise RuntimeError("no decision is pending: call reset()")
        count = self._filled if heads is None else min(heads, self._filled)
        rewards = np.empty(count)
        self.sim.rollout_rewards(self.selection, self._slots[:count], rewards)
        return rewards

    # -- internals -------------------------------------------------------------------------

    def _advance(self) -> None:
        """Run the core to the next decision and fill the observation buffer there (one C call)."""
        filled = self._advance_and_observe(self.sim._core, self._buffer, self._slots)
        self._pending = filled >= 0
        self._filled = filled if filled > 0 else 0
        # the filled slots; with nothing pending slot 0 alone, the placeholder gymnasium needs
        self._mask = self._masks[filled if filled > 0 else 1]

    def baseline_run(self, order: str):
        """EASY with `order` (a named order, or a thesis function F1-F4) on this episode, by the core."""
        function = THESIS_FUNCTIONS.get(order)
        return simulate(
            self.episode,
            "FUNCTION" if function else order,
            backfill=self.core_backfill,
            estimate=self.estimate,
            function=function,
        )

    def _dense_reward(self) -> float:
        """Minus the growth, since the last step, of the episode's jobs' metric so far over the
        episode's length: a submitted job's metric is counted with the wait it has reached (its
        wait so far while it waits), so the reward follows the waiting as it happens, and the
        steps add up to the final reward's value (up to rounding)."""
        now = self.sim.now if self._pending else np.inf
        accrued = self._accrued(now)
        reward = -(accrued - self._accrued_before) / len(self.episode)
        self._accrued_before = accrued
        return reward

    def _accrued(self, now: float) -> float:
        """The sum over the jobs submitted by `now` of their metric with the wait reached by `now`."""
        start = self.sim.start_times if np.isfinite(now) else self.sim.finish().start
        submitted = self.episode.submit <= now
        reached = np.fmin(start, now)[submitted]
        return float(np.sum(job_values(self.episode.take(np.flatnonzero(submitted)), reached, self.reward_name)))

    def _observation(self) -> np.ndarray:
        if self.layout == "default":
            return self._buffer.copy()
        rows = np.tile(RLS_EMPTY, (self.window, 1))
        jobs = self._slots[: self._filled]
        w = self.episode
        longest, memory, user, group = self._scales
        rows[: self._filled, 0] = (self.sim.now - w.submit[jobs]) / RLS_MAX_WAIT
        rows[: self._filled, 1] = w.requested[jobs] / longest
        rows[: self._filled, 2] = w.procs[jobs] / w.machine_size
        rows[: self._filled, 3] = np.where(np.isnan(w.memory[jobs]), 1.0, w.memory[jobs] / memory)
        rows[: self._filled, 4] = np.where(w.user[jobs] < 0, 1.0, w.user[jobs] / user)
        rows[: self._filled, 5] = np.where(w.group[jobs] < 0, 1.0, w.group[jobs] / group)
        rows[: self._filled, 6] = 1.0
        rows[: self._filled, 7] = np.where(w.procs[jobs] <= self.sim.free_procs, RLS_TOP, 1e-5)
        rows[: self._filled] = np.minimum(rows[: self._filled], RLS_TOP)
        return rows.ravel()

    def _rlscheduler_scales(self) -> tuple:
        """The workload's longest run time and largest memory, user and group (RLScheduler's
        normalisations; 1 where nothing is known)."""
        w = self.workload
        memory = np.nanmax(w.memory) if np.isfinite(w.memory).any() else 1.0
        return (
            max(float(np.max(w.run)), 1.0),
            max(float(memory), 1.0),
            max(float(np.max(w.user)), 1.0),
            max(float(np.max(w.group)), 1.0),
        )

    def _info(self) -> dict:
        return {
            "decisions": self.decisions,
            "time": self.sim._core.now,
            "jobs": self._slots.copy(),  # -1: an empty slot
            "waiting": self._filled,
            "action_mask": self._mask.copy(),  # new arrays every step: Gymnasium's contract (check_env)
            "invalid_actions": self.invalid_actions,
        }
