"""CPU cost of the dynamic scheduling experiments (the thesis's section 3.3) per trace.

    python benchmarks/bench_dynamic.py [--traces CTC-SP2 ...] [--mirror ../shared/pwa]

For each trace of the `dynamic_scheduling` section of config/config.yaml
(filter, machine size; models generated as configured): its 15-day sequences,
and the CPU seconds of simulating all of them once per policy and setting —
FCFS (the baseline, measured in the same run), the dynamic orders WFP3 and
UNICEF (re-sorted at every pass), SPF and a priority function (F2) — with
each one's ratio to FCFS, and the whole trace's sweep (every policy of the
config plus four learned functions, three settings).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

import simcore
from simcore.studies.dynamic_scheduling.study import SETTINGS, policies, sequences
from simcore.workloads.catalogue import load_catalogue
from simcore.workloads.lublin import lublin_workload

REPO = Path(__file__).resolve().parent.parent
MEASURED = ("FCFS", "WFP3", "UNICEF", "SPF", "F2")


def load(name, config, study, mirror):
    if name in config["models"]:
        model = config["models"][name]
        return lublin_workload(model["jobs"], model["machine_size"], model["seed"])
    entry = load_catalogue(REPO / config["catalogue"])[name]
    return simcore.read_swf(
        Path(mirror) / entry["file"], filter=study["filter"], machine_size=study["machine_size"].get(name)
    )


def cpu_seconds(parts, order, function, setting) -> float:
    began = time.process_time()
    for part in parts:
        simcore.simulate(part, order=order, function=function, **SETTINGS[setting])
    return time.process_time() - began


def main(argv=None) -> int:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    study = config["dynamic_scheduling"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=study["traces"])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "pwa"))
    args = parser.parse_args(argv)
    named = policies(MEASURED, {})
    print(
        f"{'trace':18s} {'seqs':>5s} {'jobs/seq':>9s} {'setting':12s} " + " ".join(f"{name:>14s}" for name in MEASURED)
    )
    for name in args.traces:
        workload = load(name, config, study, args.mirror)
        parts = [part for _, _, part in sequences(workload, study["days"], study["max_sequences"].get(name))]
        jobs = sum(len(part) for part in parts) / max(len(parts), 1)
        total = 0.0
        for setting in SETTINGS:
            seconds = {policy: cpu_seconds(parts, *named[policy], setting) for policy in MEASURED}
            # the config's sweep runs len(policies) + learned functions; FUNCTION costs like F2
            total += sum(seconds[p] if p in seconds else seconds["F2"] for p in study["policies"])
            total += study["learned"] * seconds["F2"]
            base = seconds["FCFS"]
            print(
                f"{name:18s} {len(parts):5d} {jobs:9.0f} {setting:12s} "
                + " ".join(f"{seconds[p]:6.2f}s ({seconds[p] / base:4.1f}x)" for p in MEASURED)
            )
        print(f"{name:18s} whole sweep (policies x settings): {total:.1f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
