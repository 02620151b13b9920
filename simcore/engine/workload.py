"""A workload: the jobs a simulation runs, as aligned numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np


class WorkloadError(ValueError):
    """Inconsistent job arrays; the message names the field and the job."""


class EmptyWorkloadError(WorkloadError):
    """A workload without a job (every job filtered out, an empty file or selection); names the source."""


# the arrays with one value per job, in workload order
PER_JOB_FIELDS = (
    "job_id",
    "submit",
    "run",
    "requested",
    "procs",
    "user",
    "efficiency",
    "memory",
    "group",
    "recorded_wait",
)
# the per-job fields that count or name things: a fraction there is a malformed input, never truncated
WHOLE_NUMBER_FIELDS = ("job_id", "procs", "user", "group")


def _whole_numbers(values, name: str, source: str, job_id) -> np.ndarray:
    """`values` as int64, or a WorkloadError naming the first job whose value has a fraction."""
    values = np.asarray(values)
    if values.dtype.kind not in "iub":
        as_float = values.astype(np.float64)
        fractional = np.flatnonzero(~np.isfinite(as_float) | (as_float != np.floor(as_float)))
        if len(fractional):
            i = int(fractional[0])
            job = job_id[i] if job_id is not None and len(job_id) == len(values) else i + 1
            raise WorkloadError(f"{source}: job {job}: '{name}' must be a whole number, got {values.tolist()[i]!r}")
    return values.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs sorted by (submit, job_id); position i is the tie-breaker.

    `run` is the time a job actually runs, min(p_j, p~_j); `requested` is the
    walltime p~_j; `user` is the SWF user number (-1: unknown). `efficiency`
    (CPU time over run time, in [0, 1]) and `memory` (KB per processor) are
    NaN where the log does not record them; only co-scheduling reads them.
    `group` is the SWF group (-1: unknown) and `recorded_wait` the wait the
    log records (NaN: unknown); the elastic study reads them.
    """

    job_id: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    requested: np.ndarray
    procs: np.ndarray
    user: np.ndarray
    machine_size: int
    source: str = "<arrays>"
    source_sha256: str | None = None
    filter_mode: str | None = None
    filter_counts: dict = field(default_factory=dict)
    header: dict = field(default_factory=dict)
    efficiency: np.ndarray | None = None
    memory: np.ndarray | None = None
    group: np.ndarray | None = None
    recorded_wait: np.ndarray | None = None

    def __post_init__(self):
        for name in ("efficiency", "memory", "recorded_wait"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.full(len(self.submit), np.nan))
        if self.group is None:
            object.__setattr__(self, "group", np.full(len(self.submit), -1, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.submit)

    @classmethod
    def from_arrays(
        cls,
        submit,
        run,
        requested,
        procs,
        machine_size,
        user=None,
        job_id=None,
        source="<arrays>",
        efficiency=None,
        memory=None,
    ) -> Workload:
        """Validate caller-made arrays and sort them by (submit, job_id)."""
        submit = np.asarray(submit, dtype=np.float64)
        n = len(submit)
        if job_id is None:
            job_id = np.arange(1, n + 1, dtype=np.int64)
        else:
            job_id = _whole_numbers(job_id, "job_id", source, None)
        user = np.zeros(n, dtype=np.int64) if user is None else _whole_numbers(user, "user", source, job_id)
        run = np.asarray(run, dtype=np.float64)
        requested = np.asarray(requested, dtype=np.float64)
        procs = _whole_numbers(procs, "procs", source, job_id)
        efficiency = np.full(n, np.nan) if efficiency is None else np.asarray(efficiency, dtype=np.float64)
        memory = np.full(n, np.nan) if memory is None else np.asarray(memory, dtype=np.float64)
        for name, values in (
            ("run", run),
            ("requested", requested),
            ("procs", procs),
            ("user", user),
            ("job_id", job_id),
            ("efficiency", efficiency),
            ("memory", memory),
        ):
            if values.shape != (n,):
                raise WorkloadError(f"{source}: '{name}' has shape {values.shape}, expected ({n},)")
        order = np.lexsort((job_id, submit))
        workload = cls(
            job_id=job_id[order],
            submit=submit[order],
            run=np.minimum(run, requested)[order],
            requested=requested[order],
            procs=procs[order],
            user=user[order],
            machine_size=int(machine_size),
            source=source,
            efficiency=efficiency[order],
            memory=memory[order],
        )
        workload.validate()
        return workload

    def validate(self) -> None:
        """Raise WorkloadError naming the first job that breaks a rule (O(n))."""
        m = self.machine_size
        if not (isinstance(m, (int, np.integer)) and m > 0):
            raise WorkloadError(f"{self.source}: machine size must be positive, a whole number of processors: {m!r}")
        n = len(self.submit)
        for name in PER_JOB_FIELDS:
            shape = np.shape(getattr(self, name))
            if shape != (n,):
                raise WorkloadError(f"{self.source}: '{name}' has shape {shape}, expected ({n},) as 'submit'")
        for name in WHOLE_NUMBER_FIELDS:
            _whole_numbers(getattr(self, name), name, self.source, self.job_id)
        checks = (
            (~np.isfinite(self.submit), "submit time is not finite"),
            (~(self.run >= 0) | ~np.isfinite(self.run), "run time must be finite and >= 0"),
            (~(self.requested >= 1) | ~np.isfinite(self.requested), "requested time must be finite and >= 1"),
            ((self.procs < 1) | (self.procs > m), f"processor request must be in [1, {m}]"),
            (
                ~np.isnan(self.efficiency) & ~((self.efficiency >= 0) & (self.efficiency <= 1)),
                "efficiency must be in [0, 1] or NaN",
            ),
            (
                ~np.isnan(self.memory) & ~((self.memory > 0) & np.isfinite(self.memory)),
                "memory must be positive and finite or NaN",
            ),
        )
        for bad, message in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise WorkloadError(f"{self.source}: job {self.job_id[i]}: {message}")
        behind = np.flatnonzero(np.diff(self.submit) < 0)
        if len(behind):
            i = int(behind[0]) + 1
            raise WorkloadError(
                f"{self.source}: job {self.job_id[i]}: submitted at {self.submit[i]}, before the job "
                f"before it ({self.submit[i - 1]}); jobs must be sorted by submit time"
            )

    def take(self, indices) -> Workload:
        """The jobs at `indices` (in workload order), e.g. one period's jobs."""
        indices = np.sort(np.asarray(indices, dtype=np.int64))
        return replace(self, **{name: getattr(self, name)[indices] for name in PER_JOB_FIELDS})

    def dense_users(self) -> tuple[np.ndarray, int]:
        """User numbers mapped to 0..U-1 (for per-user predictor state)."""
        _, dense = np.unique(self.user, return_inverse=True)
        return dense.astype(np.intc), int(dense.max()) + 1 if len(dense) else 1

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(
            {
                "job_id": self.job_id,
                "submit": self.submit,
                "run": self.run,
                "requested": self.requested,
                "procs": self.procs,
                "user": self.user,
                "efficiency": self.efficiency,
                "memory": self.memory,
                "group": self.group,
                "recorded_wait": self.recorded_wait,
            }
        )
