"""The recorded-schedule study's Slurm mode (simcore.studies.recorded_schedule.slurm): a site log
under its own slurm.conf and under variants of it, on a real Slurm cluster's dump
(tests/fixtures/slurm_twin)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from simcore.cli import main
from simcore.engine.slurm import slurm_schedule
from simcore.studies.recorded_schedule.report import slurm_markdown
from simcore.studies.recorded_schedule.slurm import COLUMNS, SITE, check_slurm_variants, site_slurm_runs
from simcore.workloads.files import read_parquet
from simcore.workloads.slurm_assoc import read_associations
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import UNRECORDED, replay_agreement, simulate_site

FAIR = Path(__file__).resolve().parents[2] / "fixtures" / "slurm_twin" / "fair"
VARIANTS = {"bf_interval=30": {"bf_interval": 30}, "no fair share": {"priority_weight_fairshare": 0}}


@pytest.fixture(scope="module")
def runs():
    return site_slurm_runs(FAIR / "sacct.txt", FAIR / "slurm.conf", FAIR / "sshare.txt", VARIANTS)


def test_the_site_row_is_the_site_run_and_its_replay(runs):
    site = simulate_site(
        FAIR / "sacct.txt", read_slurm_conf(FAIR / "slurm.conf"), associations=read_associations(FAIR / "sshare.txt")
    )
    row = runs.iloc[0]
    assert list(runs.columns) == list(COLUMNS) and row.variant == SITE and row.changes == ""
    assert row.within_5s == site.agreement["within_5s"] and row.kendall_tau == site.agreement["kendall_tau"]
    assert row.replay_within_2s == replay_agreement(site)["explained_within_2s"]


def test_a_variant_changes_its_options_and_nothing_else(runs):
    """Its mean wait is the site run's options with bf_interval 30 (the estimated start delay,
    backfill phase and slurmctld start kept), on the same jobs; no replay for a variant."""
    site = simulate_site(
        FAIR / "sacct.txt", read_slurm_conf(FAIR / "slurm.conf"), associations=read_associations(FAIR / "sshare.txt")
    )
    start = slurm_schedule(site.site.cluster, site.jobs.columns, replace(site.options, bf_interval=30)).start
    known = site.jobs.recorded_start != UNRECORDED
    row = runs.set_index("variant").loc["bf_interval=30"]
    assert row.changes == "bf_interval=30" and np.isnan(row.replay_within_2s)
    assert row.simulated_mean_wait == pytest.approx(np.mean(start[known] - site.jobs.columns["submit"][known]))
    assert row.within_5s < runs.iloc[0].within_5s  # the real cluster ran bf_interval=1


@pytest.mark.parametrize(
    ("variants", "message"),
    [
        ({"x": {"bf_intervall": 60}}, r"v.x.bf_intervall: not an option a variant changes; known are backfill, "),
        ({"x": {"start_delay": 1}}, r"v.x.start_delay: not an option a variant changes"),
        ({"x": {"bf_interval": 0.5}}, r"v.x.bf_interval: a int, got 0.5"),
        ({"x": {"backfill": 0}}, r"v.x.backfill: a bool, got 0"),
        ({"x": {"bf_interval": True}}, r"v.x.bf_interval: a int, got True"),
        ({"site": {"bf_interval": 60}}, r"v.site: a variant named other than 'site'"),
        ({"x": {}}, r"v.x: a variant named other than 'site', changing at least one option"),
        ([1], r"v: a mapping of variant names to option changes"),
    ],
)
def test_a_bad_variant_is_refused_naming_its_key(variants, message):
    with pytest.raises(ValueError, match=message):
        check_slurm_variants(variants, "v")


def test_a_weight_may_be_a_whole_number_or_not():
    assert check_slurm_variants({"x": {"priority_weight_fairshare": 5000}}, "v") == {
        "x": {"priority_weight_fairshare": 5000}
    }


def test_the_section_shows_every_configuration(runs):
    text = "\n".join(slurm_markdown(runs.assign(trace="fair")))
    assert "#### fair" in text and "| bf_interval=30 | bf_interval=30 |" in text
    assert "| site | – |" in text and text.count("| – |") == 1 + len(VARIANTS)  # replay shown for the site only


def test_the_command_writes_the_rows_with_their_provenance(tmp_path):
    out = tmp_path / "fair.slurm.parquet"
    argv = ["recorded-schedule-slurm", str(FAIR / "sacct.txt"), "--trace", "fair", "--slurm-conf"]
    argv += [str(FAIR / "slurm.conf"), "--slurm-assoc", str(FAIR / "sshare.txt"), "--variants"]
    assert main([*argv, '{"builtin": {"backfill": false}}', "--runs", str(out)]) == 0
    rows = read_parquet(out)
    assert rows["variant"].tolist() == [SITE, "builtin"] and set(rows["trace"]) == {"fair"}
    assert main([*argv, '{"builtin": {"backfil": false}}', "--runs", str(tmp_path / "bad.parquet")]) != 0
    assert not (tmp_path / "bad.parquet").exists()
