"""EASY++ against the SC15 paper: AVEbsld of each candidate cause of the gap, switched on alone.

    python benchmarks/easypp_variants.py [--traces KTH-SP2 ...] [--output FILE]

EASY++ is AVE2 predictions, the incremental correction and EASY-SJBF
(`backfill="SPF"`), on the whole trace, `truncate` filter, header machine size
(CEA-Curie at the paper's 80,640 and at the header's 93,312). Each column
changes one thing against ours (docs/prediction_easypp.md explains them):

- ours: `estimate="ave2"`, as the prediction study runs it;
- replay: AVE2 computed offline from ours' completion instants, fed back as
  one prediction per job (checks that the offline AVE2 below is the
  engine's: it must equal ours);
- submitted: the mean of the user's last two *submitted* jobs' run times,
  known or not at submission (not the last two finished);
- floor: the paper's simulator (pyss, `int((last + prev) / 2)`) floors the
  mean; here the mean is floored with the user's history of ours' schedule;
- one known: with one finished job, its run time (not the request);
- +1 s / -1 s: every AVE2 mean (history of ours' schedule) shifted by one
  second, the sensitivity of the metric;
- request corr., doubling corr.: the other corrections after an expiry;
- strict: the `strict` filter instead of `truncate`.

Variants that use ours' schedule freeze the users' histories (which jobs had
finished at each submission) at ours; only the predictions change.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import simcore

PWA = Path(__file__).resolve().parent.parent.parent / "shared" / "pwa"
TRACE_FILES = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
}
# resources/published/prediction-sc15.csv: (EASY, EASY++) as published.
PUBLISHED = {
    "KTH-SP2": (92.6, 63.5),
    "CTC-SP2": (49.6, 85.8),
    "SDSC-SP2": (87.9, 79.4),
    "SDSC-BLUE": (36.5, 21.0),
    "CEA-Curie": (202.1, 193.5),
}
MACHINE_SIZES = {"CEA-Curie": (80640, 93312)}  # the paper's, the header's
EASY_PLUS_PLUS = {"backfill": "SPF", "estimate": "ave2", "correction": "incremental"}


def ave2_predictions(workload, start, end, history="finished", rounding=None, shift=0.0, one_known="request"):
    """AVE2 at each submission, offline, from a schedule's `start` and `end`.

    history: "finished" (the user's jobs ended by the submission, in the
    engine's order of completions: docs/semantics.md, "Instants") or
    "submitted" (the user's previously submitted jobs). rounding: None or
    "floor" (pyss). shift: seconds added to every mean. one_known:
    "request" or "run" (the one known run time) when a single job is known.
    """
    n = len(workload.submit)
    run = np.minimum(workload.run, workload.requested).astype(np.float64)
    known = {}  # user -> run times known so far, oldest first
    if history == "finished":
        # completions at t in job order, those of jobs started at t after them
        completions = np.lexsort((np.arange(n), start == end, end))
    predictions = np.empty(n)
    done = 0

    def known_at(finished, t):
        """A job ending at t is known at t unless it also started at t (a
        zero-length job started by the pass at t completes after it)."""
        return end[finished] < t or (end[finished] == t and start[finished] < t)

    for j in range(n):
        if history == "finished":
            while done < n and known_at(completions[done], workload.submit[j]):
                finished = completions[done]
                known.setdefault(workload.user[finished], []).append(run[finished])
                done += 1
        past = known.get(workload.user[j], [])
        if len(past) >= 2:
            mean = (past[-2] + past[-1]) / 2
            predictions[j] = (np.floor(mean) if rounding == "floor" else mean) + shift
        elif len(past) == 1 and one_known == "run":
            predictions[j] = past[-1]
        else:
            predictions[j] = workload.requested[j]
        if history == "submitted":
            known.setdefault(workload.user[j], []).append(run[j])
    return predictions


def avebsld(workload, **options):
    return simcore.simulate(workload, **options).summary()["avg_bsld"]


def measure(name, machine_size):
    path = PWA / TRACE_FILES[name]
    workload = simcore.read_swf(path, machine_size=machine_size, filter="truncate")
    ours = simcore.simulate(workload, **EASY_PLUS_PLUS)
    sjbf_incremental = {"backfill": "SPF", "correction": "incremental"}

    def offline(**ave2_options):
        return avebsld(
            workload,
            estimate=ave2_predictions(workload, ours.jobs["start"], ours.jobs["end"], **ave2_options),
            **sjbf_incremental,
        )

    row = {
        "EASY": avebsld(workload),
        "ours": ours.summary()["avg_bsld"],
        "replay": offline(),
        "submitted": offline(history="submitted"),
        "floor": offline(rounding="floor"),
        "one known": offline(one_known="run"),
        "+1 s": offline(shift=1.0),
        "-1 s": offline(shift=-1.0),
        "request corr.": avebsld(workload, backfill="SPF", estimate="ave2", correction="request"),
        "doubling corr.": avebsld(workload, backfill="SPF", estimate="ave2", correction="doubling"),
        "strict": avebsld(simcore.read_swf(path, machine_size=machine_size, filter="strict"), **EASY_PLUS_PLUS),
    }
    return workload.machine_size, row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", nargs="+", default=list(TRACE_FILES), choices=list(TRACE_FILES))
    parser.add_argument("--output", type=Path, help="also write the table (Markdown) here")
    args = parser.parse_args(argv)
    lines = []
    for name in args.traces:
        for machine_size in MACHINE_SIZES.get(name, (None,)):
            began = time.perf_counter()
            size, row = measure(name, machine_size)
            if not lines:
                header = ["trace", "m", "published EASY / EASY++", *row]
                lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                print("\n".join(lines))
            published = "{} / {}".format(*PUBLISHED[name])
            cells = [name, f"{size:,}", published, *(f"{value:.1f}" for value in row.values())]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], f"({time.perf_counter() - began:.0f} s)")
    if args.output:
        args.output.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
