#!/usr/bin/env python3
"""Print a Slurm job's state for Snakemake's cluster-generic executor: running, success or failed.

Usage: slurm-status.py JOBID. Asks squeue (finished jobs stay there for MinJobAge
seconds), then sacct (job accounting), then scontrol. A job none of them knows any
more is reported as success: Snakemake then checks that its outputs exist and fails
the job if they do not. Any other trouble (the controller busy, a timeout) answers
running, and Snakemake asks again later.
"""

import subprocess
import sys

RUNNING = {
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "SUSPENDED",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
    "STOPPED",
    "PREEMPTED",
    "RESV_DEL_HOLD",
    "SPECIAL_EXIT",
}
SUCCESS = {"COMPLETED"}
FAILED = {"FAILED", "TIMEOUT", "CANCELLED", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "REVOKED"}


def ask(command, field=None):
    """The job's state in the command's output: '' if it knows no such job, None on trouble."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return "" if "Invalid job id" in done.stderr else None
    words = done.stdout.split()
    if field:
        words = [word.split("=", 1)[1] for word in words if word.startswith(field + "=")]
    return words[0].rstrip("+") if words else ""


def state(jobid):
    queued = ask(["squeue", "--noheader", "--states=all", "--jobs", jobid, "--format=%T"])
    if queued:
        return queued
    accounted = ask(["sacct", "--noheader", "--allocations", "--parsable2", "--jobs", jobid, "--format=State"])
    if accounted:
        return accounted.split()[0]  # "CANCELLED by 0" -> CANCELLED
    shown = ask(["scontrol", "show", "job", jobid], field="JobState")
    if shown:
        return shown
    return "" if queued == "" and shown == "" else None


def main():
    found = state(sys.argv[1].split(";")[0].strip())
    if found is None or found in RUNNING:
        print("running")
    elif found in FAILED:
        print("failed")
    else:  # COMPLETED, or forgotten by everyone: Snakemake checks the outputs
        print("success")


if __name__ == "__main__":
    main()
