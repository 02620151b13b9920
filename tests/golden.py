"""Golden values of the simulator on every real trace of the local PWA mirror.

The simulator is deterministic, so its results on the real traces are pinned
exactly: for each trace (at its header machine size, and CEA-Curie also at
the prediction paper's 80,640), each named queue order with EASY backfilling
(the bandit paper's 12, WFP3 and UNICEF, without and with the threshold
Θ = 144,000 s, strict filter), and EASY / clairvoyant EASY-SJBF / EASY++
(truncate filter): the AVEbsld and a sha256 of the per-job start times.

`tests/engine/test_golden.py` compares a fresh run with `golden.json`. A
change that moves any of these numbers is a behaviour change; when it is
intended, regenerate the file (minutes on two cores) and commit it with the
reason:

    python tests/golden.py --write            # all traces
    python tests/golden.py --check KTH-SP2    # compare one trace, write nothing
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from conftest import PWA, TRACE_FILES

import simcore

GOLDEN = Path(__file__).resolve().parent / "golden.json"

# name -> (catalogue trace, machine size or None for the header's); NASA-iPSC, whose
# jobs all lack a requested time, leaves no job to simulate (tests/test_cli.py checks its error)
TRACES = {
    "KTH-SP2": ("KTH-SP2", None),
    "CTC-SP2": ("CTC-SP2", None),
    "SDSC-SP2": ("SDSC-SP2", None),
    "SDSC-BLUE": ("SDSC-BLUE", None),
    "HPC2N": ("HPC2N", None),
    "ANL-Intrepid": ("ANL-Intrepid", None),
    "CEA-Curie": ("CEA-Curie", None),
    "CEA-Curie@80640": ("CEA-Curie", 80640),
    "UniLu-Gaia": ("UniLu-Gaia", None),
    "LLNL-Thunder": ("LLNL-Thunder", None),
    "LLNL-Atlas": ("LLNL-Atlas", None),
    "RICC": ("RICC", None),
    "LPC-EGEE": ("LPC-EGEE", None),
}
THRESHOLD = 144000.0  # 40 h, the bandit paper's text
ORDERS = ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SEXP", "LEXP", "SRF", "LRF", "SAF", "LAF", "WFP3", "UNICEF")
PREDICTION_CONFIGURATIONS = {
    "EASY": {},
    "EASY-SJBF-clairvoyant": {"backfill": "SPF", "estimate": "clairvoyant"},
    "EASY++": {"backfill": "SPF", "estimate": "ave2", "correction": "incremental"},
}


def configurations():
    """(label, filter, simulate options) of every pinned run of one trace."""
    for order in ORDERS:
        yield order, "strict", {"order": order}
        yield f"{order}+threshold", "strict", {"order": order, "threshold": THRESHOLD}
    for label, options in PREDICTION_CONFIGURATIONS.items():
        yield label, "truncate", options


def start_sha256(start: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(start, dtype="<f8").tobytes()).hexdigest()


def trace_values(trace: str, pwa: Path = PWA) -> dict:
    """{configuration label: {"avg_bsld", "start_sha256"}} for one trace."""
    name, machine_size = TRACES[trace]
    workloads = {
        mode: simcore.read_swf(pwa / TRACE_FILES[name], machine_size, filter=mode) for mode in ("strict", "truncate")
    }
    values = {}
    for label, mode, options in configurations():
        result = simcore.simulate(workloads[mode], **options)
        values[label] = {
            "avg_bsld": float(result.summary()["avg_bsld"]),
            "start_sha256": start_sha256(result.jobs["start"]),
        }
    return values


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help=f"recompute every trace and rewrite {GOLDEN.name}")
    action.add_argument("--check", nargs="*", metavar="TRACE", help="compare traces (default: all) with the file")
    parser.add_argument("--pwa", type=Path, default=PWA, help="directory of the PWA mirror")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="processes")
    args = parser.parse_args(argv)
    traces = list(TRACES) if args.write or not args.check else args.check
    with ProcessPoolExecutor(args.jobs) as pool:
        computed = dict(zip(traces, pool.map(trace_values, traces, [args.pwa] * len(traces))))
    if args.write:
        tmp = GOLDEN.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n")
        tmp.replace(GOLDEN)
        print(f"wrote {sum(map(len, computed.values()))} golden runs of {len(computed)} traces to {GOLDEN}")
        return 0
    pinned = json.loads(GOLDEN.read_text())
    differ = [(t, c) for t in traces for c in computed[t] if computed[t][c] != pinned[t][c]]
    for trace, label in differ:
        print(f"{trace} {label}: pinned {pinned[trace][label]}, now {computed[trace][label]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
