"""Virtual organisations and serial jobs for model traces (the elastic study's demo).

Model traces (Lublin–Feitelson) record no SWF group and few serial jobs. A *VO profile*, fitted
on a real grid or cluster log, gives them both: each job is made serial with the log's share of
serial jobs, and its group is drawn from the log's mix of the six groups with the most work plus
"rest" (group 7), conditioned on its type (interactive below 900 s of execution, else batch),
because the mix differs by type (LPC-EGEE: group 2 is 42 % of the interactive jobs, 79 % of the
batch ones). `fit_vo_profile` is the fit that produced the constants; refit with
`python -m simcore.workloads.vo_profiles GAIA.parquet LPC-EGEE.parquet` (filtered with truncate).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from simcore.engine.workload import Workload

INTERACTIVE_BELOW = 900.0
GROUPS = 7  # six named VOs and "rest"

# fmt: off
VO_PROFILES: dict[str, dict] = {
    "gaia": {  # UniLu-Gaia-2014-2, 51,959 jobs (truncate filter), 18,775 serial
        "serial_share": 0.361,
        "interactive": (0.483, 0.196, 0.009, 0.039, 0.06, 0.038, 0.175),
        "batch": (0.602, 0.075, 0.017, 0.203, 0.023, 0.023, 0.057),
    },
    "lpc-egee": {  # LPC-EGEE-2004-1.2-cln, 220,695 jobs (truncate filter), all serial
        "serial_share": 1.0,
        "interactive": (0.415, 0.017, 0.033, 0.479, 0.007, 0.049, 0.0),
        "batch": (0.786, 0.111, 0.075, 0.027, 0.0, 0.0, 0.0),
    },
}
# fmt: on


def fit_vo_profile(workload: Workload) -> dict:
    """The share of serial jobs and, per type, the serial jobs' mix over the six groups with the most
    work and "rest", rounded to 3 decimals (the precision of the constants)."""
    serial = workload.procs == 1
    if not serial.any() or np.all(workload.group[serial] < 0):
        raise ValueError(f"{workload.source}: no serial job with a group to fit a VO profile on")
    groups, group_of = np.unique(workload.group[serial], return_inverse=True)
    work = np.bincount(group_of, weights=np.maximum(workload.run[serial], 0.0), minlength=len(groups))
    slot_of_group = np.full(len(groups), GROUPS - 1)
    slot_of_group[np.argsort(-work, kind="stable")[: GROUPS - 1]] = np.arange(min(GROUPS - 1, len(groups)))
    slot = slot_of_group[group_of]
    interactive = workload.run[serial] < INTERACTIVE_BELOW
    profile = {"serial_share": round(float(serial.mean()), 3)}
    for name, mask in (("interactive", interactive), ("batch", ~interactive)):
        mix = np.bincount(slot[mask], minlength=GROUPS) / max(mask.sum(), 1)
        profile[name] = tuple(round(float(share), 3) for share in mix)
    return profile


def apply_vo_profile(workload: Workload, profile: str, seed: int) -> Workload:
    """The workload with jobs made serial at the profile's share and groups 1..7 drawn by type."""
    if profile not in VO_PROFILES:
        raise ValueError(f"unknown VO profile {profile!r}; choose one of {', '.join(VO_PROFILES)}")
    chosen = VO_PROFILES[profile]
    rng = np.random.Generator(np.random.PCG64(seed))
    serial = rng.random(len(workload)) < chosen["serial_share"]
    procs = np.where(serial, 1, workload.procs)
    interactive = workload.run < INTERACTIVE_BELOW
    group = np.empty(len(workload), dtype=np.int64)
    for name, mask in (("interactive", interactive), ("batch", ~interactive)):
        mix = np.asarray(chosen[name], dtype=float)
        group[mask] = 1 + rng.choice(GROUPS, size=int(mask.sum()), p=mix / mix.sum())
    return replace(workload, procs=procs, group=group, source=f"{workload.source} VO profile={profile} seed={seed}")


def main(argv=None) -> None:
    from simcore.workloads.files import read_workload

    for path in argv if argv is not None else sys.argv[1:]:
        print(path, fit_vo_profile(read_workload(path)))


if __name__ == "__main__":
    main()
