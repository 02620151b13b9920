"""Per-job and summary metrics (SEMANTICS §6, docs/semantics.md)."""

from __future__ import annotations

import numpy as np

TAU = 10.0  # seconds, the bounded-slowdown threshold


def job_metrics(workload, start: np.ndarray, tau: float = TAU) -> dict:
    run = np.minimum(workload.run, workload.requested)
    wait = start - workload.submit
    flow = wait + run
    bounded = np.maximum(run, tau)
    return {
        "wait": wait,
        "flow": flow,
        "bsld": np.maximum(flow / bounded, 1.0),
        "ppbsld": np.maximum(flow / (workload.procs * bounded), 1.0),
    }


def summarize(workload, start: np.ndarray, backfilled: np.ndarray, tau: float = TAU) -> dict:
    n = len(workload)
    per_job = job_metrics(workload, start, tau)
    run = np.minimum(workload.run, workload.requested)
    if n == 0:
        return {
            "jobs": 0,
            "avg_wait": 0.0,
            "max_wait": 0.0,
            "avg_bsld": 0.0,
            "avg_ppbsld": 0.0,
            "avg_flow": 0.0,
            "utilization": 0.0,
            "backfilled": 0,
        }
    span = float(np.max(start + run) - np.min(workload.submit))
    work = float(np.sum(workload.procs * run))
    return {
        "jobs": n,
        "avg_wait": float(np.mean(per_job["wait"])),
        "max_wait": float(np.max(per_job["wait"])),
        "avg_bsld": float(np.mean(per_job["bsld"])),
        "avg_ppbsld": float(np.mean(per_job["ppbsld"])),
        "avg_flow": float(np.mean(per_job["flow"])),
        "utilization": work / (workload.machine_size * span) if span > 0 else 0.0,
        "backfilled": int(np.sum(backfilled)),
    }
