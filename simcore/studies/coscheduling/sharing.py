"""Co-scheduling runs over a workload: validation, then the C event loop (_sharing.pyx).

`simulate_sharing(workload, SharingSettings(strategy="ASAX"), seed=0)` runs one
whole trace; `SharingRun` is the same run held open, one case at a time, for an
external policy (the Gymnasium environment). Semantics: docs/coscheduling.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simcore.engine.predictors import make_predictor
from simcore.engine.workload import Workload
from simcore.studies.coscheduling._sharing import (
    CPU_LIMIT_NAMES,
    EXPERT_NAMES,
    FEEDBACK_NAMES,
    INTERFERENCE_NAMES,
    LOSS_NAMES,
    MAX_LEVELS,
    QUOTA_NAMES,
    SCHEDULER_NAMES,
    SCOPE_NAMES,
    STATIC_NAMES,
    STRATEGY_NAMES,
    SharingSimulation,
)

STRATEGIES = STRATEGY_NAMES[:4]  # EXTERNAL is the environment's
LOSSES = LOSS_NAMES
SCOPES = SCOPE_NAMES
INTERFERENCES = INTERFERENCE_NAMES
QUOTAS = QUOTA_NAMES
FEEDBACKS = FEEDBACK_NAMES
SCHEDULERS = SCHEDULER_NAMES
STATIC_MODES = STATIC_NAMES
CPU_LIMITS = CPU_LIMIT_NAMES
# the estimates the experts may read (phase, Hp): the engine's predictors but the learned regression
FEATURES = ("request", "clairvoyant", "ave2")
EXPERTS = EXPERT_NAMES
GIB_KB = 1024 * 1024
EFFICIENCY_MODES = ("require", "assume-cpu-bound")


class SharingInputError(ValueError):
    """A workload or setting the co-scheduling model cannot use; names what is wrong."""


def default_memory_capacity(workload: Workload) -> float:
    """The 99th percentile of known memory per processor, rounded up to a whole GiB (KB)."""
    known = workload.memory[~np.isnan(workload.memory)]
    if len(known) == 0:
        raise SharingInputError(f"{workload.source}: no job records its memory (SWF fields 7 and 10); use memory: off")
    return float(math.ceil(np.percentile(known, 99) / GIB_KB) * GIB_KB)


@dataclass(frozen=True)
class SharingSettings:
    """One configuration of the sharing model and its strategy."""

    strategy: str = "ASAX"
    levels: int = 10
    kappa: float = 0.0
    memory: bool = True
    memory_capacity: float | None = None  # KB per processor; None: the workload's default
    loss: str = "degradation"
    scope: str = "shared"
    efficiency: str = "require"
    interference: str = "constant"  # κ for every pair, or scaled by the pair's memory pressure and CPU use
    protect_reservation: bool = True  # pairs may not delay the head's reservation (L <= extra)
    fall_through: bool = True  # a learner's a0 tries the next donor (off: the guest's walk ends)
    learn: bool = True  # off: the Hedge weights stay at 1/4 (a frozen mixture of the experts)
    quotas: str = "fixed"  # or dynamic: re-decided when the donor's expert leaves change (ASAX)
    feedback: str = "decision"  # or completion: the loss observed when the pair ends or is re-decided (ASAX)
    features: str = "request"  # the estimate the experts' phase and Hp read: request, clairvoyant or ave2
    guests: int = 1  # guests a donor may host at once, each on its own processors
    scheduler: str = "easy"  # or first-fit: every job that fits starts, nothing reserved (the paper's Mesos)
    static: str = "paired"  # or every-job: STATIC gives every job half of each of its processors (§2b)
    cpu_limit: str = "quota"  # every-job STATIC: a hard cap (cgroup quota) or shares (work-conserving)

    def __post_init__(self):
        checks = (
            (self.strategy in STRATEGY_NAMES, f"strategy {self.strategy!r}: choose one of {', '.join(STRATEGIES)}"),
            (4 <= self.levels <= MAX_LEVELS, f"levels must be in [4, {MAX_LEVELS}], got {self.levels}"),
            (0.0 <= self.kappa < 1.0, f"kappa must be in [0, 1), got {self.kappa}"),
            (self.loss in LOSSES, f"loss {self.loss!r}: choose one of {', '.join(LOSSES)}"),
            (self.scope in SCOPES, f"scope {self.scope!r}: choose one of {', '.join(SCOPES)}"),
            (
                self.interference in INTERFERENCES,
                f"interference {self.interference!r}: choose one of {', '.join(INTERFERENCES)}",
            ),
            (self.quotas in QUOTAS, f"quotas {self.quotas!r}: choose one of {', '.join(QUOTAS)}"),
            (self.feedback in FEEDBACKS, f"feedback {self.feedback!r}: choose one of {', '.join(FEEDBACKS)}"),
            (self.scheduler in SCHEDULERS, f"scheduler {self.scheduler!r}: choose one of {', '.join(SCHEDULERS)}"),
            (self.static in STATIC_MODES, f"static {self.static!r}: choose one of {', '.join(STATIC_MODES)}"),
            (self.cpu_limit in CPU_LIMITS, f"cpu_limit {self.cpu_limit!r}: choose one of {', '.join(CPU_LIMITS)}"),
            (
                self.static == "paired" or (self.strategy == "STATIC" and self.interference == "constant"),
                f"static {self.static!r} is the STATIC strategy's, with constant interference "
                f"(got strategy {self.strategy}, interference {self.interference})",
            ),
            (
                self.cpu_limit == "quota" or self.static == "every-job",
                f"cpu_limit {self.cpu_limit!r} applies to static: every-job only (a pair's quotas are hard caps)",
            ),
            (self.features in FEATURES, f"features {self.features!r}: choose one of {', '.join(FEATURES)}"),
            (
                isinstance(self.guests, int) and not isinstance(self.guests, bool) and self.guests >= 1,
                f"guests (per donor) must be an integer >= 1, got {self.guests!r}",
            ),
            (
                self.strategy == "ASAX" or (self.quotas == "fixed" and self.feedback == "decision"),
                f"quotas {self.quotas!r} and feedback {self.feedback!r}: only the ASAX learner re-decides "
                "quotas or waits for its feedback",
            ),
            (
                self.efficiency in EFFICIENCY_MODES,
                f"efficiency {self.efficiency!r}: choose one of {', '.join(EFFICIENCY_MODES)}",
            ),
            (
                self.memory_capacity is None or self.memory_capacity > 0,
                f"memory capacity must be positive, got {self.memory_capacity}",
            ),
        )
        for ok, message in checks:
            if not ok:
                raise SharingInputError(message)


def check_efficiencies(workload: Workload, settings: SharingSettings) -> None:
    """A strategy that reads efficiencies needs a trace that records some, unless told to assume 1."""
    known = ~np.isnan(workload.efficiency)
    if settings.strategy != "SPACE" and settings.efficiency == "require" and not known.any():
        raise SharingInputError(
            f"{workload.source}: strategy {settings.strategy} needs CPU efficiencies, but no job records "
            "its CPU time (SWF field 6); set efficiency: assume-cpu-bound to run it with every efficiency at 1"
        )


def _efficiencies(workload: Workload, settings: SharingSettings) -> np.ndarray:
    check_efficiencies(workload, settings)
    return np.where(np.isnan(workload.efficiency), 1.0, workload.efficiency)


def _memory_capacity(workload: Workload, settings: SharingSettings) -> float:
    if not settings.memory:
        return math.nan
    if settings.memory_capacity is not None:
        return float(settings.memory_capacity)
    return default_memory_capacity(workload)


def check_learner_state(state) -> None:
    """A learner state is {"alpha": 4 positive weights summing to 1, "risk": 4 numbers >= 0, "round": >= 1}."""
    if state is None:
        return
    try:
        alpha = np.asarray(state["alpha"], dtype=float)
        risk = np.asarray(state["risk"], dtype=float)
        round_ = float(state["round"])
    except (KeyError, TypeError, ValueError) as error:
        raise SharingInputError(f"learner_state needs alpha, risk and round: {error}") from None
    if alpha.shape != (len(EXPERTS),) or risk.shape != (len(EXPERTS),):
        raise SharingInputError(f"learner_state: alpha and risk need {len(EXPERTS)} values each (one per expert)")
    if not ((alpha > 0).all() and abs(alpha.sum() - 1) < 1e-9 and (risk >= 0).all() and round_ >= 1):
        raise SharingInputError(
            f"learner_state: alpha must be positive and sum to 1, risk >= 0 and round >= 1, got {state}"
        )


@dataclass
class SharingResult:
    """Per-job start and end, pairs, and the learner's log of one run."""

    workload: Workload
    settings: SharingSettings
    memory_capacity: float  # NaN: memory off
    efficiency: np.ndarray  # the efficiencies the run used (unknown read as 1)
    start: np.ndarray
    end: np.ndarray
    donor: np.ndarray  # position of a guest's donor, -1 for jobs that did not start as guests
    quota: np.ndarray  # a guest's CPU quota, NaN otherwise
    reservation: np.ndarray  # the first shadow time a job got as the head of the queue, NaN if none
    allocated: np.ndarray  # CPU quota allocated to each job, processor-seconds (docs/coscheduling.md §7)
    busy_area: float  # integral of the processors holding at least one job (processor-seconds)
    learner: dict = field(default_factory=dict)
    cases: np.ndarray | None = None  # the learner's case log (log_cases), one row per case: CASE_COLUMNS


CASE_COLUMNS = ("round", "level", "loss", "mixture", *(f"p_{expert}" for expert in EXPERTS))


def _sharing_core(workload, settings, efficiency, memory_capacity, seed, learner_state, log_cases) -> SharingSimulation:
    """The C event loop over its own copy of the workload's arrays (it checks them); the experts read
    the request, or a predictor of the engine fed the jobs' users."""
    predictor = None if settings.features == "request" else make_predictor(settings.features, len(workload))
    users = np.unique(workload.user, return_inverse=True)[1].astype(np.intc) if predictor is not None else None
    return SharingSimulation(
        np.ascontiguousarray(workload.submit, dtype=np.float64),
        np.ascontiguousarray(workload.run, dtype=np.float64),
        np.ascontiguousarray(workload.requested, dtype=np.float64),
        np.ascontiguousarray(workload.procs, dtype=np.int64),
        efficiency,
        np.ascontiguousarray(workload.memory, dtype=np.float64),
        workload.machine_size,
        STRATEGY_NAMES.index(settings.strategy),
        settings.levels,
        settings.kappa,
        memory_capacity,
        LOSSES.index(settings.loss),
        SCOPES.index(settings.scope),
        np.random.PCG64(seed),
        learner_state,
        INTERFERENCES.index(settings.interference),
        settings.protect_reservation,
        settings.fall_through,
        settings.learn,
        log_cases,
        QUOTAS.index(settings.quotas),
        FEEDBACKS.index(settings.feedback),
        predictor,
        users,
        int(users.max()) + 1 if users is not None and len(users) else 1,
        settings.guests,
        SCHEDULERS.index(settings.scheduler),
        STATIC_MODES.index(settings.static),
        CPU_LIMITS.index(settings.cpu_limit),
    )


class SharingRun:
    """A co-scheduling run advanced case by case (strategy EXTERNAL) or to the end."""

    def __init__(
        self, workload: Workload, settings: SharingSettings, seed=0, learner_state=None, log_cases: bool = False
    ):
        """`seed`: an int or a sequence of ints, the entropy of the run's PCG64 generator;
        `learner_state`: a previous run's `learner["state"]`, to start the shared learner from;
        `log_cases`: keep the learner's case log (`SharingResult.cases`)."""
        check_learner_state(learner_state)
        workload.validate()
        self.workload = workload
        self.settings = settings
        self.memory_capacity = _memory_capacity(workload, settings)
        self.efficiency = np.ascontiguousarray(_efficiencies(workload, settings))
        try:
            self._core = _sharing_core(
                workload, settings, self.efficiency, self.memory_capacity, seed, learner_state, log_cases
            )
        except ValueError as error:
            raise SharingInputError(f"{workload.source}: {error}") from None
        self.log_cases = log_cases
        self.finished = False

    @property
    def core(self) -> SharingSimulation:
        return self._core

    def advance(self) -> bool:
        """Run to the next case (EXTERNAL) or to the end; True while a case is pending."""
        self.finished = not self._core.run()
        return not self.finished

    def decide(self, level: int) -> None:
        self._core.decide(level)

    def result(self) -> SharingResult:
        if not self.finished:
            raise RuntimeError("the run has not finished")
        arrays = self._core.results()
        learner = self._core.learner()
        learner["state"]["round"] = int(learner["state"]["round"])
        cases = self._core.case_log() if self.log_cases else None
        self._core.release()  # its buffers to the next run: the results are copies
        return SharingResult(
            workload=self.workload,
            settings=self.settings,
            memory_capacity=self.memory_capacity,
            efficiency=self.efficiency,
            start=arrays["start"],
            end=arrays["end"],
            donor=arrays["donor"],
            quota=arrays["quota"],
            reservation=arrays["reservation"],
            allocated=arrays["allocated"],
            busy_area=arrays["busy_area"],
            learner=learner,
            cases=cases,
        )


def simulate_sharing(
    workload: Workload, settings: SharingSettings | None = None, seed=0, learner_state=None, log_cases: bool = False
) -> SharingResult:
    """One whole co-scheduling run, every decision made in C."""
    settings = settings or SharingSettings()
    if settings.strategy == "EXTERNAL":
        raise SharingInputError("strategy EXTERNAL needs decisions: use SharingRun (or the Gymnasium environment)")
    run = SharingRun(workload, settings, seed, learner_state, log_cases)
    run.advance()  # only EXTERNAL pauses
    return run.result()
