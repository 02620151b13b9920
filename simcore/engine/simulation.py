"""Python API of the simulator: validated options, segments, results."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np

from simcore.engine import _core, _jobs, _predictor, _selection
from simcore.engine.metrics import job_metrics, summarize
from simcore.engine.policies import EASY_FCFS, ORDERS, Policy, order_code
from simcore.engine.predictors import make_predictor
from simcore.engine.priority import Multifactor, PriorityFunction
from simcore.engine.workload import Workload, WorkloadError

CORRECTIONS = tuple(_core.CORRECTION_NAMES)


def _estimate_label(estimate) -> str:
    """How a run's estimate is named in results and provenance."""
    if isinstance(estimate, str):
        return estimate
    if isinstance(estimate, _predictor.Predictor):
        return type(estimate).__name__
    return "array"


class Simulation:
    """A simulation of one Policy that can run in segments.

    >>> sim = Simulation(workload, order="FCFS")
    >>> sim.run_until(86400.0)      # every instant t < one day
    >>> sim.set_order("SAF")        # in force from the next pass on
    >>> result = sim.finish()

    The policy is `policy` (simcore.engine.policies.Policy), or made of the options order,
    threshold, backfill ("none", "queue" or an order: "SPF" is EASY-SJBF), function (the order
    FUNCTION's), reservations (docs/semantics.md, "Reservation depth": 0 no backfilling, 1 EASY,
    k, or "all", conservative backfilling) and multifactor (the order MULTIFACTOR's parameters)
    as Policy takes them. estimate: "request", "clairvoyant", "ave2" (simcore.engine.predictors),
    a predictor instance or one prediction per job; correction: "request", "incremental",
    "doubling".
    """

    def __init__(
        self,
        workload: Workload,
        order: str = "FCFS",
        threshold=None,
        backfill: str = "queue",
        estimate="request",
        correction: str = "request",
        function: PriorityFunction | None = None,
        reservations=1,
        multifactor: Multifactor | dict | None = None,
        *,
        policy: Policy | None = None,
        jobs: _jobs.Jobs | None = None,
    ):
        """`jobs`: `core_jobs(workload)` when several simulations of one workload share it
        (simulate_orders), validated and copied once."""
        if correction not in CORRECTIONS:
            raise ValueError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}")
        if policy is None:
            policy = Policy(order, threshold, backfill, reservations, multifactor, function)
        self.policy = policy
        self.workload = workload
        self.options = self.policy.provenance(estimate=_estimate_label(estimate), correction=correction)
        self._core = _core.Simulation(
            core_jobs(workload) if jobs is None else jobs,
            predictor=make_predictor(estimate, len(workload)),
            correction=CORRECTIONS.index(correction),
            **self.policy.core_arguments(),
        )
        self.kernel_seconds = 0.0

    def run_until(self, stop: float) -> bool:
        """Process every instant t < stop; True once every job has completed."""
        began = time.perf_counter()
        done = self._core.run_until(float(stop))
        self.kernel_seconds += time.perf_counter() - began
        return done

    def next_decision(self) -> bool:
        """Job selection: run to the next instant where a waiting job must be chosen as the head
        (True), or to the end (False). Use `waiting` and `choose` in between; a simulation driven
        this way must not be run with `run_until` too."""
        began = time.perf_counter()
        pending = _selection.next_decision(self._core)
        self.kernel_seconds += time.perf_counter() - began
        return pending

    def waiting(self, out: np.ndarray) -> int:
        """Fill `out` (int64) with the first waiting jobs in queue order; return how many jobs wait
        in all."""
        return _selection.waiting_jobs(self._core, out)

    def choose(self, job: int) -> None:
        """The waiting job (a position in the workload) that is the head from now on: it starts
        as soon as it fits; until then the others backfill around its reservation (EASY) unless
        the backfill is none."""
        _selection.choose_head(self._core, job)

    def advance_and_observe(self, selection, out: np.ndarray, slots: np.ndarray) -> int:
        """Job selection: `next_decision()`, then the observation `selection` (a
        `simcore.engine._selection.SelectionSettings`) makes of the pending decision, written into
        `out` (float32) and `slots` (int64: the job of each slot, -1 empty). Returns the filled
        slots, or -1 when every job is done (`out` zeros, `slots` -1)."""
        return selection.advance_and_observe(self._core, out, slots)

    def rollout_rewards(self, selection, heads: np.ndarray, out: np.ndarray) -> None:
        """Job selection: for each waiting job of `heads` (int64), the final reward (`selection`'s)
        of the episode in which it is the head now and the first waiting job in the queue order is
        at every later decision, each on a fork, written into `out`; this simulation is unchanged."""
        selection.rollout_rewards(self._core, heads, out)

    def first_by_order(self, order: str, jobs: np.ndarray) -> int:
        """The index in `jobs` (waiting jobs, int64) of the one `order` puts first now (its key at
        this instant; ties: the earlier index)."""
        return _selection.first_by_order(self._core, order_code(order), jobs)

    def fork(self) -> Simulation:
        """An independent copy of this simulation at the current instant (same options, same
        workload, the state copied in C): continue both with the same calls and they give the same
        results; nothing done to one reaches the other. Its cost is the waiting and running jobs'
        and the predictor's state, not the workload's size (docs/environments.md, "Forks")."""
        twin = copy.copy(self)
        twin.options = dict(self.options)
        twin._core = self._core.fork()
        return twin

    @property
    def now(self) -> float:
        """The last instant simulated (-inf before the first)."""
        return self._core.now

    @property
    def free_procs(self) -> int:
        """The processors free now."""
        return self._core.free_procs

    def set_order(self, order: str) -> None:
        """Switch the queue order; the next pass (the first at t >= the last
        stop) uses it."""
        self._core.set_order(order_code(order))

    @property
    def order(self) -> str:
        return ORDERS[self._core.order]

    @property
    def start_times(self) -> np.ndarray:
        """Starts so far (NaN: not started yet); a read-only view, valid between segments."""
        return self._core.start_times

    @property
    def end_times(self) -> np.ndarray:
        """Ends of the jobs started so far (NaN: not started yet); a read-only view."""
        return self._core.end_times

    def finish(self) -> SimulationResult:
        self.run_until(np.inf)
        return SimulationResult(
            self.workload,
            dict(self.options),
            self._core.results(),
            self.kernel_seconds,
            int(self._core.passes),
            int(self._core.passes_by_class),
            int(self._core.reservations_made),
            int(self._core.jobs_reserved),
            self._core.fair_share,
            int(self._core.priority_computations),
        )


def core_jobs(workload: Workload) -> _jobs.Jobs:
    """The core's copy of the workload's jobs (submit, time used, request, processors, dense user),
    validated: a WorkloadError names the job that breaks a rule, whichever check finds it."""
    workload.validate()
    users, n_users = workload.dense_users()
    try:
        return _jobs.Jobs(
            np.ascontiguousarray(workload.submit, dtype=np.float64),
            np.ascontiguousarray(np.minimum(workload.run, workload.requested), dtype=np.float64),
            np.ascontiguousarray(workload.requested, dtype=np.float64),
            np.ascontiguousarray(workload.procs, dtype=np.int64),
            np.ascontiguousarray(users, dtype=np.intc),
            n_users,
            int(workload.machine_size),
        )
    except ValueError as error:
        raise WorkloadError(f"{workload.source}: {error}") from None


def episode_cores(workload: Workload, count: int, episode_jobs: int, order: str, backfill: str, estimate: str) -> list:
    """`count` core simulations that run episodes of `episode_jobs` consecutive jobs of
    `workload` (job selection's vector env; its `_selection.SelectionBatch` restarts them on an episode),
    sharing one copy of its jobs. `estimate` is a predictor's name: each core gets its own."""
    if not isinstance(estimate, str):
        raise ValueError(f"estimate {estimate!r}: episodes take a predictor's name")
    jobs = core_jobs(workload)
    policy = Policy(order, backfill=backfill)
    return [
        _core.Simulation(
            jobs,
            predictor=make_predictor(estimate, len(workload)),
            correction=CORRECTIONS.index("request"),
            episode_jobs=episode_jobs,
            **policy.core_arguments(),
        )
        for _ in range(count)
    ]


def simulate(workload: Workload, *args, **options) -> SimulationResult:
    """Simulate `workload` to the end: Simulation's arguments (a `policy`, or its options order,
    threshold, backfill, function, reservations and multifactor; the estimate and correction)."""
    return Simulation(workload, *args, **options).finish()


def simulate_orders(workload: Workload, orders, policy: Policy = EASY_FCFS) -> list[SimulationResult]:
    """simulate() of `workload` under `policy` with each of `orders` (request estimates), its jobs
    validated and copied for the core once: on a few jobs (the bandit's exact feedback per
    period) that is most of the time."""
    jobs = core_jobs(workload)
    return [Simulation(workload, policy=policy.with_order(order), jobs=jobs).finish() for order in orders]


@dataclass
class SimulationResult:
    workload: Workload
    options: dict
    jobs: dict  # per-job arrays from the core
    kernel_seconds: float
    passes: int
    # of which chose the jobs to start among the classes' first jobs (a dynamic order without
    # backfilling, simcore/engine/_classes.pxd) rather than in the re-sorted queue
    passes_by_class: int
    # reservations made, summed over the passes, and the jobs that ever held one
    # (docs/semantics.md, "Reservation depth")
    reservations_made: int = 0
    jobs_reserved: int = 0
    # MULTIFACTOR: each user's fair-share factor of the last computation (by dense user index,
    # Workload.dense_users) and the number of computations; None and 0 without it
    fair_share: np.ndarray | None = None
    priority_computations: int = 0

    @property
    def start(self) -> np.ndarray:
        return self.jobs["start"]

    def fair_share_by_user(self) -> dict:
        """MULTIFACTOR's fair-share factor of each user (by the workload's user number) at the last
        computation."""
        users = np.unique(self.workload.user)  # the dense index's order (Workload.dense_users)
        return {int(user): float(factor) for user, factor in zip(users, self.fair_share)}

    def summary(self) -> dict:
        summary = summarize(self.workload, self.jobs["start"], self.jobs["backfilled"])
        summary["kernel_seconds"] = self.kernel_seconds
        if "reservations" in self.options:
            summary["reservations_made"] = self.reservations_made
            summary["jobs_reserved"] = self.jobs_reserved
        if self.fair_share is not None:
            summary["priority_computations"] = self.priority_computations
        return summary

    def to_frame(self):
        """One row per job, in workload order."""
        import pandas as pd

        w = self.workload
        per_job = job_metrics(w, self.jobs["start"])
        order_names = np.array(ORDERS + ("",), dtype=object)
        return pd.DataFrame(
            {
                "job_id": w.job_id,
                "submit": w.submit,
                "start": self.jobs["start"],
                "end": self.jobs["end"],
                "wait": per_job["wait"],
                "run": w.run,
                "procs": w.procs,
                "requested": w.requested,
                "user": w.user,
                "initial_estimate": self.jobs["initial_estimate"],
                "backfilled": self.jobs["backfilled"],
                "corrections": self.jobs["corrections"].astype(np.int32),
                "order_at_start": pd.Categorical(order_names[self.jobs["order_at_start"]], categories=list(ORDERS)),
                "bsld": per_job["bsld"],
                "ppbsld": per_job["ppbsld"],
            }
        )
