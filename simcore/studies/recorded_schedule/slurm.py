"""A site's log simulated in the Slurm mode under the site's own slurm.conf (docs/slurm_mode.md)
and under variants of it, each schedule judged job by job against the recorded one.

The site's row is what `simcore simulate TRACE --slurm-conf` gives (what no log records
estimated from it) with the one-step replay (§8); a variant changes the named options of the
site's run and nothing else (the estimates stay), so its row says what that setting would have
done to the same jobs: their mean wait and how far their starts move from the recorded ones.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pandas as pd

from simcore.engine.slurm import SlurmOptions, slurm_schedule
from simcore.workloads.slurm_assoc import read_associations
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import UNRECORDED, replay_agreement, schedule_agreement, simulate_site

SITE = "site"  # the row of the site's own configuration
# the options a variant may change (SlurmOptions' fields but those the site run estimates or reads
# from the log: they stay the site's)
ESTIMATED = ("start_delay", "bf_phase", "decay_after_passes", "priority_calc_origin", "usage_resets")
VARIANT_OPTIONS = tuple(f.name for f in fields(SlurmOptions) if f.name not in ESTIMATED)
COLUMNS = (
    "variant",
    "changes",
    "jobs",
    "recorded_mean_wait",
    "simulated_mean_wait",
    "within_5s",
    "within_30s",
    "kendall_tau",
    "mean_abs_delta",
    "replay_within_2s",
)


def check_slurm_variants(variants, key: str) -> dict:
    """{name: {option: value}}: each option one of VARIANT_OPTIONS, its value of that option's type;
    a ValueError names the key."""
    if not isinstance(variants, dict):
        raise ValueError(f"{key}: a mapping of variant names to option changes, got {variants!r}")
    defaults = SlurmOptions()
    checked = {}
    for name, changes in variants.items():
        if name == SITE or not isinstance(changes, dict) or not changes:
            raise ValueError(f"{key}.{name}: a variant named other than {SITE!r}, changing at least one option")
        for option, value in changes.items():
            if option not in VARIANT_OPTIONS:
                raise ValueError(
                    f"{key}.{name}.{option}: not an option a variant changes; known are " + ", ".join(VARIANT_OPTIONS)
                )
            kind = int if option == "bf_node_space_size" else type(getattr(defaults, option))
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not (isinstance(value, bool) if kind is bool else number and (kind is float or isinstance(value, int))):
                raise ValueError(f"{key}.{name}.{option}: a {kind.__name__}, got {value!r}")
        checked[name] = dict(changes)
    return checked


def site_slurm_runs(trace, slurm_conf, slurm_assoc, variants: dict) -> pd.DataFrame:
    """One row per configuration (COLUMNS): the site's, then each variant's."""
    conf = read_slurm_conf(slurm_conf)
    site = simulate_site(trace, conf, associations=read_associations(slurm_assoc) if slurm_assoc else None)
    known = site.jobs.recorded_start != UNRECORDED
    recorded = site.jobs.recorded_start[known]
    submit = site.jobs.columns["submit"][known]
    rows = []
    for name, changes in {SITE: {}, **variants}.items():
        options = replace(site.options, **changes)
        start = (
            site.schedule.start if not changes else slurm_schedule(site.site.cluster, site.jobs.columns, options).start
        )
        agreement = schedule_agreement(recorded, start[known]) if known.any() else {}
        rows.append(
            {
                "variant": name,
                "changes": ", ".join(f"{option}={value}" for option, value in changes.items()),
                "jobs": int(known.sum()),
                "recorded_mean_wait": float(np.mean(recorded - submit)) if known.any() else np.nan,
                "simulated_mean_wait": float(np.mean(start[known] - submit)) if known.any() else np.nan,
                **{column: agreement.get(column, np.nan) for column in COLUMNS[5:9]},
                "replay_within_2s": replay_agreement(site)["explained_within_2s"] if not changes else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))
